//! Counter-based random streams.
//!
//! Every random number is drawn from a stream keyed by `(seed, purpose, step, boid id)`, so the
//! numbers a boid gets do not depend on which thread handles it or on the order boids are stored
//! in: the root of determinism across thread counts. A stream is a xoshiro256++ generator whose
//! state is derived from the key by SplitMix64 mixing.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a stream is used for; distinct purposes never share numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Initial positions and velocities.
    Init = 1,
    /// Per-step noise of a model.
    Noise = 2,
    /// A predator's start (keyed by its index).
    PredatorStart = 3,
    /// A predator's wandering turn (keyed by step and its index).
    PredatorWander = 4,
    /// Where a caught boid starts again (keyed by step and its id).
    Respawn = 5,
    /// How long a landing boid rests (keyed by step and its id).
    Perch = 6,
}

/// SplitMix64's finaliser: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A generator for one `(seed, purpose, step, id)` key.
pub fn stream(seed: u64, purpose: Purpose, step: u64, id: u64) -> Stream {
    let key = mix(seed ^ mix(purpose as u64 ^ mix(step ^ mix(id))));
    Stream(Xoshiro256PlusPlus::seed_from_u64(key))
}

/// A keyed random stream with the few draws the models need.
pub struct Stream(Xoshiro256PlusPlus);

impl Stream {
    /// Uniform in `[0, 1)` with 53 random bits; written out (not `rand`'s sampler) so the numbers
    /// stay the same across library versions.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[low, high)` (or exactly `low` when the interval is empty).
    pub fn uniform(&mut self, [low, high]: [f64; 2]) -> f64 {
        low + (high - low) * self.unit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_numbers_different_key_different_numbers() {
        let draw = |seed, step, id| stream(seed, Purpose::Init, step, id).unit();
        assert_eq!(draw(1, 2, 3), draw(1, 2, 3));
        assert_ne!(draw(1, 2, 3), draw(1, 2, 4));
        assert_ne!(draw(1, 2, 3), draw(1, 3, 3));
        assert_ne!(draw(1, 2, 3), draw(2, 2, 3));
        assert_ne!(
            stream(1, Purpose::Init, 0, 0).unit(),
            stream(1, Purpose::Noise, 0, 0).unit()
        );
    }

    #[test]
    fn uniform_stays_in_its_interval_and_covers_it() {
        let mut rng = stream(7, Purpose::Init, 0, 0);
        let draws: Vec<f64> = (0..10_000).map(|_| rng.uniform([-2.0, 3.0])).collect();
        assert!(draws.iter().all(|&x| (-2.0..3.0).contains(&x)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((mean - 0.5).abs() < 0.05, "mean {mean}");
    }
}
