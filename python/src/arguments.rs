//! Whole-number arguments that are not parameters (a seed, a step count, a port), read as the
//! parameters are: the calls take them as wide integers (`i128`) and [`whole`] checks each
//! against its range, so a negative or too large `int` is a `ValueError` naming the argument,
//! its value and the allowed range, where pyo3 alone would raise a bare `OverflowError` that
//! names neither. (Only an `int` beyond 128 bits still overflows as it is read.)

use std::fmt::Display;
use std::ops::RangeInclusive;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Every `u64`: the range of a seed or a step number.
pub const ANY_U64: RangeInclusive<u64> = 0..=u64::MAX;

/// The whole number `value` given as `argument`, in `allowed`; else a `ValueError` that names
/// the argument, the value and the range.
pub fn whole<T>(argument: &str, value: i128, allowed: RangeInclusive<T>) -> PyResult<T>
where
    T: TryFrom<i128> + PartialOrd + Display,
{
    T::try_from(value)
        .ok()
        .filter(|v| allowed.contains(v))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "{argument} = {value} is not allowed: allowed range is [{}, {}]",
                allowed.start(),
                allowed.end()
            ))
        })
}

/// [`whole`] for an argument that may be left out (`None`).
pub fn optional<T>(
    argument: &str,
    value: Option<i128>,
    allowed: RangeInclusive<T>,
) -> PyResult<Option<T>>
where
    T: TryFrom<i128> + PartialOrd + Display,
{
    value.map(|v| whole(argument, v, allowed)).transpose()
}
