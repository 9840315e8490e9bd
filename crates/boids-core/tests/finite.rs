//! Accepted values keep the flock finite: every real parameter at either end of its allowed
//! range (and `inf` where it means no limit), over every preset, steps without a refusal and
//! leaves finite positions and velocities; and a step that would not stay finite is refused,
//! naming the step and the boid, with the flock left as it was.

use boids_core::params::{Kind, PARAMS, Value};
use boids_core::{Flock, PRESETS, ParamsBuilder, Source, StateError};

/// Steps taken at each extreme value: enough for every stage to run on what the first steps
/// made of the start.
const STEPS: u64 = 4;

/// The values at the ends of a number's allowed range.
fn extremes(kind: Kind) -> Vec<f64> {
    match kind {
        Kind::Number {
            min,
            max,
            unlimited,
        } => {
            let mut ends = vec![min, max];
            if unlimited {
                ends.push(f64::INFINITY);
            }
            ends
        }
        _ => Vec::new(),
    }
}

#[test]
fn every_real_parameter_at_the_ends_of_its_range_keeps_every_preset_finite() {
    let mut tried = 0;
    for preset in PRESETS {
        for info in PARAMS {
            for value in extremes(info.kind) {
                let mut layers = ParamsBuilder::preset(preset.name).unwrap();
                layers.set("count", Value::Integer(50), Source::Flag("test".into()));
                layers.set(info.name, Value::Number(value), Source::Flag("test".into()));
                // A value another parameter of the preset contradicts is refused, not run.
                let Ok(params) = layers.build() else {
                    continue;
                };
                let what = format!("{} with {} = {value:e}", preset.name, info.name);
                let Ok(mut flock) = Flock::new(params, 7, Default::default()) else {
                    continue;
                };
                for _ in 0..STEPS {
                    flock.step().unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                let finite = boids_core::on_flock!(&flock, sim => {
                    sim.positions().iter().chain(sim.velocities()).all(|v| v.is_finite())
                });
                assert!(finite, "{what}");
                tried += 1;
            }
        }
    }
    assert!(tried > 500, "only {tried} runs");
}

/// A torus flock whose alignment overshoots a thousandfold each step, with no speed limit:
/// allowed values, and a flock that diverges within a few steps.
fn diverging() -> ParamsBuilder {
    let mut layers = ParamsBuilder::preset("allegheny").unwrap();
    for (key, value) in [
        ("count", "50"),
        ("max_speed", "inf"),
        ("matching_factor", "1000"),
        ("steering_gain", "1000"),
    ] {
        layers = layers
            .apply_assignment(&format!("{key}={value}"), Source::Flag("test".into()))
            .unwrap();
    }
    layers
}

#[test]
fn a_step_that_is_not_finite_is_refused_naming_the_step_and_the_boid() {
    let params = diverging().build().unwrap();
    let mut sim = boids_core::Simulation::<2>::new(params, 3).unwrap();
    let refused = loop {
        let before = sim.state();
        let step = sim.step_count();
        match sim.step() {
            Ok(()) => assert!(step < 100, "the flock never diverged"),
            Err(refused) => {
                assert_eq!(sim.state(), before, "the flock stays as it was");
                assert_eq!(sim.step_count(), step, "the step is not counted");
                assert!(before.positions.iter().all(|p| p.is_finite()));
                // Refused again, the same way: nothing of the refused step was kept.
                assert_eq!(sim.step(), Err(refused.clone()));
                break (step, refused);
            }
        }
    };
    let (step, refused) = refused;
    let StateError::NonFinite {
        step: named, id, ..
    } = &refused
    else {
        panic!("{refused}");
    };
    assert_eq!(*named, step + 1);
    let message = refused.to_string();
    assert!(
        message.starts_with(&format!(
            "step {} is refused: it would leave boid {id} at position [",
            step + 1
        )),
        "{message}"
    );
    assert!(
        message.contains(&format!("the flock stays at step {step}")),
        "{message}"
    );
}
