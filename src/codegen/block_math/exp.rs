//! `xlac_block_exp_f32`: e^x over a buffer of f32, in place, 16 lanes at a time with
//! AVX-512 (8 with AVX2, 1 elsewhere).
//!
//! Mirrors bit for bit the f32 branch of `codegen::math::exp` (and `exp_clamped` with a zero
//! `extra`) as emitted on `f32x4` with FMA: clamp x to [−104, 89] (compare+select, NaN passes),
//! `n = round(x·log2 e)` by the magic add, Cody–Waite `r = fma(n, −ln2_lo', fma(n, −ln2_hi, x))`
//! (Cephes's two-part ln2), `r + 0` (the zero `extra`: turns −0 into +0, as the CLIF does),
//! `e^r = fma(P(r), r², r + 1)` with Cephes's degree-5 polynomial, then `ldexp(e^r, n)` in
//! two halves through the exponent bits (AVX-512: one `vscalefps`, the same bits). Native
//! because Cranelift has no 512-bit vectors
//! (see `mod.rs`). XLA: `xla/codegen/intrinsic/exp.cc` and
//! `xla/backends/cpu/codegen/polynomial_approximations.cc` (Cephes expf).

// The coefficients keep the digits of `codegen::math::exp_log` (Cephes).
#![allow(clippy::excessive_precision)]

use super::scalar::{clamp, ldexp, poly, round_magic, to_f32};
use super::{Kernels, PrefetchQueue};
use crate::codegen::math::{CEPHES_EXP_P, CEPHES_LN2_HI, CEPHES_LN2_LO};

/// Below this the result is 0, above it +inf; the clamp keeps `n` in range for `ldexp`.
const LO: f32 = -104.0;
const HI: f32 = 89.0;
const LOG2_E: f32 = std::f64::consts::LOG2_E as f32;
/// The two `fma` multipliers of the reduction (Cephes's split of ln2, the inline code's),
/// negated before rounding as the CLIF does.
const NEG_LN2_HI: f32 = -CEPHES_LN2_HI as f32;
const NEG_LN2_LO: f32 = -CEPHES_LN2_LO as f32;
/// Cephes expf: e^r − 1 − r ≈ r²·P(r), highest degree first.
const P: [f32; 6] = to_f32(CEPHES_EXP_P);

static KERNELS: Kernels = Kernels {
    scalar: exp_scalar,
    #[cfg(target_arch = "x86_64")]
    avx512: avx512::block,
    #[cfg(target_arch = "x86_64")]
    avx2: avx2::block,
};

/// In place: `data[i] = exp(data[i])` for `i` in `0..n`, bit-identical to the inline CLIF
/// `exp` on `f32x4` with FMA.
///
/// # Safety
/// `data` must be valid for reads and writes of `n` consecutive f32 (any alignment); it may be
/// null when `n` is 0. Nothing else may access the buffer during the call. `queue` is null
/// or a valid [`PrefetchQueue`], of which the call prefetches `lines` lines (fewer if it runs
/// dry), spread over its loop.
pub unsafe extern "C" fn xlac_block_exp_f32(
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
pub(crate) fn exp_scalar(x: f32) -> f32 {
    let x = clamp(x, LO, HI);
    let t = x * LOG2_E;
    let (n, _) = round_magic(t);
    let r = n.mul_add(NEG_LN2_HI, x);
    let r = n.mul_add(NEG_LN2_LO, r);
    let r = r + 0.0;
    let rr = r * r;
    let p = poly(r, &P);
    let r1 = r + 1.0;
    let y = p.mul_add(rr, r1);
    ldexp(y, n)
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::super::Prefetcher;
    use super::super::x86::{clamp16, drive16, poly16, round_magic16};
    use super::*;

    /// 16 lanes of [`exp_scalar`].
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    fn exp16(x: __m512) -> __m512 {
        let x = clamp16(x, LO, HI);
        let t = _mm512_mul_ps(x, _mm512_set1_ps(LOG2_E));
        let (n, _) = round_magic16(t);
        let r = _mm512_fmadd_ps(n, _mm512_set1_ps(NEG_LN2_HI), x);
        let r = _mm512_fmadd_ps(n, _mm512_set1_ps(NEG_LN2_LO), r);
        let r = _mm512_add_ps(r, _mm512_setzero_ps());
        let rr = _mm512_mul_ps(r, r);
        let p = poly16(r, &P);
        let r1 = _mm512_add_ps(r, _mm512_set1_ps(1.0));
        let y = _mm512_fmadd_ps(p, rr, r1);
        // `ldexp(y, n)` in one instruction: `vscalefps` rounds y·2^n once, as the two-half
        // product does (its first half is exact: y is near 1 and |n| ≤ 150), so the bits
        // agree, at 1 uop instead of 11: `tests.rs` checks it, subnormal results with FTZ
        // off included, and a one-off run compared it with the AVX2 path on all 2^32 inputs.
        _mm512_scalef_ps(y, n)
    }

    /// # Safety
    /// `data` valid for `n` f32; the host has `avx512f` and `fma`.
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn block(data: *mut f32, n: usize, prefetch: Prefetcher) {
        // SAFETY: forwarded from the caller.
        unsafe { drive16(data, n, prefetch, |v| exp16(v)) }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::Prefetcher;
    use super::super::x86::{clamp8, drive8, ldexp8, poly8, round_magic8};
    use super::*;

    /// 8 lanes of [`exp_scalar`].
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn exp8(x: __m256) -> __m256 {
        let x = clamp8(x, LO, HI);
        let t = _mm256_mul_ps(x, _mm256_set1_ps(LOG2_E));
        let (n, _) = round_magic8(t);
        let r = _mm256_fmadd_ps(n, _mm256_set1_ps(NEG_LN2_HI), x);
        let r = _mm256_fmadd_ps(n, _mm256_set1_ps(NEG_LN2_LO), r);
        let r = _mm256_add_ps(r, _mm256_setzero_ps());
        let rr = _mm256_mul_ps(r, r);
        let p = poly8(r, &P);
        let r1 = _mm256_add_ps(r, _mm256_set1_ps(1.0));
        let y = _mm256_fmadd_ps(p, rr, r1);
        ldexp8(y, n)
    }

    /// # Safety
    /// `data` valid for `n` f32; the host has `avx2` and `fma`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn block(data: *mut f32, n: usize, prefetch: Prefetcher) {
        // SAFETY: forwarded from the caller.
        unsafe { drive8(data, n, prefetch, |v| exp8(v)) }
    }
}
