//! Setup shared by the benchmark targets: the flock they time.

use boids_core::{Params, Simulation, workload};

/// A W3 flock (cornell rules, 25 neighbours per boid) of `n` boids after 10 warm-up steps, so it
/// is stored in cell order as in a long run.
pub fn warm_w3_flock(n: usize) -> Simulation {
    let base = Params::preset("cornell").expect("cornell is a preset");
    let params = workload::w3(&base, n, 25.0, "benchmark").expect("W3 fits these counts");
    let mut sim = Simulation::<2>::new(params, 1).expect("a valid flock");
    for _ in 0..10 {
        sim.step().unwrap();
    }
    sim
}
