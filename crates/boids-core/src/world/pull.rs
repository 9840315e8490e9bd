//! What pulls on each boid in one step, as data an engine reads: the world's steer (predators
//! to flee and attractors to seek, their positions as arrays, [`WorldSteer`]) and a force from
//! outside the model, one change of velocity per boid id (the Python package's
//! `sim.step(force=fn)`, a user's own rule without Rust).
//!
//! Every model adds the pull at one point: the boids model after the rules and the boundary
//! turn, before the scouts' bias, the speed limits and the move, so the limits still hold; the
//! heading models (Vicsek, Couzin), whose boids move at a constant speed, bend their desired
//! direction by it. The force is given by boid id, so it does not depend on the order in which
//! an engine visits the boids, and the step stays bit-identical on any thread count.

use super::WorldSteer;
use crate::error::StateError;
use crate::space::{Coordinates, Dim, Dimension, VecN};

/// The world's pull plus a change of velocity per boid id, for one step.
#[derive(Clone, Debug)]
pub struct Pull<'a, const D: usize>
where
    Dim<D>: Dimension<D>,
{
    steer: Option<WorldSteer<D>>,
    force: Option<&'a [[f32; D]]>,
}

impl<'a, const D: usize> Pull<'a, D>
where
    Dim<D>: Dimension<D>,
{
    /// `steer` and `force` together, or `None` when there is neither (nothing pulls).
    pub fn new(steer: Option<WorldSteer<D>>, force: Option<&'a [[f32; D]]>) -> Option<Self> {
        (steer.is_some() || force.is_some()).then_some(Self { steer, force })
    }

    /// Refuses a force that is not one finite vector per boid of a flock of `count`.
    pub fn check_force(force: &[[f32; D]], count: usize) -> Result<(), StateError> {
        if force.len() != count {
            return Err(StateError::ForceLength {
                found: force.len(),
                count,
            });
        }
        match force.iter().position(|v| !v.iter().all(|c| c.is_finite())) {
            Some(index) => Err(StateError::BadValue {
                index,
                field: "force",
                value: format!("{:?}", force[index]),
                allowed: "finite numbers".to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Whether the pull may be other than zero somewhere in the box `[lo, hi]`: a group of boids
    /// far from every feared predator, with no attractor and no force, needs none of its own.
    #[inline]
    pub fn reaches(&self, lo: VecN<D>, hi: VecN<D>) -> bool {
        self.force.is_some() || self.steer.as_ref().is_some_and(|s| s.reaches(lo, hi))
    }

    /// The change of velocity (boids) or of the unit social direction (heading models) of boid
    /// `id` at `p`.
    #[inline]
    pub fn pull(&self, id: u32, p: VecN<D>) -> VecN<D> {
        let world = self.steer.as_ref().map(|s| s.pull(p));
        match (world, self.force) {
            (Some(world), Some(force)) => world + VecN::<D>::from(force[id as usize]),
            (None, Some(force)) => force[id as usize].into(),
            (Some(world), None) => world,
            (None, None) => VecN::<D>::ZERO,
        }
    }

    /// Whether a predator frightens a boid at `p` (a resting boid takes off); a force
    /// frightens none.
    pub fn threatens(&self, p: VecN<D>) -> bool {
        self.steer.as_ref().is_some_and(|s| s.threatens(p))
    }
}
