//! A step the model refuses (one that would leave the flock not finite: a parameter made it
//! diverge) must not stop the viewer. The model keeps its last good state; here the last
//! parameter change, the likely cause, is undone (and logged, so the log still replays what
//! the viewer showed), or, with no change to undo, the run pauses. Every client is told why:
//! the `step` request that met it in its reply, and all of them in the state message.

use boids_core::{ParamsBuilder, StateError};
use boids_io::events::Event;

use super::EngineState;
use crate::error::RequestError;

/// A live parameter change that can be undone: its key and the layers before it.
pub(super) struct LastChange {
    key: String,
    before: ParamsBuilder,
}

impl LastChange {
    /// The change of `key` from the parameters `before`.
    pub(super) fn new(key: &str, before: ParamsBuilder) -> Self {
        Self {
            key: key.to_owned(),
            before,
        }
    }
}

impl EngineState {
    /// Recovers from the refused step `refused` (see the module docs), returning what the
    /// client is told.
    pub(super) fn recover(&mut self, refused: StateError) -> RequestError {
        let recovery = match self.last_change.take() {
            Some(change) => self.undo(change),
            None => {
                self.running = false;
                "the run is paused: change a parameter or reset".to_owned()
            }
        };
        let error = RequestError::StepRefused { refused, recovery };
        self.refused = Some(error.to_string());
        self.publish_state();
        self.publish_frame();
        error
    }

    /// Puts back the parameters before `change`; a change that cannot be undone pauses the run.
    fn undo(&mut self, change: LastChange) -> String {
        let params = change.before.params().clone();
        let key = change.key;
        if let Err(error) = self.sim.set_params(params) {
            self.running = false;
            return format!("{key} could not be put back ({error}): the run is paused");
        }
        self.layers = change.before;
        let step = self.sim.step_count();
        if let Ok(line) = self.log.line(&Event::set(step, &key, self.sim.params())) {
            self.log.push(line);
        }
        self.revision = self.revision.wrapping_add(1);
        let value = self.sim.params().get(&key).map(|v| v.to_string());
        format!(
            "the last change is undone: {key} is back to {}",
            value.unwrap_or_default()
        )
    }
}
