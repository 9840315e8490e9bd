//! Errors of the model library. Each names the offending value, what was allowed, and where the
//! value came from, so a front end can print it as it is.

use thiserror::Error;

/// A parameter set could not be built.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ParamsError {
    /// No preset has this name.
    #[error("unknown preset `{name}`; valid presets: {valid}")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// No parameter has this name.
    #[error("unknown parameter `{key}` (from {origin}){hint}")]
    UnknownParam {
        /// The name given.
        key: String,
        /// Where it came from.
        origin: String,
        /// A suggestion and the list of valid names.
        hint: String,
    },
    /// The value has the wrong type for the parameter.
    #[error("parameter `{key}` = {value} (from {origin}) is not allowed: expected {expected}")]
    WrongType {
        /// The parameter.
        key: String,
        /// The value given.
        value: String,
        /// What the parameter takes.
        expected: String,
        /// Where it came from.
        origin: String,
    },
    /// The value is outside the parameter's range.
    #[error("parameter `{key}` = {value} (from {origin}) is not allowed: allowed range is {range}")]
    OutOfRange {
        /// The parameter.
        key: String,
        /// The value given.
        value: String,
        /// The allowed range.
        range: String,
        /// Where it came from.
        origin: String,
    },
    /// Two parameters contradict each other.
    #[error("{message} ({sources})")]
    Conflict {
        /// What is wrong.
        message: String,
        /// Where each value came from.
        sources: String,
    },
    /// A config document or assignment could not be read.
    #[error("{origin}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Syntax {
        /// The document (file name) or flag.
        origin: String,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// The parser's message.
        message: String,
    },
}

/// A flock state (for example one read from a file) does not fit the simulation.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum StateError {
    /// The parameters ask for another dimension than the simulation's type has.
    #[error(
        "the parameters say dimensions = {params}, but this is a {simulation}-dimensional simulation: build a Simulation::<{params}> (boids_core::with_dimensions! picks it from the parameters)"
    )]
    Dimensions {
        /// `dimensions` of the parameters.
        params: usize,
        /// `D` of the simulation.
        simulation: usize,
    },
    /// The arrays of a state have different lengths.
    #[error("state arrays differ in length: {what}")]
    Ragged {
        /// Which arrays, with their lengths.
        what: String,
    },
    /// A value in the state is not usable.
    #[error("boid {index}: {field} = {value} is not allowed: {allowed}")]
    BadValue {
        /// Index of the boid (row order).
        index: usize,
        /// The field.
        field: &'static str,
        /// The value.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A boid or predator of the state is inside an obstacle.
    #[error(
        "{agent} {index} at {position} is inside obstacle {obstacle} ({shape}): a flock and its predators must start outside every obstacle"
    )]
    InsideObstacle {
        /// `"boid"` or `"predator"`.
        agent: &'static str,
        /// Index of the boid (its id) or predator (in predator order).
        index: usize,
        /// Its position, `(x, y)` or `(x, y, z)`.
        position: String,
        /// The obstacle, counted from 1 as in the config.
        obstacle: usize,
        /// The obstacle's shape.
        shape: &'static str,
    },
    /// The state's predators do not match `predator_count`.
    #[error(
        "the state has {found} predators but predator_count = {expected}: give the state's count, or a state without predators to start them afresh"
    )]
    PredatorCount {
        /// Predators in the state.
        found: usize,
        /// `predator_count` of the parameters.
        expected: usize,
    },
    /// A step would have left a boid's position or velocity not finite: it is refused, and
    /// the flock stays as it was before it.
    #[error(
        "step {step} is refused: it would leave boid {id} at position {position} with velocity {velocity}, not finite numbers (the flock diverges under these parameters: lower a weight, a speed or dt); the flock stays at step {}",
        step - 1
    )]
    NonFinite {
        /// The step refused, counting from 1.
        step: u64,
        /// The first boid (lowest id) it would have broken.
        id: u32,
        /// Where the step would have put it.
        position: String,
        /// The velocity the step would have given it.
        velocity: String,
    },
    /// The engine could not take a step (its device failed: out of memory, lost): the step is
    /// refused, and the flock stays as it was before it.
    #[error(
        "step {step} could not be taken: {failure}; the flock stays at step {}: step again (a lost device is replaced by a new one), or go on with the cpu engine",
        step - 1
    )]
    EngineFailed {
        /// The step refused, counting from 1.
        step: u64,
        /// What the engine said.
        failure: EngineFailure,
    },
    /// The engine asked for cannot be built.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The engine does not run a setting of the parameters.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// A predator's position or velocity is not finite.
    #[error("predator {index}: {field} = {value} is not allowed: finite numbers")]
    BadPredator {
        /// Index of the predator.
        index: usize,
        /// The field.
        field: &'static str,
        /// The value.
        value: String,
    },
    /// A predator index that does not exist.
    #[error("predator {index} does not exist: allowed range is [0, {count})")]
    NoPredator {
        /// The index asked for.
        index: usize,
        /// Predators there are.
        count: usize,
    },
    /// A force from outside the model has not one vector per boid.
    #[error("a force of {found} vectors is not allowed: give one per boid ({count})")]
    ForceLength {
        /// Vectors given.
        found: usize,
        /// Boids in the flock.
        count: usize,
    },
    /// The state holds no boids, or more than the engine accepts.
    #[error("a state of {count} boids is not allowed: allowed range is [1, {max}]")]
    Count {
        /// Boids in the state.
        count: usize,
        /// The engine's limit.
        max: usize,
    },
    /// Memory for the flock could not be reserved.
    #[error("not enough memory for {count} boids ({bytes} bytes)")]
    OutOfMemory {
        /// Boids asked for.
        count: usize,
        /// Bytes that could not be reserved.
        bytes: usize,
    },
}

/// Why an engine cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Unavailable {
    /// This build does not have the engine.
    #[error(
        "this build of boids has no {0} engine: build it with the gpu feature (`cargo build --release --features gpu`; Python: `pip install ./python` with `MATURIN_PEP517_ARGS=\"--features gpu\"`)"
    )]
    NotBuilt(&'static str),
    /// The engine found nothing to run on.
    #[error("the {engine} engine cannot start: {reason}")]
    CannotStart {
        /// The engine's name.
        engine: &'static str,
        /// What it found, and how to get what it needs.
        reason: String,
    },
}

/// Why an engine could not take a step: its device failed (out of memory, lost). The engine
/// leaves the flock as it was.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("the {engine} engine failed: {reason}")]
pub struct EngineFailure {
    /// The engine's name.
    pub engine: &'static str,
    /// What its device said.
    pub reason: String,
}

/// A setting an engine does not run: the simulation refuses it and names the engine that does.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "the {engine} engine does not run {setting} yet: run this flock on the cpu engine (`--engine cpu`; Python: engine=\"cpu\")"
)]
pub struct Unsupported {
    /// The engine's name.
    pub engine: &'static str,
    /// The setting, as `name = value (what it is)`.
    pub setting: String,
}
