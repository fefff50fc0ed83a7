//! `simplify-conditional`: replaces a `conditional` whose branch is known at compile
//! time by the body of that branch.
//!
//! Two cases, as in XLA's `ConditionalSimplifier::TryRemoveConditional`:
//! - the selector is a `constant`: a `pred` picks branch 0 (`true_computation`) when true
//!   and branch 1 when false; an `s32` picks that branch, and an out-of-range index picks
//!   the last one;
//! - the conditional has a single branch: every index selects it.
//!
//! The chosen branch is inlined in place of the conditional (its parameter becomes the
//! branch's operand), and the conditional and operands it leaves unused are removed.
//! Conditionals whose branches contain side effects are left alone, as in XLA.
//!
//! Not done (XLA does more): turning a `pred` conditional with two cheap branches into a
//! `select` of both, removing unused tuple elements and operands of branches, and merging
//! duplicate outputs.
//!
//! XLA: `xla/service/conditional_simplifier.cc`.

use super::call_inliner::inline_computation;
use super::{Pass, PassError};
use crate::ir::{ComputationId, InstrId, Literal, Module, Op};

/// Conditional simplification.
pub struct ConditionalSimplifier;

impl Pass for ConditionalSimplifier {
    fn name(&self) -> &'static str {
        "simplify-conditional"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            for id in module.computations[c].order.clone() {
                let Some(branch) = known_branch(module, c, id) else {
                    continue;
                };
                let instr = &module.computations[c].instrs[id];
                let arg = instr.operands[branch + 1];
                let control = instr.control_predecessors.clone();
                let Op::Conditional {
                    branch_computations,
                } = &instr.op
                else {
                    continue;
                };
                let callee = branch_computations[branch];
                let value = inline_computation(module, c, id, callee, &[arg], &control)?;
                let comp = &mut module.computations[c];
                comp.replace_all_uses(id, value);
                comp.remove_unused_from(&[id]);
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// The branch a side-effect-free conditional always takes, if known at compile time.
fn known_branch(module: &Module, c: ComputationId, id: InstrId) -> Option<usize> {
    let comp = &module.computations[c];
    let instr = &comp.instrs[id];
    let Op::Conditional {
        branch_computations,
    } = &instr.op
    else {
        return None;
    };
    let count = branch_computations.len();
    if count == 0
        || branch_computations
            .iter()
            .any(|&b| module.calls_side_effect(b))
    {
        return None;
    }
    if count == 1 {
        return Some(0);
    }
    let Op::Constant { literal } = &comp.instrs[instr.operands[0]].op else {
        return None;
    };
    let Literal::Array(selector) = literal else {
        return None;
    };
    if let Some(&[p]) = selector.values::<bool>() {
        return Some(if p { 0 } else { 1 });
    }
    let &[index] = selector.values::<i32>()? else {
        return None;
    };
    Some(if index < 0 || index as usize >= count {
        count - 1
    } else {
        index as usize
    })
}

#[cfg(test)]
mod tests;
