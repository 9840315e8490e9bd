//! The world the flock lives in besides the other boids: obstacles that boids steer around and
//! never enter.
//!
//! Obstacles are one parameter of the catalogue (`obstacles`, a list of [`Shape`]s), so a config
//! file, the viewer and the event log set them as they set any value. The step looks them up
//! through an [`ObstacleIndex`] built when they change.

mod index;
mod pass;
mod read;
mod shape;

pub use index::ObstacleIndex;
pub use pass::ObstaclePass;
pub use read::{read_shapes, shape_entries};
pub use shape::{Hit, Shape};
