//! The GPU engine of boids: the boids model's grid path (bin, counting sort by cell, neighbour
//! scan and rules, move), and the Vicsek model on the same grid, as WGSL compute shaders on
//! wgpu, so a flock runs on any Vulkan, Metal or DX12 adapter, and through Mesa's lavapipe on
//! a CPU.
//!
//! The engine goes through the core's door for engines ([`boids_core::Engine`]): [`install`]
//! hands the core its maker, after which every face builds it by name (`--engine gpu`,
//! Python's `engine="gpu"`). The flock stays on the device between steps and comes back only
//! when the simulation hands the engine a batch's end ([`boids_core::Simulation::step_many`]).
//!
//! What it promises: the same neighbour sets as the CPU engine (exact ranges with the preset's
//! comparison, torus seams wrapped), and bit-identical states run after run on one adapter and
//! driver (integer atomics only, boids ordered by id within a cell, sums in a fixed order). Not
//! bit equality with the CPU engine: division, square roots and fused multiply-adds round
//! differently on a GPU, so the two agree to float tolerance. Vicsek's noise comes from the
//! CPU engine's keyed streams (`boids_core::rng`), so a noisy flock differs only by rounding. What it does not run yet it
//! refuses by name ([`supports`]).

mod constants;
mod device;
mod engine;
mod pipelines;
mod resident;
mod support;

pub use device::{Gpu, describe, shared};
pub use engine::{GpuEngine, bytes_per_boid};
pub use support::supports;

use boids_core::engine::{EngineMaker, install_gpu};

/// Makes `EngineKind::Gpu` build this engine in every face of the process.
pub fn install() {
    install_gpu(EngineMaker {
        two: || Ok(Box::new(GpuEngine::<2>::new()?)),
        three: || Ok(Box::new(GpuEngine::<3>::new()?)),
    });
}
