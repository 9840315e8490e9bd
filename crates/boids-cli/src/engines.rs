//! The engines of this build as the command sees them: the GPU engine joins in builds with
//! the `gpu` feature ([`install`]), `boids info` says what there is, and the bench asks what
//! the GPU engine runs on.

use anyhow::Result;
use boids_core::{Dim, Dimension, EngineKind, Simulation};

/// Makes `--engine gpu` build the GPU engine, in builds that have it.
pub fn install() {
    #[cfg(feature = "gpu")]
    boids_gpu::install();
}

/// Moves a flock built on the CPU engine (a replayed event log) to the engine `--engine`
/// names; the CPU engine keeps it as it is. Refused as the engine refuses it: not built, no
/// adapter, or a flock it does not run.
pub fn move_to<const D: usize>(sim: &mut Simulation<D>, kind: EngineKind) -> Result<()>
where
    Dim<D>: Dimension<D>,
{
    if kind != EngineKind::Cpu {
        sim.use_engine(kind.build()?)?;
    }
    Ok(())
}

/// The adapter the GPU engine runs on, as `boids info` names it, or why there is none.
pub fn gpu_adapter() -> Result<String> {
    #[cfg(feature = "gpu")]
    return Ok(boids_gpu::describe(&boids_gpu::shared()?.info));
    #[cfg(not(feature = "gpu"))]
    Err(boids_core::engine::Unavailable::NotBuilt(EngineKind::Gpu.name()).into())
}

/// Bytes of device memory the GPU engine takes per boid, in builds that have it.
pub fn gpu_bytes_per_boid(dimensions: usize) -> Option<usize> {
    #[cfg(feature = "gpu")]
    return Some(boids_gpu::bytes_per_boid(dimensions));
    #[cfg(not(feature = "gpu"))]
    {
        let _ = dimensions;
        None
    }
}

/// `boids info`: each engine, and what it runs on.
pub fn info() -> Result<()> {
    println!("boids {}", env!("CARGO_PKG_VERSION"));
    for kind in EngineKind::ALL {
        let line = match kind {
            EngineKind::Cpu => format!("{} threads", rayon::current_num_threads()),
            EngineKind::Gpu => {
                gpu_adapter().unwrap_or_else(|error| format!("unavailable: {error:#}"))
            }
        };
        println!("engine {kind}: {line}");
    }
    Ok(())
}
