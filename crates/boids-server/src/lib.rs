//! # boids-server
//!
//! The live browser viewer behind `boids serve`: the simulation runs natively on its own thread
//! at a fixed time step ([`engine`]); browsers get compact binary frames over a WebSocket and
//! send small JSON requests ([`protocol`]); every parameter change and reset is logged so that
//! `boids run --events` replays a session to the same state ([`events`]). The page (`web/`,
//! plain HTML/JS/CSS) is compiled into the binary, so there is no build step and nothing to
//! install beside it.
//!
//! ```no_run
//! use boids_server::{EngineConfig, Server};
//! # async fn demo() -> Result<(), boids_server::ServerError> {
//! let params = boids_core::Params::preset("cornell").unwrap();
//! let config = EngineConfig {
//!     params,
//!     preset: "cornell".into(),
//!     seed: 0,
//!     max_count: 200_000,
//!     steps_per_second: 60.0,
//!     running: true,
//! };
//! let server = Server::bind(config, "127.0.0.1:8000".parse().unwrap()).await?;
//! println!("open {}", server.url());
//! server.run().await
//! # }
//! ```
//!
//! HTTP routes: `/` (the page), `/ws` (the WebSocket), `/api/params` (every parameter with its
//! value, range and slider hints), `/api/config.toml` (the current parameters as a config file
//! for `--config`), `/api/events` (the event log), `/api/state` (the flock in id order, exact).

mod describe;
pub mod engine;
pub mod events;
pub mod protocol;
mod server;

use std::net::SocketAddr;

pub use engine::{Engine, EngineConfig, EngineState};
pub use server::{HARD_MESSAGE_LIMIT, Server, router};

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The address is taken or not allowed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The system's reason.
        source: std::io::Error,
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
    /// The flock cannot be built.
    #[error(transparent)]
    State(#[from] boids_core::StateError),
    /// An I/O error while serving.
    #[error("server error: {0}")]
    Io(std::io::Error),
}

/// Runs the server on a new multi-threaded runtime until the process ends; `ready` is called
/// once the address is bound (to print the URL).
pub fn run_blocking(
    config: EngineConfig,
    addr: SocketAddr,
    ready: impl FnOnce(&Server),
) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServerError::Io)?;
    runtime.block_on(async {
        let server = Server::bind(config, addr).await?;
        ready(&server);
        server.run().await
    })
}
