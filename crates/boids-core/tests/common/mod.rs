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
