//! A step the model refuses (one that would leave the flock not finite: a parameter made it
//! diverge) must not stop the viewer. The model keeps its last good state; here the last `set`,
//! the likely cause, is undone (`undo.rs`), or, with none to undo, the run pauses. Every page is
//! told why in a notice, and the `step` request that met it in its reply.

use boids_core::StateError;

use super::EngineState;
use crate::error::RequestError;

impl EngineState {
    /// Recovers from the refused step `refused` (see the module docs), returning what the
    /// client is told.
    pub(super) fn recover(&mut self, refused: StateError) -> RequestError {
        let undone = self.last_set.take().map(|change| {
            self.undo(&change)
                .map(|()| change.key)
                .map_err(|why| format!("{} could not be undone ({why})", change.what))
        });
        let recovery = match undone {
            Some(Ok(key)) => {
                let value = self.sim.params().get(&key).map(|v| v.to_string());
                format!(
                    "the last change is undone: {key} is back to {}",
                    value.unwrap_or_default()
                )
            }
            Some(Err(why)) => {
                self.running = false;
                format!("{why}: the run is paused")
            }
            None => {
                self.running = false;
                "the run is paused: change a parameter or reset".to_owned()
            }
        };
        let error = RequestError::StepRefused { refused, recovery };
        self.notify(error.to_string());
        self.publish_state();
        self.publish_frame();
        error
    }
}
