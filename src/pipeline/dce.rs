//! `dce`: removes instructions the root does not reach, and computations nothing calls.
//! Keeps parameters (they are the computation's signature) and side-effecting instructions.
//! XLA: `xla/hlo/transforms/simplifiers/hlo_dce.cc`.

use std::collections::HashSet;

use super::{Pass, PassError};
use crate::ir::Module;

/// Dead code elimination.
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            let comp = &mut module.computations[c];
            let dead = comp.unreachable_instructions();
            if !dead.is_empty() {
                comp.remove_instructions(&dead);
                changed = true;
            }
        }
        changed |= remove_uncalled_computations(module);
        Ok(changed)
    }
}

/// Drops computations that the entry does not reach from the print order.
fn remove_uncalled_computations(module: &mut Module) -> bool {
    let reachable: HashSet<_> = module.reachable_computations().into_iter().collect();
    let before = module.order.len();
    module.order.retain(|c| reachable.contains(c));
    module.order.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    #[test]
    fn removes_unused_multiply() {
        check_pass(
            Dce,
            "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  dead = f32[4]{0} multiply(p0, p0)
  ROOT r = f32[4]{0} add(p0, p0)
}",
            "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  ROOT r = f32[4]{0} add(p0, p0)
}",
        );
    }

    #[test]
    fn removes_computations_nothing_calls() {
        check_pass(
            Dce,
            "
HloModule m
unused {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  ROOT p0 = f32[4]{0} parameter(0)
}",
            "
HloModule m
ENTRY main {
  ROOT p0 = f32[4]{0} parameter(0)
}",
        );
    }

    #[test]
    fn keeps_unused_parameters_and_side_effects() {
        check_unchanged(
            Dce,
            r#"
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  tok = token[] after-all()
  ROOT r = f32[4]{0} add(p0, p0)
}"#,
        );
    }
}
