//! The GPU engine against the CPU engine and the brute-force reference: the same step to float
//! tolerance for every preset it runs (the boids presets and Vicsek's, noise included), the same neighbours across torus seams, the same bytes
//! run after run, and a clear refusal of what it does not run.
//!
//! Without an adapter these tests skip with a message; under `CI=true` they fail instead (CI
//! installs Mesa's lavapipe, a Vulkan adapter on the CPU).

use boids_core::engine::Engine;
use boids_core::rules::Kernel;
use boids_core::{
    Dim, Dimension, FlockState, Params, ParamsBuilder, Simulation, Source, StateError, reference,
    workload,
};
use boids_gpu::GpuEngine;

/// The GPU engine for `D` dimensions, or `None` (with a message) where there is no adapter
/// outside CI.
fn gpu<const D: usize>() -> Option<Box<dyn Engine<D>>>
where
    Dim<D>: Dimension<D>,
{
    match GpuEngine::<D>::new() {
        Ok(engine) => Some(Box::new(engine)),
        Err(error) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: {error}");
            None
        }
        Err(error) => panic!("CI must have a GPU adapter (lavapipe): {error}"),
    }
}

fn params(preset: &str, sets: &[&str]) -> Params {
    let mut builder = ParamsBuilder::preset(preset).unwrap();
    for set in sets {
        builder = builder
            .apply_assignment(set, Source::Flag((*set).to_owned()))
            .unwrap();
    }
    builder.build().unwrap()
}

/// The presets the GPU engine runs (the boids model), in two dimensions and three.
const PRESETS: [&str; 5] = ["cornell", "functional", "canvas", "allegheny", "occoids"];

/// The largest distance between a boid's position on the GPU and on the CPU, over the world's
/// size, and the share of boids within `tolerance` of it.
fn compare<const D: usize>(gpu: &FlockState<D>, cpu: &FlockState<D>, size: f32) -> (f32, f64)
where
    Dim<D>: Dimension<D>,
{
    let tolerance = 1e-5;
    let gaps: Vec<f32> = (gpu.positions.iter().zip(&cpu.positions))
        .map(|(g, c)| {
            let (g, c): ([f32; D], [f32; D]) = ((*g).into(), (*c).into());
            // A boid on a torus seam may sit at either edge.
            (0..D)
                .map(|a| {
                    let d = (g[a] - c[a]).abs();
                    d.min((size - d).abs()) / size
                })
                .fold(0.0f32, f32::max)
        })
        .collect();
    let within = gaps.iter().filter(|&&gap| gap <= tolerance).count();
    let worst = gaps.iter().copied().fold(0.0f32, f32::max);
    (worst, within as f64 / gaps.len() as f64)
}

fn against_cpu<const D: usize>(preset: &str, sets: &[&str])
where
    Dim<D>: Dimension<D>,
{
    let Some(engine) = gpu::<D>() else { return };
    let p = params(preset, sets);
    let size = p.world_width.max(p.world_height) as f32;
    let mut cpu = Simulation::<D>::new(p.clone(), 3).unwrap();
    let mut gpu = Simulation::<D>::with_engine(p, 3, engine).unwrap();
    cpu.step().unwrap();
    gpu.step().unwrap();
    let (worst, _) = compare(&gpu.state(), &cpu.state(), size);
    eprintln!("{preset} {D}D: one step apart by at most {worst:e} of the world");
    assert!(
        worst <= 1e-5,
        "{preset} {D}D: one step apart by {worst} of the world"
    );
    cpu.step_many(9).unwrap();
    gpu.step_many(9).unwrap();
    // One batch of nine: its times are the nine steps', its stage times one step's.
    let stats = gpu.stats();
    assert_eq!(stats.steps, 9);
    assert_eq!(gpu.stage_times(), stats.times.per_step(9));
    let (_, within) = compare(&gpu.state(), &cpu.state(), size);
    assert!(
        within >= 0.99,
        "{preset} {D}D: after 10 steps {within} of the boids agree"
    );
    assert_eq!(gpu.step_count(), 10);
}

#[test]
fn every_preset_it_runs_steps_as_the_cpu_engine_does_in_2d() {
    for preset in PRESETS {
        against_cpu::<2>(preset, &["count=300"]);
    }
    // Vicsek's noise comes from the same keyed streams as on the CPU.
    against_cpu::<2>("vicsek", &[]);
    against_cpu::<2>("vicsek", &["noise_distribution=gaussian", "turn_rate=0.5"]);
}

#[test]
fn every_preset_it_runs_steps_as_the_cpu_engine_does_in_3d() {
    for preset in PRESETS {
        against_cpu::<3>(preset, &["count=300", "dimensions=3"]);
    }
    against_cpu::<3>("vicsek3d", &["count=500"]);
    against_cpu::<3>(
        "vicsek3d",
        &["count=500", "noise_distribution=gaussian", "turn_rate=0.5"],
    );
}

/// Neighbours of every boid on a W3 torus of 4,096 boids (many across its seams): the GPU's
/// count equals the brute-force reference's for every boid.
fn neighbours_across_seams<const D: usize>(dimensions: &str)
where
    Dim<D>: Dimension<D>,
{
    let Some(engine) = gpu::<D>() else { return };
    let base = params("cornell", &[dimensions]);
    let p = workload::w3(&base, 4096, 25.0, "test").unwrap();
    let state = FlockState::<D>::initial(&p, 11);
    let kernel = Kernel::<D>::new(&p);
    let expected: Vec<u32> = reference::neighbors(&p, &state.positions, kernel.visual_below)
        .iter()
        .map(|n| n.len() as u32)
        .collect();
    let near_seam = state.positions.iter().filter(|q| {
        let q: [f32; D] = (**q).into();
        q.iter().any(|&x| x < p.visual_range as f32)
    });
    assert!(
        near_seam.count() > 100,
        "the flock should straddle the seams"
    );
    let mut probe = GpuEngine::<D>::new().unwrap();
    let counts = probe.neighbour_counts(&p, &state).unwrap();
    let mut gpu = Simulation::<D>::with_engine(p, 11, engine).unwrap();
    assert_eq!(counts, expected, "per-boid neighbour counts, {D}D");
    gpu.step().unwrap();
    let total: u64 = expected.iter().map(|&c| u64::from(c)).sum();
    assert_eq!(gpu.stats().counts.neighbors, total);
}

#[test]
fn neighbour_counts_equal_the_reference_across_torus_seams_in_2d() {
    neighbours_across_seams::<2>("dimensions=2");
}

#[test]
fn neighbour_counts_equal_the_reference_across_torus_seams_in_3d() {
    neighbours_across_seams::<3>("dimensions=3");
}

#[test]
fn two_runs_of_two_hundred_steps_give_the_same_bytes() {
    let run = || {
        let engine = gpu::<2>()?;
        let p = params("cornell", &["count=2000"]);
        let mut sim = Simulation::<2>::with_engine(p, 7, engine).unwrap();
        sim.step_many(200).unwrap();
        let mut bytes = Vec::new();
        boids_io::state_csv::write(&mut bytes, &sim.state()).unwrap();
        Some(bytes)
    };
    let (Some(first), Some(second)) = (run(), run()) else {
        return;
    };
    assert_eq!(first, second);
}

/// A step that leaves a boid not finite is refused and undone, one step at a time and in a
/// batch (the steps before it kept), with the flock as it was.
#[test]
fn a_step_that_is_not_finite_is_refused_and_the_flock_kept() {
    let Some(engine) = gpu::<2>() else { return };
    // A torus flock whose alignment overshoots a thousandfold each step, with no speed limit.
    let diverging = [
        "count=50",
        "max_speed=inf",
        "matching_factor=1000",
        "steering_gain=1000",
    ];
    let p = params("allegheny", &diverging);
    let mut sim = Simulation::<2>::with_engine(p.clone(), 3, engine).unwrap();
    let (step, before) = loop {
        let (before, step) = (sim.state(), sim.step_count());
        match sim.step() {
            Ok(()) => assert!(step < 100, "the flock never diverged"),
            Err(refused) => {
                let StateError::NonFinite { step: named, .. } = refused else {
                    panic!("{refused}");
                };
                assert_eq!(named, step + 1);
                assert_eq!(sim.step_count(), step, "the step is not counted");
                assert_eq!(sim.state(), before, "the flock stays as it was");
                break (step, before);
            }
        }
    };
    let mut batched = Simulation::<2>::with_engine(p, 3, gpu::<2>().unwrap()).unwrap();
    let refused = batched.step_many(step + 10).unwrap_err();
    assert!(matches!(refused, StateError::NonFinite { .. }), "{refused}");
    assert_eq!(batched.step_count(), step);
    assert_eq!(batched.state(), before);
}

#[test]
fn what_it_does_not_run_is_refused_by_name() {
    let Some(engine) = gpu::<2>() else { return };
    let refused = Simulation::<2>::with_engine(params("cornell", &["predator_count=2"]), 1, engine)
        .err()
        .unwrap();
    let message = refused.to_string();
    assert!(matches!(refused, StateError::Unsupported(_)), "{message}");
    assert!(
        message.contains("predator_count = 2") && message.contains("cpu engine"),
        "{message}"
    );
    for preset in ["couzin", "couzin2002", "pillars", "perching", "murmuration"] {
        let p = params(preset, &[]);
        boids_core::with_dimensions!(p.dimensions, D, {
            let Some(engine) = gpu::<D>() else { return };
            let result = Simulation::<D>::with_engine(p, 1, engine);
            assert!(
                matches!(result, Err(StateError::Unsupported(_))),
                "{preset}"
            );
        });
    }
}

#[test]
fn a_live_change_to_what_it_does_not_run_is_refused_and_the_flock_kept() {
    let Some(engine) = gpu::<2>() else { return };
    let mut sim =
        Simulation::<2>::with_engine(params("cornell", &["count=100"]), 1, engine).unwrap();
    sim.step_many(3).unwrap();
    let before = sim.state();
    let error = sim
        .set_params(params("cornell", &["count=100", "blind_angle=1"]))
        .unwrap_err();
    assert!(error.to_string().contains("blind_angle = 1"), "{error}");
    assert_eq!(sim.state(), before);
    assert!(sim.set_pointer(Some([1.0, 2.0].into())).is_err());
    sim.step_many(2).unwrap();
    assert_eq!(sim.step_count(), 5);
}

/// Moves of many worlds a step on a torus wrap back inside it, in both dimensions: the wrap
/// takes the exact remainder, as the CPU engine does, not `t - e * floor(t / e)`, which is off
/// by an ulp of a move of 1e15 (6.7e7, a hundred thousand worlds).
#[test]
fn a_huge_move_on_a_torus_wraps_inside_the_world() {
    fn wraps<const D: usize>(dimensions: &str)
    where
        Dim<D>: Dimension<D>,
    {
        let Some(engine) = gpu::<D>() else { return };
        let huge = [
            dimensions,
            "count=1000",
            "boundary=\"torus\"",
            "dt=1e6",
            "max_speed=1e9",
            "min_speed=1e9",
        ];
        let p = params("cornell", &huge);
        let (lo, size) = p.world_box::<D>();
        let mut sim = Simulation::<D>::with_engine(p, 5, engine).unwrap();
        sim.step_many(50).unwrap();
        for (id, position) in sim.state().positions.iter().enumerate() {
            let x: [f32; D] = (*position).into();
            assert!(
                (0..D).all(|a| x[a] >= lo[a] && x[a] < lo[a] + size[a]),
                "{D}D: boid {id} at {x:?}, outside the world from {lo:?} of size {size:?}"
            );
        }
    }
    wraps::<2>("dimensions=2");
    wraps::<3>("dimensions=3");
}

/// A torus flock whose alignment overshoots a thousandfold a step with no speed limit is
/// refused at the step the CPU engine refuses (it once wrapped every boid to the world's
/// corner, where they all agreed and never diverged).
#[test]
fn a_diverging_torus_flock_is_refused_at_the_cpu_engines_step() {
    let Some(engine) = gpu::<2>() else { return };
    let p = params(
        "cornell",
        &[
            "count=2000",
            "boundary=\"torus\"",
            "matching_factor=1000",
            "max_speed=inf",
        ],
    );
    let refused_at = |mut sim: Simulation<2>| match sim.step_many(50) {
        Err(StateError::NonFinite { step, .. }) => step,
        other => panic!("not refused as not finite: {other:?}"),
    };
    let cpu = refused_at(Simulation::<2>::new(p.clone(), 0).unwrap());
    let gpu = refused_at(Simulation::<2>::with_engine(p, 0, engine).unwrap());
    assert_eq!(gpu, cpu);
}
