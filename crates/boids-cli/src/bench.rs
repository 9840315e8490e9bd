//! `boids bench`: times the step on workload W3 (a preset's rules on a torus sized for a mean of
//! K neighbours, uniform random start; see `boids_core::workload`) and reports what a reader
//! needs to judge the figure: the workload as measured (count, mean neighbours at the start and
//! at the end), the step time as a median with its spread, throughput, the split by stage, the
//! neighbour scan's work, peak memory per boid, and optionally the ratio to the brute-force
//! reference on the same state.
//!
//! The workload figures are the step's own counts ([`boids_core::ScanCounts`]), not a recount:
//! a step counts the neighbours of the state it starts from, so the very first step (a warm-up
//! step unless there are none) gives the uniform start's mean, and the last measured step the
//! end's; the scan's work is averaged over the measured steps.
//!
//! Memory is read from `/proc/self/status` (Linux): the resident size before the flock exists is
//! the fixed overhead (binary, thread pool); the high-water mark after it, less that overhead,
//! divided by N is the cost per boid. The brute-force comparison runs after the high-water mark
//! is read, so it does not count.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use boids_core::{
    Dim, Dimension, EngineKind, Params, ScanCounts, Simulation, Stage, StepStats, reference,
    with_dimensions, workload,
};
use clap::Args;
use serde_json::json;

use crate::flock_args::FlockArgs;
use crate::numbers::whole;

/// Largest flock `--vs-naive` accepts: the O(n²) reference takes seconds per step beyond it.
const NAIVE_MAX: usize = 100_000;

/// Flags of `boids bench`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct BenchArgs {
    #[command(flatten)]
    pub flock: FlockArgs,
    /// Mean number of neighbours within the visual range at the uniform start (sets the torus size).
    #[arg(long, value_name = "K")]
    pub neighbors: f64,
    /// Measured steps.
    #[arg(long, value_name = "S", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub steps: u32,
    /// Steps run before measuring.
    #[arg(long, value_name = "W", default_value_t = 10)]
    pub warmup: u32,
    /// Steps timed together, in one batch of the engine: each batch's time over B is a step
    /// time (default: 1 on the CPU engine; 10 on the GPU engine, which keeps the flock on the
    /// device through a batch and copies it back at its end).
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also time the brute-force O(n²) reference step on the final state (N <= 100000).
    #[arg(long)]
    pub vs_naive: bool,
    /// Time this build against another boids binary on the same flags, interleaved (ABBA), and
    /// print the ratio of their step times with its spread over the rounds.
    #[arg(long, value_name = "OTHER_BINARY")]
    pub compare: Option<PathBuf>,
    /// Rounds of --compare; each runs both builds once.
    #[arg(long, value_name = "R", default_value_t = 6, requires = "compare",
          value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub rounds: u32,
    /// Time every size of --sizes in 2D and 3D, on one thread and on every core, each in its
    /// own run; write the table here (CSV) and its plot beside it (.png).
    #[arg(long, value_name = "OUT.csv", conflicts_with_all = ["count", "threads", "compare", "json"])]
    pub scaling: Option<PathBuf>,
    /// Flock sizes of --scaling.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', requires = "scaling",
          default_values_t = [1_000, 10_000, 100_000, 1_000_000, 10_000_000],
          value_parser = whole(100..=100_000_000))]
    pub sizes: Vec<u64>,
}

/// Runs `boids bench`.
pub fn bench(args: &BenchArgs) -> Result<()> {
    if let Some(out) = &args.scaling {
        let sizes: Vec<usize> = args.sizes.iter().map(|&n| n as usize).collect();
        return crate::scaling::run(out, &sizes);
    }
    crate::set_threads(args.threads)?;
    if args.flock.count.is_none() {
        bail!("`boids bench` needs --count N (the number of boids to time)");
    }
    if let Some(batch) = args.batch.filter(|&b| b > args.steps) {
        bail!(
            "--batch {batch} is more than --steps {}: a batch is part of the measured steps              (allowed range is [1, {}]; raise --steps to time longer batches)",
            args.steps,
            args.steps
        );
    }
    let base = args.flock.params()?;
    let count = base.count;
    if args.vs_naive && count > NAIVE_MAX {
        bail!(
            "--vs-naive times the O(n²) brute-force reference, feasible up to {NAIVE_MAX} boids; \
             --count {count} is above it (drop --vs-naive, or compare at a smaller --count)"
        );
    }
    let params = workload::w3(
        &base,
        count,
        args.neighbors,
        &format!("--neighbors {}", args.neighbors),
    )?;
    if let Some(other) = &args.compare {
        return crate::compare::run(other, args.rounds, args.json);
    }
    let seed = args.flock.seed;

    let fixed = Memory::reset_peak();
    let timing = with_dimensions!(params.dimensions, D, {
        boids_core::in_pool(|| time_steps::<D>(&params, seed, args))?
    });
    let threads = rayon::current_num_threads();
    let capacity = (threads > 1).then(|| parallel_capacity(threads));
    let steps = timing.step_times.len() as u32 * timing.batch;
    let Timing {
        batch: _,
        first_step,
        step_times,
        measured,
        built_peak,
        step_peak,
        naive,
    } = timing;

    let engine = args.flock.engine;
    let report = Report {
        params: &params,
        preset: &args.flock.preset,
        engine: Engine {
            kind: engine,
            adapter: (engine == EngineKind::Gpu)
                .then(crate::engines::gpu_adapter)
                .transpose()?,
            batch: timing.batch,
            device_bytes_per_boid: (engine == EngineKind::Gpu)
                .then(|| crate::engines::gpu_bytes_per_boid(params.dimensions))
                .flatten(),
        },
        neighbors_target: args.neighbors,
        first_step,
        threads,
        capacity,
        steps,
        warmup: args.warmup,
        step_times,
        measured,
        memory: fixed
            .zip(built_peak)
            .zip(step_peak)
            .map(|((fixed, built), step)| MemoryReport { fixed, built, step }),
        naive,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.json())?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

/// What the timed run measured.
struct Timing {
    /// Steps timed together.
    batch: u32,
    /// The counts of the first step (the uniform start's neighbours).
    first_step: ScanCounts,
    step_times: Vec<Duration>,
    measured: Vec<StepStats>,
    /// Peak resident memory once the flock is built, and while it steps.
    built_peak: Option<u64>,
    step_peak: Option<u64>,
    /// The brute-force step's median time, when asked for.
    naive: Option<Duration>,
}

/// Builds the flock of `params` in `D` dimensions, runs the warm-up steps, times the measured
/// ones (and the brute-force step if asked), reading peak memory as it goes.
fn time_steps<const D: usize>(params: &Params, seed: u64, args: &BenchArgs) -> Result<Timing>
where
    Dim<D>: Dimension<D>,
{
    let engine = args.flock.engine.build()?;
    let mut sim = Simulation::<D>::with_engine(params.clone(), seed, engine)?;
    let built_peak = Memory::peak();
    Memory::reset_peak();
    let mut first_step = None;
    // The first warm-up step alone, for the uniform start's counts; the rest in one batch.
    if args.warmup > 0 {
        sim.step()?;
        first_step = Some(sim.stats().counts);
        sim.step_many(u64::from(args.warmup - 1))?;
    }
    let batch = args.batch.unwrap_or(match args.flock.engine {
        EngineKind::Cpu => 1,
        EngineKind::Gpu => 10,
    });
    let rounds = args.steps.div_ceil(batch) as usize;
    let mut step_times = Vec::with_capacity(rounds);
    let mut measured = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        sim.step_many(u64::from(batch))?;
        step_times.push(start.elapsed() / batch);
        measured.push(StepStats {
            times: sim.stage_times(),
            steps: 1,
            ..sim.stats()
        });
    }
    let step_peak = Memory::peak();
    let naive = args.vs_naive.then(|| {
        let state = sim.state();
        let reps = if params.count <= 50_000 { 3 } else { 1 };
        median(
            (0..reps)
                .map(|_| {
                    let start = Instant::now();
                    let next = reference::step(params, &state, sim.step_count());
                    let elapsed = start.elapsed();
                    drop(next);
                    elapsed
                })
                .collect(),
        )
    });
    Ok(Timing {
        batch,
        first_step: first_step.unwrap_or(measured[0].counts),
        step_times,
        measured,
        built_peak,
        step_peak,
        naive,
    })
}

/// How many times the work of one thread `threads` threads get done in the same time, each
/// running the same dependent floating-point loop (best of three): about `threads` where the
/// machine really has that many free cores, about 1 where its threads share one core. Thread
/// scaling of the step can be judged only against this.
fn parallel_capacity(threads: usize) -> f64 {
    let work = || {
        let mut x = 1.0f64;
        for _ in 0..20_000_000 {
            x = std::hint::black_box(x * 1.000_000_001 + 1e-9);
        }
        x
    };
    let best = |t: usize| {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                std::thread::scope(|s| {
                    for _ in 0..t {
                        s.spawn(work);
                    }
                });
                start.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let one = best(1);
    threads as f64 * one.as_secs_f64() / best(threads).as_secs_f64()
}

/// Resident memory of this process, from `/proc/self/status` (Linux only).
struct Memory;

impl Memory {
    /// A field of `/proc/self/status` in bytes.
    fn status(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        let kb: u64 = line[field.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb * 1024)
    }

    /// The high-water mark of resident memory since the last reset.
    fn peak() -> Option<u64> {
        Self::status("VmHWM:")
    }

    /// Resets the high-water mark to the current resident size and returns that size.
    fn reset_peak() -> Option<u64> {
        std::fs::write("/proc/self/clear_refs", "5").ok()?;
        Self::status("VmRSS:")
    }
}

/// Memory readings in bytes.
struct MemoryReport {
    /// Resident before the flock existed.
    fixed: u64,
    /// Peak while the simulation was built.
    built: u64,
    /// Peak while stepping.
    step: u64,
}

impl MemoryReport {
    fn per_boid(&self, peak: u64, count: usize) -> f64 {
        peak.saturating_sub(self.fixed) as f64 / count as f64
    }
}

/// The engine that stepped the flock.
struct Engine {
    kind: EngineKind,
    /// The GPU engine's adapter.
    adapter: Option<String>,
    /// Steps timed together.
    batch: u32,
    /// Device memory a boid takes (the GPU engine's buffers).
    device_bytes_per_boid: Option<usize>,
}

impl Engine {
    fn line(&self) -> String {
        let mut line = self.kind.to_string();
        if let Some(adapter) = &self.adapter {
            line += &format!(" on {adapter}");
        }
        line += &format!(", timed in batches of {} step(s)", self.batch);
        if let Some(bytes) = self.device_bytes_per_boid {
            line += &format!(", {bytes} bytes of device memory per boid");
        }
        line
    }
}

struct Report<'a> {
    params: &'a Params,
    preset: &'a str,
    engine: Engine,
    neighbors_target: f64,
    /// The counts of the run's first step: the uniform start's neighbours.
    first_step: ScanCounts,
    threads: usize,
    capacity: Option<f64>,
    steps: u32,
    warmup: u32,
    step_times: Vec<Duration>,
    /// What each measured step reported about itself.
    measured: Vec<StepStats>,
    memory: Option<MemoryReport>,
    naive: Option<Duration>,
}

/// The neighbour scan's work, averaged over the measured steps.
struct Scan {
    cells_per_step: f64,
    candidates_per_boid: f64,
    neighbors_per_boid: f64,
    /// Neighbours found per candidate tested.
    efficiency: f64,
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl Report<'_> {
    fn count(&self) -> usize {
        self.params.count
    }

    fn median(&self) -> Duration {
        median(self.step_times.clone())
    }

    fn spread(&self) -> (Duration, Duration) {
        let min = self.step_times.iter().min().copied().unwrap_or_default();
        let max = self.step_times.iter().max().copied().unwrap_or_default();
        (min, max)
    }

    fn boid_steps_per_second(&self) -> f64 {
        self.count() as f64 / self.median().as_secs_f64()
    }

    /// Median time of each stage that ran over the measured steps (a step that did not run
    /// it counts zero).
    fn stages(&self) -> Vec<(&'static str, Duration)> {
        Stage::ALL
            .into_iter()
            .filter(|&stage| self.measured.iter().any(|s| s.times.get(stage).is_some()))
            .map(|stage| {
                let times = self.measured.iter();
                let times = times.map(|s| s.times.get(stage).unwrap_or_default());
                (stage.name(), median(times.collect()))
            })
            .collect()
    }

    /// Mean neighbours per boid at the start (the run's first step) and at the end (the last
    /// measured step).
    fn neighbors(&self) -> [f64; 2] {
        let end = self.measured.last().map_or(self.first_step, |s| s.counts);
        [self.first_step, end].map(|c| c.neighbors as f64 / self.count() as f64)
    }

    /// The scan's work per measured step, summed over them.
    fn scan(&self) -> Scan {
        let total: ScanCounts = self.measured.iter().map(|s| s.counts).sum();
        let steps = self.measured.len() as f64;
        let boid_steps = steps * self.count() as f64;
        Scan {
            cells_per_step: total.cells as f64 / steps,
            candidates_per_boid: total.candidates as f64 / boid_steps,
            neighbors_per_boid: total.neighbors as f64 / boid_steps,
            efficiency: total.neighbors as f64 / total.candidates as f64,
        }
    }

    fn machine() -> String {
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, name)| name.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned())
    }

    fn json(&self) -> serde_json::Value {
        let (min, max) = self.spread();
        let median = self.median();
        let [start, end] = self.neighbors();
        let scan = self.scan();
        json!({
            "workload": "W3",
            "dimensions": self.params.dimensions,
            "preset": self.preset,
            "count": self.count(),
            "neighbors_target": self.neighbors_target,
            "world_side": self.params.world_width,
            "mean_neighbors_start": start,
            "mean_neighbors_end": end,
            "engine": self.engine.kind.name(),
            "adapter": self.engine.adapter,
            "batch": self.engine.batch,
            "device_bytes_per_boid": self.engine.device_bytes_per_boid,
            "threads": self.threads,
            "parallel_capacity": self.capacity,
            "warmup_steps": self.warmup,
            "steps": self.steps,
            "ms_per_step": { "median": ms(median), "min": ms(min), "max": ms(max) },
            "boid_steps_per_second": self.boid_steps_per_second(),
            "ns_per_boid_step": median.as_secs_f64() * 1e9 / self.count() as f64,
            "stages_ms": self.stages().iter().map(|(name, d)| (name.to_string(), json!(ms(*d))))
                .collect::<serde_json::Map<_, _>>(),
            "scan": {
                "neighbors_per_boid": scan.neighbors_per_boid,
                "candidates_per_boid": scan.candidates_per_boid,
                "cells_per_step": scan.cells_per_step,
                "candidate_efficiency": scan.efficiency,
            },
            "memory": self.memory.as_ref().map(|m| json!({
                "fixed_overhead_bytes": m.fixed,
                "peak_build_bytes": m.built,
                "peak_step_bytes": m.step,
                "bytes_per_boid": m.per_boid(m.built.max(m.step), self.count()),
                "bytes_per_boid_stepping": m.per_boid(m.step, self.count()),
            })),
            "naive": self.naive.map(|d| json!({
                "ms_per_step": ms(d),
                "speedup": d.as_secs_f64() / median.as_secs_f64(),
            })),
            "machine": Self::machine(),
        })
    }

    fn table(&self) -> String {
        let (min, max) = self.spread();
        let median = self.median();
        let side = format!("{:.0}", self.params.world_width);
        let torus = vec![side; self.params.dimensions].join(" x ");
        let mut out = format!(
            "W3: {} rules, {torus} torus, uniform start, {} measured steps after {} warm-up\n",
            self.preset, self.steps, self.warmup
        );
        let mut row = |name: &str, value: String| out.push_str(&format!("{name:<18} {value}\n"));
        row("boids", self.count().to_string());
        row("engine", self.engine.line());
        row(
            "threads",
            match self.capacity {
                Some(c) => format!(
                    "{} (a pure compute loop runs {c:.2}x one thread's work on them)",
                    self.threads
                ),
                None => self.threads.to_string(),
            },
        );
        let [start, end] = self.neighbors();
        row(
            "mean neighbours",
            format!(
                "{start:.1} at the first step (the uniform start), {end:.1} at the last measured \
                 step (target {})",
                self.neighbors_target
            ),
        );
        row(
            "ms per step",
            format!(
                "{:.3} median (min {:.3}, max {:.3})",
                ms(median),
                ms(min),
                ms(max)
            ),
        );
        row(
            "boid-steps/s",
            format!(
                "{:.3e} ({:.1} ns per boid-step)",
                self.boid_steps_per_second(),
                median.as_secs_f64() * 1e9 / self.count() as f64
            ),
        );
        let stages = self.stages();
        row(
            "stages (median ms)",
            stages
                .iter()
                .map(|(name, d)| format!("{name} {:.3}", ms(*d)))
                .collect::<Vec<_>>()
                .join(", "),
        );
        let scan = self.scan();
        row(
            "scan per step",
            format!(
                "{:.0} cells; per boid {:.1} candidates tested, {:.1} neighbours found \
                 ({:.0}% of candidates)",
                scan.cells_per_step,
                scan.candidates_per_boid,
                scan.neighbors_per_boid,
                100.0 * scan.efficiency
            ),
        );
        match &self.memory {
            Some(m) => {
                let peak = m.built.max(m.step);
                row(
                    "peak memory",
                    format!(
                        "{:.1} MiB; fixed overhead {:.1} MiB; {:.1} bytes per boid ({:.1} while stepping)",
                        peak as f64 / 1048576.0,
                        m.fixed as f64 / 1048576.0,
                        m.per_boid(peak, self.count()),
                        m.per_boid(m.step, self.count()),
                    ),
                );
            }
            None => row("peak memory", "unknown (needs Linux /proc)".to_owned()),
        }
        if let Some(naive) = self.naive {
            row(
                "brute force",
                format!(
                    "{:.3} ms per step: the grid step is {:.1}x faster",
                    ms(naive),
                    naive.as_secs_f64() / median.as_secs_f64()
                ),
            );
        }
        row("machine", Self::machine());
        out
    }
}
