//! Flush-to-zero for kernel calls: XLA:CPU runs its kernels with denormals flushed to zero,
//! as inputs (DAZ) and results (FTZ) (`--xla_cpu_ftz`, on by default), and the reference
//! interpreter follows it (`eval::denormals`). Generated code does not flush by itself; the
//! caller sets the CPU's mode around kernel calls with [`with_flushed_denormals`] (on every
//! thread that runs kernels). XLA: `tsl/platform/denormal.h` (`ScopedFlushDenormal`).

/// Runs `f` with FTZ and DAZ set in MXCSR (x86-64), restoring the previous mode after.
/// Elsewhere it just runs `f`.
pub fn with_flushed_denormals<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(deprecated)]
        use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        // SAFETY: reading and writing MXCSR only changes this thread's float modes; the old
        // value is restored before returning.
        #[allow(deprecated)]
        let old = unsafe { _mm_getcsr() };
        #[allow(deprecated)]
        unsafe {
            _mm_setcsr(old | FTZ | DAZ)
        };
        let r = f();
        #[allow(deprecated)]
        unsafe {
            _mm_setcsr(old)
        };
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        f()
    }
}
