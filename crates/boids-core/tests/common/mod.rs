//! Helpers shared by the core's integration tests.

use boids_core::{Params, ParamsBuilder, Source};

/// A preset's parameters with `key=value` assignments applied, as `--set` would.
pub fn params(preset: &str, sets: &[&str]) -> Params {
    sets.iter()
        .fold(ParamsBuilder::preset(preset).unwrap(), |b, s| {
            b.apply_assignment(s, Source::Flag(s.to_string())).unwrap()
        })
        .build()
        .unwrap()
}

/// `run` on a thread pool of `threads` threads.
#[allow(
    dead_code,
    reason = "each test file compiles this module; some run on one pool"
)]
pub fn on_threads<T: Send>(threads: usize, run: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(run)
}
