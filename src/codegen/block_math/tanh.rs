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

block_kernels! {
    scalar: tanh_scalar;
    /// 16 or 8 lanes of [`tanh_scalar`].
    fn tanh(x: v::F32s) -> v::F32s {
        let c = v::clamp(x, -CLAMP, CLAMP);
        let c2 = v::mul(c, c);
        let p = v::mul(c, v::poly(c2, &P));
        let q = v::poly(c2, &Q);
        let t = v::div(p, q);
        let a = v::abs(x);
        let t = v::select(v::lt(a, v::splat(TINY)), x, t);
        let one = v::copysign(v::splat(1.0), x);
        v::select(v::ge(a, v::splat(CLAMP)), one, t)
    }
}
