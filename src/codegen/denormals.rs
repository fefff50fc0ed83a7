//! Flush-to-zero for kernel calls: XLA:CPU runs its kernels with denormals flushed to zero,
//! as inputs (DAZ) and results (FTZ) (`--xla_cpu_ftz`, on by default), and the reference
//! interpreter follows it (`eval::denormals`). Generated code does not flush by itself; the
//! caller sets the CPU's mode around kernel calls with [`with_flushed_denormals`] (on every
//! thread that runs kernels). XLA: `tsl/platform/denormal.h` (`ScopedFlushDenormal`).

/// Runs `f` with FTZ and DAZ set in MXCSR (x86-64), restoring the previous mode after.
/// Elsewhere it just runs `f`.
pub fn with_flushed_denormals<R>(f: impl FnOnce() -> R) -> R {
    crate::ir::denormal_mode::with_denormal_mode(crate::ir::denormal_mode::DenormalMode::Flush, f)
}
