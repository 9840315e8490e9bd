//! Wall-clock benchmarks of the step on workload W3 (the `cornell` rules on a torus sized for a
//! mean of 25 neighbours, uniform random start; see `boids_core::workload`) at 10k, 100k and 1M
//! boids: the whole step, and each stage as timed inside real steps (`Simulation::stage_times`).
//!
//! Every measured step starts from the same flock (10 steps after the start, cloned outside the
//! timing), so the work does not drift as the flock clusters. Criterion reports time per step
//! and, as throughput, boid-steps per second. Run with
//!
//! ```text
//! cargo bench -p boids-core --bench step            # all sizes
//! cargo bench -p boids-core --bench step -- w3_100k # one size
//! ```
//!
//! Threads: rayon's default (all cores); set `RAYON_NUM_THREADS=1` for one.

use std::time::{Duration, Instant};

mod common;

use common::warm_w3_flock;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn steps(c: &mut Criterion) {
    for (label, n) in [("10k", 10_000), ("100k", 100_000), ("1M", 1_000_000)] {
        let warm = warm_w3_flock(n);
        let mut group = c.benchmark_group(format!("w3_{label}"));
        group
            .throughput(Throughput::Elements(n as u64))
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        // Each stage (and "step", the whole) summed over `iters` fresh steps of the warm flock.
        let stages: Vec<&str> = warm.stage_times().named().map(|(name, _)| name).collect();
        for stage in std::iter::once("step").chain(stages) {
            group.bench_function(BenchmarkId::from_parameter(stage), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut sim = warm.clone();
                        let start = Instant::now();
                        sim.step().unwrap();
                        let whole = start.elapsed();
                        total += match stage {
                            "step" => whole,
                            name => sim
                                .stage_times()
                                .named()
                                .find(|(n, _)| *n == name)
                                .map_or(Duration::ZERO, |(_, d)| d),
                        };
                    }
                    total
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, steps);
criterion_main!(benches);
