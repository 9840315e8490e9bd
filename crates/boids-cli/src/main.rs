//! The `boids` command: a thin front end over `boids-core`. Flags become one validated `Params`
//! before anything runs; every error is printed as `error: ...` with exit code 2.

mod bench;
mod bench_child;
mod changes;
mod compare;
mod engines;
mod experiment;
mod flock_args;
mod info;
mod interrupt;
mod numbers;
mod plot;
mod render;
mod run;
mod scaling;
mod serve;
mod sweep;
mod trajectory;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// Craig Reynolds' boids: flocking simulation, faithful to the classic models.
#[derive(Parser, Debug)]
#[command(name = "boids", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Watch and steer a live flock in the browser (the default with no command).
    Serve(serve::ServeArgs),
    /// Run a flock headless; write its final state, metrics and trajectory.
    Run(run::RunArgs),
    /// List the model presets.
    Presets(info::PresetsArgs),
    /// Print every parameter of a preset (after --config and --set) with unit and meaning.
    Params(info::ParamsArgs),
    /// Render a flock to a PNG (last frame), looping GIF or MP4 (by extension), with overlays.
    Render(render::RenderArgs),
    /// Time the step on workload W3 (torus sized for K neighbours): ms per step, stages, memory.
    Bench(bench::BenchArgs),
    /// Run a published experiment (couzin-accuracy, couzin-conflict, predator, scouts,
    /// vicsek): CSV + PNG.
    Experiment(experiment::ExperimentArgs),
    /// Run a parameter grid in parallel: CSV of time-averaged metrics, heatmap for two keys.
    Sweep(sweep::SweepArgs),
    /// Say what this build has: its engines, and the GPU adapter it finds (or why none).
    Info,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    engines::install();
    interrupt::remove_outputs_on_signal();
    let command_line = std::env::args().collect::<Vec<_>>().join(" ");
    let result = match cli.command {
        Some(Command::Serve(args)) => serve::serve(&args),
        Some(Command::Run(args)) => run::run(&args, command_line),
        Some(Command::Presets(args)) => {
            info::presets(&args);
            Ok(())
        }
        Some(Command::Params(args)) => info::params(&args),
        Some(Command::Render(args)) => render::render(&args),
        Some(Command::Bench(args)) => bench::bench(&args),
        Some(Command::Experiment(args)) => experiment::run(&args),
        Some(Command::Sweep(args)) => sweep::run(&args),
        Some(Command::Info) => engines::info(),
        None => default_serve(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// With no command: the live viewer with its defaults.
fn default_serve() -> Result<()> {
    let cli = Cli::try_parse_from(["boids", "serve"]).context("default flags")?;
    let Some(Command::Serve(args)) = cli.command else {
        unreachable!("parsed as serve")
    };
    serve::serve(&args)
}

/// Sets the size of the global thread pool (once, before any parallel work).
pub fn set_threads(threads: Option<u16>) -> Result<()> {
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(t))
            .build_global()
            .context("cannot configure the thread pool")?;
    }
    Ok(())
}
