//! `xlac compile MODEL --dump-to DIR [--isa x86_64,aarch64,riscv64,s390x]`: load and
//! compile (passes, fusion, buffers, kernels, thunks), writing every stage into the dump
//! folder; nothing executes.
//!
//! `--isa` (comma-separated, repeatable) also compiles every kernel for other instruction
//! sets and writes `KERNEL.ISA.asm` beside the host's `KERNEL.asm`: `x86_64`, `aarch64`,
//! `riscv64` (rv64gc, no vector extension: kernels are re-emitted without their vector
//! loop), `riscv64v` (rv64gcv: RVV code, listed as Cranelift's VCode because Capstone cannot
//! decode RVV), `s390x`; `host` names this machine's ISA and `all` every one. A kernel an
//! ISA cannot compile gets a listing saying why, an `index.txt` line saying so and a
//! `warning:` line on stderr; the compile still succeeds. An unknown name is a usage error.
//! See `crate::codegen::inspect::cross_isa`.

use super::prepare::compile_options;
use super::{CompileArgs, Failure, model};

/// Runs `xlac compile`.
pub fn compile(args: &CompileArgs) -> Result<(), Failure> {
    // Check the names before loading anything: a typo is a usage error, not a compile.
    crate::codegen::inspect::cross_isa::parse_isas(&args.isa).map_err(Failure::usage)?;
    super::refusals::check_compile(args)?;
    let loaded = model::load(&args.model, false)?;
    let mut options = compile_options(&args.passes, Some(args.dump_to.clone()), false)?;
    options.isas = args.isa.clone();
    options.spmd = super::devices::one_device_spmd(&loaded.module);
    if let Some(grid) = super::devices::grid(&loaded.module, &args.devices, &loaded.file)?
        && !crate::spmd::is_partitioned(&loaded.module)
    {
        options.spmd = Some(crate::spmd::SpmdOptions {
            num_partitions: grid.partitions,
            num_replicas: grid.replicas,
        });
    }
    let compiled = super::prepare::compile_loaded(loaded, &options)?;
    for w in &compiled.warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}
