//! Rust errors as Python exceptions: an unknown parameter is a `KeyError` (with the core's
//! "did you mean"), a bad value a `ValueError` carrying the command's message (the value, the
//! allowed range, where it came from), a file that cannot be read or written an `OSError`.
//!
//! No Rust panic reaches the interpreter as a crash: pyo3 turns one into an exception, and the
//! calls that run the model ([`guarded`]) turn it into a `RuntimeError` that says what happened.

use std::panic::{AssertUnwindSafe, catch_unwind};

use boids_core::engine::UnknownEngine;
use boids_core::{EngineKind, ParamsError, StateError};
use boids_io::StateFileError;
use pyo3::exceptions::{PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::{PyErr, PyResult};

/// The engine named `name`, or a `ValueError` that names the engines this build has.
pub fn engine(name: &str) -> PyResult<EngineKind> {
    name.parse()
        .map_err(|error: UnknownEngine| PyValueError::new_err(format!("engine: {error}")))
}

/// A parameter error: `KeyError` for an unknown name, `ValueError` for the rest.
pub fn params(error: ParamsError) -> PyErr {
    match error {
        ParamsError::UnknownParam { .. } => PyKeyError::new_err(error.to_string()),
        error => PyValueError::new_err(error.to_string()),
    }
}

/// A flock state that does not fit: `ValueError`; a step refused (the flock would not stay
/// finite, or the engine's device failed; it is kept at the last step taken): `RuntimeError`.
pub fn state(error: StateError) -> PyErr {
    match error {
        StateError::NonFinite { .. } | StateError::EngineFailed { .. } => {
            PyRuntimeError::new_err(error.to_string())
        }
        error => PyValueError::new_err(error.to_string()),
    }
}

/// A state file that cannot be used: as its cause.
pub fn state_file(error: StateFileError) -> PyErr {
    match error {
        StateFileError::Params(error) => params(error),
        error => PyValueError::new_err(error.to_string()),
    }
}

/// A file the caller named that cannot be read or written: `OSError` with the message of
/// `boids_io`'s input or output, which names the argument and the path (never a temporary file).
pub fn file(error: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(format!("{error:#}"))
}

/// Runs `work` (a call into the model), turning a panic into a `RuntimeError`.
pub fn guarded<T>(work: impl FnOnce() -> T) -> Result<T, PyErr> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|panic| {
        let cause = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        PyRuntimeError::new_err(format!(
            "internal error in the boids engine ({cause}); the simulation may be inconsistent: please report it with the parameters and seed"
        ))
    })
}
