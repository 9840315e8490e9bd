//! Many steps that Ctrl-C stops: `step(n)` and `run(steps)` take their steps in chunks of
//! about [`CHUNK`] of work each, the GIL released during a chunk and taken between chunks to
//! let Python handle a signal. A `KeyboardInterrupt` (or any exception a signal handler raises)
//! then arrives within a chunk, and the flock stays at the last step taken: the steps done are
//! kept and the step count says how many. Chunks change nothing else: `n` steps in chunks are
//! the same as `n` steps in one go (`Simulation::step_many`), bit for bit.

use std::time::{Duration, Instant};

use boids_core::StateError;
use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::errors;
use crate::pool::on_pool;

/// The work of one chunk: long enough that taking the GIL between chunks costs nothing
/// measurable, short enough that Ctrl-C feels immediate. It also keeps a GPU engine's batches
/// (each a copy of the flock to the device and back) long.
const CHUNK: Duration = Duration::from_millis(100);

/// Takes `n` steps with `steps(k)` (`k` steps at a time, on `pool`, the GIL released), checking
/// for a signal between chunks. A refused step raises as [`errors::state`] says; a signal
/// handler's exception is raised as it is.
pub fn in_chunks(
    py: Python<'_>,
    pool: Option<&ThreadPool>,
    n: u64,
    mut steps: impl FnMut(u64) -> Result<(), StateError> + Send,
) -> PyResult<()> {
    let (mut left, mut chunk) = (n, 1);
    while left > 0 {
        let k = chunk.min(left);
        let started = Instant::now();
        py.detach(|| on_pool(pool, || errors::guarded(|| steps(k))))?
            .map_err(errors::state)?;
        left -= k;
        chunk = next_chunk(k, started.elapsed());
        py.check_signals()?;
    }
    Ok(())
}

/// The steps of the next chunk after `k` steps took `took`: twice as many while a chunk is
/// short of [`CHUNK`], half as many (at least one) when it takes over twice that.
fn next_chunk(k: u64, took: Duration) -> u64 {
    if took < CHUNK {
        k.saturating_mul(2)
    } else if took > 2 * CHUNK {
        (k / 2).max(1)
    } else {
        k
    }
}
