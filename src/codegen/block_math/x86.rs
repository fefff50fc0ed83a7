//! The x86-64 halves of the block routines: the `Kind` helpers of `codegen::math` on 16-lane
//! vectors (`v16`: `__m512`, AVX-512F) and 8-lane vectors (`v8`: `__m256`, AVX2), and the
//! loops that run a one-vector kernel over a buffer. Every helper does the same IEEE
//! operations in the same order as its CLIF twin; selects are masked blends driven by the
//! same ordered compares (`_CMP_GT_OQ` = CLIF `fcmp gt`: false on NaN), so NaN lanes take
//! the same branch.
//!
//! `v16` and `v8` offer the same functions over their vector type `F32s`, so a kernel is
//! written once against either (`block_kernels!` in `mod.rs`). The one-intrinsic
//! primitives (`splat`, `add`, `fmadd`, `load`, ...) are one table with a column per ISA
//! (`lane_primitives!`); each module writes the helpers whose best instructions differ by
//! ISA (`clamp`, `copysign`, `ldexp`, `select`, the loop tail), and `lane_helpers!` writes
//! the rest once for both, on top of the primitives.
//!
//! All functions carry `#[target_feature]`; callers must have checked the features
//! (`super::host_path`). Kernels and helpers are `#[inline]` so that they fold into the
//! loop of their driver, which carries the same features.

/// The helpers that read the same at every width, over the primitives of the module that
/// expands it (`$features`: its target features).
macro_rules! lane_helpers {
    ($features:tt) => {
        use super::super::Prefetcher;
        use super::super::scalar::MAGIC;

        /// `Kind::round_magic`: `(n, bits of x + M)`.
        #[target_feature(enable = $features)]
        #[inline]
        pub(crate) fn round_magic(x: F32s) -> (F32s, I32s) {
            let m = splat(MAGIC);
            let t = add(x, m);
            (sub(t, m), to_bits(t))
        }

        /// `Kind::poly` with FMA: Horner, highest degree first.
        #[target_feature(enable = $features)]
        #[inline]
        pub(crate) fn poly(x: F32s, coeffs: &[f32]) -> F32s {
            let mut acc = splat(coeffs[0]);
            for &c in &coeffs[1..] {
                acc = fmadd(acc, x, splat(c));
            }
            acc
        }

        /// `fabs` (clears the sign bit, as CLIF's `fabs` does).
        #[target_feature(enable = $features)]
        #[inline]
        pub(crate) fn abs(x: F32s) -> F32s {
            from_bits(and_bits(to_bits(x), splat_bits(0x7fff_ffff)))
        }

        /// Runs `kernel` over `data[0..n]` in place: two vectors per iteration (two
        /// independent dependency chains), then the module's `tail`. Each step first issues
        /// its share of `prefetch`.
        ///
        /// # Safety
        /// `data` valid for reads and writes of `n` f32; the host has the module's features.
        #[target_feature(enable = $features)]
        #[inline]
        pub(crate) unsafe fn drive(
            data: *mut f32,
            n: usize,
            mut prefetch: Prefetcher,
            kernel: impl Fn(F32s) -> F32s,
        ) {
            let mut i = 0;
            // SAFETY (all pointer arithmetic below): i + 2·LANES ≤ n.
            while i + 2 * LANES <= n {
                prefetch.step();
                unsafe {
                    let p = data.add(i);
                    let a = load(p);
                    let b = load(p.add(LANES));
                    let a = kernel(a);
                    let b = kernel(b);
                    store(p, a);
                    store(p.add(LANES), b);
                }
                i += 2 * LANES;
            }
            // SAFETY: forwarded from the caller; i ≤ n.
            unsafe { tail(data, i, n, &mut prefetch, &kernel) }
        }
    };
}

/// Defines `primitives16` and `primitives8`: one function per row, each one intrinsic,
/// the AVX-512 one in the first column and the AVX2 one in the second (same arguments, in
/// the same order). `unsafe` rows read or write memory through a pointer.
macro_rules! lane_primitives {
    (
        $( type $type:ident = $t16:ty, $t8:ty; )*
        $( const $const:ident: $const_ty:ty = $c16:expr, $c8:expr; )*
        $(
            $(#[$doc:meta])*
            $([$unsafe:ident])? fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?
                = $i16:path, $i8:path;
        )*
    ) => {
        mod primitives16 {
            use std::arch::x86_64::*;

            $( pub(crate) type $type = $t16; )*
            $( pub(crate) const $const: $const_ty = $c16; )*
            $(
                $(#[$doc])*
                #[target_feature(enable = "avx512f,fma")]
                #[inline]
                #[allow(unused_unsafe)]
                pub(crate) $($unsafe)? fn $name($($arg: $ty),*) $(-> $ret)? {
                    // SAFETY: an unsafe row's caller keeps the intrinsic's contract.
                    unsafe { $i16($($arg),*) }
                }
            )*
        }

        mod primitives8 {
            use std::arch::x86_64::*;

            $( pub(crate) type $type = $t8; )*
            $( pub(crate) const $const: $const_ty = $c8; )*
            $(
                $(#[$doc])*
                #[target_feature(enable = "avx2,fma")]
                #[inline]
                #[allow(unused_unsafe)]
                pub(crate) $($unsafe)? fn $name($($arg: $ty),*) $(-> $ret)? {
                    // SAFETY: an unsafe row's caller keeps the intrinsic's contract.
                    unsafe { $i8($($arg),*) }
                }
            )*
        }
    };
}

lane_primitives! {
    // The vector of f32 lanes; its bits, as 32-bit integer lanes; the result of a compare
    // (one bit per lane with AVX-512, all-ones or all-zeros lanes with AVX2).
    type F32s = __m512, __m256;
    type I32s = __m512i, __m256i;
    type Mask = __mmask16, __m256;
    // Lanes per vector.
    const LANES: usize = 16, 8;

    // row                                        AVX-512 (16 lanes)       AVX2 (8 lanes)
    /// Every lane `x`.
    fn splat(x: f32) -> F32s                      = _mm512_set1_ps,        _mm256_set1_ps;
    /// Every lane the bits `x`.
    fn splat_bits(x: i32) -> I32s                 = _mm512_set1_epi32,     _mm256_set1_epi32;
    /// `a + b`.
    fn add(a: F32s, b: F32s) -> F32s              = _mm512_add_ps,         _mm256_add_ps;
    /// `a − b`.
    fn sub(a: F32s, b: F32s) -> F32s              = _mm512_sub_ps,         _mm256_sub_ps;
    /// `a · b`.
    fn mul(a: F32s, b: F32s) -> F32s              = _mm512_mul_ps,         _mm256_mul_ps;
    /// `a / b`.
    fn div(a: F32s, b: F32s) -> F32s              = _mm512_div_ps,         _mm256_div_ps;
    /// `fma(a, b, c)`: `a · b + c`, rounded once.
    fn fmadd(a: F32s, b: F32s, c: F32s) -> F32s   = _mm512_fmadd_ps,       _mm256_fmadd_ps;
    /// The lanes' bits.
    fn to_bits(x: F32s) -> I32s                   = _mm512_castps_si512,   _mm256_castps_si256;
    /// The lanes of the bits `x`.
    fn from_bits(x: I32s) -> F32s                 = _mm512_castsi512_ps,   _mm256_castsi256_ps;
    /// `a & b`, bit by bit.
    fn and_bits(a: I32s, b: I32s) -> I32s         = _mm512_and_si512,      _mm256_and_si256;
    /// `a < b`, ordered (false on NaN).
    fn lt(a: F32s, b: F32s) -> Mask
        = _mm512_cmp_ps_mask::<_CMP_LT_OQ>, _mm256_cmp_ps::<_CMP_LT_OQ>;
    /// `a ≥ b`, ordered (false on NaN).
    fn ge(a: F32s, b: F32s) -> Mask
        = _mm512_cmp_ps_mask::<_CMP_GE_OQ>, _mm256_cmp_ps::<_CMP_GE_OQ>;
    /// The vector at `p` (any alignment); `p` valid for reading one vector.
    [unsafe] fn load(p: *const f32) -> F32s       = _mm512_loadu_ps,       _mm256_loadu_ps;
    /// Writes `v` at `p` (any alignment); `p` valid for writing one vector.
    [unsafe] fn store(p: *mut f32, v: F32s)       = _mm512_storeu_ps,      _mm256_storeu_ps;
}

/// AVX-512: 16 lanes.
pub(crate) mod v16 {
    use std::arch::x86_64::*;

    pub(crate) use super::primitives16::*;

    lane_helpers!("avx512f,fma");

    /// `exp_log::clamp`: NaN passes through. The CLIF's compare+select pairs are x86's
    /// `min`/`max` with the bound first: `vminps(hi, x)` is `hi < x ? hi : x`, which returns
    /// `x` itself (NaN payload and all) unless `x > hi`, exactly as `select(x > hi, hi, x)`;
    /// likewise `vmaxps(lo, x)`. Two instructions instead of four.
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    pub(crate) fn clamp(x: F32s, lo: f32, hi: f32) -> F32s {
        let x = _mm512_min_ps(_mm512_set1_ps(hi), x);
        _mm512_max_ps(_mm512_set1_ps(lo), x)
    }

    /// Lanes where `mask` is set take `then`, the others `otherwise`.
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    pub(crate) fn select(mask: Mask, then: F32s, otherwise: F32s) -> F32s {
        _mm512_mask_blend_ps(mask, otherwise, then)
    }

    /// `math::copysign`: one `vpternlogd` picking the sign bit from `sign` and the rest
    /// from `mag`.
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    pub(crate) fn copysign(mag: F32s, sign: F32s) -> F32s {
        // Truth table 0xCA over (mask, sign, mag): mask ? sign : mag, bit by bit.
        let m = _mm512_ternarylogic_epi32::<0xCA>(
            _mm512_set1_epi32(0x8000_0000_u32 as i32),
            _mm512_castps_si512(sign),
            _mm512_castps_si512(mag),
        );
        _mm512_castsi512_ps(m)
    }

    /// `Kind::ldexp`, `x · 2^n` for an integer-valued `n`, in one instruction: `vscalefps`
    /// rounds `x·2^n` once, as the two-half product does (its first half is exact for the
    /// kernels' `x` near 1 and |n| ≤ 150), so the bits agree, at 1 uop instead of 11:
    /// `tests.rs` checks it, subnormal results with FTZ off included, and a one-off run
    /// compared it with the AVX2 path on all 2^32 inputs of `exp`.
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    pub(crate) fn ldexp(x: F32s, n: F32s) -> F32s {
        _mm512_scalef_ps(x, n)
    }

    /// The rest of [`drive`]'s buffer from `i`: 16-lane steps whose last one is masked, so
    /// there is no scalar tail. Masked-off lanes are neither read nor written (no fault
    /// past the end).
    ///
    /// # Safety
    /// As [`drive`], and `i ≤ n`.
    #[target_feature(enable = "avx512f,fma")]
    #[inline]
    unsafe fn tail(
        data: *mut f32,
        mut i: usize,
        n: usize,
        prefetch: &mut Prefetcher,
        kernel: &impl Fn(F32s) -> F32s,
    ) {
        while i < n {
            prefetch.step();
            let rest = n - i;
            let mask: __mmask16 = if rest >= LANES {
                0xffff
            } else {
                (1u16 << rest) - 1
            };
            // SAFETY: the mask covers only lanes i..n, within the caller's buffer.
            unsafe {
                let p = data.add(i);
                let v = _mm512_maskz_loadu_ps(mask, p);
                _mm512_mask_storeu_ps(p, mask, kernel(v));
            }
            i += LANES;
        }
    }
}

/// AVX2: 8 lanes.
pub(crate) mod v8 {
    use std::arch::x86_64::*;

    pub(crate) use super::primitives8::*;

    lane_helpers!("avx2,fma");

    /// `exp_log::clamp`: NaN passes through.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) fn clamp(x: F32s, lo: f32, hi: f32) -> F32s {
        let hi = _mm256_set1_ps(hi);
        let over = _mm256_cmp_ps::<_CMP_GT_OQ>(x, hi);
        let x = _mm256_blendv_ps(x, hi, over);
        let lo = _mm256_set1_ps(lo);
        let under = _mm256_cmp_ps::<_CMP_LT_OQ>(x, lo);
        _mm256_blendv_ps(x, lo, under)
    }

    /// Lanes where `mask` is set take `then`, the others `otherwise`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) fn select(mask: Mask, then: F32s, otherwise: F32s) -> F32s {
        _mm256_blendv_ps(otherwise, then, mask)
    }

    /// `math::copysign`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) fn copysign(mag: F32s, sign: F32s) -> F32s {
        let m = _mm256_and_si256(_mm256_castps_si256(mag), _mm256_set1_epi32(0x7fff_ffff));
        let s = _mm256_and_si256(
            _mm256_castps_si256(sign),
            _mm256_set1_epi32(0x8000_0000_u32 as i32),
        );
        _mm256_castsi256_ps(_mm256_or_si256(m, s))
    }

    /// `Kind::exp2i`: 2^n for an integer-valued `n`, built in the exponent bits.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn exp2i(n: F32s) -> F32s {
        let (_, bits) = round_magic(n);
        let e = _mm256_slli_epi32::<23>(bits);
        let e = _mm256_add_epi32(e, _mm256_set1_epi32(127 << 23));
        _mm256_castsi256_ps(e)
    }

    /// `Kind::ldexp`: `x · 2^n`, the factor applied in two halves.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    pub(crate) fn ldexp(x: F32s, n: F32s) -> F32s {
        let nh = _mm256_mul_ps(n, _mm256_set1_ps(0.5));
        let (n1, _) = round_magic(nh);
        let n2 = _mm256_sub_ps(n, n1);
        let s1 = exp2i(n1);
        let s2 = exp2i(n2);
        _mm256_mul_ps(_mm256_mul_ps(x, s1), s2)
    }

    /// The rest of [`drive`]'s buffer from `i`: 8-lane steps; the last partial vector goes
    /// through a stack buffer (AVX2's masked loads are slow and only 32-bit granular
    /// anyway; the tail is at most 7 elements).
    ///
    /// # Safety
    /// As [`drive`], and `i ≤ n`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tail(
        data: *mut f32,
        mut i: usize,
        n: usize,
        prefetch: &mut Prefetcher,
        kernel: &impl Fn(F32s) -> F32s,
    ) {
        // SAFETY (all pointer arithmetic below): every access lies within data[0..n].
        while i + LANES <= n {
            prefetch.step();
            unsafe {
                let p = data.add(i);
                store(p, kernel(load(p)));
            }
            i += LANES;
        }
        if i < n {
            prefetch.step();
            let rest = n - i;
            let mut buf = [0f32; LANES];
            unsafe {
                std::ptr::copy_nonoverlapping(data.add(i), buf.as_mut_ptr(), rest);
                let v = kernel(load(buf.as_ptr()));
                store(buf.as_mut_ptr(), v);
                std::ptr::copy_nonoverlapping(buf.as_ptr(), data.add(i), rest);
            }
        }
    }
}
