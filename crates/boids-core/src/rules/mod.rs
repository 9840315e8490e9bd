//! The per-boid rules: one parametric family that expresses every seed.
//!
//! For boid `i` with neighbours `j` (offsets `d_j = p_i - p_j`, minimum image on a torus):
//!
//! ```text
//! cohesion   = mean(p_j - p_i)          over the averaging set
//! alignment  = mean(v_j) - v_i          over the averaging set
//! separation = sum(d_j)                 over neighbours within protected_range
//! steer      = centering_factor * cohesion + matching_factor * alignment
//!            + avoid_factor * separation + wander_weight * (cos a, sin a)
//! v'         = speed_boost * (v + steering_gain * steer)
//! v'        += boundary turn (margins) or push (walls)
//! v'         = scout bias (dynamic update first, if on), then speed clamp: min, then max
//! p'         = p + v' dt, then wrap (torus) or bounce (walls)
//! ```
//!
//! With obstacles, every model's move then goes through [`crate::world::ObstaclePass`]
//! (steer to avoid, and never inside an obstacle or across a wall).
//!
//! The averaging set is every boid within `visual_range`, without the boid itself unless
//! `include_self`, and without protected neighbours if `exclude_protected`. With no boid in the
//! averaging set, cohesion and alignment are zero.
//!
//! The accumulation is branch-free (comparisons become 0/1 weights), so the compiler keeps the
//! neighbour loop free of unpredictable jumps.
//!
//! Three concerns, three files: the rules themselves and the sums they read (here), the
//! constants they run with (`kernel.rs`, [`Kernel`]), and the limits after them: boundary turn
//! or push, speed clamp, move, wrap or bounce (`limits.rs`).

mod kernel;
mod limits;

use glam::Vec2;

pub use kernel::Kernel;
pub use limits::{boundary_steer, limit_speed, move_boid};
use limits::{boundary_steer_lanes, clamp_speed, move_lanes};

use crate::params::Params;
use crate::real::{Real, Vector};
use crate::space::{Coordinates, Dim, Dimension, VecN, in_plane};

/// Scout group of a boid (seed 001).
pub mod group {
    /// Not a scout.
    pub const NONE: u8 = 0;
    /// Biased toward +x.
    pub const RIGHT: u8 = 1;
    /// Biased toward -x.
    pub const LEFT: u8 = 2;
}

/// Whether the offset `d` (squared length `d2`) puts a boid in the visual range.
#[inline(always)]
pub fn in_visual_range<const D: usize>(kernel: &Kernel<D>, d2: f32) -> bool {
    d2 < kernel.visual_below
}

/// `x0 * y0 + x1 * y1 (+ x2 * y2)` of two coordinate arrays, added from the first axis on.
#[inline(always)]
pub fn dot<const D: usize>(a: [f32; D], b: [f32; D]) -> f32 {
    Vector::<f32, D>(a).dot(Vector(b))
}

/// Sums over the neighbours of one boid (`T = f32`: the scalar paths, which add a candidate
/// with [`Sums::add`]) or of one boid a lane (`T` a vector of lanes: the scan of
/// [`crate::interact`] hands the rules its sums in this shape): one shape that every path's
/// rules read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sums<T = f32, const D: usize = 2> {
    /// Boids in the averaging set.
    pub count: T,
    /// Sum of `p_j - p_i` over the averaging set.
    pub offset_sum: Vector<T, D>,
    /// Sum of `v_j` over the averaging set.
    pub velocity_sum: Vector<T, D>,
    /// Sum of `p_i - p_j` over protected neighbours.
    pub separation: Vector<T, D>,
}

impl<const D: usize> Default for Sums<f32, D> {
    /// No neighbours yet.
    fn default() -> Self {
        Self {
            count: 0.0,
            offset_sum: Vector([0.0; D]),
            velocity_sum: Vector([0.0; D]),
            separation: Vector([0.0; D]),
        }
    }
}

impl<const D: usize> Sums<f32, D>
where
    Dim<D>: Dimension<D>,
{
    /// Adds one candidate: `d = p_i - p_j` (minimum image), its velocity, and whether it is the
    /// boid itself. Sums grow by selects, never by a multiply with a 0/1 weight: a candidate
    /// out of range leaves them bit for bit unchanged, which the lane scan relies on.
    #[inline(always)]
    pub fn add(&mut self, kernel: &Kernel<D>, d: VecN<D>, velocity: VecN<D>, is_self: bool) {
        let (d, velocity) = (d.to_array(), velocity.to_array());
        let (averaged, separated) = kernel.joins(dot(d, d), is_self);
        self.count = add_if(self.count, 1.0, averaged);
        let Self {
            offset_sum: Vector(offset),
            velocity_sum: Vector(velocities),
            separation: Vector(separation),
            ..
        } = self;
        for a in 0..D {
            offset[a] = add_if(offset[a], -d[a], averaged);
            velocities[a] = add_if(velocities[a], velocity[a], averaged);
            separation[a] = add_if(separation[a], d[a], separated);
        }
    }
}

/// `sum + x` if `yes`, else `sum` untouched: a select, which vectorises to a masked add.
#[inline(always)]
pub fn add_if(sum: f32, x: f32, yes: bool) -> f32 {
    if yes { sum + x } else { sum }
}

/// The three rule contributions to a boid's velocity change, weighted and scaled by the
/// steering gain: what the debug overlays draw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleVectors<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Pull toward the neighbours' centre.
    pub cohesion: VecN<D>,
    /// Push away from protected neighbours.
    pub separation: VecN<D>,
    /// Pull toward the neighbours' mean velocity.
    pub alignment: VecN<D>,
}

impl<const D: usize> RuleVectors<D>
where
    Dim<D>: Dimension<D>,
{
    /// The weighted rule vectors of a boid with velocity `v` and neighbour sums `acc`.
    #[inline(always)]
    pub fn new(kernel: &Kernel<D>, acc: &Sums<f32, D>, v: VecN<D>) -> Self {
        let [cohesion, separation, alignment] =
            rule_vectors(kernel, acc, Vector(v.into())).map(|r| r.0.into());
        Self {
            cohesion,
            separation,
            alignment,
        }
    }
}

/// The shared wandering heading `(cos a, sin a)` of seed 004 at step number `step` (in the x-y
/// plane in 3D): the angle `a` starts at `wander_angle` and turns by `wander_turn` every
/// `wander_period` steps. The one definition for the fast path ([`crate::sim`]), the general
/// path ([`crate::models`]) and the brute-force reference ([`crate::reference`]).
pub fn wander_heading<const D: usize, P: Coordinates<D>>(params: &Params, step: u64) -> P {
    let angle = params.wander_angle + params.wander_turn * (step / params.wander_period) as f64;
    in_plane(Vec2::new(angle.cos() as f32, angle.sin() as f32)).into()
}

/// One boid's state going into or out of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoidState<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Position.
    pub position: VecN<D>,
    /// Velocity.
    pub velocity: VecN<D>,
    /// Scout bias (dynamic bias changes it).
    pub bias: f32,
}

/// Applies the rules to one boid: steering, boundary, the world's pull, scouts, speed limits,
/// move. `wander` is the shared wandering heading of this step (unit vector); `world` the
/// boid's pull from predators and attractors ([`crate::world::WorldSteer`]), `None` when
/// nothing pulls.
#[inline(always)]
pub fn advance<const D: usize>(
    kernel: &Kernel<D>,
    acc: &Sums<f32, D>,
    boid: BoidState<D>,
    group: u8,
    wander: VecN<D>,
    world: Option<VecN<D>>,
) -> BoidState<D>
where
    Dim<D>: Dimension<D>,
{
    let next = advance_lanes(
        kernel,
        acc,
        Boids {
            position: Vector(boid.position.into()),
            velocity: Vector(boid.velocity.into()),
            bias: boid.bias,
        },
        &Scouts {
            goal: Vector(kernel.goal[usize::from(group)]),
            scout: group != group::NONE,
        },
        wander.into(),
        world.map(|pull| Vector(pull.into())),
    );
    BoidState {
        position: next.position.0.into(),
        velocity: next.velocity.0.into(),
        bias: next.bias,
    }
}

/// [`BoidState`] over [`Real`] lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Boids<T, const D: usize> {
    pub position: Vector<T, D>,
    pub velocity: Vector<T, D>,
    pub bias: T,
}

/// Each lane's scout group: its preferred direction (zero for non-scouts) and whether it is a
/// scout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scouts<T: Real, const D: usize> {
    pub goal: Vector<T, D>,
    pub scout: T::Mask,
}

/// The weighted cohesion, separation and alignment of boids with velocity `v` and neighbour sums
/// `acc` (zero cohesion and alignment without neighbours).
#[inline(always)]
fn rule_vectors<T: Real, const D: usize>(
    k: &Kernel<D>,
    acc: &Sums<T, D>,
    v: Vector<T, D>,
) -> [Vector<T, D>; 3] {
    let seen = acc.count.gt(T::splat(0.0));
    let inv = T::splat(1.0) / acc.count;
    let cohesion = Vector::select(seen, acc.offset_sum.scale(inv), Vector::zero());
    let alignment = Vector::select(seen, acc.velocity_sum.scale(inv) - v, Vector::zero());
    let gain = k.gain;
    [
        cohesion.scale(T::splat(k.centering * gain)),
        acc.separation.scale(T::splat(k.avoid * gain)),
        alignment.scale(T::splat(k.matching * gain)),
    ]
}

/// [`advance`] for every lane: the rules written once for one boid or a vector of them, in
/// any dimension.
#[inline(always)]
pub(crate) fn advance_lanes<T: Real, const D: usize>(
    kernel: &Kernel<D>,
    acc: &Sums<T, D>,
    boids: Boids<T, D>,
    scouts: &Scouts<T, D>,
    wander: [f32; D],
    world: Option<Vector<T, D>>,
) -> Boids<T, D>
where
    Dim<D>: Dimension<D>,
{
    let Boids {
        position: p,
        velocity: v,
        bias,
    } = boids;
    let [cohesion, separation, alignment] = rule_vectors(kernel, acc, v);
    let wander = Vector::splat(wander.map(|w| w * (kernel.wander_weight * kernel.gain)));
    let steer = cohesion + alignment + separation + wander;
    let mut v = (v + steer).scale(T::splat(kernel.boost));
    v = v + boundary_steer_lanes(kernel, p);
    if let Some(pull) = world {
        // Only when something pulls: adding a zero would turn a -0.0 into +0.0.
        v = v + pull;
    }
    let bias = scout_bias(kernel, scouts, v, bias);
    // Seed 001's vx = (1 - bias) vx + bias * (+1 or -1), generalised to the group's preferred
    // direction g: the component along g is pulled toward 1, the component across g is
    // untouched (bit-identical to the seed's rule when g is +x or -x).
    let g = scouts.goal;
    let along = (T::splat(1.0) - bias) * v.dot(g) + bias;
    let steered = g.scale(along) + Dim::<D>::across(v, g);
    let v = clamp_speed(kernel, Vector::select(scouts.scout, steered, v));
    let (position, velocity) = move_lanes(kernel, p, v);
    Boids {
        position,
        velocity,
        bias,
    }
}

/// Seed 001's dynamic bias: grows while the scout moves its preferred way (a positive component
/// along its preferred direction), shrinks otherwise.
#[inline(always)]
fn scout_bias<T: Real, const D: usize>(
    k: &Kernel<D>,
    scouts: &Scouts<T, D>,
    v: Vector<T, D>,
    bias: T,
) -> T {
    if !k.dynamic_bias {
        return bias;
    }
    let increment = T::splat(k.bias_increment);
    let grown = T::splat(k.max_bias).min(bias + increment);
    let shrunk = increment.max(bias - increment);
    let updated = T::select(v.dot(scouts.goal).gt(T::splat(0.0)), grown, shrunk);
    T::select(scouts.scout, updated, bias)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn kernel(edit: impl FnOnce(&mut Params)) -> Kernel {
        let mut p = Params::preset("cornell").unwrap();
        edit(&mut p);
        Kernel::new(&p)
    }

    #[test]
    fn cornell_rules_by_hand() {
        // Boid at (300, 200) moving (3, 0). One visual neighbour at (310, 200) moving (0, 4);
        // one protected neighbour at (296, 203) (distance 5 < 8), left out of the averages.
        let k = kernel(|p| p.scout_group1_fraction = 0.0);
        let p = Vec2::new(300.0, 200.0);
        let v = Vec2::new(3.0, 0.0);
        let mut acc = Sums::<f32, 2>::default();
        acc.add(&k, p - Vec2::new(310.0, 200.0), Vec2::new(0.0, 4.0), false);
        acc.add(&k, p - Vec2::new(296.0, 203.0), Vec2::new(9.0, 9.0), false);
        acc.add(&k, Vec2::ZERO, v, true);
        assert_eq!(acc.count, 1.0);
        // centering: (310 - 300) * 0.0005 = 0.005; matching: (0 - 3) * 0.05 = -0.15, (4 - 0) * 0.05 = 0.2
        // avoid: (300 - 296) * 0.05 = 0.2, (200 - 203) * 0.05 = -0.15
        let out = advance(
            &k,
            &acc,
            BoidState {
                position: p,
                velocity: v,
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        let expected_v = Vec2::new(3.0 + 0.005 - 0.15 + 0.2, 0.0 + 0.2 - 0.15);
        assert!(
            (out.velocity - expected_v).length() < 1e-6,
            "{:?}",
            out.velocity
        );
        assert!((out.position - (p + expected_v)).length() < 1e-4);
    }

    #[test]
    fn margins_turn_and_speed_is_clamped_min_then_max() {
        let k = kernel(|_| {});
        // In the left and top margins, slow: turns +x and +y by 0.2, then min speed 3.
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::new(50.0, 50.0),
                velocity: Vec2::new(1.0, 0.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        let turned = Vec2::new(1.2, 0.2);
        assert!((out.velocity - turned.normalize() * 3.0).length() < 1e-6);
        // Too fast in the bottom-right margin: turns by -0.2 each, then max speed 6.
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::new(600.0, 450.0),
                velocity: Vec2::new(10.0, 0.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        assert!((out.velocity - Vec2::new(9.8, -0.2).normalize() * 6.0).length() < 1e-6);
    }

    #[test]
    fn static_and_dynamic_scout_bias() {
        let k = kernel(|_| {});
        let state = BoidState {
            position: Vec2::new(320.0, 240.0),
            velocity: Vec2::new(-4.0, 0.0),
            bias: 0.001,
        };
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            state,
            group::RIGHT,
            Vec2::ZERO,
            None,
        );
        assert!((out.velocity.x - ((1.0 - 0.001) * -4.0 + 0.001)).abs() < 1e-6);
        assert_eq!(out.bias, 0.001);

        let k = kernel(|p| p.dynamic_bias = true);
        // Moving against its preference: the bias shrinks, but not below bias_increment.
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            state,
            group::RIGHT,
            Vec2::ZERO,
            None,
        );
        assert!((out.bias - (0.001 - 0.00004)).abs() < 1e-9);
        let low = BoidState {
            bias: 0.00005,
            ..state
        };
        assert_eq!(
            advance(
                &k,
                &Sums::<f32, 2>::default(),
                low,
                group::RIGHT,
                Vec2::ZERO,
                None
            )
            .bias,
            0.00004
        );
        // Group 2 prefers -x: the bias grows, up to max_bias.
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            state,
            group::LEFT,
            Vec2::ZERO,
            None,
        );
        assert!((out.bias - 0.00104).abs() < 1e-9);
        let high = BoidState {
            bias: 0.00999,
            ..state
        };
        assert_eq!(
            advance(
                &k,
                &Sums::<f32, 2>::default(),
                high,
                group::LEFT,
                Vec2::ZERO,
                None
            )
            .bias,
            0.01
        );
    }

    #[test]
    fn walls_push_inside_and_bounce() {
        let canvas = Kernel::new(&Params::preset("canvas").unwrap());
        // 30 px from the left wall: pushed by +30 * 0.05 = 1.5 px/s; speed 50 within limits.
        let out = advance(
            &canvas,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::new(30.0, 240.0),
                velocity: Vec2::new(0.0, 50.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        assert!(
            (out.velocity - Vec2::new(1.5, 50.0)).length() < 1e-4,
            "{:?}",
            out.velocity
        );
        // About to cross the right wall: placed at width - size, vx reflected, y not moved.
        let out = advance(
            &canvas,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::new(594.5, 240.0),
                velocity: Vec2::new(60.0, 30.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        assert_eq!(out.position, Vec2::new(595.0, 240.0));
        assert!(out.velocity.x < 0.0);
    }

    #[test]
    fn functional_boost_and_limit() {
        let k = Kernel::new(&Params::preset("functional").unwrap());
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::ZERO,
                velocity: Vec2::new(0.02, 0.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        assert!((out.velocity.x - 0.02 * 1.0025).abs() < 1e-9);
        let out = advance(
            &k,
            &Sums::<f32, 2>::default(),
            BoidState {
                position: Vec2::ZERO,
                velocity: Vec2::new(0.05, 0.0),
                bias: 0.0,
            },
            group::NONE,
            Vec2::ZERO,
            None,
        );
        assert!((out.velocity.x - 0.04).abs() < 1e-7);
    }

    #[test]
    fn inclusive_ranges_count_a_neighbour_exactly_at_the_range() {
        let k = Kernel::<2>::new(&Params::preset("allegheny").unwrap());
        let mut acc = Sums::<f32, 2>::default();
        acc.add(&k, Vec2::new(40.0, 0.0), Vec2::ZERO, false);
        assert_eq!(acc.count, 1.0);
        let k = kernel(|_| {});
        let mut acc = Sums::<f32, 2>::default();
        acc.add(&k, Vec2::new(40.0, 0.0), Vec2::ZERO, false);
        assert_eq!(acc.count, 0.0);
    }
}
