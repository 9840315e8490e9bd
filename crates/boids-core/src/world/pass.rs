//! What obstacles do to a step, applied to every boid after its model has moved it.
//!
//! 1. **Steer to avoid** (Reynolds 1999): the boid looks ahead from where it was, along its new
//!    velocity `v`, for `obstacle_lookahead`. If that probe meets an obstacle at fraction `t` of
//!    its length, with surface normal `n` there, the boid turns sideways, away from it:
//!
//!    ```text
//!    lateral = n - (n . u) u        u = v / |v|   (head-on, lateral = 0: a fixed side, see
//!                                                  `sideways`)
//!    v      += obstacle_avoid_factor * (1 - t) * |v| * lateral / |lateral|
//!    ```
//!
//!    A boid within the clearance `c` (a quarter of the lookahead) of a surface beside it, at
//!    distance `d` with `n` the normal from the surface to it, turns away from it too, which
//!    the probe alone misses (a boid sliding along a surface, or passing it close by):
//!
//!    ```text
//!    v      += obstacle_avoid_factor * (1 - d / c) * |v| * lateral(n) / |lateral(n)|
//!    ```
//!
//!    (only while it heads toward the surface or along it: one that heads away needs no turn,
//!    and turning it further would send it back the way it came). Then the model's speed rule
//!    holds again (the boids' min/max clamp, or the heading models' constant speed) and the boid
//!    moves from where it was with that velocity, through the boundary as the model moves it.
//! 2. **Never inside**: the move (the minimum image across a torus seam) is tested against every
//!    obstacle near it. On contact the boid stops just short of it and its velocity slides along
//!    the surface (the part into the surface is dropped; a head-on velocity is reflected instead,
//!    so it keeps a heading). If the stopping point still tests inside an obstacle, through
//!    rounding or overlapping obstacles, the boid stays where it was, which was outside: every
//!    state starts outside (the random start draws again, a loaded state is checked), so by
//!    induction no boid ever ends a step inside an obstacle or past a wall.
//!
//! The pass is written once over the dimension: in 3D the probe, the slide and the stop are
//! the same vectors with a z. With no obstacles the step does not run this pass at all.

use glam::{Vec2, Vec3};

use crate::obstacles::{Lattice, ObstacleIndex, side_for, union};
use crate::obstacles::{splat, zip_axes};
use crate::params::{Model, Params};
use crate::rules::{self, Kernel};
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// The clearance a steering boid keeps from a surface beside it, as a share of its lookahead.
const CLEARANCE_SHARE: f32 = 0.25;

/// Fraction of the way to a contact at which a stopped boid is placed, so that rounding cannot
/// put it on the far side of the surface.
const STOP_SHORT: f32 = 1.0 - 1.0 / 1024.0;

/// The obstacles of a simulation and how its model keeps its speed.
#[derive(Clone, Debug)]
pub struct ObstaclePass<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    index: ObstacleIndex<D>,
    lookahead: f32,
    avoid: f32,
    /// `Some(speed)` for the heading models, which move at a constant speed.
    constant_speed: Option<f32>,
    /// The world's size on a torus.
    torus_size: Option<VecN<D>>,
    /// Where a boid may meet an obstacle within its reach.
    near: NearMap<D>,
}

impl<const D: usize> ObstaclePass<D>
where
    Dim<D>: Dimension<D>,
{
    /// The pass for the boids of `params`, or `None` when there are no obstacles. Predators go
    /// through the same pass at their own speed ([`Self::apply_at_speed`]).
    pub fn new(params: &Params) -> Option<Self> {
        if params.obstacles.is_empty() {
            return None;
        }
        let torus_size = params.is_torus().then(|| params.world_box::<D>().1.into());
        let index = ObstacleIndex::of(params);
        let lookahead = params.obstacle_lookahead as f32;
        let avoid = params.obstacle_avoid_factor as f32;
        let probe = if avoid > 0.0 { lookahead } else { 0.0 };
        // Moves are rarely longer than a visual range; longer ones take the exact lookup.
        let reach = probe.max(params.visual_range as f32);
        let near = NearMap::new(index.shape_bounds(), reach);
        Some(Self {
            index,
            lookahead,
            avoid,
            constant_speed: (params.model != Model::Boids).then_some(params.speed as f32),
            torus_size,
            near,
        })
    }

    /// The obstacles, as the step tests them.
    pub fn index(&self) -> &ObstacleIndex<D> {
        &self.index
    }

    /// Applies the pass to one boid that was at `from` and that its model moved to `position`
    /// with `velocity`.
    pub fn apply(
        &self,
        kernel: &Kernel<D>,
        from: VecN<D>,
        position: &mut VecN<D>,
        velocity: &mut VecN<D>,
    ) {
        self.apply_at_speed(kernel, self.constant_speed, from, position, velocity);
    }

    /// [`Self::apply`] for an agent that keeps `constant_speed` after a turn, or the boids'
    /// speed limits when `None` (a predator keeps `predator_speed`).
    pub fn apply_at_speed(
        &self,
        kernel: &Kernel<D>,
        constant_speed: Option<f32>,
        from: VecN<D>,
        position: &mut VecN<D>,
        velocity: &mut VecN<D>,
    ) {
        // Most boids are far from every obstacle and stop here, after one look at a map.
        let reach = self
            .probe_length()
            .max(self.displacement(from, *position).length());
        let may_meet = if reach <= self.near.reach {
            self.near.may_meet(from)
        } else {
            let reach = splat::<D>(reach);
            self.index.any_near(from - reach, from + reach)
        };
        if !may_meet {
            return;
        }
        if let Some(steered) = self.steer(from, *velocity) {
            let steered = keep_speed(kernel, constant_speed, steered);
            (*position, *velocity) = rules::move_boid(kernel, from, steered);
        }
        let moved = self.displacement(from, *position);
        let stopped = match self.index.first_hit(from, from + moved) {
            Some(hit) => {
                let stop = moved * (hit.t * STOP_SHORT);
                *position = self.index.as_stored(from + stop);
                *velocity = slide(*velocity, hit.normal);
                // The shortened move must be clear in turn (rounding, a second obstacle).
                self.index.first_hit(from, from + stop).is_some()
            }
            None => false,
        };
        if stopped || self.index.contains(*position) {
            *position = from;
        }
    }

    /// How far ahead a boid looks (0 when it does not steer).
    fn probe_length(&self) -> f32 {
        if self.avoid > 0.0 {
            self.lookahead
        } else {
            0.0
        }
    }

    /// The avoidance turn for a boid at `from` with velocity `v`, if its probe meets anything
    /// or a surface is within its clearance.
    fn steer(&self, from: VecN<D>, v: VecN<D>) -> Option<VecN<D>> {
        let speed = v.length();
        if self.probe_length() <= 0.0 || speed == 0.0 {
            return None;
        }
        let u = zip_axes(v, splat(speed), |v, speed| v / speed);
        let ahead = (self.index.first_hit(from, from + u * self.lookahead))
            .map(|hit| (hit.normal, 1.0 - hit.t));
        let clearance = CLEARANCE_SHARE * self.lookahead;
        let beside = (self.index.nearest_within(from, clearance))
            .filter(|&(_, normal)| normal.dot(u) <= 0.0)
            .map(|(distance, normal)| (normal, 1.0 - distance / clearance));
        if ahead.is_none() && beside.is_none() {
            return None;
        }
        let turn = [ahead, beside]
            .into_iter()
            .flatten()
            .fold(VecN::<D>::ZERO, |turn, (normal, weight)| {
                turn + away_from(u, normal) * weight
            });
        Some(v + turn * (self.avoid * speed))
    }

    /// The move from `from` to `to`, across the seam on a torus (a move is shorter than half
    /// the world, so one shift by the world's size undoes a wrap).
    fn displacement(&self, from: VecN<D>, to: VecN<D>) -> VecN<D> {
        let d = to - from;
        let Some(size) = self.torus_size else {
            return d;
        };
        let unwrap = |d: f32, size: f32| {
            if d > 0.5 * size {
                d - size
            } else if d < -0.5 * size {
                d + size
            } else {
                d
            }
        };
        zip_axes(d, size, unwrap)
    }

    /// A point, as stored, outside every obstacle near `p`: `p` itself if it is outside, else
    /// the nearest way out of the obstacles it is in, tried a few times (obstacles may overlap);
    /// `None` when that does not find one. Each point is wrapped before it is tested.
    pub fn way_out(&self, p: VecN<D>) -> Option<VecN<D>> {
        let mut at = self.index.as_stored(p);
        for _ in 0..8 {
            let mut inside = None;
            self.index.for_each_near(at, at, |s| {
                if inside.is_none() && s.contains(at) {
                    inside = Some(s.exit(at));
                }
            });
            match inside {
                None => return Some(at),
                Some(out) => at = self.index.as_stored(out),
            }
        }
        None
    }
}

/// The speed rule of the moving agent, applied again after a turn: a constant speed, or the
/// boids' limits when `None`.
fn keep_speed<const D: usize>(
    kernel: &Kernel<D>,
    constant_speed: Option<f32>,
    v: VecN<D>,
) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    match constant_speed {
        Some(speed) => v.normalize_or_zero() * speed,
        None => rules::limit_speed(kernel, v),
    }
}

/// The unit turn of a boid heading along the unit vector `u` toward or along a surface with
/// unit normal `normal`: sideways from its heading toward the normal, or, heading straight at
/// the surface, to a fixed side ([`sideways`]).
fn away_from<const D: usize>(u: VecN<D>, normal: VecN<D>) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let lateral = normal - u * normal.dot(u);
    lateral.try_normalize().unwrap_or_else(|| sideways(u))
}

/// The side a boid heading straight at a surface (along the unit vector `u`) turns to: the
/// left in 2D (`u`'s quarter turn), a fixed perpendicular of `u` in 3D
/// ([`Vec3::any_orthonormal_vector`]).
fn sideways<const D: usize>(u: VecN<D>) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let mut xyz = [0.0f32; 3];
    xyz[..D].copy_from_slice(&u.to_array());
    let side = match D {
        2 => Vec2::new(xyz[0], xyz[1]).perp().extend(0.0),
        _ => Vec3::from(xyz).any_orthonormal_vector(),
    };
    let side = side.to_array();
    VecN::<D>::from(std::array::from_fn(|a| side[a]))
}

/// The velocity after touching a surface with unit normal `n`: its part into the surface
/// dropped, or, head-on (nothing would be left), reflected.
fn slide<const D: usize>(v: VecN<D>, n: VecN<D>) -> VecN<D>
where
    Dim<D>: Dimension<D>,
{
    let into = v.dot(n).min(0.0);
    let along = v - n * into;
    if along.length_squared() <= 1e-12 * v.length_squared() {
        v - n * (2.0 * into)
    } else {
        along
    }
}

/// Most cells of a [`NearMap`].
const MAX_NEAR_CELLS: usize = 1 << 20;

/// A coarse map of where an obstacle is within `reach`: the union of the obstacles' bounds grown
/// by `reach`, in square cells, each marked when a grown bound touches it. A point off the map is
/// farther than `reach` from every obstacle.
#[derive(Clone, Debug)]
struct NearMap<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    reach: f32,
    cells: Lattice<D>,
    marked: Vec<bool>,
}

impl<const D: usize> NearMap<D>
where
    Dim<D>: Dimension<D>,
{
    fn new(bounds: &[(VecN<D>, VecN<D>)], reach: f32) -> Self {
        let grow = splat::<D>(reach);
        let grown: Vec<(VecN<D>, VecN<D>)> =
            bounds.iter().map(|&(a, b)| (a - grow, b + grow)).collect();
        let (lo, hi) = union(&grown);
        let extent = zip_axes(hi - lo, splat(f32::MIN_POSITIVE), f32::max);
        let side = reach.max(side_for(extent, MAX_NEAR_CELLS as f32));
        let dims = extent
            .to_array()
            .map(|e| ((e / side).ceil() as usize).max(1));
        // Cubic cells of `side`: the lattice reaches past `hi`, so every grown box is on it.
        let cells = Lattice::over(lo, VecN::<D>::from(dims.map(|n| n as f32)) * side, dims);
        let mut marked = vec![false; cells.len()];
        for (a, b) in grown {
            for c in cells.cells_of_box(a, b) {
                marked[c] = true;
            }
        }
        Self {
            reach,
            cells,
            marked,
        }
    }

    /// Whether an obstacle may lie within `reach` of `p`.
    fn may_meet(&self, p: VecN<D>) -> bool {
        self.cells.cell_within(p).is_some_and(|c| self.marked[c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_near_map_never_misses_a_point_within_reach() {
        let bounds = [
            (Vec2::new(10.0, 10.0), Vec2::new(20.0, 30.0)),
            (Vec2::new(-50.0, 40.0), Vec2::new(-45.0, 41.0)),
        ];
        let map = NearMap::<2>::new(&bounds, 3.0);
        for k in 0..20_000 {
            let p = Vec2::new((k % 200) as f32 * 0.5 - 60.0, (k / 200) as f32 * 0.5 - 5.0);
            let within = bounds.iter().any(|&(a, b)| {
                let nearest = p.clamp(a, b);
                (p - nearest).abs().max_element() <= 3.0
            });
            assert!(
                !within || map.may_meet(p),
                "{p} is within reach but not marked"
            );
        }
        assert!(!map.may_meet(Vec2::new(0.0, 0.0)));
        assert!(!map.may_meet(Vec2::new(500.0, 500.0)));
    }

    #[test]
    fn a_head_on_touch_reflects_and_a_glancing_one_slides() {
        let n = Vec2::new(-1.0, 0.0);
        assert_eq!(slide::<2>(Vec2::new(2.0, 0.0), n), Vec2::new(-2.0, 0.0));
        assert_eq!(slide::<2>(Vec2::new(2.0, 1.0), n), Vec2::new(0.0, 1.0));
        assert_eq!(slide::<2>(Vec2::new(-2.0, 1.0), n), Vec2::new(-2.0, 1.0));
    }
}
