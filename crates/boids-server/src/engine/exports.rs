//! What the HTTP routes read from the engine between steps (through
//! [`Engine::inspect`](super::Engine::inspect)): the flock, the event log as exported, the
//! parameters as a config file, the exact state and the description the page builds its
//! controls from.

use axum::body::Bytes;
use boids_core::{Coordinates, Dim, Dimension, Flock, Params, Simulation, VecN, on_flock};
use boids_io::events::EventLog;
use serde_json::json;

use super::EngineState;

impl EngineState {
    /// The flock, of either dimension.
    pub fn flock(&self) -> &Flock {
        &self.sim
    }

    /// The event log as exported: with the current step and the command that replays it.
    pub fn event_log(&mut self) -> EventLog {
        let text = self.event_log_text().concat();
        let text = std::str::from_utf8(&text).expect("the log is JSON text");
        EventLog::parse(text, "the event log").expect("the server's log is a valid log")
    }

    /// The exported event log in parts to stream
    /// ([`SessionLog::export`](boids_io::events::SessionLog::export)): cheap to call, as
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
