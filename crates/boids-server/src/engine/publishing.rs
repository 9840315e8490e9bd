//! What the engine publishes to every client through its latest-value channels: the shared
//! state message, the frame with the overlays clients asked for, notices, and the metrics
//! handed to the metrics thread.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use boids_core::{Dim, Dimension, Simulation, on_flock};
use boids_io::param_json::params_to_json;
use serde_json::json;

use super::metrics::{self, MetricsJob};
use super::{EngineState, Snapshot, overlays};
use crate::protocol::{self, FrameHeader, Hunter, WorldBox, flags};

impl EngineState {
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

    pub(super) fn publish_state(&mut self) {
        self.state_tx.send_replace(Arc::from(self.state_message()));
    }

    /// Tells every page `message`: something the server did on its own, such as undoing a
    /// change whose steps overran the budget.
    pub(super) fn notify(&mut self, message: String) {
        let notice = json!({"type": "notice", "message": message}).to_string();
        self.notice_tx.send_replace(Arc::from(notice));
    }

    fn frame_header<const D: usize>(&self, sim: &Simulation<D>) -> FrameHeader<D>
    where
        Dim<D>: Dimension<D>,
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

    pub(super) fn publish_frame(&mut self) {
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
    pub(super) fn send_metrics(&mut self) {
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
                "step_ms": self.sim.stage_times().total().as_secs_f64() * 1000.0,
                "frame_bytes": self.frame_bytes,
                "publish_ms": self.publish_time.as_secs_f64() * 1000.0,
            }),
        });
        if offered {
            self.last_metrics = Some(Instant::now());
            self.captures = 0;
        }
    }
}

/// The predators of `sim` as a frame shows them, the pointer's last.
fn hunters<const D: usize>(sim: &Simulation<D>) -> Vec<Hunter<D>>
where
    Dim<D>: Dimension<D>,
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
