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

block_kernels! {
    scalar: exp_scalar;
    /// 16 or 8 lanes of [`exp_scalar`].
    fn exp(x: v::F32s) -> v::F32s {
        let x = v::clamp(x, LO, HI);
        let t = v::mul(x, v::splat(LOG2_E));
        let (n, _) = v::round_magic(t);
        let r = v::fmadd(n, v::splat(NEG_LN2_HI), x);
        let r = v::fmadd(n, v::splat(NEG_LN2_LO), r);
        let r = v::add(r, v::splat(0.0));
        let rr = v::mul(r, r);
        let p = v::poly(r, &P);
        let r1 = v::add(r, v::splat(1.0));
        let y = v::fmadd(p, rr, r1);
        v::ldexp(y, n)
    }
}
