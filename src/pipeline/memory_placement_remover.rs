//! `memory-placement-remover`: the `annotate_device_placement` custom calls jax writes for
//! `compute_on` and for arrays placed in another memory inside a jit are identities on
//! xlac, whose devices have one memory, so every use of one reads its operand instead.
//! XLA: `xla/service/convert_memory_placement_to_internal_annotations.cc`, which turns them
//! into the host offloader's `MoveToHost`/`MoveToDevice` annotations (or removes them when
//! they name the device's own memory).

use crate::ir::Module;
use crate::pipeline::identity_custom_calls::forward_operands;
use crate::pipeline::{Pass, PassError};

/// The custom-call target of jax's memory-placement annotations.
pub const ANNOTATE_DEVICE_PLACEMENT: &str = "annotate_device_placement";

/// Replaces every `annotate_device_placement` custom call by its operand.
pub struct MemoryPlacementRemover;

impl Pass for MemoryPlacementRemover {
    fn name(&self) -> &'static str {
        "memory-placement-remover"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        forward_operands(
            module,
            |target| target == ANNOTATE_DEVICE_PLACEMENT,
            "a placement annotation",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    #[test]
    fn placement_annotations_become_their_operands() {
        check_pass(
            MemoryPlacementRemover,
            r#"HloModule m

ENTRY e {
  p = f32[4,2] parameter(0)
  a = f32[4,2] custom-call(p), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_compute_type="host"}
  ROOT n = f32[4,2] negate(a)
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
    fn other_custom_calls_stay() {
        check_unchanged(
            MemoryPlacementRemover,
            r#"HloModule m

ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT a = f32[4,2] custom-call(p), custom_call_target="Sharding", sharding={replicated}
}
"#,
        );
    }
}
