//! Python values into the parameter layers, the command's order: a preset, then a `params`
//! dict or TOML file, then keyword overrides. Each value keeps where it came from, so a refused
//! value is named as the caller gave it (`argument `visual_range=-1``). A keyword that is no
//! parameter but a misspelling of one of the call's own arguments (`replicate=2` for
//! `replicates`) is named as such, since keywords and parameters share one namespace.

use std::path::PathBuf;

use boids_core::params::{PARAMS, Raw, nearest_name, param_info};
use boids_core::{ParamsBuilder, Source};
use boids_io::input;
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};

use crate::errors;

/// The layers of `preset`, then `params` (a dict, or the path of a TOML file), then
/// `overrides`, the keywords of a call whose own arguments are `arguments`.
pub fn build(
    preset: &str,
    params: Option<&Bound<'_, PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
    arguments: &[&str],
) -> PyResult<ParamsBuilder> {
    let builder = ParamsBuilder::preset(preset).map_err(errors::params)?;
    on_top(builder, params, overrides, arguments)
}

/// `builder`'s layers, then `params` and `overrides` as for [`build`].
pub fn on_top(
    mut builder: ParamsBuilder,
    params: Option<&Bound<'_, PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
    arguments: &[&str],
) -> PyResult<ParamsBuilder> {
    if let Some(params) = params {
        builder = match params.cast::<PyDict>() {
            Ok(dict) => apply(builder, dict, |key, value| {
                format!("params[{key:?}] = {value}")
            })?,
            Err(_) => apply_file(builder, params)?,
        };
    }
    let Some(overrides) = overrides else {
        return Ok(builder);
    };
    refuse_misspelt_arguments(overrides, arguments)?;
    apply(builder, overrides, |key, value| format!("{key}={value}"))
}

/// Refuses a keyword of `overrides` that is no parameter and nearer to one of the call's own
/// `arguments` than to any parameter (`replicate` for `replicates`), with a "did you mean";
/// other unknown keywords are left to the parameter layers, which suggest a parameter.
fn refuse_misspelt_arguments(overrides: &Bound<'_, PyDict>, arguments: &[&str]) -> PyResult<()> {
    for key in overrides.keys() {
        let key: String = key.extract()?;
        if param_info(&key).is_some() {
            continue;
        }
        let names = PARAMS.iter().map(|info| info.name);
        let nearest = nearest_name(&key, names.chain(arguments.iter().copied()));
        if let Some(meant) = nearest.filter(|name| arguments.contains(name)) {
            return Err(PyKeyError::new_err(format!(
                "unknown parameter or argument `{key}` (did you mean the argument `{meant}`?); the arguments are {}, the other keywords parameters",
                arguments.join(", ")
            )));
        }
    }
    Ok(())
}

/// Applies every `key: value` of `dict`, each from an argument that `spell` writes.
pub fn apply(
    mut builder: ParamsBuilder,
    dict: &Bound<'_, PyDict>,
    spell: impl Fn(&str, &Raw) -> String,
) -> PyResult<ParamsBuilder> {
    for (key, value) in dict.iter() {
        let key: String = key.extract()?;
        let raw = raw(&key, &value)?;
        let source = Source::Argument(spell(&key, &raw));
        builder = builder.apply(&key, &raw, source).map_err(errors::params)?;
    }
    Ok(builder)
}

/// Applies the TOML file `path` (a `str` or `os.PathLike`).
fn apply_file(builder: ParamsBuilder, path: &Bound<'_, PyAny>) -> PyResult<ParamsBuilder> {
    let path: PathBuf = path.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "params = {path}: expected a dict of parameters or the path of a TOML file"
        ))
    })?;
    let text = input::read_text("params", &path, input::CONFIG_LIMIT).map_err(errors::file)?;
    builder
        .apply_toml(&text, &path.display().to_string())
        .map_err(errors::params)
}

/// A Python value as the parameter layers read values: `bool`, `int`, `float` (numpy scalars
/// too), `str`, lists and tuples, dicts (an obstacle's table).
pub fn raw(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Raw> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Raw::Bool(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Raw::Text(s.to_string()));
    }
    if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        let items = value.try_iter()?;
        return Ok(Raw::List(
            items
                .map(|item| raw(key, &item?))
                .collect::<PyResult<_>>()?,
        ));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut table = Vec::new();
        for (k, v) in dict.iter() {
            table.push((k.extract::<String>()?, raw(key, &v)?));
        }
        return Ok(Raw::Table(table));
    }
    if value.cast::<PyFloat>().is_err()
        && let Ok(i) = value.extract::<i64>()
    {
        return Ok(Raw::Integer(i));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(Raw::Float(x));
    }
    Err(PyTypeError::new_err(format!(
        "parameter `{key}` = {value}: a value of type {} is not a parameter value (give a number, bool, str or list)",
        value.get_type().name()?
    )))
}
