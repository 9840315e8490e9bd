//! Whole-number arguments that are not parameters (a seed, a step number), read as the
//! parameters are: the calls take them as wide integers, so a negative or too large `int` is a
//! `ValueError` naming the argument, its value and the allowed range, where pyo3 alone would
//! raise a bare `OverflowError` that names neither.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The whole number `value` given as `argument`, in `[0, 2**64 - 1]`.
pub fn whole(argument: &str, value: i128) -> PyResult<u64> {
    u64::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{argument} = {value} is not allowed: allowed range is [0, {}]",
            u64::MAX
        ))
    })
}
