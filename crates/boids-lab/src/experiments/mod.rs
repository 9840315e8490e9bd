//! Experiments that reproduce published collective-motion results, and parameter sweeps.
//!
//! An experiment is a [`Plan`]: a list of independent runs ([`RunSpec`]: validated parameters,
//! seed, steps, what to measure). [`run_all`] runs them in parallel across cores (each run is
//! deterministic, so the results do not depend on the thread count) and returns one tidy
//! [`Row`] per run: the experiment's parameters, the replicate and seed, then the metrics.
//! [`figure`] summarises the rows into the published figure's axes ([`Figure`]), which the
//! `boids` command draws. Nothing here reads or writes files.
//!
//! | name | reproduces |
//! |---|---|
//! | `couzin-accuracy` | Couzin et al. 2005: accuracy against the proportion informed, by group size |
//! | `couzin-conflict` | Couzin et al. 2005: compromise or choice between two informed subgroups |
//! | `couzin-memory` | Couzin et al. 2002: collective memory, the zone of orientation widened then narrowed |
//! | `couzin-phases` | Couzin et al. 2002: swarm, torus and parallel groups over the plane of zone widths |
//! | `predator` | the dilution effect (Hamilton 1971; Foster & Treherne 1981) and the worth of fleeing |
//! | `scouts` | both questions asked of seed 001's scout bias (static and dynamic) |
//! | `vicsek` | Vicsek et al. 1995, Fig. 2a: order parameter against noise at density 4 |

mod figure;
mod leadership;
mod predator;
mod vicsek;
mod zones;

pub use figure::{Figure, Mode, Panel, Series};
pub use leadership::{Outcome, accuracy_curves, classify, required_proportion};
pub use zones::{HIGHLY_PARALLEL, MILLING, PARALLEL, Path, state_of};

use std::fmt;

use glam::DVec2;

use boids_core::metrics::{self, polarization};
use boids_core::neighbors::Neighbors;
use boids_core::params::Params;
use boids_core::sim::Simulation;
use boids_core::state::FlockState;
use boids_core::{Dim, Dimension};

/// The experiments and what each reproduces.
pub const EXPERIMENTS: [(&str, &str); 7] = [
    (
        "couzin-accuracy",
        "Couzin et al. 2005: accuracy of group direction against the proportion informed, N = 10..200",
    ),
    (
        "couzin-conflict",
        "Couzin et al. 2005: two informed subgroups theta apart, compromise below a threshold angle, choice above",
    ),
    (
        "couzin-memory",
        "Couzin et al. 2002: delta r_o widened from 0 then narrowed from 8 (delta r_a = 14), the flock carried along: torus going up, parallel coming down",
    ),
    (
        "couzin-phases",
        "Couzin et al. 2002: p_group and m_group over the plane of zone widths (delta r_o, delta r_a), N = 100 in 3D: swarm, torus, dynamic and highly parallel",
    ),
    (
        "predator",
        "Hamilton 1971, Foster & Treherne 1981: per-capita capture rate against flock size N = 10..1000 (dilution), and capture rate against flee_factor",
    ),
    (
        "scouts",
        "the same two questions asked of seed 001's scout bias, static and dynamic",
    ),
    (
        "vicsek",
        "Vicsek et al. 1995 Fig. 2a: order parameter v_a against noise eta at density 4 for several N",
    ),
];

/// How big an experiment is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// The reduced version that runs in seconds (for CI).
    pub quick: bool,
    /// Replicates per parameter point (`None`: the experiment's default).
    pub replicates: Option<u32>,
    /// Steps per run (`None`: the experiment's default); measurement windows shrink to fit.
    pub steps: Option<u64>,
    /// Base seed: replicate `r` uses seed `seed + r`, the same at every parameter point, so
    /// points are compared on the same initial flocks.
    pub seed: u64,
}

/// A cell of a result row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A number (`NaN` where undefined).
    Num(f64),
    /// A category.
    Text(&'static str),
    /// Not applicable to this row.
    Empty,
}

impl Value {
    /// The value as a number (`NaN` for text and empty cells).
    pub fn number(&self) -> f64 {
        match self {
            Value::Int(i) => *i as f64,
            Value::Num(x) => *x,
            Value::Text(_) | Value::Empty => f64::NAN,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Num(x) => write!(f, "{x}"),
            Value::Text(s) => f.write_str(s),
            Value::Empty => Ok(()),
        }
    }
}

/// One run's row: named cells, the same names in the same order for every row of a plan.
pub type Row = Vec<(&'static str, Value)>;

/// The value of column `name` in `row` (`Empty` when absent).
pub fn cell<'a>(row: &'a Row, name: &str) -> &'a Value {
    row.iter()
        .find(|(n, _)| *n == name)
        .map_or(&Value::Empty, |(_, v)| v)
}

/// What a run measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Task {
    /// Direction of travel of the group's centroid over the last `window` steps, judged against
    /// the preferred direction of scout group 1 (leadership accuracy).
    Accuracy {
        /// Steps at the end over which the centroid's displacement is measured.
        window: u64,
    },
    /// Direction of travel over the last `window` steps, classified against two preferred
    /// directions `+theta/2` and `-theta/2` ([`classify`]).
    Conflict {
        /// Steps at the end over which the centroid's displacement is measured.
        window: u64,
        /// Angle between the two preferred directions (radians).
        theta: f64,
    },
    /// Time average of the order parameter from step `from` to the end.
    Order {
        /// First step of the average.
        from: u64,
    },
    /// Captures by predators in the steps after step `from` (the warm-up) to the end.
    Captures {
        /// Last step of the warm-up.
        from: u64,
    },
    /// Couzin 2002's group polarization and angular momentum, averaged from step `from` to
    /// the end (a 3D flock).
    Zones {
        /// First step of the average.
        from: u64,
    },
    /// Couzin 2002's order parameters at the end of a path of zone widths (a 3D flock).
    Memory {
        /// The values of `delta_r_o` the run passes through.
        path: Path,
    },
}

/// One run of a plan.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Validated parameters.
    pub params: Params,
    /// Seed of the random streams.
    pub seed: u64,
    /// Steps to run.
    pub steps: u64,
    /// The experiment's parameter columns (replicate included), in column order.
    pub labels: Row,
    /// What to measure.
    pub task: Task,
}

/// The runs of one experiment.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The experiment's name.
    pub name: &'static str,
    /// Its runs, in row order.
    pub runs: Vec<RunSpec>,
}

/// Most replicates per parameter point an experiment or a sweep takes.
pub const MAX_REPLICATES: u32 = 100_000;

/// Most runs in one experiment or sweep: each is planned (its parameters held) before any
/// runs, so the plan's memory is bounded (about 0.1 GB), and at a second a run this many take
/// over a day on two cores.
pub const MAX_RUNS: u64 = 100_000;

/// Why an experiment cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// No experiment has this name.
    #[error(
        "unknown experiment `{0}`; valid experiments: couzin-accuracy, couzin-conflict, couzin-memory, couzin-phases, predator, scouts, vicsek"
    )]
    Unknown(String),
    /// Replicates out of range.
    #[error("replicates = {0} is not allowed: allowed range is [1, {MAX_REPLICATES}]")]
    Replicates(u32),
    /// More runs than [`MAX_RUNS`].
    #[error(
        "{experiment} with replicates = {replicates} is {runs} runs ({points} parameter points x {replicates}): allowed at most {MAX_RUNS} runs (fewer replicates)"
    )]
    TooManyRuns {
        /// The experiment.
        experiment: &'static str,
        /// Its parameter points.
        points: u64,
        /// Replicates asked for.
        replicates: u32,
        /// Their product.
        runs: u64,
    },
}

/// The runs of experiment `name`; replicates beyond [`MAX_REPLICATES`], or a plan of more than
/// [`MAX_RUNS`] runs, are refused before any run is planned.
pub fn plan(name: &str, options: &Options) -> Result<Plan, PlanError> {
    let Some(replicates) = options.replicates else {
        return planned(name, options);
    };
    if !(1..=MAX_REPLICATES).contains(&replicates) {
        return Err(PlanError::Replicates(replicates));
    }
    let one = planned(
        name,
        &Options {
            replicates: Some(1),
            ..*options
        },
    )?;
    let points = one.runs.len() as u64;
    let runs = points * u64::from(replicates);
    if runs > MAX_RUNS {
        return Err(PlanError::TooManyRuns {
            experiment: one.name,
            points,
            replicates,
            runs,
        });
    }
    planned(name, options)
}

/// The runs of experiment `name` as `options` ask.
fn planned(name: &str, options: &Options) -> Result<Plan, PlanError> {
    let (name, runs) = match name {
        "couzin-accuracy" => ("couzin-accuracy", leadership::couzin_accuracy(options)),
        "couzin-conflict" => ("couzin-conflict", leadership::couzin_conflict(options)),
        "couzin-memory" => ("couzin-memory", zones::memory(options)),
        "couzin-phases" => ("couzin-phases", zones::phases(options)),
        "predator" => ("predator", predator::plan(options)),
        "scouts" => ("scouts", leadership::scouts(options)),
        "vicsek" => ("vicsek", vicsek::plan(options)),
        other => return Err(PlanError::Unknown(other.to_owned())),
    };
    Ok(Plan { name, runs })
}

/// Runs every run of `plan` (in parallel when the `parallel` feature is on) and returns their
/// rows in plan order. `done` is called after each run (for a progress bar).
pub fn run_all(plan: &Plan, done: &(dyn Fn() + Sync)) -> Vec<Row> {
    par_map(&plan.runs, |index, spec| {
        let row = run_one(index, spec);
        done();
        row
    })
}

/// `f(index, item)` for every item, one task per item (runs are long and uneven, so rayon
/// balances them item by item), in parallel when the `parallel` feature is on; results in item
/// order.
pub fn par_map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(usize, &T) -> R + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().enumerate().map(|(i, t)| f(i, t)).collect()
    }
    #[cfg(not(feature = "parallel"))]
    items.iter().enumerate().map(|(i, t)| f(i, t)).collect()
}

/// Runs one run: its row is `run`, the labels, `seed`, `steps`, then the metrics.
pub fn run_one(index: usize, spec: &RunSpec) -> Row {
    let mut row: Row = vec![("run", Value::Int(index as i64))];
    row.extend(spec.labels.iter().cloned());
    row.push(("seed", Value::Int(spec.seed as i64)));
    row.push(("steps", Value::Int(spec.steps as i64)));
    row.extend(match spec.task {
        Task::Accuracy { window } | Task::Conflict { window, .. } => {
            let travel = travel(&mut plane(spec), spec.steps, window);
            leadership::measure(spec, &travel)
        }
        Task::Order { from } => vicsek::measure(&mut plane(spec), spec.steps, from),
        Task::Captures { from } => predator::measure(&mut plane(spec), spec.steps, from),
        Task::Zones { from } => zones::measure_phase(spec, from),
        Task::Memory { path } => zones::measure_memory(spec, &path),
    });
    row
}

/// The flock of a two-dimensional run.
fn plane(spec: &RunSpec) -> Simulation {
    Simulation::<2>::new(spec.params.clone(), spec.seed)
        .expect("experiment flocks are small and valid")
}

/// How a group travelled at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Travel {
    /// Mean velocity of the flock over the window: in an open world the centroid's
    /// displacement divided by the time, and still meaningful on a torus.
    pub velocity: DVec2,
    /// Share of the flock in its largest group (boids linked by chains within visual range).
    pub largest_share: f64,
    /// Polarization at the end.
    pub polarization: f64,
}

/// Runs `sim` for `steps` and measures the flock's mean velocity over the last `window` steps
/// (each boid moves by its new velocity, so in an open world this is the centroid's
/// displacement over the window divided by its duration).
fn travel(sim: &mut Simulation, steps: u64, window: u64) -> Travel {
    let window = window.clamp(1, steps.max(1));
    let mut sum = DVec2::ZERO;
    for k in 1..=steps {
        // The experiments' presets keep the flock finite; a refused step would end the run.
        if sim.step().is_err() {
            break;
        }
        if k + window > steps {
            sum += sim
                .velocities()
                .iter()
                .fold(DVec2::ZERO, |s, v| s + v.as_dvec2());
        }
    }
    let end = sim.state();
    Travel {
        velocity: sum / (window as f64 * end.len() as f64),
        largest_share: largest_share(sim.params(), &end),
        polarization: polarization::<2>(&end.velocities),
    }
}

/// Share of the flock in its largest group: boids linked by chains of neighbours within the
/// visual range (whatever the field of view or topological k): the largest component of the
/// core's union-find ([`metrics::component_sizes`]).
pub fn largest_share<const D: usize>(params: &Params, state: &FlockState<D>) -> f64
where
    Dim<D>: Dimension<D>,
{
    let neighbors = Neighbors::of_state(params, state);
    let sizes = metrics::component_sizes(state.len(), |i, link| {
        neighbors.for_each_neighbor(i, |j, _| link(j));
    });
    sizes.into_iter().max().unwrap_or(0) as f64 / state.len() as f64
}

/// The summary figure of experiment `name` from its rows.
pub fn figure(name: &str, rows: &[Row]) -> Result<Figure, PlanError> {
    match name {
        "couzin-accuracy" => Ok(leadership::accuracy_figure(rows)),
        "couzin-conflict" => Ok(leadership::conflict_figure(rows)),
        "couzin-memory" => Ok(zones::memory_figure(rows)),
        "couzin-phases" => Ok(zones::phases_figure(rows)),
        "predator" => Ok(predator::figure(rows)),
        "scouts" => Ok(leadership::scouts_figure(rows)),
        "vicsek" => Ok(vicsek::figure(rows)),
        other => Err(PlanError::Unknown(other.to_owned())),
    }
}

/// `preset` with `n` individuals on a square world of side `side`, started uniformly over it.
fn on_square(preset: &str, n: usize, side: f64) -> Params {
    Params {
        count: n,
        world_width: side,
        world_height: side,
        init_x: [0.0, side],
        init_y: [0.0, side],
        ..Params::preset(preset).expect("experiment presets are valid")
    }
}

/// Mean of the finite values (`NaN` when there are none).
pub fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, count) = values
        .into_iter()
        .filter(|x| x.is_finite())
        .fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
    if count == 0 {
        f64::NAN
    } else {
        sum / count as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boids_core::rules::group;
    use glam::Vec2;

    #[test]
    fn largest_share_counts_chains_within_visual_range() {
        let p = Params::preset("couzin").unwrap();
        // A chain 0-1-2 (links of 5 < rho = 6), and 3 far away.
        let state: FlockState = FlockState {
            positions: vec![
                Vec2::ZERO,
                Vec2::new(5.0, 0.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(100.0, 0.0),
            ],
            velocities: vec![Vec2::X; 4],
            groups: vec![group::NONE; 4],
            biases: vec![0.0; 4],
            ..FlockState::default()
        };
        assert_eq!(largest_share(&p, &state), 0.75);
        assert!((polarization::<2>(&state.velocities) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn every_named_experiment_plans_valid_runs() {
        for (name, _) in EXPERIMENTS {
            for quick in [true, false] {
                let options = Options {
                    quick,
                    replicates: None,
                    steps: None,
                    seed: 0,
                };
                let plan = plan(name, &options).unwrap();
                assert!(!plan.runs.is_empty());
                for run in &plan.runs {
                    run.params.validate().unwrap();
                    assert_eq!(
                        run.labels.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
                        plan.runs[0]
                            .labels
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                    );
                }
            }
        }
        let options = Options {
            quick: true,
            replicates: None,
            steps: None,
            seed: 0,
        };
        assert!(plan("nope", &options).is_err());
    }

    #[test]
    fn replicates_and_runs_beyond_the_caps_are_refused_before_planning() {
        let asking = |replicates| Options {
            quick: false,
            replicates: Some(replicates),
            steps: None,
            seed: 0,
        };
        for replicates in [0, MAX_REPLICATES + 1, 1_000_000] {
            let err = plan("vicsek", &asking(replicates)).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("replicates = {replicates} is not allowed: allowed range is [1, 100000]")
            );
        }
        // couzin-phases has 256 points: 400 replicates are 102,400 runs, over the cap.
        let err = plan("couzin-phases", &asking(400)).unwrap_err().to_string();
        assert_eq!(
            err,
            "couzin-phases with replicates = 400 is 102400 runs (256 parameter points x 400): allowed at most 100000 runs (fewer replicates)"
        );
        assert_eq!(
            plan("couzin-phases", &asking(390)).unwrap().runs.len(),
            99_840
        );
    }
}
