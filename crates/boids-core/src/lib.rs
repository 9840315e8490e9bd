//! # boids-core
//!
//! Craig Reynolds' boids (separation, alignment, cohesion) as a small, fast, deterministic
//! library: a library, not a framework. It does no I/O; front ends (the `boids` command, the
//! renderer, the live viewer) read a borrowed view of the state.
//!
//! ```
//! use boids_core::{Params, Simulation, Metrics};
//!
//! let params = Params::preset("cornell").unwrap();
//! let mut sim = Simulation::<2>::new(params, 42).unwrap();
//! for _ in 0..100 {
//!     sim.step().unwrap();
//! }
//! let metrics = Metrics::measure(sim.params(), &sim.state());
//! assert!(metrics.polarization >= 0.0 && metrics.polarization <= 1.0);
//! ```
//!
//! ## The model contract
//!
//! - **Synchronous update.** Every boid reads the previous frame; new state goes to a second
//!   buffer. Seeds 001 and 002 update boids in place while they loop, so there a boid sees
//!   earlier boids' new state; we do not, on purpose: the result is then independent of boid
//!   order and the step can run in parallel.
//! - **Determinism, per engine.** The same parameters and seed give the same states run after
//!   run: neighbour sums run in a canonical order (cells in a fixed order, ids ascending within
//!   a cell) and random numbers come from counter-based streams keyed by `(seed, step, boid
//!   id)` ([`rng`]). What an engine promises beyond that is its own ([`engine`]): the CPU engine,
//!   the reference, gives bit-identical states on any thread count and any CPU build; another
//!   engine may promise less: the GPU engine (the `boids-gpu` crate) is bit-identical run to
//!   run on one adapter and driver, and within float tolerance of the CPU engine, since a GPU
//!   rounds divisions, square roots and fused multiply-adds differently.
//! - **Exact neighbour search.** A uniform grid with cells a visual range high and half of one
//!   wide, rebuilt each step by counting sort, with boid data moved into cell order ([`grid`]). It
//!   finds exactly the neighbours a brute-force scan finds, across torus seams too
//!   ([`mod@reference`] keeps that scan for the tests). Every neighbour question asked outside
//!   the step (metrics, debug overlays, the viewer's pick) is answered by [`neighbors`], on the
//!   same grid and under the simulation's own ranges.
//! - **Units.** Each preset fixes its own world, units and time step, as its seed does
//!   ([`presets`]). State is `f32`; parameters are `f64` and rounded once per step setup.
//! - **Finite states.** Every real parameter lies within a magnitude set by its unit
//!   ([`params::Unit::limit`]), so one step of a flock stays inside `f32`; a step that would
//!   still leave a boid not finite (a flock diverging over many steps) is refused with
//!   [`StateError::NonFinite`], naming the step and the boid, and the flock stays as it was.
//!
//! The debug overlays (seed 000's view of why each boid turns) are data computed here too
//! ([`overlay`]), so the renderer and the live viewer show the same thing.
//!
//! A step is a short list of named, timed stages ([`sim`], [`Stage`]): the world's steer and
//! hunt, the engine's grid path (bin, sort, interact: every model on one neighbour walk,
//! `walk/`) or the general path of a perching flock,
//! then the world's obstacle pass and catch. The world is one object ([`world::World`]); the
//! grid path runs behind one seam ([`Engine`]), the door for a second engine.
//!
//! The rules themselves are documented in [`rules`]; the Vicsek and Couzin models, topological
//! (k-nearest) neighbours and the blind angle in [`models`]. Experiments that reproduce published
//! results and parameter sweeps live apart, in the `boids-lab` crate.

pub mod camera;
mod choice;
pub mod engine;
pub mod error;
pub mod flock;
pub mod grid;
pub mod interact;
pub mod metrics;
pub mod models;
pub mod neighbors;
pub mod obstacles;
pub mod overlay;
mod par;
pub mod params;
pub mod presets;
mod real;
pub mod reference;
pub mod rng;
pub mod rules;
pub mod sim;
pub mod space;
pub mod state;
pub mod stats;
// The only unsafe code of the workspace: vector intrinsics, behind run-time feature detection.
#[allow(unsafe_code)]
mod simd;
mod walk;
pub mod workload;
pub mod world;

pub use engine::{Engine, EngineKind};
pub use error::{ParamsError, StateError};
pub use flock::Flock;
pub use glam::{Vec2, Vec3};
pub use metrics::{METRIC_COLUMNS, Metrics};
pub use par::in_pool;
pub use params::{
    Boundary, Model, NoiseDistribution, PARAMS, ParamInfo, Params, ParamsBuilder, Source,
};
pub use presets::{DEFAULT_PRESET, PRESETS, Preset};
pub use rules::{RuleVectors, group};
pub use sim::Simulation;
pub use space::{Coordinates, Dim, Dimension, VecN};
pub use state::FlockState;
pub use stats::{ScanCounts, Stage, StageTimes, StepStats};

/// The guide's Rust examples (its chapter on the library), compiled and run as doctests.
#[doc = include_str!("../../../docs/src/library.md")]
#[cfg(doctest)]
pub struct GuideDoctests;
