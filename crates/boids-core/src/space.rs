//! Two or three dimensions, chosen at compile time: the step, the grid and the rules are
//! written once over a dimension `D` (2 or 3), and [`Dim<D>`] names what differs between the
//! two: the `glam` vector type a flock is stored in ([`VecN`]), and the one rule whose form
//! depends on the dimension (a scout's velocity across its preferred direction).
//!
//! Everything else is a loop over the axes that the compiler unrolls, performing per axis the
//! operations the 2D code always performed, so 2D results are bit for bit those of a 2D-only
//! engine.

use std::fmt::Debug;
use std::ops::{Add, Mul, Neg, Sub};

use glam::{Vec2, Vec3};

use crate::real::{Real, Vector};

/// The dimension `D` as a type, for [`Dimension`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Dim<const D: usize>;

/// What a world of `D` dimensions stores and how its one dimension-specific rule reads.
pub trait Dimension<const D: usize> {
    /// The vector a position or velocity is stored in: `glam::Vec2` or `glam::Vec3`.
    type Vector: Coordinates<D>;

    /// The part of `v` across the unit vector `g`: what a scout keeps untouched while its
    /// component along `g` is pulled toward 1 (seed 001's bias on `vx` alone when `g` is ±x).
    fn across<T: Real>(v: Vector<T, D>, g: Vector<T, D>) -> Vector<T, D>;
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
}

impl Dimension<3> for Dim<3> {
    type Vector = Vec3;

    /// `v` less its projection on `g`.
    #[inline(always)]
    fn across<T: Real>(v: Vector<T, 3>, g: Vector<T, 3>) -> Vector<T, 3> {
        v - g.scale(v.dot(g))
    }
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
