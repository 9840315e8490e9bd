//! The world as one object: everything a flock lives among besides the other boids, with its
//! state, and the stages of a step it takes part in.
//!
//! A [`World`] owns the obstacles (as their pass, [`ObstaclePass`]), the predators and how they
//! hunt, the pointer's predator, the resting countdowns of perching boids and the last step's
//! captures. The simulation calls it at fixed points of every step, whichever path or engine
//! moves the boids: [`World::steer`] and [`World::hunt`] before the move (both read the state at
//! the step's start), then, once after the move, [`World::pass_obstacles`] and
//! [`World::catch`]. A change of parameters carries its state over ([`World::carry_over`]), and
//! the viewer's edits of predators go through it. A new world object joins here (see the
//! checklist in ARCHITECTURE.md).

use std::borrow::Cow;

use super::{Hunt, ObstaclePass, Predator, Pull, WorldSteer, captures, predator_start, start};
use crate::error::StateError;
use crate::obstacles::ObstacleIndex;
use crate::par;
use crate::params::Params;
use crate::rng::{self, Purpose};
use crate::rules::Kernel;
use crate::space::{self, Coordinates, Dim, Dimension, VecN};

/// The world of a flock in `D` dimensions (see the module docs).
#[derive(Clone, Debug)]
pub struct World<const D: usize = 2>
where
    Dim<D>: Dimension<D>,
{
    /// What the obstacles do to a step; `None` without obstacles (the step skips the pass).
    obstacles: Option<ObstaclePass<D>>,
    /// The predators, in index order.
    predators: Vec<Predator<D>>,
    /// A predator the viewer's pointer moves (not hunting by itself, not saved); boids fear
    /// and it catches like the others.
    pointer: Option<Predator<D>>,
    /// How predators move.
    hunt: Hunt<D>,
    /// Steps each boid (storage order) still rests; empty unless perching is on, which takes
    /// the general path, where storage order is id order.
    resting: Vec<u32>,
    /// Boids caught in the last step.
    captures: u64,
}

impl<const D: usize> World<D>
where
    Dim<D>: Dimension<D>,
{
    /// The world of `params` with the predators and resting countdowns of a state.
    pub fn new(params: &Params, predators: Vec<Predator<D>>, resting: Vec<u32>) -> Self {
        Self {
            obstacles: ObstaclePass::new(params),
            predators,
            pointer: None,
            hunt: Hunt::new(params),
            resting,
            captures: 0,
        }
    }

    /// Whether the world takes no part in a step: no obstacles, no predators (the pointer's
    /// neither) and no attractors, so the step is the engine's alone.
    pub fn is_idle(&self, params: &Params) -> bool {
        self.obstacles.is_none()
            && self.predators.is_empty()
            && self.pointer.is_none()
            && params.attractors.is_empty()
    }

    /// The predators, in index order.
    pub fn predators(&self) -> &[Predator<D>] {
        &self.predators
    }

    /// The predator the viewer's pointer moves, if any.
    pub fn pointer(&self) -> Option<&Predator<D>> {
        self.pointer.as_ref()
    }

    /// Steps each boid still rests, in storage order (empty when perching is off).
    pub fn resting(&self) -> &[u32] {
        &self.resting
    }

    /// Boids caught in the last step.
    pub fn captures(&self) -> u64 {
        self.captures
    }

    /// The obstacles of `params` as this world indexes them: the pass's index, built once, or
    /// an index of none (which still wraps a torus).
    pub fn obstacle_index(&self, params: &Params) -> Cow<'_, ObstacleIndex<D>> {
        index_of(params, self.obstacles.as_ref())
    }

    /// Replaces the predators and resting countdowns with a state's (a general-path step, which
    /// works on the whole state in id order).
    pub(crate) fn load(&mut self, predators: Vec<Predator<D>>, resting: Vec<u32>) {
        self.predators = predators;
        self.resting = resting;
    }

    /// Stage *steer*: what pulls on the boids this step, from the predators (the pointer's
    /// too) and attractors at the step's start, plus `force` by boid id when given.
    pub fn steer<'a>(&self, params: &Params, force: Option<&'a [[f32; D]]>) -> Option<Pull<'a, D>> {
        let steer = WorldSteer::new(params, self.predators.iter().chain(&self.pointer));
        Pull::new(steer, force)
    }

    /// Stage *hunt*: the predators' next state from the flock (`boids` positions, `ids` their
    /// ids) at the start of step `step` (the pointer's predator stays where the pointer put
    /// it); `None` without predators.
    pub fn hunt(
        &self,
        kernel: &Kernel<D>,
        (seed, step): (u64, u64),
        boids: &[VecN<D>],
        ids: &[u32],
    ) -> Option<Vec<Predator<D>>> {
        if self.predators.is_empty() {
            return None;
        }
        let hunt = &self.hunt;
        let mut hunted = hunt.step(kernel, seed, step, &self.predators, boids, ids);
        if let Some(pass) = &self.obstacles {
            hunt.avoid(pass, kernel, &self.predators, &mut hunted);
        }
        Some(hunted)
    }

    /// Stage *obstacles*: steers every boid (positions `pos`, velocities `vel` after the move)
    /// around the obstacles and keeps it out of them, `before(k)` being where the boid at `k`
    /// was before the move. Returns whether there was a pass to run.
    pub fn pass_obstacles(
        &self,
        kernel: &Kernel<D>,
        before: impl Fn(usize) -> VecN<D> + Sync,
        pos: &mut [VecN<D>],
        vel: &mut [VecN<D>],
    ) -> bool {
        let Some(pass) = &self.obstacles else {
            return false;
        };
        par::for_each_zip(pos, vel, |k, p, v| pass.apply(kernel, before(k), p, v));
        true
    }

    /// Stage *catch*: the predators take their `hunted` moves, then catch the boids (`pos`,
    /// `vel` and `ids` after the move) within `capture_range` of them ([`captures`]); a caught
    /// boid starts again at a random free place drawn from its own stream. Returns whether
    /// anything could catch.
    pub fn catch(
        &mut self,
        params: &Params,
        (seed, step): (u64, u64),
        hunted: Option<Vec<Predator<D>>>,
        (pos, vel, ids): (&mut [VecN<D>], &mut [VecN<D>], &[u32]),
    ) -> bool {
        if let Some(hunted) = hunted {
            self.predators = hunted;
        }
        self.captures = 0;
        let hunters = self.predators.iter().chain(&self.pointer);
        let hunters: Vec<VecN<D>> = hunters.map(|p| p.position).collect();
        if params.capture_range <= 0.0 || hunters.is_empty() {
            return false;
        }
        let range = params.capture_range as f32;
        let periods = params.periods::<D>().into();
        let caught = captures(&hunters, range, periods, pos, ids);
        if caught.is_empty() {
            return true;
        }
        let obstacles = index_of(params, self.obstacles.as_ref());
        for &slot in &caught {
            let id = u64::from(ids[slot]);
            let mut s = rng::stream(seed, Purpose::Respawn, step, id);
            (pos[slot], vel[slot]) = start::<D, VecN<D>>(params, &obstacles, &mut s);
            if let Some(resting) = self.resting.get_mut(slot) {
                *resting = 0;
            }
        }
        self.captures = caught.len() as u64;
        true
    }

    /// Refuses a flock (`pos`, `ids`) with a boid or predator inside an obstacle (a loaded
    /// state: the random start never places one there).
    pub fn check_outside_obstacles(
        &self,
        params: &Params,
        pos: &[VecN<D>],
        ids: &[u32],
    ) -> Result<(), StateError> {
        let boids = pos.iter().zip(ids);
        let boids = boids.map(|(&p, &id)| ("boid", id as usize, p));
        let predators = self.predators.iter().enumerate();
        let predators = predators.map(|(k, predator)| ("predator", k, predator.position));
        boids
            .chain(predators)
            .try_for_each(|(agent, index, p)| self.outside(params, agent, index, p))
    }

    /// The world of `params` after a change of parameters, for a flock of `positions` (id
    /// order, `params.count` of them) with the `predators` and `resting` countdowns of its
    /// state: predators kept or drawn afresh to `predator_count`, countdowns kept while perching
    /// is on, and boids and predators that a new obstacle covers moved out of it (a live edit
    /// that places an obstacle on the flock). The world takes the predators and countdowns when
    /// the state is loaded.
    pub fn carry_over(
        &self,
        params: &Params,
        seed: u64,
        positions: &mut [VecN<D>],
        predators: &mut Vec<Predator<D>>,
        resting: &mut Vec<u32>,
    ) -> Self {
        let mut world = Self::new(params, Vec::new(), Vec::new());
        (world.pointer, world.captures) = (self.pointer, self.captures);
        let index = world.obstacle_index(params).into_owned();
        let kept = predators.len().min(params.predator_count);
        predators.truncate(kept);
        predators
            .extend((kept..params.predator_count).map(|k| predator_start(params, &index, seed, k)));
        resting.resize(if params.perch { positions.len() } else { 0 }, 0);
        if let Some(pass) = &world.obstacles {
            push_out(pass, params, &index, seed, positions, predators);
        }
        world
    }

    /// Adds a predator at `position` (wrapped into a torus world), heading as the next
    /// predator's start would: the viewer's "place a predator".
    pub(crate) fn add_predator(
        &mut self,
        params: &Params,
        seed: u64,
        position: VecN<D>,
    ) -> Result<(), StateError> {
        let index = self.predators.len();
        let position = self.placeable(params, position, index)?;
        let obstacles = self.obstacle_index(params);
        let start = predator_start(params, &obstacles, seed, index);
        self.predators.push(Predator { position, ..start });
        Ok(())
    }

    /// Puts predator `index` at `position` (wrapped into a torus world), keeping its heading.
    pub(crate) fn move_predator(
        &mut self,
        params: &Params,
        index: usize,
        position: VecN<D>,
    ) -> Result<(), StateError> {
        let position = self.placeable(params, position, index)?;
        let count = self.predators.len();
        let predator = self
            .predators
            .get_mut(index)
            .ok_or(StateError::NoPredator { index, count })?;
        predator.position = position;
        Ok(())
    }

    /// Removes predator `index` (the later ones move down by one).
    pub(crate) fn remove_predator(&mut self, index: usize) -> Result<(), StateError> {
        let count = self.predators.len();
        if index >= count {
            return Err(StateError::NoPredator { index, count });
        }
        self.predators.remove(index);
        Ok(())
    }

    /// Moves the pointer's predator to `position` (making it if there is none), its velocity
    /// the move itself; `None` removes it.
    pub(crate) fn set_pointer(
        &mut self,
        params: &Params,
        position: Option<VecN<D>>,
    ) -> Result<(), StateError> {
        self.pointer = match position {
            None => None,
            Some(position) => {
                let position = self.placeable(params, position, self.predators.len())?;
                let velocity = self.pointer.map_or(VecN::<D>::ZERO, |old| {
                    let moved =
                        space::minimum_image(position - old.position, params.periods::<D>().into());
                    let dt = params.dt as f32;
                    VecN::<D>::from(moved.to_array().map(|c| c / dt))
                });
                Some(Predator { position, velocity })
            }
        };
        Ok(())
    }

    /// `position` wrapped into a torus world, or the reason predator `index` cannot be put
    /// there (not finite, inside an obstacle).
    fn placeable(
        &self,
        params: &Params,
        position: VecN<D>,
        index: usize,
    ) -> Result<VecN<D>, StateError> {
        if !position.to_array().iter().all(|c| c.is_finite()) {
            return Err(StateError::BadPredator {
                index,
                field: "position",
                value: format!("{position}"),
            });
        }
        let position = if params.is_torus() {
            let (min, size) = params.world_box::<D>();
            space::wrap(position, min.into(), size.into())
        } else {
            position
        };
        self.outside(params, "predator", index, position)?;
        Ok(position)
    }

    /// Refuses `agent` `index` at `p` when an obstacle covers it.
    fn outside(
        &self,
        params: &Params,
        agent: &'static str,
        index: usize,
        p: VecN<D>,
    ) -> Result<(), StateError> {
        let Some(pass) = &self.obstacles else {
            return Ok(());
        };
        match pass.index().obstacle_at(p) {
            None => Ok(()),
            Some(obstacle) => Err(StateError::InsideObstacle {
                agent,
                index,
                position: show_point(p),
                obstacle: obstacle + 1,
                shape: params.obstacles[obstacle].name(),
            }),
        }
    }
}

/// Moves the boids (`positions`, id order) and `predators` that `pass`'s obstacles cover out
/// of them, or starts them afresh: a boid at the place its random start would draw.
fn push_out<const D: usize>(
    pass: &ObstaclePass<D>,
    params: &Params,
    index: &ObstacleIndex<D>,
    seed: u64,
    positions: &mut [VecN<D>],
    predators: &mut [Predator<D>],
) where
    Dim<D>: Dimension<D>,
{
    for (id, p) in positions.iter_mut().enumerate() {
        *p = pass.way_out(*p).unwrap_or_else(|| {
            let mut s = rng::stream(seed, Purpose::Init, 0, id as u64);
            start::<D, VecN<D>>(params, index, &mut s).0
        });
    }
    for (k, predator) in predators.iter_mut().enumerate() {
        predator.position = pass
            .way_out(predator.position)
            .unwrap_or_else(|| predator_start(params, index, seed, k).position);
    }
}

/// The obstacles of `params` as `pass` indexes them, or an index of none when there is no
/// pass.
fn index_of<'a, const D: usize>(
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
