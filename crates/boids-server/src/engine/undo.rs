//! The last live `set`, kept so that the server can take it back on its own: when a step soon
//! after it overran the budget (`cost.rs`), or when the model refused a step after it because
//! the flock would not stay finite (`recover.rs`). Undoing keeps the flock and puts the
//! parameters back as they were; the undo is logged as a `set`, so the event log still replays
//! what the pages showed.

use boids_core::ParamsBuilder;
use boids_io::events::Event;

use super::EngineState;

/// A `set` that the server may undo.
#[derive(Clone, Debug)]
pub(super) struct LastSet {
    /// The change, as a notice names it (`key = value`).
    pub what: String,
    /// The parameter.
    pub key: String,
    /// The layers before it.
    pub before: ParamsBuilder,
    /// The step it was made at.
    pub step: u64,
}

impl EngineState {
    /// Puts the parameters back as they were before `change`, keeping the flock, and logs it;
    /// the error says why it could not be done (nothing is changed then).
    pub(super) fn undo(&mut self, change: &LastSet) -> Result<(), String> {
        let params = change.before.params().clone();
        let event = Event::set(self.sim.step_count(), &change.key, &params);
        let line = self.log.line(&event).map_err(|error| error.to_string())?;
        self.sim
            .set_params(params)
            .map_err(|error| error.to_string())?;
        self.layers = change.before.clone();
        self.log.push(line);
        self.revision = self.revision.wrapping_add(1);
        Ok(())
    }
}
