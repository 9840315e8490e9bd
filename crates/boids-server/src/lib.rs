//! # boids-server
//!
//! The live browser viewer behind `boids serve`: the simulation runs natively on its own thread
//! at a fixed time step ([`engine`]); browsers get compact binary frames over a WebSocket and
//! send small JSON requests ([`protocol`]); every parameter change and reset is logged so that
//! `boids run --events` replays a session to the same state (the event log of
//! [`boids_io::events`]). The page (`web/`,
//! HTML, CSS and ES modules) is compiled into the binary, so there is no build step and nothing to
//! install beside it.
//!
//! ```no_run
//! use boids_core::EngineKind;
//! use boids_server::{EngineConfig, Server, ServerConfig, budget};
//! # async fn demo() -> Result<(), boids_server::ServerError> {
//! let params = boids_core::ParamsBuilder::preset("cornell").unwrap();
//! let config = ServerConfig {
//!     engine: EngineConfig {
//!         params,
//!         preset: "cornell".into(),
//!         seed: 0,
//!         engine: EngineKind::Cpu,
//!         max_count: 200_000,
//!         max_pairs: budget::DEFAULT_MAX_PAIRS,
//!         steps_per_second: 60.0,
//!         running: true,
//!         start: None,
//!         history: Vec::new(),
//!     },
//!     listen: "127.0.0.1:8000".parse().unwrap(),
//!     allowed_hosts: Vec::new(),
//! };
//! let server = Server::bind(config).await?;
//! println!("open {}", server.url());
//! server.run().await
//! # }
//! ```
//!
//! HTTP routes: `/` (the page, with `/style.css` and its ES modules at `/js/<name>.js`), `/ws`
//! (the WebSocket), `/api/params` (every parameter with its value, range and slider hints),
//! `/api/config.toml` (the current parameters as a config file for `--config`), `/api/events`
//! (the event log), `/api/state` (the flock in id order, exact).
//! Every route answers only requests addressed to this machine or to a name allowed by
//! [`ServerConfig::allowed_hosts`], and the WebSocket only pages of the viewer's own origin
//! ([`access`]).

pub mod access;
pub mod budget;
mod describe;
pub mod engine;
mod error;
pub mod protocol;
mod server;

use std::net::SocketAddr;

pub use engine::{Engine, EngineConfig, EngineState};
pub use error::RequestError;
pub use server::{FrameVersions, HARD_MESSAGE_LIMIT, HEADER_TIMEOUT, MAX_CLIENTS, Server, router};

/// Everything a server starts from.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The simulation.
    pub engine: EngineConfig,
    /// Address to listen on (port 0 picks a free port).
    pub listen: SocketAddr,
    /// Host names or addresses the server answers to besides this machine's loopback names
    /// and the listen address (`--allow-host`), for a viewer exposed on purpose; pages from
    /// these hosts may also connect to the WebSocket.
    pub allowed_hosts: Vec<String>,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The address is taken or not allowed.
    #[error("cannot listen on {addr}: {error}{}", bind_hint(error))]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The system's reason (part of the message, not a `source()`, so that a caller that
        /// prints the chain shows it once).
        error: std::io::Error,
    },
    /// An `--allow-host` value is not a host name or address.
    #[error(
        "--allow-host {name:?} is not a host name or address: {reason} (e.g. --allow-host 192.168.1.20 or --allow-host boids.example.org)"
    )]
    AllowedHost {
        /// The value.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The starting flock is larger than the server's cap.
    #[error(
        "count = {count} is out of range: allowed [1, {max}] (raise --max-count to allow more)"
    )]
    CountAboveCap {
        /// Requested count.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// The starting flock would cost more a step than the server allows clients to ask for.
    #[error(
        "the flock would cost {work}: allowed at most {max:.2e} (raise --max-pairs to allow more)"
    )]
    WorkAboveBudget {
        /// The flock's estimated work.
        work: budget::Work,
        /// The budget.
        max: f64,
    },
    /// The event log of the session to carry on does not fit in the server's log.
    #[error(
        "the event log to carry on is too long: more than {} bytes of events (the viewer keeps at most {})",
        .0.bytes,
        .0.limit
    )]
    HistoryTooLong(boids_io::events::LogFull),
    /// The starting parameters are not allowed.
    #[error(transparent)]
    Params(#[from] boids_core::ParamsError),
    /// The flock cannot be built.
    #[error(transparent)]
    State(#[from] boids_core::StateError),
    /// An I/O error while serving.
    #[error("server error: {0}")]
    Io(std::io::Error),
}

/// What to do about a bind error, for its message.
fn bind_hint(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => {
            " (another program uses this port: choose another with --port, or --port 0 to pick a free one)"
        }
        _ => "",
    }
}

/// Runs the server on a new multi-threaded runtime until the process ends; `ready` is called
/// once the address is bound (to print the URL).
pub fn run_blocking(config: ServerConfig, ready: impl FnOnce(&Server)) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServerError::Io)?;
    runtime.block_on(async {
        let server = Server::bind(config).await?;
        ready(&server);
        server.run().await
    })
}
