//! The door for a second engine: the boids model's grid path (bin, sort into cell order,
//! neighbour sums, rules, move) behind one seam, [`Engine`], so another engine (a GPU's) steps
//! the same model without the simulation knowing which runs.
//!
//! The simulation keeps the flock in storage order ([`FlockBuffers`]) and runs every other
//! stage itself (the world's steer and hunt before the move, its obstacle pass and catch after
//! it, the general path of a perching flock); an engine is handed what it reads as data (the
//! kernel's constants, the step number, the world's [`Pull`] as arrays), never a callback.
//!
//! What an engine promises about its results is its own: [`CpuEngine`] gives bit-identical
//! states on any thread count and any CPU build (the model contract in the crate docs); an
//! engine that cannot keep that promise says what it keeps instead.

mod cpu;
mod kind;

use std::collections::TryReserveError;
use std::fmt;

pub use crate::error::{EngineFailure, Unavailable, Unsupported};
pub(crate) use cpu::geometry;
pub use cpu::{BYTES_PER_BOID, COLUMNS_PER_RANGE, CpuEngine, max_cells};
pub use kind::{EngineKind, EngineMaker, UnknownEngine, install_gpu};

use crate::params::Params;
use crate::rules::Kernel;
use crate::space::{Dim, Dimension, VecN};
use crate::stats::{ScanCounts, StageTimes};
use crate::world::Pull;

/// One step of the grid path, as an engine is asked for it.
pub struct GridStep<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// The parameters in force.
    pub params: &'a Params,
    /// The model's constants under them.
    pub kernel: &'a Kernel<D>,
    /// The seed of the random streams (keys the heading models' noise, with the step and id).
    pub seed: u64,
    /// The number of the step being taken (keys the wandering bias and the noise).
    pub step: u64,
    /// What pulls on the boids this step (predators, attractors, a force), if anything.
    pub pull: Option<&'a Pull<'a, D>>,
    /// Whether the flock was changed outside the engine since the engine's last step (made,
    /// loaded, edited): an engine that keeps its own copy of the flock (on a device) reads it
    /// again.
    pub changed: bool,
}

/// What an engine's [`Engine::batch`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Steps taken, all finite: fewer than asked when a step would have left a boid not
    /// finite, which the simulation then takes alone to refuse it ([`crate::StateError::NonFinite`]).
    pub taken: u64,
    /// The neighbour work of the batch's last step.
    pub counts: ScanCounts,
}

/// The flock in storage order: what the accessors show and an engine's step rewrites (in the
/// order the engine chooses: the CPU engine leaves it in cell order). Entry `k` of every array
/// is one boid, whose id is `id[k]`.
#[derive(Clone, Debug, Default)]
pub struct FlockBuffers<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// Positions.
    pub pos: Vec<VecN<D>>,
    /// Velocities.
    pub vel: Vec<VecN<D>>,
    /// Scout biases.
    pub bias: Vec<f32>,
    /// Scout groups.
    pub group: Vec<u8>,
    /// Boid ids.
    pub id: Vec<u32>,
}

impl<const D: usize> FlockBuffers<D>
where
    Dim<D>: Dimension<D>,
{
    /// Number of boids.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// Whether there is no boid.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

/// Where each boid stored at `k` was before the last step, as the obstacle pass asks: an
/// engine's own copy of the previous frame, or the previous state in id order (the general
/// path, whose storage order is id order).
#[derive(Clone, Copy)]
pub enum Before<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// Position, then velocity, of each boid, in storage order.
    Frame(&'a [[[f32; D]; 2]]),
    /// Positions in storage order.
    Positions(&'a [VecN<D>]),
}

impl<const D: usize> Before<'_, D>
where
    Dim<D>: Dimension<D>,
{
    /// Where the boid stored at `k` was.
    #[inline]
    pub fn position(&self, k: usize) -> VecN<D> {
        match self {
            Before::Frame(boids) => boids[k][0].into(),
            Before::Positions(positions) => positions[k],
        }
    }
}

/// An engine that steps the boids model's grid path.
pub trait Engine<const D: usize>: fmt::Debug + Send + Sync
where
    Dim<D>: Dimension<D>,
{
    /// Which engine this is.
    fn kind(&self) -> EngineKind;

    /// Whether this engine runs what `params` ask for: an error names the first setting it
    /// does not run, and the simulation refuses those parameters, at start and live.
    fn supports(&self, params: &Params) -> Result<(), Unsupported> {
        let _ = params;
        Ok(())
    }

    /// Whether this engine takes the step of `params`' model itself: the CPU engine takes
    /// every model on the grid's walk (a perching flock takes the simulation's general path);
    /// the GPU engine takes the boids and Vicsek models.
    fn takes(&self, params: &Params) -> bool {
        params.uses_fast_path()
    }

    /// Whether this engine adds a pull from outside the parameters to the rules: the
    /// viewer's pointer predator, a force ([`crate::Simulation::step_with_force`]).
    fn takes_pulls(&self) -> bool {
        true
    }

    /// Reserves the engine's own per-boid memory for `n` boids up front, so a flock too big for
    /// memory fails when it is made, not mid-run.
    fn reserve(&mut self, n: usize) -> Result<(), TryReserveError>;

    /// One step of `flock` (its new state replaces the old), timing each stage into `times`
    /// and returning the neighbour work; or why the engine could not take it (a device that
    /// failed), with `flock` left as it was.
    fn step(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        times: &mut StageTimes,
    ) -> Result<ScanCounts, EngineFailure>;

    /// Whether steps taken together cost this engine less than one at a time: it keeps the
    /// flock on a device, and a batch ([`Engine::batch`]) copies it there and back once. A
    /// caller free to take the steps between two observers together (the viewer, between two
    /// frames) asks this ([`crate::Simulation::batches`]).
    fn batches(&self) -> bool {
        false
    }

    /// Up to `steps` steps in one go, the first numbered `job.step`, for an engine that keeps
    /// the flock on a device and would otherwise copy it there and back every step: `flock`
    /// holds the state after the last step taken, and times are the batch's. `None`: this
    /// engine steps one at a time (the simulation then calls [`Engine::step`]). An engine
    /// that could not take the batch (a device that failed) says why and leaves `flock` as it
    /// was.
    fn batch(
        &mut self,
        job: &GridStep<'_, D>,
        flock: &mut FlockBuffers<D>,
        steps: u64,
        times: &mut StageTimes,
    ) -> Result<Option<Batch>, EngineFailure> {
        let _ = (job, flock, steps, times);
        Ok(None)
    }

    /// Where each boid, in the storage order the last step left, was before that step.
    fn before(&self) -> Before<'_, D>;

    /// Puts `flock` back as it was before the last step, in the storage order that step left:
    /// the simulation undoes a step it refuses (one that is not finite).
    fn undo(&mut self, flock: &mut FlockBuffers<D>);

    /// A copy of the engine and its state (a cloned simulation steps on its own).
    fn boxed_clone(&self) -> Box<dyn Engine<D>>;
}

impl<const D: usize> Clone for Box<dyn Engine<D>>
where
    Dim<D>: Dimension<D>,
{
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}
