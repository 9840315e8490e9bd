//! Brute-force O(n²) reference: every pair examined, no grid. The tests hold the grid to it
//! (identical neighbour sets, same next state), and `boids bench --vs-naive` times it.

use glam::Vec2;

use crate::par;
use crate::params::Params;
use crate::rules::{self, Accum, BoidState, Kernel};
use crate::state::FlockState;

/// Minimum-image offset `p_i - p_j` under `params` (plain difference in an open world).
pub fn offset(params: &Params, pi: Vec2, pj: Vec2) -> Vec2 {
    let wrap = if params.is_torus() {
        Vec2::new(params.world_width as f32, params.world_height as f32)
    } else {
        Vec2::ZERO
    };
    rules::minimum_image(pi - pj, wrap)
}

/// For every boid, the indices of the other boids whose squared offset is below `below`, in
/// ascending order.
pub fn neighbors(params: &Params, positions: &[Vec2], below: f32) -> Vec<Vec<u32>> {
    par::map_collect(positions.len(), |i| {
        (0..positions.len())
            .filter(|&j| {
                j != i && offset(params, positions[i], positions[j]).length_squared() < below
            })
            .map(|j| j as u32)
            .collect()
    })
}

/// One synchronous step of `state` (id order) by brute force, at step number `step`.
pub fn step(params: &Params, state: &FlockState, step: u64) -> FlockState {
    let kernel = Kernel::new(params);
    let wander = rules::wander_heading(params, step);
    let next = par::map_collect(state.len(), |i| {
        let mut acc = Accum::default();
        for j in 0..state.len() {
            let d = offset(params, state.positions[i], state.positions[j]);
            acc.add(&kernel, d, state.velocities[j], i == j);
        }
        let boid = BoidState {
            position: state.positions[i],
            velocity: state.velocities[i],
            bias: state.biases[i],
        };
        rules::advance(&kernel, &acc, boid, state.groups[i], wander)
    });
    FlockState {
        positions: next.iter().map(|b| b.position).collect(),
        velocities: next.iter().map(|b| b.velocity).collect(),
        groups: state.groups.clone(),
        biases: next.iter().map(|b| b.bias).collect(),
    }
}
