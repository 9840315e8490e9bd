//! The general path of the step: the Vicsek and Couzin models, and the boids rules with
//! topological neighbours or a blind angle.
//!
//! [`crate::sim::Simulation::step`] takes its grid fast path for the boids model with metric
//! neighbours seen all around ([`Params::uses_fast_path`]); everything else comes here. This path
//! works on the flock in id order, asks [`neighborhood::Neighborhood`] for exact neighbour lists
//! (ascending ids: the canonical order every sum runs in) and computes each boid's next state
//! from the previous frame only, so it is synchronous and, like the fast path, gives
//! bit-identical results on any thread count. It is slower than the fast path (neighbour lists
//! are built and sorted per boid) and meant for the flock sizes of the published experiments.
//!
//! ## The heading models (Vicsek, Couzin)
//!
//! Both move every boid at the constant `speed` and differ only in the *social direction* `d`
//! ([`vicsek::social_direction`], [`couzin::social_direction`]). The rest is shared:
//!
//! 1. `d` is normalised (a boid with no social direction keeps its heading);
//! 2. scouts of group 1 and 2 are *informed* (Couzin et al. 2005): with preferred direction `g`
//!    (`preferred_angle1`, `preferred_angle2`) and weight `omega` (`informed_weight`),
//!    `d = (d + omega g) / |d + omega g|`;
//!    then the world's pull ([`WorldSteer`]: fleeing predators, seeking an attractor as an
//!    informed direction) is added the same way, `d = (d + pull) / |d + pull|`;
//! 3. the boundary's turn (margins) or push (walls) is added to `speed * d` (nothing on a torus);
//! 4. `d` is turned by the angular noise: uniform in `[-noise/2, noise/2]` (Vicsek's eta) or
//!    normal with standard deviation `noise` (Couzin's sigma), drawn from the stream
//!    `(seed, Noise, step, boid id)`;
//! 5. the heading turns toward `d` by at most `turn_rate * dt` (Couzin's turning rate; `inf`
//!    for Vicsek);
//! 6. `v' = speed * heading`, `p' = p + v' dt`, then wrap (torus) or bounce (walls).
//!
//! ## The boids rules off the fast path
//!
//! [`crate::rules`] unchanged, with the neighbours found here: metric neighbours in view, or the
//! `topological_k` nearest in view (at any distance) as the averaging set; separation stays
//! metric (every boid in view within `protected_range`), since a collision does not care how many
//! others are nearer.

pub mod couzin;
pub mod neighborhood;
pub mod vicsek;

use glam::Vec2;

use crate::par;
use crate::params::{Model, NoiseDistribution, Params};
use crate::rng::{self, Purpose};
use crate::rules::{self, Accum, BoidState, Kernel, group};
use crate::state::FlockState;
use crate::stats::ScanCounts;
use crate::world::{Perch, WorldSteer};
use neighborhood::Neighborhood;

/// One synchronous step of `state` (id order) at step number `step`, on the general path, and
/// its neighbour work. `kernel` is `Kernel::new(params)`, which the simulation keeps rather than
/// rebuild each step; `world` is what predators and attractors do to boids this step. Resting
/// boids ([`Perch`]) count down without applying the rules; flying ones may land after the move.
pub fn step(
    params: &Params,
    kernel: &Kernel,
    seed: u64,
    step: u64,
    state: &FlockState,
    world: Option<&WorldSteer>,
) -> (FlockState, ScanCounts) {
    let hood = Neighborhood::new(params, &state.positions, &state.velocities);
    let perch = Perch::new(params);
    let next = par::map_collect(state.len(), |i| {
        let mut counts = ScanCounts::default();
        let boid = BoidState {
            position: state.positions[i],
            velocity: state.velocities[i],
            bias: state.biases[i],
        };
        let resting = state.resting.get(i).copied().unwrap_or(0);
        if let (Some(perch), true) = (&perch, resting > 0) {
            let threatened = world.is_some_and(|w| w.threatens(boid.position));
            return (perch.rest(kernel, boid, resting, threatened), counts);
        }
        let pull = world.map(|w| w.pull(boid.position));
        let g = state.groups[i];
        let next = match params.model {
            Model::Boids => {
                let acc = boids_sums(params, kernel, &hood, i, &state.velocities, &mut counts);
                let wander = rules::wander_heading(params, step);
                rules::advance(kernel, &acc, boid, g, wander, pull)
            }
            Model::Vicsek => {
                let below = kernel.visual_below;
                let d = vicsek::social_direction(params, &hood, i, below, &mut counts);
                let noise = noise_angle(params, seed, step, i);
                steer(params, kernel, boid, g, d, pull, noise)
            }
            Model::Couzin => {
                let d = couzin::social_direction(params, kernel, &hood, i, &mut counts);
                let noise = noise_angle(params, seed, step, i);
                steer(params, kernel, boid, g, d, pull, noise)
            }
        };
        let landed = match &perch {
            Some(perch) => perch.land(seed, step, i, next),
            None => (next, 0),
        };
        (landed, counts)
    });
    let state = FlockState {
        positions: next.iter().map(|((b, _), _)| b.position).collect(),
        velocities: next.iter().map(|((b, _), _)| b.velocity).collect(),
        groups: state.groups.clone(),
        biases: next.iter().map(|((b, _), _)| b.bias).collect(),
        predators: state.predators.clone(),
        resting: if perch.is_some() {
            next.iter().map(|((_, resting), _)| *resting).collect()
        } else {
            Vec::new()
        },
    };
    (state, next.iter().map(|(_, counts)| *counts).sum())
}

/// The neighbours boid `i` interacts with (besides itself), ascending ids: the `topological_k`
/// nearest in view, or every boid in view with squared distance below `below`. The search's
/// work goes into `counts`; the caller counts the neighbours it takes.
pub fn interaction_set(
    params: &Params,
    hood: &Neighborhood,
    i: usize,
    below: f32,
    counts: &mut ScanCounts,
) -> Vec<u32> {
    match params.topological_k {
        0 => hood.within_counting(i, below, counts),
        k => hood.nearest_counting(i, usize::try_from(k).unwrap_or(usize::MAX), counts),
    }
}

/// The boids rules' neighbour sums for boid `i` from the neighbours found by `hood`, counting
/// the search and those neighbours into `counts`.
fn boids_sums(
    params: &Params,
    kernel: &Kernel,
    hood: &Neighborhood,
    i: usize,
    velocities: &[Vec2],
    counts: &mut ScanCounts,
) -> Accum {
    let mut acc = Accum::default();
    // The averaging set's own range test: the visual range, or none for the k nearest.
    let mut averaging = *kernel;
    if params.topological_k > 0 {
        averaging.visual_below = f32::INFINITY;
    }
    let mut members = interaction_set(params, hood, i, kernel.visual_below, counts);
    counts.neighbors += members.len() as u64;
    let at = members.partition_point(|&j| j < i as u32);
    members.insert(at, i as u32);
    for &j in &members {
        let j = j as usize;
        acc.add(&averaging, hood.offset(i, j), velocities[j], j == i);
    }
    if params.topological_k > 0 {
        // Separation stays metric: protected boids in view that are not among the k nearest.
        for j in hood.within_counting(i, kernel.protected_below, counts) {
            if members.binary_search(&j).is_err() {
                acc.separation += hood.offset(i, j as usize);
                counts.neighbors += 1;
            }
        }
    }
    acc
}

/// The angular noise of boid `i` at `step` (radians), from its own keyed stream.
fn noise_angle(params: &Params, seed: u64, step: u64, i: usize) -> f64 {
    if params.noise == 0.0 {
        return 0.0;
    }
    let mut s = rng::stream(seed, Purpose::Noise, step, i as u64);
    match params.noise_distribution {
        NoiseDistribution::Uniform => params.noise * (s.unit() - 0.5),
        NoiseDistribution::Gaussian => {
            // Box-Muller; 1 - unit() is in (0, 1], so the logarithm is finite.
            let radius = (-2.0 * (1.0 - s.unit()).ln()).sqrt();
            params.noise * radius * (std::f64::consts::TAU * s.unit()).cos()
        }
    }
}

/// Steps 1 to 6 of the heading models (see the module docs): from the social direction `d` to
/// the boid's next state.
fn steer(
    params: &Params,
    kernel: &Kernel,
    boid: BoidState,
    g: u8,
    d: Vec2,
    pull: Option<Vec2>,
    noise: f64,
) -> BoidState {
    let heading = boid.velocity.normalize_or_zero();
    let mut desired = d.try_normalize().unwrap_or(heading);
    if g != group::NONE && params.informed_weight > 0.0 {
        let goal = Vec2::from(kernel.goal[usize::from(g)]);
        let blended = desired + goal * params.informed_weight as f32;
        desired = blended.try_normalize().unwrap_or(desired);
    }
    if let Some(pull) = pull {
        desired = (desired + pull).try_normalize().unwrap_or(desired);
    }
    let push = rules::boundary_steer(kernel, boid.position);
    if push != Vec2::ZERO {
        let target = desired * params.speed as f32 + push;
        desired = target.try_normalize().unwrap_or(desired);
    }
    if desired == Vec2::ZERO {
        // No heading and nothing to steer by: the boid stays where it is.
        return BoidState {
            velocity: Vec2::ZERO,
            ..boid
        };
    }
    desired = rules::rotate(desired, noise);
    let limit = params.turn_rate * params.dt;
    let new_heading = if heading == Vec2::ZERO {
        desired
    } else {
        rules::turn_toward(heading, desired, limit)
    };
    let (position, velocity) =
        rules::move_boid(kernel, boid.position, new_heading * params.speed as f32);
    BoidState {
        position,
        velocity,
        bias: boid.bias,
    }
}

#[cfg(test)]
mod tests;
