//! The engines by name, as the faces choose them (`--engine`, Python's `engine=`, the viewer's
//! configuration), and how an engine of another crate joins them: the core builds the CPU
//! engine itself; the GPU engine lives in its own crate (`boids-gpu`, behind the faces' `gpu`
//! feature), which hands the core its maker once ([`install_gpu`]) so that every face builds it
//! by name like the CPU engine. A build without it says how to get it.

use std::any::Any;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::{CpuEngine, Engine};
use crate::error::Unavailable;
use crate::space::{Dim, Dimension};

/// The engines the faces name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineKind {
    /// The CPU engine: grid, vector lanes, every core ([`CpuEngine`]).
    #[default]
    Cpu,
    /// The GPU engine (wgpu compute shaders; the `boids-gpu` crate, in builds with the `gpu`
    /// feature).
    Gpu,
}

impl EngineKind {
    /// Every engine a face can name.
    pub const ALL: [EngineKind; 2] = [EngineKind::Cpu, EngineKind::Gpu];

    /// The engine's name, as the faces take it.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Cpu => "cpu",
            EngineKind::Gpu => "gpu",
        }
    }

    /// A fresh engine of this kind for a flock of `D` dimensions, or why there is none: this
    /// build has no GPU engine, or it found no adapter to run on.
    pub fn build<const D: usize>(self) -> Result<Box<dyn Engine<D>>, Unavailable>
    where
        Dim<D>: Dimension<D>,
    {
        match self {
            EngineKind::Cpu => Ok(Box::new(CpuEngine::<D>::default())),
            EngineKind::Gpu => {
                let maker = GPU.get().ok_or(Unavailable::NotBuilt(self.name()))?;
                let made: Box<dyn Any> = match D {
                    3 => Box::new((maker.three)()),
                    _ => Box::new((maker.two)()),
                };
                // The maker of D dimensions made an engine of D dimensions.
                *made
                    .downcast::<Result<Box<dyn Engine<D>>, Unavailable>>()
                    .map_err(|_| Unavailable::NotBuilt(self.name()))?
            }
        }
    }
}

/// How an engine crate builds its engine for each dimension.
#[derive(Clone, Copy, Debug)]
pub struct EngineMaker {
    /// An engine for a flock of two dimensions.
    pub two: fn() -> Result<Box<dyn Engine<2>>, Unavailable>,
    /// An engine for a flock of three dimensions.
    pub three: fn() -> Result<Box<dyn Engine<3>>, Unavailable>,
}

static GPU: OnceLock<EngineMaker> = OnceLock::new();

/// Makes [`EngineKind::Gpu`] build with `maker` (the `boids-gpu` crate's `install` calls it;
/// the first maker installed stays).
pub fn install_gpu(maker: EngineMaker) {
    let _ = GPU.set(maker);
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An engine name no face knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine {name:?}: the engines are {}", EngineKind::ALL.map(EngineKind::name).join(", "))]
pub struct UnknownEngine {
    /// The name given.
    pub name: String,
}

impl FromStr for EngineKind {
    type Err = UnknownEngine;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        EngineKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| UnknownEngine {
                name: name.to_owned(),
            })
    }
}
