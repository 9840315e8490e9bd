//! The simulation thread: owns the [`Simulation`], steps it at a fixed rate, applies requests
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
//! other step (33 frames a second instead of 60).
//!
//! Requests are jobs queued to this thread. [`Engine::request`] queues its job when called, so a
//! connection can go on reading (and answering pings) while the job waits for a long step, and
//! still have its requests applied in the order they came.
//!
//! What one request may cost is bounded: its flock's neighbour pairs a step ([`budget`]), and the
//! event log's bytes ([`events::SessionLog`]).
//!
//! The flock is flat or has three dimensions as its `dimensions` parameter says (the core's
//! [`Flock`]);
//! a change of `dimensions` (a `set`, or a preset of the other kind) begins a new flock of the
//! other dimension, logged as a reset since no flock can be carried from a plane into a box.
//!
//! This file holds the loop, the requests and the publishing; the step-rate meter (`rate.rs`), the metrics thread (`metrics.rs`) and the
//! choice and encoding of overlays (`overlays.rs`) are files of their own.

mod metrics;
mod overlays;
mod rate;

use std::collections::HashMap;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use boids_core::params::Value;
use boids_core::{
    Coordinates, Dim, Dimension, Flock, Params, ParamsBuilder, Simulation, Source, VecN, WorldStep,
    on_flock,
};
use boids_io::events::{self, Change, Event, EventLog, SessionLog};
use boids_io::param_json::{json_to_raw, params_to_json};
use serde_json::json;
use tokio::sync::{oneshot, watch};

use crate::budget::{self, Extent, Work};
use crate::error::RequestError;
pub use crate::error::Stopped;
use crate::protocol::{self, FrameHeader, Hunter, OverlayMode, Request, WorldBox, flags};
pub use metrics::{METRICS_INTERVAL, METRICS_SPACING};
use metrics::{MetricsJob, MetricsWorker};
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
    /// Largest boid count a request may set.
    pub max_count: usize,
    /// Most neighbour pairs a step a request may ask for ([`budget`]; usually
    /// [`budget::DEFAULT_MAX_PAIRS`]). The starting flock must fit too.
    pub max_pairs: f64,
    /// Target steps per second.
    pub steps_per_second: f64,
    /// Whether to start running.
    pub running: bool,
    /// A flock to start from (one made elsewhere, such as a Python `Simulation`), whose
    /// parameters must be `params`' and seed `seed`; `None` draws a new flock.
    pub start: Option<Flock>,
}

/// One published frame and the overlays computed with it.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The encoded frame ([`protocol`]).
    pub frame: Bytes,
    /// Its version: 2 for a flat flock, 3 for one in three dimensions
    /// ([`protocol::frame_version`]).
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
}

impl Engine {
    /// Starts the simulation thread. Fails if the starting flock breaks the count cap or the
    /// pair budget, or does not fit in memory.
    pub fn spawn(config: EngineConfig) -> Result<Engine, crate::ServerError> {
        let params = config.params.build()?;
        let sim = match config.start {
            Some(flock) => flock,
            None => Flock::new(params, config.seed)?,
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
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let log = SessionLog::new(
            &Event::new_flock(0, true, &config.preset, config.seed, sim.params()),
            events::LOG_LIMIT_BYTES,
        );
        let mut engine = EngineState {
            sim,
            layers: config.params,
            preset: config.preset,
            max_count: config.max_count,
            max_pairs: config.max_pairs,
            running: config.running,
            steps_per_second: config.steps_per_second,
            revision: 0,
            run: 0,
            log,
            overlays: HashMap::new(),
            frame_tx,
            state_tx,
            metrics: MetricsWorker::spawn(metrics_tx),
            next_frame: Instant::now(),
            last_metrics: None,
            rate: RateMeter::default(),
            frame_bytes: 0,
            publish_time: Duration::ZERO,
            captures: 0,
        };
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
        })
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
    revision: u32,
    run: u32,
    log: SessionLog,
    overlays: HashMap<ClientId, OverlayWish>,
    frame_tx: watch::Sender<Arc<Snapshot>>,
    state_tx: watch::Sender<Arc<str>>,
    metrics: MetricsWorker,
    /// When the next frame is due while running.
    next_frame: Instant,
    last_metrics: Option<Instant>,
    rate: RateMeter,
    frame_bytes: usize,
    publish_time: Duration,
    /// Boids caught since the last metrics message.
    captures: u64,
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
            self.step_once();
            self.rate.tick();
            let period = Duration::from_secs_f64(1.0 / self.steps_per_second);
            // A fixed rate without catch-up bursts: a late step moves the schedule instead.
            next_step = (next_step + period).max(now);
            if now >= self.next_frame {
                self.publish_frame();
                // Deadlines a period apart; one missed by more than a period moves the schedule.
                let frame_period = Duration::from_secs_f64(1.0 / FRAME_RATE);
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

    /// One step, counting its captures for the next metrics message.
    fn step_once(&mut self) {
        // On a thread of the pool, the step starts its parallel phases from inside it
        // (see `boids_core::in_pool`).
        boids_core::in_pool(|| self.sim.step());
        self.captures += self.sim.captures();
    }

    /// The flock, of either dimension.
    pub fn flock(&self) -> &Flock {
        &self.sim
    }

    /// Applies one request.
    fn handle(&mut self, client: ClientId, request: Request) -> Result<(), RequestError> {
        match request {
            Request::Set { key, value } => self.set(&key, &value)?,
            Request::Reset { preset, seed } => self.reset(preset, seed)?,
            Request::Start {} => {
                self.running = true;
                self.rate.paused();
            }
            Request::Stop {} => self.running = false,
            Request::Step { count } => {
                let count = count.unwrap_or(1);
                self.check_steps(count)?;
                self.running = false;
                for _ in 0..count {
                    self.step_once();
                }
            }
            Request::Speed { steps_per_second } => self.steps_per_second = steps_per_second,
            Request::Overlay {
                mode,
                x,
                y,
                z,
                radius,
            } => {
                let point = match (x, y) {
                    (Some(x), Some(y)) => Some((
                        [x, y, z.unwrap_or(0.0)].map(|c| c as f32),
                        radius.unwrap_or(f64::INFINITY) as f32,
                    )),
                    _ => None,
                };
                if mode == OverlayMode::Off {
                    self.overlays.remove(&client);
                } else {
                    self.overlays.insert(client, OverlayWish { mode, point });
                }
                if !self.running {
                    self.publish_frame();
                }
                return Ok(());
            }
            Request::PlacePredator { x, y, z } => self.edit(Change::PlacePredator { x, y, z })?,
            Request::RemovePredator { index } => self.edit(Change::RemovePredator { index })?,
            Request::Pointer { x, y, z } => {
                // Many a second while the mouse moves: only the frame shows it.
                self.edit(Change::Pointer { x, y, z })?;
                if !self.running {
                    self.publish_frame();
                }
                return Ok(());
            }
        }
        self.publish_state();
        self.publish_frame();
        if !self.running {
            self.send_metrics();
        }
        Ok(())
    }

    /// Applies `key = value` if it is valid, within the budget, and fits in the log: a change
    /// that could not be logged is not applied, so that the log still replays exactly.
    fn set(&mut self, key: &str, json: &serde_json::Value) -> Result<(), RequestError> {
        let value = json_to_raw(json).map_err(|value| RequestError::Value {
            key: key.to_owned(),
            value,
        })?;
        let layers = events::apply_set(&self.layers, key, &value, Source::Message)?;
        let params = layers.params().clone();
        if params.dimensions != self.sim.dimensions() {
            let what = format!("{key} = {json}");
            return self.begin_flock(layers, None, self.sim.seed(), &what);
        }
        self.check_count(&params)?;
        let mut extent = Extent::of_flock(&self.sim);
        if params.count > self.sim.len() {
            extent = extent.with_initial(&params);
        }
        self.check_work(&format!("{key} = {json}"), Work::estimate(&params, extent))?;
        let line = self
            .log
            .line(&Event::set(self.sim.step_count(), key, &params))
            .map_err(|full| RequestError::NotLogged {
                what: format!("{key} = {json}"),
                full,
            })?;
        self.sim.set_params(params)?;
        self.layers = layers;
        self.log.push(line);
        self.revision = self.revision.wrapping_add(1);
        Ok(())
    }

    /// Applies a world edit ([`events::apply_edit`]) if it fits in the log, and logs it.
    fn edit(&mut self, change: Change) -> Result<(), RequestError> {
        let event = Event {
            step: self.sim.step_count(),
            time: events::now(),
            change,
        };
        let line = self
            .log
            .line(&event)
            .map_err(|full| RequestError::NotLogged {
                what: format!("{:?}", event.change),
                full,
            })?;
        let layers = on_flock!(&mut self.sim, sim => {
            events::apply_edit(&self.layers, sim, &event.change, Source::Message)?
        });
        if layers.params() != self.layers.params() {
            self.revision = self.revision.wrapping_add(1);
        }
        self.layers = layers;
        self.log.push(line);
        Ok(())
    }

    /// Refuses a flock whose step would examine more neighbour pairs than the budget.
    fn check_work(&self, what: &str, work: Work) -> Result<(), RequestError> {
        if work.pairs() <= self.max_pairs {
            return Ok(());
        }
        Err(RequestError::TooCostly {
            what: what.to_owned(),
            work,
            max_pairs: self.max_pairs,
        })
    }

    /// Refuses a `step` request of more than one step whose steps together would examine more
    /// than [`budget::STEP_REQUEST_STEPS`] steps' worth of the budget.
    fn check_steps(&self, count: u32) -> Result<(), RequestError> {
        let work = Work::estimate(self.sim.params(), Extent::of_flock(&self.sim));
        let allowed = budget::STEP_REQUEST_STEPS * self.max_pairs;
        if count <= 1 || f64::from(count) * work.pairs() <= allowed {
            return Ok(());
        }
        Err(RequestError::TooManySteps {
            count,
            pairs: work.pairs(),
            allowed,
            most: (allowed / work.pairs()).floor().max(1.0),
        })
    }

    fn check_count(&self, params: &Params) -> Result<(), RequestError> {
        if params.count > self.max_count {
            return Err(RequestError::CountAboveCap {
                count: params.count,
                max: self.max_count,
            });
        }
        Ok(())
    }

    fn reset(&mut self, preset: Option<String>, seed: Option<u64>) -> Result<(), RequestError> {
        let layers = match &preset {
            // A preset's default count above the cap is lowered to the cap.
            Some(name) => {
                let mut layers = ParamsBuilder::preset(name)?;
                let count = layers.params().count.min(self.max_count);
                layers.set("count", Value::Integer(count as u64), Source::Message);
                layers
            }
            None => self.layers.clone(),
        };
        let what = match &preset {
            Some(name) => format!("reset to preset {name}"),
            None => "reset".to_owned(),
        };
        let seed = seed.unwrap_or(self.sim.seed());
        self.begin_flock(layers, preset, seed, &what)
    }

    /// Replaces the flock by a new one of `layers` drawn with `seed` (from `preset`, if one is
    /// named), if it is within the caps, and restarts the log from it: a reset, or a change of
    /// dimensions (`what` names it in a refusal).
    fn begin_flock(
        &mut self,
        layers: ParamsBuilder,
        preset: Option<String>,
        seed: u64,
        what: &str,
    ) -> Result<(), RequestError> {
        let params = layers.build()?;
        self.check_count(&params)?;
        let sim = Flock::new(params, seed)?;
        self.check_work(what, Work::estimate(sim.params(), Extent::of_flock(&sim)))?;
        let previous_step = self.sim.step_count();
        self.sim = sim;
        self.layers = layers;
        if let Some(name) = preset {
            self.preset = name;
        }
        // Replay starts from the last start or reset; what came before is history.
        self.log.restart(&Event::new_flock(
            previous_step,
            false,
            &self.preset,
            seed,
            self.sim.params(),
        ));
        self.revision = self.revision.wrapping_add(1);
        self.run = self.run.wrapping_add(1);
        self.captures = 0;
        Ok(())
    }

    /// The shared state message.
    fn state_message(&self) -> String {
        json!({
            "type": "state",
            "preset": self.preset,
            "seed": self.sim.seed(),
            "running": self.running,
            "steps_per_second": self.steps_per_second,
            "max_count": self.max_count,
            "revision": self.revision,
            "run": self.run,
            "step": self.sim.step_count(),
            "events": self.log.events(),
            "params": params_to_json(self.sim.params()),
        })
        .to_string()
    }

    fn publish_state(&mut self) {
        self.state_tx.send_replace(Arc::from(self.state_message()));
    }

    fn frame_header<const D: usize>(&self, sim: &Simulation<D>) -> FrameHeader<D>
    where
        Dim<D>: Dimension<D>,
        Simulation<D>: WorldStep<D>,
    {
        let p = sim.params();
        let mut bits = 0;
        if self.running {
            bits |= flags::RUNNING;
        }
        if p.is_torus() {
            bits |= flags::TORUS;
        }
        let (min, size) = p.world_box::<D>();
        FrameHeader {
            flags: bits,
            step: sim.step_count(),
            revision: self.revision,
            world: WorldBox { min, size },
        }
    }

    fn publish_frame(&mut self) {
        let start = Instant::now();
        let (frame, all, hover) = on_flock!(&self.sim, sim => {
            let header = self.frame_header(sim);
            let predators = hunters(sim);
            let content = protocol::FrameContent {
                positions: sim.positions(),
                velocities: sim.velocities(),
                groups: sim.groups(),
                resting: sim.resting(),
                predators: &predators,
            };
            let frame = protocol::encode_frame(&header, &content);
            let (all, hover) = overlays::messages(sim, header.flags, &self.overlays);
            (frame, all, hover)
        });
        self.frame_bytes = frame.len();
        let snapshot = Snapshot {
            frame: Bytes::from(frame),
            version: protocol::frame_version(self.sim.dimensions()),
            all,
            hover,
        };
        self.frame_tx.send_replace(Arc::new(snapshot));
        self.publish_time = start.elapsed();
    }

    /// Hands the current state to the metrics thread unless it is still busy.
    fn send_metrics(&mut self) {
        let captures = self.captures;
        let offered = self.metrics.offer(|| MetricsJob {
            measure: on_flock!(&self.sim, sim => metrics::measurement(sim)),
            captures,
            header: json!({
                "type": "metrics",
                "step": self.sim.step_count(),
                "run": self.run,
                "count": self.sim.len(),
                "steps_per_second": if self.running { self.rate.steps_per_second() } else { 0.0 },
                "step_ms": self.sim.phase_times().total().as_secs_f64() * 1000.0,
                "frame_bytes": self.frame_bytes,
                "publish_ms": self.publish_time.as_secs_f64() * 1000.0,
            }),
        });
        if offered {
            self.last_metrics = Some(Instant::now());
            self.captures = 0;
        }
    }

    /// The event log as exported: with the current step and the command that replays it.
    pub fn event_log(&mut self) -> EventLog {
        let text = self.event_log_text().concat();
        let text = std::str::from_utf8(&text).expect("the log is JSON text");
        EventLog::parse(text, "the event log").expect("the server's log is a valid log")
    }

    /// The exported event log in parts to stream ([`SessionLog::export`]): cheap to call, as
    /// parallel exports share the events' text.
    pub fn event_log_text(&mut self) -> [Bytes; 3] {
        self.log.export(self.sim.step_count())
    }

    /// The current parameters as a TOML config, with a header saying where they came from.
    pub fn config_toml(&self) -> String {
        format!(
            "# boids parameters exported from the viewer (preset {}, seed {}, step {}).\n\
             # Use with: boids run --config FILE --seed {} --steps K   (or boids serve --config FILE)\n\n{}",
            self.preset,
            self.sim.seed(),
            self.sim.step_count(),
            self.sim.seed(),
            self.sim.params().to_toml()
        )
    }

    /// The flock in id order, exactly, as JSON (positions and velocities have z in 3D).
    pub fn state_json(&self) -> serde_json::Value {
        on_flock!(&self.sim, sim => state_json(sim))
    }

    /// Description of every parameter with its current value and a slider range: what the page
    /// builds its controls from.
    pub fn params_description(&self) -> serde_json::Value {
        let defaults = Params::preset(&self.preset).unwrap_or_else(|_| self.sim.params().clone());
        crate::describe::describe(
            self.sim.params(),
            &defaults,
            &self.preset,
            self.sim.seed(),
            self.max_count,
        )
    }

    /// The preset the current parameters started from.
    pub fn preset(&self) -> &str {
        &self.preset
    }
}

/// The flock of `sim` in id order, exactly, as JSON.
fn state_json<const D: usize>(sim: &Simulation<D>) -> serde_json::Value
where
    Dim<D>: Dimension<D>,
    Simulation<D>: WorldStep<D>,
{
    let state = sim.state();
    let points = |v: &[VecN<D>]| v.iter().map(|p| p.to_array().to_vec()).collect::<Vec<_>>();
    json!({
        "step": sim.step_count(),
        "seed": sim.seed(),
        "count": state.len(),
        "positions": points(&state.positions),
        "velocities": points(&state.velocities),
        "groups": state.groups,
        "biases": state.biases,
        "predators": state
            .predators
            .iter()
            .map(|p| [p.position.to_array(), p.velocity.to_array()].concat())
            .collect::<Vec<_>>(),
        "resting": state.resting,
    })
}

/// The predators of `sim` as a frame shows them, the pointer's last.
fn hunters<const D: usize>(sim: &Simulation<D>) -> Vec<Hunter<D>>
where
    Dim<D>: Dimension<D>,
    Simulation<D>: WorldStep<D>,
{
    sim.predators()
        .iter()
        .map(|p| (p, false))
        .chain(sim.pointer().map(|p| (p, true)))
        .map(|(p, pointer)| Hunter {
            position: p.position,
            velocity: p.velocity,
            pointer,
        })
        .collect()
}
