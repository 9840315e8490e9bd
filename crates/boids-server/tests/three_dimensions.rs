//! A flock in three dimensions over the WebSocket: a live change of `dimensions` switches the
//! flock, clients that read frame version 3 get it, and a client that reads version 2 only gets
//! an error message that says why instead of frames it would misread.

mod common;

use std::time::Duration;

use common::{connect, connect_to, get_json, params, start};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn world_edits_in_three_dimensions_are_refused_by_name() {
    let addr = start(
        params("cornell", &["count=100", "dimensions=3"]),
        10_000,
        false,
    )
    .await;
    let mut client = connect_to(addr, "/ws?frames=3").await;
    assert_eq!(client.next_frame_of::<3>().await.positions.len(), 100);
    for (id, request) in [
        (1, json!({"type": "place_predator", "x": 10.0, "y": 10.0})),
        (2, json!({"type": "remove_predator", "index": 0})),
        (3, json!({"type": "pointer", "x": 10.0, "y": 10.0})),
    ] {
        let reply = client.call(id, request).await;
        assert_eq!(reply["type"], "error", "{reply}");
        let message = reply["message"].as_str().unwrap();
        assert!(message.contains("three dimensions"), "{id}: {message}");
    }
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
