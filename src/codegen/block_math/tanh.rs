//! `xlac_block_tanh_f32`: tanh(x) over a buffer of f32, in place, 16 lanes at a time with
//! AVX-512 (8 with AVX2, 1 elsewhere).
//!
//! Mirrors bit for bit the f32 branch of `codegen::math::tanh` as emitted on `f32x4` with
//! FMA: Eigen's rational `c·P(c²)/Q(c²)` on `c` = x clamped to ±7.90531 (compare+select, NaN
//! passes), `x` itself where |x| < 0.0004, and `copysign(1, x)` where |x| ≥ 7.90531 (ordered
//! compares: a NaN lane keeps the rational's NaN). Native because Cranelift has no 512-bit
//! vectors (see `mod.rs`). XLA: `xla/codegen/intrinsic/tanh.cc` (Eigen's
//! `generic_fast_tanh_float`).

// The coefficients keep the digits of `codegen::math::tanh_erf` (Eigen).
#![allow(clippy::excessive_precision)]

use super::scalar::{clamp, copysign, poly, to_f32};
use super::{Kernels, PrefetchQueue};
use crate::codegen::math::{EIGEN_TANH_CLAMP, EIGEN_TANH_P, EIGEN_TANH_Q};

/// Where the rational rounds to ±1.
const CLAMP: f32 = EIGEN_TANH_CLAMP as f32;
/// Below this |x|, tanh(x) = x in f32.
const TINY: f32 = 0.0004f64 as f32;
/// Odd numerator, highest degree first (in c²).
const P: [f32; 7] = to_f32(EIGEN_TANH_P);
/// Even denominator, highest degree first (in c²).
const Q: [f32; 4] = to_f32(EIGEN_TANH_Q);

static KERNELS: Kernels = Kernels {
    scalar: tanh_scalar,
    #[cfg(target_arch = "x86_64")]
    avx512: avx512::block,
    #[cfg(target_arch = "x86_64")]
    avx2: avx2::block,
};

/// In place: `data[i] = tanh(data[i])` for `i` in `0..n`, bit-identical to the inline CLIF
/// `tanh` on `f32x4` with FMA.
///
/// # Safety
/// `data` must be valid for reads and writes of `n` consecutive f32 (any alignment); it may be
/// null when `n` is 0. Nothing else may access the buffer during the call. `queue` is null
/// or a valid [`PrefetchQueue`], of which the call prefetches `lines` lines (fewer if it runs
/// dry), spread over its loop.
pub unsafe extern "C" fn xlac_block_tanh_f32(
    data: *mut f32,
    n: u64,
    queue: *mut PrefetchQueue,
    lines: u64,
) {
    // SAFETY: forwarded from the caller.
    unsafe { super::run_block(data, n, queue, lines, &KERNELS) }
}

/// The routine's implementations, for the tests (which run every path the host has).
#[cfg(test)]
pub(crate) fn kernels() -> &'static Kernels {
    &KERNELS
}

/// One lane: the scalar path, same operations as the vector ones.
pub(crate) fn tanh_scalar(x: f32) -> f32 {
    let c = clamp(x, -CLAMP, CLAMP);
    let c2 = c * c;
    let p = c * poly(c2, &P);
    let q = poly(c2, &Q);
    let t = p / q;
    let a = x.abs();
    let t = if a < TINY { x } else { t };
    if a >= CLAMP { copysign(1.0, x) } else { t }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::super::Prefetcher;
    use super::super::x86::{abs16, clamp16, copysign16, drive16, poly16};
    use super::*;

    /// 16 lanes of [`tanh_scalar`].
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    fn tanh16(x: __m512) -> __m512 {
        let c = clamp16(x, -CLAMP, CLAMP);
        let c2 = _mm512_mul_ps(c, c);
        let p = _mm512_mul_ps(c, poly16(c2, &P));
        let q = poly16(c2, &Q);
        let t = _mm512_div_ps(p, q);
        let a = abs16(x);
        let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, _mm512_set1_ps(TINY));
        let t = _mm512_mask_blend_ps(tiny, t, x);
        let big = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a, _mm512_set1_ps(CLAMP));
        let one = copysign16(_mm512_set1_ps(1.0), x);
        _mm512_mask_blend_ps(big, t, one)
    }

    /// # Safety
    /// `data` valid for `n` f32; the host has `avx512f` and `fma`.
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn block(data: *mut f32, n: usize, prefetch: Prefetcher) {
        // SAFETY: forwarded from the caller.
        unsafe { drive16(data, n, prefetch, |v| tanh16(v)) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::Prefetcher;
    use super::super::x86::{abs8, clamp8, copysign8, drive8, poly8};
    use super::*;

    /// 8 lanes of [`tanh_scalar`].
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn tanh8(x: __m256) -> __m256 {
        let c = clamp8(x, -CLAMP, CLAMP);
        let c2 = _mm256_mul_ps(c, c);
        let p = _mm256_mul_ps(c, poly8(c2, &P));
        let q = poly8(c2, &Q);
        let t = _mm256_div_ps(p, q);
        let a = abs8(x);
        let tiny = _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(TINY));
        let t = _mm256_blendv_ps(t, x, tiny);
        let big = _mm256_cmp_ps::<_CMP_GE_OQ>(a, _mm256_set1_ps(CLAMP));
        let one = copysign8(_mm256_set1_ps(1.0), x);
        _mm256_blendv_ps(t, one, big)
    }

    /// # Safety
    /// `data` valid for `n` f32; the host has `avx2` and `fma`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn block(data: *mut f32, n: usize, prefetch: Prefetcher) {
        // SAFETY: forwarded from the caller.
        unsafe { drive8(data, n, prefetch, |v| tanh8(v)) }
    }
}
