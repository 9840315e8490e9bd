//! The lab from Python: the presets and the parameter catalogue as DataFrames, the published
//! experiments (the rows of `boids experiment`'s CSV) and parameter sweeps (the rows of
//! `boids sweep`'s CSV).
//!
//! A sweep is described by one set of arguments (preset, params, fixed keywords, the `vary`
//! axes, replicates, seed, steps, every, burn-in), from which `sweep_plan` gives the columns and
//! the number of runs, and `sweep_run` any one run's row, a pure function of those arguments
//! and the run's index: the pure-Python layer sends each run to a Dask worker as one task, and
//! the frame it gathers equals `sweep_local`'s, which runs them all here in parallel.

use boids_core::params::{Model, PARAMS, ParamInfo, param_info};
use boids_core::{PRESETS, Params, ParamsBuilder, Preset, Source};
use boids_lab::experiments::{self, MAX_REPLICATES, Options, Value as Cell};
use boids_lab::sweep::{self, Axis, Summary, SweepRun};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::arguments::{self, ANY_U64};
use crate::frames::{self, Columns, column, object};
use crate::{errors, layers};

/// The presets: name, model, dimensions, count, summary and the seed document reproduced.
#[pyfunction]
pub fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let rows: Vec<(&Preset, Params)> = PRESETS.iter().map(|p| (p, (p.params)())).collect();
    let columns = vec![
        column("name", &rows, |(p, _)| object(py, p.name))?,
        column("model", &rows, |(_, params)| {
            object(py, params.model.name())
        })?,
        column("dimensions", &rows, |(_, params)| {
            object(py, params.dimensions)
        })?,
        column("count", &rows, |(_, params)| object(py, params.count))?,
        column("summary", &rows, |(p, _)| object(py, p.summary))?,
        column("source", &rows, |(p, _)| object(py, p.source))?,
    ];
    frames::data_frame(py, columns)
}

/// The parameter catalogue, one row per parameter: name, section, kind (what values it
/// takes), default, unit, the models it acts in, meaning; only those acting in `model` when
/// given (a model's name, or a preset's, which stands for its model).
#[pyfunction]
#[pyo3(signature = (model = None))]
pub fn describe_params<'py>(py: Python<'py>, model: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let model = model.map(model_named).transpose()?;
    let rows: Vec<&ParamInfo> = PARAMS
        .iter()
        .filter(|info| model.is_none_or(|m| info.applies_to(m)))
        .collect();
    let models = |info: &ParamInfo| {
        let names: Vec<&str> = info.models.iter().map(|m| m.name()).collect();
        names.join(", ")
    };
    let columns = vec![
        column("name", &rows, |i| object(py, i.name))?,
        column("section", &rows, |i| object(py, i.section.title()))?,
        column("kind", &rows, |i| object(py, i.kind.expected()))?,
        column("default", &rows, |i| frames::value(py, &i.default_value()))?,
        column("unit", &rows, |i| object(py, i.unit.symbol()))?,
        column("models", &rows, |i| object(py, models(i)))?,
        column("meaning", &rows, |i| object(py, i.meaning))?,
    ];
    frames::data_frame(py, columns)
}

/// The model `name` names: a model, or a preset's model.
fn model_named(name: &str) -> PyResult<Model> {
    if let Some(model) = Model::from_name(name) {
        return Ok(model);
    }
    match PRESETS.iter().find(|p| p.name == name) {
        Some(preset) => Ok((preset.params)().model),
        None => {
            let presets: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            Err(PyValueError::new_err(format!(
                "model = {name:?} is neither a model nor a preset: models: {}; presets: {}",
                Model::NAMES.join(", "),
                presets.join(", ")
            )))
        }
    }
}

/// Runs the published experiment `name` (couzin-accuracy, couzin-conflict, couzin-memory,
/// couzin-phases, predator, scouts, vicsek) and returns its rows, those of
/// `boids experiment NAME`'s CSV.
#[pyfunction]
#[pyo3(signature = (name, quick = false, seed = 0, replicates = None, steps = None))]
pub fn experiment<'py>(
    py: Python<'py>,
    name: &str,
    quick: bool,
    seed: i128,
    replicates: Option<i128>,
    steps: Option<i128>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = Options {
        quick,
        replicates: arguments::optional("replicates", replicates, 1..=MAX_REPLICATES)?,
        steps: arguments::optional("steps", steps, 2..=u64::MAX)?,
        seed: arguments::whole("seed", seed, ANY_U64)?,
    };
    let plan =
        experiments::plan(name, &options).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let rows = py.detach(|| errors::guarded(|| experiments::run_all(&plan, &|| {})))?;
    let names: Vec<&str> = rows
        .first()
        .map(|r| r.iter().map(|(n, _)| *n).collect())
        .unwrap_or_default();
    let mut columns: Columns<'_> = names
        .iter()
        .map(|n| ((*n).to_owned(), Vec::new()))
        .collect();
    for row in &rows {
        for ((_, cells), (_, value)) in columns.iter_mut().zip(row) {
            cells.push(cell(py, value)?);
        }
    }
    frames::data_frame(py, columns)
}

/// A cell of an experiment's row: `int`, `float`, `str`, or `None` where not applicable.
fn cell<'py>(py: Python<'py>, value: &Cell) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Cell::Int(i) => object(py, i),
        Cell::Num(x) => object(py, x),
        Cell::Text(s) => object(py, s),
        Cell::Empty => Ok(py.None().into_bound(py)),
    }
}

/// The keywords of `boids.sweep` (python/boids/_sweep.py) that are not parameters.
const SWEEP_ARGUMENTS: &[&str] = &[
    "vary",
    "replicates",
    "steps",
    "preset",
    "client",
    "seed",
    "every",
    "burn_in",
    "params",
];

/// A sweep's arguments, read and checked once.
struct Sweep {
    axes: Vec<Axis>,
    runs: Vec<SweepRun>,
    steps: u64,
    every: u64,
    burn_in: u64,
}

impl Sweep {
    /// The grid of `vary` over the layers of `preset`, `params` and `fixed`, checked: every
    /// run's parameters are valid, or the first bad one is named.
    #[allow(
        clippy::too_many_arguments,
        reason = "the keywords of boids.sweep, one each"
    )]
    fn new(
        preset: &str,
        params: Option<&Bound<'_, PyAny>>,
        fixed: Option<&Bound<'_, PyDict>>,
        vary: &Bound<'_, PyDict>,
        replicates: i128,
        seed: i128,
        steps: i128,
        every: i128,
        burn_in: Option<i128>,
    ) -> PyResult<Self> {
        let replicates = arguments::whole("replicates", replicates, 1..=MAX_REPLICATES)?;
        let seed = arguments::whole("seed", seed, ANY_U64)?;
        let steps = arguments::whole("steps", steps, ANY_U64)?;
        let every = arguments::whole("every", every, 1..=u64::MAX)?;
        let burn_in = arguments::optional("burn_in", burn_in, 0..=steps)?;
        let base = layers::build(preset, params, fixed, SWEEP_ARGUMENTS)?;
        let axes = vary
            .iter()
            .map(|(key, values)| axis(&base, &key.extract::<String>()?, &values))
            .collect::<PyResult<Vec<_>>>()?;
        if axes.is_empty() {
            return Err(PyValueError::new_err(
                "vary = {} is not allowed: give at least one parameter and its values, e.g. vary={\"noise\": [0.1, 0.5]}",
            ));
        }
        let burn_in = burn_in.unwrap_or(steps / 2);
        let runs = sweep::plan(&base, &axes, replicates, seed).map_err(|e| match e {
            sweep::SweepError::Params(e) => errors::params(e),
            e => PyValueError::new_err(e.to_string()),
        })?;
        Ok(Self {
            axes,
            runs,
            steps,
            every,
            burn_in,
        })
    }

    /// The columns of a row: those of `boids sweep`'s CSV.
    fn columns(&self) -> Vec<String> {
        sweep::columns(&self.axes)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The time-averaged metrics of run `index`, and the step refused if its flock diverged.
    fn summary(&self, index: usize) -> Summary {
        sweep::time_averaged(&self.runs[index], self.steps, self.every, self.burn_in)
    }

    /// Run `index`'s row, given its summary.
    fn row<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        summary: &Summary,
    ) -> PyResult<Bound<'py, PyList>> {
        let run = &self.runs[index];
        let mut cells: Vec<Bound<'py, PyAny>> = vec![
            object(py, index)?,
            object(py, run.replicate)?,
            object(py, run.seed)?,
        ];
        for value in &run.point {
            cells.push(frames::value(py, value)?);
        }
        for x in &summary.averages {
            cells.push(object(py, x)?);
        }
        // NaN for a run that reached its last step, as pandas reads the CSV's empty cell.
        cells.push(match summary.diverged_at {
            Some(step) => object(py, step)?,
            None => object(py, f64::NAN)?,
        });
        PyList::new(py, cells)
    }
}

/// An axis of `key` over `values` (a list, tuple or array), each value read as the
/// parameter's kind; an unknown key is a `KeyError` with a "did you mean".
fn axis(base: &ParamsBuilder, key: &str, values: &Bound<'_, PyAny>) -> PyResult<Axis> {
    let not_a_list = || {
        PyTypeError::new_err(format!(
            "vary[{key:?}] = {values}: expected a list of values, e.g. vary={{{key:?}: [1, 2, 3]}}"
        ))
    };
    if values.cast::<PyString>().is_ok() {
        return Err(not_a_list());
    }
    let source = Source::Argument(format!("vary[{key:?}]"));
    let mut read = Vec::new();
    for value in values.try_iter().map_err(|_| not_a_list())? {
        let raw = layers::raw(key, &value?)?;
        let applied = base
            .clone()
            .apply(key, &raw, source.clone())
            .map_err(errors::params)?;
        let info = param_info(key).expect("applied, so a parameter");
        read.push(applied.params().get(info.name).expect("a field"));
    }
    if read.is_empty() {
        return Err(PyValueError::new_err(format!(
            "vary[{key:?}] has no values: give at least one"
        )));
    }
    let info = param_info(key).expect("applied, so a parameter");
    Ok(Axis {
        key: info.name,
        values: read,
        source,
    })
}

/// The columns of the sweep's rows and its number of runs; raises on any bad argument before
/// anything runs.
#[pyfunction]
#[pyo3(signature = (*, preset, params, fixed, vary, replicates, seed, steps, every, burn_in))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keywords of boids.sweep, one each"
)]
pub fn sweep_plan(
    preset: &str,
    params: Option<&Bound<'_, PyAny>>,
    fixed: Option<&Bound<'_, PyDict>>,
    vary: &Bound<'_, PyDict>,
    replicates: i128,
    seed: i128,
    steps: i128,
    every: i128,
    burn_in: Option<i128>,
) -> PyResult<(Vec<String>, usize)> {
    let sweep = Sweep::new(
        preset, params, fixed, vary, replicates, seed, steps, every, burn_in,
    )?;
    Ok((sweep.columns(), sweep.runs.len()))
}

/// The row of run `index` of the sweep (a pure function of the arguments and `index`: what a
/// Dask task computes). The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (index, *, preset, params, fixed, vary, replicates, seed, steps, every, burn_in))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keywords of boids.sweep, one each"
)]
pub fn sweep_run<'py>(
    py: Python<'py>,
    index: i128,
    preset: &str,
    params: Option<&Bound<'_, PyAny>>,
    fixed: Option<&Bound<'_, PyDict>>,
    vary: &Bound<'_, PyDict>,
    replicates: i128,
    seed: i128,
    steps: i128,
    every: i128,
    burn_in: Option<i128>,
) -> PyResult<Bound<'py, PyList>> {
    let sweep = Sweep::new(
        preset, params, fixed, vary, replicates, seed, steps, every, burn_in,
    )?;
    let last = sweep.runs.len().saturating_sub(1);
    let index = arguments::whole("index", index, 0..=last)?;
    let summary = py.detach(|| errors::guarded(|| sweep.summary(index)))?;
    sweep.row(py, index, &summary)
}

/// Every row of the sweep, the runs in parallel on all cores (the GIL released).
#[pyfunction]
#[pyo3(signature = (*, preset, params, fixed, vary, replicates, seed, steps, every, burn_in))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keywords of boids.sweep, one each"
)]
pub fn sweep_local<'py>(
    py: Python<'py>,
    preset: &str,
    params: Option<&Bound<'_, PyAny>>,
    fixed: Option<&Bound<'_, PyDict>>,
    vary: &Bound<'_, PyDict>,
    replicates: i128,
    seed: i128,
    steps: i128,
    every: i128,
    burn_in: Option<i128>,
) -> PyResult<Vec<Bound<'py, PyList>>> {
    let sweep = Sweep::new(
        preset, params, fixed, vary, replicates, seed, steps, every, burn_in,
    )?;
    let summaries = py.detach(|| {
        errors::guarded(|| experiments::par_map(&sweep.runs, |index, _| sweep.summary(index)))
    })?;
    summaries
        .iter()
        .enumerate()
        .map(|(index, a)| sweep.row(py, index, a))
        .collect()
}
