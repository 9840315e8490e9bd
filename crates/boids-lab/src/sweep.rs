//! Parameter sweeps: a grid of runs over one or more parameters, each run summarised by its
//! time-averaged [`Metrics`].
//!
//! An axis is written `KEY=A:B:STEPS` (STEPS evenly spaced numbers from A to B, rounded for
//! whole-number parameters) or `KEY=V1,V2,...` (any values, TOML syntax: `model=vicsek,couzin`).
//! The grid is the product of the axes; every point is built through [`ParamsBuilder`] with the
//! axis as its source, so a bad value is refused with the flag that asked for it. Replicate `r`
//! of every point uses seed `seed + r`: points are compared on the same initial flocks.

use std::collections::BTreeMap;

use boids_core::error::ParamsError;
use boids_core::metrics::{METRIC_COLUMNS, Metrics};
use boids_core::params::{Kind, ParamsBuilder, Raw, Source, Value, param_info, parse_value};
use boids_core::sim::Simulation;
use boids_core::{Dim, Dimension, Params, with_dimensions};

use crate::experiments::{self, MAX_REPLICATES, MAX_RUNS};

/// A `--vary` value that cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// The axis is not `KEY=A:B:STEPS` or `KEY=V1,V2,...`.
    #[error("--vary {spec}: {reason} (expected KEY=A:B:STEPS or KEY=V1,V2,...)")]
    BadAxis {
        /// The axis as typed.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// A grid point's parameters are invalid.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// Replicates out of range.
    #[error("replicates = {0} is not allowed: allowed range is [1, {MAX_REPLICATES}]")]
    Replicates(u32),
    /// More runs than [`MAX_RUNS`].
    #[error(
        "the sweep is {runs} runs ({points} grid points x {replicates} replicates): allowed at most {MAX_RUNS} runs (fewer values or replicates)"
    )]
    TooManyRuns {
        /// Grid points (saturating).
        points: u64,
        /// Replicates asked for.
        replicates: u32,
        /// Their product (saturating).
        runs: u64,
    },
}

/// One varied parameter and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Parameter name.
    pub key: &'static str,
    /// Its values, in order.
    pub values: Vec<Value>,
    /// Where the axis came from (a `--vary` flag, a Python `vary` argument): the source of
    /// its values, which messages about a refused grid point name.
    pub source: Source,
}

/// Largest number of values on one axis.
pub const MAX_STEPS: u64 = 10_000;

impl Axis {
    /// Reads `KEY=A:B:STEPS` or `KEY=V1,V2,...`.
    pub fn parse(spec: &str) -> Result<Axis, SweepError> {
        let bad = |reason: String| SweepError::BadAxis {
            spec: spec.to_owned(),
            reason,
        };
        let (key, rest) = spec.split_once('=').ok_or_else(|| bad("no `=`".into()))?;
        let key = key.trim();
        let info = param_info(key).ok_or_else(|| bad(format!("unknown parameter `{key}`")))?;
        let parts: Vec<&str> = rest.split(':').map(str::trim).collect();
        let values = match parts.as_slice() {
            [a, b, steps] => {
                let number = |s: &str| match parse_value(s) {
                    Raw::Integer(i) => Ok(i as f64),
                    Raw::Float(x) if x.is_finite() => Ok(x),
                    _ => Err(bad(format!("`{s}` is not a finite number"))),
                };
                let (a, b) = (number(a)?, number(b)?);
                let steps: u64 = steps
                    .parse()
                    .ok()
                    .filter(|s| (1..=MAX_STEPS).contains(s))
                    .ok_or_else(|| {
                        bad(format!(
                            "STEPS = `{steps}` must be a whole number in [1, {MAX_STEPS}]"
                        ))
                    })?;
                let at = |k: u64| {
                    if steps == 1 {
                        a
                    } else {
                        a + (b - a) * k as f64 / (steps - 1) as f64
                    }
                };
                let mut values: Vec<Value> = (0..steps)
                    .map(|k| match info.kind {
                        Kind::Integer { .. } => Value::Integer(at(k).round().max(0.0) as u64),
                        _ => Value::Number(at(k)),
                    })
                    .collect();
                values.dedup();
                values
            }
            [list] => list
                .split(',')
                .map(|v| {
                    info.kind
                        .read(&parse_value(v.trim()))
                        .map_err(|expected| bad(format!("`{}` is not {expected}", v.trim())))
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(bad("a range needs exactly A:B:STEPS".into())),
        };
        if values.is_empty() {
            return Err(bad("no values".into()));
        }
        Ok(Axis {
            key: info.name,
            values,
            source: Source::Flag(format!("--vary {spec}")),
        })
    }
}

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// The value of each axis at this grid point, in axis order.
    pub point: Vec<Value>,
    /// Replicate number.
    pub replicate: u32,
    /// Seed of the random streams.
    pub seed: u64,
    /// Validated parameters.
    pub params: Params,
}

/// Every run of the grid: points in row-major order (the last axis varies fastest), then
/// replicates. Replicates beyond [`MAX_REPLICATES`], or more than [`MAX_RUNS`] runs, are
/// refused before any run is planned.
pub fn plan(
    base: &ParamsBuilder,
    axes: &[Axis],
    replicates: u32,
    seed: u64,
) -> Result<Vec<SweepRun>, SweepError> {
    if !(1..=MAX_REPLICATES).contains(&replicates) {
        return Err(SweepError::Replicates(replicates));
    }
    let points = axes
        .iter()
        .fold(1u64, |n, axis| n.saturating_mul(axis.values.len() as u64));
    let runs = points.saturating_mul(u64::from(replicates));
    if runs > MAX_RUNS {
        return Err(SweepError::TooManyRuns {
            points,
            replicates,
            runs,
        });
    }
    let mut points: Vec<Vec<Value>> = vec![Vec::new()];
    for axis in axes {
        points = points
            .into_iter()
            .flat_map(|point| {
                axis.values.iter().map(move |v| {
                    let mut next = point.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    let mut runs = Vec::new();
    for point in points {
        let mut builder = base.clone();
        for (axis, value) in axes.iter().zip(&point) {
            builder.set(axis.key, value.clone(), axis.source.clone());
        }
        let params = builder.build()?;
        for replicate in 0..replicates {
            runs.push(SweepRun {
                point: point.clone(),
                replicate,
                seed: seed + u64::from(replicate),
                params: params.clone(),
            });
        }
    }
    Ok(runs)
}

/// The column of a sweep's row that marks a run whose flock diverged: the step refused (its
/// number, counting from 1), empty for a run that reached its last step.
pub const DIVERGED_COLUMN: &str = "diverged_at_step";

/// The columns of a sweep's rows, the CSV of `boids sweep` and the frame of Python's
/// `boids.sweep` alike: `run`, `replicate`, `seed`, the axes' keys, the metrics' time
/// averages ([`METRIC_COLUMNS`]), then [`DIVERGED_COLUMN`].
pub fn columns(axes: &[Axis]) -> Vec<&'static str> {
    ["run", "replicate", "seed"]
        .into_iter()
        .chain(axes.iter().map(|a| a.key))
        .chain(METRIC_COLUMNS)
        .chain([DIVERGED_COLUMN])
        .collect()
}

/// What one run of a sweep gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Each metric's time average, in [`METRIC_COLUMNS`] order (`NaN` where undefined).
    pub averages: Vec<f64>,
    /// The step refused because the flock would not have stayed finite (counting from 1),
    /// which ended the run: its averages are over the samples before it, `NaN` where there are
    /// none. `None` for a run that reached its last step.
    pub diverged_at: Option<u64>,
}

/// Runs `run` for `steps` and averages each metric (in [`METRIC_COLUMNS`] order) over the
/// states at steps `from, from + every, ...` up to `steps`; undefined values (`NaN`) are left
/// out of an average, which is `NaN` only when every sample was undefined. A step refused as
/// the flock diverges ends the run ([`Summary::diverged_at`]).
/// The run is in the dimensions of its parameters (a sweep may vary `dimensions` too).
pub fn time_averaged(run: &SweepRun, steps: u64, every: u64, from: u64) -> Summary {
    let (samples, diverged_at) = with_dimensions!(run.params.dimensions, D, {
        let sim = Simulation::<D>::new(run.params.clone(), run.seed)
            .expect("validated parameters build a flock");
        sampled_metrics(sim, steps, every, from)
    });
    Summary {
        averages: (0..METRIC_COLUMNS.len())
            .map(|c| experiments::mean(samples.iter().map(|s| s[c])))
            .collect(),
        diverged_at,
    }
}

/// The metrics of `sim` at steps `from, from + every, ...` up to `steps`, until a step is
/// refused (the flock would not stay finite): that step's number ends the run.
fn sampled_metrics<const D: usize>(
    mut sim: Simulation<D>,
    steps: u64,
    every: u64,
    from: u64,
) -> (Vec<[f64; METRIC_COLUMNS.len()]>, Option<u64>)
where
    Dim<D>: Dimension<D>,
{
    let mut samples = Vec::new();
    for k in 0..=steps {
        if k > 0 && sim.step().is_err() {
            return (samples, Some(k));
        }
        if k >= from && (k - from).is_multiple_of(every.max(1)) {
            samples.push(Metrics::of(&sim).values());
        }
    }
    (samples, None)
}

/// A two-parameter heatmap: the mean of one metric over replicates at each grid point.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    /// Parameter on the x axis and its values.
    pub x: (String, Vec<Value>),
    /// Parameter on the y axis and its values.
    pub y: (String, Vec<Value>),
    /// The metric.
    pub metric: String,
    /// `cells[iy][ix]`: mean over replicates (`NaN` when undefined).
    pub cells: Vec<Vec<f64>>,
}

/// The heatmap of `metric` (a column index into each run's averages) over the first two axes.
pub fn heatmap(axes: &[Axis], runs: &[SweepRun], summaries: &[Summary], metric: usize) -> Heatmap {
    let mut sums: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
    let index = |axis: &Axis, v: &Value| axis.values.iter().position(|x| x == v).unwrap_or(0);
    for (run, summary) in runs.iter().zip(summaries) {
        let ix = index(&axes[0], &run.point[0]);
        let iy = index(&axes[1], &run.point[1]);
        sums.entry((ix, iy))
            .or_default()
            .push(summary.averages[metric]);
    }
    let cells = (0..axes[1].values.len())
        .map(|iy| {
            (0..axes[0].values.len())
                .map(|ix| {
                    sums.get(&(ix, iy))
                        .map_or(f64::NAN, |v| experiments::mean(v.iter().copied()))
                })
                .collect()
        })
        .collect();
    Heatmap {
        x: (axes[0].key.to_owned(), axes[0].values.clone()),
        y: (axes[1].key.to_owned(), axes[1].values.clone()),
        metric: METRIC_COLUMNS[metric].to_owned(),
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_read_ranges_and_lists() {
        let a = Axis::parse("bias=0:0.01:3").unwrap();
        assert_eq!(a.key, "bias");
        assert_eq!(
            a.values,
            vec![
                Value::Number(0.0),
                Value::Number(0.005),
                Value::Number(0.01)
            ]
        );
        let a = Axis::parse("count=10:20:4").unwrap();
        assert_eq!(a.values, [10, 13, 17, 20].map(Value::Integer).to_vec());
        let a = Axis::parse("model=vicsek,couzin").unwrap();
        assert_eq!(a.values[1], Value::Choice("couzin"));
        assert_eq!(Axis::parse("noise=1:2:1").unwrap().values.len(), 1);
        for bad in [
            "bias",
            "bias=0:1",
            "bias=0:1:0",
            "bias=a:1:3",
            "nope=1:2:3",
            "model=boids,flocking",
            "dynamic_bias=1",
        ] {
            let err = Axis::parse(bad).unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
    }

    #[test]
    fn grid_is_the_product_and_bad_points_name_their_flag() {
        let base = ParamsBuilder::preset("vicsek").unwrap();
        let axes = [
            Axis::parse("noise=0:1:2").unwrap(),
            Axis::parse("count=10,20,30").unwrap(),
        ];
        let runs = plan(&base, &axes, 2, 5).unwrap();
        assert_eq!(runs.len(), 12);
        assert_eq!(runs[0].seed, 5);
        assert_eq!(runs[1].seed, 6);
        assert_eq!(runs[2].params.count, 20);
        assert_eq!(runs[11].params.noise, 1.0);
        let err = plan(&base, &[Axis::parse("noise=-1:1:3").unwrap()], 1, 0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--vary noise=-1:1:3") && err.contains("allowed"),
            "{err}"
        );
    }

    #[test]
    fn replicates_and_runs_beyond_the_caps_are_refused_before_planning() {
        let base = ParamsBuilder::preset("vicsek").unwrap();
        let axes = [Axis::parse("noise=0:1:1000").unwrap()];
        let err = plan(&base, &axes, 1_000_000_000, 0)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "replicates = 1000000000 is not allowed: allowed range is [1, 100000]"
        );
        let err = plan(&base, &axes, 101, 0).unwrap_err().to_string();
        assert_eq!(
            err,
            "the sweep is 101000 runs (1000 grid points x 101 replicates): allowed at most 100000 runs (fewer values or replicates)"
        );
        assert_eq!(plan(&base, &axes, 100, 0).unwrap().len(), 100_000);
    }

    #[test]
    fn heatmap_averages_replicates_per_cell() {
        let base = ParamsBuilder::preset("vicsek").unwrap();
        let axes = [
            Axis::parse("noise=0,1").unwrap(),
            Axis::parse("count=10,20,30").unwrap(),
        ];
        let runs = plan(&base, &axes, 2, 0).unwrap();
        let summaries: Vec<Summary> = (0..runs.len())
            .map(|k| Summary {
                averages: vec![k as f64; METRIC_COLUMNS.len()],
                diverged_at: None,
            })
            .collect();
        let map = heatmap(&axes, &runs, &summaries, 0);
        assert_eq!(map.cells.len(), 3);
        // noise 0, count 10: runs 0 and 1; noise 1, count 30: runs 10 and 11.
        assert_eq!(map.cells[0][0], 0.5);
        assert_eq!(map.cells[2][1], 10.5);
        assert_eq!(map.metric, "polarization");
    }

    #[test]
    fn time_averages_skip_the_burn_in() {
        let base = ParamsBuilder::preset("vicsek")
            .unwrap()
            .apply_toml(
                "count = 50\nworld_width = 3.5\nworld_height = 3.5\nnoise = 0.0",
                "t",
            )
            .unwrap();
        let runs = plan(&base, &[Axis::parse("noise=0").unwrap()], 1, 0).unwrap();
        let late = time_averaged(&runs[0], 200, 10, 150).averages;
        let all = time_averaged(&runs[0], 200, 10, 0).averages;
        // Without noise the flock orders: the late average is higher than one over the start.
        assert!(late[0] > all[0], "{late:?} {all:?}");
        assert!((late[2] - 0.03).abs() < 1e-6, "speed v0: {}", late[2]);
    }

    #[test]
    fn a_sweep_over_dimensions_runs_each_flock_in_its_own() {
        let base = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 60", "t")
            .unwrap();
        let runs = plan(&base, &[Axis::parse("dimensions=2,3").unwrap()], 1, 0).unwrap();
        let [flat, deep] = [0, 1].map(|k| time_averaged(&runs[k], 20, 10, 0).averages);
        let speed = |m: &[f64]| {
            m[METRIC_COLUMNS
                .iter()
                .position(|c| *c == "mean_speed")
                .unwrap()]
        };
        // The start draws z and vz too in 3D: the same seed, another flock.
        assert_ne!(speed(&flat), speed(&deep));
        assert!(deep.iter().take(3).all(|m| m.is_finite()), "{deep:?}");
    }

    #[test]
    fn time_averages_count_the_captures_of_each_sampled_step() {
        let base = ParamsBuilder::preset("predator").unwrap();
        let runs = plan(&base, &[Axis::parse("flee_factor=0").unwrap()], 1, 0).unwrap();
        let averages = time_averaged(&runs[0], 300, 1, 0).averages;
        let column = |name| METRIC_COLUMNS.iter().position(|c| *c == name).unwrap();
        assert!(averages[column("captures")] > 0.0, "{averages:?}");
        assert!(averages[column("predator_distance")].is_finite());
    }

    #[test]
    fn a_run_that_diverges_names_the_step_refused_and_averages_what_came_before() {
        let base = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 50\nmax_speed = inf\nboundary = \"torus\"", "t")
            .unwrap();
        let axis = Axis::parse("matching_factor=0.05,1e3").unwrap();
        let runs = plan(&base, &[axis], 1, 0).unwrap();
        let [calm, wild] = [0, 1].map(|k| time_averaged(&runs[k], 100, 1, 0));
        assert_eq!(calm.diverged_at, None);
        let refused = wild.diverged_at.expect("matching_factor = 1000 diverges");
        assert!((2..=100).contains(&refused), "{refused}");
        let speed = METRIC_COLUMNS
            .iter()
            .position(|c| *c == "mean_speed")
            .unwrap();
        assert!(wild.averages[speed].is_finite(), "{wild:?}");
        let late = time_averaged(&runs[1], 100, 1, refused);
        assert_eq!(late.diverged_at, Some(refused));
        assert!(late.averages.iter().all(|m| m.is_nan()), "{late:?}");
        let names = columns(&[Axis::parse("noise=0,1").unwrap()]);
        assert_eq!(
            names[..5],
            ["run", "replicate", "seed", "noise", METRIC_COLUMNS[0]]
        );
        assert_eq!(names.last(), Some(&DIVERGED_COLUMN));
    }
}
