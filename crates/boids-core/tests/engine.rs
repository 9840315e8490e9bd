//! The engine against its contract: exact neighbour search, the same step as the brute-force
//! reference, bit-identical results across thread counts, and checkpoint/resume equality.

use boids_core::neighbors::NeighborSearch;
use boids_core::reference;
use boids_core::rules::Kernel;
use boids_core::{FlockState, Params, Simulation, Vec2, group};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

mod common;
use common::params;

/// Random states that stress the grid: uniform, dense clumps, and boids on the torus seams and
/// exactly on cell edges.
fn stress_state(params: &Params, seed: u64) -> FlockState {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (x0, y0) = (params.world_x_min as f32, params.world_y_min as f32);
    let (w, h) = (params.world_width as f32, params.world_height as f32);
    let r = params.visual_range as f32;
    let n = params.count;
    let mut positions = Vec::with_capacity(n);
    for i in 0..n {
        let p = match i % 4 {
            0 => Vec2::new(x0 + rng.random::<f32>() * w, y0 + rng.random::<f32>() * h),
            1 => Vec2::new(
                x0 + w * 0.3 + rng.random::<f32>() * r * 0.5,
                y0 + h * 0.6 + rng.random::<f32>() * r * 0.5,
            ),
            2 => Vec2::new(
                x0 + (rng.random::<f32>() - 0.5) * r * 1.5,
                y0 + rng.random::<f32>() * h,
            ),
            _ => Vec2::new(
                x0 + rng.random::<f32>() * w,
                y0 + (rng.random::<f32>() - 0.5) * r * 1.5,
            ),
        };
        positions.push(p);
    }
    // Pairs exactly one visual range apart along an axis, to exercise the range boundary.
    for k in 0..n.min(20) / 2 {
        positions[2 * k + 1] = positions[2 * k] + Vec2::new(r, 0.0);
    }
    if params.is_torus() {
        for p in &mut positions {
            *p = boids_core::rules::wrap(*p, Vec2::new(x0, y0), Vec2::new(w, h));
        }
    }
    let speed = params.max_speed.min(10.0) as f32;
    let velocities = (0..n)
        .map(|_| Vec2::new(rng.random::<f32>() - 0.5, rng.random::<f32>() - 0.5) * speed)
        .collect();
    let groups = boids_core::sim::scout_groups(params);
    let biases = groups
        .iter()
        .map(|&g| {
            if g == group::NONE {
                0.0
            } else {
                params.bias as f32
            }
        })
        .collect();
    FlockState {
        positions,
        velocities,
        groups,
        biases,
        ..FlockState::default()
    }
}

fn worlds() -> Vec<Params> {
    vec![
        params("cornell", &["count=600"]),
        params("cornell", &["count=300", "boundary=\"torus\""]),
        params("functional", &["count=800", "visual_range=1.0"]),
        params("occoids", &["count=500"]),
        params("canvas", &["count=200"]),
        params("allegheny", &["count=400"]),
        // Axes too short for three cells: the grid takes the minimum image per pair.
        params(
            "functional",
            &[
                "count=300",
                "world_width=1.5",
                "world_height=0.9",
                "visual_range=0.4",
                "init_x=[0,1]",
            ],
        ),
    ]
}

#[test]
fn grid_finds_exactly_the_brute_force_neighbours() {
    for (case, p) in worlds().iter().enumerate() {
        let state = stress_state(p, case as u64);
        let kernel = Kernel::new(p);
        let ids: Vec<u32> = (0..state.len() as u32).collect();
        let search = NeighborSearch::new(p, &state.positions, &ids);
        let expected = reference::neighbors(p, &state.positions, kernel.visual_below);
        for (i, want) in expected.iter().enumerate() {
            let mut got = Vec::new();
            search.for_each_candidate(i, |j, d| {
                if j != i && d.length_squared() < kernel.visual_below {
                    got.push(j as u32);
                }
            });
            got.sort_unstable();
            assert_eq!(
                &got, want,
                "case {case}, boid {i} at {:?}",
                state.positions[i]
            );
        }
        let total: usize = expected.iter().map(Vec::len).sum();
        assert!(
            total > state.len(),
            "case {case}: the test state should have many neighbours ({total})"
        );
    }
}

#[test]
fn a_grid_step_equals_the_brute_force_step() {
    for (case, p) in worlds().iter().enumerate() {
        let state = stress_state(p, 100 + case as u64);
        let want = reference::step(p, &state, 0);
        let mut sim = Simulation::from_state(p.clone(), 1, state, 0).unwrap();
        sim.step();
        let got = sim.state();
        let scale = p.world_width.max(p.world_height) as f32;
        for i in 0..got.len() {
            let dp = boids_core::reference::offset(p, got.positions[i], want.positions[i]).length();
            let dv = (got.velocities[i] - want.velocities[i]).length();
            let vscale = want.velocities[i].length().max(1e-3);
            assert!(
                dp <= 1e-5 * scale,
                "case {case} boid {i}: position off by {dp}"
            );
            assert!(
                dv <= 1e-4 * vscale,
                "case {case} boid {i}: velocity {:?} vs {:?}",
                got.velocities[i],
                want.velocities[i]
            );
            assert_eq!(got.biases[i], want.biases[i]);
        }
    }
}

fn run_bits(p: &Params, seed: u64, steps: usize) -> Vec<u32> {
    let mut sim = Simulation::new(p.clone(), seed).unwrap();
    for _ in 0..steps {
        sim.step();
    }
    bits(&sim.state())
}

fn bits(state: &FlockState) -> Vec<u32> {
    state
        .positions
        .iter()
        .zip(&state.velocities)
        .flat_map(|(p, v)| [p.x, p.y, v.x, v.y])
        .chain(state.biases.iter().copied())
        .map(f32::to_bits)
        .collect()
}

#[test]
fn results_are_bit_identical_for_any_thread_count() {
    let cases = [
        params("cornell", &["count=20000", "dynamic_bias=true"]),
        params(
            "functional",
            &[
                "count=12000",
                "world_width=40",
                "world_height=40",
                "init_x=[-20,20]",
                "init_y=[-20,20]",
            ],
        ),
    ];
    for p in &cases {
        let runs: Vec<Vec<u32>> = [1, 2, 3]
            .iter()
            .map(|&threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| run_bits(p, 9, 15))
            })
            .collect();
        assert_eq!(runs[0], runs[1], "1 vs 2 threads");
        assert_eq!(runs[0], runs[2], "1 vs 3 threads");
    }
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let p = params("occoids", &[]);
    assert_eq!(run_bits(&p, 5, 30), run_bits(&p, 5, 30));
    assert_ne!(run_bits(&p, 5, 30), run_bits(&p, 6, 30));
}

#[test]
fn resuming_from_a_checkpoint_continues_bit_identically() {
    for preset in ["cornell", "functional", "canvas", "allegheny", "occoids"] {
        let p = params(preset, &["dynamic_bias=true"]);
        let mut straight = Simulation::new(p.clone(), 3).unwrap();
        let mut first_half = Simulation::new(p.clone(), 3).unwrap();
        for _ in 0..150 {
            straight.step();
            first_half.step();
        }
        let checkpoint = first_half.state();
        for _ in 0..150 {
            straight.step();
        }
        let mut resumed = Simulation::from_state(p.clone(), 3, checkpoint, 150).unwrap();
        for _ in 0..150 {
            resumed.step();
        }
        assert_eq!(bits(&resumed.state()), bits(&straight.state()), "{preset}");
    }
}

#[test]
fn live_parameter_changes_keep_the_flock() {
    let mut sim = Simulation::new(params("cornell", &[]), 1).unwrap();
    sim.step();
    let before = sim.state();
    let mut more = sim.params().clone();
    more.count = 700;
    more.visual_range = 60.0;
    sim.set_params(more.clone()).unwrap();
    let after = sim.state();
    assert_eq!(after.len(), 700);
    assert_eq!(&after.positions[..500], &before.positions[..]);
    let fresh = FlockState::initial(&more, 1);
    assert_eq!(&after.positions[500..], &fresh.positions[500..]);
    let mut fewer = more;
    fewer.count = 100;
    sim.set_params(fewer).unwrap();
    assert_eq!(sim.state().positions[..], before.positions[..100]);
}

#[test]
fn unusable_states_are_refused_with_the_boid_and_field() {
    let p = params("cornell", &["count=3"]);
    let mut state = FlockState::initial(&p, 0);
    state.velocities[2].y = f32::NAN;
    let err = Simulation::from_state(p.clone(), 0, state, 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("boid 2") && err.contains("velocity"), "{err}");
    let mut state = FlockState::initial(&p, 0);
    state.groups[1] = 7;
    let err = Simulation::from_state(p, 0, state, 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("group") && err.contains("0 (none), 1 (+x) or 2 (-x)"),
        "{err}"
    );
}
