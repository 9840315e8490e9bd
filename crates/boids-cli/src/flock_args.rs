//! The flags that choose a flock, shared by every command that runs one: preset, then config
//! file, then `--set` and `--count`, merged into one validated `Params`; and the engine that
//! steps it.

use std::path::PathBuf;

use anyhow::Result;
use boids_core::params::Raw;
use boids_core::{DEFAULT_PRESET, EngineKind, Params, ParamsBuilder, Source};
use boids_io::input;
use clap::Args;

use crate::numbers::whole;

/// Model selection flags.
#[derive(Args, Clone, Debug)]
pub struct FlockArgs {
    /// Model preset (see `boids presets`).
    #[arg(long, default_value = DEFAULT_PRESET)]
    pub preset: String,
    /// TOML file of parameters applied over the preset (see `boids params --toml`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Set one parameter, applied last (repeatable), e.g. `--set visual_range=50`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Number of boids (same as `--set count=N`).
    #[arg(long, value_name = "N")]
    pub count: Option<i64>,
    /// Seed of the random streams: the same seed and parameters give the same run.
    #[arg(long, default_value_t = 0, value_parser = whole(0..=u64::MAX))]
    pub seed: u64,
    /// Engine that steps the flock's grid path (`cpu`: every core, bit-identical on any
    /// thread count).
    #[arg(long, value_name = "NAME", default_value_t = EngineKind::Cpu)]
    pub engine: EngineKind,
}

impl FlockArgs {
    /// The layers merged but not yet validated, so a caller can add its own (an init file).
    pub fn builder(&self) -> Result<ParamsBuilder> {
        let mut builder = ParamsBuilder::preset(&self.preset)?;
        if let Some(path) = &self.config {
            let text = input::read_text("--config", path, input::CONFIG_LIMIT)?;
            builder = builder.apply_toml(&text, &path.display().to_string())?;
        }
        for assignment in &self.set {
            builder = builder
                .apply_assignment(assignment, Source::Flag(format!("--set {assignment}")))?;
        }
        if let Some(count) = self.count {
            let source = Source::Flag(format!("--count {count}"));
            builder = builder.apply("count", &Raw::Integer(count), source)?;
        }
        Ok(builder)
    }

    /// The validated parameters.
    pub fn params(&self) -> Result<Params> {
        Ok(self.builder()?.build()?)
    }
}
