//! The limits every boid of the boids model meets after its rules: the margins' turn or the
//! walls' push, the speed clamp, and the move with its wrap (torus) or bounce (walls), each
//! written once over [`Real`] lanes with a one-boid form for the other paths.

use super::Kernel;
use crate::params::Boundary;
use crate::real::{Real, Vector};
use crate::space::{Coordinates, wrap_axis};

/// Velocity change from the margins (turn) or walls (push inward); zero on a torus.
#[inline(always)]
pub fn boundary_steer<const D: usize, P: Coordinates<D>>(k: &Kernel<D>, p: P) -> P {
    boundary_steer_lanes::<f32, D>(k, Vector(p.into())).0.into()
}

/// [`boundary_steer`] for every lane.
#[inline(always)]
pub(super) fn boundary_steer_lanes<T: Real, const D: usize>(
    k: &Kernel<D>,
    p: Vector<T, D>,
) -> Vector<T, D> {
    let mut dv = Vector::zero();
    // Direct calls, not a function pointer chosen by the match: a call through a pointer is
    // not inlined, and costs the vector loop a call per group.
    for a in 0..D {
        let (lo, hi) = (k.world_min[a], k.world_min[a] + k.world_size[a]);
        dv.0[a] = match k.boundary {
            Boundary::Torus => return Vector::zero(),
            Boundary::Margins => margin_turn(k, p.0[a], lo, hi),
            Boundary::Walls => wall_push(k, p.0[a], lo, hi),
        };
    }
    dv
}

/// Seed 001's margins along one axis: turn inward within `margin` of either edge.
#[inline(always)]
fn margin_turn<T: Real, const D: usize>(k: &Kernel<D>, x: T, lo: f32, hi: f32) -> T {
    let (zero, margin, turn) = (T::splat(0.0), T::splat(k.margin), T::splat(k.turnfactor));
    let dv = T::select(x.lt(T::splat(lo) + margin), zero + turn, zero);
    T::select(x.gt(T::splat(hi) - margin), dv - turn, dv)
}

/// Seed 002's avoidWalls along one axis: the later (far-wall) test wins when both apply.
#[inline(always)]
fn wall_push<T: Real, const D: usize>(k: &Kernel<D>, x: T, lo: f32, hi: f32) -> T {
    let (zero, buffer) = (T::splat(0.0), T::splat(k.wall_buffer));
    let (lo, hi) = (T::splat(lo), T::splat(hi));
    let d = T::select((x - lo).lt(buffer), x - lo, zero);
    T::select((hi - x).lt(buffer), x - hi, d) * T::splat(k.avoid)
}

/// Raises speeds below `min_speed`, then lowers speeds above `max_speed`, from the same measured
/// speed (seed 001's order). A boid at rest stays at rest: it has no direction to speed up in.
#[inline(always)]
pub(super) fn clamp_speed<T: Real, const D: usize>(k: &Kernel<D>, v: Vector<T, D>) -> Vector<T, D> {
    let speed = v.length();
    let (min, max) = (T::splat(k.min_speed), T::splat(k.max_speed));
    let slow = speed.lt(min) & speed.gt(T::splat(0.0));
    let v = Vector::select(slow, v.div(speed).scale(min), v);
    Vector::select(speed.gt(max), v.div(speed).scale(max), v)
}

/// `clamp_speed` for one boid (the obstacle pass re-applies the limits after it steers).
pub fn limit_speed<const D: usize, P: Coordinates<D>>(k: &Kernel<D>, v: P) -> P {
    clamp_speed::<f32, D>(k, Vector(v.into())).0.into()
}

/// Moves by `v dt`, then wraps (torus) or bounces (walls, seed 002's isCollided: a boid whose
/// disc would cross a wall is placed against it with that velocity component reflected, and
/// does not move that step).
#[inline(always)]
pub fn move_boid<const D: usize, P: Coordinates<D>>(k: &Kernel<D>, p: P, v: P) -> (P, P) {
    let (p, v) = move_lanes::<f32, D>(k, Vector(p.into()), Vector(v.into()));
    (p.0.into(), v.0.into())
}

/// [`move_boid`] for every lane.
#[inline(always)]
pub(super) fn move_lanes<T: Real, const D: usize>(
    k: &Kernel<D>,
    p: Vector<T, D>,
    mut v: Vector<T, D>,
) -> (Vector<T, D>, Vector<T, D>) {
    let mut moved = p + v.scale(T::splat(k.dt));
    match k.boundary {
        Boundary::Margins => {}
        Boundary::Torus => {
            for a in 0..D {
                moved.0[a] = wrap_axis(moved.0[a], k.world_min[a], k.world_size[a]);
            }
        }
        Boundary::Walls => {
            let mut against = p;
            let (x, vx, mut collided) = bounce(k, p.0[0], v.0[0], moved.0[0], 0);
            (against.0[0], v.0[0]) = (x, vx);
            for a in 1..D {
                let (x, vx, hit) = bounce(k, p.0[a], v.0[a], moved.0[a], a);
                (against.0[a], v.0[a], collided) = (x, vx, collided | hit);
            }
            moved = Vector::select(collided, against, moved);
        }
    }
    (moved, v)
}

/// Seed 002's isCollided along axis `a`: the position against the wall and the reflected
/// velocity where the disc would cross it, and whether it would.
#[inline(always)]
fn bounce<T: Real, const D: usize>(
    k: &Kernel<D>,
    p: T,
    v: T,
    moved: T,
    a: usize,
) -> (T, T, T::Mask) {
    let (lo, hi) = (k.world_min[a], k.world_min[a] + k.world_size[a]);
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
