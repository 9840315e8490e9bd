//! Couzin, Krause, James, Ruxton and Franks, J. theor. Biol. 218, 1 (2002): the collective
//! states over the plane of zone widths, and collective memory.
//!
//! Both experiments run the `couzin2002` preset (the paper's constants: N = 100 in 3D,
//! r_r = 1, a field of perception of 270 degrees, s = 3, theta = 40 degrees per second,
//! tau = 0.1 s, sigma = 0.05) and change only the zone widths, `delta_r_o = r_o - r_r` and
//! `delta_r_a = r_a - r_o`. They measure the paper's two order parameters on the whole
//! population, `p_group` ([`metrics::polarization`]) and `m_group` ([`metrics::milling`]).
//!
//! - `couzin-phases`: from a random start, `p_group` and `m_group` averaged over the last
//!   [`AVERAGED`] steps of each run at every point of the `(delta_r_o, delta_r_a)` plane, and
//!   the state they name ([`state_of`]): the paper's figure of the four states.
//! - `couzin-memory`: `delta_r_a` = [`MEMORY_DELTA_R_A`], `delta_r_o` stepped up from 0 and
//!   down from the top of the range, each value held [`HOLD`] steps (the paper's 2000 steps
//!   per value) with the flock carried from one value to the next. A run ends at one value of
//!   its path and measures there (over the hold's last [`AVERAGED`] steps), so every row is
//!   one run; the runs of one replicate and direction share their seed, so each replays the
//!   same path up to its own value. The paper's finding: going up, swarm, then torus, then a
//!   parallel group; coming down, the parallel group holds where the torus formed going up.

use super::{Row, RunSpec, Task, Value, cell, largest_share, mean};
use crate::experiments::{Figure, Mode, Options, Panel, Series};
use boids_core::metrics;
use boids_core::params::Params;
use boids_core::sim::Simulation;

/// Steps at the end of a run (or of a hold) over which the order parameters are averaged.
pub const AVERAGED: u64 = 500;

/// Steps each value of `delta_r_o` is held on a memory path (the paper's 2000).
pub const HOLD: u64 = 2000;

/// The width of the zone of attraction on the memory paths (the paper's figure of collective
/// memory holds it at 14).
pub const MEMORY_DELTA_R_A: f64 = 14.0;

/// Above this `p_group` a group is highly parallel (the paper's highly parallel groups hold
/// `p_group` near 1; the test of this experiment asks for it).
pub const HIGHLY_PARALLEL: f64 = 0.9;

/// Above this `p_group` (and up to [`HIGHLY_PARALLEL`]) a group is a dynamic parallel group;
/// at or below it, a torus or a swarm. Halfway between random headings (`p_group` about
/// `1 / sqrt(N)` = 0.1 at N = 100) and full alignment (1).
pub const PARALLEL: f64 = 0.5;

/// Above this `m_group`, a group that is not parallel is a torus; at or below it, a swarm.
/// Halfway between no rotation (0) and a perfect mill (1).
pub const MILLING: f64 = 0.5;

/// The collective state that `p_group` and `m_group` name (the thresholds above).
pub fn state_of(p_group: f64, m_group: f64) -> &'static str {
    if p_group > HIGHLY_PARALLEL {
        "highly parallel"
    } else if p_group > PARALLEL {
        "dynamic parallel"
    } else if m_group > MILLING {
        "torus"
    } else {
        "swarm"
    }
}

/// The widths of the zone of attraction whose curves `couzin-phases` draws (every width is
/// in the plane of states).
const CURVES_AT: [f64; 4] = [2.0, 6.0, 10.0, 14.0];

/// The four states, in the order of the figure's legend.
const STATES: [&str; 4] = ["swarm", "torus", "dynamic parallel", "highly parallel"];

/// The `couzin2002` preset with zone widths `delta_r_o` and `delta_r_a`.
pub fn params(delta_r_o: f64, delta_r_a: f64) -> Params {
    with_widths(
        Params::preset("couzin2002").expect("the couzin2002 preset is valid"),
        delta_r_o,
        delta_r_a,
    )
}

/// `p` with zone widths `delta_r_o` and `delta_r_a` past its zone of repulsion.
fn with_widths(p: Params, delta_r_o: f64, delta_r_a: f64) -> Params {
    let r_o = p.protected_range + delta_r_o;
    Params {
        orientation_range: r_o,
        visual_range: r_o + delta_r_a,
        ..p
    }
}

/// The zone widths of `p`.
fn widths(p: &Params) -> (f64, f64) {
    (
        p.orientation_range - p.protected_range,
        p.visual_range - p.orientation_range,
    )
}

/// `(delta_r_o, delta_r_a)` labels of a run.
fn width_labels(p: &Params) -> [(&'static str, Value); 2] {
    let (o, a) = widths(p);
    [("delta_r_o", Value::Num(o)), ("delta_r_a", Value::Num(a))]
}

/// `couzin-phases`: the plane of zone widths x replicates.
pub fn phases(options: &Options) -> Vec<RunSpec> {
    let (o, a, replicates, steps): (Vec<f64>, Vec<f64>, u32, u64) = if options.quick {
        (vec![0.0, 2.0, 10.0], vec![14.0], 3, 2000)
    } else {
        let widths: Vec<f64> = (0..=15).map(f64::from).collect();
        (widths.clone(), widths, 10, 3000)
    };
    let replicates = options.replicates.unwrap_or(replicates);
    let steps = options.steps.unwrap_or(steps);
    let mut runs = Vec::new();
    for &delta_r_a in &a {
        for &delta_r_o in &o {
            for r in 0..replicates {
                let params = params(delta_r_o, delta_r_a);
                let mut labels = vec![("count", Value::Int(params.count as i64))];
                labels.extend(width_labels(&params));
                labels.push(("replicate", Value::Int(i64::from(r))));
                runs.push(RunSpec {
                    params,
                    seed: options.seed + u64::from(r),
                    steps,
                    labels,
                    task: Task::Zones {
                        from: steps.saturating_sub(AVERAGED) + 1,
                    },
                });
            }
        }
    }
    runs
}

/// A memory path: `delta_r_o` from `first` by `by` a value, held `hold` steps each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Path {
    /// The first value of `delta_r_o`.
    pub first: f64,
    /// The change from one value to the next (negative going down).
    pub by: f64,
    /// How many values the run takes, its own the last.
    pub values: u32,
    /// Steps each value is held.
    pub hold: u64,
}

/// `couzin-memory`: both directions x the values of `delta_r_o` x replicates.
pub fn memory(options: &Options) -> Vec<RunSpec> {
    let (top, by, replicates, hold) = if options.quick {
        (5.0, 1.0, 4, 1000)
    } else {
        (8.0, 0.5, 15, HOLD)
    };
    let replicates = options.replicates.unwrap_or(replicates);
    let hold = options.steps.unwrap_or(hold);
    let values = (top / by) as u32 + 1;
    let mut runs = Vec::new();
    for (direction, first, by) in [("increasing", 0.0, by), ("decreasing", top, -by)] {
        for taken in 1..=values {
            for r in 0..replicates {
                let path = Path {
                    first,
                    by,
                    values: taken,
                    hold,
                };
                let params = params(first, MEMORY_DELTA_R_A);
                let end = with_widths(params.clone(), at(&path, taken - 1), MEMORY_DELTA_R_A);
                let mut labels = vec![
                    ("count", Value::Int(params.count as i64)),
                    ("direction", Value::Text(direction)),
                ];
                labels.extend(width_labels(&end));
                labels.push(("replicate", Value::Int(i64::from(r))));
                runs.push(RunSpec {
                    params,
                    seed: options.seed + u64::from(r),
                    steps: hold * u64::from(taken),
                    labels,
                    task: Task::Memory { path },
                });
            }
        }
    }
    runs
}

/// The `k`-th value of `delta_r_o` on `path`.
fn at(path: &Path, k: u32) -> f64 {
    path.first + path.by * f64::from(k)
}

/// The run of a `couzin-phases` row: `steps` steps, the order parameters averaged from step
/// `from`.
pub fn measure_phase(spec: &RunSpec, from: u64) -> Row {
    let mut sim = flock(spec);
    let (p, m) = averaged(&mut sim, spec.steps, from);
    order_cells(&sim, p, m)
}

/// The run of a `couzin-memory` row: its path up to its own value, the order parameters
/// averaged over the last [`AVERAGED`] steps of that value's hold.
pub fn measure_memory(spec: &RunSpec, path: &Path) -> Row {
    let mut sim = flock(spec);
    let from = path.hold.saturating_sub(AVERAGED) + 1;
    let mut last = (Vec::new(), Vec::new());
    for k in 0..path.values {
        let (delta_r_a, p) = (widths(sim.params()).1, sim.params().clone());
        sim.set_params(with_widths(p, at(path, k), delta_r_a))
            .expect("a path's zone widths are valid");
        last = averaged(&mut sim, path.hold, from);
    }
    order_cells(&sim, last.0, last.1)
}

/// A 3D flock of `spec`.
fn flock(spec: &RunSpec) -> Simulation<3> {
    Simulation::<3>::new(spec.params.clone(), spec.seed).expect("experiment flocks are valid")
}

/// Runs `sim` `steps` steps and samples `p_group` and `m_group` from the `from`-th on.
fn averaged(sim: &mut Simulation<3>, steps: u64, from: u64) -> (Vec<f64>, Vec<f64>) {
    let (mut p, mut m) = (Vec::new(), Vec::new());
    for k in 1..=steps {
        // The model moves at constant speed: every step stays finite.
        if sim.step().is_err() {
            break;
        }
        if k >= from {
            p.push(metrics::polarization::<3>(sim.velocities()));
            m.push(metrics::milling::<3>(sim.positions(), sim.velocities()));
        }
    }
    (p, m)
}

/// The cells of a row from the samples of `p_group` and `m_group`.
fn order_cells(sim: &Simulation<3>, p: Vec<f64>, m: Vec<f64>) -> Row {
    let (p_group, m_group) = (mean(p.iter().copied()), mean(m.iter().copied()));
    let sd =
        |values: &[f64], average: f64| mean(values.iter().map(|v| (v - average).powi(2))).sqrt();
    vec![
        ("p_group", Value::Num(p_group)),
        ("p_group_sd", Value::Num(sd(&p, p_group))),
        ("m_group", Value::Num(m_group)),
        ("m_group_sd", Value::Num(sd(&m, m_group))),
        (
            "largest_share",
            Value::Num(largest_share(sim.params(), &sim.state())),
        ),
        ("state", Value::Text(state_of(p_group, m_group))),
    ]
}

/// Mean of column `value` over the rows that agree on the `keys` columns, in row order of
/// first appearance: each key's values, then the mean and the standard deviation.
fn means_by(rows: &[Row], keys: &[&str], value: &str) -> Vec<(Vec<Value>, f64, f64)> {
    let mut groups: Vec<(Vec<Value>, Vec<f64>)> = Vec::new();
    for row in rows {
        let key: Vec<Value> = keys.iter().map(|k| cell(row, k).clone()).collect();
        let x = cell(row, value).number();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, values)) => values.push(x),
            None => groups.push((key, vec![x])),
        }
    }
    groups
        .into_iter()
        .map(|(key, values)| {
            let average = mean(values.iter().copied());
            let sd = mean(values.iter().map(|v| (v - average).powi(2))).sqrt();
            (key, average, sd)
        })
        .collect()
}

/// One line per `line` value of the mean of `value` against `delta_r_o`.
fn curves(rows: &[Row], line: &str, value: &str, name: impl Fn(&Value) -> String) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for (key, average, _) in means_by(rows, &[line, "delta_r_o"], value) {
        let label = name(&key[0]);
        let point = (key[1].number(), average);
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => series.push(Series::new(label, vec![point], Mode::Line)),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    series
}

/// A dashed horizontal guide at `y` across `delta_r_o` in `[0, right]`.
fn guide(label: &str, y: f64, right: f64) -> Series {
    Series::new(label, vec![(0.0, y), (right, y)], Mode::Guide)
}

/// The widest `delta_r_o` of the rows (the figures' x range).
fn right_edge(rows: &[Row]) -> f64 {
    rows.iter()
        .map(|r| cell(r, "delta_r_o").number())
        .fold(1.0, f64::max)
}

/// Panels of `p_group` and `m_group` against `delta_r_o`, one line per `line` value.
fn order_panels(rows: &[Row], line: &str, name: impl Fn(&Value) -> String + Copy) -> [Panel; 2] {
    let right = right_edge(rows);
    let panel = |value: &str, title: &str, guides: Vec<Series>| {
        let mut series = curves(rows, line, value, name);
        series.extend(guides);
        Panel {
            title: title.into(),
            x_label: "zone of orientation width delta r_o".into(),
            y_label: value.into(),
            x_range: (0.0, right),
            y_range: (0.0, 1.05),
            series,
        }
    };
    [
        panel(
            "p_group",
            "group polarization (mean over replicates)",
            vec![
                guide("highly parallel above 0.9", HIGHLY_PARALLEL, right),
                guide("parallel above 0.5", PARALLEL, right),
            ],
        ),
        panel(
            "m_group",
            "group angular momentum (mean over replicates)",
            vec![guide("torus above 0.5 (if not parallel)", MILLING, right)],
        ),
    ]
}

/// Figure of `couzin-phases`: the order parameters against `delta_r_o` for each `delta_r_a`,
/// and the plane with each point marked by the state its mean order parameters name.
pub fn phases_figure(rows: &[Row]) -> Figure {
    let drawn: Vec<Row> = rows
        .iter()
        .filter(|r| CURVES_AT.contains(&cell(r, "delta_r_a").number()))
        .cloned()
        .collect();
    let [p, m] = order_panels(&drawn, "delta_r_a", |v| format!("delta r_a = {v}"));
    let mut states: Vec<Series> = STATES
        .iter()
        .map(|s| Series::new(*s, Vec::new(), Mode::Scatter))
        .collect();
    let p_means = means_by(rows, &["delta_r_o", "delta_r_a"], "p_group");
    let m_means = means_by(rows, &["delta_r_o", "delta_r_a"], "m_group");
    for ((key, p, _), (_, m, _)) in p_means.iter().zip(&m_means) {
        let state = state_of(*p, *m);
        let series = states.iter_mut().find(|s| s.label == state);
        if let Some(series) = series {
            series.points.push((key[0].number(), key[1].number()));
        }
    }
    let top = rows
        .iter()
        .map(|r| cell(r, "delta_r_a").number())
        .fold(1.0, f64::max);
    let plane = Panel {
        title: "collective state (from the mean p_group and m_group)".into(),
        x_label: "zone of orientation width delta r_o".into(),
        y_label: "zone of attraction width delta r_a".into(),
        x_range: (-0.5, right_edge(rows) + 0.5),
        y_range: (-0.5, top + 0.5),
        series: states,
    };
    Figure {
        title: "Couzin et al. 2002: swarm, torus, dynamic and highly parallel groups (N = 100, 3D)"
            .into(),
        panels: vec![p, m, plane],
    }
}

/// Figure of `couzin-memory`: the order parameters along the path up and the path down.
pub fn memory_figure(rows: &[Row]) -> Figure {
    let [p, m] = order_panels(rows, "direction", |v| format!("delta r_o {v}"));
    Figure {
        title: format!(
            "Couzin et al. 2002: collective memory, delta r_o up then down (delta r_a = {MEMORY_DELTA_R_A})"
        ),
        panels: vec![m, p],
    }
}
