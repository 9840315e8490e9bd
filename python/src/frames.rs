//! Data for Python: the flock as numpy arrays in id order, parameter values as Python values,
//! and tidy tables as pandas DataFrames (built from columns, one name and one list each).

use boids_core::params::Value;
use boids_core::{Coordinates, Dim, Dimension, Simulation as Core, VecN};
use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray2, PyArray3};
use pyo3::BoundObject;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Columns of a table, in order: a name and one Python value per row.
pub type Columns<'py> = Vec<(String, Vec<Bound<'py, PyAny>>)>;

/// A pandas DataFrame of `columns`.
pub fn data_frame<'py>(py: Python<'py>, columns: Columns<'py>) -> PyResult<Bound<'py, PyAny>> {
    let data = PyDict::new(py);
    let names = PyList::empty(py);
    for (name, values) in columns {
        data.set_item(&name, PyList::new(py, values)?)?;
        names.append(name)?;
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("columns", names)?;
    py.import("pandas")?
        .getattr("DataFrame")?
        .call((data,), Some(&kwargs))
}

/// A parameter value as Python has it: `float`, `int`, `bool`, `str`, a list (intervals and
/// points), or a list of dicts (obstacles), through its TOML form.
pub fn value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    toml_value(py, &toml::Value::from(value))
}

fn toml_value<'py>(py: Python<'py>, value: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        toml::Value::String(s) => object(py, s)?,
        toml::Value::Integer(i) => object(py, i)?,
        toml::Value::Float(x) => object(py, x)?,
        toml::Value::Boolean(b) => object(py, b)?,
        toml::Value::Datetime(d) => object(py, d.to_string())?,
        toml::Value::Array(items) => {
            let items: Vec<_> = items
                .iter()
                .map(|v| toml_value(py, v))
                .collect::<PyResult<_>>()?;
            PyList::new(py, items)?.into_any()
        }
        toml::Value::Table(table) => {
            let dict = PyDict::new(py);
            for (k, v) in table {
                dict.set_item(k, toml_value(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// The vectors `by_slot` (storage order, `ids[k]` the id of slot `k`) as rows in id order.
pub fn by_id<const D: usize>(by_slot: &[VecN<D>], ids: &[u32]) -> Vec<[f32; D]>
where
    Dim<D>: Dimension<D>,
{
    let mut rows = vec![[0.0; D]; by_slot.len()];
    for (v, &id) in by_slot.iter().zip(ids) {
        rows[id as usize] = v.to_array();
    }
    rows
}

/// The positions of `sim`'s boids in id order.
pub fn positions<const D: usize>(sim: &Core<D>) -> Vec<[f32; D]>
where
    Dim<D>: Dimension<D>,
{
    by_id(sim.positions(), sim.ids())
}

/// The velocities of `sim`'s boids in id order.
pub fn velocities<const D: usize>(sim: &Core<D>) -> Vec<[f32; D]>
where
    Dim<D>: Dimension<D>,
{
    by_id(sim.velocities(), sim.ids())
}

/// Rows of `D` coordinates as an (N, D) float32 array.
pub fn array2<const D: usize>(py: Python<'_>, rows: Vec<[f32; D]>) -> Bound<'_, PyArray2<f32>> {
    let n = rows.len();
    let flat: Vec<f32> = rows.into_iter().flatten().collect();
    Array2::from_shape_vec((n, D), flat)
        .expect("N rows of D coordinates")
        .into_pyarray(py)
}

/// `frames` frames of `n` rows of `D` coordinates, flat (frame by frame, row by row), as a
/// (frames, N, D) float32 array that takes over the vector (no copy).
pub fn array3<const D: usize>(
    py: Python<'_>,
    flat: Vec<f32>,
    frames: usize,
    n: usize,
) -> Bound<'_, PyArray3<f32>> {
    Array3::from_shape_vec((frames, n, D), flat)
        .expect("frames of N rows of D coordinates")
        .into_pyarray(py)
}

/// Any Rust value Python has a type for, as a Python object.
pub fn object<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: T) -> PyResult<Bound<'py, PyAny>> {
    value
        .into_pyobject(py)
        .map(|v| v.into_any().into_bound())
        .map_err(Into::into)
}

/// The column `name` of `rows`, each cell `cell(row)`.
pub fn column<'py, R>(
    name: &str,
    rows: &[R],
    cell: impl Fn(&R) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<(String, Vec<Bound<'py, PyAny>>)> {
    Ok((
        name.to_owned(),
        rows.iter().map(cell).collect::<PyResult<_>>()?,
    ))
}
