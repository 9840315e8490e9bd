//! A force from outside the model: one change of velocity per boid, given by the caller for
//! one step (the Python package's `sim.step(force=fn)`, a user's own rule without Rust).
//!
//! It is a [`Pull`], added by every model at the one point where the world's pull (predators,
//! attractors) is added: in the boids model after the rules and the boundary turn, before the
//! scouts' bias, the speed limits and the move, so the limits still hold; in Vicsek's and
//! Couzin's models, whose boids move at a constant speed, it bends the desired direction as the
//! world's pull does. The force is given by boid id, so it does not depend on the order in
//! which the step visits the boids, and the step stays bit-identical on any thread count.

use crate::error::StateError;
use crate::interact::Pull;

/// The world's pull (if any) plus a change of velocity per boid id.
pub(super) struct Force<'a, const D: usize> {
    world: Option<&'a dyn Pull<D>>,
    by_id: &'a [[f32; D]],
}

impl<'a, const D: usize> Force<'a, D> {
    /// `by_id` added to `world`'s pull.
    pub(super) fn new(world: Option<&'a dyn Pull<D>>, by_id: &'a [[f32; D]]) -> Self {
        Self { world, by_id }
    }

    /// Refuses a force that is not one finite vector per boid of a flock of `count`.
    pub(super) fn check(by_id: &[[f32; D]], count: usize) -> Result<(), StateError> {
        if by_id.len() != count {
            return Err(StateError::ForceLength {
                found: by_id.len(),
                count,
            });
        }
        match by_id.iter().position(|v| !v.iter().all(|c| c.is_finite())) {
            Some(index) => Err(StateError::BadValue {
                index,
                field: "force",
                value: format!("{:?}", by_id[index]),
                allowed: "finite numbers".to_owned(),
            }),
            None => Ok(()),
        }
    }
}

impl<const D: usize> Pull<D> for Force<'_, D> {
    /// Everywhere: a force may act on any boid.
    fn reaches(&self, _: [f32; D], _: [f32; D]) -> bool {
        true
    }

    fn pull(&self, id: u32, p: [f32; D]) -> [f32; D] {
        let own = self.by_id[id as usize];
        match self.world {
            Some(world) => {
                let pulled = world.pull(id, p);
                std::array::from_fn(|a| pulled[a] + own[a])
            }
            None => own,
        }
    }

    /// A force frightens no resting boid; the world's predators still do.
    fn threatens(&self, p: [f32; D]) -> bool {
        self.world.is_some_and(|w| w.threatens(p))
    }
}
