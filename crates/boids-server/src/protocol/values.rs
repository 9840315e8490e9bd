//! Parameter values between JSON (the page, the event log) and the core's typed values.

use boids_core::params::{PARAMS, Params, Raw, Value};

use crate::error::ValueError;

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
        J::Null | J::Object(_) => {
            return Err(ValueError::NotAValue(value.to_string()));
        }
    })
}

/// A parameter value as JSON; infinite and NaN numbers become the strings `"inf"`, `"-inf"`
/// and `"nan"`.
pub fn value_to_json(value: Value) -> serde_json::Value {
    use serde_json::Value as J;
    let number = |x: f64| match x {
        x if x.is_nan() => J::from("nan"),
        f64::INFINITY => J::from("inf"),
        f64::NEG_INFINITY => J::from("-inf"),
        x => J::from(x),
    };
    match value {
        Value::Number(x) => number(x),
        Value::Integer(i) => J::from(i),
        Value::Bool(b) => J::from(b),
        Value::Choice(name) => J::from(name),
        Value::Interval(pair) => J::Array(pair.map(number).to_vec()),
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
        assert!(json_to_raw(&serde_json::json!({"a": 1})).is_err());
        assert!(json_to_raw(&serde_json::json!([1, null])).is_err());
    }
}
