//! `boids run`: a headless run with optional state, metrics and trajectory outputs.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use boids_core::{
    Dim, Dimension, METRIC_COLUMNS, Metrics, ParamsBuilder, Simulation, with_dimensions,
};
use boids_io::events::EventLog;
use boids_io::input::{self, EVENTS_LIMIT, read_text};
use boids_io::output::{self, Content, Target};
use boids_io::state_csv;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::changes::{Changes, NoChanges};
use crate::flock_args::FlockArgs;
use crate::numbers::whole;
use crate::trajectory::{RunInfo, TrajectoryTargets, TrajectoryWriter};

/// Flags of `boids run`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct RunArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// Number of steps to run.
    #[arg(long, value_name = "K", value_parser = whole(0..=u64::MAX))]
    pub steps: u64,
    /// Start from this state file (CSV: columns x, y, vx, vy, or x, y, z, vx, vy, vz with
    /// dimensions=3, and optionally group, bias, resting and kind) instead of a random flock;
    /// its predator rows, if any, set predator_count.
    #[arg(long, value_name = "STATE.csv")]
    pub init: Option<PathBuf>,
    /// Step number the run starts at (to resume a saved run where it stopped).
    #[arg(long, value_name = "STEP", default_value_t = 0, value_parser = whole(0..=u64::MAX))]
    pub start_step: u64,
    /// Write the final state here (CSV, rows in boid-id order = the --init file's row order;
    /// `-` for standard output).
    #[arg(long, value_name = "STATE.csv")]
    pub save: Option<PathBuf>,
    /// Write order metrics every E steps here (CSV; `-` for standard output).
    #[arg(long, value_name = "METRICS.csv")]
    pub metrics: Option<PathBuf>,
    /// Record positions and velocities every E steps here (.npz or .csv; `-` writes CSV to
    /// standard output).
    #[arg(long, value_name = "FILE")]
    pub trajectory: Option<PathBuf>,
    /// Interval in steps between metrics rows and trajectory frames.
    #[arg(long, value_name = "E", default_value_t = 1, value_parser = whole(1..=u64::MAX))]
    pub every: u64,
    /// Replay an event log exported by the viewer (`boids serve`): start from its last
    /// start/reset event and apply each parameter change at its step; `--steps` counts from that
    /// flock's step 0. Replaces the flags that choose the flock.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = ["preset", "config", "set", "count", "seed", "init", "start_step"])]
    pub events: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// The outputs of a run, resolved and checked against its inputs and each other before it
/// starts.
struct RunOutputs {
    save: Option<Target>,
    metrics: Option<Target>,
    trajectory: Option<TrajectoryTargets>,
}

impl RunOutputs {
    fn plan(args: &RunArgs) -> Result<Self> {
        let text = |flag: &str, path: &Option<PathBuf>| {
            path.as_deref()
                .map(|p| Target::new(flag, p, Content::Text))
                .transpose()
        };
        let outputs = Self {
            save: text("--save", &args.save)?,
            metrics: text("--metrics", &args.metrics)?,
            trajectory: args
                .trajectory
                .as_deref()
                .map(TrajectoryTargets::new)
                .transpose()?,
        };
        let inputs: Vec<(&str, &Path)> = [
            ("--init", &args.init),
            ("--config", &args.flock.config),
            ("--events", &args.events),
        ]
        .into_iter()
        .filter_map(|(flag, path)| path.as_deref().map(|p| (flag, p)))
        .collect();
        output::check(&inputs, &outputs.all())?;
        Ok(outputs)
    }

    fn all(&self) -> Vec<&Target> {
        let trajectory = self
            .trajectory
            .iter()
            .flat_map(|t| std::iter::once(&t.data).chain(&t.sidecar));
        self.save
            .iter()
            .chain(&self.metrics)
            .chain(trajectory)
            .collect()
    }

    /// Whether some output goes to standard output (the summary then goes to stderr).
    fn uses_stdout(&self) -> bool {
        self.all().iter().any(|t| t.is_stdout())
    }
}

/// Runs `boids run`: the flock of the flags (or `--init`) in the dimensions they choose, or an
/// event log's replay.
pub fn run(args: &RunArgs, command_line: String) -> Result<()> {
    crate::set_threads(args.threads)?;
    if args.start_step.checked_add(args.steps).is_none() {
        bail!(
            "--start-step {} with --steps {} would pass the largest step number, {}",
            args.start_step,
            args.steps,
            u64::MAX
        );
    }
    let outputs = RunOutputs::plan(args)?;
    if let Some(path) = &args.events {
        let text = read_text("--events", path, EVENTS_LIMIT)?;
        let origin = path.display().to_string();
        let log = EventLog::parse(&text, &origin)?;
        return with_dimensions!(log.dimensions(&origin)?, D, {
            let (mut sim, replay) = log.replay::<D>(&origin)?;
            crate::engines::move_to(&mut sim, args.flock.engine)?;
            execute(args, &outputs, sim, replay, command_line)
        });
    }
    let builder = args.flock.builder()?;
    with_dimensions!(builder.params().dimensions, D, {
        let sim = build_simulation::<D>(args, builder)?;
        execute(args, &outputs, sim, NoChanges, command_line)
    })
}

/// Runs `sim` for `--steps` with `changes`, writing the outputs and the summary.
fn execute<const D: usize>(
    args: &RunArgs,
    outputs: &RunOutputs,
    mut sim: Simulation<D>,
    mut changes: impl Changes<D>,
    command_line: String,
) -> Result<()>
where
    Dim<D>: Dimension<D>,
{
    let frames = args.steps / args.every + 1;
    let info = RunInfo {
        params: sim.params(),
        seed: sim.seed(),
        command: command_line,
        replays_events: changes.replays_events(),
    };
    let mut trajectory = match &outputs.trajectory {
        Some(targets) => Some(TrajectoryWriter::create(
            targets,
            frames,
            &info,
            &sim.state(),
        )?),
        None => None,
    };
    let mut metrics_file = match &outputs.metrics {
        Some(target) => {
            let mut file = target.create()?;
            writeln!(file, "step,{}", METRIC_COLUMNS.join(","))?;
            Some(file)
        }
        None => None,
    };
    let save_file = outputs.save.as_ref().map(Target::create).transpose()?;

    let progress = progress_bar(args.steps, sim.len());
    // The metrics of the current step, once measured for the file, so the summary at the end
    // does not measure the last step again.
    let mut measured = None;
    let writes = metrics_file.is_some() || trajectory.is_some();
    let mut k = 0;
    loop {
        changes.apply_due(&mut sim)?;
        if k % args.every == 0 {
            if let Some(file) = &mut metrics_file {
                let m = Metrics::of(&sim);
                let values: Vec<String> = m.values().iter().map(f64::to_string).collect();
                writeln!(file, "{},{}", sim.step_count(), values.join(","))?;
                measured = Some(m);
            }
            if let Some(t) = &mut trajectory {
                t.write_frame(sim.step_count(), &sim.state())?;
            }
        }
        if k == args.steps {
            break;
        }
        // Up to the next output, change or progress tick in one go: an engine on a device
        // keeps the flock there in between.
        let output = if writes {
            (k / args.every + 1) * args.every
        } else {
            args.steps
        };
        let change = k.saturating_add(changes.steps_before_due(sim.step_count()));
        let tick = if progress.is_hidden() {
            u64::MAX
        } else {
            k + (args.steps / 100).max(1)
        };
        let next = output.min(change).min(tick).min(args.steps);
        // On a thread of the pool, the step starts its parallel phases from inside it
        // (see `boids_core::in_pool`).
        boids_core::in_pool(|| sim.step_many(next - k))?;
        progress.inc(next - k);
        measured = None;
        k = next;
    }
    progress.finish_and_clear();
    if let Some(left) = Some(changes.remaining()).filter(|&n| n > 0) {
        eprintln!(
            "note: {left} later event(s) of the log lie beyond step {} and were not applied",
            sim.step_count()
        );
    }

    let mut ready = Vec::new();
    if let Some(mut file) = save_file {
        state_csv::write(&mut file, &sim.state())?;
        ready.push(file.finish()?);
    }
    if let Some(file) = metrics_file {
        ready.push(file.finish()?);
    }
    if let Some(t) = trajectory {
        ready.extend(t.finish()?);
    }
    output::commit(ready)?;

    let m = measured.unwrap_or_else(|| Metrics::of(&sim));
    let summary = summary(args, &sim, &m);
    if outputs.uses_stdout() {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    Ok(())
}

/// What the run reached: its step, metrics, and how to resume it.
fn summary<const D: usize>(args: &RunArgs, sim: &Simulation<D>, m: &Metrics) -> String
where
    Dim<D>: Dimension<D>,
{
    let mut text = format!(
        "step {} of {} boids ({}, seed {})\n",
        sim.step_count(),
        sim.len(),
        match &args.events {
            Some(path) => format!("events {}", path.display()),
            None => format!("{} preset", args.flock.preset),
        },
        sim.seed()
    );
    for (name, value) in METRIC_COLUMNS.iter().zip(m.values()) {
        text += &format!("  {name:<27} {value:.6}\n");
    }
    if let Some(path) = args.save.as_ref().filter(|p| p.as_path() != Path::new("-")) {
        text += &format!(
            "saved state to {} (resume with --init {} --start-step {})\n",
            path.display(),
            path.display(),
            sim.step_count()
        );
    }
    text
}

/// The flock of the flags' parameters `builder`: a random one, or `--init`'s state (whose
/// numbers of boids and predators set `count` and `predator_count`) at `--start-step`.
fn build_simulation<const D: usize>(args: &RunArgs, builder: ParamsBuilder) -> Result<Simulation<D>>
where
    Dim<D>: Dimension<D>,
{
    let (seed, engine) = (args.flock.seed, args.flock.engine.build()?);
    let Some(path) = &args.init else {
        return Ok(Simulation::<D>::with_engine(
            builder.build()?,
            seed,
            engine,
        )?);
    };
    let name = format!("{INIT} {}", path.display());
    let loaded = state_csv::read::<D>(input::open(INIT, path)?, &name)?;
    let file = path.display().to_string();
    Ok(loaded.start(builder, (seed, args.start_step), engine, &file)?)
}

/// The flag that names a state file to start from.
const INIT: &str = "--init";

/// A progress bar on stderr for runs longer than a moment; hidden when stderr is not a terminal.
pub fn progress_bar(steps: u64, boids: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() || steps.saturating_mul(boids as u64) < 2_000_000 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(steps);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} steps ({per_sec}, eta {eta})",
        )
        .expect("valid progress template")
        .progress_chars("=> "),
    );
    bar
}
