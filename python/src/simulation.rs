//! The Python `Simulation`: one flock of two or three dimensions ([`Flock`], picked once from
//! the `dimensions` parameter), the parameter layers it was built from (so `set` layers more
//! on top, as the viewer does), and its own thread pool when `threads` is given.
//!
//! **Copies, not views.** `positions`, `velocities` and `groups` are new numpy arrays in boid-id
//! order (row `i` is boid `i` at every step). The engine stores the flock in the grid's cell
//! order, which changes every step, so a view of its buffers would be in no stable order and
//! would go stale at the next step. A copy costs one pass over the flock: D x 4 bytes a boid
//! (0.8 MB and about 0.4 ms for 100,000 boids in 2D), paid when the attribute is read,
//! never by `step()`.
//!
//! Stepping releases the GIL: other Python threads run meanwhile, and the step itself runs on
//! the simulation's threads. Results do not depend on the number of threads. Long calls step
//! in chunks that Ctrl-C stops ([`stepping`]). A simulation takes one call at a time: one that
//! arrives while it is busy (from another thread, or from a force function) is refused with a
//! `RuntimeError` that says so ([`Busy`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, MutexGuard};

use boids_core::params::MAX_COUNT;
use boids_core::{Flock, METRIC_COLUMNS, Metrics, ParamsBuilder, on_flock, with_dimensions};
use boids_io::output::{self, Target};
use boids_io::resume::{self, Saved, sidecar_path};
use boids_io::{input, state_csv};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::ThreadPool;

use crate::arguments::{self, ANY_U64};
use crate::busy::Busy;
use crate::pool::{on_pool, thread_pool};
use crate::viewer::{self, ViewerOptions};
use crate::{errors, forces, frames, layers, recording, stepping};

/// A flock you can step, inspect, change and save: the model of the `boids` command, from
/// Python.
///
/// Parameters are layered as on the command line: the `preset`, then `params` (a dict, or the
/// path of a TOML file like `boids params --toml` writes), then keyword overrides. The same
/// parameters and seed give the same flock as `boids run`, bit for bit, on any number of
/// threads.
#[pyclass(module = "boids", frozen)]
pub struct Simulation {
    state: Busy<State>,
}

/// What a simulation holds: the flock, the layers of its parameters, its preset and its
/// threads.
struct State {
    flock: Flock,
    layers: ParamsBuilder,
    preset: String,
    pool: Option<Arc<ThreadPool>>,
}

impl Simulation {
    fn new_state(state: State) -> Self {
        Self {
            state: Busy::new(state),
        }
    }

    /// The state, for the call `call` (`"Simulation.step()"`), or a `RuntimeError` when
    /// another call is using it.
    fn enter(&self, call: &'static str) -> PyResult<MutexGuard<'_, State>> {
        self.state.enter(call)
    }
}

impl State {
    /// Steps `n` times in chunks, the GIL released during each; a refused step (the flock
    /// would not stay finite) raises, and so does Ctrl-C, the flock kept at the last step taken.
    fn step_free(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        let (flock, pool) = (&mut self.flock, self.pool.as_deref());
        stepping::in_chunks(py, pool, n, |k| flock.step_many(k))
    }

    /// Refuses `n` more steps, given to `method` as `argument`, where the step number would
    /// pass the largest one (it would wrap to 0), as `boids run` refuses `--start-step` with
    /// `--steps`.
    fn check_steps(&self, method: &str, argument: &str, n: u64) -> PyResult<()> {
        let now = self.flock.step_count();
        match now.checked_add(n) {
            Some(_) => Ok(()),
            None => Err(PyValueError::new_err(format!(
                "{method}({argument}={n}) would pass the largest step number, {} (the flock is at step {now})",
                u64::MAX
            ))),
        }
    }

    /// The flock of the same parameters started afresh (a change of `dimensions`).
    fn restart(&mut self, layers: ParamsBuilder) -> PyResult<()> {
        let params = layers.build().map_err(errors::params)?;
        self.flock =
            Flock::new(params, self.flock.seed(), self.flock.engine()).map_err(errors::state)?;
        self.layers = layers;
        Ok(())
    }

    fn repr(&self) -> String {
        let p = self.flock.params();
        format!(
            "boids.Simulation(preset={:?}, seed={}, model={}, count={}, dimensions={}, step_count={})",
            self.preset,
            self.flock.seed(),
            p.model.name(),
            self.flock.len(),
            self.flock.dimensions(),
            self.flock.step_count()
        )
    }
}

/// The keywords of `Simulation(...)` that are not parameters.
const NEW_ARGUMENTS: &[&str] = &["preset", "seed", "params", "threads", "engine"];
/// The keywords of `Simulation.load(...)` that are not parameters.
const LOAD_ARGUMENTS: &[&str] = &[
    "path",
    "preset",
    "seed",
    "params",
    "threads",
    "start_step",
    "engine",
];

/// Where a loaded flock's parameters start: the saved ones, or the ones the caller gave.
struct Resumed {
    layers: ParamsBuilder,
    preset: String,
    seed: u64,
    step: u64,
}

/// The saved parameters, seed and step of the state file `path` (its sidecar), or, without a
/// sidecar, `preset` (default `cornell` when only `params` is given) at seed 0 and step 0;
/// refuses a flock whose parameters are neither saved nor given, and a `preset` other than the
/// saved one.
fn saved_or_given(path: &Path, preset: Option<&str>, has_params: bool) -> PyResult<Resumed> {
    let sidecar = sidecar_path(path);
    let (sidecar_name, state_name) = (sidecar.display(), path.display());
    if !sidecar.exists() {
        if preset.is_none() && !has_params {
            return Err(PyValueError::new_err(format!(
                "load({state_name:?}): its parameters are missing: no {sidecar_name} beside it (Simulation.save writes one; boids run --save does not). Give them as for a new simulation: the preset and params the flock ran with (preset=..., params=a dict or TOML file, keywords), with seed=... and start_step=..."
            )));
        }
        let preset = preset.unwrap_or("cornell");
        return Ok(Resumed {
            layers: ParamsBuilder::preset(preset).map_err(errors::params)?,
            preset: preset.to_owned(),
            seed: 0,
            step: 0,
        });
    }
    let text = input::read_text("load", &sidecar, input::CONFIG_LIMIT).map_err(errors::file)?;
    let (saved, layers) =
        resume::read(&text, &sidecar_name.to_string()).map_err(errors::state_file)?;
    if let Some(preset) = preset.filter(|&p| p != saved.preset) {
        return Err(PyValueError::new_err(format!(
            "load({state_name:?}, preset={preset:?}): the flock was saved from preset {:?}, whose parameters {sidecar_name} holds; leave preset out, and change parameters with params= or keywords",
            saved.preset
        )));
    }
    Ok(Resumed {
        layers,
        preset: saved.preset,
        seed: saved.seed,
        step: saved.step,
    })
}

#[pymethods]
impl Simulation {
    /// A new flock of `preset` drawn with `seed`; `params` (a dict or a TOML file's path) and
    /// keyword overrides are layered on top. `threads`: the simulation's own thread count
    /// (`None`: one a core); `engine`: the engine that steps it (`"cpu"`). An unknown key
    /// raises `KeyError`, a bad value `ValueError`.
    #[new]
    #[pyo3(signature = (preset = "cornell", seed = 0, params = None, threads = None, engine = "cpu", **overrides))]
    fn new(
        preset: &str,
        seed: i128,
        params: Option<&Bound<'_, PyAny>>,
        threads: Option<i128>,
        engine: &str,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let seed = arguments::whole("seed", seed, ANY_U64)?;
        let engine = errors::engine(engine)?;
        let layers = layers::build(preset, params, overrides, NEW_ARGUMENTS)?;
        let built = layers.build().map_err(errors::params)?;
        let pool = thread_pool(threads)?;
        let flock = on_pool(pool.as_deref(), || Flock::new(built, seed, engine));
        let flock = flock.map_err(errors::state)?;
        Ok(Self::new_state(State {
            flock,
            layers,
            preset: preset.to_owned(),
            pool,
        }))
    }

    /// The flock saved in the state CSV file `path`, resumed as it was saved: a save by `save`
    /// has its parameters, seed and step beside it (`path + ".params.toml"`), and `params` and
    /// keywords change them (layered on top); `seed` and `start_step` replace the saved ones,
    /// and `preset`, if given, must be the saved one. A state without that file (one of
    /// `boids run --save`) needs its parameters given: `preset` and/or `params`, then keywords,
    /// as for a new simulation; `seed` and `start_step` are then 0 unless given. The file's rows
    /// set `count`.
    #[staticmethod]
    #[pyo3(signature = (path, preset = None, seed = None, params = None, threads = None, start_step = None, engine = "cpu", **overrides))]
    #[allow(clippy::too_many_arguments, reason = "the Python signature's keywords")]
    fn load(
        path: PathBuf,
        preset: Option<&str>,
        seed: Option<i128>,
        params: Option<&Bound<'_, PyAny>>,
        threads: Option<i128>,
        start_step: Option<i128>,
        engine: &str,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let seed = arguments::optional("seed", seed, ANY_U64)?;
        let start_step = arguments::optional("start_step", start_step, ANY_U64)?;
        let engine = errors::engine(engine)?;
        let file = input::open("load", &path).map_err(errors::file)?;
        let saved = saved_or_given(&path, preset, params.is_some())?;
        let layers = layers::on_top(saved.layers, params, overrides, LOAD_ARGUMENTS)?;
        let (seed, start_step) = (seed.unwrap_or(saved.seed), start_step.unwrap_or(saved.step));
        let dimensions = layers.params().dimensions;
        let pool = thread_pool(threads)?;
        let name = path.display().to_string();
        let flock = with_dimensions!(dimensions, D, {
            let loaded = state_csv::read::<D>(std::io::BufReader::new(file), &name)
                .map_err(errors::state_file)?;
            let engine = engine.build::<D>().map_err(|e| errors::state(e.into()))?;
            let start = || loaded.start(layers.clone(), (seed, start_step), engine, &name);
            Flock::from(on_pool(pool.as_deref(), start).map_err(errors::state_file)?)
        });
        Ok(Self::new_state(State {
            flock,
            layers,
            preset: saved.preset,
            pool,
        }))
    }

    /// Advances the flock `n` steps (the GIL is released meanwhile; Ctrl-C stops it, the steps
    /// taken kept). With `force`, a function `force(positions, velocities)` of two (N, D)
    /// arrays in id order that returns an (N, D) float array: each boid's change of velocity
    /// this step (an acceleration times the time step), added after the rules and before the
    /// speed limits, every step.
    #[pyo3(signature = (n = 1, force = None))]
    fn step(&self, py: Python<'_>, n: i128, force: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let n = arguments::whole("n", n, ANY_U64)?;
        let mut state = self.enter("Simulation.step()")?;
        state.check_steps("step", "n", n)?;
        let Some(force) = force else {
            return state.step_free(py, n);
        };
        if !force.is_callable() {
            return Err(PyTypeError::new_err(
                "force must be a function force(positions, velocities) -> (N, D) array",
            ));
        }
        let State { flock, pool, .. } = &mut *state;
        let pool = pool.as_deref();
        on_flock!(flock, sim => forces::step_forced(py, sim, pool, n, force))
    }

    /// Steps taken so far (counting from the start step of a loaded flock).
    #[getter]
    fn step_count(&self) -> PyResult<u64> {
        Ok(self.enter("Simulation.step_count")?.flock.step_count())
    }

    /// Positions, an (N, D) float32 array in id order: a copy (see the module notes).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let state = self.enter("Simulation.positions")?;
        Ok(on_flock!(&state.flock, sim => frames::array2(py, frames::positions(sim))))
    }

    /// Velocities, an (N, D) float32 array in id order: a copy.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let state = self.enter("Simulation.velocities")?;
        Ok(on_flock!(&state.flock, sim => frames::array2(py, frames::velocities(sim))))
    }

    /// Scout groups, an (N,) uint8 array in id order (0 none, 1 biased to +x, 2 to -x).
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let state = self.enter("Simulation.groups")?;
        let (groups, ids) = on_flock!(&state.flock, sim => (sim.groups(), sim.ids()));
        let mut by_id = vec![0; groups.len()];
        for (&g, &id) in groups.iter().zip(ids) {
            by_id[id as usize] = g;
        }
        Ok(PyArray1::from_vec(py, by_id))
    }

    /// Every parameter in force, a dict (a copy: change them with `set`).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.enter("Simulation.params")?;
        let params = state.flock.params();
        let dict = PyDict::new(py);
        for info in boids_core::PARAMS {
            if let Some(value) = params.get(info.name) {
                dict.set_item(info.name, frames::value(py, &value)?)?;
            }
        }
        Ok(dict)
    }

    /// The engine that steps the flock: `"cpu"` or `"gpu"`. Setting it moves the flock to
    /// that engine from the step it is at (after the GPU failed: `sim.engine = "cpu"`).
    #[getter]
    fn engine(&self) -> PyResult<&'static str> {
        Ok(self.enter("Simulation.engine")?.flock.engine().name())
    }

    #[setter]
    fn set_engine(&self, name: &str) -> PyResult<()> {
        let kind = errors::engine(name)?;
        let mut state = self.enter("Simulation.engine = ...")?;
        state.flock.use_engine(kind).map_err(errors::state)
    }

    /// 2 or 3.
    #[getter]
    fn dimensions(&self) -> PyResult<usize> {
        Ok(self.enter("Simulation.dimensions")?.flock.dimensions())
    }

    /// The seed of the random streams.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.enter("Simulation.seed")?.flock.seed())
    }

    /// The preset the parameters started from.
    #[getter]
    fn preset(&self) -> PyResult<String> {
        Ok(self.enter("Simulation.preset")?.preset.clone())
    }

    /// Number of boids.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.enter("len(Simulation)")?.flock.len())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(self.enter("repr(Simulation)")?.repr())
    }

    /// Changes parameters while the flock runs, as the viewer's sliders do: the flock keeps its
    /// state (boids are added or removed to match `count`). A change of `dimensions` starts a
    /// fresh flock of the new dimension.
    #[pyo3(signature = (**params))]
    fn set(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let mut state = self.enter("Simulation.set()")?;
        let Some(params) = params else {
            return Ok(());
        };
        let layers = layers::apply(state.layers.clone(), params, |key, value| {
            format!("set({key}={value})")
        })?;
        let built = layers.build().map_err(errors::params)?;
        if built.dimensions != state.flock.dimensions() {
            return state.restart(layers);
        }
        state.flock.set_params(built).map_err(errors::state)?;
        state.layers = layers;
        Ok(())
    }

    /// The order metrics of the flock now, a dict: `step`, then the columns of `boids run
    /// --metrics` (NaN where undefined).
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.enter("Simulation.metrics()")?;
        let values = on_flock!(&state.flock, sim => Metrics::of(sim).values());
        let dict = PyDict::new(py);
        dict.set_item("step", state.flock.step_count())?;
        for (name, value) in METRIC_COLUMNS.iter().zip(values) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// Runs `steps` steps and returns the metrics every `every` steps (the current state
    /// first) as a DataFrame, the rows of `boids run --metrics`. With `trajectory=True`,
    /// returns `(metrics, positions, velocities)`, the arrays of shape (frames, N, D) at the
    /// same steps. A result over [`recording::LIMIT`] is refused before the first step.
    #[pyo3(signature = (steps, every = 1, trajectory = false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        steps: i128,
        every: i128,
        trajectory: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let steps = arguments::whole("steps", steps, ANY_U64)?;
        let every = arguments::whole("every", every, 1..=u64::MAX)?;
        let mut state = self.enter("Simulation.run()")?;
        state.check_steps("run", "steps", steps)?;
        let State { flock, pool, .. } = &mut *state;
        let pool = pool.as_deref();
        on_flock!(flock, sim => recording::run(py, sim, pool, steps, every, trajectory))
    }

    /// Writes the flock to `path` in the state CSV format of `boids run --save` (the same
    /// bytes for the same flock), and beside it `path + ".params.toml"`: its parameters (a
    /// `boids run --config` file), preset, seed and step, which `load` resumes it with. Both are
    /// written as the command writes a file: a link is followed and the file it names replaced,
    /// a read-only file, a directory or a device is refused, and a failure leaves both files as
    /// they were.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let state = self.enter("Simulation.save()")?;
        let saved = Saved {
            preset: state.preset.clone(),
            seed: state.flock.seed(),
            step: state.flock.step_count(),
        };
        let sidecar_text = saved.sidecar(&path, state.flock.params());
        let create = |path: &Path| Target::regular_file("save", path).and_then(|t| t.create());
        let mut file = create(&path).map_err(errors::file)?;
        on_flock!(&state.flock, sim => state_csv::write(&mut file, &sim.state()))
            .map_err(errors::file)?;
        let mut sidecar = create(&sidecar_path(&path)).map_err(errors::file)?;
        sidecar
            .write_all(sidecar_text.as_bytes())
            .map_err(errors::file)?;
        let ready = [file.finish(), sidecar.finish()];
        let ready = ready.into_iter().collect::<Result<Vec<_>, _>>();
        output::commit(ready.map_err(errors::file)?).map_err(errors::file)
    }

    /// An inline animation of the next `steps` steps for a notebook (an IPython HTML object,
    /// or the HTML text without IPython): a GIF made by the renderer from a copy of the flock,
    /// so the simulation itself does not move (nor wait: the copy is taken first). `every`:
    /// steps between frames; `size`: "WxH".
    #[pyo3(signature = (steps = 200, every = 2, size = "480x360", fps = 30))]
    fn show<'py>(
        &self,
        py: Python<'py>,
        steps: i128,
        every: i128,
        size: &str,
        fps: i128,
    ) -> PyResult<Bound<'py, PyAny>> {
        let steps = arguments::whole("steps", steps, ANY_U64)?;
        let every = arguments::whole("every", every, 1..=u64::MAX)?;
        let fps = arguments::whole("fps", fps, 1..=100)?;
        let (flock, pool) = {
            let state = self.enter("Simulation.show()")?;
            state.check_steps("show", "steps", steps)?;
            (state.flock.clone(), state.pool.clone())
        };
        let html = viewer::animation_html(py, flock, pool.as_deref(), steps, every, size, fps)?;
        viewer::display_html(py, html)
    }

    /// The flock now as a picture and a line of facts, for notebooks.
    fn _repr_html_(&self) -> PyResult<String> {
        let state = self.enter("Simulation._repr_html_()")?;
        viewer::still_html(&state.flock, &state.repr())
    }
}

/// Opens the live viewer on a copy of `sim` (its flock now, its parameters and seed) in a
/// thread of its own, and returns the URL to open. The viewer runs until the interpreter
/// exits; `port=0` picks a free port. `listen` other than this machine lets anyone who can
/// reach it watch and change the simulation. `max_count`: the most boids the page may ask
/// for, at least the flock's own.
#[pyfunction]
#[pyo3(signature = (sim, port = 8000, listen = "127.0.0.1", speed = 60.0, paused = false, max_count = 200_000))]
pub fn serve(
    py: Python<'_>,
    sim: &Bound<'_, Simulation>,
    port: i128,
    listen: &str,
    speed: f64,
    paused: bool,
    max_count: i128,
) -> PyResult<String> {
    let port = arguments::whole("port", port, 0..=u16::MAX)?;
    let max_count = arguments::whole("max_count", max_count, 1..=MAX_COUNT)?;
    let (flock, layers, preset) = {
        let state = sim.get().enter("boids.serve()")?;
        (
            state.flock.clone(),
            state.layers.clone(),
            state.preset.clone(),
        )
    };
    let options = ViewerOptions {
        port,
        listen,
        speed,
        paused,
        max_count,
    };
    viewer::serve(py, flock, layers, preset, options)
}
