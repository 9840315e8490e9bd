//! Watches a running viewer like a page would and reports what it receives: frames per second,
//! bytes per frame and per boid, and the server's own step rate (from its metrics messages).
//!
//! ```text
//! boids serve --count 100000 --set world_width=6400 --set world_height=4800 --speed 1000 --port 8124 &
//! cargo run --release -p boids-server --example measure -- 127.0.0.1:8124 10
//! ```

use std::time::{Duration, Instant};

use boids_server::protocol::decode_frame;
use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8000".to_owned());
    let seconds: u64 = args.next().map_or(10, |s| s.parse().expect("seconds"));
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("a viewer at that address");
    let (mut frames, mut bytes, mut boids) = (0u64, 0usize, 0usize);
    let (mut first_step, mut last_step) = (None, 0u64);
    let mut rates = Vec::new();
    let (mut step_ms, mut publish_ms, mut measure_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut decode = Duration::ZERO;
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(end.into(), ws.next()).await {
        match message {
            Message::Binary(b) if b.get(5) == Some(&1) => {
                let t = Instant::now();
                let frame = decode_frame::<2>(&b).expect("a valid frame");
                decode += t.elapsed();
                frames += 1;
                bytes += b.len();
                boids = frame.positions.len();
                first_step.get_or_insert(frame.header.step);
                last_step = frame.header.step;
            }
            Message::Text(t) => {
                let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                if v["type"] == "metrics" && v["steps_per_second"].as_f64() > Some(0.0) {
                    rates.push(v["steps_per_second"].as_f64().unwrap());
                    step_ms.push(v["step_ms"].as_f64().unwrap());
                    publish_ms.push(v["publish_ms"].as_f64().unwrap());
                    measure_ms.push(v["measure_ms"].as_f64().unwrap());
                }
            }
            _ => {}
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let per_frame = bytes as f64 / frames.max(1) as f64;
    println!("{boids} boids over {elapsed:.1} s:");
    println!(
        "  frames received      {frames} ({:.1} per second)",
        frames as f64 / elapsed
    );
    println!(
        "  frame size           {per_frame:.0} bytes ({:.2} per boid), {:.1} MB/s",
        per_frame / boids.max(1) as f64,
        bytes as f64 / elapsed / 1e6
    );
    println!(
        "  steps seen           {} ({:.1} per second)",
        last_step - first_step.unwrap_or(0),
        (last_step - first_step.unwrap_or(0)) as f64 / elapsed
    );
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "  server (medians of its metrics messages): {:.1} steps/s, {:.2} ms per step, \
         {:.2} ms to encode and publish a frame, {:.1} ms to measure the metrics",
        median(&mut rates),
        median(&mut step_ms),
        median(&mut publish_ms),
        median(&mut measure_ms)
    );
    println!(
        "  decode (Rust)        {:.2} ms per frame",
        decode.as_secs_f64() * 1000.0 / frames.max(1) as f64
    );
}
