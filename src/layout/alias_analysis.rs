//! Which array positions of a module must share one buffer. A *position* is one array leaf
//! `(computation, instruction, shape index)` of a computation that gets buffers (the entry
//! and the while/conditional/call computations it reaches, XLA's "global" computations).
//! Positions that hold the same bytes by construction are merged into one *buffer*:
//!
//! - `bitcast`, `get-tuple-element`, `tuple`, `opt-barrier` and `add-dependency` forward
//!   their operand's buffers (they move no data);
//! - a while's state shares one buffer per leaf: the init, the body parameter, the body
//!   root, the condition parameter and the while's result;
//! - a conditional's branch roots share with its result, each branch parameter with the
//!   matching operand;
//! - a call's parameters share with its operands, its root with its result.
//!
//! In-place updates (dynamic-update-slice) and `input_output_alias` are decided later by
//! buffer assignment, because they need liveness. This is not XLA's value-level dataflow
//! analysis: there are no phi values, and a while's state is one buffer by rule (copy
//! insertion has made that legal). XLA: `xla/service/hlo_alias_analysis.cc`,
//! `hlo_dataflow_analysis.cc`.

use std::collections::HashMap;

use super::buffer_assignment::BufferAssignmentError;
use crate::ir::{ComputationId, InstrId, Module, Op, Opcode, Shape, ShapeIndex};

/// One array leaf of one instruction of a global computation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The computation.
    pub computation: ComputationId,
    /// The instruction.
    pub instruction: InstrId,
    /// The leaf.
    pub index: ShapeIndex,
    /// Bytes of the leaf.
    pub size: usize,
}

/// Why a computation has buffers: who calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The entry computation: nobody.
    Entry,
    /// Called by this instruction of this computation (while, conditional, call).
    Instruction(ComputationId, InstrId),
}

/// Positions and the buffers they form (a union-find over positions).
#[derive(Clone, Debug, Default)]
pub struct AliasAnalysis {
    /// Every position, in computation post-order, then instruction order, then leaf order.
    pub positions: Vec<Position>,
    /// Position number of each `(computation, instruction, index)`.
    pub index_of: HashMap<(ComputationId, InstrId, ShapeIndex), usize>,
    /// The global computations in the order they were found (entry first), with their caller.
    pub computations: Vec<(ComputationId, Caller)>,
    parent: Vec<usize>,
}

impl AliasAnalysis {
    /// Collects the positions of `module` and merges those that must share a buffer.
    pub fn run(module: &Module) -> Result<AliasAnalysis, BufferAssignmentError> {
        let mut a = AliasAnalysis {
            computations: global_computations(module),
            ..AliasAnalysis::default()
        };
        for &(c, _) in &a.computations {
            for (id, instr) in module.computations[c].iter() {
                for (index, size) in array_leaves(&instr.shape) {
                    let n = a.positions.len();
                    a.index_of.insert((c, id, index.clone()), n);
                    a.positions.push(Position {
                        computation: c,
                        instruction: id,
                        index,
                        size,
                    });
                    a.parent.push(n);
                }
            }
        }
        for (c, _) in a.computations.clone() {
            a.merge_forwarded(module, c)?;
        }
        Ok(a)
    }

    /// The position number of a leaf, if it has one.
    pub fn position(&self, c: ComputationId, i: InstrId, index: &[usize]) -> Option<usize> {
        self.index_of.get(&(c, i, index.to_vec())).copied()
    }

    /// The buffer (representative position) a position belongs to.
    pub fn buffer_of(&self, mut p: usize) -> usize {
        while self.parent[p] != p {
            p = self.parent[p];
        }
        p
    }

    /// Merges the buffers of two positions; returns the new representative.
    pub fn union(&mut self, a: usize, b: usize) -> usize {
        let (ra, rb) = (self.buffer_of(a), self.buffer_of(b));
        if ra != rb {
            // The smaller number stays representative so buffer order is deterministic.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
            lo
        } else {
            ra
        }
    }

    /// Merges every leaf of `(c1, i1)` below `prefix1` with the same leaf of `(c2, i2)`
    /// below `prefix2` (the two shapes must agree below the prefixes).
    fn union_subtree(
        &mut self,
        module: &Module,
        (c1, i1, prefix1): (ComputationId, InstrId, &[usize]),
        (c2, i2, prefix2): (ComputationId, InstrId, &[usize]),
    ) -> Result<(), BufferAssignmentError> {
        let instr = &module.computations[c1].instrs[i1];
        let Some(shape) = instr.shape.subshape(prefix1) else {
            return Err(BufferAssignmentError::Mismatch {
                instruction: instr.name.clone(),
                index: prefix1.to_vec(),
                counterpart: None,
            });
        };
        for (suffix, _) in array_leaves(shape) {
            let mut a_index = prefix1.to_vec();
            a_index.extend(&suffix);
            let mut b_index = prefix2.to_vec();
            b_index.extend(&suffix);
            match (
                self.position(c1, i1, &a_index),
                self.position(c2, i2, &b_index),
            ) {
                (Some(a), Some(b)) => {
                    self.union(a, b);
                }
                _ => {
                    return Err(BufferAssignmentError::Mismatch {
                        instruction: instr.name.clone(),
                        index: a_index,
                        counterpart: Some(module.computations[c2].instrs[i2].name.clone()),
                    });
                }
            }
        }
        Ok(())
    }

    fn merge_forwarded(
        &mut self,
        module: &Module,
        c: ComputationId,
    ) -> Result<(), BufferAssignmentError> {
        let comp = &module.computations[c];
        for (id, instr) in comp.iter() {
            match &instr.op {
                Op::Plain(Opcode::Bitcast)
                | Op::Plain(Opcode::OptimizationBarrier)
                | Op::Plain(Opcode::AddDependency) => {
                    let Some(&x) = instr.operands.first() else {
                        continue;
                    };
                    if !comp.instrs[x].shape.is_tuple() && instr.shape.is_tuple() {
                        continue;
                    }
                    // A bitcast may change the element type (same bytes): merge leaf `{}`.
                    if instr.opcode() == Opcode::Bitcast {
                        if let (Some(a), Some(b)) =
                            (self.position(c, id, &[]), self.position(c, x, &[]))
                        {
                            self.union(a, b);
                        }
                    } else {
                        self.union_subtree(module, (c, id, &[]), (c, x, &[]))?;
                    }
                }
                Op::GetTupleElement { index } => {
                    let x = instr.operands[0];
                    self.union_subtree(module, (c, id, &[]), (c, x, &[*index]))?;
                }
                Op::Plain(Opcode::Tuple) => {
                    for (k, &x) in instr.operands.iter().enumerate() {
                        self.union_subtree(module, (c, id, &[k]), (c, x, &[]))?;
                    }
                }
                Op::While { condition, body } => {
                    let init = instr.operands[0];
                    self.union_subtree(module, (c, id, &[]), (c, init, &[]))?;
                    for &callee in &[*condition, *body] {
                        let callee_comp = &module.computations[callee];
                        if let Some(&p) = callee_comp.parameters().first() {
                            self.union_subtree(module, (c, id, &[]), (callee, p, &[]))?;
                        }
                    }
                    let body_root = module.computations[*body].root;
                    self.union_subtree(module, (c, id, &[]), (*body, body_root, &[]))?;
                }
                Op::Conditional {
                    branch_computations,
                } => {
                    for (k, &branch) in branch_computations.iter().enumerate() {
                        let bc = &module.computations[branch];
                        self.union_subtree(module, (c, id, &[]), (branch, bc.root, &[]))?;
                        if let (Some(&p), Some(&x)) =
                            (bc.parameters().first(), instr.operands.get(k + 1))
                        {
                            self.union_subtree(module, (branch, p, &[]), (c, x, &[]))?;
                        }
                    }
                }
                Op::Call { to_apply } => {
                    let callee = &module.computations[*to_apply];
                    self.union_subtree(module, (c, id, &[]), (*to_apply, callee.root, &[]))?;
                    for (p, &x) in callee.parameters().iter().zip(&instr.operands) {
                        self.union_subtree(module, (*to_apply, *p, &[]), (c, x, &[]))?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The array leaves of a shape with their byte sizes, depth-first.
pub fn array_leaves(shape: &Shape) -> Vec<(ShapeIndex, usize)> {
    fn walk(s: &Shape, index: &mut ShapeIndex, out: &mut Vec<(ShapeIndex, usize)>) {
        match s {
            Shape::Array(a) => out.push((index.clone(), a.byte_size())),
            Shape::Tuple(t) => {
                for (k, e) in t.iter().enumerate() {
                    index.push(k);
                    walk(e, index, out);
                    index.pop();
                }
            }
            Shape::Token | Shape::Opaque => {}
        }
    }
    let mut out = Vec::new();
    walk(shape, &mut Vec::new(), &mut out);
    out
}

/// The computations that get buffers: the entry and, transitively, the computations of its
/// while loops, conditionals and calls (entry first). Fused computations and embedded
/// scalar computations (reducers, comparators) run inside one kernel and get none.
pub fn global_computations(module: &Module) -> Vec<(ComputationId, Caller)> {
    let mut out = vec![(module.entry, Caller::Entry)];
    let mut k = 0;
    while k < out.len() {
        let c = out[k].0;
        for (id, instr) in module.computations[c].iter() {
            let callees: Vec<ComputationId> = match &instr.op {
                Op::While { condition, body } => vec![*condition, *body],
                Op::Conditional {
                    branch_computations,
                } => branch_computations.clone(),
                Op::Call { to_apply } => vec![*to_apply],
                _ => Vec::new(),
            };
            for callee in callees {
                if !out.iter().any(|&(x, _)| x == callee) {
                    out.push((callee, Caller::Instruction(c, id)));
                }
            }
        }
        k += 1;
    }
    out
}

/// `{}` or `{1,0}`, as XLA prints a `ShapeIndex`.
pub fn index_string(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
    format!("{{{}}}", parts.join(","))
}
