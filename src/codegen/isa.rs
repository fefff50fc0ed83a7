//! The host instruction set Cranelift compiles for: `cranelift_native` detects the CPU's
//! features (SSE4.1, AVX2, FMA, ...) and the shared flags pick the optimization level.
//! This is not the cross-ISA view (other ISAs are a later, separate feature).
//! Cranelift: `cranelift-native/src/lib.rs`.

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};

/// The host ISA with `opt_level=speed`, the verifier off (it costs ~30% of compile time;
/// tests turn it on) and the flags `JITModule` requires (`is_pic=false`).
pub fn host_isa(verify: bool) -> Result<OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| format!("cranelift flag {k}={v}: {e}"))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(
        &mut flags,
        "enable_verifier",
        if verify { "true" } else { "false" },
    )?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    let builder = cranelift_native::builder().map_err(|e| format!("host ISA: {e}"))?;
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("host ISA: {e}"))
}

/// Whether kernels compiled for the host contract `a*b + c` into an FMA
/// (`elemental/fp_contraction.rs`): the host ISA has a native FMA. The interpreter's
/// `EvalOptions::fp_contraction` takes this value wherever it stands in for host kernels.
pub fn host_contracts_fma() -> bool {
    static HAS_FMA: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS_FMA.get_or_init(|| host_isa(false).is_ok_and(|isa| isa.has_native_fma()))
}
