//! The engine against its contract: exact neighbour search, the same step as the brute-force
//! reference, bit-identical results across thread counts, and checkpoint/resume equality.

use boids_core::neighbors::NeighborSearch;
use boids_core::reference;
use boids_core::rules::Kernel;
use boids_core::{Coordinates, Dim, Dimension, FlockState, Params, Simulation, VecN, group};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

mod common;
use common::params;

/// Random states of `D` dimensions that stress the grid: uniform, dense clumps, and boids on
/// the torus seams (every face, so in 3D also the edges and corners where seams meet) and
/// exactly on cell edges.
fn stress_state<const D: usize>(params: &Params, seed: u64) -> FlockState<D>
where
    Dim<D>: Dimension<D>,
{
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (min, size) = params.world_box::<D>();
    let r = params.visual_range as f32;
    let n = params.count;
    let mut positions: Vec<VecN<D>> = Vec::with_capacity(n);
    for i in 0..n {
        let mut uniform = |a: usize| min[a] + rng.random::<f32>() * size[a];
        let mut p: [f32; D] = std::array::from_fn(&mut uniform);
        match i % 4 {
            0 => {}
            1 => {
                for (a, c) in p.iter_mut().enumerate() {
                    let at = [0.3, 0.6, 0.45][a];
                    *c = min[a] + size[a] * at + rng.random::<f32>() * r * 0.5;
                }
            }
            // Near a seam: one axis, or (every eighth boid) all of them, a corner.
            _ => {
                let axes = if i % 8 == 2 {
                    0..D
                } else {
                    (i / 4) % D..(i / 4) % D + 1
                };
                for a in axes {
                    p[a] = min[a] + (rng.random::<f32>() - 0.5) * r * 1.5;
                }
            }
        }
        positions.push(p.into());
    }
    // Pairs exactly one visual range apart along an axis, to exercise the range boundary.
    for k in 0..n.min(20) / 2 {
        let mut apart = [0.0; D];
        apart[k % D] = r;
        positions[2 * k + 1] = positions[2 * k] + apart.into();
    }
    if params.is_torus() {
        let (min, size) = (min.into(), size.into());
        for p in &mut positions {
            *p = boids_core::space::wrap(*p, min, size);
        }
    }
    let speed = params.max_speed.min(10.0) as f32;
    let velocities = (0..n)
        .map(|_| {
            let v: [f32; D] = std::array::from_fn(|_| (rng.random::<f32>() - 0.5) * speed);
            v.into()
        })
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

/// Worlds of every boundary and path, in `dimensions` dimensions.
fn worlds(dimensions: usize) -> Vec<Params> {
    let d = format!("dimensions={dimensions}");
    let world = |preset: &str, sets: &[&str]| {
        let sets: Vec<&str> = sets.iter().copied().chain([d.as_str()]).collect();
        params(preset, &sets)
    };
    vec![
        world("cornell", &["count=600"]),
        world("cornell", &["count=300", "boundary=\"torus\""]),
        world("functional", &["count=800", "visual_range=1.0"]),
        world("occoids", &["count=500"]),
        world("canvas", &["count=200"]),
        world("allegheny", &["count=400"]),
        // Axes too short for three cells: the grid takes the minimum image per pair.
        world(
            "functional",
            &[
                "count=300",
                "world_width=1.5",
                "world_height=0.9",
                "world_depth=1.1",
                "visual_range=0.4",
                "init_x=[0,1]",
            ],
        ),
    ]
}

/// The neighbour search finds, for every boid, exactly the brute-force neighbours, in `D`
/// dimensions (across every seam, edge and corner of a torus).
fn grid_finds_exactly_the_brute_force_neighbours_in<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for (case, p) in worlds(D).iter().enumerate() {
        let state = stress_state::<D>(p, case as u64);
        let kernel = Kernel::<D>::new(p);
        let ids: Vec<u32> = (0..state.len() as u32).collect();
        let search = NeighborSearch::<D>::new(p, &state.positions, &ids);
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
                "{D}D case {case}, boid {i} at {:?}",
                state.positions[i]
            );
        }
        let total: usize = expected.iter().map(Vec::len).sum();
        assert!(
            total > state.len(),
            "{D}D case {case}: the test state should have many neighbours ({total})"
        );
    }
}

#[test]
fn grid_finds_exactly_the_brute_force_neighbours() {
    grid_finds_exactly_the_brute_force_neighbours_in::<2>();
}

#[test]
fn grid_finds_exactly_the_brute_force_neighbours_in_3d() {
    grid_finds_exactly_the_brute_force_neighbours_in::<3>();
}

/// One grid step against the brute-force step, in `D` dimensions: the scan counts exactly
/// the pairs within the visual range that the brute force finds (across every seam, edge
/// and corner of a torus), and the new state agrees to rounding (the sums run in another
/// order).
fn grid_step_equals_brute_force_step<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for (case, p) in worlds(D).iter().enumerate() {
        let state = stress_state::<D>(p, 100 + case as u64);
        let want = reference::step(p, &state, 0);
        let pairs: usize =
            reference::neighbors(p, &state.positions, Kernel::<D>::new(p).visual_below)
                .iter()
                .map(Vec::len)
                .sum();
        let mut sim = Simulation::<D>::from_state(p.clone(), 1, state, 0).unwrap();
        sim.step().unwrap();
        assert_eq!(
            sim.stats().counts.neighbors,
            pairs as u64,
            "{D}D case {case}"
        );
        assert!(
            pairs > p.count,
            "{D}D case {case}: too few neighbours ({pairs})"
        );
        let got = sim.state();
        let scale = p.world_width.max(p.world_height) as f32;
        for i in 0..got.len() {
            let dp = reference::offset(p, got.positions[i], want.positions[i]).length();
            let dv = (got.velocities[i] - want.velocities[i]).length();
            let vscale = want.velocities[i].length().max(1e-3);
            assert!(
                dp <= 1e-5 * scale,
                "{D}D case {case} boid {i}: position off by {dp}"
            );
            assert!(
                dv <= 1e-4 * vscale,
                "{D}D case {case} boid {i}: velocity {:?} vs {:?}",
                got.velocities[i],
                want.velocities[i]
            );
            assert_eq!(got.biases[i], want.biases[i]);
        }
    }
}

#[test]
fn a_grid_step_equals_the_brute_force_step() {
    grid_step_equals_brute_force_step::<2>();
}

#[test]
fn a_grid_step_equals_the_brute_force_step_in_3d() {
    grid_step_equals_brute_force_step::<3>();
}

fn run_bits<const D: usize>(p: &Params, seed: u64, steps: usize) -> Vec<u32>
where
    Dim<D>: Dimension<D>,
{
    let mut sim = Simulation::<D>::new(p.clone(), seed).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    bits(&sim.state())
}

fn bits<const D: usize>(state: &FlockState<D>) -> Vec<u32>
where
    Dim<D>: Dimension<D>,
{
    state
        .positions
        .iter()
        .zip(&state.velocities)
        .flat_map(|(p, v)| p.to_array().into_iter().chain(v.to_array()))
        .chain(state.biases.iter().copied())
        .map(f32::to_bits)
        .collect()
}

fn bit_identical_for_any_thread_count<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    let d = format!("dimensions={D}");
    let cases = [
        params("cornell", &["count=20000", "dynamic_bias=true", &d]),
        params(
            "functional",
            &[
                "count=12000",
                "world_width=40",
                "world_height=40",
                "world_depth=40",
                "init_x=[-20,20]",
                "init_y=[-20,20]",
                "init_z=[-20,20]",
                &d,
            ],
        ),
    ];
    for p in &cases {
        let runs: Vec<Vec<u32>> = [1, 2, 3]
            .iter()
            .map(|&threads| common::on_threads(threads, || run_bits::<D>(p, 9, 15)))
            .collect();
        assert_eq!(runs[0], runs[1], "{D}D: 1 vs 2 threads");
        assert_eq!(runs[0], runs[2], "{D}D: 1 vs 3 threads");
    }
}

#[test]
fn results_are_bit_identical_for_any_thread_count() {
    bit_identical_for_any_thread_count::<2>();
}

#[test]
fn results_are_bit_identical_for_any_thread_count_in_3d() {
    bit_identical_for_any_thread_count::<3>();
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let p = params("occoids", &[]);
    assert_eq!(run_bits::<2>(&p, 5, 30), run_bits::<2>(&p, 5, 30));
    assert_ne!(run_bits::<2>(&p, 5, 30), run_bits::<2>(&p, 6, 30));
}

fn resume_continues_bit_identically<const D: usize>()
where
    Dim<D>: Dimension<D>,
{
    for preset in ["cornell", "functional", "canvas", "allegheny", "occoids"] {
        let p = params(preset, &["dynamic_bias=true", &format!("dimensions={D}")]);
        let mut straight = Simulation::<D>::new(p.clone(), 3).unwrap();
        let mut first_half = Simulation::<D>::new(p.clone(), 3).unwrap();
        for _ in 0..150 {
            straight.step().unwrap();
            first_half.step().unwrap();
        }
        let checkpoint = first_half.state();
        for _ in 0..150 {
            straight.step().unwrap();
        }
        let mut resumed = Simulation::<D>::from_state(p.clone(), 3, checkpoint, 150).unwrap();
        for _ in 0..150 {
            resumed.step().unwrap();
        }
        assert_eq!(
            bits(&resumed.state()),
            bits(&straight.state()),
            "{D}D {preset}"
        );
    }
}

#[test]
fn resuming_from_a_checkpoint_continues_bit_identically() {
    resume_continues_bit_identically::<2>();
}

#[test]
fn resuming_from_a_3d_checkpoint_continues_bit_identically() {
    resume_continues_bit_identically::<3>();
}

#[test]
fn live_parameter_changes_keep_the_flock() {
    let mut sim = Simulation::<2>::new(params("cornell", &[]), 1).unwrap();
    sim.step().unwrap();
    let before = sim.state();
    let mut more = sim.params().clone();
    more.count = 700;
    more.visual_range = 60.0;
    sim.set_params(more.clone()).unwrap();
    let after = sim.state();
    assert_eq!(after.len(), 700);
    assert_eq!(&after.positions[..500], &before.positions[..]);
    let fresh = FlockState::<2>::initial(&more, 1);
    assert_eq!(&after.positions[500..], &fresh.positions[500..]);
    let mut fewer = more;
    fewer.count = 100;
    sim.set_params(fewer).unwrap();
    assert_eq!(sim.state().positions[..], before.positions[..100]);
}

#[test]
fn unusable_states_are_refused_with_the_boid_and_field() {
    let p = params("cornell", &["count=3"]);
    let mut state = FlockState::<2>::initial(&p, 0);
    state.velocities[2].y = f32::NAN;
    let err = Simulation::<2>::from_state(p.clone(), 0, state, 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("boid 2") && err.contains("velocity"), "{err}");
    let mut state = FlockState::<2>::initial(&p, 0);
    state.groups[1] = 7;
    let err = Simulation::<2>::from_state(p, 0, state, 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("group") && err.contains("0 (none), 1 (+x) or 2 (-x)"),
        "{err}"
    );
}

#[test]
fn parameters_of_another_dimension_are_refused() {
    let flat = params("cornell", &[]);
    let deep = params("cornell", &["dimensions=3"]);
    let err = Simulation::<2>::new(deep.clone(), 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dimensions = 3") && err.contains("Simulation::<3>"),
        "{err}"
    );
    let err = Simulation::<3>::new(flat.clone(), 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("dimensions = 2"), "{err}");
    let mut sim = Simulation::<3>::new(deep, 0).unwrap();
    let err = sim.set_params(flat).unwrap_err().to_string();
    assert!(err.contains("3-dimensional"), "{err}");
}
