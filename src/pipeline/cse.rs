//! `cse`: common-subexpression elimination. Two instructions of one computation that
//! compute the same thing from the same operands become one: uses of the later one read
//! the earlier one, and the later one is removed.
//!
//! "The same thing" means: same opcode, same typed attributes, same result shape including
//! its layout, same operands (in any order for a commutative op), same `backend_config`
//! and unmodeled attributes. Called computations (reducers, comparators) are compared by
//! structure, so two reduces whose reducers are separate but identical `add` computations
//! still merge; the computations themselves are not merged (XLA does not by default).
//! Constants are compared bit by bit (`-0` is not `0`, and a NaN only matches the same NaN
//! bits); constants with more than [`MAX_CONSTANT_ELEMENTS`] elements are left alone to
//! bound compile time. Identical iotas merge too.
//!
//! Never merged: parameters, instructions with side effects (rng, infeed, side-effecting
//! custom calls, collectives) or calling computations that have some, and instructions with
//! control predecessors. `maximum`/`minimum` count as commutative only on integers: on
//! floats `max(-0, +0)` and `max(+0, -0)` give different zeros.
//!
//! XLA: `xla/hlo/transforms/simplifiers/hlo_cse.cc` (layout-sensitive mode).

use std::collections::HashMap;

use super::{Pass, PassError};
use crate::front::hlo_text::literals_identical;
use crate::ir::{ComputationId, InstrId, Instruction, Module, Op, Opcode, Shape};

/// Constants with more elements than this are not compared.
pub const MAX_CONSTANT_ELEMENTS: usize = 1 << 16;

/// Common-subexpression elimination.
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            let replaced = find_duplicates(module, c);
            if replaced.is_empty() {
                continue;
            }
            let comp = &mut module.computations[c];
            comp.record_replacements(&replaced);
            if let Some(&r) = replaced.get(&comp.root) {
                comp.root = r;
            }
            let candidates: Vec<InstrId> = replaced.keys().copied().collect();
            comp.remove_unused_from(&candidates);
            changed = true;
        }
        Ok(changed)
    }
}

/// What an instruction is hashed by; equal keys are then checked with [`equivalent`].
#[derive(Hash, PartialEq, Eq)]
struct CseKey {
    opcode: Opcode,
    shape: Shape,
    /// Operands, sorted for commutative ops.
    operands: Vec<InstrId>,
    /// The printed value of a small constant (printing keeps `-0` and NaN apart from `0`;
    /// equal keys are still compared bit by bit).
    constant: Option<String>,
}

/// Walks computation `c` in order, rewriting operands to representatives as it goes, and
/// returns the map from each duplicate to the earlier instruction that replaces it.
fn find_duplicates(module: &mut Module, c: ComputationId) -> HashMap<InstrId, InstrId> {
    let mut replaced: HashMap<InstrId, InstrId> = HashMap::new();
    let mut representatives: HashMap<CseKey, Vec<InstrId>> = HashMap::new();
    for id in module.computations[c].order.clone() {
        let instr = &mut module.computations[c].instrs[id];
        for op in instr
            .operands
            .iter_mut()
            .chain(instr.control_predecessors.iter_mut())
        {
            if let Some(&r) = replaced.get(op) {
                *op = r;
            }
        }
        let instr = &module.computations[c].instrs[id];
        if !is_candidate(module, instr) {
            continue;
        }
        let key = cse_key(instr);
        let bucket = representatives.entry(key).or_default();
        let comp = &module.computations[c];
        match bucket
            .iter()
            .copied()
            .find(|&r| equivalent(module, &comp.instrs[r], instr))
        {
            Some(r) => {
                replaced.insert(id, r);
            }
            None => bucket.push(id),
        }
    }
    replaced
}

/// Instructions CSE may merge (see the module doc).
fn is_candidate(module: &Module, instr: &Instruction) -> bool {
    let no_operands_ok = match &instr.op {
        Op::Constant { literal } => literal
            .as_array()
            .is_some_and(|a| a.shape.element_count() <= MAX_CONSTANT_ELEMENTS),
        Op::Iota { .. } | Op::Plain(Opcode::ReplicaId | Opcode::PartitionId) => true,
        _ => false,
    };
    (no_operands_ok || !instr.operands.is_empty())
        && instr.control_predecessors.is_empty()
        && !matches!(instr.op, Op::Parameter { .. })
        && !module.has_side_effect(&instr.op)
}

/// The hash key of a candidate instruction.
fn cse_key(instr: &Instruction) -> CseKey {
    let mut operands = instr.operands.clone();
    if is_commutative(instr) {
        operands.sort();
    }
    let constant = match &instr.op {
        Op::Constant { literal } if literal.as_array().is_some_and(|a| a.data.len() <= 64) => {
            Some(literal.to_string())
        }
        _ => None,
    };
    CseKey {
        opcode: instr.opcode(),
        shape: instr.shape.clone(),
        operands,
        constant,
    }
}

/// Binary ops whose operands may be swapped without changing a single result bit.
fn is_commutative(instr: &Instruction) -> bool {
    let opcode = instr.opcode();
    let float = instr
        .shape
        .element_type()
        .is_some_and(|t| t.is_float() || t.is_complex());
    opcode.is_commutative()
        && instr.operands.len() == 2
        && !(float && matches!(opcode, Opcode::Maximum | Opcode::Minimum))
}

/// True if `a` and `b` (with equal keys) compute the same value: same attributes, bitwise
/// equal constants, structurally equal called computations.
fn equivalent(module: &Module, a: &Instruction, b: &Instruction) -> bool {
    a.raw_attributes == b.raw_attributes
        && a.backend_config == b.backend_config
        && ops_equal(module, &a.op, &b.op)
}

/// Op equality with constants compared bit by bit and called computations by structure.
fn ops_equal(module: &Module, a: &Op, b: &Op) -> bool {
    match (a, b) {
        (Op::Constant { literal: x }, Op::Constant { literal: y }) => literals_identical(x, y),
        // A custom call may carry a literal, whose `==` would say `-0 == 0`.
        (Op::CustomCall(x), Op::CustomCall(y)) if x.literal.is_some() || y.literal.is_some() => {
            false
        }
        _ => {
            let (ca, cb) = (a.called_computations(), b.called_computations());
            if ca.len() != cb.len()
                || !ca
                    .iter()
                    .zip(&cb)
                    .all(|(&x, &y)| computations_equal(module, x, y))
            {
                return false;
            }
            // Compare the rest with the callees made equal.
            let mut b = b.clone();
            for (slot, &x) in b.called_computations_mut().into_iter().zip(&ca) {
                *slot = x;
            }
            *a == b
        }
    }
}

/// True if two computations have the same instructions in the same order, with the same
/// operands and root (names and metadata aside).
fn computations_equal(module: &Module, x: ComputationId, y: ComputationId) -> bool {
    if x == y {
        return true;
    }
    let (cx, cy) = (&module.computations[x], &module.computations[y]);
    if cx.order.len() != cy.order.len() {
        return false;
    }
    let mut map: HashMap<InstrId, InstrId> = HashMap::new();
    for (&ix, &iy) in cx.order.iter().zip(&cy.order) {
        let (a, b) = (&cx.instrs[ix], &cy.instrs[iy]);
        let operands_match = a.operands.len() == b.operands.len()
            && a.operands
                .iter()
                .zip(&b.operands)
                .all(|(oa, ob)| map.get(oa) == Some(ob));
        if !operands_match
            || a.shape != b.shape
            || !a.control_predecessors.is_empty()
            || !b.control_predecessors.is_empty()
            || !equivalent(module, a, b)
        {
            return false;
        }
        map.insert(ix, iy);
    }
    map.get(&cx.root) == Some(&cy.root)
}

#[cfg(test)]
mod tests;
