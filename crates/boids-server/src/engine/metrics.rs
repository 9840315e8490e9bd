//! The metrics thread: measures a copy of the flock away from the simulation thread, so that
//! measuring a large flock (flocks are connected components, nearest distances...) does not hold
//! up the steps; when a measurement takes long, the next waits [`METRICS_SPACING`] times as long,
//! so measuring never takes more than a small share of the CPU from the steps. With the metrics
//! goes the flock's focus (`boids_core::camera`: where the largest flock and the whole flock
//! are), which the viewer's follow and fit cameras read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use boids_core::camera::{Focus, Framing};
use boids_core::neighbors::Neighbors;
use boids_core::{Coordinates, Dim, Dimension, Metrics, Simulation};
use serde_json::json;
use tokio::sync::watch;

/// Time between metrics measurements while running.
pub const METRICS_INTERVAL: Duration = Duration::from_millis(250);
/// The time between measurements is at least this many times the last measurement's cost.
pub const METRICS_SPACING: u32 = 5;

/// A flock to measure, and the message fields the simulation thread already knows.
pub(super) struct MetricsJob {
    /// Measures a copy of the flock: its metrics and its focus.
    pub measure: Measurement,
    /// Boids caught since the last measurement (the `captures` column).
    pub captures: u64,
    pub header: serde_json::Value,
}

/// The metrics of a flock copied on the simulation thread and its focus as the message carries
/// it, measured when called: the copy is of either dimension, the measurement the same code.
pub(super) type Measurement = Box<dyn FnOnce() -> (Metrics, serde_json::Value) + Send>;

/// The measurement of the flock of `sim` as it is now.
pub(super) fn measurement<const D: usize>(sim: &Simulation<D>) -> Measurement
where
    Dim<D>: Dimension<D>,
{
    let (params, state) = (sim.params().clone(), sim.state());
    Box::new(move || {
        let neighbors = Neighbors::of_state(&params, &state);
        let metrics = Metrics::measure_with(&neighbors, &state);
        let focus = Framing::of(&neighbors).map_or(
            serde_json::Value::Null,
            |f| json!({"largest": focus_json(&f.largest), "whole": focus_json(&f.whole)}),
        );
        (metrics, focus)
    })
}

/// Whether the metrics thread is busy, and how long its last measurement took.
#[derive(Debug, Default)]
struct MetricsGate {
    busy: AtomicBool,
    cost_us: AtomicU64,
}

/// The simulation thread's handle on the metrics thread, which ends when this is dropped.
pub(super) struct MetricsWorker {
    jobs: mpsc::SyncSender<MetricsJob>,
    gate: Arc<MetricsGate>,
}

impl MetricsWorker {
    /// Starts the metrics thread; each measurement goes out on `out` as the metrics message
    /// (JSON text): the job's header, the metrics (`null` where undefined) and `measure_ms`.
    pub fn spawn(out: watch::Sender<Arc<str>>) -> Self {
        let (jobs, job_rx) = mpsc::sync_channel::<MetricsJob>(1);
        let gate = Arc::new(MetricsGate::default());
        let worker_gate = gate.clone();
        std::thread::Builder::new()
            .name("boids-metrics".into())
            .spawn(move || {
                for job in job_rx {
                    out.send_replace(Arc::from(measure(job, &worker_gate)));
                    worker_gate.busy.store(false, Ordering::Release);
                }
            })
            .expect("cannot start the metrics thread");
        Self { jobs, gate }
    }

    /// Time to wait between measurements while running.
    pub fn interval(&self) -> Duration {
        let cost = Duration::from_micros(self.gate.cost_us.load(Ordering::Relaxed));
        METRICS_INTERVAL.max(cost * METRICS_SPACING)
    }

    /// Hands the thread the job `job` builds, unless it is still busy with the last one (then
    /// `job` is not called, as copying a large flock is not free). Whether it was free.
    pub fn offer(&self, job: impl FnOnce() -> MetricsJob) -> bool {
        if self.gate.busy.swap(true, Ordering::Acquire) {
            return false;
        }
        if self.jobs.try_send(job()).is_err() {
            self.gate.busy.store(false, Ordering::Release);
        }
        true
    }
}

/// Measures `job` and records its cost in `gate`; the metrics message.
fn measure(job: MetricsJob, gate: &MetricsGate) -> String {
    let start = Instant::now();
    let measured = (job.measure)();
    let cost = start.elapsed();
    gate.cost_us
        .store(cost.as_micros() as u64, Ordering::Relaxed);
    let mut message = job.header;
    message["measure_ms"] = json!(cost.as_secs_f64() * 1000.0);
    let (metrics, focus) = measured;
    let metrics = Metrics {
        captures: job.captures,
        ..metrics
    };
    for (name, value) in boids_core::METRIC_COLUMNS.iter().zip(metrics.values()) {
        message[*name] = if value.is_finite() {
            json!(value)
        } else {
            serde_json::Value::Null
        };
    }
    message["focus"] = focus;
    message.to_string()
}

/// A focus as the metrics message carries it: centre `x`, `y` and half-extents `w`, `h`; in 3D
/// also `z` and the half-depth `d`.
fn focus_json<const D: usize>(focus: &Focus<D>) -> serde_json::Value
where
    Dim<D>: Dimension<D>,
{
    let (center, half) = (focus.center.to_array(), focus.half_extent.to_array());
    let mut json = json!({"x": center[0], "y": center[1], "w": half[0], "h": half[1]});
    if D == 3 {
        json["z"] = json!(center[2]);
        json["d"] = json!(half[2]);
    }
    json
}
