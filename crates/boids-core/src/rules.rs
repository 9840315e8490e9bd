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
//! The averaging set is every boid within `visual_range`, without the boid itself unless
//! `include_self`, and without protected neighbours if `exclude_protected`. With no boid in the
//! averaging set, cohesion and alignment are zero.
//!
//! The accumulation is branch-free (comparisons become 0/1 weights), so the compiler keeps the
//! neighbour loop free of unpredictable jumps.

use glam::Vec2;

use crate::params::{Boundary, Params};

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
        let visual = d2 < self.visual_below;
        let protected = d2 < self.protected_below;
        let averaged =
            visual & !(self.exclude_protected & protected) & (self.include_self | !is_self);
        (averaged, protected)
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
    /// it is left out of it, and nothing else leaves it out (it sits at distance zero, so
    /// leaving protected neighbours out of the averages does, when there is a protected range).
    pub fn must_skip_self(&self) -> bool {
        !(self.include_self || self.exclude_protected && self.protected_below > 0.0)
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
        let (cohesion, alignment) = if acc.count > 0.0 {
            let inv = 1.0 / acc.count;
            (acc.offset_sum * inv, acc.velocity_sum * inv - v)
        } else {
            (Vec2::ZERO, Vec2::ZERO)
        };
        let gain = kernel.gain;
        Self {
            cohesion: cohesion * (kernel.centering * gain),
            separation: acc.separation * (kernel.avoid * gain),
            alignment: alignment * (kernel.matching * gain),
        }
    }
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

/// Applies the rules to one boid: steering, boundary, scouts, speed limits, move.
/// `wander` is the shared wandering heading of this step (unit vector).
#[inline(always)]
pub fn advance(
    kernel: &Kernel,
    acc: &Accum,
    boid: BoidState,
    group: u8,
    wander: Vec2,
) -> BoidState {
    let BoidState {
        position: p,
        velocity: v,
        bias,
    } = boid;
    let rules = RuleVectors::new(kernel, acc, v);
    let steer = rules.cohesion
        + rules.alignment
        + rules.separation
        + wander * (kernel.wander_weight * kernel.gain);
    let mut v = (v + steer) * kernel.boost;
    v += boundary_steer(kernel, p);
    let bias = scout_bias(kernel, group, v, bias);
    if group != group::NONE {
        // Seed 001's vx = (1 - bias) vx + bias * (+1 or -1), generalised to the group's
        // preferred direction g: the component along g is pulled toward 1, the component
        // across g is untouched (bit-identical to the seed's rule when g is +x or -x).
        let g = kernel.goal[usize::from(group)];
        let across_axis = g.perp();
        let along = (1.0 - bias) * v.dot(g) + bias;
        v = g * along + across_axis * v.dot(across_axis);
    }
    let v = clamp_speed(kernel, v);
    let (position, velocity) = move_boid(kernel, p, v);
    BoidState {
        position,
        velocity,
        bias,
    }
}

/// Velocity change from the margins (turn) or walls (push inward); zero on a torus.
#[inline(always)]
pub fn boundary_steer(k: &Kernel, p: Vec2) -> Vec2 {
    let low = k.world_min;
    let high = k.world_min + k.world_size;
    match k.boundary {
        Boundary::Torus => Vec2::ZERO,
        Boundary::Margins => {
            let axis = |x: f32, lo: f32, hi: f32| {
                let mut dv = 0.0;
                if x < lo + k.margin {
                    dv += k.turnfactor;
                }
                if x > hi - k.margin {
                    dv -= k.turnfactor;
                }
                dv
            };
            Vec2::new(axis(p.x, low.x, high.x), axis(p.y, low.y, high.y))
        }
        Boundary::Walls => {
            // Seed 002's avoidWalls: the later (far-wall) test wins when both apply.
            let axis = |x: f32, lo: f32, hi: f32| {
                let mut d = 0.0;
                if x - lo < k.wall_buffer {
                    d = x - lo;
                }
                if hi - x < k.wall_buffer {
                    d = x - hi;
                }
                d * k.avoid
            };
            Vec2::new(axis(p.x, low.x, high.x), axis(p.y, low.y, high.y))
        }
    }
}

/// Seed 001's dynamic bias: grows while the scout moves its preferred way (a positive component
/// along its preferred direction), shrinks otherwise.
#[inline(always)]
fn scout_bias(k: &Kernel, group: u8, v: Vec2, bias: f32) -> f32 {
    if !k.dynamic_bias || group == group::NONE {
        return bias;
    }
    if v.dot(k.goal[usize::from(group)]) > 0.0 {
        k.max_bias.min(bias + k.bias_increment)
    } else {
        k.bias_increment.max(bias - k.bias_increment)
    }
}

/// Raises speeds below `min_speed`, then lowers speeds above `max_speed`, from the same measured
/// speed (seed 001's order). A boid at rest stays at rest: it has no direction to speed up in.
#[inline(always)]
fn clamp_speed(k: &Kernel, v: Vec2) -> Vec2 {
    let speed = v.length();
    let mut v = v;
    if speed < k.min_speed && speed > 0.0 {
        v = v / speed * k.min_speed;
    }
    if speed > k.max_speed {
        v = v / speed * k.max_speed;
    }
    v
}

/// Moves by `v dt`, then wraps (torus) or bounces (walls, seed 002's isCollided: a boid whose
/// disc would cross a wall is placed against it with that velocity component reflected, and
/// does not move that step).
#[inline(always)]
pub fn move_boid(k: &Kernel, p: Vec2, v: Vec2) -> (Vec2, Vec2) {
    let moved = p + v * k.dt;
    match k.boundary {
        Boundary::Margins => (moved, v),
        Boundary::Torus => (wrap(moved, k.world_min, k.world_size), v),
        Boundary::Walls => {
            let (low, high, r) = (k.world_min, k.world_min + k.world_size, k.boid_size);
            let (mut p, mut v, mut collided) = (p, v, false);
            if moved.x - r < low.x {
                (p.x, v.x, collided) = (low.x + r, v.x.abs(), true);
            }
            if moved.x + r > high.x {
                (p.x, v.x, collided) = (high.x - r, -v.x.abs(), true);
            }
            if moved.y - r < low.y {
                (p.y, v.y, collided) = (low.y + r, v.y.abs(), true);
            }
            if moved.y + r > high.y {
                (p.y, v.y, collided) = (high.y - r, -v.y.abs(), true);
            }
            if collided { (p, v) } else { (moved, v) }
        }
    }
}

/// Wraps a position into `[min, min + size)`, never returning the upper edge itself.
#[inline(always)]
pub fn wrap(p: Vec2, min: Vec2, size: Vec2) -> Vec2 {
    let axis = |x: f32, lo: f32, extent: f32| {
        let mut r = wrap_offset(x - lo, extent);
        if r >= extent {
            r = 0.0;
        }
        lo + r
    };
    let w = Vec2::new(axis(p.x, min.x, size.x), axis(p.y, min.y, size.y));
    // lo + r can round up to the upper edge when lo is large; fold it back.
    Vec2::new(
        if w.x >= min.x + size.x { min.x } else { w.x },
        if w.y >= min.y + size.y { min.y } else { w.y },
    )
}

/// `t.rem_euclid(extent)` for a positive `extent`, bit for bit, without the `fmodf` call when
/// `t` is less than one extent outside `[0, extent)` (a boid moves far less than a world per
/// step). On that range the remainder is exact and the fast paths compute it exactly too:
/// `fmod(t, e)` is `t` for `|t| < e` (then `rem_euclid` adds `e` to a negative remainder, as
/// here), and `t - e` for `e <= t < 2e`, where the subtraction is exact (Sterbenz). `-0.0`
/// stays `-0.0` as in `rem_euclid`; `t == -e`, NaN and far-out values take the library path.
#[inline(always)]
fn wrap_offset(t: f32, extent: f32) -> f32 {
    if t >= 0.0 && t < extent {
        t
    } else if t < 0.0 && t > -extent {
        t + extent
    } else if t >= extent && t < 2.0 * extent {
        t - extent
    } else {
        t.rem_euclid(extent)
    }
}

/// Minimum-image offset along axes whose `wrap` is non-zero.
#[inline(always)]
pub fn minimum_image(d: Vec2, wrap: Vec2) -> Vec2 {
    let axis = |x: f32, w: f32| if w > 0.0 { x - w * (x / w).round() } else { x };
    Vec2::new(axis(d.x, wrap.x), axis(d.y, wrap.y))
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
        let out = advance(&k, &Accum::default(), state, group::RIGHT, Vec2::ZERO);
        assert!((out.velocity.x - ((1.0 - 0.001) * -4.0 + 0.001)).abs() < 1e-6);
        assert_eq!(out.bias, 0.001);

        let k = kernel(|p| p.dynamic_bias = true);
        // Moving against its preference: the bias shrinks, but not below bias_increment.
        let out = advance(&k, &Accum::default(), state, group::RIGHT, Vec2::ZERO);
        assert!((out.bias - (0.001 - 0.00004)).abs() < 1e-9);
        let low = BoidState {
            bias: 0.00005,
            ..state
        };
        assert_eq!(
            advance(&k, &Accum::default(), low, group::RIGHT, Vec2::ZERO).bias,
            0.00004
        );
        // Group 2 prefers -x: the bias grows, up to max_bias.
        let out = advance(&k, &Accum::default(), state, group::LEFT, Vec2::ZERO);
        assert!((out.bias - 0.00104).abs() < 1e-9);
        let high = BoidState {
            bias: 0.00999,
            ..state
        };
        assert_eq!(
            advance(&k, &Accum::default(), high, group::LEFT, Vec2::ZERO).bias,
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
