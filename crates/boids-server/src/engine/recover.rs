//! A step the simulation refuses must not stop the viewer. The flock keeps its last good state
//! either way, and every page is told what the server did in a notice (the `step` request that
//! met it, in its reply):
//! - a step the model refuses (one that would leave the flock not finite: a parameter made it
//!   diverge): the last `set`, the likely cause, is undone (`undo.rs`), or, with none to undo,
//!   the run pauses;
//! - a step the engine could not take (the GPU failed: out of memory, lost): the flock goes on
//!   on the CPU engine from the step it is at, since a device that failed once may fail again.

use boids_core::{EngineKind, StateError};

use super::EngineState;
use crate::error::RequestError;

impl EngineState {
    /// Recovers from the refused step `refused` (see the module docs), returning what the
    /// client is told.
    pub(super) fn recover(&mut self, refused: StateError) -> RequestError {
        let recovery = match refused {
            StateError::EngineFailed { .. } => self.leave_failed_engine(),
            _ => self.undo_the_cause(),
        };
        let error = RequestError::StepRefused { refused, recovery };
        self.notify(error.to_string());
        self.publish_state();
        self.publish_frame();
        error
    }

    /// Undoes the last `set`, or pauses the run when there is none or it cannot be undone.
    fn undo_the_cause(&mut self) -> String {
        let undone = self.last_set.take().map(|change| {
            self.undo(&change)
                .map(|()| change.key)
                .map_err(|why| format!("{} could not be undone ({why})", change.what))
        });
        match undone {
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
        }
    }

    /// Moves the flock to the CPU engine, or pauses the run when it cannot go there.
    fn leave_failed_engine(&mut self) -> String {
        match self.sim.use_engine(EngineKind::Cpu) {
            Ok(()) => format!(
                "the flock goes on on the cpu engine from step {}",
                self.sim.step_count()
            ),
            Err(why) => {
                self.running = false;
                format!("the flock cannot go on on the cpu engine ({why}): the run is paused")
            }
        }
    }
}
