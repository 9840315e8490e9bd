//! The flock in boid-id order ([`FlockState`]): what is saved, loaded, measured and stepped by
//! the general path and the reference, and the initial flock of a seed.
//!
//! It sits apart from [`crate::sim`] so that the modules that take or return a flock
//! ([`crate::models`], [`crate::reference`], [`crate::metrics`]) need not depend on the
//! simulation, which itself calls [`crate::models`]: no module cycle.

use glam::Vec2;

use crate::par;
use crate::params::Params;
use crate::rng::{self, Purpose};
use crate::rules::{Kernel, group};
use crate::world::ObstacleIndex;

/// A flock in boid-id order: what is saved, loaded and measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlockState {
    /// Positions.
    pub positions: Vec<Vec2>,
    /// Velocities.
    pub velocities: Vec<Vec2>,
    /// Scout groups ([`group::NONE`], [`group::RIGHT`], [`group::LEFT`]).
    pub groups: Vec<u8>,
    /// Scout biases (zero for non-scouts).
    pub biases: Vec<f32>,
}

impl FlockState {
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
    /// A position inside an obstacle is drawn again from the same stream (the parameter checks
    /// make sure the start region has free space), so without obstacles nothing changes.
    pub fn initial(params: &Params, seed: u64) -> Self {
        let obstacles = ObstacleIndex::of(params);
        let draws = par::map_collect(params.count, |id| {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            let mut p;
            loop {
                p = Vec2::new(
                    s.uniform(params.init_x) as f32,
                    s.uniform(params.init_y) as f32,
                );
                if !obstacles.contains(p) {
                    break;
                }
            }
            let v = Vec2::new(
                s.uniform(params.init_vx) as f32,
                s.uniform(params.init_vy) as f32,
            );
            (p, v)
        });
        let (positions, velocities) = draws.into_iter().unzip();
        let groups = scout_groups(params);
        let kernel = Kernel::new(params);
        let biases = groups.iter().map(|&g| kernel.initial_bias(g)).collect();
        Self {
            positions,
            velocities,
            groups,
            biases,
        }
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
