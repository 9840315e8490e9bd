//! A running flock steps without touching the heap: every buffer is reserved when the flock is
//! built and reused by every step, at any thread count and in open worlds whose grid changes
//! size every step. (An allocation per step would cost time and fragment memory at scale.)
//!
//! The count covers the whole process, so it includes rayon's scheduler: when a worker thread is
//! descheduled (a busy machine), its work-stealing deque may grow and later shrink, a few
//! allocations that depend on timing. The test therefore asserts fewer allocations than steps:
//! anything the step itself allocates happens every step and fails it.

use boids_core::{Params, ParamsBuilder, Simulation, Source, workload};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Steps measured after the warm-up.
const MEASURED_STEPS: u64 = 20;

fn steps_allocate(params: &Params, threads: usize) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut sim = Simulation::<2>::new(params.clone(), 3).unwrap();
    pool.install(|| {
        for _ in 0..3 {
            sim.step().unwrap();
        }
    });
    let before = dhat::HeapStats::get().total_blocks;
    pool.install(|| {
        for _ in 0..MEASURED_STEPS {
            sim.step().unwrap();
        }
    });
    dhat::HeapStats::get().total_blocks - before
}

#[test]
fn steady_state_steps_do_not_allocate() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let cornell = Params::preset("cornell").unwrap();
    // Enough boids for the parallel sort to cut the grid into blocks.
    let torus = workload::w3(&cornell, 40_000, 25.0, "test").unwrap();
    let open = ParamsBuilder::from_params(cornell, Source::Message)
        .apply_assignment("count=3000", Source::Message)
        .unwrap()
        .build()
        .unwrap();
    // Every model and neighbourhood of the walk, and k nearest in an open world too.
    let set = |preset: &str, sets: &[&str]| {
        let mut b = ParamsBuilder::preset(preset).unwrap();
        for s in sets {
            b = b.apply_assignment(s, Source::Message).unwrap();
        }
        b.build().unwrap()
    };
    let vicsek = set("vicsek", &["count=9000"]);
    let couzin = set("couzin", &["count=3000"]);
    let blind = set("cornell", &["count=9000", "blind_angle=1.57"]);
    let nearest = set("cornell", &["count=9000", "topological_k=7"]);
    let nearest_torus = set(
        "cornell",
        &["count=9000", "topological_k=7", "boundary=\"torus\""],
    );
    let cases = [
        ("torus", &torus),
        ("margins", &open),
        ("vicsek", &vicsek),
        ("couzin", &couzin),
        ("blind angle", &blind),
        ("k nearest", &nearest),
        ("k nearest, torus", &nearest_torus),
    ];
    for (world, params) in cases {
        for threads in [1, 2] {
            let blocks = steps_allocate(params, threads);
            assert!(
                blocks < MEASURED_STEPS,
                "{world}, {threads} threads: {blocks} allocations in {MEASURED_STEPS} steps"
            );
        }
    }
}
