//! `algsimp`: the algebraic simplifier. It rewrites one instruction at a time into a
//! cheaper equal one (`add(x, 0) => x`, `reshape(reshape(x)) => reshape(x)`, a dot with no
//! contracting dimensions => a multiply of broadcasts) and leaves the dead instructions
//! to `dce`, which runs after it in the same fixed-point loop.
//!
//! Two modes, as in XLA: [`AlgebraicSimplifier::new`] runs before layout assignment
//! (layout-*insensitive*) and never turns a reshape or transpose into a `bitcast`;
//! [`AlgebraicSimplifier::layout_sensitive`] runs once layouts are fixed and does, where no
//! byte moves ([`bitcast`]). It does not fold
//! constants (`constant_folding` does) and it has none of XLA's fast-math rules, its
//! reassociations, or its rewrites that trade one op for several (`A / B => A * (1 / B)`).
//!
//! Each rule is exactly as safe as XLA's: where XLA checks an element type (`x * 0 => 0`
//! only for integers, because `NaN * 0` is NaN) so does xlac. Where XLA accepts a known
//! difference, xlac accepts it too and the rule's doc says so (`add(x, 0) => x` turns
//! `-0 + 0 = +0` into `-0`, as XLA does). One deliberate difference: XLA's
//! layout-insensitive mode replaces an instruction with an operand whose shape is equal
//! *ignoring layouts*; xlac requires the layouts to be equal too, because it keeps the
//! layouts printed in the text and a changed root layout would change the entry layout.
//!
//! The rules live in topic files, each rule a small function whose doc line is its
//! algebra: [`arithmetic`], [`compare`], [`select`], [`broadcast`] (broadcast, reshape and
//! transpose chains), [`slice`] (slice, pad, concatenate, dynamic-slice), [`convert`],
//! [`dot`], [`reduce`] and [`transcendental`] (`exp`, `log`, `pow`, `sqrt`). [`matchers`] holds what several files share (XLA's `IsAll`
//! and `MakeScalarLike`). This file is the loop over instructions and the dispatch; the
//! tests are in `tests/`, one file per topic file, beside the whole-corpus check.
//!
//! XLA: `xla/hlo/transforms/simplifiers/algebraic_simplifier.cc`, with the options
//! XLA:CPU sets in `cpu_compiler.cc` (no dot strength reduction, no NaN-propagating
//! min/max assumptions).

mod arithmetic;
mod bitcast;
mod broadcast;
mod compare;
mod convert;
mod dot;
mod matchers;
mod reduce;
mod select;
mod slice;
#[cfg(test)]
mod tests;
mod transcendental;

use std::collections::BTreeMap;

use super::{Pass, PassError};
use crate::ir::{Computation, InstrId, Instruction, Module, Op, Opcode, Shape};

/// The algebraic simplifier. Counts how often each rule fired, for reports and tests.
#[derive(Default)]
pub struct AlgebraicSimplifier {
    fired: BTreeMap<&'static str, usize>,
    layout_sensitive: bool,
}

impl AlgebraicSimplifier {
    /// A simplifier with no rule fired yet.
    pub fn new() -> AlgebraicSimplifier {
        AlgebraicSimplifier::default()
    }

    /// The layout-sensitive simplifier (XLA's `is_layout_sensitive`): layouts are final, so
    /// reshapes and transposes that move no byte become bitcasts.
    pub fn layout_sensitive() -> AlgebraicSimplifier {
        AlgebraicSimplifier {
            layout_sensitive: true,
            ..AlgebraicSimplifier::default()
        }
    }

    /// How many times each rule has fired over every `run`, by the rule's algebra.
    pub fn fired(&self) -> &BTreeMap<&'static str, usize> {
        &self.fired
    }
}

impl Pass for AlgebraicSimplifier {
    fn name(&self) -> &'static str {
        "algsimp"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            changed |= self.simplify_computation(&mut module.computations[c]);
        }
        Ok(changed)
    }
}

impl AlgebraicSimplifier {
    /// One sweep over the instructions in order; instructions a rewrite creates are
    /// looked at in the next round of the fixed-point loop, as in XLA.
    fn simplify_computation(&mut self, comp: &mut Computation) -> bool {
        let mut changed = false;
        let users = comp.users();
        for id in comp.order.clone() {
            if !should_visit(comp, &users[id], id) {
                continue;
            }
            let rewrite = simplify(comp, id).or_else(|| match self.layout_sensitive {
                true => simplify_layout_sensitive(comp, id),
                false => None,
            });
            if let Some(rewrite) = rewrite {
                apply(comp, id, rewrite.action);
                *self.fired.entry(rewrite.rule).or_default() += 1;
                changed = true;
            }
        }
        changed
    }
}

/// Whether to look at an instruction at all. Dead ones are `dce`'s job. Like XLA's
/// `ReplaceInstructionIfCompatible`, instructions with control predecessors are left
/// alone: the edge may be there to keep an order.
fn should_visit(comp: &Computation, users: &[InstrId], id: InstrId) -> bool {
    let instr = comp.instr(id);
    (!users.is_empty() || comp.root == id) && instr.control_predecessors.is_empty()
}

/// Dispatch by opcode to the topic files; each tries its rules in XLA's order.
fn simplify(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    use Opcode::*;
    match comp.instr(id).opcode() {
        Add => arithmetic::simplify_add(comp, id),
        Subtract => arithmetic::simplify_subtract(comp, id),
        Multiply => arithmetic::simplify_multiply(comp, id),
        Divide => arithmetic::simplify_divide(comp, id),
        Negate => arithmetic::simplify_negate(comp, id),
        Not => arithmetic::simplify_not(comp, id),
        And => arithmetic::simplify_and(comp, id),
        Or => arithmetic::simplify_or(comp, id),
        Xor => arithmetic::simplify_xor(comp, id),
        Maximum | Minimum => arithmetic::simplify_min_max(comp, id),
        Power => arithmetic::simplify_power(comp, id),
        Log => transcendental::simplify_log(comp, id),
        Compare => compare::simplify_compare(comp, id),
        Select => select::simplify_select(comp, id),
        Broadcast => broadcast::simplify_broadcast(comp, id),
        Reshape => broadcast::simplify_reshape(comp, id),
        Transpose => broadcast::simplify_transpose(comp, id),
        Slice => slice::simplify_slice(comp, id),
        Concatenate => slice::simplify_concatenate(comp, id),
        Pad => slice::simplify_pad(comp, id),
        DynamicSlice => slice::simplify_dynamic_slice(comp, id),
        Convert => convert::simplify_convert(comp, id),
        Dot => dot::simplify_dot(comp, id),
        Reduce => reduce::simplify_reduce(comp, id),
        _ => None,
    }
}

/// The rules that need final layouts.
fn simplify_layout_sensitive(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    match comp.instr(id).opcode() {
        Opcode::Reshape => bitcast::reshape_to_bitcast(comp, id),
        Opcode::Transpose => bitcast::transpose_to_bitcast(comp, id),
        _ => None,
    }
}

/// What a rule decided: its name (its algebra) and the replacement.
pub(super) struct Rewrite {
    /// The rule's algebra, e.g. `add(x, 0) => x`.
    pub rule: &'static str,
    /// What replaces the instruction.
    pub action: Action,
}

/// The replacement of an instruction.
pub(super) enum Action {
    /// Every use moves to an instruction that already exists (with the same shape).
    Use(InstrId),
    /// New instructions, inserted before the old one in this order; the last one
    /// (whose shape is the old one's) takes over every use.
    Build(Vec<NewInstr>),
}

/// An instruction a rule wants created.
pub(super) struct NewInstr {
    /// Its shape.
    pub shape: Shape,
    /// What it computes.
    pub op: Op,
    /// Its operands.
    pub operands: Vec<Value>,
}

/// An operand of a new instruction: an existing instruction or an earlier new one.
#[derive(Copy, Clone)]
pub(super) enum Value {
    /// An instruction of the computation.
    Old(InstrId),
    /// The n-th instruction of the same [`Action::Build`].
    New(usize),
}

impl Rewrite {
    /// Replaces `old` with the existing `new`, if their shapes are equal, layouts included
    /// (XLA's `ReplaceInstructionIfCompatible`; see the module doc for the layouts).
    pub fn replace_with(
        comp: &Computation,
        old: InstrId,
        new: InstrId,
        rule: &'static str,
    ) -> Option<Rewrite> {
        (comp.instr(old).shape == comp.instr(new).shape).then_some(Rewrite {
            rule,
            action: Action::Use(new),
        })
    }

    /// Replaces the instruction with new ones (the last takes over its uses).
    pub fn build(rule: &'static str, instrs: Vec<NewInstr>) -> Option<Rewrite> {
        Some(Rewrite {
            rule,
            action: Action::Build(instrs),
        })
    }
}

impl NewInstr {
    /// A new instruction.
    pub fn new(shape: Shape, op: Op, operands: Vec<Value>) -> NewInstr {
        NewInstr {
            shape,
            op,
            operands,
        }
    }
}

/// Carries out a rewrite of `id`. New instructions get XLA-like names (`multiply`,
/// `broadcast.2`) and the old instruction's metadata, so provenance survives.
fn apply(comp: &mut Computation, id: InstrId, action: Action) {
    let replacement = match action {
        Action::Use(existing) => existing,
        Action::Build(instrs) => {
            let metadata = comp.instr(id).metadata.clone();
            let mut built: Vec<InstrId> = Vec::with_capacity(instrs.len());
            for new in instrs {
                let operands = new
                    .operands
                    .iter()
                    .map(|v| match *v {
                        Value::Old(i) => i,
                        Value::New(n) => built[n],
                    })
                    .collect();
                let name = new.op.opcode().name();
                let mut instr = Instruction::new(name, new.shape, new.op, operands);
                instr.metadata = metadata.clone();
                built.push(comp.insert_before(id, instr));
            }
            match built.last() {
                Some(&last) => last,
                None => return,
            }
        }
    };
    comp.replace_all_uses(id, replacement);
}
