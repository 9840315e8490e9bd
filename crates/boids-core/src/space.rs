//! Two or three dimensions, chosen at compile time: the step, the grid, the rules and the world
//! are written once over a dimension `D` (2 or 3), and [`Dim<D>`] names what differs between
//! the two: the `glam` vector type a flock is stored in ([`VecN`]), the one rule whose form
//! depends on the dimension (a scout's velocity across its preferred direction), and the turns
//! of a direction: the random turn of the heading models' angular noise (Vicsek, Couzin) and
//! of a wandering predator, the turn toward a desired direction limited to an angle a step, and
//! a direction drawn at random.
//!
//! Everything else is a loop over the axes that the compiler unrolls, performing per axis the
//! operations the 2D code always performed, so 2D results are bit for bit those of a 2D-only
//! engine.
//!
//! ## Turns
//!
//! In 2D the noise and the limited turn are rotations by a signed angle. In 3D a direction has two degrees of freedom, so
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
//! Each boid's draws come from its own stream `(seed, Noise, step, boid id)` (a predator's from
//! `(seed, PredatorWander, step, index)`), so the noise does not depend on the thread count.

use std::f64::consts::TAU;
use std::fmt::Debug;
use std::ops::{Add, Mul, Neg, Sub};

use glam::{Vec2, Vec3};

use crate::params::NoiseDistribution;
use crate::real::{Real, Vector};
use crate::rng::Stream;
use crate::rules;

/// The dimension `D` as a type, for [`Dimension`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Dim<const D: usize>;

/// What a world of `D` dimensions stores, and the rule and turns whose form depends on it.
pub trait Dimension<const D: usize> {
    /// The vector a position or velocity is stored in: `glam::Vec2` or `glam::Vec3`.
    type Vector: Coordinates<D>;

    /// The part of `v` across the unit vector `g`: what a scout keeps untouched while its
    /// component along `g` is pulled toward 1 (seed 001's bias on `vx` alone when `g` is ±x).
    fn across<T: Real>(v: Vector<T, D>, g: Vector<T, D>) -> Vector<T, D>;

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

    /// A unit vector uniform on the circle or the sphere, drawn from `stream`.
    fn random_direction(stream: &mut Stream) -> Self::Vector;
}

/// The stored vector of `D` dimensions (`glam::Vec2` or `glam::Vec3`).
pub type VecN<const D: usize> = <Dim<D> as Dimension<D>>::Vector;

/// What the engine asks of a stored vector: glam's arithmetic and conversion to and from an
/// array of coordinates (x, y, then z).
pub trait Coordinates<const D: usize>:
    Copy
    + Default
    + Debug
    + std::fmt::Display
    + PartialEq
    + Send
    + Sync
    + 'static
    + From<[f32; D]>
    + Into<[f32; D]>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f32, Output = Self>
{
    /// The zero vector.
    const ZERO: Self;

    /// Dot product.
    fn dot(self, other: Self) -> f32;

    /// The unit vector along `self`, or `None` for a zero, infinite or NaN vector.
    fn try_normalize(self) -> Option<Self>;

    /// The unit vector along `self`, or zero for a zero, infinite or NaN vector.
    fn normalize_or_zero(self) -> Self;

    /// Coordinates as an array.
    fn to_array(self) -> [f32; D] {
        self.into()
    }

    /// Euclidean length.
    fn length(self) -> f32;

    /// Squared Euclidean length.
    fn length_squared(self) -> f32;
}

impl Coordinates<2> for Vec2 {
    const ZERO: Self = Vec2::ZERO;

    fn dot(self, other: Self) -> f32 {
        Vec2::dot(self, other)
    }

    fn try_normalize(self) -> Option<Self> {
        Vec2::try_normalize(self)
    }

    fn normalize_or_zero(self) -> Self {
        Vec2::normalize_or_zero(self)
    }

    fn length(self) -> f32 {
        Vec2::length(self)
    }

    fn length_squared(self) -> f32 {
        Vec2::length_squared(self)
    }
}

impl Coordinates<3> for Vec3 {
    const ZERO: Self = Vec3::ZERO;

    fn dot(self, other: Self) -> f32 {
        Vec3::dot(self, other)
    }

    fn try_normalize(self) -> Option<Self> {
        Vec3::try_normalize(self)
    }

    fn normalize_or_zero(self) -> Self {
        Vec3::normalize_or_zero(self)
    }

    fn length(self) -> f32 {
        Vec3::length(self)
    }

    fn length_squared(self) -> f32 {
        Vec3::length_squared(self)
    }
}

impl Dimension<2> for Dim<2> {
    type Vector = Vec2;

    /// `g`'s quarter turn times `v`'s component along it: the 2D rule as it always was.
    #[inline(always)]
    fn across<T: Real>(v: Vector<T, 2>, g: Vector<T, 2>) -> Vector<T, 2> {
        let [gx, gy] = g.0;
        let axis = Vector([-gy, gx]);
        axis.scale(v.dot(axis))
    }

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

    /// At an angle uniform in `[0, 2 pi)` ([`rules::unit_at`], so the axes are exact).
    fn random_direction(stream: &mut Stream) -> Vec2 {
        rules::unit_at(TAU * stream.unit())
    }
}

impl Dimension<3> for Dim<3> {
    type Vector = Vec3;

    /// `v` less its projection on `g`.
    #[inline(always)]
    fn across<T: Real>(v: Vector<T, 3>, g: Vector<T, 3>) -> Vector<T, 3> {
        v - g.scale(v.dot(g))
    }

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

    /// Archimedes' way: z uniform in `[-1, 1)`, the azimuth uniform in `[0, 2 pi)`.
    fn random_direction(stream: &mut Stream) -> Vec3 {
        let z = 2.0 * stream.unit() - 1.0;
        let azimuth = TAU * stream.unit();
        let across = (1.0 - z * z).max(0.0).sqrt();
        glam::DVec3::new(across * azimuth.cos(), across * azimuth.sin(), z).as_vec3()
    }
}

/// The radius of a standard 2D normal (Box-Muller's first draw): `sqrt(-2 ln(1 - u))`, where
/// `1 - u` is in `(0, 1]`, so the logarithm is finite.
fn rayleigh(s: &mut Stream) -> f64 {
    (-2.0 * (1.0 - s.unit()).ln()).sqrt()
}

/// Runs `$body` with `$d` a constant of the dimension `$dimensions` (2 or 3, as the parameter
/// checks allow), so that one generic code path serves both:
///
/// ```
/// use boids_core::{Params, Simulation, with_dimensions};
///
/// let mut params = Params::preset("cornell").unwrap();
/// params.dimensions = 3;
/// let speed = with_dimensions!(params.dimensions, D, {
///     let mut sim = Simulation::<D>::new(params.clone(), 1).unwrap();
///     sim.step();
///     sim.velocities().len()
/// });
/// assert_eq!(speed, params.count);
/// ```
#[macro_export]
macro_rules! with_dimensions {
    ($dimensions:expr, $d:ident, $body:block) => {
        match $dimensions {
            3 => {
                const $d: usize = 3;
                $body
            }
            _ => {
                const $d: usize = 2;
                $body
            }
        }
    };
}
