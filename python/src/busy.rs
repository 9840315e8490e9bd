//! One call at a time on a `Simulation`, refused clearly otherwise.
//!
//! A step releases the GIL (other Python threads run meanwhile) and a force function runs
//! Python code in the middle of one, so a second call can reach a simulation that is busy: from
//! another thread, or from the force function itself. pyo3's own borrow check would refuse it
//! with a bare "Already borrowed"; here the simulation's state sits behind [`Busy`], whose
//! [`Busy::enter`] refuses it with a `RuntimeError` that names both calls and what to do.
//! Nothing waits: a call that would wait for the GIL-free step of another could deadlock with
//! a force function that waits for it.

use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use pyo3::PyResult;
use pyo3::exceptions::PyRuntimeError;

/// A value that one call at a time may use, and the call using it.
pub struct Busy<T> {
    value: Mutex<T>,
    /// The call that last entered (the one running, while `value` is locked).
    call: Mutex<&'static str>,
}

impl<T> Busy<T> {
    pub fn new(value: T) -> Self {
        Self {
            value: Mutex::new(value),
            call: Mutex::new(""),
        }
    }

    /// The value, for the call `call` (as Python spells it: `"Simulation.step()"`), or a
    /// `RuntimeError` naming the call it is busy in. Calls enter holding the GIL, so the call
    /// named is the one that holds the value.
    pub fn enter(&self, call: &'static str) -> PyResult<MutexGuard<'_, T>> {
        let guard = match self.value.try_lock() {
            Ok(guard) => guard,
            // A panic is caught inside the call that held it (`errors::guarded`), which says so.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                let busy = *self.call.lock().unwrap_or_else(PoisonError::into_inner);
                return Err(PyRuntimeError::new_err(format!(
                    "{call}: the Simulation is busy in {busy}, called from another thread or from the force function of its own step; a Simulation takes one call at a time: wait for {busy} to return (join its thread), give each thread a Simulation of its own, and in a force function use the positions and velocities it is given"
                )));
            }
        };
        *self.call.lock().unwrap_or_else(PoisonError::into_inner) = call;
        Ok(guard)
    }
}
