//! The `/api/params` description the page builds its controls from: every entry of
//! [`boids_core::PARAMS`] with its current value, its allowed range, the section it belongs to,
//! the models it applies to (the page shows only those of the current model) and a slider range.
//!
//! Slider ranges come from the preset's defaults, not the current values, so a slider does not
//! rescale under the user's hand. Most allowed ranges are open-ended (`[0, inf]`), so a slider
//! spans four times the preset's default, or a scale taken from a related parameter when the
//! default is zero (a length from the visual range, a speed from the maximum speed). The page
//! also has a number box beside each slider for any value the server accepts.

use boids_core::params::{Kind, Model};
use boids_core::{PARAMS, PRESETS, ParamInfo, Params};
use serde_json::{Value, json};

use crate::protocol::toml_to_json;

/// The page's sections, in the order shown.
const SECTIONS: [&str; 10] = [
    "Flock",
    "Rules",
    "Neighbourhood",
    "Speed",
    "Boundary",
    "Scouts",
    "Wander",
    "Model",
    "World and start",
    "Other",
];

/// The section of the page a parameter is shown in (one of [`SECTIONS`]; unknown names go to
/// "Other").
fn section(name: &str) -> &'static str {
    match name {
        "count" | "boid_size" | "dt" => "Flock",
        "centering_factor" | "matching_factor" | "avoid_factor" | "steering_gain"
        | "speed_boost" => "Rules",
        "visual_range" | "protected_range" | "inclusive_ranges" | "include_self"
        | "exclude_protected" => "Neighbourhood",
        "min_speed" | "max_speed" => "Speed",
        "boundary" | "margin" | "turnfactor" | "wall_buffer" => "Boundary",
        "scout_group1_fraction"
        | "scout_group2_fraction"
        | "bias"
        | "max_bias"
        | "bias_increment"
        | "dynamic_bias" => "Scouts",
        "wander_weight" | "wander_period" | "wander_turn" | "wander_angle" => "Wander",
        "model" | "topological_k" | "blind_angle" | "speed" | "noise" | "noise_distribution"
        | "turn_rate" | "informed_weight" | "preferred_angle1" | "preferred_angle2" => "Model",
        "world_x_min" | "world_y_min" | "world_width" | "world_height" | "init_x" | "init_y"
        | "init_vx" | "init_vy" => "World and start",
        _ => "Other",
    }
}

/// The models a parameter changes the flock in (see `boids_core::models`); parameters not listed
/// apply to every model. The boids rules' weights, speed limits, dynamic bias and wander act only
/// in the boids model, whose scouts steer by bias; the heading models (vicsek, couzin) move at a
/// constant `speed` with noise and a turning limit, and inform scouts by `informed_weight`.
/// Vicsek always counts the boid itself and has no zone of repulsion. `avoid_factor` stays in
/// every model, as it also weighs the walls' push.
///
/// This belongs in the core's parameter catalogue ([`ParamInfo`]), next to each parameter's
/// meaning, so that `boids params` and validation can use it too; it lives here until it moves.
fn models(name: &str) -> &'static [&'static str] {
    const BOIDS: &[&str] = &["boids"];
    const HEADING: &[&str] = &["vicsek", "couzin"];
    match name {
        "centering_factor" | "matching_factor" | "steering_gain" | "speed_boost" | "min_speed"
        | "max_speed" | "exclude_protected" | "bias" | "max_bias" | "bias_increment"
        | "dynamic_bias" | "wander_weight" | "wander_period" | "wander_turn" | "wander_angle" => {
            BOIDS
        }
        "protected_range" | "include_self" => &["boids", "couzin"],
        "speed" | "noise" | "noise_distribution" | "turn_rate" | "informed_weight" => HEADING,
        _ => &Model::NAMES,
    }
}

/// A finite, positive scale for a parameter whose default is zero or infinite.
fn reference_scale(info: &ParamInfo, d: &Params) -> f64 {
    let speed = if d.max_speed.is_finite() && d.max_speed > 0.0 {
        d.max_speed
    } else {
        d.visual_range / d.dt
    };
    match info.unit {
        "length" => d.visual_range,
        "length/time" => speed,
        "velocity/step" => 0.1 * speed * d.dt,
        "rad" => std::f64::consts::PI,
        "1/step" => 0.1,
        _ => 1.0,
    }
}

/// Slider range and step for a parameter, or `None` when it gets another control.
fn slider(info: &ParamInfo, defaults: &Params, max_count: usize) -> Option<Value> {
    let default = defaults
        .get(info.name)
        .and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64)))?;
    let (lo, hi, log, integer) = match info.kind {
        Kind::Integer { .. } if info.name == "count" => (1.0, max_count as f64, true, true),
        Kind::Integer { min, max } => {
            let hi = (4.0 * default).max(min as f64 + 100.0).min(max as f64);
            (min as f64, hi, false, true)
        }
        Kind::Number { min, max } => {
            let scale = if default.is_finite() && default != 0.0 {
                default.abs()
            } else {
                reference_scale(info, defaults)
            };
            if min == f64::MIN {
                // Any value: centre the range on the default.
                let centre = if default.is_finite() { default } else { 0.0 };
                (centre - 2.0 * scale, centre + 2.0 * scale, false, false)
            } else if max - min <= 1.0 {
                (min, max, false, false)
            } else {
                (min.max(0.0), (4.0 * scale).min(max), false, false)
            }
        }
        Kind::Bool | Kind::Choice(_) | Kind::Interval => return None,
    };
    let step = if integer { 1.0 } else { (hi - lo) / 1000.0 };
    Some(json!({"min": lo, "max": hi, "step": step, "log": log}))
}

fn kind_json(kind: Kind) -> Value {
    let finite = |v: f64| {
        if v.is_finite() && v.abs() < f64::MAX {
            json!(v)
        } else {
            Value::Null
        }
    };
    match kind {
        Kind::Number { min, max } => {
            json!({"type": "number", "min": finite(min), "max": finite(max)})
        }
        Kind::Integer { min, max } => json!({"type": "integer", "min": min, "max": max}),
        Kind::Bool => json!({"type": "bool"}),
        Kind::Choice(names) => json!({"type": "choice", "choices": names}),
        Kind::Interval => json!({"type": "interval"}),
    }
}

/// The whole description (see the module docs).
pub fn describe(
    current: &Params,
    defaults: &Params,
    preset: &str,
    seed: u64,
    max_count: usize,
) -> Value {
    let params: Vec<Value> = PARAMS
        .iter()
        .map(|info| {
            let mut kind = kind_json(info.kind);
            if info.name == "count" {
                kind["max"] = json!(max_count);
            }
            json!({
                "name": info.name,
                "kind": kind,
                "unit": info.unit,
                "meaning": info.meaning,
                "section": section(info.name),
                "models": models(info.name),
                "value": current.get(info.name).map(|v| toml_to_json(&v)),
                "default": defaults.get(info.name).map(|v| toml_to_json(&v)),
                "slider": slider(info, defaults, max_count),
            })
        })
        .collect();
    let presets: Vec<Value> = PRESETS
        .iter()
        .map(|p| json!({"name": p.name, "source": p.source, "summary": p.summary}))
        .collect();
    json!({
        "preset": preset,
        "seed": seed,
        "max_count": max_count,
        "sections": SECTIONS,
        "presets": presets,
        "params": params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_is_described_with_a_usable_control() {
        for preset in PRESETS {
            let p = Params::preset(preset.name).unwrap();
            let d = describe(&p, &p, preset.name, 0, 200_000);
            let params = d["params"].as_array().unwrap();
            assert_eq!(params.len(), PARAMS.len());
            for entry in params {
                let name = entry["name"].as_str().unwrap();
                assert!(
                    SECTIONS.contains(&entry["section"].as_str().unwrap()),
                    "{name}"
                );
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
        for model in Model::NAMES {
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
