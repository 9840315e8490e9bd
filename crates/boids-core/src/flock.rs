//! A flock whose dimension is chosen at run time, as its `dimensions` parameter says.
//!
//! A [`Simulation<D>`] fixes its dimension at compile time, and a front end that knows it once
//! picks it with [`with_dimensions!`](crate::with_dimensions). A holder whose flock changes
//! dimension while it lives (the viewer: a `set` of `dimensions`, or a preset of the other
//! kind; the Python package's `Simulation`) holds a [`Flock`] instead, one of the two, and
//! reaches it through [`on_flock!`](crate::on_flock), which runs the same generic code on
//! either: one code path for both dimensions. It lives here, beside `with_dimensions!`, so that
//! every such holder shares the one dispatch.

use crate::engine::EngineKind;
use crate::error::StateError;
use crate::params::Params;
use crate::sim::Simulation;
use crate::stats::StageTimes;

/// A simulation of two or of three dimensions.
#[derive(Clone, Debug)]
pub enum Flock {
    /// A flat flock (`dimensions = 2`).
    Two(Simulation<2>),
    /// A flock in three dimensions (`dimensions = 3`).
    Three(Simulation<3>),
}

/// Runs `$body` with `$sim` bound to the flock's simulation, whichever its dimension: the body
/// is compiled once for each, so it must be generic code.
#[macro_export]
macro_rules! on_flock {
    ($flock:expr, $sim:ident => $body:expr) => {
        match $flock {
            $crate::Flock::Two($sim) => $body,
            $crate::Flock::Three($sim) => $body,
        }
    };
}

impl From<Simulation<2>> for Flock {
    fn from(sim: Simulation<2>) -> Self {
        Flock::Two(sim)
    }
}

impl From<Simulation<3>> for Flock {
    fn from(sim: Simulation<3>) -> Self {
        Flock::Three(sim)
    }
}

impl Flock {
    /// A new flock of `params` (of `params.dimensions`) drawn with `seed`, on `engine`.
    pub fn new(params: Params, seed: u64, engine: EngineKind) -> Result<Flock, StateError> {
        Ok(match params.dimensions {
            3 => Flock::Three(Simulation::with_engine(params, seed, engine.build()?)?),
            _ => Flock::Two(Simulation::with_engine(params, seed, engine.build()?)?),
        })
    }

    /// The engine that steps the grid path.
    pub fn engine(&self) -> EngineKind {
        on_flock!(self, sim => sim.engine())
    }

    /// Moves the flock to the engine `kind` from the step it is at
    /// ([`Simulation::use_engine`]).
    pub fn use_engine(&mut self, kind: EngineKind) -> Result<(), StateError> {
        on_flock!(self, sim => sim.use_engine(kind.build()?))
    }

    /// 2 or 3.
    pub fn dimensions(&self) -> usize {
        match self {
            Flock::Two(_) => 2,
            Flock::Three(_) => 3,
        }
    }

    /// The flat simulation, if the flock is flat.
    pub fn two(&self) -> Option<&Simulation<2>> {
        match self {
            Flock::Two(sim) => Some(sim),
            Flock::Three(_) => None,
        }
    }

    /// The simulation in three dimensions, if the flock has three.
    pub fn three(&self) -> Option<&Simulation<3>> {
        match self {
            Flock::Three(sim) => Some(sim),
            Flock::Two(_) => None,
        }
    }

    /// Its parameters.
    pub fn params(&self) -> &Params {
        on_flock!(self, sim => sim.params())
    }

    /// Its seed.
    pub fn seed(&self) -> u64 {
        on_flock!(self, sim => sim.seed())
    }

    /// Steps taken.
    pub fn step_count(&self) -> u64 {
        on_flock!(self, sim => sim.step_count())
    }

    /// Boids.
    pub fn len(&self) -> usize {
        on_flock!(self, sim => sim.len())
    }

    /// Whether there are no boids.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Boids caught in the last step.
    pub fn captures(&self) -> u64 {
        on_flock!(self, sim => sim.captures())
    }

    /// Each stage's time per step of the last step or batch.
    pub fn stage_times(&self) -> StageTimes {
        on_flock!(self, sim => sim.stage_times())
    }

    /// One step ([`Simulation::step`]: refused, the flock kept, where it is not finite).
    pub fn step(&mut self) -> Result<(), StateError> {
        on_flock!(self, sim => sim.step())
    }

    /// `steps` steps, in batches on an engine that keeps the flock on a device
    /// ([`Simulation::step_many`]).
    pub fn step_many(&mut self, steps: u64) -> Result<(), StateError> {
        on_flock!(self, sim => sim.step_many(steps))
    }

    /// Whether its steps are taken in batches ([`Simulation::batches`]).
    pub fn batches(&self) -> bool {
        on_flock!(self, sim => sim.batches())
    }

    /// New parameters of the same dimension, the flock kept ([`Simulation::set_params`]).
    pub fn set_params(&mut self, params: Params) -> Result<(), StateError> {
        debug_assert_eq!(params.dimensions, self.dimensions());
        on_flock!(self, sim => sim.set_params(params))
    }
}
