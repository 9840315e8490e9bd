//! Where an agent starts: a free place in the start region, drawn from the agent's own
//! counter-based stream (a boid's random start, a caught boid's new one, a predator's start),
//! drawn again while an obstacle covers it, so no agent ever starts inside one.

use super::Predator;
use crate::obstacles::ObstacleIndex;
use crate::params::Params;
use crate::rng::{self, Purpose, Stream};
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// A boid's start drawn from `s`: a free position ([`free_position`]) and a velocity uniform
/// in the `init_v*` intervals. The random start and a caught boid's new start share it.
pub fn start<const D: usize, P: Coordinates<D>>(
    params: &Params,
    obstacles: &ObstacleIndex<D>,
    s: &mut Stream,
) -> (P, P)
where
    Dim<D>: Dimension<D>,
{
    let position = free_position(params, obstacles, s);
    let intervals = [params.init_vx, params.init_vy, params.init_vz];
    let velocity = std::array::from_fn(|a| s.uniform(intervals[a]) as f32);
    (position, velocity.into())
}

/// A position drawn uniformly from the `init_x`, `init_y` region, drawn again from the same
/// stream while it is inside an obstacle once wrapped into the world, as it will be stored (the
/// parameter checks make sure the region has free space), so without obstacles one draw is all.
/// Coordinates are drawn x, y, then z.
pub fn free_position<const D: usize, P: Coordinates<D>>(
    params: &Params,
    obstacles: &ObstacleIndex<D>,
    s: &mut Stream,
) -> P
where
    Dim<D>: Dimension<D>,
{
    let intervals = [params.init_x, params.init_y, params.init_z];
    loop {
        let p: [f32; D] = std::array::from_fn(|a| s.uniform(intervals[a]) as f32);
        if !obstacles.contains(obstacles.as_stored(p.into())) {
            return p.into();
        }
    }
}

/// Predator `index`'s start: a random free place in the start region, heading a random way at
/// `predator_speed`.
pub fn predator_start<const D: usize>(
    params: &Params,
    obstacles: &ObstacleIndex<D>,
    seed: u64,
    index: usize,
) -> Predator<D>
where
    Dim<D>: Dimension<D>,
{
    let mut s = rng::stream(seed, Purpose::PredatorStart, 0, index as u64);
    let position = free_position::<D, VecN<D>>(params, obstacles, &mut s);
    let heading = Dim::<D>::random_direction(&mut s);
    Predator {
        position,
        velocity: heading * params.predator_speed as f32,
    }
}
