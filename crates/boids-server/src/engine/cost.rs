//! The budget checked again after every step, from what the step measured.
//!
//! A change is priced before it applies ([`budget`](crate::budget)), as if the flock were spread
//! evenly; flocks gather, and one pulled into a point by an attractor, or squeezed into a thin
//! torus, examines many times its estimate and slows the viewer for everyone. So after each step
//! the engine prices what the step did ([`Work::measured`]: the counts the step made, exact and
//! the same on any thread count, so the flock's state never depends on the machine) and, when
//! it overran the budget:
//!
//! - a `set` made in the last [`UNDO_WINDOW_STEPS`] steps is undone (`undo.rs`: the flock is
//!   kept, the parameter goes back, and the undo is logged as a `set`, so replay still agrees);
//! - otherwise the speed goes down to [`budget::STEP_REQUEST_STEPS`] steps' worth of the budget
//!   a second (a fifth below, so that a flock that goes on gathering is not lowered at every
//!   step), and below [`MIN_SPEED`] the flock is paused. The speed asked comes back with the
//!   next flock (a reset), which the overrun was not about.
//!
//! Either way every page is told why in a notice. Requests are served between steps, so a
//! `stop` or `set` waits for one step at most.

use super::EngineState;
use crate::budget::{self, Work};
use crate::protocol::MIN_SPEED;

/// Steps after a `set` within which an overrun is blamed on it (10 s at 60 steps a second):
/// what a flock becomes long after a change is its own doing, not the change's.
pub const UNDO_WINDOW_STEPS: u64 = 600;

/// The share of the speed the budget allows that an overrun lowers the speed to.
const SLOWED_SHARE: f64 = 0.8;

impl EngineState {
    /// Prices the step just taken and, if it overran the budget, undoes the last `set` or
    /// lowers the speed, telling every page. Returns whether it overran.
    pub(super) fn check_measured_cost(&mut self) -> bool {
        let work = Work::measured(&self.sim);
        self.pace.observe(&work, self.sim.stage_times().total());
        if work.pairs() <= self.max_pairs {
            return false;
        }
        let over = format!(
            "the last step cost {work}, over this server's budget of {:.2e} (--max-pairs)",
            self.max_pairs
        );
        let step = self.sim.step_count();
        let recent = self
            .last_set
            .take()
            .filter(|s| step.saturating_sub(s.step) <= UNDO_WINDOW_STEPS);
        let notice = match recent.map(|change| self.undo(&change).map(|()| change.what)) {
            Some(Ok(what)) => Some(format!("{what} was undone: {over}")),
            Some(Err(_)) | None => self.slow_down(&work, &over),
        };
        if let Some(notice) = notice {
            self.notify(notice);
            self.publish_state();
        }
        true
    }

    /// Lowers the speed to a few steps' worth of the budget a second, or pauses below the
    /// slowest speed; says which, or nothing when the speed is that low already.
    fn slow_down(&mut self, work: &Work, over: &str) -> Option<String> {
        let speed = budget::STEP_REQUEST_STEPS * self.max_pairs / work.pairs();
        if speed < MIN_SPEED {
            self.running = false;
            return Some(format!(
                "paused: {over}; lower what each boid examines, then start again"
            ));
        }
        if self.steps_per_second <= speed {
            return None;
        }
        // Below the bound, so a flock that goes on gathering is not lowered, and told, again
        // at every step.
        let speed = SLOWED_SHARE * speed;
        self.lowered_from.get_or_insert(self.steps_per_second);
        self.steps_per_second = speed;
        Some(format!(
            "speed lowered to {speed:.2} steps a second: {over}"
        ))
    }
}
