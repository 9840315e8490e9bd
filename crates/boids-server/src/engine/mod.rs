//! The simulation thread: owns the flock ([`Flock`]), steps it at a fixed rate, applies requests
//! between steps, and publishes what clients need through latest-value channels.
//!
//! Why a thread of its own and `watch` channels: a step of a large flock takes milliseconds of
//! CPU (on the rayon pool), which must not block the async network tasks; and publishing must
//! never wait for a client. A `tokio::sync::watch` channel keeps only the latest value, so a
//! client that reads slowly skips frames and neither the simulation nor other clients notice.
//!
//! Published values:
//! - a [`Snapshot`] per frame: the encoded frame, plus overlay messages when some client asked
//!   for overlays (computed once for all clients that want the same thing);
//! - the shared state as JSON text (parameters, preset, seed, running, speed), on every change,
//!   so every tab shows a change made in any tab;
//! - metrics as JSON text, measured on a second thread every [`METRICS_INTERVAL`] so that
//!   measuring a large flock (flocks are connected components, nearest distances...) does not
//!   hold up the steps; when a measurement takes long, the next waits [`METRICS_SPACING`] times
//!   as long, so measuring never takes more than a small share of the CPU from the steps.
//!
//! Frames are published at most [`FRAME_RATE`] times a second while running (more would only be
//! skipped), and at once after any change. They are due on a schedule of deadlines a frame period
//! apart, not when a period has passed since the last one: at 60 steps a second a step comes
//! every period give or take some jitter, and "a period since the last frame" then missed every
//! other step (33 frames a second instead of 60). A flock whose engine keeps it on a device (the
//! GPU's) takes the steps due before the next frame in one batch, so it comes back once a frame
//! rather than once a step: at 1000 steps a second, 16 steps a copy instead of one.
//!
//! Requests are jobs queued to this thread. [`Engine::request`] queues its job when called, so a
//! connection can go on reading (and answering pings) while the job waits for a long step, and
//! still have its requests applied in the order they came.
//!
//! What one request may cost is bounded: its flock's neighbour pairs a step
//! ([`budget`](crate::budget)), and the event log's bytes ([`events::SessionLog`]). Each step's
//! measured cost is checked against the same budget (`cost.rs`), a step the model refuses is
//! recovered from (`recover.rs`), and every page is told, in a notice, what the server did.
//!
//! The flock is flat or has three dimensions as its `dimensions` parameter says (the core's
//! [`Flock`]); a change of `dimensions` (a `set`, or a preset of the other kind) begins a new
//! flock of the other dimension, logged as a reset since no flock can be carried from a plane
//! into a box.
//!
//! This file holds the loop and its state; the handling of a client's requests
//! (`requests.rs`), the measured re-check (`cost.rs`), the warning that a change makes a flock
//! too slow to be live (`pace.rs`), a refused step (`recover.rs`), the undo
//! of the last `set` they share (`undo.rs`), what is published to the clients
//! (`publishing.rs`), what the HTTP routes read (`exports.rs`), the step-rate meter (`rate.rs`),
//! the metrics thread (`metrics.rs`) and the choice and encoding of overlays (`overlays.rs`) are
//! files of their own.

mod cost;
mod exports;
mod metrics;
mod overlays;
mod pace;
mod publishing;
mod rate;
mod recover;
mod requests;
mod undo;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use boids_core::{EngineKind, Flock, ParamsBuilder};
use boids_io::events::{self, Event, SessionLog};
use tokio::sync::{oneshot, watch};

use crate::budget::{Extent, Work};
use crate::error::RequestError;
pub use crate::error::Stopped;
use crate::protocol::Request;
use metrics::MetricsWorker;
pub use metrics::{METRICS_INTERVAL, METRICS_SPACING};
use overlays::OverlayWish;
pub use overlays::{LINK_CAP, OVERLAY_CAP};
use rate::RateMeter;

/// Most frames published per second while running.
pub const FRAME_RATE: f64 = 60.0;

/// A connected client, for per-client overlays.
pub type ClientId = u64;

/// How the engine starts.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Starting parameters, with where each came from (errors about them name it).
    pub params: ParamsBuilder,
    /// Preset they came from (shown, logged, and the base of a reset without a preset).
    pub preset: String,
    /// Seed.
    pub seed: u64,
    /// The engine that steps a new flock (a flock given in `start` keeps its own).
    pub engine: EngineKind,
    /// Largest boid count a request may set.
    pub max_count: usize,
    /// Most neighbour pairs a step a request may ask for ([`budget`](crate::budget); usually
    /// [`budget::DEFAULT_MAX_PAIRS`](crate::budget::DEFAULT_MAX_PAIRS)). The starting flock
    /// must fit too.
    pub max_pairs: f64,
    /// Target steps per second.
    pub steps_per_second: f64,
    /// Whether to start running.
    pub running: bool,
    /// A flock to start from (one made elsewhere, such as a Python `Simulation`), whose
    /// parameters must be `params`' and seed `seed`; `None` draws a new flock.
    pub start: Option<Flock>,
    /// The event log that `start` carries on (a session replayed by `boids serve --events`):
    /// the event that began its flock and the changes it has been through. Empty: the log
    /// begins with a `start` of `params` and `seed` at step 0.
    pub history: Vec<Event>,
}

/// One published frame and the overlays computed with it.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The encoded frame ([`protocol`](crate::protocol)).
    pub frame: Bytes,
    /// Its version: 2 for a flat flock, 3 for one in three dimensions
    /// ([`protocol::frame_version`](crate::protocol::frame_version)).
    pub version: u8,
    /// Overlay for every boid (up to [`OVERLAY_CAP`]), when some client wants it.
    pub all: Option<Bytes>,
    /// Overlay of the boid under each hovering client's mouse.
    pub hover: HashMap<ClientId, Bytes>,
}

type Job = Box<dyn FnOnce(&mut EngineState) + Send>;

/// A handle on the simulation thread; the thread ends when every handle is dropped.
#[derive(Clone, Debug)]
pub struct Engine {
    jobs: mpsc::Sender<Job>,
    /// Latest frame.
    pub frames: watch::Receiver<Arc<Snapshot>>,
    /// Latest shared state (JSON text).
    pub state: watch::Receiver<Arc<str>>,
    /// Latest metrics (JSON text).
    pub metrics: watch::Receiver<Arc<str>>,
    /// Latest notice to every page (JSON text; empty before the first).
    pub notices: watch::Receiver<Arc<str>>,
    /// The most boids the flock may have ([`EngineConfig::max_count`]).
    max_count: usize,
    /// Raised when a `stop` is queued, so that a `step` request taking many steps ends at its
    /// next batch instead of holding the stop back until its last step.
    halt: Arc<AtomicBool>,
}

impl Engine {
    /// Starts the simulation thread. Fails if the starting flock breaks the count cap or the
    /// pair budget, or does not fit in memory.
    pub fn spawn(config: EngineConfig) -> Result<Engine, crate::ServerError> {
        let params = config.params.build()?;
        let sim = match config.start {
            Some(flock) => flock,
            None => Flock::new(params, config.seed, config.engine)?,
        };
        if sim.len() > config.max_count {
            return Err(crate::ServerError::CountAboveCap {
                count: sim.len(),
                max: config.max_count,
            });
        }
        let work = Work::estimate(sim.params(), Extent::of_flock(&sim));
        if work.pairs() > config.max_pairs {
            return Err(crate::ServerError::WorkAboveBudget {
                work,
                max: config.max_pairs,
            });
        }
        let (frame_tx, frames) = watch::channel(Arc::new(Snapshot::default()));
        let (state_tx, state) = watch::channel(Arc::from("{}"));
        let (metrics_tx, metrics) = watch::channel(Arc::from("{}"));
        let (notice_tx, notices) = watch::channel(Arc::from(""));
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let started = Event::new_flock(0, true, &config.preset, config.seed, sim.params());
        let (first, changes) = config.history.split_first().unwrap_or((&started, &[]));
        let log = SessionLog::carrying_on(first, changes, events::LOG_LIMIT_BYTES)
            .map_err(crate::ServerError::HistoryTooLong)?;
        let mut engine = EngineState {
            sim,
            layers: config.params,
            preset: config.preset,
            max_count: config.max_count,
            max_pairs: config.max_pairs,
            running: config.running,
            steps_per_second: config.steps_per_second,
            lowered_from: None,
            revision: 0,
            run: 0,
            log,
            overlays: HashMap::new(),
            frame_tx,
            state_tx,
            notice_tx,
            last_set: None,
            pace: pace::Pace::default(),
            metrics: MetricsWorker::spawn(metrics_tx),
            next_frame: Instant::now(),
            last_metrics: None,
            rate: RateMeter::default(),
            frame_bytes: 0,
            publish_time: Duration::ZERO,
            captures: 0,
            halt: Arc::new(AtomicBool::new(false)),
        };
        let halt = engine.halt.clone();
        engine.publish_state();
        engine.publish_frame();
        engine.send_metrics();
        std::thread::Builder::new()
            .name("boids-sim".into())
            .spawn(move || engine.run(job_rx))
            .map_err(crate::ServerError::Io)?;
        Ok(Engine {
            jobs,
            frames,
            state,
            metrics,
            notices,
            max_count: config.max_count,
            halt,
        })
    }

    /// The most boids the flock may have: what a connection's largest frame holds.
    pub fn max_count(&self) -> usize {
        self.max_count
    }

    /// Runs `f` on the simulation thread, between steps, and returns its result. The job is
    /// queued when this is called, not when the future is first polled: jobs queued one after
    /// another run in that order, however their results are awaited.
    pub fn inspect<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut EngineState) -> T + Send + 'static,
    ) -> impl Future<Output = Result<T, Stopped>> + Send + 'static {
        let (tx, rx) = oneshot::channel();
        let queued = self.jobs.send(Box::new(move |engine| {
            let _ = tx.send(f(engine));
        }));
        async move {
            queued.map_err(|_| Stopped)?;
            rx.await.map_err(|_| Stopped)
        }
    }

    /// Handles a request from `client` (queued at once, as with [`Engine::inspect`]); an `Err`
    /// says why it was refused, and its text is the error reply's message.
    pub fn request(
        &self,
        client: ClientId,
        request: Request,
    ) -> impl Future<Output = Result<(), RequestError>> + Send + 'static {
        if matches!(request, Request::Stop {}) {
            self.halt.store(true, Ordering::Relaxed);
        }
        let reply = self.inspect(move |engine| engine.handle(client, request));
        async move { reply.await? }
    }

    /// Forgets a disconnected client's overlay request.
    pub fn forget(&self, client: ClientId) {
        let _ = self.jobs.send(Box::new(move |engine| {
            if engine.overlays.remove(&client).is_some() {
                engine.publish_frame();
            }
        }));
    }
}

/// Everything the simulation thread owns. Reachable from [`Engine::inspect`].
pub struct EngineState {
    sim: Flock,
    /// The flock's parameters with where each came from: the start (preset and flags), or a
    /// viewer message.
    layers: ParamsBuilder,
    preset: String,
    max_count: usize,
    max_pairs: f64,
    running: bool,
    steps_per_second: f64,
    /// The speed a page asked for, while the cost check has lowered it (`cost.rs`).
    lowered_from: Option<f64>,
    revision: u32,
    run: u32,
    log: SessionLog,
    overlays: HashMap<ClientId, OverlayWish>,
    frame_tx: watch::Sender<Arc<Snapshot>>,
    state_tx: watch::Sender<Arc<str>>,
    notice_tx: watch::Sender<Arc<str>>,
    /// The last `set` of a kept flock, which an overrun soon after, or a refused step, undoes.
    last_set: Option<undo::LastSet>,
    /// This machine's pace, for the warning that a flock is too slow to be live.
    pace: pace::Pace,
    metrics: MetricsWorker,
    /// When the next frame is due while running.
    next_frame: Instant,
    last_metrics: Option<Instant>,
    rate: RateMeter,
    frame_bytes: usize,
    publish_time: Duration,
    /// Boids caught since the last metrics message.
    captures: u64,
    /// A `stop` is queued ([`Engine::halt`]).
    halt: Arc<AtomicBool>,
}

impl EngineState {
    fn run(mut self, jobs: mpsc::Receiver<Job>) {
        let mut next_step = Instant::now();
        loop {
            let job = if self.running {
                match jobs.recv_timeout(next_step.saturating_duration_since(Instant::now())) {
                    Ok(job) => Some(job),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
            } else {
                match jobs.recv() {
                    Ok(job) => Some(job),
                    Err(mpsc::RecvError) => return,
                }
            };
            if let Some(job) = job {
                job(&mut self);
                // Everything that queued up during a long step, before the next one.
                while let Ok(job) = jobs.try_recv() {
                    job(&mut self);
                }
                if !self.running {
                    continue;
                }
            }
            let now = Instant::now();
            if now < next_step {
                continue;
            }
            let period = Duration::from_secs_f64(1.0 / self.steps_per_second);
            let frame_period = Duration::from_secs_f64(1.0 / FRAME_RATE);
            let steps = self
                .steps_due(now, period, frame_period)
                .min(self.steps_in_a_frame(frame_period));
            // A refused step is undone and reported (`recover.rs`), an overrun dealt with
            // (`cost.rs`): the loop goes on either way.
            if self.step(steps).is_ok() {
                self.check_measured_cost();
            }
            self.rate.tick(steps);
            // A fixed rate without catch-up bursts: a late step moves the schedule instead.
            let taken = u32::try_from(steps).unwrap_or(u32::MAX);
            next_step = (next_step + period.saturating_mul(taken)).max(now);
            if now >= self.next_frame {
                self.publish_frame();
                // Deadlines a period apart; one missed by more than a period moves the schedule.
                self.next_frame = (self.next_frame + frame_period).max(now);
            }
            if self
                .last_metrics
                .is_none_or(|t| t.elapsed() >= self.metrics.interval())
            {
                self.send_metrics();
            }
        }
    }

    /// Steps to take now: one, or, for a flock whose steps are taken in batches (the GPU
    /// engine's: [`Flock::batches`]), every step due before the next frame after the one due
    /// now, so the flock comes back from the device once a frame, not once a step.
    fn steps_due(&self, now: Instant, period: Duration, frame_period: Duration) -> u64 {
        if !self.sim.batches() {
            return 1;
        }
        let mut next_frame = self.next_frame;
        if now >= next_frame {
            next_frame += frame_period;
        }
        let ahead = next_frame.saturating_duration_since(now).as_secs_f64();
        ((ahead / period.as_secs_f64()) as u64).max(1)
    }

    /// The most steps of one batch: as many as the last step's time fits in a frame, so that
    /// the requests queued meanwhile wait a frame or two at most; one for a flock that has not
    /// stepped yet, or does not batch.
    fn steps_in_a_frame(&self, frame_period: Duration) -> u64 {
        let per_step = self.sim.stage_times().total();
        if !self.sim.batches() || per_step.is_zero() {
            return 1;
        }
        ((frame_period.as_secs_f64() / per_step.as_secs_f64()) as u64).max(1)
    }

    /// Whether a `stop` is queued behind the job running now.
    fn halting(&self) -> bool {
        self.halt.load(Ordering::Relaxed)
    }

    /// `steps` steps (in one batch where the flock [batches](Flock::batches)), counting the
    /// captures of the last for the next metrics message; a step the model refuses is recovered
    /// from ([`EngineState::recover`]), the steps before it kept.
    fn step(&mut self, steps: u64) -> Result<(), RequestError> {
        // On a thread of the pool, the step starts its parallel phases from inside it
        // (see `boids_core::in_pool`).
        let stepped = boids_core::in_pool(|| self.sim.step_many(steps));
        self.captures += self.sim.captures();
        stepped.map_err(|refused| self.recover(refused))
    }
}
