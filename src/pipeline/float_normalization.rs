//! `float-normalization-bf16`: makes every op that XLA:CPU cannot compute in a low-precision
//! float type (bf16) compute in a wider one (f32), with converts around it:
//! `bf16 add(a, b)` becomes `convert(add(convert(a), convert(b)))`.
//! XLA: `xla/hlo/transforms/simplifiers/float_normalization.cc`, with the support table of
//! `xla/service/float_support.cc` (`FloatSupport`), as `cpu_compiler.cc` runs it.
//!
//! What XLA:CPU supports natively in bf16 (plain `FloatSupport`, which `CpuFloatSupport`
//! extends only for dots handed to a library): nothing but plumbing. `tuple`,
//! `get-tuple-element`, `call`, `while`, `conditional`, `custom-call`, `opt-barrier` pass
//! bf16 values through, and `convert` from or to bf16 is the conversion itself. Every
//! other op with a bf16 operand or result is rewritten, data movement included
//! (`slice`, `broadcast`, `reshape` run in f32 too: XLA:CPU's own `xla_opt.hlo` for
//! `testdata/bf16_mixed` shows `slice` between two converts).
//!
//! The rewrite per instruction, as `FloatNormalizationVisitor::HandleInstruction` does it:
//! 1. each bf16 operand is replaced by `convert(operand)` to f32;
//! 2. a bf16 result becomes f32 and a `convert` back to bf16 feeds the old users (for a
//!    tuple result: `get-tuple-element`s, converts and a new `tuple`);
//! 3. a called computation with bf16 parameters or result (a reducer, a comparator, a
//!    scatter combiner) is cloned; the clone takes and returns f32, converting to bf16 at
//!    its parameters and back at its root, and is itself normalized later in the same run.
//!
//! Results: the interpreter computes each bf16 op in f32 and rounds once, so steps 1-2 are
//! exact for elementwise ops, data movement, `compare` and `dot` (which accumulates in f32
//! and rounds once either way). For `reduce`, step 3 keeps the per-step bf16 rounding of
//! the reducer (each `add` still rounds to bf16), which is what XLA:CPU executes; the
//! interpreter's original bf16 `reduce` with an `add` reducer instead sums in f64 and
//! rounds once (an HloEvaluator shortcut), so there the results differ by bf16 rounding
//! and the test uses a tolerance.
//!
//! Excess precision, as XLA's `xla_allow_excess_precision` (on by default) does it in this
//! pass: when a rewritten result's user is a `convert` back to f32, that user reads the f32
//! result directly, so the bf16 rounding in between is skipped (`(bf16(x) * bf16(y))` then
//! `convert` to f32 keeps the f32 product, as XLA:CPU computes it). Only the round trips
//! this pass would create are dropped: a `convert(convert(x, bf16), f32)` written in the
//! program still rounds. The reference interpreter rounds every bf16 op, so there the
//! results differ by one bf16 rounding. Collectives are kept as they
//! are (xlac keeps their attributes verbatim); the reducing ones were moved to f32 by
//! `all-reduce-promotion` just before this pass, and the others only move data. f16 is NOT normalized on CPU:
//! `cpu_compiler.cc` has no `FloatNormalization` for f16 (its f16 elementwise ops stay f16,
//! see `testdata/f16_mixed/xla_opt.hlo`; f16 dots go through `ChangeOpDataType`). The pass
//! can still be built for f16 with [`FloatNormalization::new`].

use std::collections::{HashMap, VecDeque};

use super::{Pass, PassError};
use crate::ir::{
    Computation, ComputationId, InstrId, Instruction, Module, Op, Opcode, PrimitiveType, Shape,
};

/// Moves arithmetic off a low-precision float type onto a wider one.
pub struct FloatNormalization {
    low: PrimitiveType,
    high: PrimitiveType,
}

impl FloatNormalization {
    /// Normalizes `low` to `high` (XLA's `FloatSupport(low, high)`).
    pub fn new(low: PrimitiveType, high: PrimitiveType) -> FloatNormalization {
        FloatNormalization { low, high }
    }

    /// bf16 computed in f32, the instance `cpu_compiler.cc` runs.
    pub fn bf16() -> FloatNormalization {
        FloatNormalization::new(PrimitiveType::BF16, PrimitiveType::F32)
    }

    /// The narrow types computed in wider ones, in `cpu_compiler.cc`'s order: each f8
    /// format and `f4e2m1fn` in f16, `f8e8m0fnu` in f32, `s4`/`u4` in `s8`/`u8`. XLA:CPU
    /// keeps `s2`/`u2`/`s1`/`u1` ops native (LLVM's `i2`); xlac's kernels have no such
    /// types, so they are widened too, with the same results: the convert back wraps, as
    /// the native op does.
    pub fn narrow_types() -> Vec<FloatNormalization> {
        use PrimitiveType::*;
        [
            (F8E5M2, F16),
            (F8E4M3, F16),
            (F8E4M3FN, F16),
            (F8E4M3B11FNUZ, F16),
            (F8E5M2FNUZ, F16),
            (F8E4M3FNUZ, F16),
            (F8E3M4, F16),
            (S4, S8),
            (U4, U8),
            (F4E2M1FN, F16),
            (F8E8M0FNU, F32),
            (S2, S8),
            (U2, U8),
            (S1, S8),
            (U1, U8),
        ]
        .into_iter()
        .map(|(low, high)| FloatNormalization::new(low, high))
        .collect()
    }
}

impl Pass for FloatNormalization {
    fn name(&self) -> &'static str {
        // XLA names the pass after the low-precision type (`float-normalization-bf16`).
        use PrimitiveType::*;
        match self.low {
            BF16 => "float-normalization-bf16",
            F16 => "float-normalization-f16",
            F8E5M2 => "float-normalization-f8e5m2",
            F8E4M3 => "float-normalization-f8e4m3",
            F8E4M3FN => "float-normalization-f8e4m3fn",
            F8E4M3B11FNUZ => "float-normalization-f8e4m3b11fnuz",
            F8E5M2FNUZ => "float-normalization-f8e5m2fnuz",
            F8E4M3FNUZ => "float-normalization-f8e4m3fnuz",
            F8E3M4 => "float-normalization-f8e3m4",
            F8E8M0FNU => "float-normalization-f8e8m0fnu",
            F4E2M1FN => "float-normalization-f4e2m1fn",
            S4 => "float-normalization-s4",
            U4 => "float-normalization-u4",
            S2 => "float-normalization-s2",
            U2 => "float-normalization-u2",
            S1 => "float-normalization-s1",
            U1 => "float-normalization-u1",
            _ => "float-normalization",
        }
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        // Callees first, as XLA's post order; clones made on the way are appended.
        let mut worklist: VecDeque<ComputationId> = module.order.iter().copied().collect();
        while let Some(c) = worklist.pop_front() {
            for id in module.computations[c].order.clone() {
                changed |= self.normalize_instruction(module, c, id, &mut worklist)?;
            }
        }
        Ok(changed)
    }
}

impl FloatNormalization {
    /// Rewrites one instruction if it touches the low-precision type (steps 1-3 above).
    fn normalize_instruction(
        &self,
        module: &mut Module,
        c: ComputationId,
        id: InstrId,
        worklist: &mut VecDeque<ComputationId>,
    ) -> Result<bool, PassError> {
        let instr = &module.computations[c].instrs[id];
        if passes_low_precision_through(&instr.op) {
            return Ok(false);
        }
        let comp = &module.computations[c];
        let low_operands: Vec<usize> = (0..instr.operands.len())
            .filter(|&i| self.has_low(&comp.instrs[instr.operands[i]].shape))
            .collect();
        let low_output = self.has_low(&instr.shape);
        let mut low_callees: Vec<ComputationId> = instr
            .op
            .called_computations()
            .into_iter()
            .filter(|&callee| self.signature_has_low(module, callee))
            .collect();
        low_callees.dedup();
        if low_operands.is_empty() && !low_output && low_callees.is_empty() {
            return Ok(false);
        }

        for i in low_operands {
            self.convert_operand(module, c, id, i)?;
        }
        if low_output {
            self.change_output_type_then_convert_back(module, c, id)?;
        }
        let mut clones = HashMap::new();
        for callee in low_callees {
            let clone = self.clone_with_high_signature(module, c, callee)?;
            clones.insert(callee, clone);
            worklist.push_back(clone);
        }
        let instr = &mut module.computations[c].instrs[id];
        for called in instr.op.called_computations_mut() {
            if let Some(&clone) = clones.get(called) {
                *called = clone;
            }
        }
        Ok(true)
    }

    /// True if any array leaf of `shape` has the low-precision type.
    fn has_low(&self, shape: &Shape) -> bool {
        shape.leaves().iter().any(|a| a.element_type == self.low)
    }

    /// True if a called computation takes or returns the low-precision type.
    fn signature_has_low(&self, module: &Module, callee: ComputationId) -> bool {
        let comp = &module.computations[callee];
        self.has_low(&comp.root_instr().shape)
            || comp
                .parameter_shapes()
                .iter()
                .any(|shape| self.has_low(shape))
    }

    /// Step 1: operand `i` of `id` becomes `convert(operand)` in the high type.
    fn convert_operand(
        &self,
        module: &mut Module,
        c: ComputationId,
        id: InstrId,
        i: usize,
    ) -> Result<(), PassError> {
        let comp = &mut module.computations[c];
        let operand = comp.instrs[id].operands[i];
        let from = comp.instrs[operand].shape.clone();
        let to = change_type(&from, self.low, self.high);
        let converted = convert_value(comp, Anchor::Before(id), operand, &from, &to)?;
        comp.instrs[id].operands[i] = converted;
        Ok(())
    }

    /// Step 2: the result of `id` becomes high precision, converted back for its users.
    fn change_output_type_then_convert_back(
        &self,
        module: &mut Module,
        c: ComputationId,
        id: InstrId,
    ) -> Result<(), PassError> {
        let comp = &mut module.computations[c];
        let original = comp.instrs[id].shape.clone();
        let high = change_type(&original, self.low, self.high);
        comp.instrs[id].shape = high.clone();
        let before = comp.instrs.len();
        let back = convert_value(comp, Anchor::After(id), id, &high, &original)?;
        // The instructions just added are the ones that must keep reading `id`.
        let new_ids = new_instructions_since(comp, before);
        comp.replace_uses_except(id, back, &new_ids);
        // Excess precision (XLA's `xla_allow_excess_precision`, on by default): a user that
        // converts the result straight back to the high type reads the high-precision
        // result itself, so `bf16 mul` followed by `convert` to f32 is not rounded to bf16.
        // The convert is left dead for DCE.
        if let Shape::Array(_) = original {
            let round_trips: Vec<InstrId> = comp
                .order
                .iter()
                .copied()
                .filter(|&u| {
                    let user = &comp.instrs[u];
                    matches!(user.op, Op::Plain(Opcode::Convert))
                        && user.operands == [back]
                        && matches!(&user.shape, Shape::Array(a) if a.element_type == self.high)
                })
                .collect();
            for convert in round_trips {
                comp.replace_all_uses(convert, id);
            }
        }
        Ok(())
    }

    /// Step 3: a copy of `callee` whose low-precision parameters and result are high
    /// precision, converting at the edges so its body computes as before.
    fn clone_with_high_signature(
        &self,
        module: &mut Module,
        caller: ComputationId,
        callee: ComputationId,
    ) -> Result<ComputationId, PassError> {
        let mut comp = module.computations[callee].clone();
        for param in comp.parameters() {
            let original = comp.instrs[param].shape.clone();
            if !self.has_low(&original) {
                continue;
            }
            let high = change_type(&original, self.low, self.high);
            comp.instrs[param].shape = high.clone();
            let before = comp.instrs.len();
            let back = convert_value(&mut comp, Anchor::After(param), param, &high, &original)?;
            let new_ids = new_instructions_since(&comp, before);
            comp.replace_uses_except(param, back, &new_ids);
        }
        let root = comp.root;
        let original = comp.instrs[root].shape.clone();
        if self.has_low(&original) {
            let high = change_type(&original, self.low, self.high);
            comp.root = convert_value(&mut comp, Anchor::After(root), root, &original, &high)?;
        }
        Ok(module.add_computation_before(caller, comp))
    }
}

/// Ops XLA's visitor leaves alone (`DefaultAction`) or that `FloatSupport` supports in
/// low precision for operands and result alike.
fn passes_low_precision_through(op: &Op) -> bool {
    use Opcode::*;
    matches!(
        op.opcode(),
        Tuple
            | GetTupleElement
            | Constant
            | Domain
            | Parameter
            | Fusion
            | Convert
            | Call
            | CustomCall
            | While
            | Conditional
            | BitcastConvert
            | Bitcast
            | AsyncStart
            | AsyncUpdate
            | AsyncDone
            | OptimizationBarrier
            | Clz
            | ShiftLeft
            | ShiftRightLogical
            | ShiftRightArithmetic
    ) || op.has_side_effect()
        // Ops xlac keeps verbatim cannot be rebuilt with other types.
        || matches!(op, Op::Unmodeled { .. })
}

/// `shape` with every `from` leaf changed to `to` (layouts kept).
fn change_type(shape: &Shape, from: PrimitiveType, to: PrimitiveType) -> Shape {
    match shape {
        Shape::Array(a) if a.element_type == from => {
            let mut a = a.clone();
            a.element_type = to;
            Shape::Array(a)
        }
        Shape::Tuple(elements) => {
            Shape::Tuple(elements.iter().map(|e| change_type(e, from, to)).collect())
        }
        other => other.clone(),
    }
}

/// Where new instructions go: before a user, or right after the value they read.
#[derive(Copy, Clone)]
enum Anchor {
    Before(InstrId),
    After(InstrId),
}

/// The ids added to `comp`'s arena since it held `before` instructions.
fn new_instructions_since(comp: &Computation, before: usize) -> Vec<InstrId> {
    comp.instrs
        .keys()
        .filter(|k| k.as_u32() as usize >= before)
        .collect()
}

/// Builds `value` (of shape `from`) converted leaf by leaf to `to`: a `convert` for an
/// array, `get-tuple-element`s, converts and a `tuple` for a tuple (XLA's
/// `DeepCopyInstructionWithCustomCopier`). Returns `value` itself when nothing changes.
fn convert_value(
    comp: &mut Computation,
    anchor: Anchor,
    value: InstrId,
    from: &Shape,
    to: &Shape,
) -> Result<InstrId, PassError> {
    if from == to {
        return Ok(value);
    }
    // Later instructions go after the earlier ones, all before the same next instruction.
    let next = match anchor {
        Anchor::Before(user) => Some(user),
        Anchor::After(v) => {
            let pos = comp.order.iter().position(|&i| i == v);
            pos.and_then(|p| comp.order.get(p + 1).copied())
        }
    };
    let mut add = |comp: &mut Computation, instr: Instruction| match next {
        Some(n) => comp.insert_before(n, instr),
        None => {
            let mut instr = instr;
            instr.name = comp.unique_name(&instr.name);
            comp.push(instr)
        }
    };
    build_converted(comp, &mut add, value, from, to)
}

/// The recursive part of [`convert_value`].
fn build_converted(
    comp: &mut Computation,
    add: &mut dyn FnMut(&mut Computation, Instruction) -> InstrId,
    value: InstrId,
    from: &Shape,
    to: &Shape,
) -> Result<InstrId, PassError> {
    match (from, to) {
        _ if from == to => Ok(value),
        (Shape::Array(_), Shape::Array(_)) => Ok(add(
            comp,
            Instruction::new(
                "convert",
                to.clone(),
                Op::Plain(Opcode::Convert),
                vec![value],
            ),
        )),
        (Shape::Tuple(fs), Shape::Tuple(ts)) if fs.len() == ts.len() => {
            let mut elements = Vec::with_capacity(fs.len());
            for (index, (f, t)) in fs.iter().zip(ts).enumerate() {
                let gte = add(
                    comp,
                    Instruction::new(
                        "get-tuple-element",
                        f.clone(),
                        Op::GetTupleElement { index },
                        vec![value],
                    ),
                );
                elements.push(build_converted(comp, add, gte, f, t)?);
            }
            Ok(add(
                comp,
                Instruction::new("tuple", to.clone(), Op::Plain(Opcode::Tuple), elements),
            ))
        }
        _ => Err(PassError::new(format!(
            "cannot convert a value of shape {from:?} to {to:?}"
        ))),
    }
}

#[cfg(test)]
mod tests;
