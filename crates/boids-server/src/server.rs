//! HTTP routes and the WebSocket connection loop.
//!
//! Each connection runs a reader, a replier and a writer side by side. The reader queues each
//! request to the engine as it arrives and goes on reading, so the socket keeps answering pings
//! while a long step runs; the replier waits for the engine's answers in request order; the
//! writer forwards whatever changed (state, frame and overlay, metrics, replies). A client that
//! reads slowly only slows its own writer, which then skips to the newest frame; the simulation
//! never waits for it. A client that sends faster than the engine answers has at most
//! [`MAX_IN_FLIGHT`] requests queued; then its reader waits. A client gets only frames of a
//! version it reads (`/ws?frames=2,3`; version 2 alone without it), and for a flock whose
//! frames it cannot read, one error message that says why ([`FrameVersions`]).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::future::BoxFuture;
use futures_util::{FutureExt, SinkExt, StreamExt};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::sync::{Semaphore, mpsc};
use tokio_tungstenite::tungstenite;

use crate::access::{self, Access};
use crate::engine::{ClientId, Engine};
use crate::protocol::{self, Request};

/// Largest WebSocket message the connection accepts at all; a longer one closes the
/// connection with code 1009 (message too big). Messages between
/// [`protocol::MAX_REQUEST_BYTES`] and this get an error reply instead.
pub const HARD_MESSAGE_LIMIT: usize = 1024 * 1024;

/// Most requests of one connection waiting for the engine; with this many the connection stops
/// reading until one is answered, so a flood of requests cannot grow the engine's queue.
const MAX_IN_FLIGHT: usize = 32;

/// How long a connection closed for a protocol error waits for its close frame to go out, and
/// then for the client to read it.
const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// Most viewers connected at once; one more is refused (503) until one leaves. Each holds at
/// most its write buffer ([`WRITE_SLACK`] beyond the largest frame), so together they hold a
/// bounded share of memory, however slowly they read.
pub const MAX_CLIENTS: usize = 64;

/// Room in a connection's write buffer beyond the largest frame its flock can make. What does
/// not fit waits: frames and replies in the writer (which sends the newest frame next), and
/// the pongs that tungstenite answers pings with, which then replace each other. Without the
/// bound, a client that sent pings and never read grew the server by every pong (55 MB a
/// second in the probe that found it).
const WRITE_SLACK: usize = 1 << 20;

/// How long a connection may take to send a request's headers before it is closed: a browser
/// sends them at once, and a half-sent request otherwise held its connection for good.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

static NEXT_CLIENT: AtomicU64 = AtomicU64::new(1);

/// A file of `web/`, compiled in and served at `route`.
struct Asset {
    route: &'static str,
    content_type: &'static str,
    body: &'static str,
}

/// The [`Asset`] of `web/$file`, served at `$route`.
macro_rules! asset {
    ($route:expr, $file:expr, $content_type:expr) => {
        Asset {
            route: $route,
            content_type: $content_type,
            body: include_str!(concat!("../../../web/", $file)),
        }
    };
}

/// The ES module `web/js/$name`, served at `/js/$name`.
macro_rules! js_module {
    ($name:literal) => {
        asset!(
            concat!("/js/", $name),
            concat!("js/", $name),
            "text/javascript; charset=utf-8"
        )
    };
}

/// Every file of the page: `web/` but its tests. `tests/assets.rs` fails when a file there is
/// missing from this list.
const ASSETS: &[Asset] = &[
    asset!("/", "index.html", "text/html; charset=utf-8"),
    asset!("/style.css", "style.css", "text/css; charset=utf-8"),
    js_module!("attractor-tools.js"),
    js_module!("camera.js"),
    js_module!("canvas2d.js"),
    js_module!("canvas3d.js"),
    js_module!("connection.js"),
    js_module!("constants.js"),
    js_module!("controls.js"),
    js_module!("crowd.js"),
    js_module!("dom.js"),
    js_module!("format.js"),
    js_module!("list-edit.js"),
    js_module!("main.js"),
    js_module!("obstacle-tools.js"),
    js_module!("obstacles.js"),
    js_module!("orbit.js"),
    js_module!("overlay-mode.js"),
    js_module!("overlays.js"),
    js_module!("overlays3d.js"),
    js_module!("parameters.js"),
    js_module!("plots.js"),
    js_module!("pointing.js"),
    js_module!("predator-tools.js"),
    js_module!("recorder.js"),
    js_module!("shortcuts.js"),
    js_module!("solids.js"),
    js_module!("stats.js"),
    js_module!("throttle.js"),
    js_module!("view.js"),
    js_module!("webgl.js"),
    js_module!("webgl3d.js"),
    js_module!("webm.js"),
    js_module!("wire.js"),
    js_module!("world-objects.js"),
    js_module!("world-tools.js"),
    js_module!("world3d.js"),
];

/// The routes of the viewer, behind the checks of `access`.
pub fn router(engine: Engine, access: Access) -> Router {
    let pages = ASSETS.iter().fold(Router::new(), |router, asset| {
        router.route(asset.route, get(move || async move { asset.response() }))
    });
    pages
        .route("/api/params", get(params))
        .route("/api/config.toml", get(config_toml))
        .route("/api/events", get(events))
        .route("/api/state", get(state))
        .route("/ws", get(upgrade))
        .with_state(engine)
        .layer(axum::Extension(Seats(Arc::new(Semaphore::new(
            MAX_CLIENTS,
        )))))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(access),
            access::guard,
        ))
}

impl Asset {
    fn response(&self) -> Response {
        ([(header::CONTENT_TYPE, self.content_type)], self.body).into_response()
    }
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the simulation has stopped",
    )
        .into_response()
}

fn download(content_type: &'static str, filename: &str, body: impl Into<Body>) -> Response {
    let body: Body = body.into();
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

/// The log streams from the text the engine keeps ([`boids_io::events::SessionLog`]): nothing is
/// serialised here, and parallel downloads share one copy of the events.
async fn events(State(engine): State<Engine>) -> Response {
    match engine.inspect(|e| e.event_log_text()).await {
        Ok(parts) => {
            let length: usize = parts.iter().map(Bytes::len).sum();
            let body = Body::from_stream(futures_util::stream::iter(
                parts.map(Ok::<Bytes, Infallible>),
            ));
            let mut response = download("application/json", "boids-events.json", body);
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            response
        }
        Err(_) => unavailable(),
    }
}

/// A large flock's state is megabytes of JSON text: written on a blocking thread, not on one of
/// the runtime's few workers that every connection shares.
async fn state(State(engine): State<Engine>) -> Response {
    let Ok(state) = engine.inspect(|e| e.state_json()).await else {
        return unavailable();
    };
    match tokio::task::spawn_blocking(move || state.to_string()).await {
        Ok(text) => download("application/json", "boids-state.json", text),
        Err(_) => unavailable(),
    }
}

/// The query of the WebSocket's URL.
#[derive(serde::Deserialize)]
struct SocketQuery {
    /// The frame versions the client reads, such as `2,3`.
    frames: Option<String>,
}

/// The frame versions a client reads, from `?frames=2,3` on the WebSocket's URL: version 2
/// alone without it, as every client read before version 3 (frames of a flock in three
/// dimensions) existed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameVersions(u32);

impl FrameVersions {
    /// Reads the `frames` query value: versions separated by commas.
    pub fn parse(list: Option<&str>) -> Result<FrameVersions, String> {
        let Some(list) = list else {
            return Ok(FrameVersions(1 << protocol::FRAME_VERSION));
        };
        let mut versions = 0;
        for item in list.split(',') {
            match item.trim().parse::<u8>() {
                Ok(v) if v < 32 => versions |= 1 << v,
                _ => {
                    return Err(format!(
                        "frames={list}: expected frame versions separated by commas, such as frames=2,3"
                    ));
                }
            }
        }
        Ok(FrameVersions(versions))
    }

    /// Whether frames of `version` are read.
    pub fn reads(self, version: u8) -> bool {
        version < 32 && self.0 & (1 << version) != 0
    }

    /// The versions read, as a list for a message.
    fn list(self) -> String {
        let versions: Vec<String> = (0..32u8)
            .filter(|&v| self.reads(v))
            .map(|v| v.to_string())
            .collect();
        versions.join(", ")
    }

    /// The error message for a client that does not read frames of `version`.
    fn refusal(self, version: u8) -> String {
        let (flock, other) = match version {
            protocol::FRAME_VERSION_3D => (
                "this flock has three dimensions: its frames are",
                "set dimensions = 2",
            ),
            _ => ("this flock is flat: its frames are", "set dimensions = 3"),
        };
        let reads = self.list();
        json!({
            "type": "error",
            "id": null,
            "message": format!(
                "{flock} version {version}, and this client reads frame versions {reads} only \
                 (say which it reads with /ws?frames=2,3); no frames are sent to it until the \
                 flock is one it reads: reload the viewer's page, or {other}"
            ),
        })
        .to_string()
    }
}

/// The viewers' places: [`MAX_CLIENTS`] permits, one held by each open WebSocket.
#[derive(Clone)]
struct Seats(Arc<Semaphore>);

async fn upgrade(
    ws: WebSocketUpgrade,
    State(engine): State<Engine>,
    axum::Extension(Seats(seats)): axum::Extension<Seats>,
    Query(query): Query<SocketQuery>,
) -> Response {
    let versions = match FrameVersions::parse(query.frames.as_deref()) {
        Ok(versions) => versions,
        Err(message) => return (StatusCode::BAD_REQUEST, message).into_response(),
    };
    let Ok(seat) = seats.try_acquire_owned() else {
        let message = format!(
            "{MAX_CLIENTS} viewers are connected, the most this server serves at once: close one and reload"
        );
        return (StatusCode::SERVICE_UNAVAILABLE, message).into_response();
    };
    let write_limit = protocol::largest_frame_bytes(engine.max_count()).saturating_add(WRITE_SLACK);
    ws.max_message_size(HARD_MESSAGE_LIMIT)
        .max_frame_size(HARD_MESSAGE_LIMIT)
        .max_write_buffer_size(write_limit)
        .on_upgrade(move |socket| async move {
            connection(socket, engine, versions).await;
            drop(seat);
        })
}

/// A reply to come: ready, or waiting for the engine.
type PendingReply = BoxFuture<'static, Option<String>>;

/// Which overlay message a client's writer forwards.
#[derive(Clone, Copy, PartialEq)]
enum Wants {
    Nothing,
    All,
    Hover,
}

async fn connection(socket: WebSocket, engine: Engine, versions: FrameVersions) {
    let client: ClientId = NEXT_CLIENT.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (pending_tx, mut pending) = mpsc::channel::<PendingReply>(MAX_IN_FLIGHT);
    let (reply_tx, mut replies) = mpsc::channel::<String>(MAX_IN_FLIGHT);
    let (wants_tx, wants) = tokio::sync::watch::channel(Wants::Nothing);

    // Ends with the close frame to send, if the client broke the protocol.
    let reader = {
        let engine = engine.clone();
        async move {
            loop {
                let message = match stream.next().await {
                    Some(Ok(message)) => message,
                    Some(Err(error)) => return close_frame_for(error),
                    None => return None,
                };
                let reply = match message {
                    Message::Text(text) => submit(&engine, client, text.as_str(), &wants_tx),
                    Message::Binary(bytes) => ready(Some(error_reply(
                        None,
                        &format!(
                            "binary message of {} bytes refused: requests are JSON text",
                            bytes.len()
                        ),
                    ))),
                    Message::Close(_) => return None,
                    // Pongs are sent for pings as the socket is read.
                    Message::Ping(_) | Message::Pong(_) => continue,
                };
                if pending_tx.send(reply).await.is_err() {
                    return None;
                }
            }
        }
    };

    let replier = async move {
        while let Some(reply) = pending.recv().await {
            if let Some(reply) = reply.await
                && reply_tx.send(reply).await.is_err()
            {
                return;
            }
        }
    };

    let (mut frames, mut state, mut metrics, mut notices) = (
        engine.frames.clone(),
        engine.state.clone(),
        engine.metrics.clone(),
        engine.notices.clone(),
    );
    // A notice is news: a page that connects later is not told what happened before it came.
    notices.borrow_and_update();
    let writer = async {
        frames.mark_changed();
        state.mark_changed();
        metrics.mark_changed();
        // The version this client was told it cannot read, until the flock changes again.
        let mut refused = None;
        loop {
            let message = tokio::select! {
                biased;
                Some(reply) = replies.recv() => Message::Text(reply.into()),
                Ok(()) = state.changed() => text_of(&state.borrow_and_update()),
                Ok(()) = frames.changed() => {
                    let snapshot = frames.borrow_and_update().clone();
                    if !versions.reads(snapshot.version) {
                        if refused.replace(snapshot.version) == Some(snapshot.version) {
                            continue;
                        }
                        Message::Text(versions.refusal(snapshot.version).into())
                    } else {
                    refused = None;
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
                }
                Ok(()) = metrics.changed() => text_of(&metrics.borrow_and_update()),
                Ok(()) = notices.changed() => text_of(&notices.borrow_and_update()),
                else => return,
            };
            if sink.send(message).await.is_err() {
                return;
            }
        }
    };

    let close = tokio::select! {
        close = reader => close,
        () = replier => None,
        () = writer => None,
    };
    if let Some(frame) = close {
        // Best effort: the client may be gone already. The rest of its message is unread, so
        // closing the socket resets the connection; a moment's wait lets the client read the
        // close frame first.
        let sent = tokio::time::timeout(CLOSE_GRACE, sink.send(Message::Close(Some(frame)))).await;
        if matches!(sent, Ok(Ok(()))) {
            tokio::time::sleep(CLOSE_GRACE).await;
        }
    }
    engine.forget(client);
}

/// The close frame for a connection whose client sent what the server does not read: a
/// message over [`HARD_MESSAGE_LIMIT`] gets 1009 (message too big), as the protocol asks,
/// rather than a dropped connection. Other errors (the connection broke) get none.
fn close_frame_for(error: axum::Error) -> Option<CloseFrame> {
    let error = error.into_inner().downcast::<tungstenite::Error>().ok()?;
    match *error {
        tungstenite::Error::Capacity(_) => Some(CloseFrame {
            code: close_code::SIZE,
            reason: Utf8Bytes::from(format!(
                "message too big: at most {HARD_MESSAGE_LIMIT} bytes"
            )),
        }),
        _ => None,
    }
}

fn text_of(text: &Arc<str>) -> Message {
    Message::Text(Utf8Bytes::from(text.as_ref()))
}

fn error_reply(id: Option<u64>, error: &dyn std::fmt::Display) -> String {
    json!({"type": "error", "id": id, "message": error.to_string()}).to_string()
}

fn ready(reply: Option<String>) -> PendingReply {
    std::future::ready(reply).boxed()
}

/// Queues the request in `text` to the engine (or refuses it) and returns its reply to come.
fn submit(
    engine: &Engine,
    client: ClientId,
    text: &str,
    wants: &tokio::sync::watch::Sender<Wants>,
) -> PendingReply {
    let envelope = protocol::parse_request(text);
    let id = envelope.id;
    let request = match envelope.request {
        Ok(request) => request,
        Err(error) => return ready(Some(error_reply(id, &error))),
    };
    if let Request::Overlay { mode, .. } = &request {
        // Before the engine publishes the overlay, so the writer does not skip it.
        wants.send_replace(match mode {
            protocol::OverlayMode::Off => Wants::Nothing,
            protocol::OverlayMode::All => Wants::All,
            protocol::OverlayMode::Hover => Wants::Hover,
        });
    }
    let done = engine.request(client, request);
    async move {
        match done.await {
            Ok(()) => id.map(|id| json!({"type": "ok", "id": id}).to_string()),
            Err(error) => Some(error_reply(id, &error)),
        }
    }
    .boxed()
}

/// A bound server, ready to run.
pub struct Server {
    listener: tokio::net::TcpListener,
    engine: Engine,
    access: Access,
}

impl Server {
    /// Checks the allowed hosts, starts the engine and binds the listen address (port 0 picks a
    /// free port).
    pub async fn bind(config: crate::ServerConfig) -> Result<Server, crate::ServerError> {
        let addr = config.listen;
        let access = Access::new(addr.ip(), &config.allowed_hosts)?;
        let engine = Engine::spawn(config.engine)?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|error| crate::ServerError::Bind { addr, error })?;
        Ok(Server {
            listener,
            engine,
            access,
        })
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

    /// Serves until the process ends: each connection on a task of its own, which closes it
    /// when its request headers take longer than [`HEADER_TIMEOUT`].
    pub async fn run(self) -> Result<(), crate::ServerError> {
        let app = router(self.engine, self.access);
        loop {
            let stream = match self.listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was taken: the
                // listener is fine, and another connection will come.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let service = TowerToHyperService::new(app.clone());
            tokio::spawn(async move {
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades();
                // A connection that breaks or times out ends here; the server goes on.
                let _ = connection.await;
            });
        }
    }
}
