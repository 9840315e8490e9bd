//! # boids-io
//!
//! The flock's file formats, shared by every front end that reads or writes them: the state
//! CSV ([`state_csv`]), which the `boids` command saves (`run --save`) and starts from
//! (`run --init`) and the Python package saves and loads (`Simulation.save`, `.load`), so a
//! state saved by one reads in the other byte for byte, with the parameters, seed and step
//! beside it that resume it ([`resume`]); and the event log ([`events`]), which
//! the viewer writes and `boids run --events` replays, with the parameter values it holds as
//! JSON ([`param_json`], which the viewer's messages use too).
//!
//! The core has no I/O; the formats read from any [`std::io::Read`] and write to any
//! [`std::io::Write`]. Opening the files is shared too, so both front ends treat a path alike:
//! [`input`] reads what a user names with limits, [`output`] writes aside and commits atomically
//! (links followed, devices written in place or refused), listing its unfinished work in
//! [`unfinished`] for the front end's signal handling. Every message names the user's path.

pub mod events;
pub mod input;
mod line_limit;
pub mod output;
pub mod param_json;
mod replaceable;
pub mod resume;
pub mod state_csv;
pub mod unfinished;

pub use line_limit::{LINE_LIMIT, LineLimit};

/// A state file that cannot be used; the message names the file, the line and the value.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// The file's content is not a state (a missing column, a value out of range...).
    #[error("{0}")]
    Invalid(String),
    /// The parameters with the file's counts are not allowed.
    #[error(transparent)]
    Params(#[from] boids_core::ParamsError),
    /// The state does not fit the parameters.
    #[error(transparent)]
    State(#[from] boids_core::StateError),
}
