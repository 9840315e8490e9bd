//! `Simulation.run`: steps the flock as `boids run --metrics` does and returns the metrics at
//! steps `0, every, ...` up to `steps` as a DataFrame, and with `trajectory=True` the positions
//! and velocities at the same steps as (frames, N, D) arrays.
//!
//! All of it is held in memory until the call returns, so a call whose result is estimated
//! above [`LIMIT`] is refused before its first step, with the estimate and the limit, where it
//! would once run for hours and then abort the interpreter out of memory. What it will hold is
//! reserved in one go before the first step too, so a machine that cannot hold it says so
//! (`MemoryError`) at once. (`boids run --trajectory` streams its frames to a file instead,
//! and has no such limit.) The steps between records are taken in chunks that Ctrl-C stops
//! ([`stepping`]): an interrupted run keeps its steps and returns nothing.

use boids_core::{Dim, METRIC_COLUMNS, Metrics, Simulation as Core};
use boids_render::Scene;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::ThreadPool;

use crate::frames::{self, Columns};
use crate::pool::on_pool;
use crate::{errors, stepping};

const GIB: u64 = 1 << 30;

/// The most memory one `run` may hold for its result: far more than a study's run needs (a
/// frame of 100,000 boids in 2D is 1.6 MB, so 10,000 of them fit), and little enough that
/// a mistyped `every` is refused rather than swapping the machine to death.
pub const LIMIT: u64 = 16 * GIB;

/// What a cell of the metrics table costs while the frame is built: the number, the Python
/// object and its list slot, and the DataFrame's own copy.
const TABLE_CELL_BYTES: u64 = 48;

/// What a run records: the steps and metrics of each frame, and the frames' positions and
/// velocities, flat (frame `f`, boid `i`, axis `a` at `(f * N + i) * D + a`), empty without a
/// trajectory.
struct Recording<const D: usize> {
    steps: Vec<u64>,
    metrics: Vec<[f64; METRIC_COLUMNS.len()]>,
    positions: Vec<f32>,
    velocities: Vec<f32>,
}

impl<const D: usize> Recording<D>
where
    Dim<D>: Scene<D>,
{
    /// Room for `frames` frames of `n` boids, reserved now; or a `MemoryError` saying what the
    /// call (`call`) could not have.
    fn reserve(call: &str, frames: usize, n: usize, trajectory: bool) -> PyResult<Self> {
        let coordinates = if trajectory { frames * n * D } else { 0 };
        let mut out = Self {
            steps: Vec::new(),
            metrics: Vec::new(),
            positions: Vec::new(),
            velocities: Vec::new(),
        };
        let reserved = out.steps.try_reserve_exact(frames).is_ok()
            && out.metrics.try_reserve_exact(frames).is_ok()
            && out.positions.try_reserve_exact(coordinates).is_ok()
            && out.velocities.try_reserve_exact(coordinates).is_ok();
        if !reserved {
            return Err(PyMemoryError::new_err(format!(
                "{call}: this machine cannot hold its result ({frames} frames of {n} boids): ask for fewer frames (a larger every, fewer steps) or run it in parts"
            )));
        }
        Ok(out)
    }

    /// The frame of `sim` now.
    fn record(&mut self, sim: &Core<D>, trajectory: bool) {
        self.steps.push(sim.step_count());
        self.metrics.push(Metrics::of(sim).values());
        if trajectory {
            self.positions
                .extend(frames::positions(sim).into_iter().flatten());
            self.velocities
                .extend(frames::velocities(sim).into_iter().flatten());
        }
    }
}

/// The frames of a run of `steps` steps recording every `every`, and the bytes its result
/// holds for `n` boids in `d` dimensions (an estimate, exact for the arrays).
fn estimate(steps: u64, every: u64, n: usize, d: usize, trajectory: bool) -> (u128, u128) {
    let frames = u128::from(steps / every) + 1;
    let table = (METRIC_COLUMNS.len() as u128 + 1) * u128::from(TABLE_CELL_BYTES);
    let arrays = if trajectory {
        2 * (n as u128) * (d as u128) * 4
    } else {
        0
    };
    (frames, frames * (table + arrays))
}

/// Runs `sim` `steps` steps as `boids run --metrics` does, recording every `every` (not 0), and
/// returns the DataFrame (and the trajectory): the work of `Simulation.run`.
pub fn run<'py, const D: usize>(
    py: Python<'py>,
    sim: &mut Core<D>,
    pool: Option<&ThreadPool>,
    steps: u64,
    every: u64,
    trajectory: bool,
) -> PyResult<Bound<'py, PyAny>>
where
    Dim<D>: Scene<D>,
{
    let n = sim.len();
    let call = format!(
        "run(steps={steps}, every={every}{})",
        if trajectory { ", trajectory=True" } else { "" }
    );
    let (frames, bytes) = estimate(steps, every, n, D, trajectory);
    let (what, file) = if trajectory {
        (
            format!("{frames} frames (the metrics, positions and velocities of {n} boids)"),
            "--trajectory FILE.npz",
        )
    } else {
        (format!("{frames} rows of metrics"), "--metrics FILE.csv")
    };
    let fits = usize::try_from(frames).ok();
    let Some(count) = fits.filter(|_| bytes <= u128::from(LIMIT)) else {
        return Err(PyValueError::new_err(format!(
            "{call} would hold {what} in memory: about {bytes} bytes ({:.1} GiB), over the limit of {LIMIT} bytes ({} GiB) for one call; ask for fewer frames (a larger every, fewer steps), run it in parts (each call returns its own frames), or have `boids run {file}` write them to a file as they come",
            bytes as f64 / GIB as f64,
            LIMIT / GIB
        )));
    };
    let mut out = Recording::<D>::reserve(&call, count, n, trajectory)?;
    let mut k = 0;
    loop {
        if k % every == 0 {
            py.detach(|| on_pool(pool, || errors::guarded(|| out.record(sim, trajectory))))?;
        }
        if k == steps {
            break;
        }
        // Up to the next record in one go (in chunks; batches on the GPU engine).
        let next = (k + every - k % every).min(steps);
        stepping::in_chunks(py, pool, next - k, |s| sim.step_many(s))?;
        k = next;
    }
    table(py, out, n, trajectory)
}

/// The DataFrame of `recording` (and, with `trajectory`, its arrays of `n` boids).
fn table<'py, const D: usize>(
    py: Python<'py>,
    recording: Recording<D>,
    n: usize,
    trajectory: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let count = recording.steps.len();
    let steps = recording.steps.iter().map(|s| frames::object(py, s));
    let mut columns: Columns<'py> = vec![("step".to_owned(), steps.collect::<PyResult<_>>()?)];
    for (c, name) in METRIC_COLUMNS.iter().enumerate() {
        let values = recording.metrics.iter().map(|m| frames::object(py, m[c]));
        columns.push(((*name).to_owned(), values.collect::<PyResult<_>>()?));
    }
    let table = frames::data_frame(py, columns)?;
    if !trajectory {
        return Ok(table);
    }
    let positions = frames::array3::<D>(py, recording.positions, count, n);
    let velocities = frames::array3::<D>(py, recording.velocities, count, n);
    Ok(PyTuple::new(py, [table, positions.into_any(), velocities.into_any()])?.into_any())
}
