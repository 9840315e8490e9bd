//! The models beside the boids rules (Vicsek, Couzin), the neighbourhoods beside the metric one
//! (k nearest, a blind angle), and the general path of the step.
//!
//! Every model and neighbourhood runs on the grid's neighbour walk (`walk/`): the
//! heading models' sums in `lanes.rs`, k nearest in `nearest.rs`. Only a perching flock
//! ([`Params::uses_fast_path`]: a resting boid's countdown is state the walk's frame does not
//! carry) takes the general path, [`step`]: it works on the flock in id order, asks
//! [`neighborhood::Neighborhood`] for exact neighbour lists (ascending ids: the canonical
//! order its sums run in) and computes each boid's next state from the previous frame only, so
//! it is synchronous and gives bit-identical results on any thread count. It allocates lists
//! per boid and is some 30 to 70 times slower than the walk, which is why nothing else takes
//! it; the tests hold the walk to it (`tests/walk.rs`: the same neighbours, the same step to
//! the rounding of sums in another order).
//!
//! Everything here is written once for two and three dimensions (a const `D`, see
//! [`crate::space`]); the two steps whose form differs, the noise's random turn and the
//! limited turn, are [`Dimension`]'s (shared with the predators' turns).
//!
//! ## The heading models (Vicsek, Couzin)
//!
//! Both move every boid at the constant `speed` and differ only in the *social direction* `d`
//! ([`vicsek::social_direction`], [`couzin::social_direction`]). The rest is shared:
//!
//! 1. `d` is normalised (a boid with no social direction keeps its heading);
//! 2. scouts of group 1 and 2 are *informed* (Couzin et al. 2005): with preferred direction `g`
//!    (`preferred_angle1`, `preferred_angle2`, and in 3D `preferred_elevation1`,
//!    `preferred_elevation2`) and weight `omega` (`informed_weight`),
//!    `d = (d + omega g) / |d + omega g|`;
//!    then the world's pull ([`Pull`]: fleeing predators, seeking an attractor as an informed
//!    direction) is added the same way, `d = (d + pull) / |d + pull|`;
//! 3. the boundary's turn (margins) or push (walls) is added to `speed * d` (nothing on a torus);
//! 4. `d` is turned by the angular noise, drawn from the stream `(seed, Noise, step, boid id)`:
//!    uniform (Vicsek's eta: an angle in `[-noise/2, noise/2]` in 2D, a direction uniform on the
//!    cap of half-angle `noise/2` around `d` in 3D) or gaussian (Couzin's sigma: an angle of
//!    standard deviation `noise` in 2D, the spherically wrapped Gaussian in 3D); see
//!    [`crate::space`];
//! 5. the heading turns toward `d` by at most `turn_rate * dt` (Couzin's turning rate; `inf`
//!    for Vicsek), in 3D within the plane of the two directions;
//! 6. `v' = speed * heading`, `p' = p + v' dt`, then wrap (torus) or bounce (walls).
//!
//! ## The boids rules off the fast path
//!
//! [`crate::rules`] unchanged, with the neighbours found here: metric neighbours in view, or the
//! `topological_k` nearest in view (at any distance) as the averaging set; separation stays
//! metric (every boid in view within `protected_range`), since a collision does not care how many
//! others are nearer.

pub mod couzin;
pub(crate) mod lanes;
pub(crate) mod nearest;
pub mod neighborhood;
pub mod vicsek;

use crate::par;
use crate::params::{Model, Params};
use crate::real::Vector;
use crate::rng::{self, Purpose, Stream};
use crate::rules::{self, BoidState, Kernel, Sums, group};
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::state::FlockState;
use crate::stats::ScanCounts;
use crate::world::{Perch, Pull};
use neighborhood::Neighborhood;

/// One synchronous step of `state` (id order) at step number `step`, on the general path, and
/// its neighbour work. `kernel` is `Kernel::new(params)`, which the simulation keeps rather than
/// rebuild each step; `world` is what predators and attractors do to boids this step. Resting
/// boids ([`Perch`]) count down without applying the rules; flying ones may land after the move.
pub fn step<const D: usize>(
    params: &Params,
    kernel: &Kernel<D>,
    seed: u64,
    step: u64,
    state: &FlockState<D>,
    world: Option<&Pull<'_, D>>,
) -> (FlockState<D>, ScanCounts)
where
    Dim<D>: Dimension<D>,
{
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
        let pull = world.map(|w| w.pull(i as u32, boid.position));
        let g = state.groups[i];
        let next = match params.model {
            Model::Boids => {
                let acc = boids_sums(params, kernel, &hood, i, &state.velocities, &mut counts);
                let wander = rules::wander_heading::<D, VecN<D>>(params, step);
                rules::advance(kernel, &acc, boid, g, wander, pull)
            }
            Model::Vicsek => {
                let below = kernel.visual_below;
                let d = vicsek::social_direction(params, &hood, i, below, &mut counts);
                let noise = noise_stream(params, seed, step, i);
                steer(params, kernel, boid, g, d, pull, noise)
            }
            Model::Couzin => {
                let d = couzin::social_direction(params, kernel, &hood, i, &mut counts);
                let noise = noise_stream(params, seed, step, i);
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
pub fn interaction_set<const D: usize>(
    params: &Params,
    hood: &Neighborhood<D>,
    i: usize,
    below: f32,
    counts: &mut ScanCounts,
) -> Vec<u32>
where
    Dim<D>: Dimension<D>,
{
    interaction_sets(params, hood, i, below, 0.0, counts).0
}

/// [`interaction_set`], and with `topological_k` nearest also every boid in view with squared
/// distance below `protected_below`, found in the same search (ascending ids). With metric
/// neighbours that second set is empty: those boids are in the first.
fn interaction_sets<const D: usize>(
    params: &Params,
    hood: &Neighborhood<D>,
    i: usize,
    below: f32,
    protected_below: f32,
    counts: &mut ScanCounts,
) -> (Vec<u32>, Vec<u32>)
where
    Dim<D>: Dimension<D>,
{
    match params.topological_k {
        0 => (hood.within_counting(i, below, counts), Vec::new()),
        k => {
            let k = usize::try_from(k).unwrap_or(usize::MAX);
            hood.nearest_and_within_counting(i, k, protected_below, counts)
        }
    }
}

/// The boids rules' neighbour sums for boid `i` from the neighbours found by `hood`, counting
/// the search and those neighbours into `counts`.
fn boids_sums<const D: usize>(
    params: &Params,
    kernel: &Kernel<D>,
    hood: &Neighborhood<D>,
    i: usize,
    velocities: &[VecN<D>],
    counts: &mut ScanCounts,
) -> Sums<f32, D>
where
    Dim<D>: Dimension<D>,
{
    let mut acc = Sums::<f32, D>::default();
    // The averaging set's own range test: the visual range, or none for the k nearest.
    let mut averaging = *kernel;
    if params.topological_k > 0 {
        averaging.visual_below = f32::INFINITY;
    }
    // With k nearest, separation stays metric: the protected boids in view.
    let (members, protected) = interaction_sets(
        params,
        hood,
        i,
        kernel.visual_below,
        kernel.protected_below,
        counts,
    );
    counts.neighbors += members.len() as u64;
    // The boid itself among them, in id order.
    let (before, after) = members.split_at(members.partition_point(|&j| j < i as u32));
    for &j in before.iter().chain(&[i as u32]).chain(after) {
        let j = j as usize;
        acc.add(&averaging, hood.offset(i, j), velocities[j], j == i);
    }
    // Those of the protected boids that are not among the k nearest.
    for j in protected {
        if members.binary_search(&j).is_err() {
            acc.separation = acc.separation + Vector(hood.offset(i, j as usize).into());
            counts.neighbors += 1;
        }
    }
    acc
}

/// The stream of boid `i`'s angular noise at `step`, or `None` when there is no noise.
pub(crate) fn noise_stream(params: &Params, seed: u64, step: u64, i: usize) -> Option<Stream> {
    (params.noise != 0.0).then(|| rng::stream(seed, Purpose::Noise, step, i as u64))
}

/// Steps 1 to 6 of the heading models (see the module docs): from the social direction `d` to
/// the boid's next state.
pub(crate) fn steer<const D: usize>(
    params: &Params,
    kernel: &Kernel<D>,
    boid: BoidState<D>,
    g: u8,
    d: VecN<D>,
    pull: Option<VecN<D>>,
    mut noise: Option<Stream>,
) -> BoidState<D>
where
    Dim<D>: Dimension<D>,
{
    let zero = VecN::<D>::ZERO;
    let heading = boid.velocity.normalize_or_zero();
    let mut desired = d.try_normalize().unwrap_or(heading);
    if g != group::NONE && params.informed_weight > 0.0 {
        let goal = VecN::<D>::from(kernel.goal[usize::from(g)]);
        let blended = desired + goal * params.informed_weight as f32;
        desired = blended.try_normalize().unwrap_or(desired);
    }
    if let Some(pull) = pull {
        desired = (desired + pull).try_normalize().unwrap_or(desired);
    }
    let push = rules::boundary_steer(kernel, boid.position);
    if push != zero {
        let target = desired * params.speed as f32 + push;
        desired = target.try_normalize().unwrap_or(desired);
    }
    if desired == zero {
        // No heading and nothing to steer by: the boid stays where it is.
        return BoidState {
            velocity: zero,
            ..boid
        };
    }
    desired = Dim::<D>::add_noise(
        desired,
        params.noise_distribution,
        params.noise,
        noise.as_mut(),
    );
    let limit = params.turn_rate * params.dt;
    // No turn is wider than pi: a limit of pi or more (Vicsek's, infinite) takes `desired`,
    // as the turn would, without measuring the angle.
    let new_heading = if heading == zero || limit >= std::f64::consts::PI {
        desired
    } else {
        Dim::<D>::turn_toward(heading, desired, limit)
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
