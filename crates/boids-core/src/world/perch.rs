//! Perching, as seed 001 suggests: "boids near the bottom of the screen rest for a moment
//! before rejoining the flock". The ground line lies `perch_height` above the bottom edge of
//! the world (the bottom of the screen: world y grows downward). A flying boid that ends a step
//! below it lands where it is: it stops, and rests for a number of steps drawn uniformly from
//! `[perch_min, perch_max]` (from its own stream, keyed by step and id). A resting boid does not
//! move; when its rest is over, or a predator comes within `fear_range`, it takes off straight
//! up at its take-off speed and flies by the rules again from the next step.
//!
//! The countdown is per-boid state: it is saved with the flock (the state file's `resting`
//! column) so that a resumed run rests exactly as an uninterrupted one.
//!
//! The rule is written over the dimension, as the general path that calls it is: the ground
//! is a level of y, a line in 2D and in 3D the plane at that height spanning x and z (y is
//! "down" in both, so a 3D flock lands on the same level as its 2D twin).

use glam::Vec2;

use crate::params::{Model, Params};
use crate::rng::{self, Purpose};
use crate::rules::{self, BoidState, Kernel};
use crate::space::{self, Coordinates, Dim, Dimension, VecN};

/// The perching rule of a simulation with `perch = true`.
#[derive(Clone, Copy, Debug)]
pub struct Perch {
    /// World y of the ground line.
    ground: f32,
    rest: [u64; 2],
    /// Speed at take-off: the heading models' speed, or midway between the boids' limits.
    takeoff_speed: f32,
}

impl Perch {
    /// The rule of `params`, or `None` when perching is off.
    pub fn new(params: &Params) -> Option<Self> {
        if !params.perch {
            return None;
        }
        let bottom = params.world_y_min + params.world_height;
        let takeoff_speed = match params.model {
            Model::Boids if params.max_speed.is_finite() => {
                0.5 * (params.min_speed + params.max_speed)
            }
            Model::Boids => params.min_speed.max(1.0),
            Model::Vicsek | Model::Couzin => params.speed,
        };
        Some(Self {
            ground: (bottom - params.perch_height) as f32,
            rest: [params.perch_min, params.perch_max],
            takeoff_speed: takeoff_speed as f32,
        })
    }

    /// World y of the ground line (the ground plane in 3D; renderers draw it).
    pub fn ground(&self) -> f32 {
        self.ground
    }

    /// A boid resting for `resting` more steps (at least 1): it counts down, or takes off when
    /// the rest is over or `threatened`. Returns its state after the step and its new count.
    pub fn rest<const D: usize>(
        &self,
        kernel: &Kernel<D>,
        boid: BoidState<D>,
        resting: u32,
        threatened: bool,
    ) -> (BoidState<D>, u32)
    where
        Dim<D>: Dimension<D>,
    {
        if resting > 1 && !threatened {
            let still = BoidState {
                velocity: VecN::<D>::ZERO,
                ..boid
            };
            return (still, resting - 1);
        }
        let up = VecN::<D>::from(space::in_plane(Vec2::new(0.0, -self.takeoff_speed)));
        let (position, velocity) = rules::move_boid(kernel, boid.position, up);
        (
            BoidState {
                position,
                velocity,
                bias: boid.bias,
            },
            0,
        )
    }

    /// A flying boid `id` after its move at step number `step`: below the ground line it lands
    /// (stops, and rests for a drawn number of steps). Returns its state and rest count.
    pub fn land<const D: usize>(
        &self,
        seed: u64,
        step: u64,
        id: usize,
        boid: BoidState<D>,
    ) -> (BoidState<D>, u32)
    where
        Dim<D>: Dimension<D>,
    {
        if boid.position.to_array()[1] <= self.ground {
            return (boid, 0);
        }
        let [low, high] = self.rest;
        let mut s = rng::stream(seed, Purpose::Perch, step, id as u64);
        let span = (high - low + 1) as f64;
        let steps = (low + (s.unit() * span) as u64).min(high);
        if steps == 0 {
            return (boid, 0);
        }
        let landed = BoidState {
            velocity: VecN::<D>::ZERO,
            ..boid
        };
        (landed, u32::try_from(steps).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Perch, Kernel) {
        let mut params = crate::Params::preset("cornell").unwrap();
        params.perch = true;
        params.perch_height = 80.0;
        params.perch_min = 5;
        params.perch_max = 7;
        (Perch::new(&params).unwrap(), Kernel::new(&params))
    }

    fn boid(x: f32, y: f32, vx: f32, vy: f32) -> BoidState {
        BoidState {
            position: Vec2::new(x, y),
            velocity: Vec2::new(vx, vy),
            bias: 0.0,
        }
    }

    #[test]
    fn a_boid_below_the_ground_line_lands_for_a_drawn_rest() {
        let (perch, _) = setup();
        let ground = 480.0 - 80.0;
        let (flying, rest) = perch.land(1, 2, 3, boid(100.0, ground - 1.0, 1.0, 2.0));
        assert_eq!((flying.velocity, rest), (Vec2::new(1.0, 2.0), 0));
        let rests: Vec<u32> = (0..200)
            .map(|id| perch.land(1, 2, id, boid(100.0, ground + 1.0, 1.0, 2.0)))
            .inspect(|(landed, _)| assert_eq!(landed.velocity, Vec2::ZERO))
            .map(|(_, rest)| rest)
            .collect();
        assert!(rests.iter().all(|r| (5..=7).contains(r)));
        assert!(
            (5..=7).all(|r| rests.contains(&r)),
            "every rest length drawn"
        );
    }

    #[test]
    fn a_resting_boid_stays_then_takes_off_upward() {
        let (perch, kernel) = setup();
        let resting = boid(100.0, 430.0, 0.0, 0.0);
        let (still, left) = perch.rest(&kernel, resting, 3, false);
        assert_eq!((still, left), (resting, 2));
        let (flying, left) = perch.rest(&kernel, resting, 1, false);
        assert_eq!(left, 0);
        assert!(flying.velocity.y < 0.0 && flying.position.y < 430.0);
        let (scared, left) = perch.rest(&kernel, resting, 50, true);
        assert_eq!(left, 0);
        assert!(scared.velocity.y < 0.0);
    }
}
