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
//!   [`Simulation::set_params`](boids_core::Simulation::set_params) (the flock is kept; boids
//!   are added or removed to match `count`). A change of `dimensions` is no `set`: it begins
//!   a flock of the other dimension, so the viewer logs it as a `reset`, and a replay refuses a
//!   `set` of it.
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
//!
//! It is a file format, shared by the viewer that writes it and by `boids run --events` that
//! replays it, so it lives with the other formats. Its parts are files of their own: the
//! format's types and reading (`log.rs`), the server's bounded copy of the current flock's log
//! (`session.rs`), the one way a change is applied (`edit.rs`), replay (`replay.rs`) and what a
//! log is checked against before its replay steps (`preflight.rs`: at most
//! [`MAX_REPLAY_STEPS`] steps, and the parameters it goes through for a face's own limits).

mod edit;
mod log;
mod preflight;
mod replay;
mod session;
#[cfg(test)]
mod tests;

pub use edit::{EditError, apply_edit, apply_set};
pub use log::{Change, Event, EventLog, EventsError, FORMAT, VERSION, now};
pub use preflight::MAX_REPLAY_STEPS;
pub use replay::{Replay, Resumed};
pub use session::{LOG_LIMIT_BYTES, LogFull, LogLine, SessionLog};
