//! The event log: every parameter change, world edit and reset of a viewer session, with the
//! step at which it applied, so that `boids run --events FILE` replays the session to the same final state.
//!
//! A flock in the viewer is a deterministic function of its starting parameters and seed, plus
//! the parameter changes applied between steps. Speed, start/stop and overlays only change *when*
//! steps happen, not what they compute, so they are not logged. The log is JSON:
//!
//! ```json
//! {
//!   "format": "boids-events",
//!   "version": 1,
//!   "exported_at_step": 1500,
//!   "replay": "boids run --events boids-events.json --steps 1500",
//!   "events": [
//!     {"step": 0, "time": "2026-11-21T10:00:00.000Z", "kind": "start",
//!      "preset": "cornell", "seed": 0, "params": {"count": 500, "visual_range": 40.0, "...": "..."}},
//!     {"step": 120, "time": "2026-11-21T10:00:02.000Z", "kind": "set", "key": "visual_range", "value": 55.0},
//!     {"step": 900, "time": "2026-11-21T10:00:12.500Z", "kind": "reset",
//!      "preset": "cornell", "seed": 4, "params": {"...": "..."}},
//!     {"step": 30, "time": "2026-11-21T10:00:13.000Z", "kind": "set", "key": "max_speed", "value": "inf"}
//!   ]
//! }
//! ```
//!
//! - `start` and `reset` begin a new flock at step 0 from `params` and `seed`: each key of
//!   `params` overrides the named preset's default, so a hand-written `"params": {}` means the
//!   preset as it is. The server always writes every parameter. A `reset`'s `step` is the step the
//!   previous flock had reached; steps count from 0 again after it.
//! - `set` changes one parameter after `step` steps of the current flock, before the next step,
//!   exactly as the viewer did: the current parameters with `key = value`, validated, then
//!   [`Simulation::set_params`] (the flock is kept; boids are added or removed to match `count`).
//!   A change of `dimensions` is no `set`: it begins a flock of the other dimension, so the
//!   viewer logs it as a `reset`, and a replay refuses a `set` of it.
//! - `place_predator` (`x`, `y`), `remove_predator` (`index`) and `pointer` (`x`, `y`, or
//!   neither to remove it) are the viewer's predator tools, applied after `step` steps as the
//!   viewer applied them ([`apply_edit`]): `predator_count` follows the predators. A point of a
//!   flock in three dimensions has `z` too (and one of a flat flock has none).
//! - Infinite values are written as the strings `"inf"` and `"-inf"`.
//!
//! Replaying means: build the flock of the **last** `start`/`reset` event, then step, applying its
//! `set` events at their steps. Earlier events are history. `time` is when the change was made
//! (UTC, RFC 3339), for the record; replay ignores it.
//!
//! The server keeps only what replay uses, the current flock's `start`/`reset` and the `set`
//! events after it ([`SessionLog`]), as the JSON text it exports, at most [`LOG_LIMIT_BYTES`] of
//! it. A `set` that does not fit is refused rather than applied unlogged, so that an exported log
//! always replays exactly; a reset starts a new log.

use std::collections::VecDeque;
use std::time::SystemTime;

use axum::body::Bytes;
use boids_core::params::Raw;
use boids_core::{
    Dim, Dimension, Params, ParamsBuilder, ParamsError, Simulation, Source, StateError, VecN,
};
use serde::{Deserialize, Serialize};

pub use crate::error::LogFull;
use crate::protocol::{json_to_raw, params_to_json, value_to_json};

/// Value of the `format` field.
pub const FORMAT: &str = "boids-events";
/// Version of the format.
pub const VERSION: u32 = 1;

/// A whole log, as exported by the viewer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventLog {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Step of the current flock when the log was exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exported_at_step: Option<u64>,
    /// The command that replays the log to the exported step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    /// The events, oldest first.
    pub events: Vec<Event>,
}

/// One logged event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Step of the current flock at which the event applied (see the module docs for resets).
    pub step: u64,
    /// When it happened (UTC, RFC 3339).
    pub time: String,
    /// What happened.
    #[serde(flatten)]
    pub change: Change,
}

/// What an event changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Change {
    /// The session's first flock.
    Start {
        /// Preset the parameters start from.
        preset: String,
        /// Seed of the random streams.
        seed: u64,
        /// Parameter values over the preset's defaults.
        params: serde_json::Map<String, serde_json::Value>,
    },
    /// A new flock replacing the current one.
    Reset {
        /// Preset the parameters start from.
        preset: String,
        /// Seed of the random streams.
        seed: u64,
        /// Parameter values over the preset's defaults.
        params: serde_json::Map<String, serde_json::Value>,
    },
    /// One parameter changed live.
    Set {
        /// Parameter name.
        key: String,
        /// New value.
        value: serde_json::Value,
    },
    /// A predator added at a point; `predator_count` one higher.
    PlacePredator {
        /// x.
        x: f64,
        /// y.
        y: f64,
        /// z, in three dimensions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
    /// A predator removed by its index; `predator_count` one lower.
    RemovePredator {
        /// Its index among the predators.
        index: usize,
    },
    /// The pointer's predator moved to a point, or removed (no point).
    Pointer {
        /// x.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<f64>,
        /// y.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<f64>,
        /// z, in three dimensions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        z: Option<f64>,
    },
}

impl Change {
    /// Whether the change begins a flock (`start`, `reset`) rather than editing one.
    fn begins_a_flock(&self) -> bool {
        matches!(self, Change::Start { .. } | Change::Reset { .. })
    }
}

/// Why a world edit (a [`Change`] other than a flock or a `set`) was refused.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The new `predator_count` is refused.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The simulation refused it (no such predator, a point inside an obstacle).
    #[error(transparent)]
    State(#[from] StateError),
    /// The point has another number of coordinates than the flock has dimensions.
    #[error(
        "{edit} gives a point of {given} coordinates, but the flock has {dimensions} dimensions: \
         send x and y{}",
        if *dimensions == 3 { " and z" } else { ", without z" }
    )]
    Coordinates {
        /// The edit's name in the event log.
        edit: &'static str,
        /// Coordinates given.
        given: usize,
        /// The flock's dimensions.
        dimensions: usize,
    },
}

/// The point `x`, `y` (and `z`) of the edit `edit` as a vector of the flock's `D` dimensions:
/// `z` is given exactly when the flock has three.
fn edit_point<const D: usize>(
    edit: &'static str,
    x: f64,
    y: f64,
    z: Option<f64>,
) -> Result<VecN<D>, EditError>
where
    Dim<D>: Dimension<D>,
{
    let coordinates: Vec<f32> = [Some(x), Some(y), z]
        .into_iter()
        .flatten()
        .map(|c| c as f32)
        .collect();
    let given = coordinates.len();
    let point: [f32; D] = coordinates.try_into().map_err(|_| EditError::Coordinates {
        edit,
        given,
        dimensions: D,
    })?;
    Ok(VecN::<D>::from(point))
}

/// Applies a world edit to `sim`, whose parameters are `layers`, and returns the layers after
/// it (`predator_count` follows the predators): the one way the viewer and a replay make it.
/// Changes that are not edits leave everything as it is.
pub fn apply_edit<const D: usize>(
    layers: &ParamsBuilder,
    sim: &mut Simulation<D>,
    change: &Change,
    source: Source,
) -> Result<ParamsBuilder, EditError>
where
    Dim<D>: Dimension<D>,
{
    let count_layer = |count: usize| {
        let count = Raw::Integer(i64::try_from(count).unwrap_or(i64::MAX));
        apply_set(layers, "predator_count", &count, source.clone())
    };
    match *change {
        Change::PlacePredator { x, y, z } => {
            let at = edit_point("place_predator", x, y, z)?;
            let next = count_layer(sim.predators().len() + 1)?;
            sim.add_predator(at)?;
            Ok(next)
        }
        Change::RemovePredator { index } => {
            sim.remove_predator(index)?;
            Ok(count_layer(sim.predators().len())?)
        }
        Change::Pointer { x, y, z } => {
            let at = x
                .zip(y)
                .map(|(x, y)| edit_point("pointer", x, y, z))
                .transpose()?;
            sim.set_pointer(at)?;
            Ok(layers.clone())
        }
        Change::Start { .. } | Change::Reset { .. } | Change::Set { .. } => Ok(layers.clone()),
    }
}

/// Most bytes of events the server keeps for one flock: its `start`/`reset` event (every
/// parameter, about 2 kB) and then about 90,000 `set` events of about 90 bytes. A person moving
/// sliders makes a few changes a second, so this is hours of steady tweaking, while a client
/// flooding changes cannot make the log (and every download of it) grow without bound.
pub const LOG_LIMIT_BYTES: usize = 8 * 1024 * 1024;

/// The events of the current flock as the server keeps them: the JSON text they export to, one
/// event a line, so an export copies no event and the size is known exactly.
#[derive(Debug)]
pub struct SessionLog {
    /// The events, each as `  {...}`, separated by `",\n"`.
    text: String,
    events: usize,
    limit: usize,
    /// `text` as shared bytes, made on the first export after a change.
    shared: Option<Bytes>,
}

/// An event that fits in a [`SessionLog`], ready to log.
#[derive(Debug)]
pub struct LogLine(String);

impl SessionLog {
    /// A log that starts with `first` (a `start` or `reset`) and holds at most `limit` bytes.
    pub fn new(first: &Event, limit: usize) -> SessionLog {
        let mut log = SessionLog {
            text: String::new(),
            events: 0,
            limit,
            shared: None,
        };
        log.restart(first);
        log
    }

    /// Forgets every event and starts again from `first`: what a reset does.
    pub fn restart(&mut self, first: &Event) {
        self.text.clear();
        self.text.shrink_to(64 * 1024);
        self.events = 0;
        self.append(&first.to_line());
    }

    /// `event` as a line to [`push`](SessionLog::push), if it fits: a change is checked before
    /// it is applied, and logged once it has been.
    pub fn line(&self, event: &Event) -> Result<LogLine, LogFull> {
        let line = event.to_line();
        if self.text.len() + 2 + line.len() > self.limit {
            return Err(LogFull {
                events: self.events,
                bytes: self.text.len(),
                limit: self.limit,
            });
        }
        Ok(LogLine(line))
    }

    /// Logs a line made by [`line`](SessionLog::line) since the last change to the log.
    pub fn push(&mut self, line: LogLine) {
        self.append(&line.0);
    }

    fn append(&mut self, line: &str) {
        if self.events > 0 {
            self.text.push_str(",\n");
        }
        self.text.push_str(line);
        self.events += 1;
        self.shared = None;
    }

    /// Events logged.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Bytes of events logged.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// The events' text, shared: parallel exports of an unchanged log share one copy.
    pub fn shared(&mut self) -> Bytes {
        self.shared
            .get_or_insert_with(|| Bytes::copy_from_slice(self.text.as_bytes()))
            .clone()
    }

    /// The whole exported document at `step`, in the parts an HTTP body streams: a header,
    /// the events ([`SessionLog::shared`]) and the closing brackets.
    pub fn export(&mut self, step: u64) -> [Bytes; 3] {
        [
            Bytes::from(export_header(step)),
            self.shared(),
            Bytes::from_static(b"]}\n"),
        ]
    }
}

/// The start of an exported log, up to the events' opening bracket.
fn export_header(step: u64) -> String {
    let replay = format!("boids run --events boids-events.json --steps {step}");
    format!(
        "{{\"format\": {}, \"version\": {VERSION}, \"exported_at_step\": {step},\n \"replay\": {},\n \"events\": [\n",
        serde_json::Value::from(FORMAT),
        serde_json::Value::from(replay),
    )
}

/// Why a log cannot be read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    /// Not JSON, or not the expected shape.
    #[error("{origin}: not a boids event log: {message}")]
    Syntax {
        /// File name.
        origin: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A well-formed log that cannot be replayed.
    #[error("{origin}: {message}")]
    Invalid {
        /// File name.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// An event's parameters are refused.
    #[error("{origin}, event {index} (step {step}): {error}")]
    Params {
        /// File name.
        origin: String,
        /// 0-based index of the event.
        index: usize,
        /// The event's step.
        step: u64,
        /// The validation error (part of the message, not a `source()`, so that a caller that
        /// prints the chain shows it once).
        error: Box<ParamsError>,
    },
    /// The flock cannot be built (too big for memory).
    #[error("{origin}: {error}")]
    State {
        /// File name.
        origin: String,
        /// The error (part of the message, not a `source()`).
        error: StateError,
    },
}

/// The current time as RFC 3339 UTC with milliseconds.
pub fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// `layers` with `key = value` from `source` applied and checked: the one way a live change is
/// made, in the viewer and in a replay. The result's parameters are valid; an error names where
/// each value it is about came from.
pub fn apply_set(
    layers: &ParamsBuilder,
    key: &str,
    value: &Raw,
    source: Source,
) -> Result<ParamsBuilder, ParamsError> {
    let next = layers.clone().apply(key, value, source)?;
    next.build()?;
    Ok(next)
}

impl Event {
    /// A `start` or `reset` event for a flock of `params` from `preset` with `seed`.
    pub fn new_flock(step: u64, first: bool, preset: &str, seed: u64, params: &Params) -> Event {
        let (preset, params) = (preset.to_owned(), params_to_json(params));
        Event {
            step,
            time: now(),
            change: if first {
                Change::Start {
                    preset,
                    seed,
                    params,
                }
            } else {
                Change::Reset {
                    preset,
                    seed,
                    params,
                }
            },
        }
    }

    /// The event as a line of an exported log: compact JSON, indented by two spaces.
    fn to_line(&self) -> String {
        let json = serde_json::to_string(self).expect("an event is plain JSON");
        format!("  {json}")
    }

    /// A `set` event recording the value now in force in `params`.
    pub fn set(step: u64, key: &str, params: &Params) -> Event {
        let value = params.get(key).map(value_to_json).unwrap_or_default();
        Event {
            step,
            time: now(),
            change: Change::Set {
                key: key.to_owned(),
                value,
            },
        }
    }
}

impl EventLog {
    /// Reads a log; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<EventLog, EventsError> {
        let log: EventLog = serde_json::from_str(text).map_err(|e| EventsError::Syntax {
            origin: origin.to_owned(),
            message: e.to_string(),
        })?;
        let invalid = |message: String| EventsError::Invalid {
            origin: origin.to_owned(),
            message,
        };
        if log.format != FORMAT || log.version != VERSION {
            return Err(invalid(format!(
                "format {:?} version {} is not {FORMAT:?} version {VERSION}",
                log.format, log.version
            )));
        }
        Ok(log)
    }

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
            sim.step();
            self.apply_due(sim)?;
        }
        Ok(())
    }

    /// Events not yet applied (those after the last step replayed).
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(events: Vec<Event>) -> EventLog {
        EventLog {
            format: FORMAT.to_owned(),
            version: VERSION,
            exported_at_step: None,
            replay: None,
            events,
        }
    }

    fn small() -> Params {
        ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment("count=60", Source::Message)
            .unwrap()
            .build()
            .unwrap()
    }

    #[test]
    fn a_session_log_exports_what_replay_reads() {
        let params = small();
        let mut session =
            SessionLog::new(&Event::new_flock(0, true, "cornell", 5, &params), 1 << 20);
        let unlimited = apply_set(
            &ParamsBuilder::from_params(params.clone(), Source::Message),
            "max_speed",
            &Raw::Float(f64::INFINITY),
            Source::Message,
        )
        .unwrap()
        .build()
        .unwrap();
        for event in [
            Event::set(4, "visual_range", &params),
            Event::set(9, "max_speed", &unlimited),
        ] {
            let line = session.line(&event).unwrap();
            session.push(line);
        }
        assert_eq!(session.events(), 3);
        let text: Vec<u8> = session.export(12).concat();
        let log = EventLog::parse(std::str::from_utf8(&text).unwrap(), "log.json").unwrap();
        assert_eq!(log.exported_at_step, Some(12));
        assert_eq!(
            log.replay.as_deref(),
            Some("boids run --events boids-events.json --steps 12")
        );
        assert_eq!(log.events.len(), 3);
        assert_eq!(
            log.events[2].change,
            Change::Set {
                key: "max_speed".into(),
                value: "inf".into()
            }
        );
        // One event a line, as the README shows it: three lines of header, then the events.
        assert_eq!(text.iter().filter(|&&b| b == b'\n').count(), 3 + 3);

        // A reset forgets what came before: replay starts from it anyway.
        session.restart(&Event::new_flock(
            12,
            false,
            "occoids",
            2,
            &Params::preset("occoids").unwrap(),
        ));
        let text: Vec<u8> = session.export(0).concat();
        let log = EventLog::parse(std::str::from_utf8(&text).unwrap(), "log.json").unwrap();
        assert_eq!(log.events.len(), 1);
        assert!(matches!(log.events[0].change, Change::Reset { .. }));
    }

    #[test]
    fn a_full_session_log_refuses_and_a_restart_empties_it() {
        let params = small();
        let first = Event::new_flock(0, true, "cornell", 5, &params);
        let set = Event::set(1, "margin", &params);
        let limit = first.to_line().len() + 3 * (2 + set.to_line().len());
        let mut session = SessionLog::new(&first, limit);
        for _ in 0..3 {
            let line = session.line(&set).unwrap();
            session.push(line);
        }
        assert_eq!(session.bytes(), limit);
        let full = session.line(&set).unwrap_err();
        assert_eq!(
            full,
            LogFull {
                events: 4,
                bytes: limit,
                limit
            }
        );
        assert!(
            full.to_string().contains("reset to start a new log"),
            "{full}"
        );
        // Parallel exports of an unchanged log share one copy of its events.
        assert_eq!(session.shared().as_ptr(), session.shared().as_ptr());
        session.restart(&first);
        assert_eq!(session.events(), 1);
        assert!(session.line(&set).is_ok());
    }

    #[test]
    fn replay_applies_changes_at_their_steps() {
        let params = small();
        let mut live = Simulation::<2>::new(params.clone(), 5).unwrap();
        let mut events = vec![Event::new_flock(0, true, "cornell", 5, &params)];
        let mut layers = ParamsBuilder::from_params(params.clone(), Source::Message);
        for (at, key, value) in [
            (3, "visual_range", Raw::Float(55.5)),
            (3, "count", Raw::Integer(80)),
            (7, "max_speed", Raw::Float(f64::INFINITY)),
        ] {
            while live.step_count() < at {
                live.step();
            }
            layers = apply_set(&layers, key, &value, Source::Message).unwrap();
            live.set_params(layers.params().clone()).unwrap();
            events.push(Event::set(at, key, live.params()));
        }
        for _ in 0..5 {
            live.step();
        }
        let text = serde_json::to_string_pretty(&log(events)).unwrap();
        let parsed = EventLog::parse(&text, "log.json").unwrap();
        let (mut sim, mut replay) = parsed.replay::<2>("log.json").unwrap();
        replay.run_to(&mut sim, live.step_count()).unwrap();
        assert_eq!(replay.remaining(), 0);
        assert_eq!(sim.params(), live.params());
        assert_eq!(sim.state(), live.state());
    }

    #[test]
    fn an_edit_point_has_the_flocks_dimensions() {
        let params = small();
        let layers = ParamsBuilder::from_params(params.clone(), Source::Message);
        let mut sim = Simulation::<2>::new(params, 1).unwrap();
        for (change, given) in [
            (
                Change::PlacePredator {
                    x: 10.0,
                    y: 10.0,
                    z: Some(5.0),
                },
                3,
            ),
            (
                Change::Pointer {
                    x: Some(10.0),
                    y: Some(10.0),
                    z: Some(5.0),
                },
                3,
            ),
        ] {
            let err = apply_edit(&layers, &mut sim, &change, Source::Message).unwrap_err();
            assert!(
                err.to_string().contains(&format!(
                    "a point of {given} coordinates, but the flock has 2 dimensions: send x and y, without z"
                )),
                "{err}"
            );
        }
        assert!(sim.predators().is_empty() && sim.pointer().is_none());
    }

    #[test]
    fn replay_starts_from_the_last_reset() {
        let params = small();
        let events = vec![
            Event::new_flock(0, true, "cornell", 1, &params),
            Event::set(4, "avoid_factor", &params),
            Event::new_flock(9, false, "occoids", 2, &Params::preset("occoids").unwrap()),
        ];
        let (sim, replay) = log(events).replay::<2>("log.json").unwrap();
        assert_eq!(sim.seed(), 2);
        assert_eq!(sim.params(), &Params::preset("occoids").unwrap());
        assert_eq!(replay.remaining(), 0);
    }

    #[test]
    fn empty_params_mean_the_preset() {
        let text = r#"{"format":"boids-events","version":1,"events":[
            {"step":0,"time":"t","kind":"start","preset":"canvas","seed":3,"params":{}}]}"#;
        let (sim, _) = EventLog::parse(text, "e.json")
            .unwrap()
            .replay::<2>("e.json")
            .unwrap();
        assert_eq!(sim.params(), &Params::preset("canvas").unwrap());
    }

    #[test]
    fn bad_logs_are_refused_with_their_place() {
        let start =
            r#"{"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{}}"#;
        let cases = [
            ("{", "not a boids event log"),
            (
                r#"{"format":"other","version":1,"events":[]}"#,
                "is not \"boids-events\"",
            ),
            (
                r#"{"format":"boids-events","version":1,"events":[]}"#,
                "no \"start\" or \"reset\"",
            ),
            (
                &format!(
                    r#"{{"format":"boids-events","version":1,"events":[{start},
                    {{"step":5,"time":"t","kind":"set","key":"visual_range","value":-3}}]}}"#
                ),
                "event 1 (step 5)",
            ),
            (
                &format!(
                    r#"{{"format":"boids-events","version":1,"events":[{start},
                    {{"step":5,"time":"t","kind":"set","key":"margin","value":1}},
                    {{"step":4,"time":"t","kind":"set","key":"margin","value":2}}]}}"#
                ),
                "before the previous event's step 5",
            ),
            (
                r#"{"format":"boids-events","version":1,"events":[
                {"step":0,"time":"t","kind":"start","preset":"cornell","seed":3,"params":{"visual_rang":3}}]}"#,
                "did you mean `visual_range`",
            ),
        ];
        for (text, expected) in cases {
            let err = EventLog::parse(text, "e.json")
                .and_then(|log| {
                    let (mut sim, mut replay) = log.replay::<2>("e.json")?;
                    replay.run_to(&mut sim, 10)
                })
                .unwrap_err()
                .to_string();
            assert!(err.contains("e.json") && err.contains(expected), "{err}");
        }
    }
}
