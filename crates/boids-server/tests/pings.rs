//! A client that sends WebSocket pings and never reads their pongs cannot grow the server: the
//! pongs that do not fit in the connection's bounded write buffer replace each other. A bounded
//! loop on loopback watches this process's resident memory (server and client both live here,
//! alone in this test binary, so nothing else grows it).

mod common;

use std::time::{Duration, Instant};

use common::*;
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

/// This process's resident set size, in bytes (Linux's `/proc/self/statm`, in pages).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Sends pings of 125 bytes (the most a control frame holds) for `how_long`; how many.
async fn ping_for(
    ws: &mut tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
    how_long: Duration,
) -> u64 {
    let (start, mut sent) = (Instant::now(), 0u64);
    while start.elapsed() < how_long {
        for _ in 0..1000 {
            ws.feed(Message::Ping(vec![7u8; 125].into())).await.unwrap();
        }
        ws.flush().await.unwrap();
        sent += 1000;
    }
    sent
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_pongs_do_not_grow_the_server() {
    if resident_bytes().is_none() {
        eprintln!("skipped: no /proc/self/statm to read the resident memory from");
        assert!(std::env::var("CI").is_err(), "CI runs on Linux");
        return;
    }
    let addr = start(params("cornell", &["count=100"]), 1000, false).await;
    let mut flood = connect_without_reading(addr).await;
    // Past the sockets' buffers (a few MB on loopback) before the first measure.
    let warm = ping_for(&mut flood, Duration::from_secs(1)).await;
    let before = resident_bytes().unwrap();
    let sent = ping_for(&mut flood, Duration::from_secs(3)).await;
    let after = resident_bytes().unwrap();
    let grown = after.saturating_sub(before);
    // Unbounded, every ping's pong (131 bytes) stays queued: 3 s of pings grew the server by
    // well over 100 MB. Bounded, the write buffer holds a frame of the largest flock the
    // server allows (1,000 boids here) and a slack of 1 MiB.
    eprintln!(
        "{warm} + {sent} pings: resident memory {:.1} MB -> {:.1} MB",
        before as f64 / 1e6,
        after as f64 / 1e6
    );
    assert!(
        sent > 100_000,
        "only {sent} pings sent in 3 s: the flood did not flood"
    );
    assert!(
        grown < 32 * 1024 * 1024,
        "{sent} unread pongs grew the server by {:.1} MB",
        grown as f64 / 1e6
    );
    // The server still answers the others.
    let mut other = connect(addr).await;
    other.next_frame().await;
}
