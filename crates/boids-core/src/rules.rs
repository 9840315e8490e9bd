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

use glam::Vec2;

use crate::params::{Boundary, Params};
use crate::real::{Real, V2};

/// Scout group of a boid (seed 001).
pub mod group {
    /// Not a scout.
    pub const NONE: u8 = 0;
    /// Biased toward +x.
    pub const RIGHT: u8 = 1;
    /// Biased toward -x.
    pub const LEFT: u8 = 2;
}

/// The model's constants in the hot loop's precision.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// Strict upper bound on squared distance for the visual range.
    pub visual_below: f32,
    /// Strict upper bound on squared distance for the protected range.
    pub protected_below: f32,
    include_self: bool,
    exclude_protected: bool,
    centering: f32,
    matching: f32,
    avoid: f32,
    gain: f32,
    boost: f32,
    min_speed: f32,
    max_speed: f32,
    dt: f32,
    boundary: Boundary,
    world_min: Vec2,
    world_size: Vec2,
    margin: f32,
    turnfactor: f32,
    wall_buffer: f32,
    boid_size: f32,
    bias_base: f32,
    max_bias: f32,
    bias_increment: f32,
    dynamic_bias: bool,
    wander_weight: f32,
    /// Preferred direction of each scout group (unit vectors, indexed by group).
    pub goal: [Vec2; 3],
}

impl Kernel {
    /// Converts validated parameters to the kernel's constants.
    pub fn new(p: &Params) -> Self {
        let squared_bound = |range: f64| {
            let r2 = (range * range) as f32;
            if p.inclusive_ranges { r2.next_up() } else { r2 }
        };
        Self {
            visual_below: squared_bound(p.visual_range),
            protected_below: squared_bound(p.protected_range),
            include_self: p.include_self,
            exclude_protected: p.exclude_protected,
            centering: p.centering_factor as f32,
            matching: p.matching_factor as f32,
            avoid: p.avoid_factor as f32,
            gain: p.steering_gain as f32,
            boost: p.speed_boost as f32,
            min_speed: p.min_speed as f32,
            max_speed: p.max_speed as f32,
            dt: p.dt as f32,
            boundary: p.boundary,
            world_min: Vec2::new(p.world_x_min as f32, p.world_y_min as f32),
            world_size: Vec2::new(p.world_width as f32, p.world_height as f32),
            margin: p.margin as f32,
            turnfactor: p.turnfactor as f32,
            wall_buffer: p.wall_buffer as f32,
            boid_size: p.boid_size as f32,
            bias_base: p.bias as f32,
            max_bias: p.max_bias as f32,
            bias_increment: p.bias_increment as f32,
            dynamic_bias: p.dynamic_bias,
            wander_weight: p.wander_weight as f32,
            goal: [
                Vec2::ZERO,
                unit_at(p.preferred_angle1),
                unit_at(p.preferred_angle2),
            ],
        }
    }

    /// Which sums a candidate at squared distance `d2` joins: the averaging set (cohesion,
    /// alignment) and the separation set. `is_self`: the candidate is the boid itself.
    #[inline(always)]
    pub fn joins(&self, d2: f32, is_self: bool) -> (bool, bool) {
        let averaged =
            (d2 < self.visual_below) & (d2 >= self.unseen_below()) & (self.include_self | !is_self);
        (averaged, d2 < self.protected_below)
    }

    /// Squared distance below which a neighbour is left out of the averages: the protected
    /// range's bound if protected neighbours are, else zero (no squared distance is below it).
    pub fn unseen_below(&self) -> f32 {
        if self.exclude_protected {
            self.protected_below
        } else {
            0.0
        }
    }

    /// Whether a boid would land in its own averaging set unless told apart from the others:
    /// it is left out of it, and its distance, zero, is not below [`Kernel::unseen_below`].
    pub fn must_skip_self(&self) -> bool {
        !self.include_self && self.unseen_below() <= 0.0
    }

    /// The bias a boid of `group` starts with.
    pub fn initial_bias(&self, group: u8) -> f32 {
        if group == group::NONE {
            0.0
        } else {
            self.bias_base
        }
    }
}

/// The unit vector at `angle` (radians), with components within 1e-15 of 0 or ±1 snapped there,
/// so that the axis directions (seed 001's +x and -x) are exact and the scout bias along them
/// touches only vx, as the seed's rule does.
pub fn unit_at(angle: f64) -> Vec2 {
    let snap = |c: f64| {
        if c.abs() < 1e-15 {
            0.0
        } else if (c.abs() - 1.0).abs() < 1e-15 {
            c.signum()
        } else {
            c
        }
    };
    Vec2::new(snap(angle.cos()) as f32, snap(angle.sin()) as f32)
}

/// Rotates `v` by `angle` radians (counter-clockwise in x-right, y-up axes).
#[inline]
pub fn rotate(v: Vec2, angle: f64) -> Vec2 {
    let (sin, cos) = angle.sin_cos();
    Vec2::new(cos as f32, sin as f32).rotate(v)
}

/// Turns unit vector `from` toward unit vector `to` by at most `limit` radians.
pub fn turn_toward(from: Vec2, to: Vec2, limit: f64) -> Vec2 {
    let angle = f64::from(from.angle_to(to));
    if angle.abs() <= limit {
        to
    } else {
        rotate(from, limit.copysign(angle))
    }
}

/// Whether the offset `d` (squared length `d2`) puts a boid in the visual range.
#[inline(always)]
pub fn in_visual_range(kernel: &Kernel, d2: f32) -> bool {
    d2 < kernel.visual_below
}

/// Sums over one boid's neighbours.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accum {
    /// Boids in the averaging set.
    pub count: f32,
    /// Sum of `p_j - p_i` over the averaging set.
    pub offset_sum: Vec2,
    /// Sum of `v_j` over the averaging set.
    pub velocity_sum: Vec2,
    /// Sum of `p_i - p_j` over protected neighbours.
    pub separation: Vec2,
}

impl Accum {
    /// Adds one candidate: `d = p_i - p_j` (minimum image), its velocity, and whether it is the
    /// boid itself. Sums grow by selects, never by a multiply with a 0/1 weight: a candidate
    /// out of range leaves them bit for bit unchanged, which the lane scan relies on.
    #[inline(always)]
    pub fn add(&mut self, kernel: &Kernel, d: Vec2, velocity: Vec2, is_self: bool) {
        let (averaged, separated) = kernel.joins(d.x * d.x + d.y * d.y, is_self);
        self.count = add_if(self.count, 1.0, averaged);
        self.offset_sum.x = add_if(self.offset_sum.x, -d.x, averaged);
        self.offset_sum.y = add_if(self.offset_sum.y, -d.y, averaged);
        self.velocity_sum.x = add_if(self.velocity_sum.x, velocity.x, averaged);
        self.velocity_sum.y = add_if(self.velocity_sum.y, velocity.y, averaged);
        self.separation.x = add_if(self.separation.x, d.x, separated);
        self.separation.y = add_if(self.separation.y, d.y, separated);
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
pub struct RuleVectors {
    /// Pull toward the neighbours' centre.
    pub cohesion: Vec2,
    /// Push away from protected neighbours.
    pub separation: Vec2,
    /// Pull toward the neighbours' mean velocity.
    pub alignment: Vec2,
}

impl RuleVectors {
    /// The weighted rule vectors of a boid with velocity `v` and neighbour sums `acc`.
    #[inline(always)]
    pub fn new(kernel: &Kernel, acc: &Accum, v: Vec2) -> Self {
        let [cohesion, separation, alignment] =
            rule_vectors(kernel, &Sums::from(acc), v.into()).map(Vec2::from);
        Self {
            cohesion,
            separation,
            alignment,
        }
    }
}

/// The shared wandering heading `(cos a, sin a)` of seed 004 at step number `step`: the angle
/// `a` starts at `wander_angle` and turns by `wander_turn` every `wander_period` steps. The one
/// definition for the fast path ([`crate::sim`]), the general path ([`crate::models`]) and the
/// brute-force reference ([`crate::reference`]).
pub fn wander_heading(params: &Params, step: u64) -> Vec2 {
    let angle = params.wander_angle + params.wander_turn * (step / params.wander_period) as f64;
    Vec2::new(angle.cos() as f32, angle.sin() as f32)
}

/// One boid's state going into or out of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoidState {
    /// Position.
    pub position: Vec2,
    /// Velocity.
    pub velocity: Vec2,
    /// Scout bias (dynamic bias changes it).
    pub bias: f32,
}

/// Applies the rules to one boid: steering, boundary, the world's pull, scouts, speed limits,
/// move. `wander` is the shared wandering heading of this step (unit vector); `world` the
/// boid's pull from predators and attractors ([`crate::world::WorldSteer`]), `None` when
/// nothing pulls.
#[inline(always)]
pub fn advance(
    kernel: &Kernel,
    acc: &Accum,
    boid: BoidState,
    group: u8,
    wander: Vec2,
    world: Option<Vec2>,
) -> BoidState {
    let next = advance_lanes(
        kernel,
        &Sums::from(acc),
        Boids {
            position: boid.position.into(),
            velocity: boid.velocity.into(),
            bias: boid.bias,
        },
        &Scouts {
            goal: kernel.goal[usize::from(group)].into(),
            scout: group != group::NONE,
        },
        wander,
        world.map(V2::from),
    );
    BoidState {
        position: next.position.into(),
        velocity: next.velocity.into(),
        bias: next.bias,
    }
}

/// [`Accum`] over [`Real`] lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sums<T> {
    pub count: T,
    pub offset_sum: V2<T>,
    pub velocity_sum: V2<T>,
    pub separation: V2<T>,
}

impl From<&Accum> for Sums<f32> {
    #[inline(always)]
    fn from(a: &Accum) -> Self {
        Self {
            count: a.count,
            offset_sum: a.offset_sum.into(),
            velocity_sum: a.velocity_sum.into(),
            separation: a.separation.into(),
        }
    }
}

/// [`BoidState`] over [`Real`] lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Boids<T> {
    pub position: V2<T>,
    pub velocity: V2<T>,
    pub bias: T,
}

/// Each lane's scout group: its preferred direction (zero for non-scouts) and whether it is a
/// scout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scouts<T: Real> {
    pub goal: V2<T>,
    pub scout: T::Mask,
}

/// The weighted cohesion, separation and alignment of boids with velocity `v` and neighbour sums
/// `acc` (zero cohesion and alignment without neighbours).
#[inline(always)]
fn rule_vectors<T: Real>(k: &Kernel, acc: &Sums<T>, v: V2<T>) -> [V2<T>; 3] {
    let seen = acc.count.gt(T::splat(0.0));
    let inv = T::splat(1.0) / acc.count;
    let cohesion = V2::select(seen, acc.offset_sum.scale(inv), V2::zero());
    let alignment = V2::select(seen, acc.velocity_sum.scale(inv) - v, V2::zero());
    let gain = k.gain;
    [
        cohesion.scale(T::splat(k.centering * gain)),
        acc.separation.scale(T::splat(k.avoid * gain)),
        alignment.scale(T::splat(k.matching * gain)),
    ]
}

/// [`advance`] for every lane: the rules written once for one boid or a vector of them.
#[inline(always)]
pub(crate) fn advance_lanes<T: Real>(
    kernel: &Kernel,
    acc: &Sums<T>,
    boids: Boids<T>,
    scouts: &Scouts<T>,
    wander: Vec2,
    world: Option<V2<T>>,
) -> Boids<T> {
    let Boids {
        position: p,
        velocity: v,
        bias,
    } = boids;
    let [cohesion, separation, alignment] = rule_vectors(kernel, acc, v);
    let wander = V2::splat(wander * (kernel.wander_weight * kernel.gain));
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
    let across_axis = g.perp();
    let along = (T::splat(1.0) - bias) * v.dot(g) + bias;
    let steered = g.scale(along) + across_axis.scale(v.dot(across_axis));
    let v = clamp_speed(kernel, V2::select(scouts.scout, steered, v));
    let (position, velocity) = move_lanes(kernel, p, v);
    Boids {
        position,
        velocity,
        bias,
    }
}

/// Velocity change from the margins (turn) or walls (push inward); zero on a torus.
#[inline(always)]
pub fn boundary_steer(k: &Kernel, p: Vec2) -> Vec2 {
    boundary_steer_lanes(k, p.into()).into()
}

/// [`boundary_steer`] for every lane.
#[inline(always)]
fn boundary_steer_lanes<T: Real>(k: &Kernel, p: V2<T>) -> V2<T> {
    let (lo, hi) = (k.world_min, k.world_min + k.world_size);
    // Direct calls, not a function pointer chosen by the match: a call through a pointer is
    // not inlined, and costs the vector loop a call per group.
    match k.boundary {
        Boundary::Torus => V2::zero(),
        Boundary::Margins => V2::new(
            margin_turn(k, p.x, lo.x, hi.x),
            margin_turn(k, p.y, lo.y, hi.y),
        ),
        Boundary::Walls => V2::new(wall_push(k, p.x, lo.x, hi.x), wall_push(k, p.y, lo.y, hi.y)),
    }
}

/// Seed 001's margins along one axis: turn inward within `margin` of either edge.
#[inline(always)]
fn margin_turn<T: Real>(k: &Kernel, x: T, lo: f32, hi: f32) -> T {
    let (zero, margin, turn) = (T::splat(0.0), T::splat(k.margin), T::splat(k.turnfactor));
    let dv = T::select(x.lt(T::splat(lo) + margin), zero + turn, zero);
    T::select(x.gt(T::splat(hi) - margin), dv - turn, dv)
}

/// Seed 002's avoidWalls along one axis: the later (far-wall) test wins when both apply.
#[inline(always)]
fn wall_push<T: Real>(k: &Kernel, x: T, lo: f32, hi: f32) -> T {
    let (zero, buffer) = (T::splat(0.0), T::splat(k.wall_buffer));
    let (lo, hi) = (T::splat(lo), T::splat(hi));
    let d = T::select((x - lo).lt(buffer), x - lo, zero);
    T::select((hi - x).lt(buffer), x - hi, d) * T::splat(k.avoid)
}

/// Seed 001's dynamic bias: grows while the scout moves its preferred way (a positive component
/// along its preferred direction), shrinks otherwise.
#[inline(always)]
fn scout_bias<T: Real>(k: &Kernel, scouts: &Scouts<T>, v: V2<T>, bias: T) -> T {
    if !k.dynamic_bias {
        return bias;
    }
    let increment = T::splat(k.bias_increment);
    let grown = T::splat(k.max_bias).min(bias + increment);
    let shrunk = increment.max(bias - increment);
    let updated = T::select(v.dot(scouts.goal).gt(T::splat(0.0)), grown, shrunk);
    T::select(scouts.scout, updated, bias)
}

/// Raises speeds below `min_speed`, then lowers speeds above `max_speed`, from the same measured
/// speed (seed 001's order). A boid at rest stays at rest: it has no direction to speed up in.
#[inline(always)]
fn clamp_speed<T: Real>(k: &Kernel, v: V2<T>) -> V2<T> {
    let speed = v.length();
    let (min, max) = (T::splat(k.min_speed), T::splat(k.max_speed));
    let slow = speed.lt(min) & speed.gt(T::splat(0.0));
    let v = V2::select(slow, v.div(speed).scale(min), v);
    V2::select(speed.gt(max), v.div(speed).scale(max), v)
}

/// [`clamp_speed`] for one boid (the obstacle pass re-applies the limits after it steers).
pub fn limit_speed(k: &Kernel, v: Vec2) -> Vec2 {
    clamp_speed::<f32>(k, v.into()).into()
}

/// Moves by `v dt`, then wraps (torus) or bounces (walls, seed 002's isCollided: a boid whose
/// disc would cross a wall is placed against it with that velocity component reflected, and
/// does not move that step).
#[inline(always)]
pub fn move_boid(k: &Kernel, p: Vec2, v: Vec2) -> (Vec2, Vec2) {
    let (p, v) = move_lanes(k, p.into(), v.into());
    (p.into(), v.into())
}

/// [`move_boid`] for every lane.
#[inline(always)]
fn move_lanes<T: Real>(k: &Kernel, p: V2<T>, v: V2<T>) -> (V2<T>, V2<T>) {
    let moved = p + v.scale(T::splat(k.dt));
    match k.boundary {
        Boundary::Margins => (moved, v),
        Boundary::Torus => (wrap_lanes(moved, k.world_min, k.world_size), v),
        Boundary::Walls => {
            let (lo, hi) = (k.world_min, k.world_min + k.world_size);
            let (px, vx, hit_x) = bounce(k, p.x, v.x, moved.x, lo.x, hi.x);
            let (py, vy, hit_y) = bounce(k, p.y, v.y, moved.y, lo.y, hi.y);
            let collided = hit_x | hit_y;
            (
                V2::select(collided, V2::new(px, py), moved),
                V2::new(vx, vy),
            )
        }
    }
}

/// Seed 002's isCollided along one axis, walls at `lo` and `hi`: the position against the wall
/// and the reflected velocity where the disc would cross it, and whether it would.
#[inline(always)]
fn bounce<T: Real>(k: &Kernel, p: T, v: T, moved: T, lo: f32, hi: f32) -> (T, T, T::Mask) {
    let r = k.boid_size;
    let below = (moved - T::splat(r)).lt(T::splat(lo));
    let (p, v) = (
        T::select(below, T::splat(lo + r), p),
        T::select(below, v.abs(), v),
    );
    let above = (moved + T::splat(r)).gt(T::splat(hi));
    let (p, v) = (
        T::select(above, T::splat(hi - r), p),
        T::select(above, -v.abs(), v),
    );
    (p, v, below | above)
}

/// Wraps a position into `[min, min + size)`, never returning the upper edge itself.
#[inline(always)]
pub fn wrap(p: Vec2, min: Vec2, size: Vec2) -> Vec2 {
    wrap_lanes(p.into(), min, size).into()
}

/// [`wrap`] for every lane.
#[inline(always)]
fn wrap_lanes<T: Real>(p: V2<T>, min: Vec2, size: Vec2) -> V2<T> {
    V2::new(wrap_axis(p.x, min.x, size.x), wrap_axis(p.y, min.y, size.y))
}

/// [`wrap`] along one axis.
#[inline(always)]
fn wrap_axis<T: Real>(x: T, lo: f32, extent: f32) -> T {
    let (lo_t, extent_t) = (T::splat(lo), T::splat(extent));
    let r = wrap_offset(x - lo_t, extent);
    let r = T::select(r.ge(extent_t), T::splat(0.0), r);
    let w = lo_t + r;
    // lo + r can round up to the upper edge when lo is large; fold it back.
    T::select(w.ge(T::splat(lo + extent)), lo_t, w)
}

/// `t.rem_euclid(extent)` for a positive `extent`, bit for bit, without the `fmodf` call when
/// `t` is less than one extent outside `[0, extent)` (a boid moves far less than a world per
/// step). On that range the remainder is exact and the fast paths compute it exactly too:
/// `fmod(t, e)` is `t` for `|t| < e` (then `rem_euclid` adds `e` to a negative remainder, as
/// here), and `t - e` for `e <= t < 2e`, where the subtraction is exact (Sterbenz). `-0.0`
/// stays `-0.0` as in `rem_euclid`; `t == -e`, NaN and far-out values take the library path.
#[inline(always)]
fn wrap_offset<T: Real>(t: T, extent: f32) -> T {
    let (zero, e) = (T::splat(0.0), T::splat(extent));
    let inside = t.ge(zero) & t.lt(e);
    let below = t.lt(zero) & t.gt(-e);
    let above = t.ge(e) & t.lt(T::splat(2.0 * extent));
    let far = if T::any(!(inside | below | above)) {
        t.map_lanes(|t| t.rem_euclid(extent))
    } else {
        t
    };
    let r = T::select(above, t - e, far);
    let r = T::select(below, t + e, r);
    T::select(inside, t, r)
}

/// Minimum-image offset along axes whose `wrap` is non-zero.
#[inline(always)]
pub fn minimum_image(d: Vec2, wrap: Vec2) -> Vec2 {
    let axis = |x: f32, w: f32| if w > 0.0 { x - w * (x / w).round() } else { x };
    Vec2::new(axis(d.x, wrap.x), axis(d.y, wrap.y))
}

/// The minimum image of `d` when it lies within `range` of zero along both axes, else `None`.
/// `d` must be the difference of two points stored in the world (so `|d| < wrap` on a torus):
/// then a far pair is ruled out by two comparisons, without the divisions of
/// [`minimum_image`], which gives the exact offset of the pairs that remain.
#[inline]
pub fn image_within(d: Vec2, wrap: Vec2, range: f32) -> Option<Vec2> {
    let axis = |x: f32, w: f32| {
        let a = x.abs();
        if w > 0.0 { a.min(w - a) } else { a }
    };
    // A hair of slack, so the quick test never refuses a pair the exact offset keeps.
    let reach = range * (1.0 + 1e-5);
    if axis(d.x, wrap.x) > reach || axis(d.y, wrap.y) > reach {
        return None;
    }
    Some(minimum_image(d, wrap))
}

/// Whether some point of the box `[lo, hi]` may lie within `range` of `q` along both axes (on a
/// torus, of any image of `q`): a test that rules a whole group of boids out at once before
/// [`image_within`] tests each. It never refuses a box holding a point that test would keep.
#[inline]
pub fn box_reaches(lo: Vec2, hi: Vec2, q: Vec2, wrap: Vec2, range: f32) -> bool {
    let axis = |lo: f32, hi: f32, q: f32, w: f32| {
        let gap = |q: f32| (lo - q).max(q - hi).max(0.0);
        if w > 0.0 {
            gap(q).min(gap(q - w)).min(gap(q + w))
        } else {
            gap(q)
        }
    };
    let reach = range * (1.0 + 1e-5);
    axis(lo.x, hi.x, q.x, wrap.x) <= reach && axis(lo.y, hi.y, q.y, wrap.y) <= reach
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
        let mut acc = Accum::default();
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
            &Accum::default(),
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
            &Accum::default(),
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
        let out = advance(&k, &Accum::default(), state, group::RIGHT, Vec2::ZERO, None);
        assert!((out.velocity.x - ((1.0 - 0.001) * -4.0 + 0.001)).abs() < 1e-6);
        assert_eq!(out.bias, 0.001);

        let k = kernel(|p| p.dynamic_bias = true);
        // Moving against its preference: the bias shrinks, but not below bias_increment.
        let out = advance(&k, &Accum::default(), state, group::RIGHT, Vec2::ZERO, None);
        assert!((out.bias - (0.001 - 0.00004)).abs() < 1e-9);
        let low = BoidState {
            bias: 0.00005,
            ..state
        };
        assert_eq!(
            advance(&k, &Accum::default(), low, group::RIGHT, Vec2::ZERO, None).bias,
            0.00004
        );
        // Group 2 prefers -x: the bias grows, up to max_bias.
        let out = advance(&k, &Accum::default(), state, group::LEFT, Vec2::ZERO, None);
        assert!((out.bias - 0.00104).abs() < 1e-9);
        let high = BoidState {
            bias: 0.00999,
            ..state
        };
        assert_eq!(
            advance(&k, &Accum::default(), high, group::LEFT, Vec2::ZERO, None).bias,
            0.01
        );
    }

    #[test]
    fn walls_push_inside_and_bounce() {
        let canvas = Kernel::new(&Params::preset("canvas").unwrap());
        // 30 px from the left wall: pushed by +30 * 0.05 = 1.5 px/s; speed 50 within limits.
        let out = advance(
            &canvas,
            &Accum::default(),
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
            &Accum::default(),
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
            &Accum::default(),
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
            &Accum::default(),
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
        let k = Kernel::new(&Params::preset("allegheny").unwrap());
        let mut acc = Accum::default();
        acc.add(&k, Vec2::new(40.0, 0.0), Vec2::ZERO, false);
        assert_eq!(acc.count, 1.0);
        let k = kernel(|_| {});
        let mut acc = Accum::default();
        acc.add(&k, Vec2::new(40.0, 0.0), Vec2::ZERO, false);
        assert_eq!(acc.count, 0.0);
    }

    #[test]
    fn image_within_keeps_exactly_the_pairs_within_range() {
        let wrap = Vec2::new(100.0, 50.0);
        let points = (0..400).map(|k| {
            let t = k as f32 * 0.618_034;
            Vec2::new((t * 97.0).rem_euclid(100.0), (t * 53.0).rem_euclid(50.0))
        });
        let points: Vec<Vec2> = points.collect();
        for &p in &points {
            for &q in &points {
                for w in [wrap, Vec2::ZERO] {
                    let exact = minimum_image(p - q, w);
                    let inside = exact.x.abs() <= 10.0 && exact.y.abs() <= 10.0;
                    match image_within(p - q, w, 10.0) {
                        Some(d) => assert_eq!(d, exact),
                        None => assert!(!inside, "{p} {q} {w}"),
                    }
                }
            }
        }
    }

    #[test]
    fn box_reaches_every_point_image_within_keeps() {
        let wrap = Vec2::new(100.0, 50.0);
        let points: Vec<Vec2> = (0..300)
            .map(|k| {
                let t = k as f32 * 0.618_034;
                Vec2::new((t * 97.0).rem_euclid(100.0), (t * 53.0).rem_euclid(50.0))
            })
            .collect();
        for group in points.chunks(8) {
            let lo = group.iter().fold(Vec2::INFINITY, |a, &p| a.min(p));
            let hi = group.iter().fold(Vec2::NEG_INFINITY, |a, &p| a.max(p));
            for &q in &points {
                for w in [wrap, Vec2::ZERO] {
                    let kept = group.iter().any(|&p| image_within(p - q, w, 6.0).is_some());
                    assert!(!kept || box_reaches(lo, hi, q, w, 6.0), "{lo} {hi} {q} {w}");
                }
            }
        }
        assert!(!box_reaches(
            Vec2::ZERO,
            Vec2::ONE,
            Vec2::new(20.0, 0.5),
            Vec2::ZERO,
            6.0
        ));
        assert!(box_reaches(
            Vec2::ZERO,
            Vec2::ONE,
            Vec2::new(99.0, 0.5),
            wrap,
            6.0
        ));
    }

    #[test]
    fn wrap_stays_inside_the_world() {
        let (min, size) = (Vec2::new(-8.0, -8.0), Vec2::splat(16.0));
        assert_eq!(wrap(Vec2::new(8.0, -8.5), min, size), Vec2::new(-8.0, 7.5));
        let w = wrap(Vec2::new(-8.0 - 1e-7, 0.0), min, size);
        assert!(w.x >= -8.0 && w.x < 8.0);
        // Less than one world outside: the fast path, same answers as rem_euclid.
        assert_eq!(
            wrap(Vec2::new(8.25, -9.0), min, size),
            Vec2::new(-7.75, 7.0)
        );
        // Far outside: the rem_euclid fallback.
        assert_eq!(
            wrap(Vec2::new(40.5, -41.0), min, size),
            Vec2::new(-7.5, 7.0)
        );
        assert_eq!(
            minimum_image(Vec2::new(15.0, 1.0), Vec2::new(16.0, 0.0)),
            Vec2::new(-1.0, 1.0)
        );
    }

    #[test]
    fn wrap_offset_is_rem_euclid_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let extents = [16.0f32, 600.0, 1000.0, 3162.2776, 1.0e-3, 7.0e6];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x2545_f491);
        for &e in &extents {
            let check = |t: f32| {
                assert_eq!(
                    wrap_offset(t, e).to_bits(),
                    t.rem_euclid(e).to_bits(),
                    "t={t:e} e={e:e}"
                );
            };
            for t in [
                0.0,
                -0.0,
                e,
                -e,
                2.0 * e,
                -2.0 * e,
                e.next_down(),
                e.next_up(),
                (-e).next_up(),
                (-e).next_down(),
                (2.0 * e).next_down(),
                f32::MIN_POSITIVE,
                -f32::MIN_POSITIVE,
                1e-45,
                -1e-45,
                3.0 * e,
                -3.5 * e,
            ] {
                check(t);
            }
            for _ in 0..200_000 {
                check((rng.random::<f32>() * 4.0 - 1.5) * e);
            }
        }
    }
}
