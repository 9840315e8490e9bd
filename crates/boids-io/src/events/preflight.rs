//! What a log is checked against before its replay takes a step, so that a log no viewer wrote
//! is refused at once, naming the value and the event, instead of stepping for ever:
//!
//! - the steps the replay would take, against [`MAX_REPLAY_STEPS`]: [`EventLog::replay`]
//!   checks them, so every face that replays a log (`boids run`, `render` and `serve`) does;
//! - the parameters the flock goes through, at its beginning and after each change
//!   ([`EventLog::course`]), for a face with limits of its own to hold them to (`boids serve
//!   --events`: its count cap and pair budget) before the replay steps.

use boids_core::Params;

use super::edit::predators_layer;
use super::log::{Change, EventLog, EventsError};
use super::replay::Action;

/// The most steps a replay may take: the largest `exported_at_step`, and the largest `step` of
/// an event of the replayed flock, that a log may hold.
///
/// The viewer steps at most 1,000 steps a second (its top speed), so a day of it at that speed
/// is 8.64e7 steps, more than any session watched; and replaying 1e8 steps takes about a minute
/// for a single boid and ten for fifty (0.5 and 5 µs a step on two cores), hours for the
/// flocks people watch. A larger number is not a session the viewer saved but a mistake or a
/// trap (1e15 steps would run for decades).
pub const MAX_REPLAY_STEPS: u64 = 100_000_000;

impl EventLog {
    /// Refuses a log whose replay would take more than [`MAX_REPLAY_STEPS`]: its
    /// `exported_at_step`, or the step of an event after the flock's beginning (event `first`).
    pub(super) fn check_steps(&self, origin: &str, first: usize) -> Result<(), EventsError> {
        let refuse = |what: String, step: u64| EventsError::Invalid {
            origin: origin.to_owned(),
            message: format!(
                "{what} = {step} is out of range: allowed [0, {MAX_REPLAY_STEPS}], the most \
                 steps a replay takes (a day of the viewer at its top speed)"
            ),
        };
        if let Some(step) = self.exported_at_step.filter(|&s| s > MAX_REPLAY_STEPS) {
            return Err(refuse("exported_at_step".to_owned(), step));
        }
        let mut late = self.events.iter().enumerate().skip(first + 1);
        match late.find(|(_, e)| e.step > MAX_REPLAY_STEPS) {
            Some((index, event)) => Err(refuse(format!("event {index}: step"), event.step)),
            None => Ok(()),
        }
    }

    /// Holds the parameters of the replayed flock to `check` without a step: those of its
    /// beginning, then those after each `set` and each predator placed or removed, with the
    /// index and step of the event that gave them, each read as the replay reads it. A refusal
    /// of `check` (its message) is the log's, naming the event
    /// ([`EventsError::Refused`]).
    pub fn course(
        &self,
        origin: &str,
        mut check: impl FnMut(&Params) -> Result<(), String>,
    ) -> Result<(), EventsError> {
        let beginning = self.beginning(origin)?;
        let refused = |index: usize, step: u64, message: String| EventsError::Refused {
            origin: origin.to_owned(),
            index,
            step,
            message,
        };
        check(&beginning.params).map_err(|m| refused(beginning.index, 0, m))?;
        let dimensions = beginning.params.dimensions;
        let mut layers = beginning.layers;
        for event in self.pending(origin, beginning.index)? {
            let predators = layers.params().predator_count;
            let count = match &event.action {
                Action::Set { key, value } => {
                    layers = event.set(origin, &layers, key, value, dimensions)?;
                    None
                }
                Action::Edit(Change::PlacePredator { .. }) => Some(predators.saturating_add(1)),
                Action::Edit(Change::RemovePredator { .. }) => Some(predators.saturating_sub(1)),
                Action::Edit(_) => continue,
            };
            if let Some(count) = count {
                layers = predators_layer(&layers, count, event.source(origin))
                    .map_err(|error| event.params_error(origin, error))?;
            }
            check(layers.params()).map_err(|m| refused(event.index, event.step, m))?;
        }
        Ok(())
    }
}
