//! A flock in three dimensions over the WebSocket: a live change of `dimensions` switches the
//! flock, clients that read frame version 3 get it, and a client that reads version 2 only gets
//! an error message that says why instead of frames it would misread; its world is edited with
//! points and shapes of three dimensions.

mod common;

use std::time::Duration;

use boids_io::events::EventLog;
use common::{connect, connect_to, get, get_json, params, start};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// Every message `client` receives for `time`.
async fn messages_for(client: &mut common::Client, time: Duration) -> Vec<Message> {
    let mut seen = Vec::new();
    let _ = tokio::time::timeout(time, async {
        while let Some(message) = client.next_raw().await {
            seen.push(message);
        }
    })
    .await;
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_change_of_dimensions_sends_version_3_frames_to_clients_that_read_them() {
    let addr = start(params("cornell", &["count=300"]), 10_000, true).await;
    let mut old = connect(addr).await;
    let mut new = connect_to(addr, "/ws?frames=2,3").await;
    assert_eq!(old.next_frame().await.positions.len(), 300);
    assert_eq!(new.next_frame().await.positions.len(), 300);

    let reply = new
        .call(1, json!({"type": "set", "key": "dimensions", "value": 3}))
        .await;
    assert_eq!(reply["type"], "ok", "{reply}");
    let frame = new.next_frame_of::<3>().await;
    assert_eq!(frame.positions.len(), 300);
    assert_eq!(frame.header.world.min, [0.0, 0.0, 0.0]);
    assert_eq!(frame.header.world.size, [640.0, 480.0, 480.0]);
    let depths: Vec<f32> = frame.positions.iter().map(|p| p.z).collect();
    assert!(depths.iter().all(|&z| (-1.0..=481.0).contains(&z)));
    assert!(
        depths.iter().any(|&z| z > 100.0) && depths.iter().any(|&z| z < 380.0),
        "the boids are spread in z: {depths:?}"
    );

    // The old client is told why, once, and gets no frames while the flock has three dimensions.
    let error = old.next_json("error", |e| e["id"].is_null()).await;
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("three dimensions"), "{message}");
    assert!(message.contains("version 3"), "{message}");
    assert!(message.contains("dimensions = 2"), "{message}");
    let later = messages_for(&mut old, Duration::from_millis(400)).await;
    assert!(
        later.iter().all(|m| matches!(m, Message::Text(_))),
        "only text after the refusal"
    );
    let errors = later
        .iter()
        .filter(|m| matches!(m, Message::Text(t) if t.contains("\"error\"")))
        .count();
    assert_eq!(errors, 0, "the refusal comes once");

    // The state says so, the flock's state has z, and the log begins the 3D flock afresh.
    let state = get_json(addr, "/api/state").await;
    assert_eq!(state["positions"][0].as_array().unwrap().len(), 3);
    let log = get_json(addr, "/api/events").await;
    assert_eq!(log["events"][0]["kind"], "reset");
    assert_eq!(log["events"][0]["params"]["dimensions"], 3);

    // Back to two: both get version 2 frames again.
    let reply = new
        .call(2, json!({"type": "set", "key": "dimensions", "value": 2}))
        .await;
    assert_eq!(reply["type"], "ok", "{reply}");
    assert_eq!(old.next_frame().await.positions.len(), 300);
    assert_eq!(new.next_frame().await.positions.len(), 300);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hover_overlay_in_three_dimensions_is_of_the_boid_at_the_picked_point() {
    let addr = start(
        params("cornell", &["count=200", "dimensions=3"]),
        10_000,
        false,
    )
    .await;
    let mut client = connect_to(addr, "/ws?frames=2,3").await;
    let frame = client.next_frame_of::<3>().await;
    let at = frame.positions[17];
    let reply = client
        .call(
            1,
            json!({"type": "overlay", "mode": "hover", "x": at.x, "y": at.y, "z": at.z, "radius": 1.0}),
        )
        .await;
    assert_eq!(reply["type"], "ok", "{reply}");
    let message = client.next_overlay_of::<3>().await;
    let [boid] = &message.overlay.boids[..] else {
        panic!("one boid: {:?}", message.overlay.boids);
    };
    assert!(
        (boid.position - at).length() < 0.1,
        "{} vs {at}",
        boid.position
    );
    assert!(!boid.links.is_empty(), "its neighbours come as links");
    assert!(
        boid.links
            .iter()
            .all(|l| (*l - boid.position).length() <= 40.0)
    );
}

/// A session in three dimensions that edits the world as the page does: a sphere and a box, an
/// attractor, a predator placed and the pointer's moved with z; the frames carry them, the state
/// holds them with z, and the event log replays to the server's exact state. Points and shapes
/// of the other dimension get an error reply and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn world_edits_in_three_dimensions_show_in_frames_and_replay_exactly() {
    let addr = start(
        params("cornell", &["count=150", "dimensions=3"]),
        10_000,
        true,
    )
    .await;
    let mut client = connect_to(addr, "/ws?frames=3").await;
    assert_eq!(client.next_frame_of::<3>().await.positions.len(), 150);
    let edits = [
        json!({"type": "set", "key": "obstacles", "value": [
            {"shape": "sphere", "center": [320.0, 240.0, 240.0], "radius": 50.0},
            {"shape": "box", "min": [60.0, 60.0, 60.0], "max": [120.0, 100.0, 140.0]}]}),
        json!({"type": "set", "key": "attractors", "value": [[500.0, 200.0, 100.0]]}),
        json!({"type": "place_predator", "x": 100.0, "y": 380.0, "z": 400.0}),
        json!({"type": "pointer", "x": 500.0, "y": 100.0, "z": 60.0}),
        json!({"type": "pointer", "x": 505.0, "y": 104.0, "z": 64.0}),
    ];
    for (id, request) in (1..).zip(edits) {
        let step = client.next_frame_of::<3>().await.header.step;
        while client.next_frame_of::<3>().await.header.step < step + 5 {}
        let reply = client.call(id, request.clone()).await;
        assert_eq!(reply["type"], "ok", "{request}: {reply}");
    }
    // A frame of a later step than the last edit's shows it.
    let step = client.next_frame_of::<3>().await.header.step;
    let mut frame = client.next_frame_of::<3>().await;
    while frame.header.step <= step + 1 {
        frame = client.next_frame_of::<3>().await;
    }
    assert_eq!(
        frame.predators.len(),
        2,
        "the placed predator and the pointer's"
    );
    let (pointer, _, is_pointer) = frame.predators[1];
    assert!(is_pointer, "the pointer's predator comes last");
    assert!(
        (pointer - boids_core::Vec3::new(505.0, 104.0, 64.0)).length() < 0.1,
        "{pointer}"
    );

    for (id, request, expected) in [
        (
            20,
            json!({"type": "place_predator", "x": 10.0, "y": 10.0}),
            "a point of 2 coordinates, but the flock has 3 dimensions: send x and y and z",
        ),
        (
            21,
            json!({"type": "pointer", "x": 10.0, "y": 10.0}),
            "a point of 2 coordinates",
        ),
        (
            22,
            json!({"type": "set", "key": "attractors", "value": [[1.0, 2.0]]}),
            "attractors",
        ),
        (
            23,
            json!({"type": "set", "key": "obstacles", "value": [
                {"shape": "circle", "center": [1.0, 2.0], "radius": 3.0}]}),
            "circle",
        ),
        (
            24,
            json!({"type": "set", "key": "obstacles", "value": [
                {"shape": "wall", "points": [[1.0, 2.0], [3.0, 4.0]]}]}),
            "wall",
        ),
    ] {
        let reply = client.call(id, request.clone()).await;
        assert_eq!(reply["type"], "error", "{request}: {reply}");
        let message = reply["message"].as_str().unwrap();
        assert!(message.contains(expected), "{request}: {message}");
    }
    let reply = client.call(30, json!({"type": "stop"})).await;
    assert_eq!(reply["type"], "ok", "{reply}");

    let state = get_json(addr, "/api/state").await;
    let predators: Vec<[f32; 6]> = serde_json::from_value(state["predators"].clone()).unwrap();
    assert_eq!(predators.len(), 1, "the state holds the placed predator");
    let config = get(addr, "/api/config.toml").await;
    assert!(
        config.contains("shape = \"sphere\"") && config.contains("[500.0, 200.0, 100.0]"),
        "{config}"
    );
    let log = EventLog::parse(&get(addr, "/api/events").await, "session.json").unwrap();
    assert_eq!(log.dimensions("session.json").unwrap(), 3);
    let (mut sim, mut replay) = log.replay::<3>("session.json").unwrap();
    replay
        .run_to(&mut sim, log.exported_at_step.unwrap())
        .unwrap();
    assert_eq!(replay.remaining(), 0);
    let expected = sim.state();
    let positions: Vec<[f32; 3]> = serde_json::from_value(state["positions"].clone()).unwrap();
    assert_eq!(
        positions,
        expected
            .positions
            .iter()
            .map(|p| p.to_array())
            .collect::<Vec<_>>()
    );
    let replayed: Vec<[f32; 6]> = expected
        .predators
        .iter()
        .map(|p| {
            let (at, v) = (p.position.to_array(), p.velocity.to_array());
            [at[0], at[1], at[2], v[0], v[1], v[2]]
        })
        .collect();
    assert_eq!(predators, replayed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_of_frame_versions_that_is_not_one_is_refused() {
    let addr = start(params("cornell", &["count=10"]), 1000, false).await;
    let refused = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?frames=two")).await;
    let Err(tokio_tungstenite::tungstenite::Error::Http(response)) = refused else {
        panic!("the upgrade went through");
    };
    assert_eq!(response.status(), 400);
    let body = String::from_utf8(response.body().clone().unwrap_or_default()).unwrap();
    assert!(body.contains("frames=two"), "{body}");
}
