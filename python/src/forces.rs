//! Custom forces from Python: `step(n, force=f)` calls `f(positions, velocities)` before each
//! step, with the GIL held, and adds the (N, D) array it returns to the boids' velocities
//! (`Simulation::step_with_force`); the step itself releases the GIL. A result of another
//! shape, type or dtype is refused naming what was expected, and the flock is kept.

use boids_core::{Dim, Dimension, Simulation as Core};
use numpy::{PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::pool::on_pool;
use crate::{errors, frames};

/// `n` steps of `sim`, each with the change of velocity `force` returns for the flock then;
/// a signal (Ctrl-C) is handled between steps, the steps taken kept.
pub fn step_forced<const D: usize>(
    py: Python<'_>,
    sim: &mut Core<D>,
    pool: Option<&ThreadPool>,
    n: u64,
    force: &Bound<'_, PyAny>,
) -> PyResult<()>
where
    Dim<D>: Dimension<D>,
{
    for _ in 0..n {
        let positions = frames::array2(py, frames::positions(sim));
        let velocities = frames::array2(py, frames::velocities(sim));
        let returned = force.call1((positions, velocities))?;
        let by_id = force_rows::<D>(&returned, sim.len())?;
        py.detach(|| on_pool(pool, || errors::guarded(|| sim.step_with_force(&by_id))))?
            .map_err(errors::state)?;
        py.check_signals()?;
    }
    Ok(())
}

/// The rows of what a force function returned: an (N, D) float array (float32, or float64
/// rounded to float32); anything else is refused naming the shape expected.
fn force_rows<const D: usize>(returned: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<[f32; D]>> {
    let expected =
        format!("a float32 or float64 numpy array of shape ({n}, {D}), one row per boid");
    let array = returned.cast::<PyUntypedArray>().map_err(|_| {
        let kind = returned
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!(
            "the force function returned a {kind}: expected {expected}"
        ))
    })?;
    if array.shape() != [n, D] {
        let shape: Vec<String> = array.shape().iter().map(usize::to_string).collect();
        return Err(PyValueError::new_err(format!(
            "the force function returned an array of shape ({}): expected {expected}",
            shape.join(", ")
        )));
    }
    let rows = |coordinates: Vec<f32>| -> Vec<[f32; D]> {
        coordinates
            .chunks_exact(D)
            .map(|c| std::array::from_fn(|a| c[a]))
            .collect()
    };
    if let Ok(a) = returned.cast::<PyArray2<f32>>() {
        return Ok(rows(a.readonly().as_array().iter().copied().collect()));
    }
    if let Ok(a) = returned.cast::<PyArray2<f64>>() {
        return Ok(rows(
            a.readonly().as_array().iter().map(|&x| x as f32).collect(),
        ));
    }
    Err(PyTypeError::new_err(format!(
        "the force function returned an array of dtype {}: expected {expected}",
        array.dtype()
    )))
}
