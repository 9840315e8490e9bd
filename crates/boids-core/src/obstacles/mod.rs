//! Obstacles as data and geometry: the shapes boids steer around and never enter, and the
//! grid index that finds the few near a boid.
//!
//! They sit below the parameters, which hold obstacles as values (`obstacles`, a list of
//! [`Obstacle`]s) and read and check them, and below the world ([`crate::world`]), whose
//! obstacle pass steers boids around them; so the parameters need nothing of the world. A
//! [`Shape`] is written once over the dimension `D`: a ball is a disc or a sphere, an aligned
//! box a rectangle or a box; only walls are two-dimensional.

mod index;
mod shape;

pub use index::ObstacleIndex;
pub(crate) use index::{Lattice, side_for, union};
pub use shape::{Hit, Obstacle, Shape};
pub(crate) use shape::{splat, zip_axes};
