//! The published trends, checked on the `--quick` experiments run by the `boids` binary, and the
//! sweep command end to end.
//!
//! The experiments take seconds in a release binary and minutes in a debug one, so a debug test
//! build first builds the release binary (`cargo build --release`) and runs that. Every run is
//! deterministic (fixed seeds), and the tolerances were chosen so that the trends pass for
//! other seeds too (checked with `--seed 1000` and `--seed 2000`), while a model that lost the
//! trend (informed individuals ignored, noise not applied, ...) fails.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

// The thresholds that name Couzin 2002's states (boids_lab's `zones` module gives their
// source): highly parallel above p_group 0.9, parallel above 0.5, a torus above m_group 0.5
// when not parallel.
use boids_lab::experiments::{HIGHLY_PARALLEL, MILLING, PARALLEL, state_of};

/// The release `boids` binary.
fn boids() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_boids"));
        if !cfg!(debug_assertions) {
            return exe;
        }
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "boids-cli", "--bin", "boids"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build --release failed");
        let target = exe
            .parent()
            .and_then(Path::parent)
            .expect("binary lives in target/debug");
        target
            .join("release")
            .join(exe.file_name().expect("binary name"))
    })
}

fn run(args: &[&str]) -> Output {
    Command::new(boids())
        .args(args)
        .output()
        .expect("boids runs")
}

type Record = HashMap<String, String>;

/// Runs `boids experiment NAME --quick` into a temporary directory and reads its CSV; checks
/// that the plot was written beside it.
fn experiment(name: &str, extra: &[&str]) -> Vec<Record> {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join(format!("{name}.csv"));
    let mut args = vec![
        "experiment",
        name,
        "--quick",
        "--out",
        csv.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(csv.with_extension("png")).expect("plot written beside the CSV");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    read_csv(&csv)
}

fn read_csv(path: &Path) -> Vec<Record> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

fn num(record: &Record, key: &str) -> f64 {
    record[key].parse().unwrap_or(f64::NAN)
}

/// Mean of `key` over the records that match every `(column, value)` filter.
fn mean_where(records: &[Record], key: &str, filters: &[(&str, &str)]) -> f64 {
    let values: Vec<f64> = records
        .iter()
        .filter(|r| filters.iter().all(|(k, v)| r[*k] == *v))
        .map(|r| num(r, key))
        .collect();
    assert!(!values.is_empty(), "no rows for {filters:?}");
    values.iter().sum::<f64>() / values.len() as f64
}

/// Share of records matching `filters` whose outcome is one of `outcomes`.
fn share(records: &[Record], outcomes: &[&str], filters: &[(&str, &str)]) -> f64 {
    let matching: Vec<&Record> = records
        .iter()
        .filter(|r| filters.iter().all(|(k, v)| r[*k] == *v))
        .collect();
    assert!(!matching.is_empty(), "no rows for {filters:?}");
    let hits = matching
        .iter()
        .filter(|r| outcomes.contains(&r["outcome"].as_str()))
        .count();
    hits as f64 / matching.len() as f64
}

#[test]
fn couzin_accuracy_rises_with_p_and_larger_groups_need_a_smaller_proportion() {
    let rows = experiment("couzin-accuracy", &[]);
    assert_eq!(rows.len(), 2 * 4 * 12);
    let acc = |n: &str, informed: &str| {
        mean_where(
            &rows,
            "accuracy",
            &[("group_size", n), ("informed", informed)],
        )
    };
    for (n, half) in [("10", "5"), ("100", "50")] {
        assert!(
            acc(n, half) > 0.9,
            "N = {n}: accuracy at p = 0.5 {}",
            acc(n, half)
        );
        assert!(
            acc(n, half) - acc(n, "0") > 0.5,
            "N = {n}: accuracy does not rise with p"
        );
    }
    // p = 0.1: one informed individual of 10 against ten of 100.
    let (small, large) = (acc("10", "1"), acc("100", "10"));
    assert!(large > 0.9, "N = 100, p = 0.1: {large}");
    assert!(large - small > 0.15, "N = 10: {small}, N = 100: {large}");
}

#[test]
fn couzin_conflict_compromise_below_threshold_choice_above_majority_wins() {
    let rows = experiment("couzin-conflict", &[]);
    let compromise_40 = share(&rows, &["compromise"], &[("theta_deg", "40")]);
    let compromise_160 = share(&rows, &["compromise"], &[("theta_deg", "160")]);
    let choice_160 = share(&rows, &["choice1", "choice2"], &[("theta_deg", "160")]);
    assert!(
        compromise_40 > 0.45,
        "compromise at 40 degrees: {compromise_40}"
    );
    assert!(choice_160 > 0.6, "choice at 160 degrees: {choice_160}");
    assert!(compromise_40 - compromise_160 > 0.3);
    let unequal = [("theta_deg", "160"), ("informed1", "6"), ("informed2", "4")];
    let majority = share(&rows, &["choice1"], &unequal);
    let minority = share(&rows, &["choice2"], &unequal);
    assert!(
        majority > 0.5 && majority >= 2.0 * minority,
        "majority {majority}, minority {minority}"
    );
}

#[test]
fn vicsek_order_near_one_at_low_noise_and_toward_one_over_sqrt_n_at_high_noise() {
    let rows = experiment("vicsek", &[]);
    let order = |n: &str, eta: &str| mean_where(&rows, "order", &[("count", n), ("eta", eta)]);
    for n in ["40", "400"] {
        let root_n = n.parse::<f64>().unwrap().sqrt();
        assert!(order(n, "0") > 0.95, "N = {n}, eta = 0: {}", order(n, "0"));
        assert!(order(n, "1") > order(n, "3") && order(n, "3") > order(n, "5"));
        assert!(
            order(n, "5") < 2.0 / root_n,
            "N = {n}, eta = 5: {} against 1/sqrt(N) = {}",
            order(n, "5"),
            1.0 / root_n
        );
    }
    // The drop is sharper for the larger flock.
    assert!(order("400", "4") < order("40", "4") - 0.1);
}

/// Standard deviation of `key` over the records that match every filter.
fn sd_where(records: &[Record], key: &str, filters: &[(&str, &str)]) -> f64 {
    let average = mean_where(records, key, filters);
    let squares: Vec<f64> = records
        .iter()
        .filter(|r| filters.iter().all(|(k, v)| r[*k] == *v))
        .map(|r| (num(r, key) - average).powi(2))
        .collect();
    (squares.iter().sum::<f64>() / squares.len() as f64).sqrt()
}

#[test]
fn couzin_phases_swarm_torus_and_parallel_where_the_paper_finds_them() {
    let rows = experiment("couzin-phases", &[]);
    let at = |key: &str, delta_r_o: &str| {
        mean_where(&rows, key, &[("delta_r_o", delta_r_o), ("delta_r_a", "14")])
    };
    // Swarm at delta r_o = 0 (no zone of orientation): neither aligned nor milling.
    let (p, m) = (at("p_group", "0"), at("m_group", "0"));
    assert!(p < PARALLEL && m < MILLING, "swarm: p {p}, m {m}");
    // Torus for a narrow zone of orientation in a wide zone of attraction.
    let (p, m) = (at("p_group", "2"), at("m_group", "2"));
    assert!(p < PARALLEL && m > MILLING, "torus: p {p}, m {m}");
    // A highly parallel group for a wide zone of orientation.
    let (p, m) = (at("p_group", "10"), at("m_group", "10"));
    assert!(p > HIGHLY_PARALLEL && m < MILLING, "parallel: p {p}, m {m}");
    // Each row names the state its own order parameters are in.
    for row in &rows {
        let (p, m) = (num(row, "p_group"), num(row, "m_group"));
        assert_eq!(row["state"], state_of(p, m), "{row:?}");
    }
}

#[test]
fn couzin_memory_the_path_taken_decides_between_torus_and_parallel() {
    let rows = experiment("couzin-memory", &[]);
    // Both paths visit every value of delta r_o.
    let values: Vec<&str> = ["0", "1", "2", "3", "4", "5"].into();
    for direction in ["increasing", "decreasing"] {
        for v in &values {
            mean_where(
                &rows,
                "m_group",
                &[("direction", direction), ("delta_r_o", v)],
            );
        }
    }
    // Hysteresis: at some delta r_o the group reached from below mills and the group reached
    // from above does not, beyond the replicates' spread.
    let split: Vec<(&str, f64, f64)> = values
        .iter()
        .map(|v| {
            let up = [("direction", "increasing"), ("delta_r_o", *v)];
            let down = [("direction", "decreasing"), ("delta_r_o", *v)];
            let gap = mean_where(&rows, "m_group", &up) - mean_where(&rows, "m_group", &down);
            let spread = sd_where(&rows, "m_group", &up) + sd_where(&rows, "m_group", &down);
            (*v, gap, spread)
        })
        .collect();
    let remembered: Vec<&(&str, f64, f64)> = split
        .iter()
        .filter(|(_, gap, spread)| *gap > *spread)
        .collect();
    assert!(!remembered.is_empty(), "no hysteresis: {split:?}");
    for (v, ..) in remembered {
        let up = [("direction", "increasing"), ("delta_r_o", *v)];
        let down = [("direction", "decreasing"), ("delta_r_o", *v)];
        assert!(
            mean_where(&rows, "m_group", &up) > MILLING,
            "{v}: {split:?}"
        );
        assert!(
            mean_where(&rows, "p_group", &down) > PARALLEL,
            "{v}: {split:?}"
        );
    }
    // Both ends agree: a swarm at delta r_o = 0, a parallel group at 5.
    for direction in ["increasing", "decreasing"] {
        let p0 = mean_where(
            &rows,
            "p_group",
            &[("direction", direction), ("delta_r_o", "0")],
        );
        let p5 = mean_where(
            &rows,
            "p_group",
            &[("direction", direction), ("delta_r_o", "5")],
        );
        assert!(
            p0 < PARALLEL && p5 > HIGHLY_PARALLEL,
            "{direction}: {p0}, {p5}"
        );
    }
}

#[test]
fn scouts_asks_both_questions_with_both_biases() {
    let rows = experiment("scouts", &[]);
    for question in ["accuracy", "conflict"] {
        for mode in ["static", "dynamic"] {
            let n = rows
                .iter()
                .filter(|r| r["question"] == question && r["bias_mode"] == mode)
                .count();
            assert_eq!(n, 24, "{question} {mode}");
        }
    }
    for r in &rows {
        if r["question"] == "accuracy" {
            assert!(num(r, "accuracy").abs() <= 1.0 + 1e-12 && r["outcome"].is_empty());
        } else {
            assert!(
                ["compromise", "choice1", "choice2", "split", "other"]
                    .contains(&r["outcome"].as_str())
            );
        }
    }
}

#[test]
fn experiment_results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let outputs: Vec<Vec<u8>> = ["1", "2"]
        .iter()
        .map(|threads| {
            let csv = dir.path().join(format!("t{threads}.csv"));
            let out = run(&[
                "experiment",
                "couzin-conflict",
                "--quick",
                "--steps",
                "120",
                "--replicates",
                "2",
                "--threads",
                threads,
                "--out",
                csv.to_str().unwrap(),
            ]);
            assert!(out.status.success());
            std::fs::read(&csv).unwrap()
        })
        .collect();
    assert_eq!(outputs[0], outputs[1]);
}

/// A run whose flock diverges (its step refused as the flock would not stay finite) is marked
/// with the step refused, and the sweep says so on stderr; the other rows are as ever.
#[test]
fn a_diverged_run_is_marked_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("wild.csv");
    let out = run(&[
        "sweep",
        "--preset",
        "cornell",
        "--count",
        "50",
        "--vary",
        "matching_factor=0.05,1e3",
        "--set",
        "max_speed=inf",
        "--set",
        "boundary=\"torus\"",
        "--steps",
        "100",
        "--out",
        csv.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rows = read_csv(&csv);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["diverged_at_step"], "");
    assert!(rows[0]["polarization"].parse::<f64>().unwrap().is_finite());
    let step = &rows[1]["diverged_at_step"];
    assert!(step.parse::<u64>().is_ok_and(|k| k > 0), "{step:?}");
    assert!(
        stderr.contains(&format!(
            "warning: 1 of 2 runs diverged: a step was refused because the flock would not stay \
             finite, which ended the run (run 1 at step {step})"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("column diverged_at_step"), "{stderr}");
}

#[test]
fn sweep_writes_time_averages_and_a_heatmap() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("grid.csv");
    let out = run(&[
        "sweep",
        "--preset",
        "vicsek",
        "--set",
        "count=60",
        "--set",
        "world_width=3.9",
        "--set",
        "world_height=3.9",
        "--vary",
        "noise=0:6:3",
        "--vary",
        "topological_k=0,7",
        "--replicates",
        "2",
        "--steps",
        "300",
        "--every",
        "20",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_csv(&csv);
    assert_eq!(rows.len(), 3 * 2 * 2);
    assert_eq!(rows[1]["seed"], "1");
    let order = |noise: &str| mean_where(&rows, "polarization", &[("noise", noise)]);
    assert!(
        order("0.0") > 0.9 && order("6.0") < 0.4,
        "{} {}",
        order("0.0"),
        order("6.0")
    );
    let png = std::fs::read(csv.with_extension("png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
}

#[test]
fn bad_experiment_and_sweep_input_is_refused_with_exit_code_2() {
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "sweep", "--preset", "vicsek", "--vary", "noise=1", "--steps", "5", "--engine",
                "gpu",
            ],
            "--engine gpu is not run by sweep",
        ),
        (
            &["experiment", "nope", "--quick"],
            "unknown experiment `nope`",
        ),
        // Planned in full before a run starts: refused at once, not after minutes of planning.
        (
            &["experiment", "couzin-phases", "--replicates", "400"],
            "couzin-phases with replicates = 400 is 102400 runs",
        ),
        (
            &[
                "sweep",
                "--preset",
                "vicsek",
                "--vary",
                "noise=0:1:1000",
                "--replicates",
                "200",
                "--steps",
                "5",
            ],
            "the sweep is 200000 runs",
        ),
        (
            &[
                "sweep",
                "--preset",
                "vicsek",
                "--vary",
                "noise=0:9:3",
                "--steps",
                "5",
            ],
            "--vary noise=0:9:3",
        ),
        (
            &[
                "sweep",
                "--preset",
                "vicsek",
                "--vary",
                "noise=1",
                "--steps",
                "5",
                "--burn-in",
                "9",
            ],
            "--burn-in 9",
        ),
        (
            &["experiment", "vicsek", "--quick", "--out", "plot.png"],
            "names the plot's file",
        ),
    ];
    for (args, expected) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error:") && stderr.contains(expected),
            "{stderr}"
        );
    }
}

#[test]
fn predator_per_capita_risk_falls_with_flock_size_and_fleeing_lowers_captures() {
    let rows = experiment("predator", &[]);
    let per_capita = |n: &str| {
        mean_where(
            &rows,
            "per_capita_rate",
            &[("part", "dilution"), ("predator", "fast"), ("count", n)],
        )
    };
    let (small, large) = (per_capita("10"), per_capita("1000"));
    assert!(
        large < 0.3 * small,
        "per-capita rate at N = 1000: {large}, at N = 10: {small}"
    );
    let rate = |flee: &str| {
        mean_where(
            &rows,
            "capture_rate",
            &[
                ("part", "fleeing"),
                ("predator", "fast"),
                ("flee_factor", flee),
            ],
        )
    };
    let (still, fleeing) = (rate("0"), rate("2"));
    assert!(
        fleeing < 0.4 * still,
        "capture rate at flee_factor 2: {fleeing}, at 0: {still}"
    );
}
