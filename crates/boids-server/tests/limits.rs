//! What one client may cost the others, over a real WebSocket on a loopback port: the work a
//! change may ask for, the event log's size, oversized messages, pings during long steps, and
//! frames at the step rate.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boids_core::engine::{Batch, Before, CpuEngine, Engine, EngineFailure, FlockBuffers, GridStep};
use boids_core::{EngineKind, FlockState, ScanCounts, Simulation, Stage, StageTimes, Vec2};
use boids_io::events::{Change, EventLog, LOG_LIMIT_BYTES};
use boids_server::{HARD_MESSAGE_LIMIT, HEADER_TIMEOUT, MAX_CLIENTS};
use common::*;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_keep_pace_with_60_steps_a_second() {
    let mut config = config(params("cornell", &["count=100"]), 1000, true);
    config.engine.steps_per_second = 60.0;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    let first = ws.next_frame().await.header.step;
    let start = Instant::now();
    let (mut frames, mut last) = (0u64, first);
    while start.elapsed() < Duration::from_secs(2) {
        last = ws.next_frame().await.header.step;
        frames += 1;
    }
    let steps = last - first;
    // At 60 steps a second every step is due a frame (the frame rate is 60 too). Frames were
    // once published only when a full period had passed since the last one, which jitter made
    // every other step: about 33 a second. Counting against the steps the server made keeps
    // this true on a machine too busy to make 60 steps a second.
    assert!(steps >= 30, "{steps} steps in 2 s");
    assert!(
        frames as f64 >= 0.85 * steps as f64,
        "{frames} frames for {steps} steps ({:.1} frames a second)",
        frames as f64 / start.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_that_would_cost_too_much_is_refused_with_the_estimate() {
    // 500 boids in 640 x 480 with visual range 40: about 8 neighbours each, and each its own
    // step: 3.4e4 pairs a step.
    let mut config = config(params("cornell", &["count=500"]), 100_000, false);
    config.engine.max_pairs = 1e5;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    let before = get_json(addr, "/api/params").await["params"].clone();
    let cases = [
        (
            json!({"type": "set", "key": "visual_range", "value": 1e9}),
            "visual_range = 1000000000.0 refused: about 2.80e5 neighbour pairs a step \
             (500 boids x 5.590e2 each: 60 for its own step, 4.990e2 for its neighbours, 0.000e0 for the world's \
             objects), over this server's budget of 1.00e5",
        ),
        (
            json!({"type": "set", "key": "count", "value": 5000}),
            "count = 5000 refused: about 7.",
        ),
        // Four steps' worth of the budget for one request.
        (
            json!({"type": "step", "count": 1000}),
            "step count = 1000 refused: about 3.41e4 neighbour pairs a step, 1000 steps are over \
             this server's budget of 4.00e5 pairs for one request; ask for at most 11 steps",
        ),
    ];
    for (id, (request, expected)) in cases.into_iter().enumerate() {
        let r = ws.call(id as u64, request).await;
        let message = r["message"].as_str().unwrap_or_default();
        assert_eq!(r["type"], "error", "{r}");
        assert!(message.contains(expected), "{message}");
    }
    assert_eq!(get_json(addr, "/api/params").await["params"], before);
    // Within the budget, the same keys change.
    let r = ws
        .call(
            10,
            json!({"type": "set", "key": "visual_range", "value": 60}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws.call(11, json!({"type": "step", "count": 5})).await;
    assert_eq!(r["type"], "ok", "{r}");
    // A flock packed into a corner of a large world is as costly as its density says.
    let r = ws
        .call(12, json!({"type": "set", "key": "init_x", "value": [0, 1]}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws.call(13, json!({"type": "reset"})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("reset refused"),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_k_nearest_and_the_worlds_objects_are_priced_as_they_cost() {
    // 1,000 starlings, 7 nearest: about 1.05e6 pairs a step (105 candidates each, 10 pairs a
    // candidate of a k-nearest step).
    let mut config = config(params("murmuration", &["count=1000"]), 100_000, false);
    config.engine.max_pairs = 5e6;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    let before = get_json(addr, "/api/params").await["params"].clone();
    let attractors: Vec<Value> = (0..1000).map(|k| json!([k, 0, 0])).collect();
    let cases = [
        // Every other bird a candidate of every search: once priced as 999 neighbours each.
        (
            json!({"type": "set", "key": "topological_k", "value": 10000}),
            "topological_k = 10000 refused: about 1.00e7 neighbour pairs a step \
             (1000 boids x 1.005e4 each: 60 for its own step, 9.990e3 for its neighbours, 0.000e0 for the world's \
             objects), over this server's budget of 5.00e6",
        ),
        (
            json!({"type": "set", "key": "attractors", "value": attractors}),
            "attractors = [[0,0,0],",
        ),
        (
            json!({"type": "set", "key": "predator_count", "value": 1000}),
            "predator_count = 1000 refused: about 1.7",
        ),
    ];
    // The attractors attract and the predators see everything: each object costs every boid.
    for (id, key, value) in [
        (1, "attract_factor", json!(0.01)),
        (2, "predator_vision", json!(1e9)),
    ] {
        let r = ws
            .call(id, json!({"type": "set", "key": key, "value": value}))
            .await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let after_sets = get_json(addr, "/api/params").await["params"].clone();
    assert_ne!(after_sets, before);
    for (id, (request, expected)) in cases.into_iter().enumerate() {
        let r = ws.call(10 + id as u64, request).await;
        let message = r["message"].as_str().unwrap_or_default();
        assert_eq!(r["type"], "error", "{r}");
        assert!(message.contains(expected), "{message}");
        assert!(message.contains("for the world's objects"), "{message}");
    }
    assert_eq!(get_json(addr, "/api/params").await["params"], after_sets);
}

/// A server whose flock is huddled: 998 of its 1,000 boids within 22 units of each other, one
/// in each far corner, so the estimate (the flock spread over the world) is 7.6e4 pairs a step
/// (1.6e4 for the neighbours) and a step measures about 1.06e6; paused, at 1000 steps a second, with `max_pairs`.
async fn huddled(max_pairs: f64) -> (std::net::SocketAddr, Client) {
    let p = params("cornell", &["count=1000"]);
    let mut state = FlockState::<2>::initial(&p, 3);
    for (i, position) in state.positions.iter_mut().enumerate() {
        *position = match i {
            998 => Vec2::new(1.0, 1.0),
            999 => Vec2::new(639.0, 479.0),
            _ => Vec2::new(300.0 + (i % 32) as f32 * 0.5, 200.0 + (i / 32) as f32 * 0.5),
        };
    }
    let sim = Simulation::from_state(p.clone(), 3, state, 0).unwrap();
    let mut config = config(p, 1000, false);
    config.engine.max_pairs = max_pairs;
    config.engine.start = Some(sim.into());
    let addr = start_with(config).await;
    (addr, connect(addr).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_that_overruns_the_budget_undoes_the_last_change_then_lowers_the_speed() {
    let (addr, mut ws) = huddled(2e5).await;
    // Priced as the flock spread evenly, the change passes.
    let r = ws
        .call(
            1,
            json!({"type": "set", "key": "visual_range", "value": 41}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws.call(2, json!({"type": "step", "count": 3})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let notice = ws.next_json("notice", |_| true).await;
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with("visual_range = 41 was undone: the last step cost about 1.0"),
        "{message}"
    );
    assert!(
        message.contains("over this server's budget of 2.00e5 (--max-pairs)"),
        "{message}"
    );
    // The flock stopped at the overrun, with the parameter as it was; the undo is logged.
    assert_eq!(param(addr, "visual_range").await, json!(40.0));
    let state = ws.next_json("state", |s| s["step"] == 1).await;
    assert_eq!(state["params"]["visual_range"], json!(40.0), "{state}");
    let log = get(addr, "/api/events").await;
    assert_eq!(log.matches(r#""key":"visual_range""#).count(), 2, "{log}");
    // Nothing left to undo: the next overrun lowers the speed to 4 steps' worth of the budget,
    // and a fifth below it (0.8 x 0.76).
    let r = ws.call(3, json!({"type": "start"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let notice = ws.next_json("notice", |_| true).await;
    let message = notice["message"].as_str().unwrap();
    assert!(message.starts_with("speed lowered to 0.61"), "{message}");
    let state = ws
        .next_json("state", |s| s["steps_per_second"].as_f64() < Some(1.0))
        .await;
    assert_eq!(state["running"], true, "{state}");
    // Still answering.
    let r = ws.call(4, json!({"type": "stop"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws
        .call(
            5,
            json!({"type": "set", "key": "visual_range", "value": 10}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    // The next flock runs at the speed asked again: the overrun was the old flock's.
    let r = ws.call(6, json!({"type": "reset"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let state = ws
        .next_json("state", |s| {
            s["step"] == 0 && s["params"]["visual_range"] == 10.0
        })
        .await;
    assert_eq!(state["steps_per_second"], json!(1000.0), "{state}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_far_over_the_budget_pauses_the_flock_and_every_page_is_told() {
    let (addr, mut ws) = huddled(1e5).await;
    let mut other = connect(addr).await;
    let r = ws.call(1, json!({"type": "start"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    for client in [&mut ws, &mut other] {
        let notice = client.next_json("notice", |_| true).await;
        let message = notice["message"].as_str().unwrap();
        assert!(
            message.starts_with("paused: the last step cost about 1.0"),
            "{message}"
        );
        // Paused after the step that overran.
        client
            .next_json("state", |s| s["running"] == false && s["step"] == 1)
            .await;
    }
    let r = ws
        .call(
            2,
            json!({"type": "set", "key": "visual_range", "value": 10}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_too_slow_to_be_live_applies_with_a_warning_that_gives_the_estimate() {
    // 14,000 starlings, each examining every other for its 10,000 nearest: about 2e9 pairs
    // a step, 0.65 s a step on two cores (a live flock needs a machine six times faster, a
    // refused one eight times slower). No budget, so that the change is not refused by it;
    // paused, so that no step of it is taken (the warning is the estimate's).
    let mut config = config(params("murmuration", &["count=14000"]), 14_000, false);
    config.engine.max_pairs = f64::INFINITY;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    let r = ws
        .call(
            1,
            json!({"type": "set", "key": "topological_k", "value": 10000}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let notice = ws.next_json("notice", |_| true).await;
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with("topological_k = 10000: about 1.96e9 neighbour pairs a step"),
        "{message}"
    );
    assert!(
        message
            .contains("steps a second on this machine against the 1000 asked, too slow to be live"),
        "{message}"
    );
    assert_eq!(param(addr, "topological_k").await, json!(10000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_whose_step_would_take_seconds_is_refused_with_the_estimate() {
    // A million boids that all see each other: 1e12 pairs a step, minutes on two cores and
    // far over the 5 s a step may take on any machine. No budget, so that only the pace
    // refuses it.
    let sees_all = params("cornell", &["count=1000", "visual_range=1e9"]);
    let mut config = config(sees_all, 1_000_000, false);
    config.engine.max_pairs = f64::INFINITY;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    let r = ws
        .call(
            1,
            json!({"type": "set", "key": "count", "value": 1_000_000}),
        )
        .await;
    assert_eq!(r["type"], "error", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.starts_with("count = 1000000 refused: about 1.00e12 neighbour pairs a step"),
        "{message}"
    );
    assert!(
        message.contains("s a step on this machine (its cpu engine), over the 5 s a step may"),
        "{message}"
    );
    assert_eq!(param(addr, "count").await, json!(1000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_are_answered_while_a_long_step_runs() {
    // 300 steps of 20,000 boids take most of a second in a release build.
    let flock = params("cornell", &["count=20000", "boundary=torus"]);
    let mut config = config(flock, 20_000, false);
    config.engine.max_pairs = f64::INFINITY;
    let addr = start_with(config).await;
    let mut ws = connect(addr).await;
    ws.send(json!({"type": "step", "count": 300, "id": 1}))
        .await;
    ws.send_message(Message::Ping(b"still there?".to_vec().into()))
        .await;
    let first = ws
        .next_matching(|m| match m {
            Message::Pong(p) => Some(format!("pong {}", String::from_utf8_lossy(p))),
            Message::Text(t) if t.contains(r#""id":1"#) => Some(t.to_string()),
            _ => None,
        })
        .await;
    assert_eq!(first, "pong still there?", "the step's reply came first");
    let r = ws.reply(1).await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_hard_limit_is_closed_with_1009() {
    let addr = start(params("cornell", &["count=50"]), 1000, false).await;
    let mut ws = connect(addr).await;
    let big = "x".repeat(HARD_MESSAGE_LIMIT + 1);
    // The server stops reading the message at its header, so sending the rest may fail.
    let _ = ws.try_send_message(Message::Text(big.into())).await;
    let close = loop {
        match ws.next_raw().await {
            Some(Message::Close(frame)) => break frame,
            Some(_) => continue,
            None => panic!("the connection ended without a close frame"),
        }
    };
    let close = close.expect("a close frame with a code");
    assert_eq!(close.code, CloseCode::Size, "{close:?}");
    assert!(close.reason.contains("1048576"), "{close:?}");
    // The server is fine.
    let mut other = connect(addr).await;
    let r = other.call(1, json!({"type": "step"})).await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_log_holds_the_current_flock_only() {
    let addr = start(params("cornell", &["count=20"]), 1000, false).await;
    let mut ws = connect(addr).await;
    for k in 0..30 {
        let r = ws.call(k, json!({"type": "reset", "seed": k})).await;
        assert_eq!(r["type"], "ok", "{r}");
        let r = ws
            .call(
                100 + k,
                json!({"type": "set", "key": "margin", "value": 50 + k}),
            )
            .await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let text = get(addr, "/api/events").await;
    let log = EventLog::parse(&text, "boids-events.json").unwrap();
    assert_eq!(log.events.len(), 2, "{text}");
    assert!(
        matches!(&log.events[0].change, Change::Reset { seed: 29, .. }),
        "{:?}",
        log.events[0]
    );
    assert_eq!(
        log.events[1].change,
        Change::Set {
            key: "margin".into(),
            value: json!(79.0)
        }
    );
    // Every client is told how many events the log holds.
    ws.next_json("state", |s| s["seed"] == 29 && s["events"] == 2)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_event_log_refuses_changes_until_a_reset() {
    let addr = start(params("cornell", &["count=10"]), 1000, false).await;
    let mut ws = connect(addr).await;
    // Changes without an id get a reply only if refused. Send them in batches, each closed by
    // one with an id, until one is refused.
    let (mut sent, mut id) = (0u64, 0u64);
    let refusal = 'fill: loop {
        for _ in 0..2000 {
            sent += 1;
            ws.feed(json!({"type": "set", "key": "margin", "value": 50 + sent % 2}))
                .await;
        }
        id += 1;
        ws.feed(json!({"type": "set", "key": "margin", "value": 50, "id": id}))
            .await;
        ws.flush().await;
        let r = ws.reply(id).await;
        if r["type"] == "error" {
            break 'fill r;
        }
        assert!(sent < 200_000, "nothing refused after {sent} changes");
    };
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains("margin = 50 was not applied")
            && message.contains("event log of this flock is full")
            && message.contains("reset to start a new log"),
        "{message}"
    );
    // The log stopped at its size, well before the 100,000 events it once counted to.
    let (status, head, body) = get_with(addr, "/api/events", &[&format!("Host: {addr}")]).await;
    assert_eq!(status, 200, "{head}");
    assert!(body.len() <= LOG_LIMIT_BYTES + 200, "{} bytes", body.len());
    let log = EventLog::parse(&body, "boids-events.json").unwrap();
    assert!(log.events.len() < 100_000, "{} events", log.events.len());
    assert!(
        head.contains(&format!("content-length: {}", body.len())),
        "{head}"
    );
    // What was refused was not applied: the parameter is what the last logged event says.
    let Change::Set { value, .. } = &log.events.last().unwrap().change else {
        panic!("the last event is a set")
    };
    assert_eq!(&param(addr, "margin").await, value);
    let r = ws
        .call(id + 1, json!({"type": "set", "key": "margin", "value": 77}))
        .await;
    assert_eq!(r["type"], "error", "{r}");
    let r = ws.call(id + 2, json!({"type": "reset"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws
        .call(id + 3, json!({"type": "set", "key": "margin", "value": 77}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    assert_eq!(param(addr, "margin").await, 77.0);
}

/// The CPU engine as the server meets an engine from outside, through the core's door: it may
/// fail a step as a GPU whose device is lost would, and may take steps in batches as a GPU does,
/// keeping each batch's size.
#[derive(Clone, Debug, Default)]
struct Outside {
    inner: CpuEngine<2>,
    steps: u64,
    /// The step (counting from 1) it fails.
    fails_at: Option<u64>,
    /// Where it keeps its batches' sizes; `None`: it takes steps one at a time.
    batches: Option<Arc<Mutex<Vec<u64>>>>,
    /// How long each step waits, as a slow device would (timed as the step's).
    slowness: Duration,
}

impl Engine<2> for Outside {
    fn kind(&self) -> EngineKind {
        EngineKind::Gpu
    }

    fn batches(&self) -> bool {
        self.batches.is_some()
    }

    fn reserve(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        self.inner.reserve(n)
    }

    fn step(
        &mut self,
        job: &GridStep<'_, 2>,
        flock: &mut FlockBuffers<2>,
        times: &mut StageTimes,
    ) -> Result<ScanCounts, EngineFailure> {
        self.steps += 1;
        if self.fails_at == Some(self.steps) {
            return Err(EngineFailure {
                engine: "gpu",
                reason: "the device was lost (a test)".to_owned(),
            });
        }
        times.time(Stage::Interact, || std::thread::sleep(self.slowness));
        self.inner.step(job, flock, times)
    }

    fn batch(
        &mut self,
        job: &GridStep<'_, 2>,
        flock: &mut FlockBuffers<2>,
        steps: u64,
        times: &mut StageTimes,
    ) -> Result<Option<Batch>, EngineFailure> {
        let Some(sizes) = &self.batches else {
            return Ok(None);
        };
        sizes.lock().unwrap().push(steps);
        let mut counts = ScanCounts::default();
        for k in 0..steps {
            let (step, changed) = (job.step + k, job.changed && k == 0);
            let job = GridStep {
                step,
                changed,
                ..*job
            };
            counts = self.step(&job, flock, times)?;
        }
        Ok(Some(Batch {
            taken: steps,
            counts,
        }))
    }

    fn before(&self) -> Before<'_, 2> {
        self.inner.before()
    }

    fn undo(&mut self, flock: &mut FlockBuffers<2>) {
        self.inner.undo(flock);
    }

    fn boxed_clone(&self) -> Box<dyn Engine<2>> {
        Box::new(self.clone())
    }
}

/// A server of 200 `cornell` boids on `engine`, at 1000 steps a second.
async fn outside_at(engine: Outside, running: bool) -> std::net::SocketAddr {
    let p = params("cornell", &["count=200"]);
    let sim = Simulation::<2>::with_engine(p.clone(), 3, Box::new(engine)).unwrap();
    let mut config = config(p, 1000, running);
    config.engine.start = Some(sim.into());
    start_with(config).await
}

/// A page of a server of [`outside_at`].
async fn outside(engine: Outside, running: bool) -> Client {
    connect(outside_at(engine, running).await).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_the_engine_cannot_take_moves_the_flock_to_the_cpu_and_it_goes_on() {
    let failing = Outside {
        fails_at: Some(3),
        ..Outside::default()
    };
    let mut ws = outside(failing, false).await;
    let r = ws.call(1, json!({"type": "step", "count": 5})).await;
    assert_eq!(r["type"], "error", "{r}");
    let notice = ws.next_json("notice", |_| true).await;
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "step 3 could not be taken: the gpu engine failed: the device was lost (a test)"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("; the flock goes on on the cpu engine from step 2"),
        "{message}"
    );
    let r = ws.call(2, json!({"type": "step", "count": 5})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let state = ws.next_json("state", |s| s["step"] == 7).await;
    assert_eq!(state["running"], false, "{state}");
}

/// A flock whose engine batches (the GPU's) takes the steps between two frames in one batch, so
/// it comes back from the device once a frame, and a `step` request's steps in one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flock_that_batches_takes_the_steps_between_two_frames_together() {
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let batching = Outside {
        batches: Some(Arc::clone(&sizes)),
        ..Outside::default()
    };
    let mut ws = outside(batching, true).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let r = ws.call(1, json!({"type": "stop"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let taken = std::mem::take(&mut *sizes.lock().unwrap());
    let steps: u64 = taken.iter().sum();
    let batches = taken.len();
    // 1000 steps a second and at most 60 frames: about 16 steps a batch.
    assert!(
        steps >= 100 && steps as f64 >= 5.0 * batches as f64,
        "{steps} steps in {batches} batches"
    );
    let r = ws.call(2, json!({"type": "step", "count": 40})).await;
    assert_eq!(r["type"], "ok", "{r}");
    assert_eq!(*sizes.lock().unwrap(), [40]);
}

/// A `step` request on a slow device is taken a frame's worth of steps at a time (one, where a
/// step is longer than a frame), and a `stop` from another page ends it at the next: a whole
/// request in one batch once held a stop back for 106 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_ends_a_long_step_request_within_a_batch() {
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let slow = Outside {
        batches: Some(Arc::clone(&sizes)),
        slowness: Duration::from_millis(25),
        ..Outside::default()
    };
    let addr = outside_at(slow, false).await;
    let (mut ws, mut other) = (connect(addr).await, connect(addr).await);
    // 400 steps of 25 ms: 10 s in one go.
    ws.send(json!({"type": "step", "count": 400, "id": 1}))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = other.call(2, json!({"type": "stop"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws.reply(1).await;
    assert_eq!(r["type"], "ok", "{r}");
    let taken = std::mem::take(&mut *sizes.lock().unwrap());
    let steps: u64 = taken.iter().sum();
    assert!(taken.iter().all(|&batch| batch == 1), "{taken:?}");
    assert!(steps < 400, "the stop waited for all {steps} steps");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_request_is_closed_after_the_header_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = start(params("cornell", &["count=10"]), 1000, false).await;
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let start = Instant::now();
    let mut answer = Vec::new();
    // The server closes the connection (after a 408 or with nothing); a server without the
    // timeout held it open for good, and this read would wait past the deadline.
    let read = tokio::time::timeout(
        HEADER_TIMEOUT + Duration::from_secs(10),
        half.read_to_end(&mut answer),
    )
    .await;
    assert!(
        matches!(read, Ok(Ok(_))),
        "a half-sent request still open after {:?}",
        start.elapsed()
    );
    assert!(
        start.elapsed() >= HEADER_TIMEOUT - Duration::from_secs(1),
        "closed after {:?}, before the timeout",
        start.elapsed()
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    // A whole request on a new connection is answered as ever.
    assert!(get(addr, "/api/params").await.contains("visual_range"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewers_beyond_the_cap_are_refused_until_one_leaves() {
    let addr = start(params("cornell", &["count=10"]), 1000, false).await;
    let mut viewers = Vec::new();
    for _ in 0..MAX_CLIENTS {
        viewers.push(connect(addr).await);
    }
    let refused = connect_with(addr, &[])
        .await
        .err()
        .expect("one viewer too many");
    let tokio_tungstenite::tungstenite::Error::Http(response) = refused else {
        panic!("refused with {refused:?}, not an HTTP answer");
    };
    assert_eq!(response.status(), 503);
    let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
    assert!(
        body.contains(&format!("{MAX_CLIENTS} viewers are connected")),
        "{body}"
    );
    // One leaves: its place is free again once the server sees the socket close.
    drop(viewers.pop());
    let start = Instant::now();
    let mut newcomer = loop {
        match connect_with(addr, &[]).await {
            Ok(client) => break client,
            Err(_) if start.elapsed() < PATIENCE => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("the freed place was not given back: {error}"),
        }
    };
    newcomer.next_frame().await;
}
