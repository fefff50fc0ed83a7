//! Native "block" math routines: `exp` and `tanh` over a whole buffer of f32, in place, with
//! 512-bit vectors. Generated kernels call them once per row on a scratch row that holds the
//! op's argument (`call xlac_block_exp_f32(row, n, queue, lines)`), instead of evaluating the
//! inline CLIF math four lanes at a time. Meanwhile each call prefetches its share of the
//! kernel's next row (`prefetch.rs`).
//!
//! Why native code: Cranelift has no 512-bit (or 256-bit) vector types, so the inline math
//! of `codegen::math` runs on `f32x4`, while XLA:CPU's LLVM backend runs the same polynomials
//! on AVX-512 (16 lanes). For compute-bound elementwise kernels (gelu's tanh, softmax's exp)
//! that is a 4× gap in arithmetic throughput that no loop transformation in CLIF closes.
//! Stable Rust has the AVX-512 intrinsics (`std::arch::x86_64::_mm512_*`, since 1.89), so the
//! routines here are Rust, dispatched at run time on the host's features.
//!
//! Bit for bit: every routine computes exactly what the inline CLIF function computes on
//! `f32x4` with FMA (`MathOptions { has_fma: true }`): the same algorithm, the same constants
//! (rounded to f32 as `Kind::f` does), the same operation order, `fma` exactly where
//! `Kind::mul_add`/`Kind::poly` emit one, the same compare+select handling of NaN, ±inf, ±0
//! and the clamps. So whether a kernel takes the block routine or the inline math, its
//! results do not change (`tests.rs` compares them on >100k inputs per function). The
//! polynomial coefficients and the ln2 split are `codegen::math`'s own (shared, not copied);
//! the tests tie the two implementations together.
//!
//! | routine | mirrors | XLA |
//! |---|---|---|
//! | [`xlac_block_exp_f32`] | `codegen::math::exp` (f32: Cephes, clamp to [−104, 89]) | `xla/codegen/intrinsic/exp.cc`, `polynomial_approximations.cc` |
//! | [`xlac_block_tanh_f32`] | `codegen::math::tanh` (f32: Eigen's rational, clamp ±7.905) | `xla/codegen/intrinsic/tanh.cc` |
//!
//! Paths, chosen per call (the feature detection is cached by `std`):
//! - AVX-512 (`avx512f` + `fma`): 16 lanes per step, two vectors per iteration, and a masked
//!   load/store for the tail, so no scalar tail loop.
//! - AVX2 (`avx2` + `fma`): 8 lanes per step, the tail through a small stack buffer.
//! - Otherwise (no FMA, or not x86-64): a portable scalar loop with the same algorithm
//!   (`f32::mul_add` where the CLIF uses `fma`), still bit-identical to the CLIF with FMA,
//!   but slower than the inline math: [`block_math_available`] is false there, and the
//!   codegen keeps the inline CLIF. (Without FMA the inline CLIF itself is unfused
//!   (`has_fma: false`) and differs from these routines in the last bits: never mix them.)
//!
//! Measured (`benches/vector_math.rs`, one thread, AVX-512 host, 1M floats): exp 0.60 ns per
//! element against 1.95 for the codegen's `f32x4` kernel, tanh 0.45 against 1.8 (3–4×).
//!
//! Floating-point modes: the routines use ordinary SSE/AVX arithmetic, so they follow the
//! caller's MXCSR (kernels run with FTZ/DAZ set, as XLA:CPU's do), as the inline code does.
//!
//! What this is not: a general vector math library (no f64, no other functions), and not the
//! codegen policy that decides when a kernel calls these (that lives in `codegen`).

/// A block routine's implementations, `KERNELS`: `scalar` for one lane and, on x86-64, the
/// one-vector kernel, written once against `v` (`x86::v16` or `x86::v8`: the same
/// functions at 16 and 8 lanes) and compiled twice, for AVX-512 (`avx512::block`) and for
/// AVX2 (`avx2::block`), each run over the buffer by its module's `drive`.
macro_rules! block_kernels {
    (
        scalar: $scalar:ident;
        $(#[$doc:meta])*
        fn $kernel:ident($x:ident: v::F32s) -> v::F32s $body:block
    ) => {
        static KERNELS: Kernels = Kernels {
            scalar: $scalar,
            #[cfg(target_arch = "x86_64")]
            avx512: avx512::block,
            #[cfg(target_arch = "x86_64")]
            avx2: avx2::block,
        };

        /// The routine's implementations, for the tests (which run every path the host has).
        #[cfg(test)]
        pub(crate) fn kernels() -> &'static Kernels {
            &KERNELS
        }

        block_kernels!(@path avx512, v16, "avx512f,fma", $(#[$doc])* $kernel, $x, $body);
        block_kernels!(@path avx2, v8, "avx2,fma", $(#[$doc])* $kernel, $x, $body);
    };
    (
        @path $path:ident, $lanes:ident, $features:tt,
        $(#[$doc:meta])* $kernel:ident, $x:ident, $body:block
    ) => {
        #[cfg(target_arch = "x86_64")]
        mod $path {
            use super::super::Prefetcher;
            use super::super::x86::$lanes as v;
            #[allow(unused_imports)]
            use super::*;

            $(#[$doc])*
            #[target_feature(enable = $features)]
            #[inline]
            fn $kernel($x: v::F32s) -> v::F32s $body

            /// # Safety
            /// `data` valid for `n` f32; the host has the path's target features.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn block(data: *mut f32, n: usize, prefetch: Prefetcher) {
                // SAFETY: forwarded from the caller.
                unsafe { v::drive(data, n, prefetch, |x| $kernel(x)) }
            }
        }
    };
}

mod exp;
mod prefetch;
mod scalar;
mod tanh;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;

pub use exp::xlac_block_exp_f32;
pub(crate) use prefetch::Prefetcher;
pub use prefetch::{PREFETCH_QUEUE_BYTES, PREFETCH_STREAMS, PrefetchQueue};
pub use tanh::xlac_block_tanh_f32;

/// The instruction set a block routine runs with on this host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum Path {
    /// `avx512f` + `fma`: 16 lanes.
    Avx512,
    /// `avx2` + `fma`: 8 lanes.
    Avx2,
    /// Portable scalar code.
    Scalar,
}

/// The fastest path this host supports.
pub(crate) fn host_path() -> Path {
    #[cfg(target_arch = "x86_64")]
    {
        // `is_x86_feature_detected!` caches its answer in a static: this is a load and a test.
        if std::arch::is_x86_feature_detected!("fma") {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Path::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Path::Avx2;
            }
        }
    }
    Path::Scalar
}

/// Whether the host runs the block routines with wide vectors (AVX-512 or AVX2, each with
/// FMA). When false the routines still work (scalar), but the codegen should keep the inline
/// CLIF math, which is faster than a scalar loop.
pub fn block_math_available() -> bool {
    host_path() != Path::Scalar
}

/// Runs `kernels` over `data[0..n]` in place on the host's fastest path.
///
/// # Safety
/// `data` must be valid for reads and writes of `n` f32 (it may be null or dangling when `n`
/// is 0).
pub(crate) unsafe fn run_block(
    data: *mut f32,
    n: u64,
    queue: *mut PrefetchQueue,
    lines: u64,
    kernels: &Kernels,
) {
    // SAFETY: the caller guarantees the buffer and the queue; `host_path` only returns
    // supported paths.
    unsafe { run_block_on(data, n, host_path(), kernels, queue, lines) }
}

/// Runs `kernels` over `data[0..n]` in place on `path` (the tests run every supported path).
///
/// # Safety
/// As [`run_block`], and `path` must be supported by the host: `path` is [`Path::Scalar`]
/// or at most [`host_path`] (an AVX-512 host also has AVX2).
pub(crate) unsafe fn run_block_on(
    data: *mut f32,
    n: u64,
    path: Path,
    kernels: &Kernels,
    queue: *mut PrefetchQueue,
    lines: u64,
) {
    if n == 0 {
        return;
    }
    let n = n as usize;
    #[cfg(target_arch = "x86_64")]
    match path {
        // SAFETY: the caller guarantees the buffer, the queue, and that the host has the
        // features. Two vectors per step.
        Path::Avx512 => {
            let pf = Prefetcher::new(queue, lines, n.div_ceil(32));
            return unsafe { (kernels.avx512)(data, n, pf) };
        }
        // SAFETY: as above.
        Path::Avx2 => {
            let pf = Prefetcher::new(queue, lines, n.div_ceil(16));
            return unsafe { (kernels.avx2)(data, n, pf) };
        }
        Path::Scalar => {}
    }
    // The scalar path is slower than the inline code and never chosen by the codegen: it
    // prefetches nothing.
    let _ = (path, queue, lines); // only the x86-64 paths read them
    // SAFETY: the caller guarantees `data` is valid for `n` elements.
    let s = unsafe { std::slice::from_raw_parts_mut(data, n) };
    for v in s {
        *v = (kernels.scalar)(*v);
    }
}

/// A block routine of one path: processes `data[0..n]` in place, `n > 0`, issuing the
/// prefetcher's share step by step.
#[cfg(target_arch = "x86_64")]
pub(crate) type BlockFn = unsafe fn(data: *mut f32, n: usize, prefetch: Prefetcher);

/// One function's implementations, one per path.
pub(crate) struct Kernels {
    /// One lane at a time.
    pub scalar: fn(f32) -> f32,
    /// AVX-512 + FMA.
    #[cfg(target_arch = "x86_64")]
    pub avx512: BlockFn,
    /// AVX2 + FMA.
    #[cfg(target_arch = "x86_64")]
    pub avx2: BlockFn,
}
