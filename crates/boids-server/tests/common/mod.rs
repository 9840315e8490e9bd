//! Shared helpers of the server's integration tests: a server on an ephemeral loopback port, a
//! WebSocket client, and plain HTTP GETs.

#![allow(dead_code)] // each test binary uses its own subset

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use boids_core::{Dim, Dimension, EngineKind, Params, ParamsBuilder, Source};
use boids_server::protocol::{DecodedFrame, OverlayMessage, decode_frame};
use boids_server::{EngineConfig, Server, ServerConfig, budget};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Long enough for a debug build on a loaded machine; only reached when something is broken.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// `preset` with `assignments` applied.
pub fn params(preset: &str, assignments: &[&str]) -> Params {
    let mut builder = ParamsBuilder::preset(preset).unwrap();
    for a in assignments {
        builder = builder.apply_assignment(a, Source::Message).unwrap();
    }
    builder.build().unwrap()
}

/// The configuration of [`start`]: 127.0.0.1 with an ephemeral port, 1000 steps a second, the
/// default pair budget, no other hosts allowed.
pub fn config(params: Params, max_count: usize, running: bool) -> ServerConfig {
    ServerConfig {
        engine: EngineConfig {
            params: ParamsBuilder::from_params(params, Source::Preset("cornell".into())),
            preset: "cornell".into(),
            seed: 3,
            engine: EngineKind::Cpu,
            max_count,
            max_pairs: budget::DEFAULT_MAX_PAIRS,
            steps_per_second: 1000.0,
            running,
            start: None,
            history: Vec::new(),
        },
        listen: "127.0.0.1:0".parse().unwrap(),
        allowed_hosts: Vec::new(),
    }
}

/// Starts a server; it runs until the test's runtime ends.
pub async fn start_with(config: ServerConfig) -> SocketAddr {
    let server = Server::bind(config).await.unwrap();
    let addr = server.local_addr();
    tokio::spawn(server.run());
    addr
}

/// Starts a server of [`config`].
pub async fn start(params: Params, max_count: usize, running: bool) -> SocketAddr {
    start_with(config(params, max_count, running)).await
}

/// A WebSocket client that keeps the messages it read but did not want yet (a reply and a
/// broadcast may arrive in either order): every text and overlay message, and the latest frame.
pub struct Client {
    ws: Ws,
    backlog: VecDeque<Message>,
    latest_frame: Option<Message>,
}

pub async fn connect(addr: SocketAddr) -> Client {
    connect_with(addr, &[]).await.unwrap()
}

/// Opens the WebSocket at `path` (`/ws` with a query).
pub async fn connect_to(addr: SocketAddr, path: &str) -> Client {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}{path}"))
        .await
        .unwrap();
    Client {
        ws,
        backlog: VecDeque::new(),
        latest_frame: None,
    }
}

/// Opens the WebSocket with extra request headers (`Origin`, `Host`, as a browser sends them).
pub async fn connect_with(
    addr: SocketAddr,
    headers: &[(&str, &str)],
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    let (ws, _) = tokio_tungstenite::connect_async(request).await?;
    Ok(Client {
        ws,
        backlog: VecDeque::new(),
        latest_frame: None,
    })
}

/// A client with a tiny receive buffer, for the test to never read from.
pub async fn connect_without_reading(
    addr: SocketAddr,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    tokio_tungstenite::client_async(format!("ws://{addr}/ws"), stream)
        .await
        .unwrap()
        .0
}

fn is_frame(m: &Message) -> bool {
    matches!(m, Message::Binary(b) if b.get(5) == Some(&1))
}

impl Client {
    /// The first message, kept or new, that `f` accepts.
    pub async fn next_matching<T>(&mut self, mut f: impl FnMut(&Message) -> Option<T>) -> T {
        if let Some((k, t)) = self
            .backlog
            .iter()
            .enumerate()
            .find_map(|(k, m)| f(m).map(|t| (k, t)))
        {
            self.backlog.remove(k);
            return t;
        }
        if let Some(t) = self.latest_frame.as_ref().and_then(&mut f) {
            self.latest_frame = None;
            return t;
        }
        tokio::time::timeout(PATIENCE, async {
            loop {
                let message = self
                    .ws
                    .next()
                    .await
                    .expect("the server closed the connection")
                    .expect("a WebSocket error");
                if let Some(t) = f(&message) {
                    return t;
                }
                if is_frame(&message) {
                    self.latest_frame = Some(message);
                } else {
                    if self.backlog.len() == 1000 {
                        self.backlog.pop_front();
                    }
                    self.backlog.push_back(message);
                }
            }
        })
        .await
        .expect("no matching message in time")
    }

    pub async fn next_frame(&mut self) -> DecodedFrame {
        self.next_frame_of::<2>().await
    }

    /// The next frame of a flock of `D` dimensions (version 2 or 3).
    pub async fn next_frame_of<const D: usize>(&mut self) -> DecodedFrame<D>
    where
        Dim<D>: Dimension<D>,
    {
        let version = boids_server::protocol::frame_version(D);
        self.next_matching(|m| match m {
            Message::Binary(b) if is_frame(m) && b[4] == version => Some(decode_frame(b).unwrap()),
            _ => None,
        })
        .await
    }

    /// The next frame at or after `step`.
    pub async fn frame_at_least(&mut self, step: u64) -> DecodedFrame {
        loop {
            let frame = self.next_frame().await;
            if frame.header.step >= step {
                return frame;
            }
        }
    }

    pub async fn next_overlay(&mut self) -> OverlayMessage {
        self.next_overlay_of::<2>().await
    }

    /// The next overlay of a flock of `D` dimensions (version 2 or 3).
    pub async fn next_overlay_of<const D: usize>(&mut self) -> OverlayMessage<D>
    where
        Dim<D>: Dimension<D>,
    {
        let version = boids_server::protocol::overlay_version(D);
        self.next_matching(|m| match m {
            Message::Binary(b) if b.get(5) == Some(&2) && b[4] == version => {
                Some(OverlayMessage::decode(b).unwrap())
            }
            _ => None,
        })
        .await
    }

    /// The next JSON message whose `type` is `kind` and that satisfies `pred`.
    pub async fn next_json(&mut self, kind: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.next_matching(|m| match m {
            Message::Text(t) => {
                let v: Value = serde_json::from_str(t).unwrap();
                (v["type"] == kind && pred(&v)).then_some(v)
            }
            _ => None,
        })
        .await
    }

    /// The reply (`ok` or `error`) to the request with `id`.
    pub async fn reply(&mut self, id: u64) -> Value {
        self.next_matching(|m| match m {
            Message::Text(t) => {
                let v: Value = serde_json::from_str(t).unwrap();
                (matches!(v["type"].as_str(), Some("ok" | "error")) && v["id"] == id).then_some(v)
            }
            _ => None,
        })
        .await
    }

    pub async fn send_message(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    pub async fn try_send_message(
        &mut self,
        message: Message,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.ws.send(message).await
    }

    /// Queues a message without waiting for it to go out (see [`Client::flush`]).
    pub async fn feed(&mut self, value: Value) {
        self.ws
            .feed(Message::Text(value.to_string().into()))
            .await
            .unwrap();
    }

    pub async fn flush(&mut self) {
        self.ws.flush().await.unwrap();
    }

    /// The next message as it comes, whatever it is; `None` when the connection ended, with or
    /// without an error.
    pub async fn next_raw(&mut self) -> Option<Message> {
        tokio::time::timeout(PATIENCE, self.ws.next())
            .await
            .expect("no message in time")
            .and_then(Result::ok)
    }

    pub async fn send(&mut self, value: Value) {
        self.send_message(Message::Text(value.to_string().into()))
            .await;
    }

    /// Sends a request with `id` and returns its reply.
    pub async fn call(&mut self, id: u64, mut value: Value) -> Value {
        value["id"] = id.into();
        self.send(value).await;
        self.reply(id).await
    }
}

/// GET `path` over HTTP/1.0 with these header lines (`Host` among them, or none); returns the
/// status code, the response's head and its body.
pub async fn get_with(addr: SocketAddr, path: &str, headers: &[&str]) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!("GET {path} HTTP/1.0\r\n");
    for h in headers {
        request += &format!("{h}\r\n");
    }
    request += "\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_owned(), body.to_owned())
}

/// GET `path` over HTTP/1.0 as for this machine; returns the body.
pub async fn get(addr: SocketAddr, path: &str) -> String {
    let (status, head, body) = get_with(addr, path, &[&format!("Host: {addr}")]).await;
    assert_eq!(status, 200, "{head}");
    body
}

pub async fn get_json(addr: SocketAddr, path: &str) -> Value {
    serde_json::from_str(&get(addr, path).await).unwrap()
}

/// The current value of a parameter, from `/api/params`.
pub async fn param(addr: SocketAddr, name: &str) -> Value {
    let d = get_json(addr, "/api/params").await;
    d["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()["value"]
        .clone()
}

/// `[[x, y], ...]` from `/api/state`, as the `f32` vectors the server holds.
pub fn points(v: &Value) -> Vec<boids_core::Vec2> {
    serde_json::from_value::<Vec<[f32; 2]>>(v.clone())
        .unwrap()
        .into_iter()
        .map(boids_core::Vec2::from)
        .collect()
}
