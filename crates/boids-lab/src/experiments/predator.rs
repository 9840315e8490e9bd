//! Predation risk and flock size, and the worth of fleeing, in the `predator` preset's world: a
//! cornell flock, hunted here by one predator that catches.
//!
//! **Dilution.** Hamilton (J. Theor. Biol. 31, 295, 1971) and Foster & Treherne (Nature 293,
//! 466, 1981): a predator that takes at most one prey at a time spreads its attacks over the
//! group, so each member's risk falls with group size, as `1 / N` when the group is attacked as
//! often whatever its size. Here a predator catches at most one boid a step; a run counts the
//! captures over the steps after a warm-up, and the per-capita capture rate is captures per boid
//! per step. Sizes share one world, so density grows with `N`, and a predator meets prey more
//! often in a bigger flock: the captures per step grow with `N`, and per-capita risk falls as
//! `1 / N` only as far as they grow more slowly than `N`.
//!
//! Two predators are asked ([`PREDATORS`]): the preset's own (speed 5, below the boids' top speed
//! of 6, turning 0.1 rad a step), which catches mostly the boids that blunder into it, and a
//! fast one (speed 7, turning 0.3 rad a step) that can run a boid down.
//!
//! **Fleeing.** At a fixed size, `flee_factor` from 0 (boids ignore the predator) up: the capture
//! rate should fall as boids flee harder.
//!
//! Every point uses the same seeds (replicate `r`: seed `seed + r`).

use std::collections::BTreeMap;

use super::{Figure, Mode, Options, Panel, Row, RunSpec, Series, Task, Value, cell, mean};
use boids_core::params::Params;
use boids_core::sim::Simulation;

/// One predator of the experiment: a name for the `predator` column and its speed and turning
/// limit (`None`: the preset's).
#[derive(Clone, Copy, Debug)]
struct Hunter {
    name: &'static str,
    speed: Option<f64>,
    turn_rate: Option<f64>,
}

/// The preset's predator and a fast one.
const PREDATORS: [Hunter; 2] = [
    Hunter {
        name: "preset",
        speed: None,
        turn_rate: None,
    },
    FAST,
];

/// A predator faster than the boids (their top speed is 6) and quicker to turn.
const FAST: Hunter = Hunter {
    name: "fast",
    speed: Some(7.0),
    turn_rate: Some(0.3),
};

/// Flock sizes of the dilution part.
const SIZES: [usize; 7] = [10, 20, 50, 100, 200, 500, 1000];
/// Flee factors of the fleeing part.
const FLEE_FACTORS: [f64; 7] = [0.0, 0.1, 0.2, 0.5, 1.0, 1.5, 2.0];
/// Flock size of the fleeing part.
const FLEE_COUNT: usize = 200;

/// The two questions, as the `part` column names them.
const DILUTION: &str = "dilution";
const FLEEING: &str = "fleeing";

/// The `predator` preset with `n` boids and one `hunter`; `flee` replaces its flee factor.
fn hunted(n: usize, hunter: Hunter, flee: Option<f64>) -> Params {
    let base = Params::preset("predator").expect("experiment presets are valid");
    Params {
        count: n,
        predator_count: 1,
        predator_speed: hunter.speed.unwrap_or(base.predator_speed),
        predator_turn_rate: hunter.turn_rate.unwrap_or(base.predator_turn_rate),
        flee_factor: flee.unwrap_or(base.flee_factor),
        ..base
    }
}

/// How many runs, how long.
struct Size {
    predators: &'static [Hunter],
    sizes: &'static [usize],
    flee_factors: &'static [f64],
    replicates: u32,
    steps: u64,
    warmup: u64,
}

/// `predator`: for each predator, the dilution part (sizes x replicates at the preset's flee
/// factor), then the fleeing part (flee factors x replicates at [`FLEE_COUNT`] boids). The
/// quick version asks the fast predator alone, at the ends of both ranges.
pub fn plan(options: &Options) -> Vec<RunSpec> {
    let mut size = if options.quick {
        Size {
            predators: &[FAST],
            sizes: &[10, 1000],
            flee_factors: &[0.0, 2.0],
            replicates: 4,
            steps: 1200,
            warmup: 200,
        }
    } else {
        Size {
            predators: &PREDATORS,
            sizes: &SIZES,
            flee_factors: &FLEE_FACTORS,
            replicates: 10,
            steps: 4200,
            warmup: 200,
        }
    };
    if let Some(r) = options.replicates {
        size.replicates = r;
    }
    if let Some(steps) = options.steps {
        size.steps = steps;
        size.warmup = size.warmup.min(steps / 2);
    }
    let mut runs = Vec::new();
    for &hunter in size.predators {
        let points = size.sizes.iter().map(|&n| (DILUTION, n, None)).chain(
            size.flee_factors
                .iter()
                .map(|&flee| (FLEEING, FLEE_COUNT, Some(flee))),
        );
        for (part, n, flee) in points {
            let params = hunted(n, hunter, flee);
            for r in 0..size.replicates {
                runs.push(RunSpec {
                    labels: vec![
                        ("part", Value::Text(part)),
                        ("predator", Value::Text(hunter.name)),
                        ("predator_speed", Value::Num(params.predator_speed)),
                        ("predator_turn_rate", Value::Num(params.predator_turn_rate)),
                        ("count", Value::Int(n as i64)),
                        ("flee_factor", Value::Num(params.flee_factor)),
                        ("replicate", Value::Int(i64::from(r))),
                    ],
                    params: params.clone(),
                    seed: options.seed + u64::from(r),
                    steps: size.steps,
                    task: Task::Captures { from: size.warmup },
                });
            }
        }
    }
    runs
}

/// Runs `sim` to `steps`, counting the captures of steps `from + 1..=steps`.
pub fn measure(sim: &mut Simulation, steps: u64, from: u64) -> Row {
    let mut captures = 0;
    for k in 1..=steps {
        // A refused step (the flock would not stay finite) ends the count.
        if sim.step().is_err() {
            break;
        }
        if k > from {
            captures += sim.captures();
        }
    }
    let window = steps.saturating_sub(from).max(1) as f64;
    let rate = captures as f64 / window;
    vec![
        ("captures", Value::Int(captures as i64)),
        ("capture_rate", Value::Num(rate)),
        ("per_capita_rate", Value::Num(rate / sim.len() as f64)),
    ]
}

/// Whether `row`'s `column` holds the text `wanted`.
fn is(row: &Row, column: &str, wanted: &str) -> bool {
    matches!(cell(row, column), Value::Text(t) if *t == wanted)
}

/// The mean of `y` against `x` over the rows of `part` and `predator`, by ascending `x`.
pub fn curve(rows: &[Row], part: &str, predator: &str, x: &str, y: &str) -> Vec<(f64, f64)> {
    let mut groups: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
    for row in rows
        .iter()
        .filter(|r| is(r, "part", part) && is(r, "predator", predator))
    {
        let at = cell(row, x).number();
        groups
            .entry((at * 1e6).round() as i64)
            .or_insert_with(|| (at, Vec::new()))
            .1
            .push(cell(row, y).number());
    }
    groups
        .into_values()
        .map(|(at, values)| (at, mean(values)))
        .collect()
}

/// `log10 x`, or `NaN` (not drawn) for a rate of zero.
fn log10(x: f64) -> f64 {
    if x > 0.0 { x.log10() } else { f64::NAN }
}

/// Figure of `predator`: per-capita rate against size on log-log axes, with the `1 / N` guide
/// through the fast predator's smallest size, and capture rate against flee factor; a series
/// per predator that has rows.
pub fn figure(rows: &[Row]) -> Figure {
    let asked = PREDATORS
        .iter()
        .filter(|h| rows.iter().any(|r| is(r, "predator", h.name)));
    let label = |h: &Hunter| format!("{} predator", h.name);
    let mut dilution = Vec::new();
    let mut fleeing = Vec::new();
    for hunter in asked {
        let per_capita = curve(rows, DILUTION, hunter.name, "count", "per_capita_rate");
        let logs: Vec<(f64, f64)> = per_capita
            .iter()
            .map(|&(n, r)| (log10(n), log10(r)))
            .collect();
        if hunter.name == FAST.name
            && let (Some(&(x0, y0)), Some(&(x1, _))) = (logs.first(), logs.last())
        {
            dilution.push(Series::new(
                "1 / N",
                vec![(x0, y0), (x1, y0 - (x1 - x0))],
                Mode::Guide,
            ));
        }
        dilution.push(Series::new(label(hunter), logs, Mode::Line));
        let rates = curve(rows, FLEEING, hunter.name, "flee_factor", "capture_rate");
        fleeing.push(Series::new(label(hunter), rates, Mode::Line));
    }
    let points = |series: &[Series]| -> Vec<(f64, f64)> {
        series.iter().flat_map(|s| s.points.clone()).collect()
    };
    let (dilution_points, fleeing_points) = (points(&dilution), points(&fleeing));
    let flee_max = fleeing_points.iter().map(|p| p.0).fold(1e-9, f64::max);
    let rate_max = fleeing_points.iter().map(|p| p.1).fold(0.0, f64::max);
    Figure {
        title: "Predation: the dilution effect and the worth of fleeing (one predator)".into(),
        panels: vec![
            Panel {
                title: "per-capita capture rate against flock size".into(),
                x_label: "log10 N".into(),
                y_label: "log10 captures per boid per step".into(),
                x_range: bounds(dilution_points.iter().map(|p| p.0), 0.1),
                y_range: bounds(dilution_points.iter().map(|p| p.1), 0.2),
                series: dilution,
            },
            Panel {
                title: format!("capture rate against flee_factor (N = {FLEE_COUNT})"),
                x_label: "flee_factor".into(),
                y_label: "captures per step".into(),
                x_range: (0.0, flee_max),
                y_range: (0.0, (rate_max * 1.1).max(1e-3)),
                series: fleeing,
            },
        ],
    }
}

/// The range of the finite `values`, widened by `pad` each side ((0, 1) when there are none).
fn bounds(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (low, high) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    if low > high {
        (0.0, 1.0)
    } else {
        (low - pad, high + pad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(part: &'static str, count: i64, flee: f64, per_capita: f64, rate: f64) -> Row {
        vec![
            ("part", Value::Text(part)),
            ("predator", Value::Text(FAST.name)),
            ("count", Value::Int(count)),
            ("flee_factor", Value::Num(flee)),
            ("capture_rate", Value::Num(rate)),
            ("per_capita_rate", Value::Num(per_capita)),
        ]
    }

    #[test]
    fn curves_average_replicates_within_their_part_and_predator() {
        let mut rows = vec![
            row(DILUTION, 10, 0.5, 0.01, 0.1),
            row(DILUTION, 10, 0.5, 0.03, 0.3),
            row(DILUTION, 100, 0.5, 0.001, 0.1),
            row(FLEEING, 200, 0.0, 0.5, 0.4),
            row(FLEEING, 200, 2.0, 0.5, 0.2),
        ];
        let mut other = row(DILUTION, 10, 0.5, 0.5, 0.5);
        other[1].1 = Value::Text("preset");
        rows.push(other);
        assert_eq!(
            curve(&rows, DILUTION, FAST.name, "count", "per_capita_rate"),
            [(10.0, 0.02), (100.0, 0.001)]
        );
        assert_eq!(
            curve(&rows, FLEEING, FAST.name, "flee_factor", "capture_rate"),
            [(0.0, 0.4), (2.0, 0.2)]
        );
        let figure = figure(&rows);
        let labels: Vec<&str> = figure.panels[0]
            .series
            .iter()
            .map(|s| s.label.as_str())
            .collect();
        assert_eq!(labels, ["preset predator", "1 / N", "fast predator"]);
        let guide = &figure.panels[0].series[1];
        assert_eq!(guide.mode, Mode::Guide);
        let (start, end) = (guide.points[0], guide.points[1]);
        assert!((start.1 - 0.02f64.log10()).abs() < 1e-12);
        assert!((end.1 - 0.002f64.log10()).abs() < 1e-12, "slope -1");
    }

    #[test]
    fn a_run_counts_captures_after_the_warmup_only() {
        let params = Params {
            capture_range: 0.0,
            ..hunted(50, FAST, None)
        };
        let mut sim = Simulation::<2>::new(params, 1).unwrap();
        let row = measure(&mut sim, 20, 10);
        assert_eq!(*cell(&row, "captures"), Value::Int(0));
        let mut sim = Simulation::<2>::new(hunted(1000, FAST, None), 1).unwrap();
        let row = measure(&mut sim, 200, 100);
        let captures = cell(&row, "captures").number();
        assert!(captures > 0.0 && captures <= 100.0, "{captures}");
        let rate = cell(&row, "per_capita_rate").number();
        assert!((rate - captures / 100.0 / 1000.0).abs() < 1e-15);
    }
}
