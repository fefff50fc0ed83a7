//! `constant_folding`: evaluates instructions whose operands are constants, at compile
//! time, with the reference interpreter, and replaces them by constants.
//!
//! Which instructions (XLA's rules, `HloConstantFolding::Run` and `IsFoldable`):
//! - at least one operand is a `constant`, and every operand is a `constant`, a
//!   `broadcast` of a constant, or an `iota` (XLA does not fold an op whose operands are
//!   all broadcasts: algsimp turns `op(broadcast(c))` into `broadcast(op(c))` first);
//! - not a parameter, constant or tuple, and not a `broadcast` or `iota` itself (that
//!   would turn a cheap op into a large literal), not `fft`, not `while` (XLA's default
//!   level skips loops), not a `custom-call`, not `rng`/`after-all` or anything with a
//!   side effect, not `pad(broadcast, constant)`, and no instruction with control
//!   predecessors. A called computation (a reducer, a `call`ed body) must not contain any
//!   of rng, after-all, custom-call, while, fft or side effects either;
//! - the result is an array of an executable type, and not larger than
//!   [`MAX_NEW_ELEMENTS`] unless the constant operands already hold as many elements (so
//!   folding never adds more than that many constant elements per instruction; XLA's own
//!   limit is 45M elements, far above what a learner's program should carry as data);
//! - the interpreter can run it; an evaluation error just means "not folded".
//!
//! Folding evaluates with the reference interpreter as XLA folds with its HloEvaluator:
//! denormals are kept (`flush_denormals: false`), although XLA:CPU's compiled kernels flush
//! them. So a denormal computed from constants alone survives into the result as it does
//! on XLA:CPU (`jnp.spacing` of a bf16 zero is the denormal 9.18e-41, not 0), and such a
//! program's optimized result may differ from the interpreter's run of the unoptimized
//! module, exactly where XLA:CPU's differs from its own runtime arithmetic. Computations
//! called by fusions are not visited. The folded instruction, and operands it leaves
//! unused, are removed as in XLA.
//!
//! XLA: `xla/hlo/transforms/simplifiers/hlo_constant_folding.cc`.

use std::collections::HashSet;

use super::{Pass, PassError};
use crate::eval::{EvalOptions, Evaluator, interprets};
use crate::ir::{
    Computation, ComputationId, InstrId, Instruction, Literal, Module, Op, Opcode, Shape,
};

/// Largest result (in elements) a fold may create beyond the size of its constant operands.
pub const MAX_NEW_ELEMENTS: usize = 1024;

/// Constant folding with the reference interpreter.
pub struct ConstantFolding;

impl Pass for ConstantFolding {
    fn name(&self) -> &'static str {
        "constant_folding"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let fused: HashSet<ComputationId> = fusion_computations(module);
        // One computation outside the module's order, rewritten for each evaluation: the
        // interpreter runs computations of a module, and this one is never printed.
        let mut scratch: Option<ComputationId> = None;
        let mut changed = false;
        for c in module.order.clone() {
            if fused.contains(&c) {
                continue;
            }
            for id in module.computations[c].order.clone() {
                if !is_foldable(module, &module.computations[c], id) {
                    continue;
                }
                let Some(literal) = evaluate(module, c, id, &mut scratch) else {
                    continue;
                };
                let comp = &mut module.computations[c];
                let shape = comp.instrs[id].shape.clone();
                let constant =
                    Instruction::new("constant", shape, Op::Constant { literal }, vec![]);
                let new = comp.insert_before(id, constant);
                comp.replace_all_uses(id, new);
                comp.remove_unused_from(&[id]);
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// Computations that fusion instructions call.
fn fusion_computations(module: &Module) -> HashSet<ComputationId> {
    module
        .order
        .iter()
        .flat_map(|&c| module.computations[c].iter())
        .filter_map(|(_, i)| match i.op {
            Op::Fusion { calls, .. } => Some(calls),
            _ => None,
        })
        .collect()
}

/// XLA's operand rule and `IsFoldable`, with xlac's size limit (see the module doc).
fn is_foldable(module: &Module, comp: &Computation, id: InstrId) -> bool {
    let instr = &comp.instrs[id];
    let opcode = instr.opcode();
    if matches!(
        opcode,
        Opcode::Parameter
            | Opcode::Constant
            | Opcode::Tuple
            | Opcode::Broadcast
            | Opcode::Iota
            | Opcode::Fft
            | Opcode::While
    ) || is_illegal(&instr.op)
        || !instr.control_predecessors.is_empty()
        || !interprets(opcode)
    {
        return false;
    }
    let Shape::Array(result) = &instr.shape else {
        return false;
    };
    if !result.element_type.is_executable() {
        return false;
    }
    // Operands: constants, broadcasts of constants, iotas; at least one constant.
    let is_constant = |o: InstrId| matches!(comp.instrs[o].op, Op::Constant { .. });
    let mut any_constant = false;
    let mut constant_elements = 0usize;
    for &o in &instr.operands {
        let operand = &comp.instrs[o];
        match operand.op {
            Op::Constant { .. } => {
                any_constant = true;
                constant_elements += operand.shape.as_array().map_or(0, |a| a.element_count());
            }
            Op::Broadcast { .. } if is_constant(operand.operands[0]) => {}
            Op::Iota { .. } => {}
            _ => return false,
        }
    }
    if !any_constant {
        return false;
    }
    if opcode == Opcode::Pad && matches!(comp.instrs[instr.operands[0]].op, Op::Broadcast { .. }) {
        return false;
    }
    if result.element_count() > MAX_NEW_ELEMENTS.max(constant_elements) {
        return false;
    }
    instr
        .op
        .called_computations()
        .into_iter()
        .all(|c| computation_is_foldable(module, c))
}

/// Ops that must never be folded, nor appear inside a folded instruction's callees.
fn is_illegal(op: &Op) -> bool {
    op.has_side_effect()
        || matches!(
            op.opcode(),
            Opcode::Rng | Opcode::AfterAll | Opcode::CustomCall | Opcode::While | Opcode::Fft
        )
}

/// True if nothing in computation `c` or its callees is illegal to fold.
fn computation_is_foldable(module: &Module, c: ComputationId) -> bool {
    module.computations[c].iter().all(|(_, i)| {
        !is_illegal(&i.op)
            && i.op
                .called_computations()
                .into_iter()
                .all(|callee| computation_is_foldable(module, callee))
    })
}

/// Evaluates instruction `id` of computation `c` (whose operands are constants,
/// broadcasts of constants or iotas) in a scratch computation. Returns the value in the
/// instruction's layout, or `None` if the interpreter cannot run it.
fn evaluate(
    module: &mut Module,
    c: ComputationId,
    id: InstrId,
    scratch: &mut Option<ComputationId>,
) -> Option<Literal> {
    let comp = &module.computations[c];
    let instr = &comp.instrs[id];
    let mut slice = Computation::new("constant_folding_scratch");
    let mut operands = Vec::new();
    for &o in &instr.operands {
        let operand = &comp.instrs[o];
        let mut copy = operand.clone();
        copy.control_predecessors.clear();
        if let Op::Broadcast { .. } = operand.op {
            let mut source = comp.instrs[operand.operands[0]].clone();
            source.control_predecessors.clear();
            copy.operands = vec![slice.push(source)];
        }
        operands.push(slice.push(copy));
    }
    let mut folded = instr.clone();
    folded.operands = operands;
    slice.root = slice.push(folded);
    let shape = instr.shape.clone();
    let scratch_id = match *scratch {
        Some(s) => {
            module.computations[s] = slice;
            s
        }
        None => {
            let s = module.computations.push(slice);
            *scratch = Some(s);
            s
        }
    };
    let options = EvalOptions {
        flush_denormals: false,
        ..EvalOptions::default()
    };
    let mut evaluator = Evaluator::new(module, options);
    let value = evaluator.call(scratch_id, &[]).ok()?;
    let (Literal::Array(value), Shape::Array(shape)) = (value, shape) else {
        return None;
    };
    if !value.shape.compatible(&shape) {
        return None;
    }
    let mut value = value.with_layout(&shape.layout);
    value.shape = shape;
    Some(Literal::Array(value))
}

#[cfg(test)]
mod tests;
