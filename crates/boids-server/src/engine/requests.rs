//! A client's requests applied to the engine between steps: a parameter `set`, a `reset`, the
//! transport (start, stop, step, speed), overlay wishes and world edits. A change is checked
//! against the server's caps (count, neighbour pairs a step) and against the room left in the
//! event log before it is applied, so that a refused request changes nothing and the log still
//! replays exactly.

use std::sync::atomic::Ordering;
use std::time::Duration;

use boids_core::{Flock, Params, ParamsBuilder, Source, on_flock};
use boids_io::events::{self, Change, Event};
use boids_io::param_json::json_to_raw;

use super::overlays::OverlayWish;
use super::undo::LastSet;
use super::{ClientId, EngineState, FRAME_RATE};
use crate::budget::{self, Extent, Work};
use crate::error::RequestError;
use crate::protocol::{OverlayMode, Request};

impl EngineState {
    /// Applies one request.
    pub(super) fn handle(
        &mut self,
        client: ClientId,
        request: Request,
    ) -> Result<(), RequestError> {
        match request {
            Request::Set { key, value } => self.set(&key, &value)?,
            Request::Reset { preset, seed } => self.reset(preset, seed)?,
            Request::Start {} => {
                self.running = true;
                self.rate.paused();
            }
            Request::Stop {} => {
                self.running = false;
                self.halt.store(false, Ordering::Relaxed);
            }
            Request::Step { count } => self.step_request(count.unwrap_or(1))?,
            Request::Speed { steps_per_second } => {
                self.steps_per_second = steps_per_second;
                self.lowered_from = None;
            }
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

    /// Takes `count` steps with the flock stopped, in batches of about a frame each
    /// ([`EngineState::steps_in_a_frame`]), showing each; a `stop` queued meanwhile ends it at
    /// the batch's end, as does a step over the budget.
    fn step_request(&mut self, count: u32) -> Result<(), RequestError> {
        self.check_steps(count)?;
        self.running = false;
        let frame_period = Duration::from_secs_f64(1.0 / FRAME_RATE);
        let mut left = u64::from(count);
        while left > 0 {
            let steps = left.min(self.steps_in_a_frame(frame_period));
            self.step(steps)?;
            left -= steps;
            if self.check_measured_cost() || self.halting() {
                break;
            }
            if left > 0 {
                self.publish_frame();
            }
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
        let what = format!("{key} = {json}");
        let work = Work::estimate(&params, extent);
        self.check_work(&what, work)?;
        let slow = self.check_pace(&what, &work)?;
        let line = self
            .log
            .line(&Event::set(self.sim.step_count(), key, &params))
            .map_err(|full| RequestError::NotLogged {
                what: what.clone(),
                full,
            })?;
        self.sim.set_params(params)?;
        let before = std::mem::replace(&mut self.layers, layers);
        if let Some(warning) = slow {
            self.notify(warning);
        }
        self.last_set = Some(LastSet {
            what,
            key: key.to_owned(),
            before,
            step: self.sim.step_count(),
        });
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
            // The layers before the last `set` would undo this edit too.
            self.last_set = None;
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
    /// than [`budget::STEP_REQUEST_STEPS`] steps' worth of the budget, at the estimate or at
    /// the last step's measured cost, whichever is more.
    fn check_steps(&self, count: u32) -> Result<(), RequestError> {
        let estimate = Work::estimate(self.sim.params(), Extent::of_flock(&self.sim));
        let measured = Work::measured(&self.sim);
        let work = if measured.pairs() > estimate.pairs() {
            measured
        } else {
            estimate
        };
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
        let mut lowered = None;
        let layers = match &preset {
            Some(name) => {
                let mut layers = ParamsBuilder::preset(name)?;
                lowered = budget::lower_preset_count(&mut layers, self.max_count, Source::Message);
                layers
            }
            None => self.layers.clone(),
        };
        let what = match &preset {
            Some(name) => format!("reset to preset {name}"),
            None => "reset".to_owned(),
        };
        let seed = seed.unwrap_or(self.sim.seed());
        self.begin_flock(layers, preset, seed, &what)?;
        if let Some(note) = lowered {
            self.notify(note);
        }
        Ok(())
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
        let sim = Flock::new(params, seed, self.sim.engine())?;
        let work = Work::estimate(sim.params(), Extent::of_flock(&sim));
        self.check_work(what, work)?;
        let slow = self.check_pace(what, &work)?;
        let previous_step = self.sim.step_count();
        self.sim = sim;
        self.layers = layers;
        self.last_set = None;
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
        if let Some(asked) = self.lowered_from.take() {
            self.steps_per_second = asked;
        }
        if let Some(warning) = slow {
            self.notify(warning);
        }
        Ok(())
    }
}
