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

use crate::ir::Module;
use crate::ir::sharding::is_sharding_only_custom_call;
use crate::pipeline::identity_custom_calls::forward_operands;
use crate::pipeline::{Pass, PassError};

/// Replaces the sharding-only custom calls by their operands (one device only).
pub struct ShardingRemover;

impl Pass for ShardingRemover {
    fn name(&self) -> &'static str {
        "sharding-remover"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        // On one device a shard is the whole array: the shapes must agree.
        forward_operands(
            module,
            is_sharding_only_custom_call,
            "a sharding custom call on one device",
        )
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
