//! `--engine gpu` through the real binary (in builds with the `gpu` feature): `boids info`
//! names the adapter, a run is the same bytes run after run, the bench reports the adapter and
//! the batches it timed, and what the GPU engine does not run is refused with exit code 2.
//! Without an adapter these tests skip outside CI (CI has lavapipe).
#![cfg(feature = "gpu")]

mod common;

use common::{Dir, boids, check_refused, ok, read, skip_unless_ci};

/// The adapter `boids info` names, or `None` (skipped outside CI) when there is none.
fn adapter() -> Option<String> {
    let info = ok(&["info"]);
    let line = info.lines().find(|l| l.starts_with("engine gpu: "))?;
    let adapter = line.trim_start_matches("engine gpu: ");
    if adapter.starts_with("unavailable") {
        skip_unless_ci(&format!("no GPU adapter: {adapter}"));
        return None;
    }
    Some(adapter.to_owned())
}

#[test]
fn info_names_every_engine_and_the_adapter() {
    let info = ok(&["info"]);
    assert!(
        info.contains("engine cpu: ") && info.contains("threads"),
        "{info}"
    );
    if let Some(adapter) = adapter() {
        assert!(!adapter.is_empty());
        assert!(
            ["Vulkan", "Metal", "Dx12"]
                .iter()
                .any(|b| adapter.contains(b)),
            "{adapter}"
        );
    }
}

#[test]
fn a_run_on_the_gpu_gives_the_same_bytes_run_after_run() {
    if adapter().is_none() {
        return;
    }
    let dir = Dir::new();
    let run = |name: &str| {
        let (save, metrics) = (
            dir.s(&format!("{name}.csv")),
            dir.s(&format!("{name}-m.csv")),
        );
        ok(&[
            "run",
            "--preset",
            "canvas",
            "--count",
            "400",
            "--steps",
            "60",
            "--engine",
            "gpu",
            "--metrics",
            &metrics,
            "--every",
            "20",
            "--save",
            &save,
        ]);
        (
            read(dir.path(&format!("{name}.csv")).as_path()),
            read(dir.path(&format!("{name}-m.csv")).as_path()),
        )
    };
    let (first, metrics) = run("a");
    assert_eq!(run("b").0, first);
    // Metrics at steps 0, 20, 40 and 60: the run stops at each output.
    let steps: Vec<&str> = metrics
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(steps, ["0", "20", "40", "60"]);
    assert_eq!(first.lines().count(), 401, "a header and a row a boid");
}

#[test]
fn the_bench_reports_the_adapter_and_its_batches() {
    let Some(adapter) = adapter() else { return };
    let out = ok(&[
        "bench",
        "--engine",
        "gpu",
        "--count",
        "5000",
        "--neighbors",
        "12",
        "--steps",
        "20",
        "--warmup",
        "2",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(report["engine"], "gpu");
    assert_eq!(report["adapter"], adapter.as_str());
    assert_eq!(report["batch"], 10);
    assert_eq!(report["steps"], 20);
    let start = report["mean_neighbors_start"].as_f64().unwrap();
    assert!(
        (start - 12.0).abs() < 1.0,
        "mean neighbours at the start: {start}"
    );
    assert!(report["boid_steps_per_second"].as_f64().unwrap() > 0.0);
    assert!(report["device_bytes_per_boid"].as_u64().unwrap() > 50);
}

#[test]
fn what_the_gpu_engine_does_not_run_is_refused_with_exit_code_2() {
    if adapter().is_none() {
        return;
    }
    for (args, named) in [
        (
            &[
                "run",
                "--steps",
                "5",
                "--engine",
                "gpu",
                "--set",
                "predator_count=2",
            ][..],
            "predator_count = 2",
        ),
        (
            &[
                "run", "--steps", "5", "--engine", "gpu", "--preset", "vicsek",
            ][..],
            "model = vicsek",
        ),
        (
            &[
                "render", "--steps", "5", "--engine", "gpu", "--preset", "pillars", "--out",
                "x.png",
            ][..],
            "obstacles",
        ),
    ] {
        let out = boids(args);
        check_refused(
            args,
            &out,
            &[named, "gpu engine does not run", "--engine cpu"],
        );
    }
}
