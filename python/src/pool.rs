//! The threads a simulation's work runs on: a pool of its own when `threads` is given, or the
//! global pool (one thread a core). The `Simulation` class and the viewer's animation both run
//! their steps here, so this is a module of its own that both use.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::arguments;

/// Most threads a simulation may be given.
const MAX_THREADS: usize = 1024;

/// Runs `work` on a thread of `pool`, or of the global pool (all cores) without one, so the
/// steps it runs start their parallel work from inside the pool ([`boids_core::in_pool`]).
pub fn on_pool<T: Send>(pool: Option<&ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(pool) => pool.install(work),
        None => boids_core::in_pool(work),
    }
}

/// A thread pool of `threads` threads, 1 to [`MAX_THREADS`] (`None`: the global pool, one
/// thread a core).
pub fn thread_pool(threads: Option<i128>) -> PyResult<Option<Arc<ThreadPool>>> {
    let Some(threads) = arguments::optional("threads", threads, 1..=MAX_THREADS)? else {
        return Ok(None);
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map(|pool| Some(Arc::new(pool)))
        .map_err(|e| PyValueError::new_err(format!("threads = {threads}: {e}")))
}
