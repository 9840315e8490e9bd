//! The leadership experiments' figures: accuracy against the proportion informed (with the
//! proportion needed for an accuracy of 0.9), the conflict's outcomes and group directions
//! against the angle between the preferences, and the scouts' versions of both, as data built
//! from the tidy rows the runs wrote.

use std::collections::BTreeMap;

use crate::experiments::{Figure, Mode, Panel, Row, Series, Value, cell, mean};

/// Mean accuracy by group size and proportion informed, from the rows that have an accuracy:
/// for each `N` ascending, the points `(proportion, mean accuracy)` by ascending proportion.
pub fn accuracy_curves<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Vec<(i64, Vec<(f64, f64)>)> {
    let mut groups: BTreeMap<(i64, i64), (f64, Vec<f64>)> = BTreeMap::new();
    for row in rows {
        let accuracy = cell(row, "accuracy").number();
        if !accuracy.is_finite() {
            continue;
        }
        let n = cell(row, "group_size").number() as i64;
        let informed = cell(row, "informed").number() as i64;
        let entry = groups
            .entry((n, informed))
            .or_insert((cell(row, "proportion").number(), Vec::new()));
        entry.1.push(accuracy);
    }
    let mut curves: BTreeMap<i64, Vec<(f64, f64)>> = BTreeMap::new();
    for ((n, _), (p, values)) in groups {
        curves.entry(n).or_default().push((p, mean(values)));
    }
    curves.into_iter().collect()
}

/// The smallest proportion informed at which a curve reaches `level`, interpolated linearly
/// between its points (`None` if it never does).
pub fn required_proportion(curve: &[(f64, f64)], level: f64) -> Option<f64> {
    let mut previous: Option<(f64, f64)> = None;
    for &(p, a) in curve {
        if a >= level {
            return Some(match previous {
                Some((p0, a0)) if a > a0 => p0 + (p - p0) * (level - a0) / (a - a0),
                _ => p,
            });
        }
        previous = Some((p, a));
    }
    None
}

/// Accuracy level at which the required proportion is read off.
const LEVEL: f64 = 0.9;

fn accuracy_panels<'a>(rows: impl IntoIterator<Item = &'a Row>, what: &str) -> [Panel; 2] {
    let curves = accuracy_curves(rows);
    let series = curves
        .iter()
        .map(|(n, points)| Series::new(format!("N = {n}"), points.clone(), Mode::Line))
        .collect();
    let needed: Vec<(f64, f64)> = curves
        .iter()
        .map(|(n, points)| {
            (
                *n as f64,
                required_proportion(points, LEVEL).unwrap_or(f64::NAN),
            )
        })
        .collect();
    let max_n = needed.iter().map(|p| p.0).fold(10.0, f64::max);
    let lowest = curves
        .iter()
        .flat_map(|(_, points)| points.iter().map(|p| p.1))
        .filter(|a| a.is_finite())
        .fold(-0.2, f64::min);
    let bottom = if lowest < -0.2 { lowest - 0.05 } else { -0.2 };
    [
        Panel {
            title: format!("{what}: accuracy against proportion informed"),
            x_label: "proportion informed p".into(),
            y_label: "accuracy (mean cos of angle to g)".into(),
            x_range: (0.0, 0.5),
            y_range: (bottom, 1.05),
            series,
        },
        Panel {
            title: format!("{what}: proportion needed for accuracy {LEVEL}"),
            x_label: "group size N".into(),
            y_label: format!("p at accuracy {LEVEL}"),
            x_range: (0.0, max_n * 1.05),
            y_range: (0.0, 0.55),
            series: vec![Series::new("", needed, Mode::Line)],
        },
    ]
}

/// Figure of `couzin-accuracy`.
pub fn accuracy_figure(rows: &[Row]) -> Figure {
    Figure {
        title:
            "Couzin et al. 2005: larger groups need a smaller proportion of informed individuals"
                .into(),
        panels: accuracy_panels(rows, "Couzin model").into(),
    }
}

/// The subgroup configurations present in `rows`, in order of first appearance.
fn configurations<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Vec<(i64, i64)> {
    let mut seen = Vec::new();
    for row in rows {
        let key = (
            cell(row, "informed1").number() as i64,
            cell(row, "informed2").number() as i64,
        );
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen
}

/// Share of each outcome by angle, for the conflict rows of one configuration.
fn outcome_panel(rows: &[&Row], title: String, n1: i64, n2: i64) -> Panel {
    let mut by_theta: BTreeMap<i64, Vec<&'static str>> = BTreeMap::new();
    for row in rows {
        if let Value::Text(outcome) = cell(row, "outcome") {
            let theta = cell(row, "theta_deg").number();
            by_theta
                .entry((theta * 1000.0).round() as i64)
                .or_default()
                .push(outcome);
        }
    }
    let share = |name: &str| -> Vec<(f64, f64)> {
        by_theta
            .iter()
            .map(|(theta, outcomes)| {
                let count = outcomes.iter().filter(|o| **o == name).count();
                (*theta as f64 / 1000.0, count as f64 / outcomes.len() as f64)
            })
            .collect()
    };
    let (label1, label2) = if n1 == n2 {
        (
            format!("choice of subgroup 1 ({n1})"),
            format!("choice of subgroup 2 ({n2})"),
        )
    } else {
        (
            format!("choice of the majority ({n1})"),
            format!("choice of the minority ({n2})"),
        )
    };
    Panel {
        title,
        x_label: "angle between preferred directions (degrees)".into(),
        y_label: "share of runs".into(),
        x_range: (0.0, 180.0),
        y_range: (0.0, 1.05),
        series: vec![
            Series::new("compromise", share("compromise"), Mode::Line),
            Series::new(label1, share("choice1"), Mode::Line),
            Series::new(label2, share("choice2"), Mode::Line),
            Series::new("split", share("split"), Mode::Line),
            Series::new("other direction", share("other"), Mode::Line),
        ],
    }
}

/// The group directions of the unsplit runs against the angle, with the two preferred
/// directions and their average as guides.
fn direction_panel(rows: &[&Row], title: String) -> Panel {
    let points = rows
        .iter()
        .filter(|row| !matches!(cell(row, "outcome"), Value::Text("split")))
        .map(|row| {
            (
                cell(row, "theta_deg").number(),
                cell(row, "direction_deg").number(),
            )
        })
        .collect();
    Panel {
        title,
        x_label: "angle between preferred directions (degrees)".into(),
        y_label: "group direction (degrees from the average)".into(),
        x_range: (0.0, 180.0),
        y_range: (-100.0, 100.0),
        series: vec![
            Series::new(
                "preferred directions",
                vec![(0.0, 0.0), (180.0, 90.0)],
                Mode::Guide,
            ),
            Series::new("", vec![(0.0, 0.0), (180.0, -90.0)], Mode::Guide),
            Series::new("runs", points, Mode::Scatter),
        ],
    }
}

/// Figure of `couzin-conflict`.
pub fn conflict_figure(rows: &[Row]) -> Figure {
    let mut panels = Vec::new();
    for (n1, n2) in configurations(rows) {
        let subset: Vec<&Row> = rows
            .iter()
            .filter(|row| {
                cell(row, "informed1").number() as i64 == n1
                    && cell(row, "informed2").number() as i64 == n2
            })
            .collect();
        panels.push(direction_panel(
            &subset,
            format!("{n1} vs {n2} informed of 100: group direction"),
        ));
        panels.push(outcome_panel(
            &subset,
            format!("{n1} vs {n2} informed of 100: outcomes"),
            n1,
            n2,
        ));
    }
    Figure {
        title: "Couzin et al. 2005: compromise below a threshold angle, choice above".into(),
        panels,
    }
}

/// Figure of `scouts`.
pub fn scouts_figure(rows: &[Row]) -> Figure {
    let mut panels = Vec::new();
    let of = |question: &'static str, mode: &'static str| {
        rows.iter()
            .filter(move |row| {
                cell(row, "question") == &Value::Text(question)
                    && cell(row, "bias_mode") == &Value::Text(mode)
            })
            .collect::<Vec<&Row>>()
    };
    for mode in ["static", "dynamic"] {
        let [curves, _] = accuracy_panels(of("accuracy", mode), &format!("{mode} bias"));
        panels.push(curves);
    }
    for mode in ["static", "dynamic"] {
        let subset = of("conflict", mode);
        for (n1, n2) in configurations(subset.iter().copied()) {
            let config: Vec<&Row> = subset
                .iter()
                .copied()
                .filter(|row| {
                    cell(row, "informed1").number() as i64 == n1
                        && cell(row, "informed2").number() as i64 == n2
                })
                .collect();
            panels.push(outcome_panel(
                &config,
                format!("{mode} bias, {n1} vs {n2} scouts of 100"),
                n1,
                n2,
            ));
        }
    }
    Figure {
        title: "Seed 001's scouts asked Couzin's questions (Cornell rules, 640x480 torus)".into(),
        panels,
    }
}
