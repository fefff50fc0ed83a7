//! One-lane versions of the `Kind` helpers of `codegen::math` (`round_magic`, `exp2i`,
//! `ldexp`, `poly`, `clamp`, `copysign`), for the portable scalar path of the block
//! routines. Each does the same IEEE operations in the same order as its CLIF twin, with
//! `f32::mul_add` where the CLIF (with FMA) emits `fma`, so one lane here equals one lane of
//! the `f32x4` code. Rust never reassociates float arithmetic, so `(x + M) − M` stays two
//! roundings.

/// 1.5·2^23: adding it rounds an f32 of magnitude < 2^22 to an integer (ties to even).
pub(crate) const MAGIC: f32 = 12_582_912.0;

/// `Kind::round_magic`: `(n, bits)` with `n = (x + M) − M` and `bits` the integer bits of
/// `x + M`, whose low bits hold `n` in two's complement.
#[inline(always)]
pub(crate) fn round_magic(x: f32) -> (f32, u32) {
    let t = x + MAGIC;
    (t - MAGIC, t.to_bits())
}

/// `Kind::exp2i`: 2^n for an integer-valued `n` in −126..=127, built in the exponent bits.
#[inline(always)]
pub(crate) fn exp2i(n: f32) -> f32 {
    let (_, bits) = round_magic(n);
    f32::from_bits((bits << 23).wrapping_add(127 << 23))
}

/// `Kind::ldexp`: `x · 2^n`, the factor applied in two halves.
#[inline(always)]
pub(crate) fn ldexp(x: f32, n: f32) -> f32 {
    let nh = n * 0.5;
    let (n1, _) = round_magic(nh);
    let n2 = n - n1;
    let s1 = exp2i(n1);
    let s2 = exp2i(n2);
    x * s1 * s2
}

/// `Kind::poly` with FMA: Horner, highest degree first.
#[inline(always)]
pub(crate) fn poly(x: f32, coeffs: &[f32]) -> f32 {
    let mut acc = coeffs[0];
    for &c in &coeffs[1..] {
        acc = acc.mul_add(x, c);
    }
    acc
}

/// `exp_log::clamp`: two ordered compares and selects, so NaN passes through unchanged.
#[inline(always)]
pub(crate) fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x > hi { hi } else { x };
    if x < lo { lo } else { x }
}

/// `math::copysign`: the magnitude bits of `mag` with the sign bit of `sign`.
#[inline(always)]
pub(crate) fn copysign(mag: f32, sign: f32) -> f32 {
    f32::from_bits((mag.to_bits() & 0x7fff_ffff) | (sign.to_bits() & 0x8000_0000))
}

/// Rounds an array of f64 coefficients to f32 the way `Kind::f` does (`v as f32`), so the
/// constants keep the digits their sources (and `codegen::math`) publish.
pub(crate) const fn to_f32<const N: usize>(a: [f64; N]) -> [f32; N] {
    let mut r = [0f32; N];
    let mut i = 0;
    while i < N {
        r[i] = a[i] as f32;
        i += 1;
    }
    r
}
