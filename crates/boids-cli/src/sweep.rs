//! `boids sweep`: a grid of runs over varied parameters, in parallel across cores; a tidy CSV of
//! time-averaged metrics per run, and a plot beside it (a heatmap for two varied keys, a curve
//! for one numeric key).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use boids_core::params::Value;
use boids_core::{EngineKind, METRIC_COLUMNS};
use boids_io::output;
use boids_lab::experiments::{self, Figure, MAX_REPLICATES, Mode, Panel, Series};
use boids_lab::sweep::{self, Axis};
use clap::Args;

use crate::experiment::{TableTargets, progress_bar};
use crate::flock_args::FlockArgs;
use crate::numbers::whole;
use crate::plot;

/// Flags of `boids sweep`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct SweepArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// A parameter to vary: KEY=A:B:STEPS (STEPS values from A to B) or KEY=V1,V2,...
    /// (repeatable; the grid is the product).
    #[arg(long = "vary", value_name = "KEY=A:B:STEPS", required = true)]
    pub vary: Vec<String>,
    /// Runs per grid point; replicate r uses seed --seed + r.
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPLICATES)))]
    pub replicates: u32,
    /// Steps per run.
    #[arg(long, value_name = "K", value_parser = whole(0..=u64::MAX))]
    pub steps: u64,
    /// Measure the metrics every E steps.
    #[arg(long, value_name = "E", default_value_t = 10, value_parser = whole(1..=u64::MAX))]
    pub every: u64,
    /// First step of the time averages [default: half the steps].
    #[arg(long, value_name = "STEP", value_parser = whole(0..=u64::MAX))]
    pub burn_in: Option<u64>,
    /// CSV file of results, one row per run; the plot goes beside it as FILE.png
    /// [default: sweep.csv].
    #[arg(long, value_name = "FILE.csv")]
    pub out: Option<PathBuf>,
    /// Metric of the plot (one of the metric columns).
    #[arg(long, value_name = "NAME", default_value = "polarization")]
    pub metric: String,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// Runs `boids sweep`.
pub fn run(args: &SweepArgs) -> Result<()> {
    if args.flock.engine != EngineKind::Cpu {
        bail!(
            "--engine {} is not run by sweep: its runs go side by side on the CPU's cores, each on the cpu engine (time one point on the {} engine with `boids run --engine {}`)",
            args.flock.engine,
            args.flock.engine,
            args.flock.engine
        );
    }
    let burn_in = args.burn_in.unwrap_or(args.steps / 2);
    if burn_in > args.steps {
        bail!(
            "--burn-in {burn_in} is not allowed: allowed range is [0, --steps {}]",
            args.steps
        );
    }
    let Some(metric) = METRIC_COLUMNS.iter().position(|m| *m == args.metric) else {
        bail!(
            "--metric {} is not allowed: valid metrics: {}",
            args.metric,
            METRIC_COLUMNS.join(", ")
        );
    };
    let axes = args
        .vary
        .iter()
        .map(|spec| Axis::parse(spec))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.key == axis.key) {
            bail!("--vary names `{}` twice", axis.key);
        }
    }
    crate::set_threads(args.threads)?;
    let runs = sweep::plan(
        &args.flock.builder()?,
        &axes,
        args.replicates,
        args.flock.seed,
    )?;
    let csv = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("sweep.csv"));
    let inputs: Vec<(&str, &std::path::Path)> = args
        .flock
        .config
        .iter()
        .map(|p| ("--config", p.as_path()))
        .collect();
    let targets = TableTargets::new(&csv, &inputs)?;

    let start = Instant::now();
    let progress = progress_bar(runs.len() as u64);
    let summaries = experiments::par_map(&runs, |_, run| {
        let summary = sweep::time_averaged(run, args.steps, args.every, burn_in);
        progress.inc(1);
        summary
    });
    progress.finish_and_clear();

    let mut file = targets.csv.create()?;
    writeln!(file, "{}", sweep::columns(&axes).join(","))?;
    for (index, (run, summary)) in runs.iter().zip(&summaries).enumerate() {
        let point: Vec<String> = run.point.iter().map(plain).collect();
        let values: Vec<String> = summary.averages.iter().map(f64::to_string).collect();
        let diverged = summary.diverged_at.map(|k| k.to_string());
        writeln!(
            file,
            "{index},{},{},{},{},{}",
            run.replicate,
            run.seed,
            point.join(","),
            values.join(","),
            diverged.unwrap_or_default()
        )?;
    }
    let figure = match axes.len() {
        2 => Some(Plot::Heatmap(sweep::heatmap(
            &axes, &runs, &summaries, metric,
        ))),
        1 => curve(&axes[0], &runs, &summaries, metric, &args.metric).map(Plot::Curve),
        _ => None,
    };
    let mut ready = vec![file.finish()?];
    let plotted = match (&targets.plot, &figure) {
        (Some(target), Some(figure)) => {
            let mut png = target.create()?;
            match figure {
                Plot::Heatmap(map) => plot::heatmap(map, &mut png)?,
                Plot::Curve(curve) => plot::figure(curve, &mut png)?,
            }
            ready.push(png.finish()?);
            Some(target.path())
        }
        _ => None,
    };
    output::commit(ready)?;
    targets.print(&format!(
        "sweep: {} runs of {} steps in {:.1} s -> {}{}\n",
        runs.len(),
        args.steps,
        start.elapsed().as_secs_f64(),
        targets.csv.path().display(),
        plotted
            .map(|png| format!(", {}", png.display()))
            .unwrap_or_default()
    ));
    if let Some(warning) = diverged(&summaries) {
        eprintln!("warning: {warning}");
    }
    Ok(())
}

/// Runs named by number in the warning about diverged runs; the rest are counted.
const DIVERGED_NAMED: usize = 10;

/// What to say of the runs whose flock diverged, if any did: how many, which, and how their
/// rows are marked.
fn diverged(summaries: &[sweep::Summary]) -> Option<String> {
    let runs: Vec<String> = summaries
        .iter()
        .enumerate()
        .filter_map(|(index, s)| s.diverged_at.map(|k| format!("run {index} at step {k}")))
        .collect();
    if runs.is_empty() {
        return None;
    }
    let more = match runs.len().saturating_sub(DIVERGED_NAMED) {
        0 => String::new(),
        rest => format!(" and {rest} more"),
    };
    Some(format!(
        "{} of {} runs diverged: a step was refused because the flock would not stay finite, \
         which ended the run ({}{more}); their averages are over the samples before it (NaN \
         where there are none), and their rows name the step refused in column {}",
        runs.len(),
        summaries.len(),
        runs[..runs.len().min(DIVERGED_NAMED)].join(", "),
        sweep::DIVERGED_COLUMN
    ))
}

/// What a sweep can draw: a heatmap over two keys, a curve over one numeric key.
enum Plot {
    Heatmap(sweep::Heatmap),
    Curve(Figure),
}

/// A value as written in the CSV (strings without quotes).
fn plain(value: &Value) -> String {
    match value {
        Value::Choice(name) => (*name).to_owned(),
        other => other.to_string(),
    }
}

/// The mean of `metric` against a numeric axis (`None` when the axis is not numeric).
fn curve(
    axis: &Axis,
    runs: &[sweep::SweepRun],
    summaries: &[sweep::Summary],
    metric: usize,
    name: &str,
) -> Option<Figure> {
    let numbers: Option<Vec<f64>> = axis
        .values
        .iter()
        .map(|v| match *v {
            Value::Number(x) => Some(x),
            Value::Integer(i) => Some(i as f64),
            _ => None,
        })
        .collect();
    let numbers = numbers?;
    let points: Vec<(f64, f64)> = axis
        .values
        .iter()
        .zip(&numbers)
        .map(|(value, &x)| {
            let values = runs
                .iter()
                .zip(summaries)
                .filter(|(run, _)| &run.point[0] == value)
                .map(|(_, s)| s.averages[metric]);
            (x, experiments::mean(values))
        })
        .collect();
    let low = numbers.iter().copied().fold(f64::INFINITY, f64::min);
    let high = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let top = points
        .iter()
        .map(|p| p.1)
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max);
    let pad = if high > low { 0.0 } else { 0.5 };
    Some(Figure {
        title: format!("mean {name} against {}", axis.key),
        panels: vec![Panel {
            title: "time average, mean over replicates".into(),
            x_label: axis.key.to_owned(),
            y_label: name.to_owned(),
            x_range: (low - pad, high + pad),
            y_range: (0.0, (top * 1.1).max(1e-9)),
            series: vec![Series::new(name, points, Mode::Line)],
        }],
    })
}
