//! Replaying a log: the flock of its last `start`/`reset` event, then its later events applied
//! at their steps as the flock steps.

use std::collections::VecDeque;

use boids_core::params::Raw;
use boids_core::{Dim, Dimension, Params, ParamsBuilder, ParamsError, Simulation, Source};

use super::edit::{EditError, apply_edit, apply_set};
use super::log::{Change, EventLog, EventsError};
use crate::param_json::json_to_raw;

impl EventLog {
    /// The dimensions (2 or 3) of the flock a replay builds: run the replay with
    /// [`EventLog::replay`] of that dimension.
    pub fn dimensions(&self, origin: &str) -> Result<usize, EventsError> {
        Ok(self.beginning(origin)?.params.dimensions)
    }

    /// The last `start`/`reset` event: its index, seed and parameters.
    fn beginning(&self, origin: &str) -> Result<Beginning, EventsError> {
        let invalid = |message: String| EventsError::Invalid {
            origin: origin.to_owned(),
            message,
        };
        let first = self
            .events
            .iter()
            .rposition(|e| e.change.begins_a_flock())
            .ok_or_else(|| invalid("no \"start\" or \"reset\" event to begin from".to_owned()))?;
        let params_error = |index: usize, error: ParamsError| EventsError::Params {
            origin: origin.to_owned(),
            index,
            step: self.events[index].step,
            error: Box::new(error),
        };
        let (Change::Start {
            preset,
            seed,
            params,
        }
        | Change::Reset {
            preset,
            seed,
            params,
        }) = &self.events[first].change
        else {
            unreachable!("found by kind")
        };
        let source = Source::File {
            name: format!("{origin}, event {first}"),
            line: None,
        };
        let mut layers = ParamsBuilder::preset(preset).map_err(|e| params_error(first, e))?;
        for (key, value) in params {
            let value = json_to_raw(value).map_err(|message| {
                invalid(format!("event {first}, parameter `{key}`: {message}"))
            })?;
            layers = layers
                .apply(key, &value, source.clone())
                .map_err(|e| params_error(first, e))?;
        }
        let params = layers.build().map_err(|e| params_error(first, e))?;
        Ok(Beginning {
            index: first,
            seed: *seed,
            layers,
            params,
        })
    }

    /// Builds the flock of the last `start`/`reset` event and returns it with the `set` events
    /// that follow, ready to be applied as the flock steps. The flock must have `D` dimensions
    /// ([`EventLog::dimensions`]).
    pub fn replay<const D: usize>(
        &self,
        origin: &str,
    ) -> Result<(Simulation<D>, Replay), EventsError>
    where
        Dim<D>: Dimension<D>,
    {
        let invalid = |message: String| EventsError::Invalid {
            origin: origin.to_owned(),
            message,
        };
        let Beginning {
            index: first,
            seed,
            layers,
            params,
        } = self.beginning(origin)?;
        if params.dimensions != D {
            return Err(invalid(format!(
                "event {first} begins a flock of dimensions = {}, not {D}",
                params.dimensions
            )));
        }
        let sim = Simulation::<D>::new(params, seed).map_err(|error| EventsError::State {
            origin: origin.to_owned(),
            error,
        })?;

        let mut pending = VecDeque::new();
        let mut last_step = 0;
        for (index, event) in self.events.iter().enumerate().skip(first + 1) {
            if event.step < last_step {
                return Err(invalid(format!(
                    "event {index} is at step {}, before the previous event's step {last_step}",
                    event.step
                )));
            }
            last_step = event.step;
            let action = match &event.change {
                Change::Set { key, value } => Action::Set {
                    key: key.clone(),
                    value: json_to_raw(value)
                        .map_err(|message| invalid(format!("event {index}, `{key}`: {message}")))?,
                },
                edit => Action::Edit(edit.clone()),
            };
            pending.push_back(Pending {
                index,
                step: event.step,
                action,
            });
        }
        Ok((
            sim,
            Replay {
                origin: origin.to_owned(),
                layers,
                pending,
            },
        ))
    }
}

/// Where a replay begins: the last `start`/`reset` event.
struct Beginning {
    index: usize,
    seed: u64,
    layers: ParamsBuilder,
    params: Params,
}

#[derive(Clone, Debug)]
struct Pending {
    index: usize,
    step: u64,
    action: Action,
}

/// What a pending event does.
#[derive(Clone, Debug)]
enum Action {
    /// A parameter change, its value read.
    Set { key: String, value: Raw },
    /// A world edit ([`apply_edit`]).
    Edit(Change),
}

/// The `set` events of a replay not yet applied.
#[derive(Clone, Debug)]
pub struct Replay {
    origin: String,
    /// The replayed flock's parameters with the event each came from.
    layers: ParamsBuilder,
    pending: VecDeque<Pending>,
}

impl Replay {
    /// Applies every event due at the flock's current step. Call it after each step (and once
    /// before the first).
    pub fn apply_due<const D: usize>(&mut self, sim: &mut Simulation<D>) -> Result<(), EventsError>
    where
        Dim<D>: Dimension<D>,
    {
        while let Some(event) = self.pending.front().filter(|e| e.step <= sim.step_count()) {
            if event.step < sim.step_count() {
                return Err(EventsError::Invalid {
                    origin: self.origin.clone(),
                    message: format!(
                        "event {} at step {} was passed: the replay is at step {}",
                        event.index,
                        event.step,
                        sim.step_count()
                    ),
                });
            }
            let source = Source::File {
                name: format!("{}, event {}", self.origin, event.index),
                line: None,
            };
            let params_error = |error| EventsError::Params {
                origin: self.origin.clone(),
                index: event.index,
                step: event.step,
                error: Box::new(error),
            };
            let state_error = |error| EventsError::State {
                origin: format!("{}, event {}", self.origin, event.index),
                error,
            };
            let layers = match &event.action {
                Action::Set { key, value } => {
                    let layers =
                        apply_set(&self.layers, key, value, source).map_err(params_error)?;
                    if layers.params().dimensions != D {
                        return Err(EventsError::Invalid {
                            origin: self.origin.clone(),
                            message: format!(
                                "event {}: `{key}` changes the flock's dimensions, which begins a \
                                 new flock: the viewer logs it as a reset",
                                event.index
                            ),
                        });
                    }
                    sim.set_params(layers.params().clone())
                        .map_err(state_error)?;
                    layers
                }
                Action::Edit(change) => {
                    apply_edit(&self.layers, sim, change, source).map_err(|error| match error {
                        EditError::Params(error) => params_error(error),
                        EditError::State(error) => state_error(error),
                        edit @ EditError::Coordinates { .. } => EventsError::Invalid {
                            origin: format!("{}, event {}", self.origin, event.index),
                            message: edit.to_string(),
                        },
                    })?
                }
            };
            self.layers = layers;
            self.pending.pop_front();
        }
        Ok(())
    }

    /// Steps `sim` until it reaches `step`, applying events on the way (and those due at `step`).
    pub fn run_to<const D: usize>(
        &mut self,
        sim: &mut Simulation<D>,
        step: u64,
    ) -> Result<(), EventsError>
    where
        Dim<D>: Dimension<D>,
    {
        self.apply_due(sim)?;
        while sim.step_count() < step {
            sim.step().map_err(|error| EventsError::State {
                origin: self.origin.clone(),
                error,
            })?;
            self.apply_due(sim)?;
        }
        Ok(())
    }

    /// Events not yet applied (those after the last step replayed).
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}
