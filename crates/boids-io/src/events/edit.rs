//! World edits and parameter changes: the one way a change of the log is applied to a flock,
//! by the viewer as it happens and by a replay at its step.

use boids_core::params::Raw;
use boids_core::{
    Dim, Dimension, ParamsBuilder, ParamsError, Simulation, Source, StateError, VecN,
};

use super::log::Change;

/// Why a world edit (a [`Change`] other than a flock or a `set`) was refused.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The new `predator_count` is refused.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The simulation refused it (no such predator, a point inside an obstacle).
    #[error(transparent)]
    State(#[from] StateError),
    /// The point has another number of coordinates than the flock has dimensions.
    #[error(
        "{edit} gives a point of {given} coordinates, but the flock has {dimensions} dimensions: \
         send x and y{}",
        if *dimensions == 3 { " and z" } else { ", without z" }
    )]
    Coordinates {
        /// The edit's name in the event log.
        edit: &'static str,
        /// Coordinates given.
        given: usize,
        /// The flock's dimensions.
        dimensions: usize,
    },
}

/// The point `x`, `y` (and `z`) of the edit `edit` as a vector of the flock's `D` dimensions:
/// `z` is given exactly when the flock has three.
fn edit_point<const D: usize>(
    edit: &'static str,
    x: f64,
    y: f64,
    z: Option<f64>,
) -> Result<VecN<D>, EditError>
where
    Dim<D>: Dimension<D>,
{
    let coordinates: Vec<f32> = [Some(x), Some(y), z]
        .into_iter()
        .flatten()
        .map(|c| c as f32)
        .collect();
    let given = coordinates.len();
    let point: [f32; D] = coordinates.try_into().map_err(|_| EditError::Coordinates {
        edit,
        given,
        dimensions: D,
    })?;
    Ok(VecN::<D>::from(point))
}

/// Applies a world edit to `sim`, whose parameters are `layers`, and returns the layers after
/// it (`predator_count` follows the predators): the one way the viewer and a replay make it.
/// Changes that are not edits leave everything as it is.
pub fn apply_edit<const D: usize>(
    layers: &ParamsBuilder,
    sim: &mut Simulation<D>,
    change: &Change,
    source: Source,
) -> Result<ParamsBuilder, EditError>
where
    Dim<D>: Dimension<D>,
{
    let count_layer = |count: usize| predators_layer(layers, count, source.clone());
    match *change {
        Change::PlacePredator { x, y, z } => {
            let at = edit_point("place_predator", x, y, z)?;
            let next = count_layer(sim.predators().len() + 1)?;
            sim.add_predator(at)?;
            Ok(next)
        }
        Change::RemovePredator { index } => {
            sim.remove_predator(index)?;
            Ok(count_layer(sim.predators().len())?)
        }
        Change::Pointer { x, y, z } => {
            let at = x
                .zip(y)
                .map(|(x, y)| edit_point("pointer", x, y, z))
                .transpose()?;
            sim.set_pointer(at)?;
            Ok(layers.clone())
        }
        Change::Start { .. } | Change::Reset { .. } | Change::Set { .. } => Ok(layers.clone()),
    }
}

/// `layers` with `predator_count = count` from `source`, as a world edit leaves them: the
/// count follows the predators placed and removed.
pub(super) fn predators_layer(
    layers: &ParamsBuilder,
    count: usize,
    source: Source,
) -> Result<ParamsBuilder, ParamsError> {
    let count = Raw::Integer(i64::try_from(count).unwrap_or(i64::MAX));
    apply_set(layers, "predator_count", &count, source)
}

/// `layers` with `key = value` from `source` applied and checked: the one way a live change is
/// made, in the viewer and in a replay. The result's parameters are valid; an error names where
/// each value it is about came from.
pub fn apply_set(
    layers: &ParamsBuilder,
    key: &str,
    value: &Raw,
    source: Source,
) -> Result<ParamsBuilder, ParamsError> {
    let next = layers.clone().apply(key, value, source)?;
    next.build()?;
    Ok(next)
}
