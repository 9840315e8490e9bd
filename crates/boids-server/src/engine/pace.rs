//! Whether a flock can be live: what its step costs against what this machine steps a second.
//!
//! The budget ([`budget`](crate::budget)) refuses a flock that would freeze the viewer; below
//! it a flock can still be too slow to watch (100,000 boids crowded in the 640 x 480 world step
//! about once a second on two cores, and their metrics come late). So a change whose flock would
//! step more slowly than [`LIVE_STEPS_PER_SECOND`] (and than half the speed asked) is applied
//! with a warning to every page that gives the estimate: its pairs a step, and the steps a
//! second this machine makes of them. The page's own note (web/js/stats.js) then measures it.
//!
//! A flock whose one step would take more than [`MAX_STEP_SECONDS`] at that pace is refused:
//! requests are served between steps, so every page's `stop` would wait that long (ten million
//! boids in a large world, within the pair budget, stepped once in 40 s on the GPU engine's CPU
//! emulation). The pair budget is machine-independent; this bound is what the machine makes.
//!
//! What the machine makes is measured, never assumed: from the flock's own steps while they are
//! large enough ([`LARGE_STEP_PAIRS`]) that a step's fixed cost does not count, or, before one
//! has been, once from a calibration flock of [`CALIBRATION_BOIDS`] cornell boids (a few tens
//! of milliseconds, only when a large change first asks).

use std::time::Duration;

use boids_core::{EngineKind, Flock, Params};

use super::EngineState;
use crate::budget::Work;
use crate::error::RequestError;

/// Steps a second below which a flock is not live (as the page's SLOW_BELOW).
pub const LIVE_STEPS_PER_SECOND: f64 = 10.0;

/// A flock is not live below this share of the speed asked, too (as the page's SLOW_SHARE).
const LIVE_SHARE_OF_SPEED: f64 = 0.5;

/// The most seconds one step of a flock may take at this machine's pace: a `stop` waits for
/// one step at most, and a few seconds is the longest a viewer can be kept waiting for it.
pub const MAX_STEP_SECONDS: f64 = 5.0;

/// Pairs a step from which a step's time measures the machine (its fixed cost is small) and
/// below which any machine keeps a flock live.
const LARGE_STEP_PAIRS: f64 = 1e6;

/// Boids of the calibration flock: cornell's world, about 330 neighbours each, 6.5e6 pairs.
const CALIBRATION_BOIDS: usize = 20_000;

/// This machine's neighbour pairs a second, once measured.
#[derive(Debug, Default)]
pub(super) struct Pace {
    pairs_per_second: Option<f64>,
}

impl Pace {
    /// Takes a step that examined `work` in `time` as the machine's measure, if it is large.
    pub fn observe(&mut self, work: &Work, time: Duration) {
        let seconds = time.as_secs_f64();
        if work.pairs() >= LARGE_STEP_PAIRS && seconds > 0.0 {
            self.pairs_per_second = Some(work.pairs() / seconds);
        }
    }

    /// Steps a second at which a flock of `work` would run on this machine, or `None` when it
    /// is too small to be slow anywhere.
    fn steps_per_second(&mut self, work: &Work, engine: EngineKind) -> Option<f64> {
        if work.pairs() < LARGE_STEP_PAIRS {
            return None;
        }
        let machine = match self.pairs_per_second {
            Some(measured) => measured,
            None => *self.pairs_per_second.insert(calibrate(engine)?),
        };
        Some(machine / work.pairs())
    }
}

/// Whether a flock stepping `rate` times a second is live at the speed `asked`.
fn is_live(rate: f64, asked: f64) -> bool {
    rate >= LIVE_STEPS_PER_SECOND || rate >= LIVE_SHARE_OF_SPEED * asked
}

/// The calibration flock's pairs a second (see the module docs); `None` if it cannot step.
fn calibrate(engine: EngineKind) -> Option<f64> {
    let params = Params {
        count: CALIBRATION_BOIDS,
        ..Params::preset("cornell").ok()?
    };
    let mut flock = Flock::new(params, 0, engine).ok()?;
    // The first step grows the buffers; the second is timed.
    for _ in 0..2 {
        boids_core::in_pool(|| flock.step()).ok()?;
    }
    let seconds = flock.stage_times().total().as_secs_f64();
    (seconds > 0.0).then(|| Work::measured(&flock).pairs() / seconds)
}

impl EngineState {
    /// Refuses the change `what`, whose flock examines `work` a step, when one step would take
    /// over [`MAX_STEP_SECONDS`] on this machine; otherwise, when it is too slow to be live,
    /// the warning to tell every page once it is applied (see the module docs).
    pub(super) fn check_pace(
        &mut self,
        what: &str,
        work: &Work,
    ) -> Result<Option<String>, RequestError> {
        let engine = self.sim.engine();
        let Some(rate) = self.pace.steps_per_second(work, engine) else {
            return Ok(None);
        };
        if rate * MAX_STEP_SECONDS < 1.0 {
            return Err(RequestError::TooSlow {
                what: what.to_owned(),
                work: *work,
                seconds: 1.0 / rate,
                engine: engine.to_string(),
                limit: MAX_STEP_SECONDS,
            });
        }
        let asked = self.steps_per_second;
        Ok((!is_live(rate, asked)).then(|| {
            format!(
                "{what}: {work}, about {rate:.2} steps a second on this machine against the \
                 {asked} asked, too slow to be live (the metrics will come late); fewer boids or \
                 a smaller visual range run faster"
            )
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(pairs: f64) -> Work {
        Work {
            count: 1000,
            neighbours: pairs / 1000.0 - crate::budget::BOID_PAIRS,
            objects: 0.0,
        }
    }

    #[test]
    fn a_large_steps_time_measures_the_machine_and_a_small_ones_does_not() {
        let mut pace = Pace::default();
        pace.observe(&work(1e5), Duration::from_millis(1));
        assert_eq!(pace.pairs_per_second, None);
        pace.observe(&work(2e7), Duration::from_millis(100));
        assert_eq!(pace.pairs_per_second, Some(2e8));
        // No calibration once measured: 2e8 pairs a second make 4 steps a second of 5e7 pairs.
        let rate = pace.steps_per_second(&work(5e7), EngineKind::Cpu);
        assert_eq!(rate, Some(4.0));
        // Too small to be slow anywhere.
        assert_eq!(pace.steps_per_second(&work(1e5), EngineKind::Cpu), None);
    }

    #[test]
    fn a_flock_is_live_at_ten_steps_a_second_or_half_the_speed_asked() {
        assert!(is_live(10.0, 60.0));
        assert!(!is_live(9.9, 60.0));
        assert!(is_live(2.0, 4.0));
        assert!(!is_live(1.9, 4.0));
    }

    #[test]
    fn the_calibration_flock_measures_a_pace() {
        let measured = calibrate(EngineKind::Cpu).expect("cornell steps");
        assert!(measured.is_finite() && measured > 0.0, "{measured}");
    }
}
