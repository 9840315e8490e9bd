//! The Vicsek phase transition (Vicsek et al., PRL 75, 1226, 1995, Fig. 2a).
//!
//! `N` particles on a torus of side `L = sqrt(N / 4)` (density 4), radius 1, speed 0.03; for
//! each noise amplitude `eta` in `[0, 5]`, the order parameter `v_a = |sum v_i| / (N v0)` is
//! averaged over the second half of the run. The published finding: `v_a` near 1 at low noise,
//! falling toward 0 at high noise (for uncorrelated headings its expected value is
//! `sqrt(pi) / (2 sqrt(N))`, about `1 / sqrt(N)`), the drop sharpening as `N` grows.

use std::collections::BTreeMap;

use super::{Figure, Mode, Options, Panel, Row, RunSpec, Series, Task, Value, cell, mean};
use boids_core::params::Params;
use boids_core::sim::Simulation;

/// Density of the published figure.
const DENSITY: f64 = 4.0;

/// Vicsek's model with `n` particles at density 4 and noise `eta`.
fn params(n: usize, eta: f64) -> Params {
    Params {
        noise: eta,
        ..super::on_square("vicsek", n, (n as f64 / DENSITY).sqrt())
    }
}

/// `vicsek`: sizes x noise amplitudes x replicates.
pub fn plan(options: &Options) -> Vec<RunSpec> {
    let (sizes, etas, replicates, steps): (&[usize], Vec<f64>, u32, u64) = if options.quick {
        (&[40, 400], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1, 1000)
    } else {
        (
            &[40, 100, 400, 1600],
            (0..=20).map(|k| f64::from(k) * 0.25).collect(),
            3,
            4000,
        )
    };
    let replicates = options.replicates.unwrap_or(replicates);
    let steps = options.steps.unwrap_or(steps);
    let mut runs = Vec::new();
    for &n in sizes {
        for &eta in &etas {
            for r in 0..replicates {
                runs.push(RunSpec {
                    params: params(n, eta),
                    seed: options.seed + u64::from(r),
                    steps,
                    labels: vec![
                        ("count", Value::Int(n as i64)),
                        ("side", Value::Num((n as f64 / DENSITY).sqrt())),
                        ("eta", Value::Num(eta)),
                        ("replicate", Value::Int(i64::from(r))),
                    ],
                    task: Task::Order { from: steps / 2 },
                });
            }
        }
    }
    runs
}

/// Runs `sim` to `steps`, averaging `v_a` over steps `from..=steps`.
pub fn measure(sim: &mut Simulation, steps: u64, from: u64) -> Row {
    let mut values = Vec::new();
    for k in 1..=steps {
        // A refused step (the flock would not stay finite) ends the average.
        if sim.step().is_err() {
            break;
        }
        if k >= from {
            values.push(super::polarization::<2>(sim.velocities()));
        }
    }
    let average = mean(values.iter().copied());
    let spread = (mean(values.iter().map(|v| (v - average).powi(2)))).sqrt();
    vec![
        ("order", Value::Num(average)),
        ("order_sd", Value::Num(spread)),
        (
            "order_final",
            Value::Num(*values.last().unwrap_or(&f64::NAN)),
        ),
    ]
}

/// Mean order parameter by size and noise: for each `N` ascending, `(eta, mean v_a)`.
pub fn order_curves(rows: &[Row]) -> Vec<(i64, Vec<(f64, f64)>)> {
    let mut groups: BTreeMap<(i64, i64), Vec<f64>> = BTreeMap::new();
    for row in rows {
        let n = cell(row, "count").number() as i64;
        let eta = (cell(row, "eta").number() * 1e6).round() as i64;
        groups
            .entry((n, eta))
            .or_default()
            .push(cell(row, "order").number());
    }
    let mut curves: BTreeMap<i64, Vec<(f64, f64)>> = BTreeMap::new();
    for ((n, eta), values) in groups {
        curves
            .entry(n)
            .or_default()
            .push((eta as f64 / 1e6, mean(values)));
    }
    curves.into_iter().collect()
}

/// Figure of `vicsek`.
pub fn figure(rows: &[Row]) -> Figure {
    let mut series = Vec::new();
    for (n, points) in order_curves(rows) {
        series.push(Series::new(format!("N = {n}"), points, Mode::Line));
    }
    for (n, _) in order_curves(rows) {
        let random = (std::f64::consts::PI).sqrt() / (2.0 * (n as f64).sqrt());
        series.push(Series::new(
            format!("random headings, N = {n}"),
            vec![(0.0, random), (5.0, random)],
            Mode::Guide,
        ));
    }
    Figure {
        title: "Vicsek et al. 1995: order parameter against noise at density 4".into(),
        panels: vec![Panel {
            title: "time-averaged v_a (second half of each run)".into(),
            x_label: "noise eta".into(),
            y_label: "order parameter v_a".into(),
            x_range: (0.0, 5.0),
            y_range: (0.0, 1.05),
            series,
        }],
    }
}
