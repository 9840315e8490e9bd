//! Why a client's request was refused. Each variant names the value, what is allowed and, where
//! it matters, the server's own limit; its text is the `message` of the error reply, so the page
//! shows it as it is. The engine's own error on the request path ([`Stopped`]) is declared
//! here too, so that this module depends on no other part of the server but the budget's
//! figures; those of the event log and of JSON values come from `boids-io`.

use boids_core::{ParamsError, StateError};
use boids_io::events::{EditError, LogFull};
use boids_io::param_json::ValueError;

use crate::budget::Work;

/// The engine has stopped (it panicked); nothing more can be done.
#[derive(Debug, thiserror::Error)]
#[error("the simulation thread has stopped")]
pub struct Stopped;

/// A request the server did not carry out; nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The message is over the protocol's `MAX_REQUEST_BYTES`.
    #[error("message of {bytes} bytes refused: at most {limit} bytes")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Not JSON.
    #[error("malformed JSON message: {0}")]
    Malformed(String),
    /// JSON, but not an object.
    #[error("a message must be a JSON object with a \"type\"")]
    NotAnObject,
    /// The `id` is not a whole number.
    #[error("\"id\" must be a whole number, not {0}")]
    BadId(serde_json::Value),
    /// An unknown `type` or a field of the wrong shape.
    #[error("invalid request: {0}")]
    Invalid(String),
    /// A field of the request outside its range.
    #[error("{field} = {value} is out of range: allowed {allowed}")]
    OutOfRange {
        /// The field, as the page names it.
        field: String,
        /// The value sent.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A parameter value that JSON cannot carry over to a parameter.
    #[error("parameter `{key}`: {value}")]
    Value {
        /// The parameter.
        key: String,
        /// Why its value cannot be used.
        value: ValueError,
    },
    /// The parameters are not allowed (range, type, conflict); names the value and its source.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The flock cannot be built.
    #[error(transparent)]
    State(#[from] StateError),
    /// A world edit was refused.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// More boids than this server allows.
    #[error(
        "count = {count} is out of range: allowed [1, {max}] on this server (--max-count), from viewer message"
    )]
    CountAboveCap {
        /// Boids asked for.
        count: usize,
        /// The server's cap.
        max: usize,
    },
    /// A flock whose step would cost more than the server's budget.
    #[error(
        "{what} refused: {work}, over this server's budget of {max_pairs:.2e} (--max-pairs); \
         lower count, the ranges, topological_k or the world's objects"
    )]
    TooCostly {
        /// The change asked for.
        what: String,
        /// Its estimated work.
        work: Work,
        /// The budget.
        max_pairs: f64,
    },
    /// A flock whose step would take longer than a server may hold its requests, at this
    /// machine's measured pace.
    #[error(
        "{what} refused: {work}, about {seconds:.1} s a step on this machine (its {engine} \
         engine), over the {limit} s a step may hold every page's requests; fewer boids or a \
         smaller visual range run faster"
    )]
    TooSlow {
        /// The change asked for.
        what: String,
        /// Its estimated work.
        work: Work,
        /// Seconds a step would take.
        seconds: f64,
        /// The engine that would step it.
        engine: String,
        /// The most seconds a step may take.
        limit: f64,
    },
    /// A `step` request whose steps together are over the budget for one request.
    #[error(
        "step count = {count} refused: about {pairs:.2e} neighbour pairs a step, {count} steps \
         are over this server's budget of {allowed:.2e} pairs for one request; ask for at most \
         {most} steps"
    )]
    TooManySteps {
        /// Steps asked for.
        count: u32,
        /// Pairs a step.
        pairs: f64,
        /// Pairs allowed for one request.
        allowed: f64,
        /// The most steps allowed.
        most: f64,
    },
    /// The change could not be logged, so it was not applied (replay would differ).
    #[error("{what} was not applied: {full}")]
    NotLogged {
        /// The change.
        what: String,
        /// The log's state.
        full: LogFull,
    },
    /// A step the model refused (the flock would not stay finite), and what the server did.
    #[error("{refused}; {recovery}")]
    StepRefused {
        /// The model's refusal, naming the step and the boid.
        refused: StateError,
        /// What the server did about it (the change undone, or the run paused).
        recovery: String,
    },
    /// The simulation thread has stopped.
    #[error(transparent)]
    Stopped(#[from] Stopped),
}
