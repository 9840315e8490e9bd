//! Brute-force O(n²) reference: every pair examined, no grid. The tests hold the grid to it
//! (identical neighbour sets, same next state, the step's neighbour counts), and
//! `boids bench --vs-naive` times it.

use crate::models::neighborhood::FieldOfView;
use crate::par;
use crate::params::Params;
use crate::rules::{self, BoidState, Kernel, Sums};
use crate::space::{self, Coordinates, Dim, Dimension};
use crate::state::FlockState;

/// Minimum-image offset `p_i - p_j` under `params` (plain difference in an open world).
pub fn offset<const D: usize, P: Coordinates<D>>(params: &Params, pi: P, pj: P) -> P {
    space::minimum_image(pi - pj, params.periods::<D>().into())
}

/// For every boid, the indices of the other boids whose squared offset is below `below`, in
/// ascending order.
pub fn neighbors<const D: usize, P: Coordinates<D>>(
    params: &Params,
    positions: &[P],
    below: f32,
) -> Vec<Vec<u32>> {
    par::map_collect(positions.len(), |i| {
        others(positions.len(), i)
            .filter(|&j| offset(params, positions[i], positions[j]).length_squared() < below)
            .map(|j| j as u32)
            .collect()
    })
}

/// [`neighbors`] limited to each boid's field of view (`params.blind_angle` behind its
/// velocity: a sector in 2D, a cone in 3D).
pub fn neighbors_in_view<const D: usize, P: Coordinates<D>>(
    params: &Params,
    positions: &[P],
    velocities: &[P],
    below: f32,
) -> Vec<Vec<u32>> {
    par::map_collect(positions.len(), |i| {
        seen_by(params, positions, velocities, i)
            .filter(|&(_, d)| d.length_squared() < below)
            .map(|(j, _)| j as u32)
            .collect()
    })
}

/// For every boid, the `k` other boids in its field of view nearest to it (ties to the lower
/// index), in ascending order; fewer when fewer are in view.
pub fn nearest_in_view<const D: usize, P: Coordinates<D>>(
    params: &Params,
    positions: &[P],
    velocities: &[P],
    k: usize,
) -> Vec<Vec<u32>> {
    par::map_collect(positions.len(), |i| {
        let mut by_distance: Vec<(f32, u32)> = seen_by(params, positions, velocities, i)
            .map(|(j, d)| (d.length_squared(), j as u32))
            .collect();
        let closer = |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if k < by_distance.len() {
            by_distance.select_nth_unstable_by(k, closer);
            by_distance.truncate(k);
        }
        let mut ids: Vec<u32> = by_distance.into_iter().map(|(_, j)| j).collect();
        ids.sort_unstable();
        ids
    })
}

/// Every boid but `i`.
fn others(n: usize, i: usize) -> impl Iterator<Item = usize> {
    (0..n).filter(move |&j| j != i)
}

/// Every other boid `j` that boid `i` sees, with the offset `p_i - p_j`.
fn seen_by<'a, const D: usize, P: Coordinates<D>>(
    params: &'a Params,
    positions: &'a [P],
    velocities: &[P],
    i: usize,
) -> impl Iterator<Item = (usize, P)> + 'a {
    let view = FieldOfView::new(params.blind_angle);
    let heading = velocities[i].normalize_or_zero();
    others(positions.len(), i)
        .map(move |j| (j, offset(params, positions[i], positions[j])))
        .filter(move |&(_, d)| view.sees(heading, d))
}

/// One synchronous step of `state` (id order) by brute force, at step number `step`.
pub fn step<const D: usize>(params: &Params, state: &FlockState<D>, step: u64) -> FlockState<D>
where
    Dim<D>: Dimension<D>,
{
    let kernel = Kernel::<D>::new(params);
    let wander = rules::wander_heading(params, step);
    let next = par::map_collect(state.len(), |i| {
        let mut acc = Sums::<f32, D>::default();
        for j in 0..state.len() {
            let d = offset(params, state.positions[i], state.positions[j]);
            acc.add(&kernel, d, state.velocities[j], i == j);
        }
        let boid = BoidState {
            position: state.positions[i],
            velocity: state.velocities[i],
            bias: state.biases[i],
        };
        rules::advance(&kernel, &acc, boid, state.groups[i], wander, None)
    });
    FlockState {
        positions: next.iter().map(|b| b.position).collect(),
        velocities: next.iter().map(|b| b.velocity).collect(),
        groups: state.groups.clone(),
        biases: next.iter().map(|b| b.bias).collect(),
        predators: state.predators.clone(),
        resting: state.resting.clone(),
    }
}
