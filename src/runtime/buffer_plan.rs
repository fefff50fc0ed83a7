//! The runtime's view of a buffer plan: for every array leaf of every instruction of every
//! non-fused computation, the slice it lives in, plus the allocations' sizes and kinds.
//!
//! It is read out of a [`BufferAssignment`] once, when the executable is built, so the
//! thunk emitter asks a plain map. [`Plan::one_buffer_per_value`] makes the simplest correct
//! plan (nothing shared, every alias resolved by a copy): the runtime's unit tests use it to
//! exercise the thunks without buffer assignment, and it documents the minimum the runtime
//! needs from a plan. XLA: `BufferAssignment::GetUniqueSlice` as `ThunkEmitter` uses it.

use std::collections::HashMap;

use crate::ir::{ComputationId, InstrId, Module, Op, Shape, ShapeIndex};
use crate::layout::{AllocationKind, BufferAssignment, Slice};

/// One allocation as the runtime needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationInfo {
    /// Bytes.
    pub size: usize,
    /// Why it exists (parameters are bound per run, constants filled once).
    pub kind: AllocationKind,
    /// Holds (part of) the entry result: a parameter allocation that is also an output
    /// gets written, so it is never bound to the caller's literal.
    pub maybe_live_out: bool,
}

/// Slices of every array leaf of the non-fused computations.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Every allocation, by index.
    pub allocations: Vec<AllocationInfo>,
    slices: HashMap<(ComputationId, InstrId, ShapeIndex), Slice>,
}

impl Plan {
    /// Reads the slices of every array leaf of the computations the runtime runs.
    pub fn from_assignment(module: &Module, buffers: &BufferAssignment) -> Plan {
        let allocations = buffers
            .allocations
            .iter()
            .map(|a| AllocationInfo {
                size: a.size,
                kind: a.kind.clone(),
                maybe_live_out: a.maybe_live_out,
            })
            .collect();
        let mut slices = HashMap::new();
        for comp in executed_computations(module) {
            for (id, instr) in module.computations[comp].iter() {
                for index in leaf_indices(&instr.shape) {
                    if let Some(s) = buffers.slice(comp, id, &index) {
                        slices.insert((comp, id, index), s);
                    }
                }
            }
        }
        Plan {
            allocations,
            slices,
        }
    }

    /// The simplest correct plan: every array leaf of every instruction gets an allocation
    /// of its own (entry parameters `Parameter`, constants `Constant`, the rest `Temp`).
    /// Nothing aliases, so the runtime resolves every alias (tuple, get-tuple-element,
    /// bitcast, loop state) by copying.
    pub fn one_buffer_per_value(module: &Module) -> Plan {
        let mut plan = Plan::default();
        for comp in executed_computations(module) {
            for (id, instr) in module.computations[comp].iter() {
                for index in leaf_indices(&instr.shape) {
                    let Some(Shape::Array(a)) = instr.shape.subshape(&index) else {
                        continue;
                    };
                    let kind = match instr.op {
                        Op::Parameter { number } if comp == module.entry => {
                            AllocationKind::Parameter {
                                number,
                                shape_index: index.clone(),
                            }
                        }
                        Op::Constant { .. } => AllocationKind::Constant,
                        _ => AllocationKind::Temp,
                    };
                    let size = a.byte_size();
                    plan.slices.insert(
                        (comp, id, index),
                        Slice {
                            allocation: plan.allocations.len(),
                            offset: 0,
                            size,
                        },
                    );
                    plan.allocations.push(AllocationInfo {
                        size,
                        kind,
                        maybe_live_out: false,
                    });
                }
            }
        }
        plan
    }

    /// Where leaf `index` of `instr` lives.
    pub fn slice(&self, comp: ComputationId, instr: InstrId, index: &[usize]) -> Option<Slice> {
        self.slices.get(&(comp, instr, index.to_vec())).copied()
    }
}

/// The computations that run as thunk sequences: the entry and, transitively, the bodies,
/// conditions and branches of `while`, `conditional` and `call`. (Fused computations become
/// kernels; reducers and comparators are part of the op that calls them.)
pub fn executed_computations(module: &Module) -> Vec<ComputationId> {
    let mut out = vec![module.entry];
    let mut i = 0;
    while i < out.len() {
        let comp = &module.computations[out[i]];
        for (_, instr) in comp.iter() {
            let callees = match &instr.op {
                Op::While { condition, body } => vec![*condition, *body],
                Op::Conditional {
                    branch_computations,
                } => branch_computations.clone(),
                Op::Call { to_apply } => vec![*to_apply],
                _ => Vec::new(),
            };
            for c in callees {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        i += 1;
    }
    out
}

/// The shape indices of the array leaves of `shape`, depth-first (tokens have none).
pub fn leaf_indices(shape: &Shape) -> Vec<ShapeIndex> {
    fn walk(s: &Shape, prefix: &mut ShapeIndex, out: &mut Vec<ShapeIndex>) {
        match s {
            Shape::Array(_) => out.push(prefix.clone()),
            Shape::Tuple(t) => {
                for (i, e) in t.iter().enumerate() {
                    prefix.push(i);
                    walk(e, prefix, out);
                    prefix.pop();
                }
            }
            Shape::Token | Shape::Opaque => {}
        }
    }
    let mut out = Vec::new();
    walk(shape, &mut Vec::new(), &mut out);
    out
}
