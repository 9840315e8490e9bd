//! The `/api/params` description the page builds its controls from: every entry of
//! [`boids_core::PARAMS`] with its current value, its allowed range, the section it belongs to,
//! the models it applies to (the page shows only those of the current model) and a slider range.
//!
//! Slider ranges come from the preset's defaults, not the current values, so a slider does not
//! rescale under the user's hand. Most allowed ranges are open-ended (`[0, inf]`), so a slider
//! spans four times the preset's default, or a scale taken from a related parameter when the
//! default is zero (a length from the visual range, a speed from the maximum speed). The page
//! also has a number box beside each slider for any value the server accepts.

use boids_core::params::{Kind, Section, Unit, Value};
use boids_core::{PARAMS, PRESETS, ParamInfo, Params};
use boids_io::param_json::value_to_json;
use serde_json::{Value as Json, json};

/// A finite, positive scale for a parameter whose default is zero or infinite.
fn reference_scale(info: &ParamInfo, d: &Params) -> f64 {
    let speed = if d.max_speed.is_finite() && d.max_speed > 0.0 {
        d.max_speed
    } else {
        d.visual_range / d.dt
    };
    match info.unit {
        Unit::Length => d.visual_range,
        Unit::Speed => speed,
        Unit::VelocityPerStep => 0.1 * speed * d.dt,
        Unit::Radians | Unit::RadiansPerTime => std::f64::consts::PI,
        Unit::PerStep => 0.1,
        Unit::None | Unit::Boids | Unit::TimePerStep | Unit::Steps => 1.0,
    }
}

/// Slider range and step for a parameter, or `None` when it gets another control.
fn slider(info: &ParamInfo, defaults: &Params, max_count: usize) -> Option<Json> {
    let default = match defaults.get(info.name)? {
        Value::Number(x) => x,
        Value::Integer(i) => i as f64,
        Value::Bool(_)
        | Value::Choice(_)
        | Value::Interval(_)
        | Value::Shapes(_)
        | Value::Points(_) => return None,
    };
    let (lo, hi, log, integer) = match info.kind {
        Kind::Integer { .. } if info.name == "count" => (1.0, max_count as f64, true, true),
        Kind::Integer { min, max } => {
            let hi = (4.0 * default).max(min as f64 + 100.0).min(max as f64);
            (min as f64, hi, false, true)
        }
        Kind::Number { min, max, .. } => {
            let scale = if default.is_finite() && default != 0.0 {
                default.abs()
            } else {
                reference_scale(info, defaults)
            };
            if min == -info.unit.limit() {
                // Any value the unit allows: centre the range on the default.
                let centre = if default.is_finite() { default } else { 0.0 };
                (centre - 2.0 * scale, centre + 2.0 * scale, false, false)
            } else if max - min <= 1.0 {
                (min, max, false, false)
            } else {
                (min.max(0.0), (4.0 * scale).min(max), false, false)
            }
        }
        Kind::Bool
        | Kind::Choice(_)
        | Kind::Interval { .. }
        | Kind::Shapes
        | Kind::Points { .. } => {
            return None;
        }
    };
    let step = if integer { 1.0 } else { (hi - lo) / 1000.0 };
    Some(json!({"min": lo, "max": hi, "step": step, "log": log}))
}

fn kind_json(kind: Kind) -> Json {
    let finite = |v: f64| {
        if v.is_finite() && v.abs() < f64::MAX {
            json!(v)
        } else {
            Json::Null
        }
    };
    match kind {
        Kind::Number { min, max, .. } => {
            json!({"type": "number", "min": finite(min), "max": finite(max)})
        }
        Kind::Integer { min, max } => json!({"type": "integer", "min": min, "max": max}),
        Kind::Bool => json!({"type": "bool"}),
        Kind::Choice(names) => json!({"type": "choice", "choices": names}),
        Kind::Interval { .. } => json!({"type": "interval"}),
        Kind::Shapes => json!({"type": "shapes"}),
        Kind::Points { .. } => json!({"type": "points"}),
    }
}

/// The whole description (see the module docs).
pub fn describe(
    current: &Params,
    defaults: &Params,
    preset: &str,
    seed: u64,
    max_count: usize,
) -> Json {
    let params: Vec<Json> = PARAMS
        .iter()
        .map(|info| {
            let mut kind = kind_json(info.kind);
            if info.name == "count" {
                kind["max"] = json!(max_count);
            }
            json!({
                "name": info.name,
                "kind": kind,
                "unit": info.unit.symbol(),
                "meaning": info.meaning,
                "section": info.section.title(),
                "models": info.models.iter().map(|m| m.name()).collect::<Vec<_>>(),
                "value": current.get(info.name).map(value_to_json),
                "default": defaults.get(info.name).map(value_to_json),
                "slider": slider(info, defaults, max_count),
            })
        })
        .collect();
    let presets: Vec<Json> = PRESETS
        .iter()
        .map(|p| json!({"name": p.name, "source": p.source, "summary": p.summary}))
        .collect();
    json!({
        "preset": preset,
        "seed": seed,
        "max_count": max_count,
        "sections": Section::ALL.map(Section::title),
        "presets": presets,
        "params": params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use boids_core::params::Model;

    #[test]
    fn every_parameter_is_described_with_a_usable_control() {
        for preset in PRESETS {
            let p = Params::preset(preset.name).unwrap();
            let d = describe(&p, &p, preset.name, 0, 200_000);
            let params = d["params"].as_array().unwrap();
            assert_eq!(params.len(), PARAMS.len());
            for entry in params {
                let name = entry["name"].as_str().unwrap();
                let section = entry["section"].as_str().unwrap();
                assert!(Section::ALL.iter().any(|s| s.title() == section), "{name}");
                let kind = entry["kind"]["type"].as_str().unwrap();
                if matches!(kind, "number" | "integer") {
                    let s = &entry["slider"];
                    let (lo, hi) = (s["min"].as_f64().unwrap(), s["max"].as_f64().unwrap());
                    assert!(
                        lo.is_finite() && hi.is_finite() && lo < hi,
                        "{} {name}: {s}",
                        preset.name
                    );
                    let value = &entry["value"];
                    if let Some(v) = value.as_f64() {
                        assert!(
                            v >= lo && v <= hi,
                            "{} {name}: {v} outside {s}",
                            preset.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn each_model_is_shown_its_own_parameters_only() {
        let p = Params::preset("vicsek").unwrap();
        let d = describe(&p, &p, "vicsek", 0, 1000);
        let applies = |name: &str, model: &str| {
            let entry = d["params"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["name"] == name)
                .unwrap();
            entry["models"].as_array().unwrap().contains(&json!(model))
        };
        for &model in Model::NAMES {
            assert!(applies("visual_range", model) && applies("count", model));
        }
        assert!(applies("centering_factor", "boids") && !applies("centering_factor", "vicsek"));
        assert!(applies("noise", "couzin") && !applies("noise", "boids"));
        assert!(applies("protected_range", "couzin") && !applies("protected_range", "vicsek"));
    }

    #[test]
    fn count_slider_stops_at_the_cap() {
        let p = Params::preset("cornell").unwrap();
        let d = describe(&p, &p, "cornell", 0, 1234);
        let count = d["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "count")
            .unwrap();
        assert_eq!(count["slider"]["max"], 1234.0);
        assert_eq!(count["kind"]["max"], 1234);
    }
}
