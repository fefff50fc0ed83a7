//! `custom-fusion-inliner`: puts the instructions of every library (`kCustom`) fusion back
//! into its computation. XLA:CPU makes `kCustom` fusions for libraries it calls (YNNPACK's
//! `__ynn_fusion`, oneDNN, XNNPACK); xlac has none of them, so their ops go back to plain
//! instructions and xlac's own fusion rules decide again. `kLoop`/`kInput`/`kOutput`
//! fusions already in the input are valid kernels and are kept as they are, unless they
//! hold an op no generated kernel computes (XLA:CPU wraps `scatter` into loop fusions):
//! those are put back too, so the op runs as a library call.
//! xlac's own pass (XLA has no counterpart); the inlining is `call_inliner`'s.

use super::DecisionLog;
use super::decisions::{FusionDecision, FusionRule};
use super::fusion_instruction::non_fused_computations;
use crate::ir::kernel_ops::is_kernel_instruction;
use crate::ir::{Computation, ComputationId, FusionKind, InstrId, Module, Op, Opcode};
use crate::pipeline::call_inliner::inline_computation;
use crate::pipeline::{Pass, PassError};

/// The `custom-fusion-inliner` pass; each inlined fusion is logged.
pub struct CustomFusionInliner {
    log: DecisionLog,
}

impl CustomFusionInliner {
    /// A pass that records what it inlines in `log`.
    pub fn new(log: DecisionLog) -> CustomFusionInliner {
        CustomFusionInliner { log }
    }
}

impl Pass for CustomFusionInliner {
    fn name(&self) -> &'static str {
        "custom-fusion-inliner"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for comp_id in non_fused_computations(module) {
            let custom: Vec<(InstrId, ComputationId, FusionRule)> = module.computations[comp_id]
                .order
                .iter()
                .filter_map(|&id| match module.computations[comp_id].instr(id).op {
                    Op::Fusion {
                        kind: FusionKind::Custom,
                        calls,
                    } => Some((id, calls, FusionRule::CustomFusionInlined)),
                    Op::Fusion { calls, .. } => no_kernel_op(&module.computations[calls])
                        .map(|opcode| (id, calls, FusionRule::FusionHasNoKernel { opcode })),
                    _ => None,
                })
                .collect();
            for (fusion, calls, rule) in custom {
                let instr = module.computations[comp_id].instr(fusion).clone();
                let root =
                    inline_computation(module, comp_id, fusion, calls, &instr.operands, &[])?;
                let comp = &mut module.computations[comp_id];
                comp.replace_all_uses(fusion, root);
                comp.order.retain(|&i| i != fusion);
                // A fused computation has exactly one caller: this fusion.
                module.order.retain(|&c| c != calls);
                let comp = &module.computations[comp_id];
                self.log.borrow_mut().push(FusionDecision {
                    pass: "custom-fusion-inliner",
                    computation: comp.name.clone(),
                    producer: module.computations[calls].name.clone(),
                    consumer: instr.name.clone(),
                    fused: false,
                    rule,
                    result: None,
                });
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// The first op of a fused computation that no generated kernel computes, if any.
fn no_kernel_op(fused: &Computation) -> Option<Opcode> {
    fused
        .order
        .iter()
        .find(|&&id| !is_kernel_instruction(fused, id))
        .map(|&id| fused.instr(id).opcode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::check_pass;

    #[test]
    fn inlines_a_custom_fusion_and_logs_it() {
        let log = DecisionLog::default();
        check_pass(
            CustomFusionInliner::new(log.clone()),
            "HloModule m
ynn {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  ROOT m = f32[4]{0} multiply(a, b)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT f = f32[4]{0} fusion(x, y), kind=kCustom, calls=ynn
}",
            "HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT m = f32[4]{0} multiply(x, y)
}",
        );
        assert_eq!(log.borrow().len(), 1);
        assert_eq!(log.borrow()[0].rule, FusionRule::CustomFusionInlined);
    }
}
