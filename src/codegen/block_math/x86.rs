//! The x86-64 halves of the block routines: the `Kind` helpers of `codegen::math` on 16-lane
//! (`__m512`, AVX-512F) and 8-lane (`__m256`, AVX2) vectors, and the loops that run a
//! one-vector kernel over a buffer. Every helper does the same IEEE operations in the same
//! order as its CLIF twin; selects are masked blends driven by the same ordered compares
//! (`_CMP_GT_OQ` = CLIF `fcmp gt`: false on NaN), so NaN lanes take the same branch.
//!
//! All functions carry `#[target_feature]`; callers must have checked the features
//! (`super::host_path`). Kernels and helpers are `#[inline]` so that they fold into the
//! loop of their driver, which carries the same features.

use std::arch::x86_64::*;

use super::Prefetcher;
use super::scalar::MAGIC;

/// Lanes per AVX-512 vector.
const L16: usize = 16;
/// Lanes per AVX2 vector.
const L8: usize = 8;

// ---------------------------------------------------------------------------------------------
// AVX-512: 16 lanes.

/// `Kind::round_magic` on 16 lanes: `(n, bits of x + M)`.
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) fn round_magic16(x: __m512) -> (__m512, __m512i) {
    let m = _mm512_set1_ps(MAGIC);
    let t = _mm512_add_ps(x, m);
    (_mm512_sub_ps(t, m), _mm512_castps_si512(t))
}

/// `Kind::poly` with FMA on 16 lanes.
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) fn poly16(x: __m512, coeffs: &[f32]) -> __m512 {
    let mut acc = _mm512_set1_ps(coeffs[0]);
    for &c in &coeffs[1..] {
        acc = _mm512_fmadd_ps(acc, x, _mm512_set1_ps(c));
    }
    acc
}

/// `exp_log::clamp` on 16 lanes: NaN passes through. The CLIF's compare+select pairs are
/// x86's `min`/`max` with the bound first: `vminps(hi, x)` is `hi < x ? hi : x`, which
/// returns `x` itself (NaN payload and all) unless `x > hi`, exactly as `select(x > hi, hi, x)`;
/// likewise `vmaxps(lo, x)`. Two instructions instead of four.
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) fn clamp16(x: __m512, lo: f32, hi: f32) -> __m512 {
    let x = _mm512_min_ps(_mm512_set1_ps(hi), x);
    _mm512_max_ps(_mm512_set1_ps(lo), x)
}

/// `math::copysign` on 16 lanes: one `vpternlogd` picking the sign bit from `sign` and the
/// rest from `mag`.
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) fn copysign16(mag: __m512, sign: __m512) -> __m512 {
    // Truth table 0xCA over (mask, sign, mag): mask ? sign : mag, bit by bit.
    let m = _mm512_ternarylogic_epi32::<0xCA>(
        _mm512_set1_epi32(0x8000_0000_u32 as i32),
        _mm512_castps_si512(sign),
        _mm512_castps_si512(mag),
    );
    _mm512_castsi512_ps(m)
}

/// `fabs` on 16 lanes (clears the sign bit, as CLIF's `fabs` does).
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) fn abs16(x: __m512) -> __m512 {
    let m = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fff_ffff));
    _mm512_castsi512_ps(m)
}

/// Runs `kernel` over `data[0..n]` in place: two vectors per iteration (two independent
/// dependency chains), then 16-lane steps whose last one is masked, so there is no scalar
/// tail. Masked-off lanes are neither read nor written (no fault past the end). Each step
/// first issues its share of `prefetch`.
///
/// # Safety
/// `data` valid for reads and writes of `n` f32; the host has `avx512f` and `fma`.
#[target_feature(enable = "avx512f,fma")]
#[inline]
pub(crate) unsafe fn drive16(
    data: *mut f32,
    n: usize,
    mut prefetch: Prefetcher,
    kernel: impl Fn(__m512) -> __m512,
) {
    let mut i = 0;
    // SAFETY (all pointer arithmetic below): i + 2·16 ≤ n, resp. the mask covers only
    // lanes i..n, within the caller's buffer.
    while i + 2 * L16 <= n {
        prefetch.step();
        unsafe {
            let p = data.add(i);
            let a = _mm512_loadu_ps(p);
            let b = _mm512_loadu_ps(p.add(L16));
            let a = kernel(a);
            let b = kernel(b);
            _mm512_storeu_ps(p, a);
            _mm512_storeu_ps(p.add(L16), b);
        }
        i += 2 * L16;
    }
    while i < n {
        prefetch.step();
        let rest = n - i;
        let mask: __mmask16 = if rest >= L16 {
            0xffff
        } else {
            (1u16 << rest) - 1
        };
        unsafe {
            let p = data.add(i);
            let v = _mm512_maskz_loadu_ps(mask, p);
            _mm512_mask_storeu_ps(p, mask, kernel(v));
        }
        i += L16;
    }
}

// ---------------------------------------------------------------------------------------------
// AVX2: 8 lanes.

/// `Kind::round_magic` on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn round_magic8(x: __m256) -> (__m256, __m256i) {
    let m = _mm256_set1_ps(MAGIC);
    let t = _mm256_add_ps(x, m);
    (_mm256_sub_ps(t, m), _mm256_castps_si256(t))
}

/// `Kind::exp2i` on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn exp2i8(n: __m256) -> __m256 {
    let (_, bits) = round_magic8(n);
    let e = _mm256_slli_epi32::<23>(bits);
    let e = _mm256_add_epi32(e, _mm256_set1_epi32(127 << 23));
    _mm256_castsi256_ps(e)
}

/// `Kind::ldexp` on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ldexp8(x: __m256, n: __m256) -> __m256 {
    let nh = _mm256_mul_ps(n, _mm256_set1_ps(0.5));
    let (n1, _) = round_magic8(nh);
    let n2 = _mm256_sub_ps(n, n1);
    let s1 = exp2i8(n1);
    let s2 = exp2i8(n2);
    _mm256_mul_ps(_mm256_mul_ps(x, s1), s2)
}

/// `Kind::poly` with FMA on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn poly8(x: __m256, coeffs: &[f32]) -> __m256 {
    let mut acc = _mm256_set1_ps(coeffs[0]);
    for &c in &coeffs[1..] {
        acc = _mm256_fmadd_ps(acc, x, _mm256_set1_ps(c));
    }
    acc
}

/// `exp_log::clamp` on 8 lanes: NaN passes through.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn clamp8(x: __m256, lo: f32, hi: f32) -> __m256 {
    let hi = _mm256_set1_ps(hi);
    let over = _mm256_cmp_ps::<_CMP_GT_OQ>(x, hi);
    let x = _mm256_blendv_ps(x, hi, over);
    let lo = _mm256_set1_ps(lo);
    let under = _mm256_cmp_ps::<_CMP_LT_OQ>(x, lo);
    _mm256_blendv_ps(x, lo, under)
}

/// `math::copysign` on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn copysign8(mag: __m256, sign: __m256) -> __m256 {
    let m = _mm256_and_si256(_mm256_castps_si256(mag), _mm256_set1_epi32(0x7fff_ffff));
    let s = _mm256_and_si256(
        _mm256_castps_si256(sign),
        _mm256_set1_epi32(0x8000_0000_u32 as i32),
    );
    _mm256_castsi256_ps(_mm256_or_si256(m, s))
}

/// `fabs` on 8 lanes.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn abs8(x: __m256) -> __m256 {
    let m = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fff_ffff));
    _mm256_castsi256_ps(m)
}

/// Runs `kernel` over `data[0..n]` in place, two vectors per iteration, then 8-lane steps;
/// the last partial vector goes through a stack buffer (AVX2's masked loads are slow and
/// only 32-bit granular anyway; the tail is at most 7 elements).
///
/// # Safety
/// `data` valid for reads and writes of `n` f32; the host has `avx2` and `fma`.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) unsafe fn drive8(
    data: *mut f32,
    n: usize,
    mut prefetch: Prefetcher,
    kernel: impl Fn(__m256) -> __m256,
) {
    let mut i = 0;
    // SAFETY (all pointer arithmetic below): every access lies within data[0..n].
    while i + 2 * L8 <= n {
        prefetch.step();
        unsafe {
            let p = data.add(i);
            let a = _mm256_loadu_ps(p);
            let b = _mm256_loadu_ps(p.add(L8));
            let a = kernel(a);
            let b = kernel(b);
            _mm256_storeu_ps(p, a);
            _mm256_storeu_ps(p.add(L8), b);
        }
        i += 2 * L8;
    }
    while i + L8 <= n {
        prefetch.step();
        unsafe {
            let p = data.add(i);
            _mm256_storeu_ps(p, kernel(_mm256_loadu_ps(p)));
        }
        i += L8;
    }
    if i < n {
        prefetch.step();
        let rest = n - i;
        let mut buf = [0f32; L8];
        unsafe {
            std::ptr::copy_nonoverlapping(data.add(i), buf.as_mut_ptr(), rest);
            let v = kernel(_mm256_loadu_ps(buf.as_ptr()));
            _mm256_storeu_ps(buf.as_mut_ptr(), v);
            std::ptr::copy_nonoverlapping(buf.as_ptr(), data.add(i), rest);
        }
    }
}
