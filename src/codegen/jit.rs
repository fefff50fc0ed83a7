//! The JIT module all kernels of one compiled module live in: one `JITModule` with every
//! external symbol registered explicitly (no `dlsym` guessing), each libcall declared once
//! so kernels can import it. Code stays mapped as long as the `JITModule` lives; `KernelSet`
//! owns it.

use std::collections::HashMap;

use cranelift_codegen::ir::Signature;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};

use super::isa::host_isa;
use super::libcalls::all_symbols;

/// The libcalls declared in a JIT module: symbol name → id and signature.
pub type DeclaredLibcalls = HashMap<&'static str, (FuncId, Signature)>;

/// A fresh JIT module for the host and the libcalls declared in it.
pub fn new_jit(verify: bool) -> Result<(JITModule, DeclaredLibcalls), String> {
    new_jit_with_isa(verify).map(|(jit, libcalls, _)| (jit, libcalls))
}

/// [`new_jit`], plus a shared handle on the module's ISA: `JITModule` is not `Sync`, so
/// worker threads that compile functions in parallel use this handle (the same flags, the
/// same object) and give the finished bytes to the module afterwards.
pub fn new_jit_with_isa(
    verify: bool,
) -> Result<(JITModule, DeclaredLibcalls, OwnedTargetIsa), String> {
    let isa = host_isa(verify)?;
    let shared = isa.clone();
    let call_conv = isa.default_call_conv();
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    let symbols = all_symbols();
    for s in &symbols {
        builder.symbol(s.name, s.address);
    }
    let mut module = JITModule::new(builder);
    let mut declared = HashMap::new();
    for s in &symbols {
        let sig = s.sig.signature(call_conv);
        let id = module
            .declare_function(s.name, Linkage::Import, &sig)
            .map_err(|e| format!("declaring {}: {e}", s.name))?;
        declared.insert(s.name, (id, sig));
    }
    Ok((module, declared, shared))
}
