//! `boids bench` through the real binary: it builds the asked workload, reports what it timed,
//! and refuses what it cannot do with a clear message.

mod common;

use common::{boids, refused};

#[test]
fn json_report_describes_the_measured_workload() {
    let out = boids(&[
        "bench",
        "--count",
        "3000",
        "--neighbors",
        "12",
        "--steps",
        "3",
        "--warmup",
        "1",
        "--threads",
        "1",
        "--json",
        "--vs-naive",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(report["count"], 3000);
    assert_eq!(report["threads"], 1);
    assert_eq!(report["steps"], 3);
    let start = report["mean_neighbors_start"].as_f64().unwrap();
    assert!(
        (start - 12.0).abs() < 1.0,
        "mean neighbours at start {start}"
    );
    // The scan's own counts: every neighbour found was a candidate tested, and the mean over
    // the measured steps stays near the start's in three steps.
    let scan = &report["scan"];
    let neighbors = scan["neighbors_per_boid"].as_f64().unwrap();
    let candidates = scan["candidates_per_boid"].as_f64().unwrap();
    assert!((neighbors - start).abs() < 1.0, "{scan}");
    assert!(candidates > neighbors, "{scan}");
    let efficiency = scan["candidate_efficiency"].as_f64().unwrap();
    assert!((efficiency - neighbors / candidates).abs() < 1e-9, "{scan}");
    assert!(scan["cells_per_step"].as_f64().unwrap() >= 1.0, "{scan}");
    let median = report["ms_per_step"]["median"].as_f64().unwrap();
    assert!(median > 0.0 && median <= report["ms_per_step"]["max"].as_f64().unwrap());
    let phases = report["stages_ms"].as_object().unwrap();
    for phase in ["bin", "sort", "interact"] {
        assert!(phases.contains_key(phase), "{phase} missing: {phases:?}");
    }
    let rate = report["boid_steps_per_second"].as_f64().unwrap();
    assert!((rate - 3000.0 / (median / 1e3)).abs() < 1e-6 * rate);
    assert!(report["naive"]["ms_per_step"].as_f64().unwrap() > 0.0);
}

#[test]
fn impossible_workloads_are_refused() {
    refused(
        &["bench", "--count", "100", "--neighbors", "500"],
        &["--neighbors 500", "(0, 34.6]"],
    );
    refused(
        &[
            "bench",
            "--count",
            "500000",
            "--neighbors",
            "25",
            "--vs-naive",
        ],
        &["--vs-naive", "100000"],
    );
    refused(&["bench", "--neighbors", "25"], &["--count"]);
    // A lone boid has no neighbours: the message says so and what count would do.
    refused(
        &["bench", "--count", "1", "--neighbors", "25"],
        &["empty for 1 boid", "25 neighbours need at least 73 boids"],
    );
    // A batch longer than the measured steps would run them all unasked, silently.
    refused(
        &[
            "bench",
            "--count",
            "1000",
            "--neighbors",
            "10",
            "--steps",
            "50",
            "--batch",
            "1000000",
        ],
        &["--batch 1000000 is more than --steps 50", "[1, 50]"],
    );
}

/// `--compare` runs both builds in turn, ABBA, with the same flags, and reports each build's
/// rounds and the per-round ratios of their medians. Compared with itself, both builds time
/// the same workload.
#[test]
fn compare_interleaves_two_builds_and_reports_the_ratio() {
    let this = env!("CARGO_BIN_EXE_boids");
    let out = boids(&[
        "bench",
        "--count",
        "2000",
        "--neighbors",
        "10",
        "--steps",
        "2",
        "--warmup",
        "0",
        "--threads",
        "1",
        "--compare",
        this,
        "--rounds",
        "3",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("round ").count(), 3, "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["rounds"], 3);
    assert_eq!(report["workload"]["count"], 2000);
    assert_eq!(report["workload"]["threads"], 1);
    let rounds = |build: &str| -> Vec<f64> {
        report[build]["per_round_ms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (mine, theirs) = (rounds("this"), rounds("other"));
    assert_eq!((mine.len(), theirs.len()), (3, 3));
    let ratios: Vec<f64> = report["ratio_other_over_this"]["per_round"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for k in 0..3 {
        assert!((ratios[k] - theirs[k] / mine[k]).abs() < 1e-12, "round {k}");
    }
    let ratio = &report["ratio_other_over_this"];
    let (min, median, max) = (
        ratio["min"].as_f64().unwrap(),
        ratio["median"].as_f64().unwrap(),
        ratio["max"].as_f64().unwrap(),
    );
    assert!(min <= median && median <= max, "{ratio}");
    assert!(report["this"]["stages_ms"]["interact"].as_f64().unwrap() > 0.0);
}

#[test]
fn compare_refuses_what_is_not_a_boids_binary() {
    let base = [
        "bench",
        "--count",
        "500",
        "--neighbors",
        "10",
        "--steps",
        "1",
        "--warmup",
        "0",
    ];
    let with = |extra: &[&'static str]| [&base[..], extra].concat();
    refused(
        &with(&["--compare", "/no/such/boids"]),
        &["/no/such/boids", "no such file"],
    );
    refused(&with(&["--compare", "/"]), &["not a file"]);
    refused(
        &with(&["--compare", "/bin/true"]),
        &["/bin/true", "no bench report"],
    );
    refused(&with(&["--rounds", "3"]), &["--compare"]);
}

/// `--scaling` times every size in 2D and 3D, on one thread and on every core, each in its own
/// run, and writes one CSV row per run with the plot beside it.
#[test]
fn scaling_writes_a_row_per_run_and_the_plot() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("scaling.csv");
    let out = boids(&[
        "bench",
        "--neighbors",
        "10",
        "--steps",
        "1",
        "--warmup",
        "0",
        "--scaling",
        csv.to_str().unwrap(),
        "--sizes",
        "300,600",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = std::fs::read_to_string(&csv).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..4],
        ["dimensions", "threads", "count", "mean_neighbors"]
    );
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let thread_counts: Vec<f64> = if cores > 1 {
        vec![1.0, cores as f64]
    } else {
        vec![1.0]
    };
    let mut expected = Vec::new();
    for d in [2.0, 3.0] {
        for &t in &thread_counts {
            for n in [300.0, 600.0] {
                expected.push((d, t, n));
            }
        }
    }
    let got: Vec<(f64, f64, f64)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(got, expected);
    for row in &rows {
        let ns = row[column("ns_per_boid_step")];
        let ms = row[column("ms_per_step_median")];
        assert!(
            ns > 0.0 && (ns - ms * 1e6 / row[2]).abs() < 1e-6 * ns,
            "{row:?}"
        );
        assert!(row[column("interact_ms")] > 0.0, "{row:?}");
    }
    let png = std::fs::read(dir.path().join("scaling.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}
