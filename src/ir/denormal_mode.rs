//! The CPU's denormal mode for the calling thread. Float semantics are the program's, not
//! the host thread's: XLA:CPU's kernels flush denormals (FTZ and DAZ), while compile-time
//! arithmetic (constant folding, the algebraic simplifier) and the reference interpreter
//! keep them, the interpreter flushing in software where XLA:CPU does. A host thread may
//! arrive in either mode: jaxlib compiles and executes on its thread pool's workers, which
//! run with FTZ and DAZ set, so without a mode of its own a fold there would turn
//! `abs(9.18e-41)` into 0. XLA: `tsl/platform/denormal.h` (`ScopedFlushDenormal`,
//! `ScopedDontFlushDenormal`).

/// What the CPU does with denormal floats while a piece of xlac runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DenormalMode {
    /// Denormal inputs read as zero and denormal results become zero (MXCSR's DAZ and FTZ),
    /// as XLA:CPU's kernels run.
    Flush,
    /// IEEE arithmetic: denormals are kept.
    Keep,
}

/// Runs `f` with the calling thread's denormal mode set to `mode`, restoring the previous
/// mode after (also when `f` panics). On other architectures than x86-64 it just runs `f`.
pub fn with_denormal_mode<R>(mode: DenormalMode, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(deprecated)]
        use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        /// Puts the saved MXCSR back when dropped.
        struct Restore(u32);
        impl Drop for Restore {
            fn drop(&mut self) {
                // SAFETY: writing back the value read from this thread's MXCSR.
                #[allow(deprecated)]
                unsafe {
                    _mm_setcsr(self.0)
                };
            }
        }
        // SAFETY: reading and writing MXCSR only changes this thread's float modes; the old
        // value is restored before returning.
        #[allow(deprecated)]
        let old = unsafe { _mm_getcsr() };
        let new = match mode {
            DenormalMode::Flush => old | FTZ | DAZ,
            DenormalMode::Keep => old & !(FTZ | DAZ),
        };
        if new == old {
            // Nested calls (an interpreter's reducer, element by element) cost one read.
            return f();
        }
        let _restore = Restore(old);
        // SAFETY: as above; only the FTZ and DAZ bits change.
        #[allow(deprecated)]
        unsafe {
            _mm_setcsr(new)
        };
        f()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = mode;
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A denormal times one: kept under IEEE arithmetic, zero under FTZ/DAZ.
    fn product() -> f32 {
        std::hint::black_box(1e-40f32) * std::hint::black_box(1.0f32)
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn keep_undoes_a_flushing_thread_and_restores_it() {
        with_denormal_mode(DenormalMode::Flush, || {
            assert_eq!(product(), 0.0);
            assert_eq!(with_denormal_mode(DenormalMode::Keep, product), 1e-40);
            assert_eq!(product(), 0.0, "the flushing mode is back");
        });
        assert_eq!(product(), 1e-40);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_mode_is_restored_after_a_panic() {
        let r = std::panic::catch_unwind(|| {
            with_denormal_mode(DenormalMode::Flush, || panic!("inside"));
        });
        assert!(r.is_err());
        assert_eq!(product(), 1e-40);
    }
}
