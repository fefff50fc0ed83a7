//! `sharding-remover`: on one device, the custom calls that only carry sharding
//! information are identities, so every use of one reads its operand instead.
//!
//! jax writes them even for one device: `jax.random`'s samplers, `with_sharding_constraint`,
//! `out_shardings` and a `shard_map` over a one-device mesh all lower to `Sharding` (or
//! Shardy's `xla.sdy.*`) custom calls. XLA:CPU runs this pass instead of the SPMD pipeline
//! when `num_partitions == 1`; without it those programs fail at the custom call.
//!
//! XLA: `xla/service/sharding_remover.cc` (in `cpu_compiler.cc`'s `sharding-removal`
//! pipeline).

use super::is_spmd_custom_call;
use crate::ir::{Module, Op};
use crate::pipeline::{Pass, PassError};

/// Replaces the sharding-only custom calls by their operands (one device only).
pub struct ShardingRemover;

/// Sharding-only custom calls besides [`is_spmd_custom_call`]'s: Shardy's groups and
/// barriers and the partitioner's shard barriers, all identities on one device.
fn is_sharding_only(target: &str) -> bool {
    is_spmd_custom_call(target)
        || matches!(
            target,
            "xla.sdy.ShardingGroup"
                | "xla.sdy.PropagationBarrier"
                | "ShardBarrierFrom"
                | "ShardBarrierTo"
        )
}

impl Pass for ShardingRemover {
    fn name(&self) -> &'static str {
        "sharding-remover"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            let comp = &mut module.computations[c];
            let mut removed = Vec::new();
            for id in comp.order.clone() {
                let instr = &comp.instrs[id];
                let Op::CustomCall(cc) = &instr.op else {
                    continue;
                };
                if !is_sharding_only(&cc.target) {
                    continue;
                }
                let [operand] = instr.operands[..] else {
                    return Err(PassError::new(format!(
                        "{}: custom call '{}' has {} operands; a sharding custom call has one",
                        instr.name,
                        cc.target,
                        instr.operands.len()
                    )));
                };
                // On one device a shard is the whole array: the shapes must agree.
                if comp.instrs[operand].shape != instr.shape {
                    return Err(PassError::new(format!(
                        "{}: custom call '{}' changes the shape from {} to {} on one device",
                        instr.name, cc.target, comp.instrs[operand].shape, instr.shape
                    )));
                }
                comp.replace_all_uses(id, operand);
                removed.push(id);
                changed = true;
            }
            // Side-effect-free now that nothing reads them (a dangling sharding group too).
            comp.remove_instructions(&removed);
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{check_pass, parse_verified};

    #[test]
    fn sharding_custom_calls_become_their_operands() {
        check_pass(
            ShardingRemover,
            r#"HloModule m

ENTRY e {
  p = f32[4,2] parameter(0)
  s = f32[4,2] custom-call(p), custom_call_target="Sharding", sharding={devices=[2,1]<=[2]}
  n = f32[4,2] negate(s)
  ROOT r = f32[4,2] custom-call(n), custom_call_target="xla.sdy.FuncResultSharding"
}
"#,
            r#"HloModule m

ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT n = f32[4,2] negate(p)
}
"#,
        );
    }

    #[test]
    fn a_shape_changing_call_is_an_error() {
        let mut module = parse_verified(
            r#"HloModule m

ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT s = f32[2,2] custom-call(p), custom_call_target="SPMDFullToShardShape"
}
"#,
        );
        let err = ShardingRemover.run(&mut module).unwrap_err();
        assert!(err.message.contains("changes the shape"), "{err}");
    }
}
