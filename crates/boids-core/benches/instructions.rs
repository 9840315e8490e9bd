//! Instruction counts of one step on workload W3 (K = 25) at 10k and 100k boids, measured by
//! valgrind's callgrind through gungraun: a figure that does not depend on wall time or on
//! what else the machine runs, so CI can compare it across noisy machines. The step runs on
//! the benchmark's own thread as rayon's only worker, so callgrind (which counts the thread
//! that calls the benchmark) sees all of it and the count does not depend on scheduling.
//! Building and warming the flock is setup, not counted.
//!
//! ```text
//! cargo install gungraun-runner --version 0.20.0   # once; must match the gungraun crate
//! cargo bench -p boids-core --bench instructions
//! ```
//!
//! gungraun keeps the last run as a baseline and prints the change of each count against it.
//! Counts depend on the binary (compiler version, flags) and on the SIMD level the step picks
//! at run time (AVX2 where the CPU has it, under valgrind too), so compare runs made with the
//! same toolchain on the same kind of CPU.

// gungraun's macros generate public items without docs.
#![allow(missing_docs)]

use std::hint::black_box;

mod common;

use boids_core::Simulation;
use gungraun::{library_benchmark, library_benchmark_group, main};

/// The W3 flock of `n` boids, with this thread made rayon's only worker first.
fn warm_flock(n: usize) -> Simulation {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
        .expect("the first rayon use of this benchmark process");
    common::warm_w3_flock(n)
}

#[library_benchmark]
#[bench::w3_10k(args = (10_000), setup = warm_flock)]
#[bench::w3_100k(args = (100_000), setup = warm_flock)]
fn step(mut sim: Simulation) -> Simulation {
    sim.step().unwrap();
    black_box(sim)
}

library_benchmark_group!(name = w3, benchmarks = [step]);

main!(library_benchmark_groups = w3);
