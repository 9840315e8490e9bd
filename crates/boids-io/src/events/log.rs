//! The event log's file format: the exported document ([`EventLog`]), its events ([`Event`],
//! [`Change`]) as JSON, and reading one with its format and version checked.

use std::time::SystemTime;

use boids_core::{Params, ParamsError, StateError};
use serde::{Deserialize, Serialize};

use crate::param_json::{params_to_json, value_to_json};

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
    /// When it happened (UTC, RFC 3339); empty when a hand-written log leaves it out.
    #[serde(default, skip_serializing_if = "String::is_empty")]
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
    pub(super) fn begins_a_flock(&self) -> bool {
        matches!(self, Change::Start { .. } | Change::Reset { .. })
    }
}

/// What a log and its events are made of, for a message about a field that is missing.
const FIELDS: &str = "a log needs `format`, `version` and `events`; every event needs `step`, \
    `kind` and its kind's fields: start and reset `preset`, `seed`, `params`; set `key`, `value`; \
    place_predator `x`, `y` (and `z` in 3D); remove_predator `index`; pointer none (`x`, `y` to \
    move it); `time` is optional";

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
    /// The flock at one event is refused by a limit of the face that replays it
    /// ([`EventLog::course`]: `boids serve`'s caps).
    #[error("{origin}, event {index} (step {step}): {message}")]
    Refused {
        /// File name.
        origin: String,
        /// 0-based index of the event.
        index: usize,
        /// The event's step.
        step: u64,
        /// What the limit says.
        message: String,
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
    pub(super) fn to_line(&self) -> String {
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
        let log: EventLog = serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let message = if message.starts_with("missing field") {
                format!("{message} ({FIELDS})")
            } else {
                message
            };
            EventsError::Syntax {
                origin: origin.to_owned(),
                message,
            }
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
}
