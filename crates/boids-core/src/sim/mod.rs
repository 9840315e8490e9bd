//! The simulation: a flock, its world and an engine, and the step as a short list of named,
//! timed stages.
//!
//! ```text
//! steer -> hunt -> [ bin -> sort -> interact ]  (an engine: the boids model's grid path)
//!                  [ general ]                  (perching)
//!       -> obstacles -> catch
//! ```
//!
//! The world ([`World`]) takes part before the move (its pull on the boids and the predators'
//! hunt, both from the state at the step's start) and once after it, whichever path moved the
//! boids (the obstacle pass, then the catch). The grid path runs in an [`Engine`] (the CPU
//! engine unless another is given), the door for a second engine; every stage's time is in
//! [`Simulation::stats`].

mod edit;
mod finite;

use crate::engine::{
    Before, CpuEngine, Engine, EngineFailure, EngineKind, FlockBuffers, GridStep, Unsupported,
};
use crate::error::StateError;
use crate::grid::{GridGeometry, reserve_to};
use crate::par;
use crate::params::Params;
use crate::rules::Kernel;
use crate::space::{self, Dim, Dimension, VecN};
use crate::state::{FlockState, check_state};
use crate::stats::{Stage, StageTimes, StepStats};
use crate::world::{Predator, Pull, World};
// Kept at this path too: the command and the engine tests name it here.
pub use crate::engine::{BYTES_PER_BOID, COLUMNS_PER_RANGE};
pub use crate::state::scout_groups;

/// A running flock in a world of `D` dimensions (2 or 3).
#[derive(Clone, Debug)]
pub struct Simulation<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    params: Params,
    kernel: Kernel<D>,
    seed: u64,
    step: u64,
    flock: FlockBuffers<D>,
    world: World<D>,
    engine: Box<dyn Engine<D>>,
    /// Whether the flock changed outside the engine since its last step ([`GridStep::changed`]).
    changed: bool,
    stats: StepStats,
}

impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    /// A new flock drawn from `params`' initial distribution with `seed`, on the CPU engine.
    pub fn new(params: Params, seed: u64) -> Result<Self, StateError> {
        Self::with_engine(params, seed, Box::new(CpuEngine::default()))
    }

    /// A new flock drawn from `params`' initial distribution with `seed`, on `engine`
    /// ([`EngineKind::build`], or an engine of another crate). Refuses parameters the engine
    /// does not run ([`Engine::supports`]).
    pub fn with_engine(
        params: Params,
        seed: u64,
        engine: Box<dyn Engine<D>>,
    ) -> Result<Self, StateError> {
        let state = FlockState::initial(&params, seed);
        Self::resume(params, seed, state, 0, engine)
    }

    /// Continues a flock from `state` (id order) at step `start_step`, on the CPU engine.
    /// Positions on a torus are wrapped into the world.
    pub fn from_state(
        params: Params,
        seed: u64,
        state: FlockState<D>,
        start_step: u64,
    ) -> Result<Self, StateError> {
        let engine = Box::new(CpuEngine::default());
        Self::resume(params, seed, state, start_step, engine)
    }

    /// Continues a flock from `state` (id order) at step `start_step` on `engine`, which must
    /// run `params` ([`Engine::supports`]).
    pub fn resume(
        params: Params,
        seed: u64,
        mut state: FlockState<D>,
        start_step: u64,
        engine: Box<dyn Engine<D>>,
    ) -> Result<Self, StateError> {
        engine.supports(&params)?;
        check_state(&params, &mut state, seed)?;
        let n = state.len();
        let mut sim = Self {
            kernel: Kernel::new(&params),
            world: World::new(&params, Vec::new(), Vec::new()),
            seed,
            step: start_step,
            flock: FlockBuffers::default(),
            engine,
            changed: true,
            stats: StepStats::default(),
            params,
        };
        sim.reserve(n)?;
        sim.load(state);
        let (world, flock) = (&sim.world, &sim.flock);
        world.check_outside_obstacles(&sim.params, &flock.pos, &flock.id)?;
        Ok(sim)
    }

    /// Reserves every per-boid buffer up front, so a flock too big for memory fails here with a
    /// message instead of aborting mid-run.
    fn reserve(&mut self, n: usize) -> Result<(), StateError> {
        let oom = |_| out_of_memory(n);
        let flock = &mut self.flock;
        for field in [&mut flock.pos, &mut flock.vel] {
            reserve_to(field, n).map_err(oom)?;
        }
        reserve_to(&mut flock.bias, n).map_err(oom)?;
        reserve_to(&mut flock.group, n).map_err(oom)?;
        reserve_to(&mut flock.id, n).map_err(oom)?;
        self.engine.reserve(n).map_err(oom)
    }

    /// Makes `state` (id order) the flock, wrapping positions into a torus world.
    fn load(&mut self, state: FlockState<D>) {
        load(&self.params, &mut self.world, &mut self.flock, state);
        self.changed = true;
    }

    /// Advances the flock by one time step.
    ///
    /// The world's pull on the boids and the predators' own move are both taken from the state
    /// at the start of the step, then the boids move, then the world's pass after the move
    /// (synchronous: no boid or predator sees another's new position within a step).
    ///
    /// A step that would leave a boid's position or velocity not finite (a flock diverging
    /// under its parameters) is refused with [`StateError::NonFinite`], naming the step and
    /// the boid, and the flock stays as it was.
    pub fn step(&mut self) -> Result<(), StateError> {
        self.advance(None)
    }

    /// Advances the flock by one time step with a force from outside the model: `force[id]` is
    /// a change of velocity of boid `id` this step (an acceleration times the time step, in
    /// the model's velocity units), added where the world's pull is added ([`Pull`]: after
    /// the rules and the boundary, before the scouts' bias, the speed limits and the move).
    /// Refuses a force of another length than the flock or with a value that is not finite,
    /// and a step that is not finite ([`Simulation::step`]), and then leaves the flock as it
    /// was.
    pub fn step_with_force(&mut self, force: &[[f32; D]]) -> Result<(), StateError> {
        Pull::<D>::check_force(force, self.len())?;
        self.check_pulls("a force from outside the model (step_with_force)")?;
        self.advance(Some(force))
    }

    /// Advances the flock by `steps` time steps: the same as [`Simulation::step`] called
    /// `steps` times, with the same result, but an engine that keeps the flock on a device
    /// (the GPU engine) takes them in batches and the state comes back once, at the end. A
    /// step that is not finite is refused as [`Simulation::step`] refuses it, the steps before
    /// it kept, and so is a batch the engine could not take ([`StateError::EngineFailed`]).
    /// After a batch, [`Simulation::stats`] holds the batch's stage times, its steps and its
    /// last step's counts ([`Simulation::stage_times`]: per step).
    pub fn step_many(&mut self, steps: u64) -> Result<(), StateError> {
        let mut left = steps;
        while left > 0 {
            match self.batch(left)? {
                Some(taken) if taken > 0 => left -= taken,
                _ => {
                    self.advance(None)?;
                    left -= 1;
                }
            }
        }
        Ok(())
    }

    /// Whether [`Simulation::step_many`] takes its steps in batches of the engine, each
    /// cheaper than its steps one at a time: an engine that batches ([`Engine::batches`]), a
    /// model it takes, and a world with nothing to do.
    pub fn batches(&self) -> bool {
        self.engine.batches() && self.engine.takes(&self.params) && self.world.is_idle(&self.params)
    }

    /// Up to `steps` steps in one batch of the engine, when it [batches](Simulation::batches):
    /// the steps taken, or `None` when it does not.
    fn batch(&mut self, steps: u64) -> Result<Option<u64>, StateError> {
        if !self.batches() {
            return Ok(None);
        }
        let mut times = StageTimes::default();
        let job = GridStep {
            params: &self.params,
            kernel: &self.kernel,
            seed: self.seed,
            step: self.step,
            pull: None,
            changed: self.changed,
        };
        let batch = self.engine.batch(&job, &mut self.flock, steps, &mut times);
        let Some(batch) = batch.map_err(|failure| self.failed(failure))? else {
            return Ok(None);
        };
        self.changed = false;
        self.step += batch.taken;
        self.stats = StepStats {
            times,
            counts: batch.counts,
            steps: batch.taken,
        };
        Ok(Some(batch.taken))
    }

    /// The refusal of the next step, which the engine could not take: the flock is as the
    /// engine found it, and goes up again whole at the engine's next step.
    fn failed(&mut self, failure: EngineFailure) -> StateError {
        self.changed = true;
        StateError::EngineFailed {
            step: self.step + 1,
            failure,
        }
    }

    /// Refuses a pull from outside the parameters (`what`) that the engine does not add.
    pub(super) fn check_pulls(&self, what: &str) -> Result<(), StateError> {
        if self.engine.takes_pulls() {
            return Ok(());
        }
        let engine = self.engine.kind().name();
        let setting = what.to_owned();
        Err(Unsupported { engine, setting }.into())
    }

    /// One step, with `force` (by id) added to the world's pull when given: the stages, and
    /// the check that the flock stayed finite before the catch changes the world.
    fn advance(&mut self, force: Option<&[[f32; D]]>) -> Result<(), StateError> {
        let mut times = StageTimes::default();
        let general = !self.engine.takes(&self.params);
        let previous = general.then(|| times.time(Stage::General, || self.state()));
        let Self {
            params,
            kernel,
            seed,
            step,
            flock,
            world,
            engine,
            changed,
            stats,
        } = self;
        let keys = (*seed, *step);
        let pull = times.time_if(Stage::Steer, Option::is_some, || world.steer(params, force));
        let hunted = times.time_if(Stage::Hunt, Option::is_some, || {
            world.hunt(kernel, keys, &flock.pos, &flock.id)
        });
        let (counts, before) = match &previous {
            None => {
                let pull = pull.as_ref();
                let job = GridStep {
                    params,
                    kernel,
                    seed: *seed,
                    step: *step,
                    pull,
                    changed: *changed,
                };
                let counts = match engine.step(&job, flock, &mut times) {
                    Ok(counts) => counts,
                    Err(failure) => return Err(self.failed(failure)),
                };
                *changed = false;
                (counts, engine.before())
            }
            Some(previous) => {
                let (next, counts) = times.time(Stage::General, || {
                    crate::models::step(params, kernel, keys.0, keys.1, previous, pull.as_ref())
                });
                load(params, world, flock, next);
                *changed = true;
                (counts, Before::Positions(&previous.positions))
            }
        };
        *changed |= times.time_if(
            Stage::Obstacles,
            |&ran| ran,
            || {
                world.pass_obstacles(
                    kernel,
                    |k| before.position(k),
                    &mut flock.pos,
                    &mut flock.vel,
                )
            },
        );
        if let Err(refused) = finite::check(flock, *step) {
            match previous {
                None => engine.undo(flock),
                Some(previous) => load(params, world, flock, previous),
            }
            *changed = true;
            return Err(refused);
        }
        *changed |= times.time_if(
            Stage::Catch,
            |&ran| ran,
            || {
                let boids = (&mut flock.pos[..], &mut flock.vel[..], &flock.id[..]);
                world.catch(params, keys, hunted, boids)
            },
        );
        *step += 1;
        *stats = StepStats {
            times,
            counts,
            steps: 1,
        };
        Ok(())
    }
}

/// The refusal of a flock of `count` boids that memory cannot hold.
fn out_of_memory(count: usize) -> StateError {
    StateError::OutOfMemory {
        count,
        bytes: count * BYTES_PER_BOID,
    }
}

/// Makes `state` (id order) the flock of a simulation of `params` and its `world`, wrapping
/// positions into a torus world.
fn load<const D: usize>(
    params: &Params,
    world: &mut World<D>,
    flock: &mut FlockBuffers<D>,
    mut state: FlockState<D>,
) where
    Dim<D>: Dimension<D>,
{
    if params.is_torus() {
        let (min, size) = params.world_box::<D>();
        let (min, size) = (VecN::<D>::from(min), VecN::<D>::from(size));
        par::for_each_indexed(&mut state.positions, |_, p| *p = space::wrap(*p, min, size));
        for predator in &mut state.predators {
            predator.position = space::wrap(predator.position, min, size);
        }
    }
    world.load(state.predators, state.resting);
    *flock = FlockBuffers {
        id: (0..state.positions.len() as u32).collect(),
        pos: state.positions,
        vel: state.velocities,
        bias: state.biases,
        group: state.groups,
    };
}

/// What a simulation shows of itself, in any dimension.
impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    /// The parameters in force.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The model's constants under the parameters in force: the one kernel of this
    /// simulation, which neighbour queries and overlays share with the step.
    pub fn kernel(&self) -> &Kernel<D> {
        &self.kernel
    }

    /// The engine that steps the grid path.
    pub fn engine(&self) -> EngineKind {
        self.engine.kind()
    }

    /// The seed of the random streams.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Steps taken so far (counting from the start step).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Number of boids.
    pub fn len(&self) -> usize {
        self.flock.len()
    }

    /// Whether the flock is empty (never, for a validated simulation).
    pub fn is_empty(&self) -> bool {
        self.flock.is_empty()
    }

    /// Positions in storage order (cell order of the last step); see [`Simulation::ids`].
    pub fn positions(&self) -> &[VecN<D>] {
        &self.flock.pos
    }

    /// Velocities in storage order.
    pub fn velocities(&self) -> &[VecN<D>] {
        &self.flock.vel
    }

    /// Scout groups in storage order.
    pub fn groups(&self) -> &[u8] {
        &self.flock.group
    }

    /// Boid ids in storage order: `ids()[k]` is the id of the boid stored at `k`.
    pub fn ids(&self) -> &[u32] {
        &self.flock.id
    }

    /// The world: obstacles, predators, the pointer's predator, resting boids, captures.
    pub fn world(&self) -> &World<D> {
        &self.world
    }

    /// The predators, in index order.
    pub fn predators(&self) -> &[Predator<D>] {
        self.world.predators()
    }

    /// The predator the viewer's pointer moves, if any.
    pub fn pointer(&self) -> Option<&Predator<D>> {
        self.world.pointer()
    }

    /// Steps each boid still rests on the ground, in storage order (0: flying); empty when
    /// perching is off.
    pub fn resting(&self) -> &[u32] {
        self.world.resting()
    }

    /// Boids caught by predators in the last step.
    pub fn captures(&self) -> u64 {
        self.world.captures()
    }

    /// What the last step, or batch of steps ([`Simulation::step_many`]), reports about
    /// itself: its stages' times, its last step's neighbour work, and its steps.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// Each stage's time per step of the last step or batch.
    pub fn stage_times(&self) -> StageTimes {
        self.stats.times.per_step(self.stats.steps)
    }

    /// The flock in id order.
    pub fn state(&self) -> FlockState<D> {
        let n = self.len();
        let mut slot_of_id = vec![0u32; n];
        for (slot, &id) in self.flock.id.iter().enumerate() {
            slot_of_id[id as usize] = slot as u32;
        }
        let mut out = FlockState::default();
        par::gather(&mut out.positions, &self.flock.pos, &slot_of_id);
        par::gather(&mut out.velocities, &self.flock.vel, &slot_of_id);
        par::gather(&mut out.biases, &self.flock.bias, &slot_of_id);
        par::gather(&mut out.groups, &self.flock.group, &slot_of_id);
        if !self.resting().is_empty() {
            par::gather(&mut out.resting, self.resting(), &slot_of_id);
        }
        out.predators = self.predators().to_vec();
        out
    }

    /// Grid geometry for the given positions under the current parameters: the grid of the
    /// CPU engine's step, which every neighbour question shares.
    pub fn geometry(params: &Params, positions: &[VecN<D>]) -> GridGeometry<D> {
        crate::engine::geometry(params, positions)
    }
}
