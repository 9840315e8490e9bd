//! The server over a real WebSocket on a loopback port: frames, live changes, refusals,
//! several clients, slow clients, overlays, and replay of the event log.

mod common;

use boids_core::neighbors::Neighbors;
use boids_core::overlay::Overlay;
use boids_core::{Simulation, Vec2};
use boids_io::events::{Change, EventLog};
use boids_server::engine::LINK_CAP;
use boids_server::protocol::{MAX_REQUEST_BYTES, flags};
use common::*;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_arrive_and_decode_to_the_flock() {
    let addr = start(params("cornell", &["count=250"]), 1000, true).await;
    let mut ws = connect(addr).await;
    let first = ws.next_frame().await;
    assert_eq!(first.positions.len(), 250);
    assert_eq!(first.header.world.size, [640.0, 480.0]);
    assert_ne!(first.header.flags & flags::RUNNING, 0);
    assert_eq!(first.header.flags & flags::TORUS, 0);
    // 10% of the flock scouts each way (the cornell preset).
    let in_group = |g| first.groups.iter().filter(|&&x| x == g).count();
    assert_eq!((in_group(1), in_group(2)), (25, 25));
    let q = first.quant;
    assert!(
        first
            .positions
            .iter()
            .all(|p| (0..2).all(|a| p[a] >= q.min[a] && p[a] <= q.min[a] + q.size[a]))
    );
    let later = ws.frame_at_least(first.header.step + 3).await;
    assert_eq!(later.positions.len(), 250);
    assert_ne!(later.positions, first.positions, "the flock moves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parameter_change_applies_live_and_is_broadcast() {
    let addr = start(params("cornell", &["count=200"]), 1000, false).await;
    let mut ws = connect(addr).await;
    // Start paused; take the flock's state, then limit the speed and step once.
    let before = get_json(addr, "/api/state").await;
    let r = ws
        .call(1, json!({"type": "set", "key": "min_speed", "value": 0}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws
        .call(2, json!({"type": "set", "key": "max_speed", "value": 0.5}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let state = ws
        .next_json("state", |s| s["params"]["max_speed"] == 0.5)
        .await;
    assert_eq!(state["params"]["min_speed"], 0.0);
    assert_eq!(param(addr, "max_speed").await, 0.5);
    // The flock was kept: a live change is not a reset.
    let kept = get_json(addr, "/api/state").await;
    assert_eq!(kept["positions"], before["positions"]);
    assert_eq!(kept["step"], before["step"]);

    let r = ws.call(3, json!({"type": "step"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let after = get_json(addr, "/api/state").await;
    assert_eq!(
        after["step"].as_u64(),
        before["step"].as_u64().map(|s| s + 1)
    );
    let (p0, p1) = (points(&before["positions"]), points(&after["positions"]));
    let speeds = points(&after["velocities"]);
    // Every boid now moves at most 0.5 per step, where the preset's minimum speed is 3.
    assert!(speeds.iter().all(|v| v.length() <= 0.5 + 1e-6));
    assert!(
        p0.iter()
            .zip(&p1)
            .all(|(a, b)| (*a - *b).length() <= 0.5 + 1e-4)
    );

    // A count change shows in the next frame.
    let r = ws
        .call(4, json!({"type": "set", "key": "count", "value": 321}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let frame = ws
        .next_matching(|m| match m {
            Message::Binary(b) if b.get(5) == Some(&1) => {
                let f = boids_server::protocol::decode_frame::<2>(b).unwrap();
                (f.positions.len() == 321).then_some(f)
            }
            _ => None,
        })
        .await;
    assert_eq!(frame.positions.len(), 321);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_are_refused_and_the_server_keeps_streaming() {
    let addr = start(params("cornell", &["count=100"]), 450, true).await;
    let mut ws = connect(addr).await;
    let initial = get_json(addr, "/api/params").await["params"].clone();
    let oversized = json!({"type": "set", "key": "margin", "value": 50, "id": 9,
        "pad": "x".repeat(MAX_REQUEST_BYTES)});
    let cases: Vec<(String, &str)> = vec![
        ("{\"type\": \"set\", ".to_owned(), "malformed JSON"),
        (oversized.to_string(), "at most 65536 bytes"),
        (
            r#"{"type":"teleport"}"#.to_owned(),
            "unknown variant `teleport`",
        ),
        (
            r#"{"type":"set","key":"visual_rang","value":3}"#.to_owned(),
            "did you mean `visual_range`",
        ),
        (
            r#"{"type":"set","key":"visual_range","value":-1}"#.to_owned(),
            "allowed",
        ),
        (
            r#"{"type":"set","key":"visual_range","value":"far"}"#.to_owned(),
            "a number",
        ),
        (
            r#"{"type":"set","key":"protected_range","value":100}"#.to_owned(),
            // Each value is named with where it came from: the preset's survives the message.
            "must not exceed visual_range = 40 (protected_range from viewer message; visual_range from preset `cornell`)",
        ),
        (
            r#"{"type":"set","key":"count","value":451}"#.to_owned(),
            "allowed [1, 450]",
        ),
        (
            r#"{"type":"set","key":"count","value":1e12}"#.to_owned(),
            "count",
        ),
        (
            r#"{"type":"reset","preset":"nowhere"}"#.to_owned(),
            "unknown preset",
        ),
        (
            r#"{"type":"speed","steps_per_second":0}"#.to_owned(),
            "allowed [0.5, 1000]",
        ),
        (
            r#"{"type":"set","key":"margin","value":{"a":1}}"#.to_owned(),
            "`margin` = { a = 1 } (from viewer message) is not allowed: expected a number",
        ),
        (
            r#"{"type":"set","key":"margin","value":null}"#.to_owned(),
            "not a number, boolean, string, list or table",
        ),
        (
            r#"{"type":"set","key":"obstacles","value":[{"shape":"circle","center":[1,2],"radius":-4}]}"#
                .to_owned(),
            "obstacle 1: radius = -4 is not allowed: expected a number > 0",
        ),
    ];
    for (text, expected) in &cases {
        ws.send_message(Message::Text(text.clone().into())).await;
        let error = ws.next_json("error", |_| true).await;
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(expected), "{text:.80}: {message}");
    }
    ws.send_message(Message::Binary(vec![1, 2, 3].into())).await;
    let error = ws.next_json("error", |_| true).await;
    assert!(
        error["message"].as_str().unwrap().contains("binary"),
        "{error}"
    );
    // An error carries the request's id when it has one.
    let r = ws
        .call(77, json!({"type": "set", "key": "bias", "value": 2}))
        .await;
    assert_eq!(
        (r["type"].as_str(), r["id"].as_u64()),
        (Some("error"), Some(77))
    );

    // Nothing changed, nothing was logged, and frames keep coming.
    assert_eq!(get_json(addr, "/api/params").await["params"], initial);
    let log = get_json(addr, "/api/events").await;
    assert_eq!(log["events"].as_array().unwrap().len(), 1, "{log}");
    let f1 = ws.next_frame().await;
    let f2 = ws.frame_at_least(f1.header.step + 2).await;
    assert_eq!(f2.positions.len(), 100);
    let r = ws
        .call(78, json!({"type": "set", "key": "margin", "value": 90}))
        .await;
    assert_eq!(r["type"], "ok", "the connection still works: {r}");
    // A preset whose default count (500) is above the cap starts at the cap.
    let r = ws
        .call(79, json!({"type": "reset", "preset": "functional"}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let state = ws.next_json("state", |s| s["preset"] == "functional").await;
    assert_eq!(state["params"]["count"], 450);
    // And says so, as `boids serve --preset functional --max-count 450` does.
    let notice = ws.next_json("notice", |_| true).await;
    assert_eq!(
        notice["message"],
        "count = 500 from preset `functional` is over this server's cap of 450 (--max-count): \
         lowered to 450"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_that_diverges_is_undone_and_the_simulation_goes_on() {
    let addr = start(params("cornell", &["count=100"]), 1000, false).await;
    let mut ws = connect(addr).await;
    // Four messages that once stopped the simulation thread: the speed is now refused.
    let r = ws
        .call(1, json!({"type": "reset", "preset": "cornell"}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws
        .call(2, json!({"type": "set", "key": "model", "value": "vicsek"}))
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let r = ws
        .call(3, json!({"type": "set", "key": "speed", "value": 1e38}))
        .await;
    assert_eq!(r["type"], "error", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("allowed range is [0, 1e9]"), "{message}");
    let r = ws.call(4, json!({"type": "step", "count": 10})).await;
    assert_eq!(r["type"], "ok", "{r}");
    // Allowed values whose flock diverges: the refused step undoes the last change.
    let diverging = [
        json!({"type": "reset", "preset": "allegheny"}),
        json!({"type": "set", "key": "count", "value": 50}),
        json!({"type": "set", "key": "max_speed", "value": "inf"}),
        json!({"type": "set", "key": "matching_factor", "value": 1000}),
        json!({"type": "set", "key": "steering_gain", "value": 1000}),
    ];
    for (id, request) in (10..).zip(diverging) {
        let r = ws.call(id, request).await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let r = ws.call(20, json!({"type": "step", "count": 50})).await;
    assert_eq!(r["type"], "error", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.contains("is refused: it would leave boid")
            && message.contains("the last change is undone: steering_gain is back to 1"),
        "{message}"
    );
    // Every page is told, in a notice.
    ws.next_json("notice", |n| n["message"] == message).await;
    assert_eq!(param(addr, "steering_gain").await, 1.0);
    // The simulation goes on: a change is answered, and frames come while it runs.
    let r = ws
        .call(
            21,
            json!({"type": "set", "key": "matching_factor", "value": 0.05}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let step = ws.next_frame().await.header.step;
    let r = ws.call(22, json!({"type": "start"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let later = ws.frame_at_least(step + 3).await;
    assert!(later.positions.iter().all(|p| p.is_finite()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_sees_a_change_made_in_another() {
    let addr = start(params("cornell", &["count=80"]), 1000, true).await;
    let (mut a, mut b) = (connect(addr).await, connect(addr).await);
    b.next_frame().await;
    let r = a
        .call(
            1,
            json!({"type": "set", "key": "matching_factor", "value": 0.125}),
        )
        .await;
    assert_eq!(r["type"], "ok", "{r}");
    let seen = b
        .next_json("state", |s| s["params"]["matching_factor"] == 0.125)
        .await;
    assert_eq!(seen["events"], 2);
    b.call(2, json!({"type": "stop"})).await;
    a.next_json("state", |s| s["running"] == false).await;
    // A client arriving later gets the current state at once.
    let mut c = connect(addr).await;
    let state = c.next_json("state", |_| true).await;
    assert_eq!(state["params"]["matching_factor"], 0.125);
    assert_eq!(state["running"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_does_not_stall_the_others() {
    // 20,000 boids make 120 kB frames. The stuck client's receive buffer is pinned small, so the
    // server's send buffer toward it (at most 4 MB here) is full after a few dozen frames and its
    // writer blocks for good. The simulation is paused so that frames come from requests (each
    // one publishes a frame) rather than from steps, which are slow in a debug build.
    let flock = params(
        "occoids",
        &["count=20000", "world_width=4", "world_height=4"],
    );
    let addr = start(flock, 50_000, false).await;
    let _stuck = connect_without_reading(addr).await;
    let mut live = connect(addr).await;
    let step = live.next_frame().await.header.step;
    for id in 0..100 {
        let r = live
            .call(id, json!({"type": "overlay", "mode": "off"}))
            .await;
        assert_eq!(r["type"], "ok", "{r}");
        assert_eq!(live.next_frame().await.positions.len(), 20_000);
    }
    let r = live.call(100, json!({"type": "step", "count": 2})).await;
    assert_eq!(r["type"], "ok", "{r}");
    assert_eq!(live.frame_at_least(step + 1).await.header.step, step + 2);
    let mut late = connect(addr).await;
    assert_eq!(late.next_json("state", |_| true).await["step"], step + 2);
    assert_eq!(late.next_frame().await.header.step, step + 2);
}

/// The server sends the core's overlay data, the same the renderer draws: for every boid, and
/// for the boid under the mouse with its links, ghosts across the torus seams included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlays_are_the_cores_overlay_data_ghosts_included() {
    // Seed 000's torus with the flock spread over all of it: many boids near the seams.
    let p = params(
        "functional",
        &["count=300", "init_x=[-8, 8]", "init_y=[-8, 8]"],
    );
    let addr = start(p.clone(), 1000, false).await;
    // The server's flock: seed 3 (the tests' configuration), paused at step 0.
    let sim = Simulation::<2>::new(p, 3).unwrap();
    let mut ws = connect(addr).await;
    let r = ws.call(1, json!({"type": "overlay", "mode": "all"})).await;
    assert_eq!(r["type"], "ok", "{r}");
    let all = ws.next_overlay().await;
    assert_eq!((all.flags, all.step), (flags::TORUS, 0));
    let rendered = Overlay::of_all(&sim);
    assert_eq!(all.overlay, rendered, "the renderer's overlay");
    assert!(!rendered.ghosts.is_empty(), "boids see across the seams");
    assert!(
        rendered
            .boids
            .iter()
            .any(|b| b.rules.cohesion != Vec2::ZERO)
    );

    // Hover a boid that sees a neighbour across a seam.
    let neighbors = Neighbors::of(&sim);
    let looker = (0..sim.len())
        .find(|&i| neighbors.seen_by(i).iter().any(|s| s.seam != [0; 2]))
        .unwrap();
    let at = sim.positions()[looker];
    let hover_at =
        json!({"type": "overlay", "mode": "hover", "x": at.x, "y": at.y, "radius": 0.01});
    let r = ws.call(2, hover_at).await;
    assert_eq!(r["type"], "ok", "{r}");
    let hover = ws.next_overlay().await;
    assert_eq!(hover.flags, flags::TORUS | flags::HOVER);
    assert_eq!(hover.overlay, Overlay::new(&neighbors, &[looker], LINK_CAP));
    let boid = &hover.overlay.boids[0];
    assert_eq!(boid.position, at);
    // Its ghosts are its links outside the world.
    let outside = |q: &Vec2| q.x.abs() > 8.0 || q.y.abs() > 8.0;
    let mut ghosts: Vec<Vec2> = hover.overlay.ghosts.iter().map(|g| g.position).collect();
    let mut beyond: Vec<Vec2> = boid.links.iter().copied().filter(outside).collect();
    let by_x = |a: &Vec2, b: &Vec2| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y));
    ghosts.sort_by(by_x);
    beyond.sort_by(by_x);
    assert!(!ghosts.is_empty());
    assert_eq!(ghosts, beyond);
    let r = ws.call(3, json!({"type": "overlay", "mode": "off"})).await;
    assert_eq!(r["type"], "ok", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_log_replays_to_the_servers_exact_state() {
    let addr = start(
        params("cornell", &["count=150", "dynamic_bias=true"]),
        1000,
        true,
    )
    .await;
    let mut ws = connect(addr).await;
    let mut id = 0;
    let mut change = async |ws: &mut Client, key: &str, value: Value| {
        let step = ws.next_frame().await.header.step;
        ws.frame_at_least(step + 7).await;
        id += 1;
        let r = ws
            .call(id, json!({"type": "set", "key": key, "value": value}))
            .await;
        assert_eq!(r["type"], "ok", "{key}: {r}");
    };
    change(&mut ws, "visual_range", json!(47.5)).await;
    change(&mut ws, "count", json!(190)).await;
    change(&mut ws, "scout_group1_fraction", json!(0.3)).await;
    let r = ws.call(100, json!({"type": "reset", "seed": 12})).await;
    assert_eq!(r["type"], "ok", "{r}");
    change(&mut ws, "avoid_factor", json!(0.08)).await;
    change(&mut ws, "max_speed", json!("inf")).await;
    change(&mut ws, "boundary", json!("torus")).await;
    let r = ws.call(101, json!({"type": "stop"})).await;
    assert_eq!(r["type"], "ok", "{r}");

    let text = get(addr, "/api/events").await;
    let state = get_json(addr, "/api/state").await;
    let log = EventLog::parse(&text, "boids-events.json").unwrap();
    let kinds: Vec<&str> = log
        .events
        .iter()
        .map(|e| match e.change {
            Change::Start { .. } => "start",
            Change::Reset { .. } => "reset",
            Change::Set { .. } => "set",
            _ => "edit",
        })
        .collect();
    // What replay uses: the last reset and the changes after it.
    assert_eq!(kinds, ["reset", "set", "set", "set"]);
    let (mut sim, mut replay) = log.replay::<2>("boids-events.json").unwrap();
    replay
        .run_to(&mut sim, log.exported_at_step.unwrap())
        .unwrap();
    assert_eq!(replay.remaining(), 0);
    assert_eq!(sim.step_count(), state["step"].as_u64().unwrap());
    let expected = sim.state();
    assert_eq!(points(&state["positions"]), expected.positions);
    assert_eq!(points(&state["velocities"]), expected.velocities);
    assert_eq!(state["groups"], json!(expected.groups));
    let biases: Vec<f32> = serde_json::from_value(state["biases"].clone()).unwrap();
    assert_eq!(biases, expected.biases);
    assert!(sim.params().max_speed.is_infinite());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn predator_edits_show_in_frames_and_replay_to_the_servers_exact_state() {
    let addr = start(
        params("predator", &["count=200", "predator_count=1"]),
        1000,
        true,
    )
    .await;
    let mut ws = connect(addr).await;
    let mut id = 0;
    let mut edit = async |ws: &mut Client, request: Value| {
        let step = ws.next_frame().await.header.step;
        ws.frame_at_least(step + 5).await;
        id += 1;
        let r = ws.call(id, request.clone()).await;
        assert_eq!(r["type"], "ok", "{request}: {r}");
    };
    edit(
        &mut ws,
        json!({"type": "place_predator", "x": 100.0, "y": 120.0}),
    )
    .await;
    edit(&mut ws, json!({"type": "pointer", "x": 320.0, "y": 240.0})).await;
    edit(&mut ws, json!({"type": "pointer", "x": 330.0, "y": 250.0})).await;
    let frame = ws.next_frame().await;
    assert_eq!(frame.predators.len(), 3, "two predators and the pointer's");
    assert!(frame.predators[2].2, "the pointer's predator comes last");
    edit(&mut ws, json!({"type": "remove_predator", "index": 0})).await;
    edit(&mut ws, json!({"type": "pointer"})).await;
    let r = ws
        .call(90, json!({"type": "remove_predator", "index": 7}))
        .await;
    assert_eq!(r["type"], "error");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("predator 7 does not exist"),
        "{r}"
    );
    let r = ws.call(91, json!({"type": "stop"})).await;
    assert_eq!(r["type"], "ok", "{r}");

    let log = EventLog::parse(&get(addr, "/api/events").await, "session.json").unwrap();
    let state = get_json(addr, "/api/state").await;
    let (mut sim, mut replay) = log.replay::<2>("session.json").unwrap();
    replay
        .run_to(&mut sim, log.exported_at_step.unwrap())
        .unwrap();
    assert_eq!(replay.remaining(), 0);
    let expected = sim.state();
    assert_eq!(sim.params().predator_count, 1);
    assert_eq!(points(&state["positions"]), expected.positions);
    let predators: Vec<[f32; 4]> = serde_json::from_value(state["predators"].clone()).unwrap();
    let replayed: Vec<[f32; 4]> = expected
        .predators
        .iter()
        .map(|p| [p.position.x, p.position.y, p.velocity.x, p.velocity.y])
        .collect();
    assert_eq!(predators, replayed);
}

/// The metrics message carries the flock's focus: one flock started in a small square has both
/// its largest flock and its whole box centred at the mean of its positions, reaching as far as
/// its farthest boid on each axis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_message_carries_the_focus_of_the_flock() {
    let mut params = params("cornell", &["count=40"]);
    params.init_x = [100.0, 130.0];
    params.init_y = [200.0, 230.0];
    params.validate().unwrap();
    let addr = start(params, 1000, false).await;
    let mut ws = connect(addr).await;
    let metrics = ws.next_json("metrics", |m| m["step"] == 0).await;
    assert_eq!(metrics["flocks"], 1.0, "{metrics}");
    let state = get_json(addr, "/api/state").await;
    let positions = points(&state["positions"]);
    let n = positions.len() as f64;
    let axis = |pick: fn(&Vec2) -> f32| {
        let values: Vec<f64> = positions.iter().map(|p| f64::from(pick(p))).collect();
        let mean = values.iter().sum::<f64>() / n;
        let reach = values.iter().fold(0.0f64, |r, v| r.max((v - mean).abs()));
        (mean, reach)
    };
    let ((mean_x, reach_x), (mean_y, reach_y)) = (axis(|p| p.x), axis(|p| p.y));
    assert!(reach_x.min(reach_y) > 10.0, "spread over the square");
    for key in ["largest", "whole"] {
        let focus = &metrics["focus"][key];
        let [x, y, w, h] = ["x", "y", "w", "h"].map(|k| focus[k].as_f64().unwrap());
        assert!(
            (x - mean_x).abs() < 1e-3 && (y - mean_y).abs() < 1e-3,
            "{key}: {focus} vs mean ({mean_x}, {mean_y})"
        );
        assert!(
            (w - reach_x).abs() < 1e-3 && (h - reach_y).abs() < 1e-3,
            "{key}: {focus} vs reach ({reach_x}, {reach_y})"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_every_capture_between_messages() {
    // Boids that do not flee, in a small box with four predators: captures every few steps.
    let addr = start(
        params(
            "predator",
            &[
                "count=200",
                "predator_count=4",
                "flee_factor=0",
                "capture_range=12",
            ],
        ),
        1000,
        true,
    )
    .await;
    let mut ws = connect(addr).await;
    let mut caught = 0.0;
    for _ in 0..8 {
        let m = ws.next_json("metrics", |_| true).await;
        caught += m["captures"].as_f64().unwrap();
        assert!(m["predator_distance"].as_f64().unwrap() > 0.0, "{m}");
        assert_eq!(m["obstacle_penetrations"], 0.0, "{m}");
    }
    assert!(caught > 0.0, "no captures in eight metrics messages");
}
