//! `boids experiment NAME`: runs one of the published experiments ([`boids_lab::experiments`])
//! across all cores, writes a tidy CSV (one row per run) and the figure beside it as PNG, and
//! prints the numbers behind the figure.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};
use boids_io::output::{self, Content, Pending, Target};
use boids_lab::experiments::{self, EXPERIMENTS, Figure, MAX_REPLICATES, Mode, Options, Row};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::numbers::whole;
use crate::plot;

/// Flags of `boids experiment`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ExperimentArgs {
    /// couzin-accuracy, couzin-conflict, couzin-memory, couzin-phases, predator, scouts or vicsek
    /// (`boids experiment list` describes them).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The reduced version: seconds on two cores (what CI runs).
    #[arg(long)]
    pub quick: bool,
    /// CSV file of results, one row per run; the plot is written beside it as FILE.png
    /// [default: NAME.csv].
    #[arg(long, value_name = "FILE.csv")]
    pub out: Option<PathBuf>,
    /// Replicates per parameter point (default: the experiment's own).
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPLICATES)))]
    pub replicates: Option<u32>,
    /// Steps per run (default: the experiment's own).
    #[arg(long, value_name = "K", value_parser = whole(2..=u64::MAX))]
    pub steps: Option<u64>,
    /// Base seed: replicate r uses seed + r.
    #[arg(long, default_value_t = 0, value_parser = whole(0..=u64::MAX))]
    pub seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

/// Runs `boids experiment`.
pub fn run(args: &ExperimentArgs) -> Result<()> {
    if args.name == "list" {
        for (name, what) in EXPERIMENTS {
            println!("{name:<16} {what}");
        }
        return Ok(());
    }
    crate::set_threads(args.threads)?;
    let options = Options {
        quick: args.quick,
        replicates: args.replicates,
        steps: args.steps,
        seed: args.seed,
    };
    let plan = experiments::plan(&args.name, &options)?;
    let csv = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.csv", plan.name)));
    let targets = TableTargets::new(&csv, &[])?;

    let start = Instant::now();
    let progress = progress_bar(plan.runs.len() as u64);
    let rows = experiments::run_all(&plan, &|| progress.inc(1));
    progress.finish_and_clear();
    let mut table = targets.csv.create()?;
    write_rows(&mut table, &rows)?;
    let figure = experiments::figure(plan.name, &rows)?;
    let mut ready = vec![table.finish()?];
    if let Some(plot_target) = &targets.plot {
        let mut png = plot_target.create()?;
        plot::figure(&figure, &mut png)?;
        ready.push(png.finish()?);
    }
    output::commit(ready)?;

    let mut summary = format!(
        "{}: {} runs in {:.1} s -> {}\n",
        plan.name,
        rows.len(),
        start.elapsed().as_secs_f64(),
        targets.written()
    );
    summary += &figure_text(&figure);
    targets.print(&summary);
    Ok(())
}

/// A table and the plot beside it: `FILE.csv` and `FILE.png`; standard output (`-`) takes the
/// table alone, and the summary then goes to stderr.
pub struct TableTargets {
    /// The CSV.
    pub csv: Target,
    /// The PNG beside it, unless the CSV goes to standard output.
    pub plot: Option<Target>,
}

impl TableTargets {
    /// Resolves `--out csv` and its plot, checked against `inputs` and each other.
    pub fn new(csv: &Path, inputs: &[(&str, &Path)]) -> Result<Self> {
        let table = Target::new("--out", csv, Content::Text)?;
        let plot = if table.is_stdout() {
            None
        } else {
            let png = png_beside(csv)?;
            Some(Target::new("the plot of --out", &png, Content::Binary)?)
        };
        let targets = Self { csv: table, plot };
        let all: Vec<&Target> = std::iter::once(&targets.csv).chain(&targets.plot).collect();
        output::check(inputs, &all)?;
        Ok(targets)
    }

    /// The files written, for the summary.
    pub fn written(&self) -> String {
        match &self.plot {
            Some(plot) => format!("{}, {}", self.csv.path().display(), plot.path().display()),
            None => "standard output".to_owned(),
        }
    }

    /// Prints the command's summary where it does not mix with the table.
    pub fn print(&self, summary: &str) {
        if self.csv.is_stdout() {
            eprint!("{summary}");
        } else {
            print!("{summary}");
        }
    }
}

/// `FILE.png` beside `FILE.csv`; refuses an output named `.png` itself.
fn png_beside(csv: &Path) -> Result<PathBuf> {
    if csv
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        bail!(
            "--out {} names the plot's file; give the CSV file (the plot goes beside it)",
            csv.display()
        );
    }
    Ok(csv.with_extension("png"))
}

/// Writes rows as CSV: a header of the first row's names, then one line per row.
fn write_rows(out: &mut Pending, rows: &[Row]) -> Result<()> {
    if let Some(first) = rows.first() {
        let names: Vec<&str> = first.iter().map(|(n, _)| *n).collect();
        writeln!(out, "{}", names.join(","))?;
    }
    for row in rows {
        let cells: Vec<String> = row.iter().map(|(_, v)| v.to_string()).collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

/// Each panel's series: the numbers the figure shows.
fn figure_text(figure: &Figure) -> String {
    let mut text = String::new();
    for panel in &figure.panels {
        text += &format!(
            "\n{} ({} -> {})\n",
            panel.title, panel.x_label, panel.y_label
        );
        for series in &panel.series {
            if series.mode != Mode::Line {
                continue;
            }
            let points: Vec<String> = series
                .points
                .iter()
                .map(|(x, y)| format!("{}:{:.3}", trim(*x), y))
                .collect();
            text += &format!("  {:<28} {}\n", series.label, points.join("  "));
        }
    }
    text
}

fn trim(x: f64) -> String {
    format!("{}", (x * 1e4).round() / 1e4)
}

/// A progress bar over runs on stderr; hidden when stderr is not a terminal.
pub fn progress_bar(runs: u64) -> ProgressBar {
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(runs);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} runs (eta {eta})")
            .expect("valid progress template")
            .progress_chars("=> "),
    );
    bar
}
