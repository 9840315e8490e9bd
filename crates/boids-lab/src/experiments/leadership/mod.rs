//! Leadership and consensus (Couzin, Krause, Franks and Levin, Nature 433, 513, 2005), asked of
//! Couzin's model and of seed 001's scout bias.
//!
//! **Accuracy.** A group of `N` with `n = pN` informed individuals (scout group 1, preferred
//! direction `g` = +x) starts as one compact, unaligned group. After the run, the group's
//! direction is its mean velocity over the last `window` steps (in the open plane, the
//! centroid's displacement), and the run's
//! accuracy is `cos` of the angle between that direction and `g` (1: straight along `g`; about 0
//! on average for a random direction). The published finding: accuracy rises with `p`, and the
//! larger the group, the smaller the *proportion* informed needed for a given accuracy (about
//! half at N = 10, under 5 % at N = 200).
//!
//! **Conflict.** Two informed subgroups of `n1` and `n2` prefer directions `+theta/2` and
//! `-theta/2` (their average is +x). Each run is classified ([`classify`]) as a compromise (the
//! group goes closer to the average direction than to either preference), a choice of one
//! subgroup's direction, a split (the largest group holds less than [`SPLIT_BELOW`] of the
//! flock), or another direction (more than [`TOLERANCE_DEG`] from all three). The published finding: compromise below a threshold angle, choice above it, and the
//! larger subgroup's direction chosen when the subgroups differ in size.
//!
//! **Scouts.** The same two questions with seed 001's own mechanism: the Cornell rules, scout
//! group 1 and 2 biased by `vx = (1 - b) vx + b` along their preferred directions, with a static
//! bias (the seed's ECE 4760 version, b = 0.001) or the dynamic one (ECE 5730: b grows to 0.01
//! while a scout heads its preferred way). The seed's 640x480 screen becomes a torus: its turning
//! margins would reverse every flock, so a direction of travel would mean nothing.
//!
//! The runs, their parameters and what each measures are here; the figures over their rows
//! are in `figures.rs`.

use std::f64::consts::PI;

mod figures;

pub use figures::{
    accuracy_curves, accuracy_figure, conflict_figure, required_proportion, scouts_figure,
};

use super::{Options, Row, RunSpec, Task, Travel, Value, cell};
use boids_core::params::{Boundary, Params};

/// A run whose largest group holds less than this share of the flock has split.
pub const SPLIT_BELOW: f64 = 0.8;

/// A group direction further than this (degrees) from the average and from both preferred
/// directions counts as neither compromise nor choice: the group went elsewhere.
pub const TOLERANCE_DEG: f64 = 30.0;

/// How a conflict run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Closer to the average of the two preferred directions than to either.
    Compromise,
    /// Closer to subgroup 1's preferred direction.
    Choice1,
    /// Closer to subgroup 2's preferred direction.
    Choice2,
    /// The flock broke up (or did not move).
    Split,
    /// Far from the average and from both preferences.
    Other,
}

impl Outcome {
    /// The name written to the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Compromise => "compromise",
            Outcome::Choice1 => "choice1",
            Outcome::Choice2 => "choice2",
            Outcome::Split => "split",
            Outcome::Other => "other",
        }
    }
}

/// Classifies a conflict run: `direction` is the group's direction relative to the average
/// preferred direction (radians), the preferences lie at `+theta/2` (subgroup 1) and
/// `-theta/2` (subgroup 2), and `largest_share` is the share of the flock in its largest group.
/// The nearest of the three directions wins if it is within `TOLERANCE_DEG`; a tie goes to
/// the compromise (at `theta = 0` the three are one).
pub fn classify(direction: f64, theta: f64, largest_share: f64) -> Outcome {
    if !direction.is_finite() || largest_share < SPLIT_BELOW {
        return Outcome::Split;
    }
    let to_average = wrap_angle(direction).abs();
    let to_1 = wrap_angle(direction - theta / 2.0).abs();
    let to_2 = wrap_angle(direction + theta / 2.0).abs();
    if to_average.min(to_1).min(to_2) > TOLERANCE_DEG.to_radians() {
        Outcome::Other
    } else if to_average <= to_1.min(to_2) {
        Outcome::Compromise
    } else if to_1 <= to_2 {
        Outcome::Choice1
    } else {
        Outcome::Choice2
    }
}

/// An angle wrapped into `[-pi, pi)`.
fn wrap_angle(a: f64) -> f64 {
    (a + PI).rem_euclid(2.0 * PI) - PI
}

/// How many runs, how long.
struct Size {
    replicates: u32,
    steps: u64,
    window: u64,
}

impl Size {
    fn pick(options: &Options, quick: Size, full: Size) -> Size {
        let mut size = if options.quick { quick } else { full };
        if let Some(r) = options.replicates {
            size.replicates = r;
        }
        if let Some(steps) = options.steps {
            size.steps = steps;
            size.window = size.window.min(steps / 2);
        }
        size
    }
}

/// The group sizes of the published figure.
const SIZES: [usize; 5] = [10, 30, 50, 100, 200];
/// Proportions informed, 0 to 0.5.
const PROPORTIONS: [f64; 9] = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5];
/// Angles between the preferred directions, 0 to 180 degrees.
const THETAS: [f64; 10] = [
    0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0, 140.0, 160.0, 180.0,
];
/// Informed subgroup sizes of the conflict runs in a group of 100: equal, then unequal.
const SUBGROUPS: [(usize, usize); 2] = [(5, 5), (6, 4)];

/// Couzin's model with `n` individuals in one compact, unaligned group (mean spacing 2, about
/// twice the zone of repulsion, so every individual starts with neighbours within rho).
fn couzin_group(n: usize) -> Params {
    Params {
        scout_group1_fraction: 0.0,
        ..super::on_square("couzin", n, 2.0 * (n as f64).sqrt())
    }
}

/// Seed 001's Cornell rules with `n` boids starting in one compact group (mean spacing 12 px,
/// between the protected range 8 and the visual range 40) on the seed's 640x480 screen made a
/// torus: no turning margins.
fn cornell_group(n: usize, dynamic: bool) -> Params {
    let side = 12.0 * (n as f64).sqrt();
    Params {
        count: n,
        boundary: Boundary::Torus,
        init_x: [0.0, side],
        init_y: [0.0, side],
        scout_group1_fraction: 0.0,
        scout_group2_fraction: 0.0,
        dynamic_bias: dynamic,
        ..Params::preset("cornell").expect("preset cornell is valid")
    }
}

/// Makes the first `n1` ids scouts of group 1 and the next `n2` of group 2 (exact counts).
fn with_scouts(params: Params, n1: usize, n2: usize) -> Params {
    let n = params.count as f64;
    Params {
        scout_group1_fraction: n1 as f64 / n,
        scout_group2_fraction: n2 as f64 / n,
        ..params
    }
}

fn informed_count(n: usize, p: f64) -> usize {
    (p * n as f64).round() as usize
}

/// `couzin-accuracy`: group sizes x proportions informed x replicates.
pub fn couzin_accuracy(options: &Options) -> Vec<RunSpec> {
    let size = Size::pick(
        options,
        Size {
            replicates: 12,
            steps: 600,
            window: 150,
        },
        Size {
            replicates: 40,
            steps: 1500,
            window: 250,
        },
    );
    let (sizes, proportions): (&[usize], &[f64]) = if options.quick {
        (&[10, 100], &[0.0, 0.1, 0.2, 0.5])
    } else {
        (&SIZES, &PROPORTIONS)
    };
    let mut runs = Vec::new();
    for &n in sizes {
        for &p in proportions {
            let informed = informed_count(n, p);
            for r in 0..size.replicates {
                runs.push(RunSpec {
                    params: with_scouts(couzin_group(n), informed, 0),
                    seed: options.seed + u64::from(r),
                    steps: size.steps,
                    labels: accuracy_labels(n, informed, r),
                    task: Task::Accuracy {
                        window: size.window,
                    },
                });
            }
        }
    }
    runs
}

fn accuracy_labels(n: usize, informed: usize, replicate: u32) -> Row {
    vec![
        ("group_size", Value::Int(n as i64)),
        ("informed", Value::Int(informed as i64)),
        ("proportion", Value::Num(informed as f64 / n as f64)),
        ("replicate", Value::Int(i64::from(replicate))),
    ]
}

/// `couzin-conflict`: subgroup sizes x angles x replicates, in a group of 100.
pub fn couzin_conflict(options: &Options) -> Vec<RunSpec> {
    let size = Size::pick(
        options,
        Size {
            replicates: 12,
            steps: 1500,
            window: 250,
        },
        Size {
            replicates: 30,
            steps: 2000,
            window: 250,
        },
    );
    let thetas: &[f64] = if options.quick {
        &[40.0, 160.0]
    } else {
        &THETAS
    };
    let mut runs = Vec::new();
    for &(n1, n2) in &SUBGROUPS {
        for &theta in thetas {
            for r in 0..size.replicates {
                runs.push(RunSpec {
                    params: conflict_params(couzin_group(100), n1, n2, theta),
                    seed: options.seed + u64::from(r),
                    steps: size.steps,
                    labels: conflict_labels(100, n1, n2, theta, r),
                    task: Task::Conflict {
                        window: size.window,
                        theta: theta.to_radians(),
                    },
                });
            }
        }
    }
    runs
}

fn conflict_params(params: Params, n1: usize, n2: usize, theta_deg: f64) -> Params {
    let half = theta_deg.to_radians() / 2.0;
    Params {
        preferred_angle1: half,
        preferred_angle2: -half,
        ..with_scouts(params, n1, n2)
    }
}

fn conflict_labels(n: usize, n1: usize, n2: usize, theta: f64, replicate: u32) -> Row {
    vec![
        ("group_size", Value::Int(n as i64)),
        ("informed1", Value::Int(n1 as i64)),
        ("informed2", Value::Int(n2 as i64)),
        ("theta_deg", Value::Num(theta)),
        ("replicate", Value::Int(i64::from(replicate))),
    ]
}

/// `scouts`: both questions, static and dynamic bias.
pub fn scouts(options: &Options) -> Vec<RunSpec> {
    let size = Size::pick(
        options,
        Size {
            replicates: 6,
            steps: 1500,
            window: 300,
        },
        Size {
            replicates: 20,
            steps: 3000,
            window: 500,
        },
    );
    let (sizes, proportions, thetas): (&[usize], &[f64], &[f64]) = if options.quick {
        (&[10, 100], &[0.0, 0.5], &[20.0, 160.0])
    } else {
        (&SIZES, &PROPORTIONS, &THETAS)
    };
    let mut runs = Vec::new();
    for (mode, dynamic) in [("static", false), ("dynamic", true)] {
        for &n in sizes {
            for &p in proportions {
                let informed = informed_count(n, p);
                for r in 0..size.replicates {
                    runs.push(RunSpec {
                        params: with_scouts(cornell_group(n, dynamic), informed, 0),
                        seed: options.seed + u64::from(r),
                        steps: size.steps,
                        labels: scouts_labels("accuracy", mode, accuracy_labels(n, informed, r)),
                        task: Task::Accuracy {
                            window: size.window,
                        },
                    });
                }
            }
        }
        for &(n1, n2) in &SUBGROUPS {
            for &theta in thetas {
                for r in 0..size.replicates {
                    runs.push(RunSpec {
                        params: conflict_params(cornell_group(100, dynamic), n1, n2, theta),
                        seed: options.seed + u64::from(r),
                        steps: size.steps,
                        labels: scouts_labels(
                            "conflict",
                            mode,
                            conflict_labels(100, n1, n2, theta, r),
                        ),
                        task: Task::Conflict {
                            window: size.window,
                            theta: theta.to_radians(),
                        },
                    });
                }
            }
        }
    }
    runs
}

/// The scouts experiment's columns: every column of both questions, empty where a question
/// does not have it.
fn scouts_labels(question: &'static str, mode: &'static str, labels: Row) -> Row {
    let mut row: Row = vec![
        ("question", Value::Text(question)),
        ("bias_mode", Value::Text(mode)),
    ];
    for name in [
        "group_size",
        "informed",
        "proportion",
        "informed1",
        "informed2",
        "theta_deg",
        "replicate",
    ] {
        row.push((name, cell(&labels, name).clone()));
    }
    row
}

/// The metrics of a leadership run from its travel. Every run has the same columns; the ones
/// its task does not define are empty.
pub fn measure(spec: &RunSpec, travel: &Travel) -> Row {
    let d = travel.velocity;
    let direction = if d.length() > 0.0 {
        d.y.atan2(d.x)
    } else {
        f64::NAN
    };
    let (relative, deviation, accuracy, outcome) = match spec.task {
        Task::Accuracy { .. } => {
            let deviation = wrap_angle(direction - spec.params.preferred_angle1).abs();
            (
                direction,
                Value::Num(deviation.to_degrees()),
                Value::Num(deviation.cos()),
                Value::Empty,
            )
        }
        Task::Conflict { theta, .. } => (
            direction,
            Value::Empty,
            Value::Empty,
            Value::Text(classify(direction, theta, travel.largest_share).name()),
        ),
        Task::Order { .. } | Task::Captures { .. } | Task::Zones { .. } | Task::Memory { .. } => {
            unreachable!("order, capture and zone runs are measured by their own modules")
        }
    };
    vec![
        ("direction_deg", Value::Num(relative.to_degrees())),
        ("deviation_deg", deviation),
        ("accuracy", accuracy),
        ("outcome", outcome),
        ("group_speed", Value::Num(d.length())),
        ("largest_group", Value::Num(travel.largest_share)),
        ("polarization", Value::Num(travel.polarization)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_by_nearest_of_average_and_preferences() {
        let theta = 100f64.to_radians();
        let deg = f64::to_radians;
        assert_eq!(classify(deg(5.0), theta, 1.0), Outcome::Compromise);
        assert_eq!(classify(deg(48.0), theta, 1.0), Outcome::Choice1);
        assert_eq!(classify(deg(-55.0), theta, 0.95), Outcome::Choice2);
        assert_eq!(classify(deg(48.0), theta, 0.6), Outcome::Split);
        assert_eq!(classify(f64::NAN, theta, 1.0), Outcome::Split);
        // Boundary between compromise and choice 1 at theta / 4 = 25 degrees.
        assert_eq!(classify(deg(24.0), theta, 1.0), Outcome::Compromise);
        assert_eq!(classify(deg(26.0), theta, 1.0), Outcome::Choice1);
        // Opposite preferences: +x is the compromise, +-90 degrees the choices; straight back
        // is none of them.
        assert_eq!(classify(deg(100.0), PI, 1.0), Outcome::Choice1);
        assert_eq!(classify(deg(170.0), PI, 1.0), Outcome::Other);
        assert_eq!(
            classify(deg(-60.0), 40f64.to_radians(), 1.0),
            Outcome::Other
        );
        assert_eq!(
            classify(deg(-40.0), 40f64.to_radians(), 1.0),
            Outcome::Choice2
        );
        assert_eq!(classify(deg(0.0), 0.0, 1.0), Outcome::Compromise);
    }

    #[test]
    fn accuracy_curves_average_replicates_and_required_proportion_interpolates() {
        let row = |n: i64, informed: i64, accuracy: f64| -> Row {
            vec![
                ("group_size", Value::Int(n)),
                ("informed", Value::Int(informed)),
                ("proportion", Value::Num(informed as f64 / n as f64)),
                ("accuracy", Value::Num(accuracy)),
            ]
        };
        let rows = [
            row(10, 0, 0.1),
            row(10, 0, -0.1),
            row(10, 5, 0.8),
            row(10, 5, 1.0),
            row(100, 0, 0.0),
            row(100, 10, 0.95),
            row(100, 10, f64::NAN),
        ];
        let curves = accuracy_curves(&rows);
        assert_eq!(curves[0], (10, vec![(0.0, 0.0), (0.5, 0.9)]));
        assert_eq!(curves[1], (100, vec![(0.0, 0.0), (0.1, 0.95)]));
        let p = required_proportion(&curves[0].1, 0.45).unwrap();
        assert!((p - 0.25).abs() < 1e-12);
        assert_eq!(required_proportion(&curves[0].1, 0.95), None);
    }
}
