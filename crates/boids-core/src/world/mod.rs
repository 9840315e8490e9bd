//! The world the flock lives in besides the other boids: obstacles that boids steer around and
//! never enter, predators that hunt them, attractors they seek, and the ground they perch on.
//!
//! Obstacles and attractors are parameters of the catalogue (`obstacles`, a list of
//! [`Obstacle`](crate::obstacles::Obstacle)s; `attractors`, a list of points), so a config file,
//! the viewer and the event log set them as they set any value. The obstacles' shapes and
//! their index are [`crate::obstacles`], below the parameters; the step looks obstacles up
//! through an [`ObstacleIndex`](crate::obstacles::ObstacleIndex) built when they change.
//! Predators are agents with a state of their own ([`Predator`]), saved with the flock;
//! [`WorldSteer`] is what they and the attractors do to a boid (with a force from outside, the
//! step's [`Pull`]), and [`Perch`] the landing and resting of seed 001. [`World`] holds all of
//! it as one object, with a method for each stage of the step it takes part in. Everything
//! here is written once over the dimension `D`: a ball is a disc or a sphere, an aligned box a
//! rectangle or a box, and a predator hunts in the plane or in space; only walls are
//! two-dimensional.

mod objects;
mod pass;
mod perch;
mod place;
mod predator;
mod pull;
mod steer;

pub use objects::World;
pub use pass::ObstaclePass;
pub use perch::Perch;
pub use place::{free_position, predator_start, start};
pub use predator::{Hunt, Predator, captures, nearest_boids};
pub use pull::Pull;
pub use steer::WorldSteer;
