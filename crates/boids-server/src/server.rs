//! HTTP routes and the WebSocket connection loop.
//!
//! Each connection runs a reader and a writer side by side. The reader turns requests into
//! engine calls and queues their replies; the writer forwards whatever changed (state, frame and
//! overlay, metrics, replies). A client that reads slowly only slows its own writer, which then
//! skips to the newest frame; the simulation never waits for it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::sync::mpsc;

use crate::engine::{ClientId, Engine};
use crate::protocol::{self, Request};

/// Largest WebSocket message the connection accepts at all; a longer one closes the
/// connection. Messages between [`protocol::MAX_REQUEST_BYTES`] and this get an error reply instead.
pub const HARD_MESSAGE_LIMIT: usize = 1024 * 1024;

static NEXT_CLIENT: AtomicU64 = AtomicU64::new(1);

/// The files of `web/`, compiled in.
const INDEX_HTML: &str = include_str!("../../../web/index.html");
const APP_JS: &str = include_str!("../../../web/app.js");
const STYLE_CSS: &str = include_str!("../../../web/style.css");

/// The routes of the viewer.
pub fn router(engine: Engine) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/params", get(params))
        .route("/api/config.toml", get(config_toml))
        .route("/api/events", get(events))
        .route("/api/state", get(state))
        .route("/ws", get(upgrade))
        .with_state(engine)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the simulation has stopped",
    )
        .into_response()
}

fn download(content_type: &'static str, filename: &str, body: String) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

async fn params(State(engine): State<Engine>) -> Response {
    match engine.inspect(|e| e.params_description()).await {
        Ok(d) => ([(header::CACHE_CONTROL, "no-store")], axum::Json(d)).into_response(),
        Err(_) => unavailable(),
    }
}

async fn config_toml(State(engine): State<Engine>) -> Response {
    match engine
        .inspect(|e| (e.config_toml(), format!("boids-{}.toml", e.preset())))
        .await
    {
        Ok((text, name)) => download("application/toml; charset=utf-8", &name, text),
        Err(_) => unavailable(),
    }
}

async fn events(State(engine): State<Engine>) -> Response {
    match engine.inspect(|e| e.event_log()).await {
        Ok(log) => {
            let text = serde_json::to_string_pretty(&log).expect("the log serialises");
            download("application/json", "boids-events.json", text)
        }
        Err(_) => unavailable(),
    }
}

async fn state(State(engine): State<Engine>) -> Response {
    match engine.inspect(|e| e.state_json()).await {
        Ok(s) => download("application/json", "boids-state.json", s.to_string()),
        Err(_) => unavailable(),
    }
}

async fn upgrade(ws: WebSocketUpgrade, State(engine): State<Engine>) -> Response {
    ws.max_message_size(HARD_MESSAGE_LIMIT)
        .max_frame_size(HARD_MESSAGE_LIMIT)
        .on_upgrade(move |socket| connection(socket, engine))
}

/// Which overlay message a client's writer forwards.
#[derive(Clone, Copy, PartialEq)]
enum Wants {
    Nothing,
    All,
    Hover,
}

async fn connection(socket: WebSocket, engine: Engine) {
    let client: ClientId = NEXT_CLIENT.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (reply_tx, mut replies) = mpsc::channel::<String>(64);
    let (wants_tx, wants) = tokio::sync::watch::channel(Wants::Nothing);

    let reader = {
        let engine = engine.clone();
        async move {
            while let Some(Ok(message)) = stream.next().await {
                let reply = match message {
                    Message::Text(text) => {
                        handle_text(&engine, client, text.as_str(), &wants_tx).await
                    }
                    Message::Binary(bytes) => Some(error_reply(
                        None,
                        &format!(
                            "binary message of {} bytes refused: requests are JSON text",
                            bytes.len()
                        ),
                    )),
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                if let Some(reply) = reply
                    && reply_tx.send(reply).await.is_err()
                {
                    break;
                }
            }
        }
    };

    let (mut frames, mut state, mut metrics) = (
        engine.frames.clone(),
        engine.state.clone(),
        engine.metrics.clone(),
    );
    let writer = async move {
        frames.mark_changed();
        state.mark_changed();
        metrics.mark_changed();
        loop {
            let message = tokio::select! {
                biased;
                Some(reply) = replies.recv() => Message::Text(reply.into()),
                Ok(()) = state.changed() => text_of(&state.borrow_and_update()),
                Ok(()) = frames.changed() => {
                    let snapshot = frames.borrow_and_update().clone();
                    if sink.send(Message::Binary(snapshot.frame.clone())).await.is_err() {
                        return;
                    }
                    let overlay = match *wants.borrow() {
                        Wants::Nothing => None,
                        Wants::All => snapshot.all.clone(),
                        Wants::Hover => snapshot.hover.get(&client).cloned(),
                    };
                    match overlay {
                        Some(bytes) => Message::Binary(bytes),
                        None => continue,
                    }
                }
                Ok(()) = metrics.changed() => text_of(&metrics.borrow_and_update()),
                else => return,
            };
            if sink.send(message).await.is_err() {
                return;
            }
        }
    };

    tokio::select! {
        () = reader => {}
        () = writer => {}
    }
    engine.forget(client);
}

fn text_of(text: &Arc<str>) -> Message {
    Message::Text(Utf8Bytes::from(text.as_ref()))
}

fn error_reply(id: Option<u64>, message: &str) -> String {
    json!({"type": "error", "id": id, "message": message}).to_string()
}

async fn handle_text(
    engine: &Engine,
    client: ClientId,
    text: &str,
    wants: &tokio::sync::watch::Sender<Wants>,
) -> Option<String> {
    let envelope = protocol::parse_request(text);
    let request = match envelope.request {
        Ok(request) => request,
        Err(message) => return Some(error_reply(envelope.id, &message)),
    };
    if let Request::Overlay { mode, .. } = &request {
        // Before the engine publishes the overlay, so the writer does not skip it.
        wants.send_replace(match mode {
            protocol::OverlayMode::Off => Wants::Nothing,
            protocol::OverlayMode::All => Wants::All,
            protocol::OverlayMode::Hover => Wants::Hover,
        });
    }
    match engine.request(client, request).await {
        Ok(()) => envelope
            .id
            .map(|id| json!({"type": "ok", "id": id}).to_string()),
        Err(message) => Some(error_reply(envelope.id, &message)),
    }
}

/// A bound server, ready to run.
pub struct Server {
    listener: tokio::net::TcpListener,
    engine: Engine,
}

impl Server {
    /// Starts the engine and binds `addr` (port 0 picks a free port).
    pub async fn bind(
        engine: crate::EngineConfig,
        addr: SocketAddr,
    ) -> Result<Server, crate::ServerError> {
        let engine = Engine::spawn(engine)?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| crate::ServerError::Bind { addr, source })?;
        Ok(Server { listener, engine })
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The URL to open in a browser.
    pub fn url(&self) -> String {
        let addr = self.local_addr();
        let host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_owned()
        } else {
            addr.ip().to_string()
        };
        match addr.ip() {
            std::net::IpAddr::V6(_) if !addr.ip().is_unspecified() => {
                format!("http://[{host}]:{}/", addr.port())
            }
            _ => format!("http://{host}:{}/", addr.port()),
        }
    }

    /// The engine, for callers that drive it in-process.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Serves until the process ends.
    pub async fn run(self) -> Result<(), crate::ServerError> {
        axum::serve(self.listener, router(self.engine))
            .await
            .map_err(crate::ServerError::Io)
    }
}
