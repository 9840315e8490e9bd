//! The two steps of the heading models (Vicsek, Couzin) whose form depends on the dimension:
//! the random turn of the angular noise, and the turn toward the desired direction limited to
//! an angle a step.
//!
//! In 2D both are rotations by a signed angle. In 3D a direction has two degrees of freedom, so
//! the noise turns it by a *polar* angle (away from it) in a random *azimuth* (around it), and
//! the limited turn rotates it in the plane it spans with the target. The two noise
//! distributions keep their meaning:
//!
//! - **uniform** (Vicsek's eta): 2D, an angle uniform in `[-eta/2, eta/2]`; 3D, a direction
//!   uniform by solid angle on the sphere's cap of half-angle `eta/2` around the direction
//!   (the vectorial noise of the 3D Vicsek model, Czirók, Vicsek et al. 1999 and Chaté et al.
//!   2008): the cosine of the polar angle uniform in `[cos(eta/2), 1]`, the azimuth uniform;
//! - **gaussian** (Couzin's sigma): 2D, an angle normal with standard deviation sigma; 3D, the
//!   spherically wrapped Gaussian of Couzin et al. 2002: the turn's offset in the plane across
//!   the direction is an isotropic normal of standard deviation sigma per axis (the polar angle
//!   is sigma times a Rayleigh draw, the azimuth uniform). Both come from the same Box-Muller
//!   pair: the 2D angle is the 3D offset's first component.
//!
//! Each boid's draws come from its own stream `(seed, Noise, step, boid id)`, so the noise does
//! not depend on the thread count.

use std::f64::consts::TAU;

use glam::{Vec2, Vec3};

use crate::params::NoiseDistribution;
use crate::rng::Stream;
use crate::rules;
use crate::space::{Dim, Dimension};

/// How a heading turns in `D` dimensions.
pub trait Heading<const D: usize>: Dimension<D> {
    /// The unit direction `d` turned by the angular noise `noise` (eta or sigma, radians) of
    /// `distribution`, drawn from `stream`; `None` when the noise is zero.
    fn add_noise(
        d: Self::Vector,
        distribution: NoiseDistribution,
        noise: f64,
        stream: Option<&mut Stream>,
    ) -> Self::Vector;

    /// The unit vector `from` turned toward the unit vector `to` by at most `limit` radians
    /// (`to` itself when it is that close).
    fn turn_toward(from: Self::Vector, to: Self::Vector, limit: f64) -> Self::Vector;
}

impl Heading<2> for Dim<2> {
    /// Rotates `d` by the drawn angle (by zero without noise, as the 2D model always has).
    fn add_noise(
        d: Vec2,
        distribution: NoiseDistribution,
        noise: f64,
        stream: Option<&mut Stream>,
    ) -> Vec2 {
        let angle = match stream {
            None => 0.0,
            Some(s) => match distribution {
                NoiseDistribution::Uniform => noise * (s.unit() - 0.5),
                NoiseDistribution::Gaussian => {
                    let radius = rayleigh(s);
                    noise * radius * (TAU * s.unit()).cos()
                }
            },
        };
        rules::rotate(d, angle)
    }

    fn turn_toward(from: Vec2, to: Vec2, limit: f64) -> Vec2 {
        rules::turn_toward(from, to, limit)
    }
}

impl Heading<3> for Dim<3> {
    /// Turns `d` by a polar angle drawn from `distribution` in a uniform azimuth.
    fn add_noise(
        d: Vec3,
        distribution: NoiseDistribution,
        noise: f64,
        stream: Option<&mut Stream>,
    ) -> Vec3 {
        let Some(s) = stream else {
            return d;
        };
        let (cos_polar, sin_polar) = match distribution {
            NoiseDistribution::Uniform => {
                let cos = 1.0 - s.unit() * (1.0 - (noise / 2.0).cos());
                (cos, (1.0 - cos * cos).max(0.0).sqrt())
            }
            NoiseDistribution::Gaussian => {
                let polar = noise * rayleigh(s);
                (polar.cos(), polar.sin())
            }
        };
        let azimuth = TAU * s.unit();
        let d = d.as_dvec3();
        let (across, across_too) = d.any_orthonormal_pair();
        let side = across * azimuth.cos() + across_too * azimuth.sin();
        (d * cos_polar + side * sin_polar).normalize().as_vec3()
    }

    /// Rotates `from` in the plane of `from` and `to`; when `to` is exactly behind, in the
    /// plane of a fixed perpendicular of `from` ([`glam::DVec3::any_orthonormal_vector`]).
    fn turn_toward(from: Vec3, to: Vec3, limit: f64) -> Vec3 {
        let (f, t) = (from.as_dvec3(), to.as_dvec3());
        let across = t - f * f.dot(t);
        let angle = across.length().atan2(f.dot(t));
        if angle <= limit {
            return to;
        }
        let side = across
            .try_normalize()
            .unwrap_or_else(|| f.any_orthonormal_vector());
        (f * limit.cos() + side * limit.sin()).as_vec3()
    }
}

/// The radius of a standard 2D normal (Box-Muller's first draw): `sqrt(-2 ln(1 - u))`, where
/// `1 - u` is in `(0, 1]`, so the logarithm is finite.
fn rayleigh(s: &mut Stream) -> f64 {
    (-2.0 * (1.0 - s.unit()).ln()).sqrt()
}
