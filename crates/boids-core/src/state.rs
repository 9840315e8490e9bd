//! The flock in boid-id order ([`FlockState`]): what is saved, loaded, measured and stepped by
//! the general path and the reference, and the initial flock of a seed.
//!
//! It sits apart from [`crate::sim`] so that the modules that take or return a flock
//! ([`crate::models`], [`crate::reference`], [`crate::metrics`]) need not depend on the
//! simulation, which itself calls [`crate::models`]: no module cycle.

use crate::obstacles::ObstacleIndex;
use crate::par;
use crate::params::Params;
use crate::rng::Stream;
use crate::rng::{self, Purpose};
use crate::rules::{Kernel, group};
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::world::Predator;

/// A flock of `D` dimensions in boid-id order: what is saved, loaded and measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlockState<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// Positions.
    pub positions: Vec<VecN<D>>,
    /// Velocities.
    pub velocities: Vec<VecN<D>>,
    /// Scout groups ([`group::NONE`], [`group::RIGHT`], [`group::LEFT`]).
    pub groups: Vec<u8>,
    /// Scout biases (zero for non-scouts).
    pub biases: Vec<f32>,
    /// The predators ([`crate::world`]), `predator_count` of them.
    pub predators: Vec<Predator<D>>,
    /// Steps each boid still rests on the ground ([`crate::world::Perch`]; 0: flying), one per
    /// boid when perching is on, none otherwise.
    pub resting: Vec<u32>,
}

impl<const D: usize> FlockState<D>
where
    Dim<D>: Dimension<D>,
{
    /// Number of boids.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the flock is empty.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The initial flock of `params` for `seed`: boid `id` draws its position and velocity from
    /// its own stream, uniformly from the `init_*` intervals.
    ///
    /// A position inside an obstacle is drawn again from the same stream ([`free_position`]).
    /// Predators start from streams of their own; perching boids start flying.
    pub fn initial(params: &Params, seed: u64) -> Self
    where
        Dim<D>: Dimension<D>,
    {
        let obstacles = ObstacleIndex::<D>::of(params);
        let draws = par::map_collect(params.count, |id| {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            start::<D, VecN<D>>(params, &obstacles, &mut s)
        });
        let (positions, velocities) = draws.into_iter().unzip();
        let groups = scout_groups(params);
        let kernel = Kernel::<D>::new(params);
        let biases = groups.iter().map(|&g| kernel.initial_bias(g)).collect();
        Self {
            positions,
            velocities,
            groups,
            biases,
            predators: (0..params.predator_count)
                .map(|index| predator_start(params, &obstacles, seed, index))
                .collect(),
            resting: if params.perch {
                vec![0; params.count]
            } else {
                Vec::new()
            },
        }
    }
}

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

/// Scout groups by id: the first `scout_group1_fraction` of ids scout toward +x, the next
/// `scout_group2_fraction` toward -x. (Positions are independent of ids, so this is as random as
/// a draw, and the counts are exact.)
pub fn scout_groups(params: &Params) -> Vec<u8> {
    let n = params.count;
    let right = (params.scout_group1_fraction * n as f64).round() as usize;
    let left = ((params.scout_group2_fraction * n as f64).round() as usize).min(n - right.min(n));
    (0..n)
        .map(|id| match id {
            id if id < right => group::RIGHT,
            id if id < right + left => group::LEFT,
            _ => group::NONE,
        })
        .collect()
}
