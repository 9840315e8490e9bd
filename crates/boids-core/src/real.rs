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

/// A 2D vector of [`Real`]s, with the arithmetic of `glam::Vec2` (same operations, same order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V2<T> {
    pub x: T,
    pub y: T,
}

impl<T: Real> V2<T> {
    #[inline(always)]
    pub fn new(x: T, y: T) -> Self {
        Self { x, y }
    }

    /// Both components `x`, `y` in every lane.
    #[inline(always)]
    pub fn splat(v: glam::Vec2) -> Self {
        Self::new(T::splat(v.x), T::splat(v.y))
    }

    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(glam::Vec2::ZERO)
    }

    #[inline(always)]
    pub fn dot(self, o: Self) -> T {
        self.x * o.x + self.y * o.y
    }

    #[inline(always)]
    pub fn length(self) -> T {
        self.dot(self).sqrt()
    }

    /// Rotated a quarter turn counter-clockwise.
    #[inline(always)]
    pub fn perp(self) -> Self {
        Self::new(-self.y, self.x)
    }

    #[inline(always)]
    pub fn scale(self, s: T) -> Self {
        Self::new(self.x * s, self.y * s)
    }

    #[inline(always)]
    pub fn div(self, s: T) -> Self {
        Self::new(self.x / s, self.y / s)
    }

    /// `yes` where `mask`, else `no`.
    #[inline(always)]
    pub fn select(mask: T::Mask, yes: Self, no: Self) -> Self {
        Self::new(T::select(mask, yes.x, no.x), T::select(mask, yes.y, no.y))
    }
}

impl<T: Real> Add for V2<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self::new(self.x + o.x, self.y + o.y)
    }
}

impl<T: Real> Sub for V2<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self::new(self.x - o.x, self.y - o.y)
    }
}

impl From<glam::Vec2> for V2<f32> {
    #[inline(always)]
    fn from(v: glam::Vec2) -> Self {
        Self::new(v.x, v.y)
    }
}

impl From<V2<f32>> for glam::Vec2 {
    #[inline(always)]
    fn from(v: V2<f32>) -> Self {
        Self::new(v.x, v.y)
    }
}
