//! Which values of a fused computation stay the same along the innermost loop that
//! evaluates them, so the kernel computes them once before that loop instead of once per
//! element. This is what makes a reduction broadcast back over its rows (softmax's row
//! maximum and sum, layernorm's mean and variance) cheap to fuse: the consumer reads each
//! reduced element once per row.
//!
//! The kernel's innermost loop runs along the output's physical minor dimension; a
//! reduction's loop runs along its reduced dimensions. A `broadcast` whose operand does not
//! depend on the dimensions that change in the loop evaluating it is *hoisted*: codegen
//! (`codegen/kernel/loops/hoist.rs`) emits its operand before the loop, and the loop body reuses it. The
//! fusion policy (`indexing.rs`, `cpu_fusion_policy.rs`) reads the same analysis, so what
//! the policy counts as "once per row" is exactly what the kernel computes once per row.
//!
//! Beyond XLA:CPU, which never fuses a reduction into a consumer that broadcasts it back;
//! XLA's GPU backend does the same thing with its softmax rewriter and row-reduction
//! emitters (`xla/service/gpu/transforms/softmax_rewriter_triton.cc`).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::{Computation, InstrId, Op, Opcode, Shape};

/// Per instruction of one fused computation: the dimensions of its index that change in
/// the innermost loop evaluating it, and the broadcasts computed once before their loop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopInvariance {
    varying: HashMap<InstrId, BTreeSet<usize>>,
    hoisted: HashSet<InstrId>,
}

impl LoopInvariance {
    /// The analysis of `body` (a fused computation, or a consumer seen as one).
    pub fn of(body: &Computation) -> LoopInvariance {
        let mut inv = LoopInvariance::default();
        let root = body.instr(body.root);
        if root.opcode() == Opcode::Tuple {
            // A multi-output fusion: every output is stored in the kernel's inner loop.
            for &o in &root.operands {
                inv.demand(o, minor_dims(&body.instr(o).shape));
            }
        } else {
            inv.demand(body.root, minor_dims(&root.shape));
        }
        for &id in body.order.iter().rev() {
            inv.propagate(body, id);
        }
        inv
    }

    /// Updates the analysis after `old` (a parameter of `body`) was replaced by `new`, an
    /// instruction whose operands are parameters: `new` has the users `old` had, so it is
    /// asked for what `old` was, and passes that on to its operands. Nothing above `new`
    /// changes (every rule reads only an instruction's users), so the result is the
    /// analysis of the edited body, without walking it.
    pub fn replace_parameter(&mut self, body: &Computation, old: InstrId, new: InstrId) {
        if let Some(v) = self.varying.remove(&old) {
            self.varying.insert(new, v);
        }
        self.propagate(body, new);
    }

    /// Passes what `id` is asked for on to its operands (all of `id`'s users are done).
    fn propagate(&mut self, body: &Computation, id: InstrId) {
        let inv = self;
        {
            let Some(v) = inv.varying.get(&id).cloned() else {
                return;
            };
            let instr = body.instr(id);
            match &instr.op {
                _ if id == body.root && instr.opcode() == Opcode::Tuple => {}
                Op::Broadcast { dimensions } => {
                    let operand = instr.operands[0];
                    let inner: BTreeSet<usize> = dimensions
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| v.contains(d))
                        .map(|(k, _)| k)
                        .collect();
                    if inner.is_empty() && body.instr(operand).shape.rank() > 0 {
                        inv.hoisted.insert(id);
                    }
                    inv.demand(operand, inner);
                }
                Op::Reduce { dimensions, .. } => {
                    // The reduction's own loop is innermost for its inputs.
                    let n = instr.operands.len() / 2;
                    for (k, &o) in instr.operands.iter().enumerate() {
                        let dims = if k < n {
                            dimensions.iter().copied().collect()
                        } else {
                            BTreeSet::new()
                        };
                        inv.demand(o, dims);
                    }
                }
                _ if same_index_elementwise(body, id) => {
                    for &o in &instr.operands {
                        let dims = if body.instr(o).shape.rank() == 0 {
                            BTreeSet::new()
                        } else {
                            v.clone()
                        };
                        inv.demand(o, dims);
                    }
                }
                _ if v.is_empty() => {
                    // Evaluated before the loop: so are its operands.
                    for &o in &instr.operands {
                        inv.demand(o, BTreeSet::new());
                    }
                }
                _ => {
                    // Index arithmetic this analysis does not follow: every dimension may
                    // change, so nothing below is hoisted on this path.
                    for &o in &instr.operands {
                        let all = (0..body.instr(o).shape.rank()).collect();
                        inv.demand(o, all);
                    }
                }
            }
        }
    }

    fn demand(&mut self, id: InstrId, dims: BTreeSet<usize>) {
        self.varying.entry(id).or_default().extend(dims);
    }

    /// True if broadcast `id` is computed once before its loop.
    pub fn is_hoisted(&self, id: InstrId) -> bool {
        self.hoisted.contains(&id)
    }

    /// The hoisted broadcasts.
    pub fn hoisted(&self) -> impl Iterator<Item = InstrId> + '_ {
        self.hoisted.iter().copied()
    }

    /// True if `id` is evaluated in every iteration of some innermost loop (its index
    /// changes there); false if it is only read before loops, once per row.
    pub fn varies(&self, id: InstrId) -> bool {
        self.varying.get(&id).is_some_and(|v| !v.is_empty())
    }
}

/// The dimensions the kernel's inner loop runs along for an output of `shape`: its
/// physical minor-most dimension.
fn minor_dims(shape: &Shape) -> BTreeSet<usize> {
    shape
        .as_array()
        .and_then(|a| a.layout.minor_to_major.first().copied())
        .into_iter()
        .collect()
}

/// An elementwise op whose array operands have its own dimensions: it reads every operand
/// at the index it was asked for, so the index values pass through unchanged (what lets
/// the kernel's cache find a hoisted value again inside the loop).
pub fn same_index_elementwise(body: &Computation, id: InstrId) -> bool {
    let instr = body.instr(id);
    instr.opcode().is_elementwise()
        && instr.shape.is_array()
        && instr.operands.iter().all(|&o| {
            let s = &body.instr(o).shape;
            s.rank() == 0 || s.dims() == instr.shape.dims()
        })
}

#[cfg(test)]
mod tests;
