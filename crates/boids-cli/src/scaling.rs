//! `boids bench --scaling OUT.csv`: the step's cost against the flock's size, in two and three
//! dimensions, on one thread and on every core, as a table and a plot.
//!
//! Each point is one `boids bench` run in a child process ([`crate::bench_child`]) with this
//! process's other flags: W3 at that size, so the mean number of neighbours stays the same and
//! the cost per boid-step shows what the size itself costs (caches, memory). The table keeps each
//! run's step-time median and spread, its stages and scan counts, and the parallel capacity read
//! at the time; the plot draws nanoseconds per boid-step against log10 N, one line per
//! dimension and thread count.

use std::path::Path;

use anyhow::{Context, Result};
use boids_lab::experiments::{Figure, Mode, Panel, Series};
use serde_json::Value;

use crate::bench_child;
use crate::experiment::TableTargets;
use crate::plot;

/// The flags of `boids bench` that each run of the scaling sets itself.
const SET_PER_RUN: [&str; 5] = ["--scaling", "--sizes", "--count", "--threads", "--compare"];

/// The table's columns after `dimensions` and `threads`, each with where a run's report holds
/// it.
const COLUMNS: [(&str, &[&str]); 12] = [
    ("count", &["count"]),
    ("mean_neighbors", &["mean_neighbors_end"]),
    ("ns_per_boid_step", &["ns_per_boid_step"]),
    ("ms_per_step_median", &["ms_per_step", "median"]),
    ("ms_per_step_min", &["ms_per_step", "min"]),
    ("ms_per_step_max", &["ms_per_step", "max"]),
    ("bin_ms", &["stages_ms", "bin"]),
    ("sort_ms", &["stages_ms", "sort"]),
    ("interact_ms", &["stages_ms", "interact"]),
    ("candidates_per_boid", &["scan", "candidates_per_boid"]),
    (
        "bytes_per_boid_stepping",
        &["memory", "bytes_per_boid_stepping"],
    ),
    ("parallel_capacity", &["parallel_capacity"]),
];

/// One run: its dimension and threads, and its report.
struct Row {
    dimensions: usize,
    threads: usize,
    report: Value,
}

/// Runs the scaling over `sizes` and writes `out` (CSV) and the PNG beside it.
pub fn run(out: &Path, sizes: &[usize]) -> Result<()> {
    let targets = TableTargets::new(out, &[])?;
    let this = std::env::current_exe().context("cannot locate this boids binary")?;
    let common = bench_child::forwarded_args(&SET_PER_RUN, &["--json"]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let thread_counts: Vec<usize> = if cores > 1 { vec![1, cores] } else { vec![1] };
    let mut rows = Vec::new();
    for dimensions in [2, 3] {
        for &threads in &thread_counts {
            for &count in sizes {
                let mut args = common.clone();
                for (flag, value) in [
                    ("--count", count.to_string()),
                    ("--threads", threads.to_string()),
                    ("--set", format!("dimensions={dimensions}")),
                ] {
                    args.extend([flag.into(), value.into()]);
                }
                let row = Row {
                    dimensions,
                    threads,
                    report: bench_child::report(&this, &args)?,
                };
                eprintln!(
                    "{dimensions}D, {threads} thread(s), {count} boids: {:.1} ns per boid-step",
                    row.point().1
                );
                rows.push(row);
            }
        }
    }
    let mut table = targets.csv.create()?;
    write_table(&mut table, &rows)?;
    let mut ready = vec![table.finish()?];
    if let Some(plot_target) = &targets.plot {
        let mut png = plot_target.create()?;
        plot::figure(&figure(&rows), &mut png)?;
        ready.push(png.finish()?);
    }
    boids_io::output::commit(ready)?;
    targets.print(&format!(
        "scaling: {} runs -> {}\n",
        rows.len(),
        targets.written()
    ));
    Ok(())
}

impl Row {
    /// The number at `path` in the report (NaN where there is none, as `parallel_capacity`
    /// on one thread).
    fn value(&self, path: &[&str]) -> f64 {
        path.iter()
            .fold(&self.report, |v, key| &v[*key])
            .as_f64()
            .unwrap_or(f64::NAN)
    }

    /// Flock size and nanoseconds per boid-step.
    fn point(&self) -> (f64, f64) {
        (self.value(&["count"]), self.value(&["ns_per_boid_step"]))
    }
}

fn write_table(out: &mut impl std::io::Write, rows: &[Row]) -> Result<()> {
    let names: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
    writeln!(out, "dimensions,threads,{}", names.join(","))?;
    for row in rows {
        let values: Vec<String> = COLUMNS
            .iter()
            .map(|(_, path)| row.value(path).to_string())
            .collect();
        writeln!(
            out,
            "{},{},{}",
            row.dimensions,
            row.threads,
            values.join(",")
        )?;
    }
    Ok(())
}

/// Nanoseconds per boid-step against log10 N, a line per dimension and thread count.
fn figure(rows: &[Row]) -> Figure {
    let mut series: Vec<Series> = Vec::new();
    let preset = rows
        .first()
        .map_or("?", |r| r.report["preset"].as_str().unwrap_or("?"));
    let mut keys: Vec<(usize, usize)> = rows.iter().map(|r| (r.dimensions, r.threads)).collect();
    keys.dedup();
    for (dimensions, threads) in keys {
        let points = rows
            .iter()
            .filter(|r| (r.dimensions, r.threads) == (dimensions, threads))
            .map(|r| {
                let (n, ns) = r.point();
                (n.log10(), ns)
            })
            .collect();
        let label = format!(
            "{dimensions}D, {threads} thread{}",
            if threads > 1 { "s" } else { "" }
        );
        series.push(Series::new(label, points, Mode::Line));
    }
    let all = series.iter().flat_map(|s| &s.points);
    let (x_min, x_max, y_max) = all.fold((f64::MAX, f64::MIN, 0.0f64), |(lo, hi, top), p| {
        (lo.min(p.0), hi.max(p.0), top.max(p.1))
    });
    Figure {
        title: "W3 step cost against flock size".to_owned(),
        panels: vec![Panel {
            title: format!("{preset} rules, torus sized for the same mean neighbours"),
            x_label: "log10 N (boids)".to_owned(),
            y_label: "ns per boid-step".to_owned(),
            x_range: (x_min - 0.2, x_max + 0.2),
            y_range: (0.0, y_max * 1.1),
            series,
        }],
    }
}
