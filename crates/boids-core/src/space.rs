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
//! The plane's directions (a unit vector at an angle, snapped on the axes; a rotation; a scout's
//! preferred direction) and the torus's arithmetic (wrapping a position into the world, the
//! minimum image of an offset, the quick range tests before it) live here too, below the rules,
//! the world, the grid and the parameters that all use them, so that none of those imports
//! another for a vector helper.
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

use crate::choice::choices;
use crate::real::{Real, Vector};
use crate::rng::Stream;

choices! {
    /// Shape of the angular noise of the Vicsek and Couzin models.
    pub enum NoiseDistribution {
        /// Uniform in `[-noise/2, noise/2]` (Vicsek's eta).
        Uniform = "uniform",
        /// Normal with standard deviation `noise` (Couzin's sigma), wrapped onto the circle.
        Gaussian = "gaussian",
    }
}

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
        rotate(d, angle)
    }

    fn turn_toward(from: Vec2, to: Vec2, limit: f64) -> Vec2 {
        turn_toward(from, to, limit)
    }

    /// At an angle uniform in `[0, 2 pi)` ([`unit_at`], so the axes are exact).
    fn random_direction(stream: &mut Stream) -> Vec2 {
        unit_at(TAU * stream.unit())
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

/// A direction of the x-y plane in `D` dimensions (z = 0 in 3D).
pub fn in_plane<const D: usize>(v: Vec2) -> [f32; D] {
    let mut out = [0.0; D];
    out[..2].copy_from_slice(&[v.x, v.y]);
    out
}

/// The unit vector at `angle` (radians), with components within 1e-15 of 0 or ±1 snapped there,
/// so that the axis directions (seed 001's +x and -x) are exact and the scout bias along them
/// touches only vx, as the seed's rule does.
pub fn unit_at(angle: f64) -> Vec2 {
    Vec2::new(snap_unit(angle.cos()) as f32, snap_unit(angle.sin()) as f32)
}

/// A scout group's preferred direction in `D` dimensions: [`unit_at`] `angle` in 2D; in 3D
/// the direction at azimuth `angle` raised by `elevation` toward +z,
/// `(cos e cos a, cos e sin a, sin e)`, its components snapped as [`unit_at`]'s (so an
/// elevation of 0 gives exactly [`unit_at`]'s direction with z = 0).
pub fn preferred_direction<const D: usize>(angle: f64, elevation: f64) -> [f32; D] {
    if D == 2 {
        return in_plane(unit_at(angle));
    }
    let (sin_e, cos_e) = elevation.sin_cos();
    let unit = [cos_e * angle.cos(), cos_e * angle.sin(), sin_e];
    std::array::from_fn(|a| snap_unit(unit[a]) as f32)
}

/// A unit vector's component `c`, snapped to 0 or ±1 within 1e-15 of it.
fn snap_unit(c: f64) -> f64 {
    if c.abs() < 1e-15 {
        0.0
    } else if (c.abs() - 1.0).abs() < 1e-15 {
        c.signum()
    } else {
        c
    }
}

/// Rotates `v` by `angle` radians (counter-clockwise in x-right, y-up axes).
#[inline]
pub fn rotate(v: Vec2, angle: f64) -> Vec2 {
    let (sin, cos) = angle.sin_cos();
    Vec2::new(cos as f32, sin as f32).rotate(v)
}

/// Turns unit vector `from` toward unit vector `to` by at most `limit` radians.
pub fn turn_toward(from: Vec2, to: Vec2, limit: f64) -> Vec2 {
    let angle = f64::from(from.angle_to(to));
    if angle.abs() <= limit {
        to
    } else {
        rotate(from, limit.copysign(angle))
    }
}

/// Wraps a position into `[min, min + size)`, never returning the upper edge itself.
#[inline(always)]
pub fn wrap<const D: usize, P: Coordinates<D>>(p: P, min: P, size: P) -> P {
    let (mut p, min, size) = (p.to_array(), min.to_array(), size.to_array());
    for a in 0..D {
        p[a] = wrap_axis(p[a], min[a], size[a]);
    }
    p.into()
}

/// [`wrap`] along one axis.
#[inline(always)]
pub(crate) fn wrap_axis<T: Real>(x: T, lo: f32, extent: f32) -> T {
    let (lo_t, extent_t) = (T::splat(lo), T::splat(extent));
    let r = wrap_offset(x - lo_t, extent);
    let r = T::select(r.ge(extent_t), T::splat(0.0), r);
    let w = lo_t + r;
    // lo + r can round up to the upper edge when lo is large; fold it back.
    T::select(w.ge(T::splat(lo + extent)), lo_t, w)
}

/// `t.rem_euclid(extent)` for a positive `extent`, bit for bit, without the `fmodf` call when
/// `t` is less than one extent outside `[0, extent)` (a boid moves far less than a world per
/// step). On that range the remainder is exact and the fast paths compute it exactly too:
/// `fmod(t, e)` is `t` for `|t| < e` (then `rem_euclid` adds `e` to a negative remainder, as
/// here), and `t - e` for `e <= t < 2e`, where the subtraction is exact (Sterbenz). `-0.0`
/// stays `-0.0` as in `rem_euclid`; `t == -e`, NaN and far-out values take the library path.
#[inline(always)]
fn wrap_offset<T: Real>(t: T, extent: f32) -> T {
    let (zero, e) = (T::splat(0.0), T::splat(extent));
    let inside = t.ge(zero) & t.lt(e);
    let below = t.lt(zero) & t.gt(-e);
    let above = t.ge(e) & t.lt(T::splat(2.0 * extent));
    let far = if T::any(!(inside | below | above)) {
        t.map_lanes(|t| t.rem_euclid(extent))
    } else {
        t
    };
    let r = T::select(above, t - e, far);
    let r = T::select(below, t + e, r);
    T::select(inside, t, r)
}

/// The minimum image of an offset `x` along an axis of period `w` (none when `w` is zero):
/// `x - w * round(x / w)`. An offset within a quarter period rounds to zero, so it is `x`
/// less `w * 0`, which is `x + 0.0` (the sign of a zero as the formula gives it), taken
/// without the division.
#[inline(always)]
pub fn minimum_image_axis(x: f32, w: f32) -> f32 {
    if w > 0.0 {
        if x.abs() <= 0.25 * w {
            x + 0.0
        } else {
            x - w * (x / w).round()
        }
    } else {
        x
    }
}

/// Minimum-image offset along axes whose `wrap` is non-zero.
#[inline(always)]
pub fn minimum_image<const D: usize, P: Coordinates<D>>(d: P, wrap: P) -> P {
    let (mut d, wrap) = (d.to_array(), wrap.to_array());
    for a in 0..D {
        d[a] = minimum_image_axis(d[a], wrap[a]);
    }
    d.into()
}

/// The minimum image of `d` when it lies within `range` of zero along every axis, else `None`.
/// `d` must be the difference of two points stored in the world (so `|d| < wrap` on a torus):
/// then a far pair is ruled out by a comparison per axis, without the divisions of
/// [`minimum_image`], which gives the exact offset of the pairs that remain.
#[inline]
pub fn image_within<const D: usize, P: Coordinates<D>>(d: P, wrap: P, range: f32) -> Option<P> {
    let axis = |x: f32, w: f32| {
        let a = x.abs();
        if w > 0.0 { a.min(w - a) } else { a }
    };
    // A hair of slack, so the quick test never refuses a pair the exact offset keeps.
    let reach = range * (1.0 + 1e-5);
    let (da, wa) = (d.to_array(), wrap.to_array());
    if (0..D).any(|a| axis(da[a], wa[a]) > reach) {
        return None;
    }
    Some(minimum_image(d, wrap))
}

/// Whether some point of the box `[lo, hi]` may lie within `range` of `q` along every axis (on
/// a torus, of any image of `q`): a test that rules a whole group of boids out at once before
/// [`image_within`] tests each. It never refuses a box holding a point that test would keep.
#[inline]
pub fn box_reaches<const D: usize, P: Coordinates<D>>(
    lo: P,
    hi: P,
    q: P,
    wrap: P,
    range: f32,
) -> bool {
    let axis = |lo: f32, hi: f32, q: f32, w: f32| {
        let gap = |q: f32| (lo - q).max(q - hi).max(0.0);
        if w > 0.0 {
            gap(q).min(gap(q - w)).min(gap(q + w))
        } else {
            gap(q)
        }
    };
    let reach = range * (1.0 + 1e-5);
    let [lo, hi, q, wrap] = [lo, hi, q, wrap].map(Coordinates::to_array);
    (0..D).all(|a| axis(lo[a], hi[a], q[a], wrap[a]) <= reach)
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;

    #[test]
    fn image_within_keeps_exactly_the_pairs_within_range() {
        let wrap = Vec2::new(100.0, 50.0);
        let points = (0..400).map(|k| {
            let t = k as f32 * 0.618_034;
            Vec2::new((t * 97.0).rem_euclid(100.0), (t * 53.0).rem_euclid(50.0))
        });
        let points: Vec<Vec2> = points.collect();
        for &p in &points {
            for &q in &points {
                for w in [wrap, Vec2::ZERO] {
                    let exact = minimum_image(p - q, w);
                    let inside = exact.x.abs() <= 10.0 && exact.y.abs() <= 10.0;
                    match image_within(p - q, w, 10.0) {
                        Some(d) => assert_eq!(d, exact),
                        None => assert!(!inside, "{p} {q} {w}"),
                    }
                }
            }
        }
    }

    #[test]
    fn box_reaches_every_point_image_within_keeps() {
        let wrap = Vec2::new(100.0, 50.0);
        let points: Vec<Vec2> = (0..300)
            .map(|k| {
                let t = k as f32 * 0.618_034;
                Vec2::new((t * 97.0).rem_euclid(100.0), (t * 53.0).rem_euclid(50.0))
            })
            .collect();
        for group in points.chunks(8) {
            let lo = group.iter().fold(Vec2::INFINITY, |a, &p| a.min(p));
            let hi = group.iter().fold(Vec2::NEG_INFINITY, |a, &p| a.max(p));
            for &q in &points {
                for w in [wrap, Vec2::ZERO] {
                    let kept = group.iter().any(|&p| image_within(p - q, w, 6.0).is_some());
                    assert!(!kept || box_reaches(lo, hi, q, w, 6.0), "{lo} {hi} {q} {w}");
                }
            }
        }
        assert!(!box_reaches(
            Vec2::ZERO,
            Vec2::ONE,
            Vec2::new(20.0, 0.5),
            Vec2::ZERO,
            6.0
        ));
        assert!(box_reaches(
            Vec2::ZERO,
            Vec2::ONE,
            Vec2::new(99.0, 0.5),
            wrap,
            6.0
        ));
    }

    #[test]
    fn wrap_stays_inside_the_world() {
        let (min, size) = (Vec2::new(-8.0, -8.0), Vec2::splat(16.0));
        assert_eq!(wrap(Vec2::new(8.0, -8.5), min, size), Vec2::new(-8.0, 7.5));
        let w = wrap(Vec2::new(-8.0 - 1e-7, 0.0), min, size);
        assert!(w.x >= -8.0 && w.x < 8.0);
        // Less than one world outside: the fast path, same answers as rem_euclid.
        assert_eq!(
            wrap(Vec2::new(8.25, -9.0), min, size),
            Vec2::new(-7.75, 7.0)
        );
        // Far outside: the rem_euclid fallback.
        assert_eq!(
            wrap(Vec2::new(40.5, -41.0), min, size),
            Vec2::new(-7.5, 7.0)
        );
        assert_eq!(
            minimum_image(Vec2::new(15.0, 1.0), Vec2::new(16.0, 0.0)),
            Vec2::new(-1.0, 1.0)
        );
    }

    #[test]
    fn wrap_offset_is_rem_euclid_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let extents = [16.0f32, 600.0, 1000.0, 3162.2776, 1.0e-3, 7.0e6];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x2545_f491);
        for &e in &extents {
            let check = |t: f32| {
                assert_eq!(
                    wrap_offset(t, e).to_bits(),
                    t.rem_euclid(e).to_bits(),
                    "t={t:e} e={e:e}"
                );
            };
            for t in [
                0.0,
                -0.0,
                e,
                -e,
                2.0 * e,
                -2.0 * e,
                e.next_down(),
                e.next_up(),
                (-e).next_up(),
                (-e).next_down(),
                (2.0 * e).next_down(),
                f32::MIN_POSITIVE,
                -f32::MIN_POSITIVE,
                1e-45,
                -1e-45,
                3.0 * e,
                -3.5 * e,
            ] {
                check(t);
            }
            for _ in 0..200_000 {
                check((rng.random::<f32>() * 4.0 - 1.5) * e);
            }
        }
    }
}
