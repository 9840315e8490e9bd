//! Requests from the page: one JSON object each, read with a size limit and checked for the
//! ranges that need no simulation state. A bad request becomes an error reply, never a panic.

use serde::Deserialize;

use crate::error::RequestError;

/// Largest request the server reads; a longer one gets an error reply and changes nothing.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// Which boids a client wants debug overlays for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverlayMode {
    /// None.
    #[default]
    Off,
    /// Every boid (up to a cap; above it an evenly spread, stable subset by id).
    All,
    /// The boid nearest the mouse, within a pick radius.
    Hover,
}

/// A request from the page: one JSON object with a `type` field, and optionally an `id` (a whole
/// number) that the server echoes in its `ok` or `error` reply. Requests without an `id` get a
/// reply only when they fail.
///
/// ```json
/// {"type": "set", "key": "visual_range", "value": 50, "id": 7}
/// {"type": "reset", "preset": "canvas", "seed": 3}
/// {"type": "start"}  {"type": "stop"}  {"type": "step", "count": 1}
/// {"type": "speed", "steps_per_second": 120}
/// {"type": "overlay", "mode": "hover", "x": 320.5, "y": 200, "radius": 12}
/// {"type": "place_predator", "x": 100, "y": 80}  {"type": "remove_predator", "index": 0}
/// {"type": "pointer", "x": 320, "y": 240}  {"type": "pointer"}
/// {"type": "place_predator", "x": 100, "y": 80, "z": 240}   (a flock in three dimensions)
/// ```
///
/// A point of a world edit (`place_predator`, `pointer`) has `z` exactly when the flock has three
/// dimensions; the engine refuses one of the other dimension with an error reply.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Change one parameter live, keeping the flock. `value` is a number, boolean, string (for
    /// choices, and `"inf"` for an unlimited maximum) or `[low, high]`.
    Set {
        /// Parameter name.
        key: String,
        /// New value.
        value: serde_json::Value,
    },
    /// Start a new flock: from `preset`'s defaults if given (its count lowered to the server's
    /// cap if above it), else from the current parameters; with `seed` if given, else the
    /// current seed.
    Reset {
        /// Preset name.
        preset: Option<String>,
        /// Seed of the random streams.
        seed: Option<u64>,
    },
    /// Run.
    Start {},
    /// Pause.
    Stop {},
    /// Advance `count` steps (default 1, at most [`MAX_STEP_REQUEST`]) and pause.
    Step {
        /// Steps to take.
        count: Option<u32>,
    },
    /// Set the simulation speed in steps per second.
    Speed {
        /// Target steps per second, in [[`MIN_SPEED`], [`MAX_SPEED`]].
        steps_per_second: f64,
    },
    /// Choose debug overlays. With `hover`, `x` and `y` (and `z` in 3D, else 0) are the point
    /// picked in world units and `radius` the pick distance.
    Overlay {
        /// Which boids.
        mode: OverlayMode,
        /// Mouse x (world units).
        x: Option<f64>,
        /// Mouse y (world units).
        y: Option<f64>,
        /// The picked point's z (world units), for a flock in three dimensions.
        #[serde(default)]
        z: Option<f64>,
        /// Pick radius (world units).
        radius: Option<f64>,
    },
    /// Add a predator at a point (world units): `predator_count` goes up by one.
    PlacePredator {
        /// x.
        x: f64,
        /// y.
        y: f64,
        /// z, for a flock in three dimensions.
        #[serde(default)]
        z: Option<f64>,
    },
    /// Remove a predator by its index (its place in the frame's predators).
    RemovePredator {
        /// Index.
        index: usize,
    },
    /// Move the predator that follows the pointer there (made on the first move), or remove it
    /// when no point is given.
    Pointer {
        /// x.
        x: Option<f64>,
        /// y.
        y: Option<f64>,
        /// z, for a flock in three dimensions.
        #[serde(default)]
        z: Option<f64>,
    },
}

/// Most steps one `step` request may ask for.
pub const MAX_STEP_REQUEST: u32 = 1000;
/// Slowest simulation speed, steps per second.
pub const MIN_SPEED: f64 = 0.5;
/// Fastest simulation speed, steps per second (above what most flocks can reach).
pub const MAX_SPEED: f64 = 1000.0;

/// A request with its optional correlation id.
#[derive(Debug)]
pub struct Envelope {
    /// Echoed in the reply.
    pub id: Option<u64>,
    /// The request, or why it was refused.
    pub request: Result<Request, RequestError>,
}

/// Reads one text message from the page. Never fails: a bad message becomes an `Err` request
/// whose reply names the problem.
pub fn parse_request(text: &str) -> Envelope {
    if text.len() > MAX_REQUEST_BYTES {
        return Envelope {
            id: None,
            request: Err(RequestError::TooLarge {
                bytes: text.len(),
                limit: MAX_REQUEST_BYTES,
            }),
        };
    }
    let mut value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Envelope {
                id: None,
                request: Err(RequestError::Malformed(e.to_string())),
            };
        }
    };
    let Some(object) = value.as_object_mut() else {
        return Envelope {
            id: None,
            request: Err(RequestError::NotAnObject),
        };
    };
    let id = object.remove("id");
    let (id, id_error) = match id {
        None => (None, None),
        Some(v) => match v.as_u64() {
            Some(id) => (Some(id), None),
            None => (None, Some(RequestError::BadId(v))),
        },
    };
    let request = match id_error {
        Some(e) => Err(e),
        None => serde_json::from_value::<Request>(value)
            .map_err(|e| RequestError::Invalid(e.to_string()))
            .and_then(check_request),
    };
    Envelope { id, request }
}

/// Range checks that need no simulation state.
fn check_request(request: Request) -> Result<Request, RequestError> {
    let out_of_range = |field: &str, value: String, allowed: String| RequestError::OutOfRange {
        field: field.to_owned(),
        value,
        allowed,
    };
    match &request {
        Request::Step { count: Some(n) } if !(1..=MAX_STEP_REQUEST).contains(n) => {
            Err(out_of_range(
                "step count",
                n.to_string(),
                format!("[1, {MAX_STEP_REQUEST}]"),
            ))
        }
        Request::Speed { steps_per_second }
            if !(MIN_SPEED..=MAX_SPEED).contains(steps_per_second) =>
        {
            Err(out_of_range(
                "steps_per_second",
                steps_per_second.to_string(),
                format!("[{MIN_SPEED}, {MAX_SPEED}]"),
            ))
        }
        Request::Overlay {
            x, y, z, radius, ..
        } => {
            for (name, v) in [("x", x), ("y", y), ("z", z), ("radius", radius)] {
                if let Some(v) = v.filter(|v| !v.is_finite() || (name == "radius" && *v < 0.0)) {
                    let allowed = if name == "radius" {
                        "a finite number >= 0"
                    } else {
                        "a finite number"
                    };
                    return Err(out_of_range(
                        &format!("overlay {name}"),
                        v.to_string(),
                        allowed.to_owned(),
                    ));
                }
            }
            Ok(request)
        }
        Request::PlacePredator { x, y, z } => {
            finite_point("place_predator", Some(*x), Some(*y), *z).map(|_| request)
        }
        Request::Pointer { x, y, z } => finite_point("pointer", *x, *y, *z).map(|_| request),
        _ => Ok(request),
    }
}

/// Checks that a point's coordinates are finite and come together (x and y, and perhaps z; or
/// none).
fn finite_point(
    what: &str,
    x: Option<f64>,
    y: Option<f64>,
    z: Option<f64>,
) -> Result<(), RequestError> {
    for (name, value) in [("x", x), ("y", y), ("z", z)] {
        if let Some(v) = value.filter(|v| !v.is_finite()) {
            return Err(RequestError::OutOfRange {
                field: format!("{what} {name}"),
                value: v.to_string(),
                allowed: "a finite number".to_owned(),
            });
        }
    }
    if x.is_some() != y.is_some() || (z.is_some() && x.is_none()) {
        return Err(RequestError::OutOfRange {
            field: format!("{what} point"),
            value: format!("x {x:?}, y {y:?}, z {z:?}"),
            allowed: "both x and y (and z in three dimensions), or none".to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_and_bad_ones_say_why() {
        let ok = parse_request(r#"{"type":"set","key":"visual_range","value":50,"id":3}"#);
        assert_eq!(ok.id, Some(3));
        assert_eq!(
            ok.request.unwrap(),
            Request::Set {
                key: "visual_range".into(),
                value: serde_json::json!(50)
            }
        );
        let cases = [
            ("{not json", "malformed JSON"),
            ("[1, 2]", "JSON object"),
            (r#"{"type":"explode"}"#, "unknown variant `explode`"),
            (r#"{"type":"start","extra":1}"#, "unknown field `extra`"),
            (r#"{"type":"step","count":0}"#, "allowed [1, 1000]"),
            (
                r#"{"type":"speed","steps_per_second":1e9}"#,
                "allowed [0.5, 1000]",
            ),
            (r#"{"type":"overlay","mode":"hover","radius":-1}"#, ">= 0"),
            (r#"{"type":"start","id":-4}"#, "whole number"),
            (r#"{"type":"pointer","x":1}"#, "both x and y"),
            (r#"{"type":"pointer","z":1}"#, "both x and y"),
            (
                r#"{"type":"place_predator","x":1,"y":2,"z":"inf"}"#,
                "invalid type",
            ),
            (
                r#"{"type":"place_predator","x":1,"y":2,"z":1e999}"#,
                "number out of range",
            ),
            (r#"{"type":"place_predator","x":1}"#, "missing field `y`"),
            (r#"{"type":"remove_predator","index":-1}"#, "invalid value"),
        ];
        for (text, expected) in cases {
            let err = parse_request(text).request.unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
        let big = format!(
            r#"{{"type":"start","pad":"{}"}}"#,
            "x".repeat(MAX_REQUEST_BYTES)
        );
        assert!(
            parse_request(&big)
                .request
                .unwrap_err()
                .to_string()
                .contains("at most 65536 bytes")
        );
    }
}
