//! Changes a command applies to its flock as it steps: none, or an event log's replay. `boids
//! run` and `boids render` step a flock alike whether or not it replays a session, so both take
//! their changes through this one trait.

use anyhow::Result;
use boids_core::{Dim, Dimension, Simulation};
use boids_io::events::Replay;

/// Changes a run applies to its flock as it goes (after each step, and once before the first):
/// an event log's, or none.
pub trait Changes<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// Applies the changes due at `sim`'s step.
    fn apply_due(&mut self, sim: &mut Simulation<D>) -> Result<()>;
    /// Changes not applied (due after the run's last step).
    fn remaining(&self) -> usize;
    /// The step of the next change, if any: the run may step up to it in one go.
    fn next_due(&self) -> Option<u64>;
    /// Steps from `step` that a run may take in one go before the next change (at least one).
    fn steps_before_due(&self, step: u64) -> u64 {
        self.next_due()
            .map_or(u64::MAX, |due| due.saturating_sub(step))
            .max(1)
    }
    /// Whether the changes come from an event log, which may add predators.
    fn replays_events(&self) -> bool;
}

/// A run that only steps.
pub struct NoChanges;

impl<const D: usize> Changes<D> for NoChanges
where
    Dim<D>: Dimension<D>,
{
    fn apply_due(&mut self, _: &mut Simulation<D>) -> Result<()> {
        Ok(())
    }

    fn remaining(&self) -> usize {
        0
    }

    fn next_due(&self) -> Option<u64> {
        None
    }

    fn replays_events(&self) -> bool {
        false
    }
}

/// An event log, recorded by the viewer, of a flock of either dimension.
impl<const D: usize> Changes<D> for Replay
where
    Dim<D>: Dimension<D>,
{
    fn apply_due(&mut self, sim: &mut Simulation<D>) -> Result<()> {
        Ok(Replay::apply_due(self, sim)?)
    }

    fn remaining(&self) -> usize {
        Replay::remaining(self)
    }

    fn next_due(&self) -> Option<u64> {
        self.next_step()
    }

    fn replays_events(&self) -> bool {
        true
    }
}
