//! Parameter values between JSON and the core's typed values, both ways: the event log
//! ([`crate::events`]) and the viewer's messages carry them, and infinite numbers, which JSON
//! cannot hold, travel as the strings `"inf"` and `"-inf"` in both. The core reads TOML itself
//! and no JSON, so this lives with the file formats.

use boids_core::params::shape_entries;
use boids_core::params::{PARAMS, Params, Raw, Value};

/// A JSON value that is not a parameter value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// A number beyond `f64`.
    #[error("number {0} is too large")]
    TooLarge(String),
    /// `null`.
    #[error("value {0} is not a number, boolean, string, list or table")]
    NotAValue(String),
}

/// Reads a JSON value from the page or an event log as a parameter value, for the parameter's
/// kind to check. The strings `"inf"`, `"+inf"`, `"-inf"` and `"nan"` are numbers, as in TOML
/// (and as the server writes infinite values, which JSON cannot hold).
pub fn json_to_raw(value: &serde_json::Value) -> Result<Raw, ValueError> {
    use serde_json::Value as J;
    Ok(match value {
        J::Bool(b) => Raw::Bool(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Raw::Integer(i),
            None => Raw::Float(
                n.as_f64()
                    .ok_or_else(|| ValueError::TooLarge(n.to_string()))?,
            ),
        },
        J::String(s) => match s.as_str() {
            "inf" | "+inf" => Raw::Float(f64::INFINITY),
            "-inf" => Raw::Float(f64::NEG_INFINITY),
            "nan" => Raw::Float(f64::NAN),
            _ => Raw::Text(s.clone()),
        },
        J::Array(items) => Raw::List(items.iter().map(json_to_raw).collect::<Result<_, _>>()?),
        J::Object(entries) => Raw::Table(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), json_to_raw(v)?)))
                .collect::<Result<_, ValueError>>()?,
        ),
        J::Null => return Err(ValueError::NotAValue(value.to_string())),
    })
}

/// A raw value as JSON (obstacle tables are written through it).
fn raw_to_json(raw: &Raw) -> serde_json::Value {
    use serde_json::Value as J;
    match raw {
        Raw::Integer(i) => J::from(*i),
        Raw::Float(x) => number_to_json(*x),
        Raw::Bool(b) => J::from(*b),
        Raw::Text(s) | Raw::Other(s) => J::from(s.as_str()),
        Raw::List(items) => J::Array(items.iter().map(raw_to_json).collect()),
        Raw::Table(entries) => J::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), raw_to_json(v)))
                .collect(),
        ),
    }
}

/// A number as JSON; infinite and NaN numbers become the strings `"inf"`, `"-inf"` and `"nan"`.
fn number_to_json(x: f64) -> serde_json::Value {
    use serde_json::Value as J;
    match x {
        x if x.is_nan() => J::from("nan"),
        f64::INFINITY => J::from("inf"),
        f64::NEG_INFINITY => J::from("-inf"),
        x => J::from(x),
    }
}

/// A parameter value as JSON; infinite and NaN numbers become the strings `"inf"`, `"-inf"`
/// and `"nan"`.
pub fn value_to_json(value: Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        Value::Number(x) => number_to_json(x),
        Value::Integer(i) => J::from(i),
        Value::Bool(b) => J::from(b),
        Value::Choice(name) => J::from(name),
        Value::Interval(pair) => J::Array(pair.map(number_to_json).to_vec()),
        Value::Points(points) => J::Array(
            points
                .iter()
                .map(|p| J::Array(p.iter().copied().map(number_to_json).collect()))
                .collect(),
        ),
        Value::Shapes(shapes) => J::Array(
            shapes
                .iter()
                .map(|shape| {
                    J::Object(
                        shape_entries(shape)
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), raw_to_json(&v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    }
}

/// Every parameter of `params` as a JSON object, in catalogue order (see [`value_to_json`]).
pub fn params_to_json(params: &Params) -> serde_json::Map<String, serde_json::Value> {
    PARAMS
        .iter()
        .filter_map(|info| Some((info.name.to_owned(), value_to_json(params.get(info.name)?))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinite_values_survive_json() {
        let json = value_to_json(Value::Number(f64::INFINITY));
        assert_eq!(json, serde_json::json!("inf"));
        assert_eq!(json_to_raw(&json).unwrap(), Raw::Float(f64::INFINITY));
        let x = 0.1f64 + 0.2;
        let text = serde_json::to_string(&value_to_json(Value::Number(x))).unwrap();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json_to_raw(&back).unwrap(), Raw::Float(x));
        assert_eq!(
            value_to_json(Value::Interval([f64::NEG_INFINITY, 2.0])),
            serde_json::json!(["-inf", 2.0])
        );
        assert!(json_to_raw(&serde_json::json!(null)).is_err());
        assert!(json_to_raw(&serde_json::json!([1, null])).is_err());
    }
}
