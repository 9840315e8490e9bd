//! The check after every step that the flock is still finite.
//!
//! The parameters' bounds ([`crate::params::Unit::limit`]) keep one step inside `f32`, but not
//! a flock whose speed grows step after step (an unstable weight, a sum over thousands of
//! neighbours). There a step would write NaN or infinity, which every observer (a saved file,
//! a frame, a metric) would carry on and the neighbour searches would have to walk around. The
//! step is refused instead, naming the first boid it would have broken, and the simulation
//! undoes it: one pass over the new positions and velocities, after the move.

use crate::engine::FlockBuffers;
use crate::error::StateError;
use crate::par;
use crate::space::{Dim, Dimension};

/// [`StateError::NonFinite`] for the step numbered `step` (counting from 0) when it left a
/// boid's position or velocity not finite: the boid of lowest id among those.
pub(super) fn check<const D: usize>(flock: &FlockBuffers<D>, step: u64) -> Result<(), StateError>
where
    Dim<D>: Dimension<D>,
{
    let finite = |v: [f32; D]| v.iter().all(|x| x.is_finite());
    let broken = par::min_of(flock.len(), |k| {
        let fine = finite(flock.pos[k].into()) && finite(flock.vel[k].into());
        (!fine).then_some((flock.id[k], k))
    });
    match broken {
        None => Ok(()),
        Some((id, k)) => {
            let (position, velocity): ([f32; D], [f32; D]) =
                (flock.pos[k].into(), flock.vel[k].into());
            Err(StateError::NonFinite {
                step: step + 1,
                id,
                position: format!("{position:?}"),
                velocity: format!("{velocity:?}"),
            })
        }
    }
}
