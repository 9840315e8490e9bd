//! Replaying a log: the flock of its last `start`/`reset` event, then its later events applied
//! at their steps as the flock steps.

use std::collections::VecDeque;

use boids_core::params::Raw;
use boids_core::{Dim, Dimension, Params, ParamsBuilder, ParamsError, Simulation, Source};

use super::edit::{EditError, apply_edit, apply_set};
use super::log::{Change, Event, EventLog, EventsError};
use crate::param_json::json_to_raw;

impl EventLog {
    /// The dimensions (2 or 3) of the flock a replay builds: run the replay with
    /// [`EventLog::replay`] of that dimension.
    pub fn dimensions(&self, origin: &str) -> Result<usize, EventsError> {
        Ok(self.beginning(origin)?.params.dimensions)
    }

    /// Where the replayed flock begins: the index of the last `start`/`reset` event.
    pub(super) fn first_of_flock(&self, origin: &str) -> Result<usize, EventsError> {
        self.events
            .iter()
            .rposition(|e| e.change.begins_a_flock())
            .ok_or_else(|| EventsError::Invalid {
                origin: origin.to_owned(),
                message: "no \"start\" or \"reset\" event to begin from".to_owned(),
            })
    }

    /// The step the session had reached: the step it was exported at, or, in a log without
    /// one, the step of the replayed flock's last change (0 if it has none).
    pub fn end_step(&self, origin: &str) -> Result<u64, EventsError> {
        let first = self.first_of_flock(origin)?;
        let last_change = self.events[first + 1..].last().map_or(0, |e| e.step);
        Ok(self.exported_at_step.unwrap_or(last_change))
    }

    /// The last `start`/`reset` event: its index, preset, seed and parameters.
    pub(super) fn beginning(&self, origin: &str) -> Result<Beginning, EventsError> {
        let invalid = |message: String| EventsError::Invalid {
            origin: origin.to_owned(),
            message,
        };
        let first = self.first_of_flock(origin)?;
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
            preset: preset.clone(),
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
            ..
        } = self.beginning(origin)?;
        if params.dimensions != D {
            return Err(invalid(format!(
                "event {first} begins a flock of dimensions = {}, not {D}",
                params.dimensions
            )));
        }
        self.check_steps(origin, first)?;
        let pending = self.pending(origin, first)?;
        let sim = Simulation::<D>::new(params, seed).map_err(|error| EventsError::State {
            origin: origin.to_owned(),
            error,
        })?;
        Ok((
            sim,
            Replay {
                origin: origin.to_owned(),
                layers,
                pending,
            },
        ))
    }

    /// The events after the flock's beginning (event `first`), read and in step order, ready to
    /// be applied.
    pub(super) fn pending(
        &self,
        origin: &str,
        first: usize,
    ) -> Result<VecDeque<Pending>, EventsError> {
        let invalid = |message: String| EventsError::Invalid {
            origin: origin.to_owned(),
            message,
        };
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
        Ok(pending)
    }

    /// Replays the session to its end ([`EventLog::end_step`]), for a face that carries it on
    /// (`boids serve --events`): the flock there, with its parameters' layers, its preset and
    /// the events that made it. Refuses a log with a change after its end, which the flock
    /// would not have been through.
    pub fn resume<const D: usize>(&self, origin: &str) -> Result<Resumed<D>, EventsError>
    where
        Dim<D>: Dimension<D>,
    {
        let end = self.end_step(origin)?;
        let (mut sim, mut replay) = self.replay::<D>(origin)?;
        if let Some(late) = replay.pending.back().filter(|e| e.step > end) {
            return Err(EventsError::Invalid {
                origin: origin.to_owned(),
                message: format!(
                    "event {} is at step {}, after step {end}, where the session was exported",
                    late.index, late.step
                ),
            });
        }
        replay.run_to(&mut sim, end)?;
        let beginning = self.beginning(origin)?;
        Ok(Resumed {
            sim,
            layers: replay.layers,
            preset: beginning.preset,
            history: self.events[beginning.index..].to_vec(),
        })
    }
}

/// A session replayed to its end ([`EventLog::resume`]).
#[derive(Debug)]
pub struct Resumed<const D: usize>
where
    Dim<D>: Dimension<D>,
{
    /// The flock at the session's end.
    pub sim: Simulation<D>,
    /// Its parameters, each with the event it came from.
    pub layers: ParamsBuilder,
    /// The preset of the event that began it.
    pub preset: String,
    /// That event and the changes after it: the flock's log so far.
    pub history: Vec<Event>,
}

/// Where a replay begins: the last `start`/`reset` event.
pub(super) struct Beginning {
    pub(super) index: usize,
    preset: String,
    seed: u64,
    pub(super) layers: ParamsBuilder,
    pub(super) params: Params,
}

/// An event of the replayed flock, read, to be applied at its step.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) index: usize,
    pub(super) step: u64,
    pub(super) action: Action,
}

impl Pending {
    /// Where the values it sets come from, for messages about them.
    pub(super) fn source(&self, origin: &str) -> Source {
        Source::File {
            name: format!("{origin}, event {}", self.index),
            line: None,
        }
    }

    /// The refusal of the parameters it sets.
    pub(super) fn params_error(&self, origin: &str, error: ParamsError) -> EventsError {
        EventsError::Params {
            origin: origin.to_owned(),
            index: self.index,
            step: self.step,
            error: Box::new(error),
        }
    }

    /// `layers` with the `set` of `key = value` applied and checked, in a flock of
    /// `dimensions`: the one way a replay and its check before it ([`EventLog::course`]) read
    /// a `set` event. A change of the dimensions is refused, as it begins another flock.
    pub(super) fn set(
        &self,
        origin: &str,
        layers: &ParamsBuilder,
        key: &str,
        value: &Raw,
        dimensions: usize,
    ) -> Result<ParamsBuilder, EventsError> {
        let layers = apply_set(layers, key, value, self.source(origin))
            .map_err(|error| self.params_error(origin, error))?;
        if layers.params().dimensions != dimensions {
            return Err(EventsError::Invalid {
                origin: origin.to_owned(),
                message: format!(
                    "event {}: `{key}` changes the flock's dimensions, which begins a new flock: \
                     the viewer logs it as a reset",
                    self.index
                ),
            });
        }
        Ok(layers)
    }
}

/// What a pending event does.
#[derive(Clone, Debug)]
pub(super) enum Action {
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
            let state_error = |error| EventsError::State {
                origin: format!("{}, event {}", self.origin, event.index),
                error,
            };
            let layers = match &event.action {
                Action::Set { key, value } => {
                    let layers = event.set(&self.origin, &self.layers, key, value, D)?;
                    sim.set_params(layers.params().clone())
                        .map_err(state_error)?;
                    layers
                }
                Action::Edit(change) => {
                    let source = event.source(&self.origin);
                    apply_edit(&self.layers, sim, change, source).map_err(|error| match error {
                        EditError::Params(error) => event.params_error(&self.origin, error),
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
            let until = self.next_step().map_or(step, |next| next.min(step));
            let steps = until.saturating_sub(sim.step_count()).max(1);
            sim.step_many(steps).map_err(|error| EventsError::State {
                origin: self.origin.clone(),
                error,
            })?;
            self.apply_due(sim)?;
        }
        Ok(())
    }

    /// The step of the next event not yet applied, if any: a run may step up to it in one go.
    pub fn next_step(&self) -> Option<u64> {
        self.pending.front().map(|event| event.step)
    }

    /// Events not yet applied (those after the last step replayed).
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}
