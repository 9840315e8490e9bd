//! Eight `f32` lanes and their masks, for the hot loop of [`crate::interact`]: the handful of
//! vector operations it needs, written once per instruction set (AVX-512, AVX2, and plain
//! arrays for any other machine), so that the loop itself is written once. [`Build`] names
//! those instruction sets and picks the best at run time, for that loop and for binning.
//!
//! [`Pack`] wraps a vector as a [`Real`], so that the rules run on eight boids at once.
//!
//! Every operation is one IEEE operation per lane (or a select), the same in every
//! implementation, so a loop gives the same bits whichever runs it. The AVX types may only be
//! used in code compiled with their features and run after detecting them: this module is
//! private to the crate, and [`crate::interact`] instantiates them only inside functions marked
//! `#[target_feature]`, called after `is_x86_feature_detected!`.

use crate::real::Real;

/// Lanes per vector.
pub const LANES: usize = 8;

/// An implementation of eight-lane vectors.
pub trait Simd {
    /// Eight `f32`.
    type F: Copy;
    /// Eight booleans.
    type M: Copy;

    /// Every lane `x`.
    fn splat(x: f32) -> Self::F;
    /// The lanes of `a`.
    fn load(a: [f32; LANES]) -> Self::F;
    /// The lanes as an array.
    fn to_array(v: Self::F) -> [f32; LANES];
    /// `a + b`.
    fn add(a: Self::F, b: Self::F) -> Self::F;
    /// `a - b`.
    fn sub(a: Self::F, b: Self::F) -> Self::F;
    /// `a * b`.
    fn mul(a: Self::F, b: Self::F) -> Self::F;
    /// `a / b`.
    fn div(a: Self::F, b: Self::F) -> Self::F;
    /// `sqrt(a)`.
    fn sqrt(a: Self::F) -> Self::F;
    /// `|a|`.
    fn abs(a: Self::F) -> Self::F;
    /// `-a`.
    fn neg(a: Self::F) -> Self::F;
    /// `yes` where `m`, else `no`.
    fn select(m: Self::M, yes: Self::F, no: Self::F) -> Self::F;
    /// `a < b`.
    fn lt(a: Self::F, b: Self::F) -> Self::M;
    /// `a > b`.
    fn gt(a: Self::F, b: Self::F) -> Self::M;
    /// `a >= b`.
    fn ge(a: Self::F, b: Self::F) -> Self::M;
    /// `a | b`.
    fn or(a: Self::M, b: Self::M) -> Self::M;
    /// `!a`.
    fn not(a: Self::M) -> Self::M;
    /// Whether any lane of `m` is set.
    fn any(m: Self::M) -> bool;
    /// `m & (a < b)`.
    fn lt_where(m: Self::M, a: Self::F, b: Self::F) -> Self::M;
    /// `m & (a >= b)`.
    fn ge_where(m: Self::M, a: Self::F, b: Self::F) -> Self::M;
    /// `a & b`.
    fn and(a: Self::M, b: Self::M) -> Self::M;
    /// `a & !b`.
    fn and_not(a: Self::M, b: Self::M) -> Self::M;
    /// Only lane `l` (none when `l` is not a lane number).
    fn only_lane(l: i32) -> Self::M;
    /// `sum + x` where `m`, `sum` unchanged elsewhere.
    fn add_where(m: Self::M, sum: Self::F, x: Self::F) -> Self::F;
    /// `sum - x` where `m`, `sum` unchanged elsewhere.
    fn sub_where(m: Self::M, sum: Self::F, x: Self::F) -> Self::F;
    /// [`Simd::add_where`] with the same bits, done by the multiply units where the build
    /// has fused multiply-adds: `sum + x * one` with one rounding, where `one` must be 1.0
    /// (so `x * one` is exact). A loop of many sums can then spread over the adders and the
    /// multipliers instead of queueing at the adders. `one` must come from
    /// [`std::hint::black_box`]: a visible 1.0 lets the compiler fold the product away and
    /// turn the fused multiply-add back into an add.
    #[inline(always)]
    fn add_where_by_multiplier(m: Self::M, sum: Self::F, x: Self::F, _one: Self::F) -> Self::F {
        Self::add_where(m, sum, x)
    }
    /// The number of lanes set in `m`: a population count on the scalar units, which a loop
    /// busy with vector operations leaves idle.
    fn count(m: Self::M) -> u32;
    /// The lanes set in `m` as bits, lane 0 lowest.
    fn bits(m: Self::M) -> u32;
}

/// A build of a hot loop: the vector instructions it is compiled for. Every build performs the
/// same IEEE operations, so all give the same bits; the fastest the processor runs is chosen at
/// run time ([`Build::best`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Build {
    /// Plain arrays: any machine.
    Arrays,
    /// AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (F and VL) on 256-bit vectors.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Build {
    /// Every build, slowest first.
    pub const ALL: &[Build] = &[
        Build::Arrays,
        #[cfg(target_arch = "x86_64")]
        Build::Avx2,
        #[cfg(target_arch = "x86_64")]
        Build::Avx512,
    ];

    /// Whether this processor can run the build.
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use std::arch::is_x86_feature_detected as has;
        match self {
            Build::Arrays => true,
            #[cfg(target_arch = "x86_64")]
            Build::Avx2 => has!("avx2") && has!("popcnt"),
            #[cfg(target_arch = "x86_64")]
            Build::Avx512 => has!("avx512f") && has!("avx512vl") && has!("popcnt"),
        }
    }

    /// The fastest build this processor runs.
    pub fn best() -> Build {
        Build::ALL
            .iter()
            .rev()
            .copied()
            .find(|b| b.supported())
            .unwrap_or(Build::Arrays)
    }
}

/// Plain arrays: any machine.
pub struct Arrays;

impl Arrays {
    #[inline(always)]
    fn zip<T, U>(a: [T; LANES], b: [T; LANES], f: impl Fn(T, T) -> U) -> [U; LANES]
    where
        T: Copy,
    {
        std::array::from_fn(|l| f(a[l], b[l]))
    }
}

impl Simd for Arrays {
    type F = [f32; LANES];
    type M = [bool; LANES];

    #[inline(always)]
    fn splat(x: f32) -> Self::F {
        [x; LANES]
    }
    #[inline(always)]
    fn load(a: [f32; LANES]) -> Self::F {
        a
    }
    #[inline(always)]
    fn to_array(v: Self::F) -> [f32; LANES] {
        v
    }
    #[inline(always)]
    fn add(a: Self::F, b: Self::F) -> Self::F {
        Self::zip(a, b, |a, b| a + b)
    }
    #[inline(always)]
    fn sub(a: Self::F, b: Self::F) -> Self::F {
        Self::zip(a, b, |a, b| a - b)
    }
    #[inline(always)]
    fn mul(a: Self::F, b: Self::F) -> Self::F {
        Self::zip(a, b, |a, b| a * b)
    }
    #[inline(always)]
    fn div(a: Self::F, b: Self::F) -> Self::F {
        Self::zip(a, b, |a, b| a / b)
    }
    #[inline(always)]
    fn sqrt(a: Self::F) -> Self::F {
        a.map(f32::sqrt)
    }
    #[inline(always)]
    fn abs(a: Self::F) -> Self::F {
        a.map(f32::abs)
    }
    #[inline(always)]
    fn neg(a: Self::F) -> Self::F {
        a.map(|a| -a)
    }
    #[inline(always)]
    fn select(m: Self::M, yes: Self::F, no: Self::F) -> Self::F {
        std::array::from_fn(|l| if m[l] { yes[l] } else { no[l] })
    }
    #[inline(always)]
    fn lt(a: Self::F, b: Self::F) -> Self::M {
        Self::zip(a, b, |a, b| a < b)
    }
    #[inline(always)]
    fn gt(a: Self::F, b: Self::F) -> Self::M {
        Self::zip(a, b, |a, b| a > b)
    }
    #[inline(always)]
    fn ge(a: Self::F, b: Self::F) -> Self::M {
        Self::zip(a, b, |a, b| a >= b)
    }
    #[inline(always)]
    fn or(a: Self::M, b: Self::M) -> Self::M {
        Self::zip(a, b, |a, b| a | b)
    }
    #[inline(always)]
    fn not(a: Self::M) -> Self::M {
        a.map(|a| !a)
    }
    #[inline(always)]
    fn any(m: Self::M) -> bool {
        m.contains(&true)
    }
    #[inline(always)]
    fn lt_where(m: Self::M, a: Self::F, b: Self::F) -> Self::M {
        Self::and(m, Self::lt(a, b))
    }
    #[inline(always)]
    fn ge_where(m: Self::M, a: Self::F, b: Self::F) -> Self::M {
        Self::and(m, Self::zip(a, b, |a, b| a >= b))
    }
    #[inline(always)]
    fn and(a: Self::M, b: Self::M) -> Self::M {
        Self::zip(a, b, |a, b| a & b)
    }
    #[inline(always)]
    fn and_not(a: Self::M, b: Self::M) -> Self::M {
        Self::zip(a, b, |a, b| a & !b)
    }
    #[inline(always)]
    fn only_lane(l: i32) -> Self::M {
        std::array::from_fn(|k| k as i32 == l)
    }
    #[inline(always)]
    fn add_where(m: Self::M, sum: Self::F, x: Self::F) -> Self::F {
        std::array::from_fn(|l| if m[l] { sum[l] + x[l] } else { sum[l] })
    }
    #[inline(always)]
    fn sub_where(m: Self::M, sum: Self::F, x: Self::F) -> Self::F {
        std::array::from_fn(|l| if m[l] { sum[l] - x[l] } else { sum[l] })
    }
    #[inline(always)]
    fn count(m: Self::M) -> u32 {
        m.iter().map(|&b| u32::from(b)).sum()
    }
    #[inline(always)]
    fn bits(m: Self::M) -> u32 {
        m.iter().rev().fold(0, |bits, &b| bits << 1 | u32::from(b))
    }
}

/// Eight lanes of `S` as a [`Real`]: what the rules run on in the hot loop.
pub struct Pack<S: Simd>(pub S::F);

/// Eight lane tests of `S`.
pub struct PackMask<S: Simd>(pub S::M);

impl<S: Simd> Clone for Pack<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Simd> Copy for Pack<S> {}
impl<S: Simd> Clone for PackMask<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Simd> Copy for PackMask<S> {}

macro_rules! binary {
    ($trait:ident, $method:ident, $op:ident, $ty:ident) => {
        impl<S: Simd> std::ops::$trait for $ty<S> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                $ty(S::$op(self.0, other.0))
            }
        }
    };
}
binary!(Add, add, add, Pack);
binary!(Sub, sub, sub, Pack);
binary!(Mul, mul, mul, Pack);
binary!(Div, div, div, Pack);
binary!(BitAnd, bitand, and, PackMask);
binary!(BitOr, bitor, or, PackMask);

impl<S: Simd> std::ops::Neg for Pack<S> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Pack(S::neg(self.0))
    }
}

impl<S: Simd> std::ops::Not for PackMask<S> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        PackMask(S::not(self.0))
    }
}

impl<S: Simd> Real for Pack<S> {
    type Mask = PackMask<S>;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        Pack(S::splat(x))
    }
    #[inline(always)]
    fn lt(self, other: Self) -> Self::Mask {
        PackMask(S::lt(self.0, other.0))
    }
    #[inline(always)]
    fn gt(self, other: Self) -> Self::Mask {
        PackMask(S::gt(self.0, other.0))
    }
    #[inline(always)]
    fn ge(self, other: Self) -> Self::Mask {
        PackMask(S::ge(self.0, other.0))
    }
    #[inline(always)]
    fn select(mask: Self::Mask, yes: Self, no: Self) -> Self {
        Pack(S::select(mask.0, yes.0, no.0))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Pack(S::sqrt(self.0))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Pack(S::abs(self.0))
    }
    #[inline(always)]
    fn any(mask: Self::Mask) -> bool {
        S::any(mask.0)
    }
    #[inline(always)]
    fn map_lanes(self, f: impl Fn(f32) -> f32) -> Self {
        Pack(S::load(S::to_array(self.0).map(f)))
    }
}

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The intrinsics are `unsafe` only because they need their target features; see the
    //! module notes for why every use has them.
    use std::arch::x86_64::*;

    use super::{LANES, Simd};

    /// AVX2 (and FMA-free AVX): masks are lanes of all ones or all zeros.
    pub struct Avx2;

    /// AVX-512 on 256-bit vectors (AVX-512F and VL): masks are mask registers, and the
    /// selects are masked adds.
    pub struct Avx512;

    /// The lane numbers 0..8.
    #[inline(always)]
    fn lane_numbers() -> __m256i {
        // SAFETY: AVX is part of every target this is compiled for (see the module notes).
        unsafe { _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) }
    }

    macro_rules! common {
        () => {
            #[inline(always)]
            fn splat(x: f32) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_set1_ps(x) }
            }
            #[inline(always)]
            fn load(a: [f32; LANES]) -> __m256 {
                // SAFETY: see the module notes; `a` holds eight floats.
                unsafe { _mm256_loadu_ps(a.as_ptr()) }
            }
            #[inline(always)]
            fn to_array(v: __m256) -> [f32; LANES] {
                let mut out = [0.0; LANES];
                // SAFETY: see the module notes; `out` holds eight floats.
                unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) };
                out
            }
            #[inline(always)]
            fn add(a: __m256, b: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_add_ps(a, b) }
            }
            #[inline(always)]
            fn sub(a: __m256, b: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_sub_ps(a, b) }
            }
            #[inline(always)]
            fn mul(a: __m256, b: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_mul_ps(a, b) }
            }
            #[inline(always)]
            fn div(a: __m256, b: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_div_ps(a, b) }
            }
            #[inline(always)]
            fn sqrt(a: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_sqrt_ps(a) }
            }
            #[inline(always)]
            fn abs(a: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), a) }
            }
            #[inline(always)]
            fn neg(a: __m256) -> __m256 {
                // SAFETY: see the module notes.
                unsafe { _mm256_xor_ps(_mm256_set1_ps(-0.0), a) }
            }
            #[inline(always)]
            fn lt(a: __m256, b: __m256) -> Self::M {
                Self::compare::<_CMP_LT_OQ>(a, b)
            }
            #[inline(always)]
            fn gt(a: __m256, b: __m256) -> Self::M {
                Self::compare::<_CMP_GT_OQ>(a, b)
            }
            #[inline(always)]
            fn ge(a: __m256, b: __m256) -> Self::M {
                Self::compare::<_CMP_GE_OQ>(a, b)
            }
        };
    }

    impl Avx2 {
        #[inline(always)]
        fn compare<const PREDICATE: i32>(a: __m256, b: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_cmp_ps::<PREDICATE>(a, b) }
        }
    }

    impl Avx512 {
        #[inline(always)]
        fn compare<const PREDICATE: i32>(a: __m256, b: __m256) -> __mmask8 {
            // SAFETY: see the module notes.
            unsafe { _mm256_cmp_ps_mask::<PREDICATE>(a, b) }
        }
    }

    impl Simd for Avx2 {
        type F = __m256;
        type M = __m256;

        common!();

        #[inline(always)]
        fn select(m: __m256, yes: __m256, no: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_blendv_ps(no, yes, m) }
        }
        #[inline(always)]
        fn or(a: __m256, b: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_or_ps(a, b) }
        }
        #[inline(always)]
        fn not(a: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) }
        }
        #[inline(always)]
        fn any(m: __m256) -> bool {
            // SAFETY: see the module notes.
            unsafe { _mm256_movemask_ps(m) != 0 }
        }
        #[inline(always)]
        fn lt_where(m: __m256, a: __m256, b: __m256) -> __m256 {
            Self::and(m, Self::lt(a, b))
        }
        #[inline(always)]
        fn ge_where(m: __m256, a: __m256, b: __m256) -> __m256 {
            // SAFETY: see the module notes.
            Self::and(m, unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(a, b) })
        }
        #[inline(always)]
        fn and(a: __m256, b: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_and_ps(a, b) }
        }
        #[inline(always)]
        fn and_not(a: __m256, b: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_andnot_ps(b, a) }
        }
        #[inline(always)]
        fn only_lane(l: i32) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_castsi256_ps(_mm256_cmpeq_epi32(lane_numbers(), _mm256_set1_epi32(l))) }
        }
        #[inline(always)]
        fn add_where(m: __m256, sum: __m256, x: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_blendv_ps(sum, _mm256_add_ps(sum, x), m) }
        }
        #[inline(always)]
        fn sub_where(m: __m256, sum: __m256, x: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_blendv_ps(sum, _mm256_sub_ps(sum, x), m) }
        }
        #[inline(always)]
        fn count(m: __m256) -> u32 {
            // SAFETY: see the module notes.
            unsafe { _mm256_movemask_ps(m) }.count_ones()
        }
        #[inline(always)]
        fn bits(m: __m256) -> u32 {
            // SAFETY: see the module notes.
            unsafe { _mm256_movemask_ps(m) as u32 }
        }
    }

    impl Simd for Avx512 {
        type F = __m256;
        type M = __mmask8;

        common!();

        #[inline(always)]
        fn select(m: __mmask8, yes: __m256, no: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_mask_blend_ps(m, no, yes) }
        }
        #[inline(always)]
        fn or(a: __mmask8, b: __mmask8) -> __mmask8 {
            a | b
        }
        #[inline(always)]
        fn not(a: __mmask8) -> __mmask8 {
            !a
        }
        #[inline(always)]
        fn any(m: __mmask8) -> bool {
            m != 0
        }
        #[inline(always)]
        fn lt_where(m: __mmask8, a: __m256, b: __m256) -> __mmask8 {
            // SAFETY: see the module notes.
            unsafe { _mm256_mask_cmp_ps_mask::<_CMP_LT_OQ>(m, a, b) }
        }
        #[inline(always)]
        fn ge_where(m: __mmask8, a: __m256, b: __m256) -> __mmask8 {
            // SAFETY: see the module notes.
            unsafe { _mm256_mask_cmp_ps_mask::<_CMP_GE_OQ>(m, a, b) }
        }
        #[inline(always)]
        fn and(a: __mmask8, b: __mmask8) -> __mmask8 {
            a & b
        }
        #[inline(always)]
        fn and_not(a: __mmask8, b: __mmask8) -> __mmask8 {
            a & !b
        }
        #[inline(always)]
        fn only_lane(l: i32) -> __mmask8 {
            // SAFETY: see the module notes.
            unsafe { _mm256_cmpeq_epi32_mask(lane_numbers(), _mm256_set1_epi32(l)) }
        }
        #[inline(always)]
        fn add_where(m: __mmask8, sum: __m256, x: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_mask_add_ps(sum, m, sum, x) }
        }
        #[inline(always)]
        fn sub_where(m: __mmask8, sum: __m256, x: __m256) -> __m256 {
            // SAFETY: see the module notes.
            unsafe { _mm256_mask_sub_ps(sum, m, sum, x) }
        }
        #[inline(always)]
        fn add_where_by_multiplier(m: __mmask8, sum: __m256, x: __m256, one: __m256) -> __m256 {
            // SAFETY: see the module notes (AVX-512F implies FMA).
            unsafe { _mm256_mask3_fmadd_ps(x, one, sum, m) }
        }
        #[inline(always)]
        fn count(m: __mmask8) -> u32 {
            m.count_ones()
        }
        #[inline(always)]
        fn bits(m: __mmask8) -> u32 {
            u32::from(m)
        }
    }
}
