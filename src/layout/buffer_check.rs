//! A checker for buffer plans, independent of how the plan was made: it runs the module's
//! schedule symbolically over the plan's slices, writing a label for each value an
//! instruction defines into its bytes, and checks that every operand read finds the label
//! of the value the program means (so no value was overwritten while still live, and
//! forwarding ops really share bytes). While loops run their condition, body and
//! condition once; each conditional branch runs in turn. Used by tests on every testdata
//! model; not used by the compiler.

use std::collections::HashMap;

use super::alias_analysis::array_leaves;
use super::buffer_assignment::{BufferAssignment, Slice};
use crate::ir::{ComputationId, InstrId, Module, Op, Opcode, ShapeIndex};

/// What a byte range holds in the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Label {
    /// The value defined at this position.
    Value(ComputationId, InstrId, ShapeIndex),
    /// The state of this while loop (its leaf).
    WhileState(ComputationId, InstrId, ShapeIndex),
    /// The result of this conditional (its leaf).
    Result(ComputationId, InstrId, ShapeIndex),
}

struct Checker<'a> {
    module: &'a Module,
    plan: &'a BufferAssignment,
    /// Per allocation: the (offset, size, label) entries currently written.
    memory: HashMap<usize, Vec<(usize, usize, Label)>>,
    /// The instruction calling each global computation.
    caller: HashMap<ComputationId, (ComputationId, InstrId)>,
    problems: Vec<String>,
}

/// Checks a plan against `module`'s schedule; returns one line per problem.
pub fn check_buffer_assignment(module: &Module, plan: &BufferAssignment) -> Vec<String> {
    let mut caller = HashMap::new();
    for (c, cid) in super::alias_analysis::global_computations(module) {
        if let super::alias_analysis::Caller::Instruction(pc, pi) = cid {
            caller.insert(c, (pc, pi));
        }
    }
    let mut ch = Checker {
        module,
        plan,
        memory: HashMap::new(),
        caller,
        problems: Vec::new(),
    };
    let entry = module.entry;
    // Parameters and constants hold their values from the start.
    for (c, _) in super::alias_analysis::global_computations(module) {
        for (id, instr) in module.computations[c].iter() {
            let is_input = matches!(instr.op, Op::Constant { .. })
                || (c == entry && matches!(instr.op, Op::Parameter { .. }));
            if is_input {
                ch.define(c, id);
            }
        }
    }
    ch.run(entry);
    let root = module.computations[entry].root;
    ch.expect_leaves(entry, root, "the entry result");
    ch.problems
}

impl Checker<'_> {
    fn slice(&mut self, c: ComputationId, i: InstrId, index: &[usize]) -> Option<Slice> {
        let s = self.plan.slice(c, i, index);
        if s.is_none() {
            let name = &self.module.computations[c].instrs[i].name;
            self.problems
                .push(format!("{name}: no slice for leaf {index:?}"));
        }
        s
    }

    fn write(&mut self, s: Slice, label: Label) {
        let cells = self.memory.entry(s.allocation).or_default();
        cells.retain(|&(o, n, _)| o + n <= s.offset || s.offset + s.size <= o || n == 0);
        cells.push((s.offset, s.size, label));
    }

    fn holds(&self, s: Slice, label: &Label) -> bool {
        s.size == 0
            || self.memory.get(&s.allocation).is_some_and(|cells| {
                cells
                    .iter()
                    .any(|(o, n, l)| *o == s.offset && *n == s.size && l == label)
            })
    }

    /// Checks that every leaf of `(c, i)` holds the value it means.
    fn expect_leaves(&mut self, c: ComputationId, i: InstrId, reader: &str) {
        let shape = self.module.computations[c].instrs[i].shape.clone();
        for (index, _) in array_leaves(&shape) {
            let Some(s) = self.slice(c, i, &index) else {
                continue;
            };
            let want = self.logical(c, i, &index);
            if !self.holds(s, &want) {
                let name = &self.module.computations[c].instrs[i].name;
                self.problems.push(format!(
                    "{reader} reads {name}{index:?} at {s:?}, but it was overwritten"
                ));
            }
        }
    }

    /// Writes the label of every leaf `(c, i)` defines.
    fn define(&mut self, c: ComputationId, i: InstrId) {
        let shape = self.module.computations[c].instrs[i].shape.clone();
        for (index, _) in array_leaves(&shape) {
            if let Some(s) = self.slice(c, i, &index) {
                self.write(s, Label::Value(c, i, index));
            }
        }
    }

    /// Writes `label(leaf)` into every leaf slice of `(c, i)`.
    fn relabel(
        &mut self,
        c: ComputationId,
        i: InstrId,
        label: fn(ComputationId, InstrId, ShapeIndex) -> Label,
        owner: (ComputationId, InstrId),
    ) {
        let shape = self.module.computations[c].instrs[i].shape.clone();
        for (index, _) in array_leaves(&shape) {
            if let Some(s) = self.slice(c, i, &index) {
                self.write(s, label(owner.0, owner.1, index));
            }
        }
    }

    /// The value a position means, looking through forwarding ops.
    fn logical(&self, c: ComputationId, i: InstrId, index: &[usize]) -> Label {
        let comp = &self.module.computations[c];
        let instr = &comp.instrs[i];
        let ops = &instr.operands;
        match &instr.op {
            Op::Plain(Opcode::Bitcast) => self.logical(c, ops[0], &[]),
            Op::Plain(Opcode::OptimizationBarrier) | Op::Plain(Opcode::AddDependency) => {
                self.logical(c, ops[0], index)
            }
            Op::GetTupleElement { index: k } => {
                let mut inner = vec![*k];
                inner.extend(index);
                self.logical(c, ops[0], &inner)
            }
            Op::Plain(Opcode::Tuple) if !index.is_empty() => {
                self.logical(c, ops[index[0]], &index[1..])
            }
            Op::While { .. } => Label::WhileState(c, i, index.to_vec()),
            Op::Conditional { .. } => Label::Result(c, i, index.to_vec()),
            Op::Call { to_apply } => {
                let root = self.module.computations[*to_apply].root;
                self.logical(*to_apply, root, index)
            }
            Op::Parameter { number } if c != self.module.entry => {
                let Some(&(pc, pi)) = self.caller.get(&c) else {
                    return Label::Value(c, i, index.to_vec());
                };
                let call = &self.module.computations[pc].instrs[pi];
                match &call.op {
                    Op::While { .. } => Label::WhileState(pc, pi, index.to_vec()),
                    Op::Conditional { .. } => {
                        let k = self.branch_index(pc, pi, c);
                        self.logical(pc, call.operands[k + 1], index)
                    }
                    _ => self.logical(pc, call.operands[*number], index),
                }
            }
            _ => Label::Value(c, i, index.to_vec()),
        }
    }

    fn branch_index(&self, pc: ComputationId, pi: InstrId, c: ComputationId) -> usize {
        match &self.module.computations[pc].instrs[pi].op {
            Op::Conditional {
                branch_computations,
            } => branch_computations
                .iter()
                .position(|&b| b == c)
                .unwrap_or(0),
            _ => 0,
        }
    }

    fn run(&mut self, c: ComputationId) {
        let module = self.module;
        let comp = &module.computations[c];
        for &id in &comp.order {
            let instr = &comp.instrs[id];
            let name = instr.name.clone();
            // Forwarding ops read nothing: their users' reads are checked through them.
            let forwards = matches!(instr.op, Op::GetTupleElement { .. })
                || matches!(
                    instr.opcode(),
                    Opcode::Tuple
                        | Opcode::Bitcast
                        | Opcode::OptimizationBarrier
                        | Opcode::AddDependency
                );
            if !forwards {
                for &o in &instr.operands {
                    self.expect_leaves(c, o, &name);
                }
            }
            match &instr.op {
                Op::While { condition, body } => {
                    self.relabel(c, id, Label::WhileState, (c, id));
                    self.run(*condition);
                    self.run(*body);
                    let root = module.computations[*body].root;
                    self.expect_leaves(*body, root, &format!("{name} (body result)"));
                    self.relabel(c, id, Label::WhileState, (c, id));
                    self.run(*condition);
                }
                Op::Conditional {
                    branch_computations,
                } => {
                    for &b in branch_computations {
                        self.run(b);
                        let root = module.computations[b].root;
                        self.expect_leaves(b, root, &format!("{name} (branch result)"));
                    }
                    self.relabel(c, id, Label::Result, (c, id));
                }
                Op::Call { to_apply } => {
                    self.run(*to_apply);
                }
                Op::Parameter { .. } | Op::Constant { .. } => {}
                _ if forwards => {}
                _ => self.define(c, id),
            }
        }
    }
}
