//! Every model on the one neighbour walk (Vicsek, Couzin, a blind angle, k nearest, in 2D and
//! 3D) against the general path of `boids_core::models`, which the reference holds to the
//! brute force: the same neighbours (the counts of the neighbours each boid takes are equal,
//! exactly) and the same step to the rounding of sums taken in another order; and the walk's
//! results bit-identical on any thread count.

mod common;

use boids_core::rules::Kernel;
use boids_core::{Coordinates, Dim, Dimension, FlockState, Params, Simulation, models};
use common::params;

/// Every model and neighbourhood the walk runs, in `D` dimensions: torus and open worlds,
/// margins, self included or not, field of view, k nearest with and without a blind angle.
fn cases<const D: usize>() -> Vec<(&'static str, Params)> {
    let d = format!("dimensions={D}");
    let mut cases = vec![
        ("vicsek", params("vicsek", &["count=900", &d])),
        (
            "vicsek, blind",
            params("vicsek", &["count=900", "blind_angle=2", &d]),
        ),
        (
            "vicsek, k = 5",
            params("vicsek", &["count=900", "topological_k=5", &d]),
        ),
        ("couzin", params("couzin", &["count=400", &d])),
        (
            "couzin, self excluded, blind",
            params(
                "couzin",
                &["count=400", "include_self=false", "blind_angle=1", &d],
            ),
        ),
        (
            "couzin, k = 6",
            params("couzin", &["count=400", "topological_k=6", &d]),
        ),
        (
            "cornell, blind",
            params("cornell", &["count=900", "blind_angle=1.57", &d]),
        ),
        (
            "cornell torus, blind",
            params(
                "cornell",
                &["count=900", "boundary=\"torus\"", "blind_angle=3", &d],
            ),
        ),
        (
            "cornell, k = 7",
            params("cornell", &["count=900", "topological_k=7", &d]),
        ),
        (
            "cornell torus, k = 7, blind",
            params(
                "cornell",
                &[
                    "count=900",
                    "boundary=\"torus\"",
                    "topological_k=7",
                    "blind_angle=1.57",
                    &d,
                ],
            ),
        ),
        // More neighbours than a block of cells holds: every boid takes the ring search.
        (
            "cornell, k = 60",
            params("cornell", &["count=900", "topological_k=60", &d]),
        ),
    ];
    if D == 3 {
        cases.push(("murmuration", params("murmuration", &["count=3000"])));
    }
    // Couzin 2002's nested zones: orientation out to r_o, attraction beyond, a blind cone.
    cases.push(("couzin2002", params("couzin2002", &["count=600", &d])));
    cases
}

/// The position and velocity of every boid of `state`.
fn coordinates<const D: usize>(state: &FlockState<D>) -> Vec<f32>
where
    Dim<D>: Dimension<D>,
{
    let positions = state.positions.iter().flat_map(|p| p.to_array());
    positions
        .chain(state.velocities.iter().flat_map(|v| v.to_array()))
        .collect()
}

fn the_walk_takes_the_general_paths_neighbours_and_step<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for (name, p) in cases::<D>() {
        assert!(p.uses_fast_path(), "{name}");
        let kernel = Kernel::<D>::new(&p);
        let mut sim = Simulation::<D>::new(p.clone(), 5).unwrap();
        // A few steps first, so that the flock has structure (clumps, a sparse edge).
        for _ in 0..20 {
            sim.step().unwrap();
        }
        let before = sim.state();
        let (general, counts) = models::step(&p, &kernel, 5, sim.step_count(), &before, None);
        sim.step().unwrap();
        let walked = sim.stats().counts;
        assert_eq!(
            walked.neighbors, counts.neighbors,
            "{D}D {name}: other neighbours"
        );
        assert!(
            walked.neighbors > p.count as u64,
            "{D}D {name}: too sparse to test"
        );
        let size = p.world_width.max(p.world_height) as f32;
        let (got, want) = (coordinates(&sim.state()), coordinates(&general));
        let apart = got
            .iter()
            .zip(&want)
            .filter(|(a, b)| (*a - *b).abs() > 1e-5 * size)
            .count();
        assert_eq!(apart, 0, "{D}D {name}: {apart} coordinates apart");
    }
}

#[test]
fn the_walk_takes_the_general_paths_neighbours_and_step_in_2d() {
    the_walk_takes_the_general_paths_neighbours_and_step::<2>();
}

#[test]
fn the_walk_takes_the_general_paths_neighbours_and_step_in_3d() {
    the_walk_takes_the_general_paths_neighbours_and_step::<3>();
}

/// The bits of a 12-step run of `p` with seed 3.
fn run_bits<const D: usize>(p: &Params) -> Vec<u32>
where
    Dim<D>: Dimension<D>,
{
    let mut sim = Simulation::<D>::new(p.clone(), 3).unwrap();
    for _ in 0..12 {
        sim.step().unwrap();
    }
    let state = sim.state();
    coordinates(&state).into_iter().map(f32::to_bits).collect()
}

fn bit_identical_on_any_thread_count<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    // Flocks of several parts of the step (2,048 boids a part), so that groups fall
    // differently on every thread count.
    for (name, mut p) in cases::<D>() {
        p.count = 9000;
        let runs: Vec<Vec<u32>> = [1, 2, 3]
            .iter()
            .map(|&threads| common::on_threads(threads, || run_bits::<D>(&p)))
            .collect();
        assert!(runs[0] == runs[1], "{D}D {name}: 1 vs 2 threads");
        assert!(runs[0] == runs[2], "{D}D {name}: 1 vs 3 threads");
    }
}

#[test]
fn every_model_on_the_walk_is_bit_identical_on_any_thread_count() {
    bit_identical_on_any_thread_count::<2>();
}

#[test]
fn every_model_on_the_walk_is_bit_identical_on_any_thread_count_in_3d() {
    bit_identical_on_any_thread_count::<3>();
}
