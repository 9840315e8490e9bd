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
                "run", "--steps", "5", "--engine", "gpu", "--preset", "couzin",
            ][..],
            "model = couzin",
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

/// A session saved from the viewer replays on the engine `--engine` names, not silently on the
/// CPU: a GPU replay of a flock the GPU engine does not run is refused, one it runs is stepped
/// there (the same bytes run after run).
#[test]
fn an_event_log_replays_on_the_engine_asked_for() {
    if adapter().is_none() {
        return;
    }
    let dir = Dir::new();
    let log = |preset: &str| {
        let path = dir.s(&format!("{preset}.json"));
        let start = format!(
            r#"{{"step":0,"time":"t","kind":"start","preset":"{preset}","seed":1,"params":{{"count":60}}}}"#
        );
        std::fs::write(
            &path,
            format!(
                r#"{{"format":"boids-events","version":1,"exported_at_step":4,"events":[{start}]}}"#
            ),
        )
        .unwrap();
        path
    };
    let couzin = log("couzin");
    let picture = dir.s("x.png");
    for command in [
        vec![
            "run", "--events", &couzin, "--steps", "4", "--engine", "gpu",
        ],
        vec![
            "render", "--events", &couzin, "--engine", "gpu", "--out", &picture,
        ],
    ] {
        let out = boids(&command);
        check_refused(
            &command,
            &out,
            &["model = couzin", "gpu engine does not run"],
        );
    }
    ok(&["run", "--events", &couzin, "--steps", "4"]);
    let cornell = log("cornell");
    let saved = |name: &str| {
        let save = dir.s(name);
        ok(&[
            "run", "--events", &cornell, "--steps", "4", "--engine", "gpu", "--save", &save,
        ]);
        read(std::path::Path::new(&save))
    };
    assert_eq!(saved("a.csv"), saved("b.csv"));
}

/// The viewer's engine on the GPU: sliders change the running flock as on the CPU, and a
/// change the GPU engine does not run is refused while the flock keeps running.
#[test]
fn the_viewer_steps_a_gpu_flock_and_its_sliders_work() {
    use boids_core::{EngineKind, ParamsBuilder};
    use boids_server::protocol::Request;
    use boids_server::{Engine, EngineConfig};
    if adapter().is_none() {
        return;
    }
    boids_gpu::install();
    let engine = Engine::spawn(EngineConfig {
        params: ParamsBuilder::preset("cornell").unwrap(),
        preset: "cornell".into(),
        seed: 5,
        engine: EngineKind::Gpu,
        max_count: 10_000,
        max_pairs: boids_server::budget::DEFAULT_MAX_PAIRS,
        steps_per_second: 200.0,
        running: true,
        start: None,
        history: Vec::new(),
    })
    .unwrap();
    let set = |key: &str, value: serde_json::Value| Request::Set {
        key: key.into(),
        value,
    };
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let step = async || engine.inspect(|e| e.flock().step_count()).await.unwrap();
        let wait_steps = async |n: u64| {
            let start = step().await;
            while step().await < start + n {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
        };
        wait_steps(3).await;
        for request in [
            set("visual_range", serde_json::json!(60.0)),
            set("count", serde_json::json!(800)),
        ] {
            engine.request(0, request).await.unwrap();
            wait_steps(3).await;
        }
        let predator = set("predator_count", serde_json::json!(1));
        let refused = engine.request(0, predator).await.unwrap_err().to_string();
        assert!(refused.contains("predator_count = 1"), "{refused}");
        wait_steps(3).await;
        let (engine_kind, count, range, predators) = engine
            .inspect(|e| {
                let flock = e.flock();
                let p = flock.params();
                (
                    flock.engine(),
                    flock.len(),
                    p.visual_range,
                    p.predator_count,
                )
            })
            .await
            .unwrap();
        assert_eq!(engine_kind, EngineKind::Gpu);
        assert_eq!((count, range), (800, 60.0));
        assert_eq!(
            predators, 0,
            "the GPU engine runs no predators: the change is refused"
        );
    });
}
