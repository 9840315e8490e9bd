//! The flock in boid-id order ([`FlockState`]): what is saved, loaded, measured and stepped by
//! the general path and the reference, and the initial flock of a seed.
//!
//! It sits apart from [`crate::sim`] so that the modules that take or return a flock
//! ([`crate::models`], [`crate::reference`], [`crate::metrics`]) need not depend on the
//! simulation, which itself calls [`crate::models`]: no module cycle. The check a state passes
//! before a simulation continues from it lives here too ([`check_state`]).

use crate::error::StateError;
use crate::obstacles::ObstacleIndex;
use crate::par;
use crate::params::{MAX_COUNT, Params};
use crate::rng::{self, Purpose};
use crate::rules::{Kernel, group};
use crate::space::{Coordinates, Dim, Dimension, VecN};
use crate::world::{Predator, predator_start, start};

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
    /// A position inside an obstacle is drawn again from the same stream ([`crate::world::free_position`]).
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

/// Refuses parameters of another dimension than the simulation's `D`.
pub(crate) fn check_dimensions<const D: usize>(params: &Params) -> Result<(), StateError> {
    match params.dimensions == D {
        true => Ok(()),
        false => Err(StateError::Dimensions {
            params: params.dimensions,
            simulation: D,
        }),
    }
}

/// Refuses a state that is ragged, holds a value no boid can have, or predators that do not
/// match `predator_count`; completes what a state may leave out (predators drawn afresh when
/// it has none, no boid resting when it has no countdowns).
pub(crate) fn check_state<const D: usize>(
    params: &Params,
    state: &mut FlockState<D>,
    seed: u64,
) -> Result<(), StateError>
where
    Dim<D>: Dimension<D>,
{
    check_dimensions::<D>(params)?;
    let n = state.len();
    if state.predators.is_empty() && params.predator_count > 0 {
        let obstacles = ObstacleIndex::of(params);
        state.predators = (0..params.predator_count)
            .map(|index| predator_start(params, &obstacles, seed, index))
            .collect();
    }
    if state.predators.len() != params.predator_count {
        return Err(StateError::PredatorCount {
            found: state.predators.len(),
            expected: params.predator_count,
        });
    }
    for (index, predator) in state.predators.iter().enumerate() {
        for (field, value) in [
            ("position", predator.position),
            ("velocity", predator.velocity),
        ] {
            if !value.to_array().iter().all(|c| c.is_finite()) {
                let value = format!("{value}");
                return Err(StateError::BadPredator {
                    index,
                    field,
                    value,
                });
            }
        }
    }
    match (params.perch, state.resting.len()) {
        (false, _) => state.resting.clear(),
        (true, 0) => state.resting = vec![0; n],
        _ => {}
    }
    if n == 0 || n > MAX_COUNT {
        return Err(StateError::Count {
            count: n,
            max: MAX_COUNT,
        });
    }
    let lengths = [
        state.velocities.len(),
        state.groups.len(),
        state.biases.len(),
        if params.perch { state.resting.len() } else { n },
    ];
    if lengths.iter().any(|&l| l != n) {
        return Err(StateError::Ragged {
            what: format!(
                "positions {n}, velocities {}, groups {}, biases {}, resting {}",
                lengths[0],
                lengths[1],
                lengths[2],
                state.resting.len()
            ),
        });
    }
    let bad = |index, field, value: String, allowed: &str| {
        Err(StateError::BadValue {
            index,
            field,
            value,
            allowed: allowed.to_owned(),
        })
    };
    for i in 0..n {
        let (p, v) = (state.positions[i], state.velocities[i]);
        if !p.to_array().iter().all(|c| c.is_finite()) {
            return bad(i, "position", format!("{p}"), "finite numbers");
        }
        if !v.to_array().iter().all(|c| c.is_finite()) {
            return bad(i, "velocity", format!("{v}"), "finite numbers");
        }
        if state.groups[i] > group::LEFT {
            return bad(
                i,
                "group",
                state.groups[i].to_string(),
                "0 (none), 1 (+x) or 2 (-x)",
            );
        }
        if !(0.0..=1.0).contains(&state.biases[i]) {
            return bad(i, "bias", state.biases[i].to_string(), "a number in [0, 1]");
        }
    }
    Ok(())
}
