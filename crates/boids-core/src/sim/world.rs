//! What a step does beyond the boids model's grid path: the world's objects (obstacles,
//! predators, attractors, perching) and the general path of the other models. All of it is
//! written once over the dimension; [`WorldStep`] is where the step asks for it, implemented
//! once for every dimension (2 and 3), so generic code names a simulation that can step as
//! `Simulation<D>: WorldStep<D>`.

use std::borrow::Cow;

use super::{Buffers, Simulation};
use crate::error::StateError;
use crate::interact::Pull;
use crate::obstacles::ObstacleIndex;
use crate::par;
use crate::params::Params;
use crate::rng::{self, Purpose};
use crate::space::{self, Coordinates, Dim, Dimension, VecN};
use crate::state::FlockState;
use crate::stats::{PhaseTimes, ScanCounts};
use crate::world::{ObstaclePass, Predator, WorldSteer};

/// The world's part of a step in `D` dimensions.
pub trait WorldStep<const D: usize>: Sized
where
    Dim<D>: Dimension<D>,
{
    /// What pulls on the boids this step (predators to flee, attractors).
    type Steer: Pull<D>;

    /// The pull of the predators and attractors at the start of the step, if any.
    fn world_steer(&self) -> Option<Self::Steer>;

    /// The predators' next state from the state at the start of the step.
    fn hunt(&self) -> Vec<Predator<D>>;

    /// Catches the boids the predators reach after the move; returns how many.
    fn catch(&mut self) -> u64;

    /// Keeps every boid out of the obstacles, `from(k)` being where the boid stored at `k` was
    /// before the step.
    fn pass_obstacles(&mut self, from: impl Fn(usize) -> VecN<D> + Sync);

    /// A step of the general path (Vicsek, Couzin, k nearest, a blind angle or perching), with
    /// what pulls on the boids this step (the world's [`Self::Steer`], a force, or both).
    fn step_general(&mut self, pull: Option<&dyn Pull<D>>) -> (PhaseTimes, ScanCounts);

    /// Refuses a flock with a boid or predator inside an obstacle.
    fn check_outside_obstacles(&self) -> Result<(), StateError>;

    /// Moves boids and predators of `state` that `pass`'s obstacles cover out of them (a live
    /// edit that places an obstacle on the flock).
    fn push_out_of_obstacles(
        pass: &ObstaclePass<D>,
        params: &Params,
        index: &ObstacleIndex<D>,
        seed: u64,
        state: &mut FlockState<D>,
    );
}

impl<const D: usize> WorldStep<D> for Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    type Steer = WorldSteer<D>;

    fn world_steer(&self) -> Option<WorldSteer<D>> {
        WorldSteer::new(&self.params, self.predators.iter().chain(&self.pointer))
    }

    /// The predators' next state from the state at the start of the step (the pointer's
    /// predator stays where the pointer put it).
    fn hunt(&self) -> Vec<Predator<D>> {
        if self.predators.is_empty() {
            return Vec::new();
        }
        let mut hunted = self.hunt.step(
            &self.kernel,
            self.seed,
            self.step,
            &self.predators,
            &self.state.pos,
            &self.id,
        );
        if let Some(pass) = &self.obstacles {
            self.hunt
                .avoid(pass, &self.kernel, &self.predators, &mut hunted);
        }
        hunted
    }

    /// Boids within `capture_range` of a predator after the move are caught (see
    /// [`crate::world::captures`]) and start again at a random free place drawn from their own stream;
    /// returns how many.
    fn catch(&mut self) -> u64 {
        if self.params.capture_range <= 0.0 {
            return 0;
        }
        let hunters: Vec<VecN<D>> = self
            .predators
            .iter()
            .chain(&self.pointer)
            .map(|p| p.position)
            .collect();
        let range = self.params.capture_range as f32;
        let caught = crate::world::captures(
            &hunters,
            range,
            self.params.periods::<D>().into(),
            &self.state.pos,
            &self.id,
        );
        if caught.is_empty() {
            return 0;
        }
        let obstacles = obstacle_index(&self.params, self.obstacles.as_ref());
        for &slot in &caught {
            let id = u64::from(self.id[slot]);
            let mut s = rng::stream(self.seed, Purpose::Respawn, self.step, id);
            (self.state.pos[slot], self.state.vel[slot]) =
                crate::state::start::<D, VecN<D>>(&self.params, &obstacles, &mut s);
            if let Some(resting) = self.resting.get_mut(slot) {
                *resting = 0;
            }
        }
        caught.len() as u64
    }

    /// Applies the obstacle pass ([`ObstaclePass`]) to every boid, `from(k)` being where the
    /// boid stored at `k` was before the step. Nothing runs without obstacles.
    fn pass_obstacles(&mut self, from: impl Fn(usize) -> VecN<D> + Sync) {
        let Some(pass) = &self.obstacles else {
            return;
        };
        let (kernel, Buffers { pos, vel, .. }) = (&self.kernel, &mut self.state);
        par::for_each_zip(pos, vel, |k, p, v| pass.apply(kernel, from(k), p, v));
    }

    /// Refuses a flock with a boid or predator inside an obstacle (a loaded state: the random
    /// start never places one there).
    fn check_outside_obstacles(&self) -> Result<(), StateError> {
        let Some(pass) = &self.obstacles else {
            return Ok(());
        };
        let boids = self.state.pos.iter().zip(&self.id);
        let boids = boids.map(|(&p, &id)| ("boid", id as usize, p));
        let predators = self.predators.iter().enumerate();
        let predators = predators.map(|(k, predator)| ("predator", k, predator.position));
        for (agent, index, p) in boids.chain(predators) {
            if let Some(obstacle) = pass.index().obstacle_at(p) {
                return Err(StateError::InsideObstacle {
                    agent,
                    index,
                    position: show_point(p),
                    obstacle: obstacle + 1,
                    shape: self.params.obstacles[obstacle].name(),
                });
            }
        }
        Ok(())
    }

    /// The general path (Vicsek, Couzin, k nearest, a blind angle or perching), in id order.
    fn step_general(&mut self, pull: Option<&dyn Pull<D>>) -> (PhaseTimes, ScanCounts) {
        let previous = self.state();
        let (next, counts) = crate::models::step(
            &self.params,
            &self.kernel,
            self.seed,
            self.step,
            &previous,
            pull,
        );
        self.load(next);
        WorldStep::pass_obstacles(self, |k| previous.positions[k]);
        (PhaseTimes::default(), counts)
    }

    fn push_out_of_obstacles(
        pass: &ObstaclePass<D>,
        params: &Params,
        index: &ObstacleIndex<D>,
        seed: u64,
        state: &mut FlockState<D>,
    ) {
        // Obstacles placed on boids (a live edit) push them out, or start them afresh (the
        // fresh flock is drawn only if some boid needs it).
        let mut fresh = None;
        for (id, p) in state.positions.iter_mut().enumerate() {
            *p = pass.way_out(*p).unwrap_or_else(|| {
                fresh
                    .get_or_insert_with(|| FlockState::<D>::initial(params, seed))
                    .positions[id]
            });
        }
        for (k, predator) in state.predators.iter_mut().enumerate() {
            predator.position = pass
                .way_out(predator.position)
                .unwrap_or_else(|| crate::state::predator_start(params, index, seed, k).position);
        }
    }
}

/// The viewer's edits of the predators, in either dimension.
impl<const D: usize> Simulation<D>
where
    Dim<D>: Dimension<D>,
{
    /// Adds a predator at `position` (wrapped into a torus world), heading as the next
    /// predator's start would, and raises `predator_count` by one: the viewer's "place a
    /// predator". Equal to raising `predator_count` and moving the new predator there.
    pub fn add_predator(&mut self, position: VecN<D>) -> Result<(), StateError> {
        let index = self.predators.len();
        let position = self.placeable(position, "predator", index)?;
        let obstacles = obstacle_index(&self.params, self.obstacles.as_ref());
        let start = crate::state::predator_start(&self.params, &obstacles, self.seed, index);
        self.predators.push(Predator { position, ..start });
        self.params.predator_count = self.predators.len();
        Ok(())
    }

    /// Puts predator `index` at `position` (wrapped into a torus world), keeping its heading.
    pub fn move_predator(&mut self, index: usize, position: VecN<D>) -> Result<(), StateError> {
        let position = self.placeable(position, "predator", index)?;
        let count = self.predators.len();
        let predator = self
            .predators
            .get_mut(index)
            .ok_or(StateError::NoPredator { index, count })?;
        predator.position = position;
        Ok(())
    }

    /// Removes predator `index` (the later ones move down by one) and lowers `predator_count`.
    pub fn remove_predator(&mut self, index: usize) -> Result<(), StateError> {
        let count = self.predators.len();
        if index >= count {
            return Err(StateError::NoPredator { index, count });
        }
        self.predators.remove(index);
        self.params.predator_count = self.predators.len();
        Ok(())
    }

    /// Moves the pointer's predator to `position` (making it if there is none), its velocity
    /// the move itself; `None` removes it. It does not hunt by itself; boids fear it and it
    /// catches as the others do. It is not part of the saved state.
    pub fn set_pointer(&mut self, position: Option<VecN<D>>) -> Result<(), StateError> {
        self.pointer = match position {
            None => None,
            Some(position) => {
                let position = self.placeable(position, "predator", self.predators.len())?;
                let velocity = self.pointer.map_or(VecN::<D>::ZERO, |old| {
                    let moved = space::minimum_image(
                        position - old.position,
                        self.params.periods::<D>().into(),
                    );
                    let dt = self.params.dt as f32;
                    VecN::<D>::from(moved.to_array().map(|c| c / dt))
                });
                Some(Predator { position, velocity })
            }
        };
        Ok(())
    }

    /// `position` wrapped into a torus world, or the reason an agent cannot be put there
    /// (not finite, inside an obstacle).
    fn placeable(
        &self,
        position: VecN<D>,
        agent: &'static str,
        index: usize,
    ) -> Result<VecN<D>, StateError> {
        if !position.to_array().iter().all(|c| c.is_finite()) {
            return Err(StateError::BadPredator {
                index,
                field: "position",
                value: format!("{position}"),
            });
        }
        let position = if self.params.is_torus() {
            let (min, size) = self.params.world_box::<D>();
            space::wrap(position, min.into(), size.into())
        } else {
            position
        };
        if let Some(obstacle) = self
            .obstacles
            .as_ref()
            .and_then(|o| o.index().obstacle_at(position))
        {
            return Err(StateError::InsideObstacle {
                agent,
                index,
                position: show_point(position),
                obstacle: obstacle + 1,
                shape: self.params.obstacles[obstacle].name(),
            });
        }
        Ok(position)
    }
}

/// The obstacles of `params` as `pass` indexes them, or an index of none (which still wraps a
/// torus) when there is no pass: the pass's index is built once, not again per use.
pub(super) fn obstacle_index<'a, const D: usize>(
    params: &Params,
    pass: Option<&'a ObstaclePass<D>>,
) -> Cow<'a, ObstacleIndex<D>>
where
    Dim<D>: Dimension<D>,
{
    match pass {
        Some(pass) => Cow::Borrowed(pass.index()),
        None => Cow::Owned(ObstacleIndex::of(params)),
    }
}

/// A point as a message shows it: `(x, y)` or `(x, y, z)`.
fn show_point<const D: usize>(p: VecN<D>) -> String
where
    Dim<D>: Dimension<D>,
{
    let coordinates: Vec<String> = p.to_array().iter().map(f32::to_string).collect();
    format!("({})", coordinates.join(", "))
}
