//! `fusion-wrapper`: every op left standalone after fusion that becomes a generated kernel
//! ([`crate::ir::kernel_ops::is_kernel_instruction`]) is wrapped into a one-op fusion
//! `wrapped_<opcode>` calling `wrapped_<opcode>_computation`, so codegen sees only fusions.
//! Free ops (parameter, constant, tuple, get-tuple-element, bitcast) and library work (dot,
//! convolution, sort, custom calls, control flow, ...) are left alone. Recurses into
//! while, conditional and call bodies. The kind is `kLoop`, or `kInput` for a reduce.
//! XLA: `xla/service/cpu/fusion_wrapper.cc`, `xla/codegen/emitters/fusion_wrapper_base.cc`
//! (XLA also leaves plain concatenates and same-layout copies alone; xlac wraps them).

use super::fusion_instruction::{Namer, non_fused_computations, wrap_instruction};
use crate::ir::kernel_ops::{is_free, is_kernel_instruction};
use crate::ir::{InstrId, Module, Opcode};
use crate::pipeline::{Pass, PassError};

/// The `fusion-wrapper` pass.
#[derive(Clone, Debug, Default)]
pub struct FusionWrapper;

impl Pass for FusionWrapper {
    fn name(&self) -> &'static str {
        "fusion-wrapper"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut namer = Namer::new(module);
        let mut changed = false;
        for comp_id in non_fused_computations(module) {
            let comp = &module.computations[comp_id];
            let to_wrap: Vec<InstrId> = comp
                .iter()
                .filter(|&(id, instr)| {
                    !is_free(instr.opcode())
                        && instr.opcode() != Opcode::Fusion
                        && !instr.op.has_side_effect()
                        && is_kernel_instruction(comp, id)
                })
                .map(|(id, _)| id)
                .collect();
            for id in to_wrap {
                let opcode = module.computations[comp_id].instr(id).opcode();
                wrap_instruction(
                    module,
                    comp_id,
                    id,
                    &format!("wrapped_{opcode}"),
                    &format!("wrapped_{opcode}_computation"),
                    &mut namer,
                );
                changed = true;
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    #[test]
    fn wraps_a_leftover_reduce_and_leaves_free_ops() {
        check_pass(
            FusionWrapper,
            "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(x, c), dimensions={1}, to_apply=sum
  ROOT t = (f32[4]{0}) tuple(r)
}",
            "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped_reduce_computation {
  param_0 = f32[4,8]{1,0} parameter(0)
  param_1 = f32[] parameter(1)
  ROOT r = f32[4]{0} reduce(param_0, param_1), dimensions={1}, to_apply=sum
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  wrapped_reduce = f32[4]{0} fusion(x, c), kind=kInput, calls=wrapped_reduce_computation
  ROOT t = (f32[4]{0}) tuple(wrapped_reduce)
}",
        );
    }

    #[test]
    fn leaves_library_ops_alone() {
        check_unchanged(
            FusionWrapper,
            "HloModule m
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  ROOT dot = f32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        );
    }
}
