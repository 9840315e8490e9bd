//! Numbers the rules are written over: one `f32`, or eight in vector lanes
//! ([`crate::simd::Pack`]). The rules of [`crate::rules`] are written once against [`Real`],
//! so the hot loop moves eight boids with the very operations a single boid's move performs,
//! and gets the same bits.
//!
//! Every method is one IEEE operation per lane, or a select; branches on a boid's own state
//! become masks and selects, and the rare slow path (a far-out coordinate's remainder) runs
//! lane by lane only when some lane needs it.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// One or several `f32` lanes.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// One test result per lane.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;

    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// `self < other`.
    fn lt(self, other: Self) -> Self::Mask;
    /// `self > other`.
    fn gt(self, other: Self) -> Self::Mask;
    /// `self >= other`.
    fn ge(self, other: Self) -> Self::Mask;
    /// `yes` where `mask`, else `no`.
    fn select(mask: Self::Mask, yes: Self, no: Self) -> Self;
    /// Square root (correctly rounded).
    fn sqrt(self) -> Self;
    /// `|self|` (the sign bit cleared).
    fn abs(self) -> Self;
    /// Whether any lane of `mask` is set.
    fn any(mask: Self::Mask) -> bool;
    /// `f` applied lane by lane (for rare slow paths).
    fn map_lanes(self, f: impl Fn(f32) -> f32) -> Self;

    /// The smaller of the two (`other` when they are equal).
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Self::select(self.lt(other), self, other)
    }

    /// The larger of the two (`other` when they are equal).
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        Self::select(self.gt(other), self, other)
    }
}

impl Real for f32 {
    type Mask = bool;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn lt(self, other: Self) -> bool {
        self < other
    }
    #[inline(always)]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    #[inline(always)]
    fn ge(self, other: Self) -> bool {
        self >= other
    }
    #[inline(always)]
    fn select(mask: bool, yes: Self, no: Self) -> Self {
        if mask { yes } else { no }
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn any(mask: bool) -> bool {
        mask
    }
    #[inline(always)]
    fn map_lanes(self, f: impl Fn(f32) -> f32) -> Self {
        f(self)
    }
}

/// A vector of `D` [`Real`]s (x, y, then z), with the arithmetic of glam's vectors: the same
/// operations in the same order, axis by axis, so that one lane of it computes what a glam
/// vector computes. Loops over the axes run to a constant bound and unroll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vector<T, const D: usize>(pub [T; D]);

impl<T: Real, const D: usize> Vector<T, D> {
    /// Every coordinate of `v` in every lane.
    #[inline(always)]
    pub fn splat(v: [f32; D]) -> Self {
        Self(v.map(T::splat))
    }

    #[inline(always)]
    pub fn zero() -> Self {
        Self([T::splat(0.0); D])
    }

    /// `x0 * y0 + x1 * y1 (+ x2 * y2)`, added from the first axis on, as glam does.
    #[inline(always)]
    pub fn dot(self, o: Self) -> T {
        let mut sum = self.0[0] * o.0[0];
        for a in 1..D {
            sum = sum + self.0[a] * o.0[a];
        }
        sum
    }

    #[inline(always)]
    pub fn length(self) -> T {
        self.dot(self).sqrt()
    }

    #[inline(always)]
    pub fn scale(mut self, s: T) -> Self {
        for a in 0..D {
            self.0[a] = self.0[a] * s;
        }
        self
    }

    #[inline(always)]
    pub fn div(mut self, s: T) -> Self {
        for a in 0..D {
            self.0[a] = self.0[a] / s;
        }
        self
    }

    /// `yes` where `mask`, else `no`.
    #[inline(always)]
    pub fn select(mask: T::Mask, mut yes: Self, no: Self) -> Self {
        for a in 0..D {
            yes.0[a] = T::select(mask, yes.0[a], no.0[a]);
        }
        yes
    }
}

impl<T: Real, const D: usize> Add for Vector<T, D> {
    type Output = Self;
    #[inline(always)]
    fn add(mut self, o: Self) -> Self {
        for a in 0..D {
            self.0[a] = self.0[a] + o.0[a];
        }
        self
    }
}

impl<T: Real, const D: usize> Sub for Vector<T, D> {
    type Output = Self;
    #[inline(always)]
    fn sub(mut self, o: Self) -> Self {
        for a in 0..D {
            self.0[a] = self.0[a] - o.0[a];
        }
        self
    }
}
