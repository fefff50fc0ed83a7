//! `tuple-simplifier`: removes tuples that are built only to be taken apart.
//!
//! Two rewrites, in one walk over each computation (operands before users):
//! - `get-tuple-element(tuple(a, b)), index=1` → `b`, also through chains of
//!   get-tuple-elements over nested tuples;
//! - `tuple(gte(t, 0), gte(t, 1), ..., gte(t, n-1))` that rebuilds all of `t`, in order,
//!   with a compatible shape → `t`.
//!
//! Like XLA's `ReplaceInstruction`, a replaced instruction is removed together with the
//! operands that it leaves unused. Instructions with control predecessors are left alone
//! (XLA relays those edges instead; xlac's JAX programs have none).
//!
//! XLA: `xla/hlo/transforms/simplifiers/tuple_simplifier.cc`.

use std::collections::HashMap;

use super::{Pass, PassError};
use crate::ir::{Computation, InstrId, Module, Op, Opcode};

/// Tuple/get-tuple-element simplification.
pub struct TupleSimplifier;

impl Pass for TupleSimplifier {
    fn name(&self) -> &'static str {
        "tuple-simplifier"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            changed |= simplify_computation(&mut module.computations[c]);
        }
        Ok(changed)
    }
}

/// Applies both rewrites to one computation; returns true if anything changed.
fn simplify_computation(comp: &mut Computation) -> bool {
    // replaced[x] = what every use of x now reads. Operands are rewritten as the walk
    // reaches each user, so each rewrite sees the already-simplified operands.
    let mut replaced: HashMap<InstrId, InstrId> = HashMap::new();
    for id in comp.order.clone() {
        let instr = &mut comp.instrs[id];
        for op in instr
            .operands
            .iter_mut()
            .chain(instr.control_predecessors.iter_mut())
        {
            if let Some(&r) = replaced.get(op) {
                *op = r;
            }
        }
        if !comp.instrs[id].control_predecessors.is_empty() {
            continue;
        }
        let replacement = match comp.instrs[id].op {
            Op::Plain(Opcode::Tuple) => whole_tuple_source(comp, id),
            Op::GetTupleElement { .. } => tuple_element_source(comp, id),
            _ => None,
        };
        if let Some(r) = replacement {
            replaced.insert(id, r);
        }
    }
    if replaced.is_empty() {
        return false;
    }
    comp.record_replacements(&replaced);
    if let Some(&r) = replaced.get(&comp.root) {
        comp.root = r;
    }
    let candidates: Vec<InstrId> = replaced.keys().copied().collect();
    comp.remove_unused_from(&candidates);
    true
}

/// For `tuple(gte(t, 0), ..., gte(t, n-1))` with `t` of a compatible shape: `t`
/// (XLA's `RemoveWholeTuple`).
fn whole_tuple_source(comp: &Computation, tuple: InstrId) -> Option<InstrId> {
    let instr = &comp.instrs[tuple];
    let mut source = None;
    for (i, &op) in instr.operands.iter().enumerate() {
        let element = &comp.instrs[op];
        let Op::GetTupleElement { index } = element.op else {
            return None;
        };
        let from = element.operands[0];
        if index != i || source.is_some_and(|s| s != from) {
            return None;
        }
        source = Some(from);
    }
    let source = source?;
    comp.instrs[source]
        .shape
        .compatible(&instr.shape)
        .then_some(source)
}

/// For a chain `gte(gte(...(x)...))`: the element the chain selects when `x` and the
/// tuples along the index path are `tuple` instructions
/// (XLA's `LatestNonGteAncestorAndIndex`).
fn tuple_element_source(comp: &Computation, gte: InstrId) -> Option<InstrId> {
    let mut path = Vec::new();
    let mut ancestor = gte;
    while let Op::GetTupleElement { index } = comp.instrs[ancestor].op {
        path.push(index);
        ancestor = comp.instrs[ancestor].operands[0];
    }
    let mut value = ancestor;
    for &index in path.iter().rev() {
        let instr = &comp.instrs[value];
        if instr.op != Op::Plain(Opcode::Tuple) {
            return None;
        }
        value = *instr.operands.get(index)?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::{check_pass, check_unchanged};

    #[test]
    fn forwards_an_element_of_a_tuple() {
        check_pass(
            TupleSimplifier,
            "
HloModule m
ENTRY main {
  a = f32[2]{0} parameter(0)
  b = s32[] parameter(1)
  t = (f32[2]{0}, s32[]) tuple(a, b)
  g = s32[] get-tuple-element(t), index=1
  ROOT n = s32[] negate(g)
}",
            "
HloModule m
ENTRY main {
  a = f32[2]{0} parameter(0)
  b = s32[] parameter(1)
  ROOT n = s32[] negate(b)
}",
        );
    }

    #[test]
    fn forwards_through_nested_tuples() {
        check_pass(
            TupleSimplifier,
            "
HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  inner = (f32[], f32[]) tuple(a, b)
  outer = ((f32[], f32[]), f32[]) tuple(inner, a)
  g0 = (f32[], f32[]) get-tuple-element(outer), index=0
  g1 = f32[] get-tuple-element(g0), index=1
  ROOT r = f32[] add(g1, a)
}",
            "
HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(b, a)
}",
        );
    }

    #[test]
    fn removes_a_tuple_that_rebuilds_its_source() {
        check_pass(
            TupleSimplifier,
            "
HloModule m
ENTRY main {
  p = (f32[2]{0}, s32[]) parameter(0)
  g0 = f32[2]{0} get-tuple-element(p), index=0
  g1 = s32[] get-tuple-element(p), index=1
  ROOT t = (f32[2]{0}, s32[]) tuple(g0, g1)
}",
            "
HloModule m
ENTRY main {
  ROOT p = (f32[2]{0}, s32[]) parameter(0)
}",
        );
    }

    #[test]
    fn keeps_tuples_that_reorder_or_drop_or_mix_sources() {
        check_unchanged(
            TupleSimplifier,
            "
HloModule m
ENTRY main {
  p = (f32[], f32[]) parameter(0)
  q = (f32[], f32[]) parameter(1)
  g0 = f32[] get-tuple-element(p), index=0
  g1 = f32[] get-tuple-element(p), index=1
  h1 = f32[] get-tuple-element(q), index=1
  swapped = (f32[], f32[]) tuple(g1, g0)
  prefix = (f32[]) tuple(g0)
  mixed = (f32[], f32[]) tuple(g0, h1)
  ROOT all = ((f32[], f32[]), (f32[]), (f32[], f32[])) tuple(swapped, prefix, mixed)
}",
        );
    }

    #[test]
    fn keeps_elements_of_non_tuple_instructions() {
        check_unchanged(
            TupleSimplifier,
            "
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = f32[4]{0} parameter(0)
  v = s32[4]{0} parameter(1)
  s = (f32[4]{0}, s32[4]{0}) sort(k, v), dimensions={0}, to_apply=cmp
  ROOT g = s32[4]{0} get-tuple-element(s), index=1
}",
        );
    }
}
