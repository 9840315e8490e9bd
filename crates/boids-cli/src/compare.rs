//! `boids bench --compare OTHER`: times this build and another `boids` binary on the same
//! workload, interleaved, and prints the ratio with its spread.
//!
//! A machine's speed drifts (other work, temperature, frequency), so two builds timed one after
//! the other can differ by more than the change being measured. Here each round runs both builds
//! once, as separate processes with the same flags, in the order ABBA (this, other; other,
//! this; ...), so a drift that favours whichever runs first or second cancels over two rounds.
//! Each round gives one ratio of the two step-time medians; the report is the median of those
//! per-round ratios with their least and greatest, and each build's median with its spread. A
//! ratio from one pair of runs is noise; one whose spread excludes 1 is a difference.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use boids_core::Stage;
use serde_json::{Value, json};

use crate::bench_child;

/// The flags of `boids bench` that only the comparing process reads: they are not passed on.
const OWN_FLAGS: [&str; 2] = ["--compare", "--rounds"];

/// One build's report in one round: the median step time and the stages' medians (ms).
struct Timed {
    median_ms: f64,
    stages_ms: Vec<(String, f64)>,
}

/// Runs the comparison: `rounds` rounds of this binary against `other`, each run with the bench
/// flags as given, less the comparison's own; prints JSON if `json_out`.
pub fn run(other: &Path, rounds: u32, json_out: bool) -> Result<()> {
    let this = std::env::current_exe().context("cannot locate this boids binary")?;
    let args = bench_child::forwarded_args(&OWN_FLAGS, &["--json"]);
    check_runs(other)?;
    let binaries = [this, other.to_path_buf()];
    let (mut mine, mut theirs, mut first) = (Vec::new(), Vec::new(), None);
    for round in 0..rounds {
        // ABBA: this build first in even rounds, second in odd ones.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut results: [Option<Timed>; 2] = [None, None];
        for k in order {
            let report = bench_child::report(&binaries[k], &args)?;
            results[k] = Some(timed(&binaries[k], &report)?);
            first.get_or_insert(report);
        }
        let [Some(this_round), Some(other_round)] = results else {
            unreachable!("both builds ran");
        };
        eprintln!(
            "round {}/{rounds}: this {:.3} ms, other {:.3} ms",
            round + 1,
            this_round.median_ms,
            other_round.median_ms
        );
        mine.push(this_round);
        theirs.push(other_round);
    }
    let [this, other] = binaries;
    let report = Comparison {
        this,
        other,
        workload: first.unwrap_or(Value::Null),
        mine,
        theirs,
    };
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report.json())?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

/// Refuses an `other` that is not an executable file, before any timing.
fn check_runs(other: &Path) -> Result<()> {
    let meta = std::fs::metadata(other).with_context(|| {
        format!(
            "--compare {}: no such file (give the path of another boids binary)",
            other.display()
        )
    })?;
    if !meta.is_file() {
        bail!(
            "--compare {}: not a file (give the path of another boids binary)",
            other.display()
        );
    }
    Ok(())
}

/// The step-time median and stages of `report`, printed by `binary` (a build older than the
/// named stages reports its three as `phases_ms`).
fn timed(binary: &Path, report: &Value) -> Result<Timed> {
    let median_ms = report["ms_per_step"]["median"]
        .as_f64()
        .with_context(|| format!("{}'s report has no ms_per_step.median", binary.display()))?;
    let stages_ms = report["stages_ms"]
        .as_object()
        .or_else(|| report["phases_ms"].as_object())
        .map(|stages| {
            stages
                .iter()
                .filter_map(|(name, ms)| Some((name.clone(), ms.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    Ok(Timed {
        median_ms,
        stages_ms,
    })
}

/// Median, least and greatest of `values` (not empty).
fn spread(values: &[f64]) -> [f64; 3] {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    [median, sorted[0], sorted[n - 1]]
}

/// Both builds' timings, round by round.
struct Comparison {
    this: PathBuf,
    other: PathBuf,
    /// The first report, for the workload's description.
    workload: Value,
    mine: Vec<Timed>,
    theirs: Vec<Timed>,
}

impl Comparison {
    /// Other's step time over this one's, per round.
    fn ratios(&self) -> Vec<f64> {
        self.mine
            .iter()
            .zip(&self.theirs)
            .map(|(mine, theirs)| theirs.median_ms / mine.median_ms)
            .collect()
    }

    fn medians(timed: &[Timed]) -> Vec<f64> {
        timed.iter().map(|t| t.median_ms).collect()
    }

    /// Each stage's median over the rounds, in the step's order.
    fn stages(timed: &[Timed]) -> Vec<(String, f64)> {
        let Some(first) = timed.first() else {
            return Vec::new();
        };
        let mut names: Vec<&String> = first.stages_ms.iter().map(|(name, _)| name).collect();
        names.sort_by_key(|name| Stage::ALL.iter().position(|stage| stage.name() == *name));
        names
            .into_iter()
            .map(|name| {
                let values: Vec<f64> = timed
                    .iter()
                    .filter_map(|t| t.stages_ms.iter().find(|(n, _)| n == name).map(|p| p.1))
                    .collect();
                (name.clone(), spread(&values)[0])
            })
            .collect()
    }

    fn json(&self) -> Value {
        let build = |path: &Path, timed: &[Timed]| {
            let [median, min, max] = spread(&Self::medians(timed));
            json!({
                "binary": path.display().to_string(),
                "ms_per_step": { "median": median, "min": min, "max": max },
                "per_round_ms": Self::medians(timed),
                "stages_ms": Self::stages(timed)
                    .into_iter()
                    .map(|(name, ms)| (name, json!(ms)))
                    .collect::<serde_json::Map<_, _>>(),
            })
        };
        let [median, min, max] = spread(&self.ratios());
        json!({
            "rounds": self.mine.len(),
            "order": "ABBA",
            "workload": self.workload,
            "this": build(&self.this, &self.mine),
            "other": build(&self.other, &self.theirs),
            "ratio_other_over_this": { "median": median, "min": min, "max": max,
                "per_round": self.ratios() },
        })
    }

    fn table(&self) -> String {
        let w = &self.workload;
        let capacity = match w["parallel_capacity"].as_f64() {
            Some(c) => format!(" (parallel capacity {c:.2}x at the first run)"),
            None => String::new(),
        };
        let mut out = format!(
            "W3 {}D: {} rules, {} boids, {} threads{capacity}, {} measured steps; {} rounds interleaved ABBA\n",
            w["dimensions"],
            w["preset"].as_str().unwrap_or("?"),
            w["count"],
            w["threads"],
            w["steps"],
            self.mine.len()
        );
        let stage_list = |timed: &[Timed]| {
            Self::stages(timed)
                .iter()
                .map(|(name, ms)| format!("{name} {ms:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (label, path, timed) in [
            ("this", &self.this, &self.mine),
            ("other", &self.other, &self.theirs),
        ] {
            let [median, min, max] = spread(&Self::medians(timed));
            out.push_str(&format!(
                "{label:<6} {median:.3} ms/step median of rounds (min {min:.3}, max {max:.3}); stages {}  [{}]\n",
                stage_list(timed),
                path.display()
            ));
        }
        let [median, min, max] = spread(&self.ratios());
        let verdict = if min > 1.0 {
            format!(
                "this build is faster in every round ({:.1}% by the median)",
                (median - 1.0) * 100.0
            )
        } else if max < 1.0 {
            format!(
                "the other build is faster in every round ({:.1}% by the median)",
                (1.0 / median - 1.0) * 100.0
            )
        } else {
            "no difference beyond the rounds' spread".to_owned()
        };
        out.push_str(&format!(
            "ratio  other/this {median:.3} median of per-round ratios (min {min:.3}, max {max:.3}): {verdict}\n"
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_is_the_median_and_extremes() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), [2.0, 1.0, 3.0]);
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]), [2.5, 1.0, 4.0]);
    }
}
