//! The step rate the metrics message reports: measured by the simulation thread as it steps,
//! not taken from the target speed, so a flock too large for its speed shows what it reaches.

use std::time::Instant;

/// Steps per second while running, measured over about a second; the last measurement stands
/// until the next, so a restart does not report 0 for a second (longer for a large flock, whose
/// metrics go out less often).
#[derive(Debug)]
pub(super) struct RateMeter {
    since: Instant,
    steps: u64,
    rate: f64,
}

impl Default for RateMeter {
    fn default() -> Self {
        Self {
            since: Instant::now(),
            steps: 0,
            rate: 0.0,
        }
    }
}

impl RateMeter {
    /// Counts `steps` steps taken; the first a second or more into the window measures the
    /// rate and starts the next window.
    pub fn tick(&mut self, steps: u64) {
        self.steps += steps;
        let elapsed = self.since.elapsed().as_secs_f64();
        if elapsed >= 1.0 {
            self.rate = self.steps as f64 / elapsed;
            self.steps = 0;
            self.since = Instant::now();
        }
    }

    /// Starts a new window: the time spent paused is not running time.
    pub fn paused(&mut self) {
        self.since = Instant::now();
        self.steps = 0;
    }

    /// The last measurement (0 before the first).
    pub fn steps_per_second(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_window_of_two_seconds_measures_its_steps_and_a_pause_keeps_the_measurement() {
        let mut meter = RateMeter {
            since: Instant::now() - Duration::from_secs(2),
            steps: 9,
            rate: 0.0,
        };
        meter.tick(1);
        let rate = meter.steps_per_second();
        assert!(rate > 4.9 && rate <= 5.0, "{rate}");
        meter.paused();
        meter.tick(1);
        assert_eq!(meter.steps_per_second(), rate);
    }
}
