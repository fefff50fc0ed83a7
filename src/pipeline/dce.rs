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
            // Calls whose callees have side effects stay, like the side effects themselves.
            let keep: HashSet<_> = module.computations[c]
                .iter()
                .filter(|(_, i)| module.has_side_effect(&i.op))
                .map(|(id, _)| id)
                .collect();
            let comp = &mut module.computations[c];
            let dead = comp.unreachable_instructions_keeping(&keep);
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
    fn keeps_an_unused_loop_whose_body_has_a_side_effect() {
        // As a loop of `jax.debug.print`s: nothing reads the loop, its body has an effect.
        check_unchanged(
            Dce,
            r#"
HloModule m
cond {
  c = s32[] parameter(0)
  n = s32[] constant(4)
  ROOT lt = pred[] compare(c, n), direction=LT
}
body {
  b = s32[] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  draw = f32[] rng(lo, hi), distribution=rng_uniform
  one = s32[] constant(1)
  ROOT next = s32[] add(b, one)
}
ENTRY main {
  zero = s32[] constant(0)
  loop = s32[] while(zero), condition=cond, body=body
  ROOT t = () tuple()
}"#,
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
