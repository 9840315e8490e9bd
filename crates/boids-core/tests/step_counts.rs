//! The counts a step reports about its neighbour work ([`ScanCounts`]): its neighbours equal a
//! brute-force count on every path (the grid fast path and the general path of every model,
//! metric and topological, with and without a blind angle, on a torus and in an open world), all
//! its counts are the same on one thread and two, and on flocks simple enough to count by hand
//! its cells and candidates are exactly the work the scan does.

use boids_core::rules::Kernel;
use boids_core::{FlockState, Model, Params, ScanCounts, Simulation, Vec2, reference};

mod common;
use common::params;

/// The counts of one step of `sim` on a pool of `threads` threads.
fn step_on(threads: usize, sim: &mut Simulation) -> ScanCounts {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| sim.step())
        .unwrap();
    sim.stats().counts
}

/// The neighbours each boid's rules take, summed over the flock, by brute force: the metric
/// zone (in view) or the k nearest in view; the boids rules add the protected boids in view,
/// and Couzin's model takes only its zone of repulsion when that holds anyone.
fn brute_neighbors(p: &Params, state: &FlockState) -> u64 {
    let kernel = Kernel::<2>::new(p);
    let (pos, vel) = (&state.positions, &state.velocities);
    let zone = match p.topological_k {
        0 => reference::neighbors_in_view(p, pos, vel, kernel.visual_below),
        k => reference::nearest_in_view(p, pos, vel, k as usize),
    };
    let repel = reference::neighbors_in_view(p, pos, vel, kernel.protected_below);
    let taken = |(zone, repel): (&Vec<u32>, &Vec<u32>)| match p.model {
        Model::Boids => zone.len() + repel.iter().filter(|j| !zone.contains(j)).count(),
        Model::Vicsek => zone.len(),
        Model::Couzin if repel.is_empty() => zone.len(),
        Model::Couzin => repel.len(),
    };
    zone.iter().zip(&repel).map(taken).sum::<usize>() as u64
}

/// A square world of side 40 or 120, boids spread over all of it.
const SIDE_40: [&str; 4] = [
    "world_width=40",
    "world_height=40",
    "init_x=[0,40]",
    "init_y=[0,40]",
];
const SIDE_120: [&str; 4] = [
    "world_width=120",
    "world_height=120",
    "init_x=[0,120]",
    "init_y=[0,120]",
];

/// Flocks that take every path, each of a few thousand boids so that the step splits its work.
fn every_path() -> Vec<(&'static str, Params)> {
    let case = |preset, sets: &[&[&str]]| params(preset, &sets.concat());
    let n = "count=3000";
    vec![
        ("fast path, margins", case("cornell", &[&[n]])),
        (
            "fast path, torus, self included",
            case("functional", &[&[n, "init_x=[-8,8]", "init_y=[-8,8]"]]),
        ),
        (
            "boids, blind angle, margins",
            case("cornell", &[&[n, "blind_angle=1.2"]]),
        ),
        (
            "boids, k nearest, blind angle, torus",
            case("occoids", &[&[n, "topological_k=7", "blind_angle=0.8"]]),
        ),
        ("vicsek, torus", case("vicsek", &[&[n], &SIDE_40])),
        (
            "vicsek, k nearest, margins",
            case("vicsek", &[&[n, "topological_k=6", "boundary=\"margins\""]]),
        ),
        (
            "couzin, blind angle, margins",
            case("couzin", &[&[n, "blind_angle=1.0"], &SIDE_120]),
        ),
        (
            "couzin, k nearest, torus",
            case(
                "couzin",
                &[&[n, "topological_k=5", "boundary=\"torus\""], &SIDE_120],
            ),
        ),
    ]
}

#[test]
fn neighbours_equal_a_brute_force_count_on_every_path_and_thread_count() {
    for (name, p) in every_path() {
        let mut one = Simulation::<2>::new(p.clone(), 7).unwrap();
        let mut two = one.clone();
        for step in 0..2 {
            let want = brute_neighbors(&p, &one.state());
            let counts = step_on(1, &mut one);
            assert_eq!(counts, step_on(2, &mut two), "{name}, step {step}");
            assert_eq!(counts.neighbors, want, "{name}, step {step}");
            assert!(want > p.count as u64, "{name}: too sparse to test");
            assert!(counts.candidates > counts.neighbors, "{name}: {counts:?}");
            assert!(counts.cells >= p.count as u64, "{name}: {counts:?}");
        }
    }
}

#[test]
fn the_fast_path_tests_a_clump_against_itself_once_per_group_of_eight() {
    // 100 boids on one spot share a cell: 13 groups (12 of eight, one of four), each scanning
    // the block of cells around it, and every boid a candidate of every group's lanes.
    let p = params("functional", &["count=100"]);
    let spot = FlockState {
        positions: vec![Vec2::new(1.0, -2.0); 100],
        ..FlockState::<2>::initial(&p, 1)
    };
    let reach = Simulation::<2>::geometry(&p, &spot.positions).reach();
    let block = u64::from((2 * reach[0] + 1) * (2 * reach[1] + 1));
    let mut sim = Simulation::<2>::from_state(p, 1, spot, 0).unwrap();
    sim.step().unwrap();
    let counts = sim.stats().counts;
    assert_eq!(
        counts,
        ScanCounts {
            cells: 13 * block,
            candidates: 100 * 100,
            neighbors: 100 * 99,
        }
    );
}

#[test]
fn the_general_path_visits_each_of_nine_cells_once_per_query() {
    // A torus 3.5 visual ranges wide has 3 x 3 cells, all within one ring of every cell: each
    // boid's search reads the nine cells and tests every other boid once. (Perching takes the
    // general path; on a torus no boid is below the ground line at the world's bottom edge.)
    let p = params(
        "vicsek",
        &[
            "count=50",
            "world_width=3.5",
            "world_height=3.5",
            "noise=0",
            "perch=true",
            "perch_height=0",
        ],
    );
    let mut sim = Simulation::<2>::new(p.clone(), 3).unwrap();
    let want = brute_neighbors(&p, &sim.state());
    sim.step().unwrap();
    let counts = sim.stats().counts;
    assert_eq!(
        counts,
        ScanCounts {
            cells: 9 * 50,
            candidates: 50 * 49,
            neighbors: want,
        }
    );
}
