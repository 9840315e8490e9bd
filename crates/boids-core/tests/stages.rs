//! The step as named stages, and the door for a second engine: each stage that runs is timed
//! under its own name (nothing of the world is booked as the grid path's `interact`), and an
//! engine given from outside the core steps the grid path through the `Engine` seam.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use boids_core::engine::{Before, CpuEngine, EngineFailure, FlockBuffers, GridStep};
use boids_core::{Engine, EngineKind, ScanCounts, Simulation, StageTimes};

mod common;
use common::params;

/// The names of the stages the last step ran, in step order.
fn stages_run(preset: &str, sets: &[&str]) -> Vec<&'static str> {
    let mut sim = Simulation::<2>::new(params(preset, sets), 7).unwrap();
    sim.step().unwrap();
    sim.stage_times().named().map(|(name, _)| name).collect()
}

#[test]
fn each_stage_that_runs_is_timed_under_its_own_name() {
    assert_eq!(stages_run("cornell", &[]), ["bin", "sort", "interact"]);
    let hunted = ["predator_count=2", "capture_range=5", "fear_range=50"];
    assert_eq!(
        stages_run("cornell", &hunted),
        ["steer", "hunt", "bin", "sort", "interact", "catch"]
    );
    assert_eq!(
        stages_run("pillars", &[]),
        ["steer", "bin", "sort", "interact", "obstacles"]
    );
    assert_eq!(stages_run("vicsek", &[]), ["bin", "sort", "interact"]);
    let attracted = ["attractors=[[320.0, 240.0]]", "attract_factor=0.01"];
    assert_eq!(
        stages_run("vicsek", &attracted),
        ["steer", "bin", "sort", "interact"]
    );
    assert_eq!(stages_run("perching", &[]), ["general"]);
}

/// The CPU engine, counting the steps it is asked for: an engine from outside the core.
#[derive(Clone, Debug, Default)]
struct Counting {
    inner: CpuEngine<2>,
    steps: Arc<AtomicU64>,
}

impl Engine<2> for Counting {
    fn kind(&self) -> EngineKind {
        self.inner.kind()
    }

    fn reserve(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        self.inner.reserve(n)
    }

    fn step(
        &mut self,
        job: &GridStep<'_, 2>,
        flock: &mut FlockBuffers<2>,
        times: &mut StageTimes,
    ) -> Result<ScanCounts, EngineFailure> {
        self.steps.fetch_add(1, Ordering::Relaxed);
        self.inner.step(job, flock, times)
    }

    fn before(&self) -> Before<'_, 2> {
        self.inner.before()
    }

    fn undo(&mut self, flock: &mut FlockBuffers<2>) {
        self.inner.undo(flock);
    }

    fn boxed_clone(&self) -> Box<dyn Engine<2>> {
        Box::new(self.clone())
    }
}

#[test]
fn an_engine_from_outside_steps_the_grid_path_through_the_seam() {
    for preset in ["cornell", "pillars"] {
        let p = params(preset, &["predator_count=1", "capture_range=4"]);
        let counting = Counting::default();
        let steps = Arc::clone(&counting.steps);
        let mut outside = Simulation::<2>::with_engine(p.clone(), 3, Box::new(counting)).unwrap();
        let mut built_in = Simulation::<2>::new(p, 3).unwrap();
        for _ in 0..20 {
            outside.step().unwrap();
            built_in.step().unwrap();
        }
        assert_eq!(steps.load(Ordering::Relaxed), 20, "{preset}");
        assert_eq!(outside.state(), built_in.state(), "{preset}");
    }
    // The general path (perching) never asks the engine.
    let counting = Counting::default();
    let steps = Arc::clone(&counting.steps);
    let perching = params("perching", &[]);
    let mut perching = Simulation::<2>::with_engine(perching, 3, Box::new(counting));
    perching.as_mut().unwrap().step().unwrap();
    assert_eq!(steps.load(Ordering::Relaxed), 0);
}

#[test]
fn an_engine_is_named_by_the_faces_and_an_unknown_name_is_refused() {
    assert_eq!("cpu".parse::<EngineKind>(), Ok(EngineKind::Cpu));
    assert_eq!("gpu".parse::<EngineKind>(), Ok(EngineKind::Gpu));
    let error = "tpu".parse::<EngineKind>().unwrap_err().to_string();
    assert_eq!(error, "unknown engine \"tpu\": the engines are cpu, gpu");
    let engine = EngineKind::Cpu.build().unwrap();
    let sim = Simulation::<3>::with_engine(params("vicsek3d", &[]), 1, engine);
    assert_eq!(sim.unwrap().engine(), EngineKind::Cpu);
}

#[test]
fn a_build_without_the_gpu_engine_says_how_to_get_it() {
    let error = EngineKind::Gpu.build::<2>().err().unwrap().to_string();
    assert!(
        error.contains("no gpu engine") && error.contains("--features gpu"),
        "{error}"
    );
}

#[test]
fn step_many_is_step_called_that_many_times() {
    for preset in ["cornell", "vicsek"] {
        let mut one = Simulation::<2>::new(params(preset, &[]), 5).unwrap();
        let mut many = one.clone();
        for _ in 0..7 {
            one.step().unwrap();
        }
        many.step_many(7).unwrap();
        assert_eq!(many.step_count(), 7);
        assert_eq!(one.state(), many.state(), "{preset}");
    }
}
