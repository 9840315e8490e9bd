//! A flock that shrinks gives its memory back: a viewer that went from ten million boids to a
//! thousand once kept 2.2 GB, as every buffer kept the room the large flock had needed.

use boids_core::{ParamsBuilder, Simulation, Source};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn cornell(count: usize) -> boids_core::Params {
    ParamsBuilder::preset("cornell")
        .unwrap()
        .apply_assignment(&format!("count={count}"), Source::Message)
        .unwrap()
        .apply_assignment("world_width=20000", Source::Message)
        .unwrap()
        .apply_assignment("world_height=20000", Source::Message)
        .unwrap()
        .build()
        .unwrap()
}

#[test]
fn a_flock_cut_to_a_thousandth_holds_a_small_share_of_its_memory() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let held = || dhat::HeapStats::get().curr_bytes;
    let mut sim = Simulation::<2>::new(cornell(500_000), 3).unwrap();
    sim.step_many(2).unwrap();
    let large = held();
    sim.set_params(cornell(500)).unwrap();
    sim.step_many(2).unwrap();
    let small = held();
    // What stays is the grid of a large world's cells and the process's own, not the boids'.
    assert!(
        small * 10 < large,
        "{small} bytes held by 500 boids, {large} by 500,000"
    );
}
