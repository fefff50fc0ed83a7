//! XLA:CPU's answer to "should this producer be fused into this consumer?", as a column
//! of guard clauses, each returning the [`FusionRule`] that decided. No editing here: the
//! driver (`instruction_fusion.rs`) asks, logs the answer and fuses.
//! XLA: `CpuInstructionFusion::ShouldFuse` (`xla/service/cpu/cpu_instruction_fusion.cc`),
//! `InstructionFusion::ShouldFuse` / `IsExpensive` (`xla/service/instruction_fusion.cc`).
//!
//! Differences from XLA:CPU, on purpose: a dot with any elementwise epilogue becomes a
//! `kOutput` fusion (XLA:CPU: matrix–vector dot plus add only; see `output_fusion.rs`);
//! reduce-window may absorb cheap producers; dynamic-update-slice is neither fused nor
//! fused into (it updates its buffer in place); a reduction whose consumer reads each
//! reduced element once per row (`loop_invariance.rs`) is fused, and the kernel computes it
//! before each row's loop.

use super::decisions::{
    FusionRule, MAX_CODE_DUPLICATION, MAX_CONCAT_OPERANDS, MAX_REDUCTIONS_PER_FUSION,
    MIN_COLUMN_REDUCTION_BYTES, MIN_MINOR_CONCAT_SIZE,
};
use super::fusion_instruction::OuterBooks;
use super::indexing::{BodySummary, ConsumerBody, invalidates_cache};
use super::output_fusion::check_dot_epilogue;
use super::row_cache::RowCacheAnalysis;
use crate::ir::kernel_ops::{emits_kernel, is_kernel_instruction};
use crate::ir::{Computation, FusionKind, InstrId, Instruction, Module, Op, Opcode, PrimitiveType};

/// The facts about the computation that the policy reads.
pub struct PolicyContext<'a> {
    /// The module (for fused bodies).
    pub module: &'a Module,
    /// The computation being fused.
    pub comp: &'a Computation,
    /// Users, control edges and dead instructions of `comp`.
    pub books: &'a OuterBooks,
    /// Fusions this pass made (the only ones that grow), with the summaries of their
    /// bodies.
    pub ours: &'a std::collections::HashMap<InstrId, BodySummary>,
}

/// `Ok(rule)` to fuse `producer` into `consumer`, `Err(rule)` to keep them apart.
pub fn should_fuse(
    cx: &PolicyContext<'_>,
    producer: InstrId,
    consumer: InstrId,
) -> Result<FusionRule, FusionRule> {
    let comp = cx.comp;
    let p = comp.instr(producer);
    let c = comp.instr(consumer);
    check_consumer(cx, consumer)?;
    if comp.root == producer {
        return Err(FusionRule::ProducerIsRoot);
    }
    if cx.books.has_control_edges(comp, producer) || cx.books.has_control_edges(comp, consumer) {
        return Err(FusionRule::ControlDependency);
    }
    if p.opcode() == Opcode::Fusion {
        return Err(FusionRule::ProducerIsFusion);
    }
    let body = match cx.ours.get(&consumer) {
        Some(summary) => ConsumerBody::with_summary(cx.module, comp, consumer, summary)
            .ok_or(FusionRule::ConsumerNotFusible { opcode: c.opcode() })?,
        None => ConsumerBody::of(cx.module, comp, consumer),
    };
    let no_users = std::collections::HashSet::new();
    let users = cx.books.users.get(&producer).unwrap_or(&no_users);
    let Some(param) = body.parameter_for(producer) else {
        return Err(FusionRule::ConsumerNotFusible { opcode: c.opcode() });
    };
    // Nothing goes into the dot of a kOutput fusion: the GEMM reads buffers.
    if body
        .users_of(param)
        .iter()
        .any(|&u| body.body.instr(u).opcode() == Opcode::Dot)
    {
        return Err(FusionRule::IntoDotOperand);
    }
    if let Op::Constant { .. } = &p.op {
        let elements = p.shape.leaves().iter().map(|l| l.element_count()).sum();
        if elements != 1 {
            return Err(FusionRule::NonScalarConstant { elements });
        }
        if c.opcode() != Opcode::Fusion {
            return Err(FusionRule::ConstantOnlyIntoFusion);
        }
        return Ok(FusionRule::LoopFusion {
            producer: p.opcode(),
        });
    }
    if p.opcode() == Opcode::Dot {
        let users: Vec<InstrId> = users.iter().copied().collect();
        return check_dot_epilogue(p, &users, consumer, &body, param)
            .map(|()| FusionRule::DotEpilogue)
            .map_err(|why| FusionRule::DotNotEpilogue { why });
    }
    if p.opcode() == Opcode::DynamicUpdateSlice {
        return Err(FusionRule::InPlace { opcode: p.opcode() });
    }
    if !emits_kernel(p) {
        return Err(FusionRule::ProducerNotKernel { opcode: p.opcode() });
    }
    if !is_kernel_instruction(comp, producer) {
        return Err(FusionRule::NotKernelType);
    }
    if !is_loop_fusible(p) {
        return Err(FusionRule::ProducerNotLoopFusible { opcode: p.opcode() });
    }
    check_concatenate(p)?;
    if let Some(input_bytes) = large_column_reduction(comp, p) {
        return Err(FusionRule::ColumnReductionStaysRoot { input_bytes });
    }
    let reads = body.reads_per_element(param);
    // Read in two loops of each row at the row's own index: the kernel caches the row.
    // Only asked of expensive producers (the only ones it decides for): the analysis
    // walks the whole body.
    let row_cached = reads > 1
        && p.opcode() != Opcode::Reduce
        && is_expensive(comp, p)
        && RowCacheAnalysis::of(&body.body).reused(&body.body, param);
    if is_expensive(comp, p) && reads > 1 && !row_cached {
        if p.opcode() == Opcode::Reduce {
            return Err(FusionRule::ReductionBroadcastBack { reads });
        }
        return Err(FusionRule::ExpensiveReused {
            producer: p.opcode(),
            consumer: body.body.root_instr().opcode(),
            reads,
        });
    }
    let other_users = users.len() - usize::from(users.contains(&consumer));
    if other_users > 0 {
        if is_expensive(comp, p) && !always_duplicable(comp, p) {
            if body.body.root_instr().opcode() == Opcode::Reduce {
                return Err(FusionRule::ReductionWouldDuplicate {
                    producer: p.opcode(),
                    other_users,
                });
            }
            return Err(FusionRule::ExpensiveDuplicated {
                producer: p.opcode(),
                other_users,
            });
        }
        if !effectively_at_most_unary(comp, p) && input_bytes(comp, p) > bytes(&p.shape) {
            return Err(FusionRule::NotEffectivelyUnary {
                producer: p.opcode(),
                other_users,
            });
        }
    }
    let reductions = body.reductions() + usize::from(p.opcode() == Opcode::Reduce);
    if reductions > MAX_REDUCTIONS_PER_FUSION {
        return Err(FusionRule::TooManyReductions { count: reductions });
    }
    if p.opcode() != Opcode::Broadcast {
        let count = body.emitted_count(param);
        // A reduction read only before the row loop is evaluated once per row per read,
        // not once per element: the cache-invalidation rule does not apply to it.
        let per_row = p.opcode() == Opcode::Reduce && body.read_once_per_row(param);
        if count > MAX_CODE_DUPLICATION || (invalidates_cache(p.opcode()) && count > 1 && !per_row)
        {
            return Err(FusionRule::CodeDuplicationTooHigh { count });
        }
    }
    if p.opcode() == Opcode::Reduce && body.read_once_per_row(param) {
        return Ok(FusionRule::RowReduction);
    }
    if row_cached && is_expensive(comp, p) {
        return Ok(FusionRule::RowCached {
            producer: p.opcode(),
        });
    }
    if body.body.root_instr().opcode() == Opcode::Reduce {
        return Ok(FusionRule::ReductionInput {
            producer: p.opcode(),
        });
    }
    if other_users > 0 {
        return Ok(FusionRule::LoopFusionDuplicated {
            producer: p.opcode(),
            other_users,
        });
    }
    Ok(FusionRule::LoopFusion {
        producer: p.opcode(),
    })
}

/// The input bytes of `p` if it is a float reduction over major dimensions (its input's
/// physical minor dimension kept) reading at least [`MIN_COLUMN_REDUCTION_BYTES`].
pub(super) fn large_column_reduction(comp: &Computation, p: &Instruction) -> Option<u64> {
    let Op::Reduce { dimensions, .. } = &p.op else {
        return None;
    };
    let input = comp.instr(*p.operands.first()?).shape.as_array()?;
    let minor = *input.layout.minor_to_major.first()?;
    let float = matches!(input.element_type, PrimitiveType::F32 | PrimitiveType::F64);
    let bytes = input.byte_size() as u64;
    (p.operands.len() == 2
        && float
        && !dimensions.contains(&minor)
        && bytes >= MIN_COLUMN_REDUCTION_BYTES)
        .then_some(bytes)
}

/// The consumer must be a fusion this pass made (not a library one) or an instruction
/// that becomes generated code and can read fused operands.
fn check_consumer(cx: &PolicyContext<'_>, consumer: InstrId) -> Result<(), FusionRule> {
    let c = cx.comp.instr(consumer);
    if let Op::Fusion { kind, .. } = c.op {
        if !cx.ours.contains_key(&consumer) || kind == FusionKind::Custom {
            return Err(FusionRule::ConsumerIsForeignFusion { kind });
        }
        return Ok(());
    }
    match c.opcode() {
        Opcode::Dot | Opcode::Convolution => return Err(FusionRule::IntoDotOperand),
        Opcode::DynamicUpdateSlice => {
            return Err(FusionRule::InPlace { opcode: c.opcode() });
        }
        _ => {}
    }
    let fusible = is_kernel_instruction(cx.comp, consumer)
        && (is_loop_fusible(c) || c.opcode() == Opcode::ReduceWindow);
    if !fusible {
        return Err(FusionRule::ConsumerNotFusible { opcode: c.opcode() });
    }
    check_concatenate(c)
}

/// True if `id` waits for, or is waited for by, another instruction through a control edge.
pub fn has_control_edges(comp: &Computation, id: InstrId) -> bool {
    !comp.instr(id).control_predecessors.is_empty()
        || comp
            .order
            .iter()
            .any(|&i| comp.instr(i).control_predecessors.contains(&id))
}

/// XLA:CPU's loop-fusible ops (`CanBeLoopFused`): elementwise ops and data movement,
/// iota, gather and single-result reduce.
pub fn is_loop_fusible(instr: &Instruction) -> bool {
    use Opcode::*;
    let op = instr.opcode();
    if op == BitcastConvert {
        // Only the same-width form maps an element to an element.
        return instr.shape.is_array();
    }
    if op == Reduce {
        return instr.shape.is_array();
    }
    op.is_elementwise()
        || matches!(
            op,
            Bitcast
                | Broadcast
                | Concatenate
                | DynamicSlice
                | Gather
                | Iota
                | Pad
                | Reshape
                | Reverse
                | Slice
                | Transpose
        )
}

/// Concatenates with many operands, or along a long minor dimension, stay standalone.
fn check_concatenate(instr: &Instruction) -> Result<(), FusionRule> {
    let Op::Concatenate { dimension } = instr.op else {
        return Ok(());
    };
    if instr.operands.len() > MAX_CONCAT_OPERANDS {
        return Err(FusionRule::ConcatTooManyOperands {
            count: instr.operands.len(),
        });
    }
    if let Some(a) = instr.shape.as_array()
        && a.rank() >= 2
        && a.layout.minor_to_major.first() == Some(&dimension)
        && a.dims[dimension] >= MIN_MINOR_CONCAT_SIZE
    {
        return Err(FusionRule::ConcatMinorDimTooLarge {
            size: a.dims[dimension],
        });
    }
    Ok(())
}

/// XLA's `InstructionFusion::IsExpensive` plus XLA:CPU's f32→bf16 convert: transcendental
/// functions, floating-point division, and every structurally heavy op.
pub fn is_expensive(comp: &Computation, instr: &Instruction) -> bool {
    use Opcode::*;
    let complex = instr
        .shape
        .element_type()
        .is_some_and(PrimitiveType::is_complex);
    match instr.opcode() {
        Add | And | Bitcast | BitcastConvert | Broadcast | Ceil | Clamp | Clz | Compare
        | Complex | Concatenate | Constant | Copy | DynamicSlice | DynamicUpdateSlice | Floor
        | GetTupleElement | Imag | Iota | IsFinite | Maximum | Minimum | Multiply | Negate
        | Not | PopulationCount | Or | Pad | Real | ReducePrecision | Reshape | Reverse
        | RoundNearestAfz | RoundNearestEven | Select | ShiftLeft | ShiftRightArithmetic
        | ShiftRightLogical | Slice | Subtract | Transpose | Tuple | Xor => false,
        Convert => {
            let from = instr
                .operands
                .first()
                .and_then(|&o| comp.instr(o).shape.element_type());
            from == Some(PrimitiveType::F32)
                && instr.shape.element_type() == Some(PrimitiveType::BF16)
        }
        Abs | Cos | Sign | Sin | Tan => complex,
        Divide | Remainder => {
            let integral = instr
                .shape
                .element_type()
                .is_some_and(PrimitiveType::is_integral);
            !integral || !divisor_is_constant(comp, instr)
        }
        _ => true,
    }
}

/// The divisor is a scalar constant or a broadcast of one (integer division by it
/// compiles to multiplies and shifts).
fn divisor_is_constant(comp: &Computation, instr: &Instruction) -> bool {
    let Some(&d) = instr.operands.get(1) else {
        return false;
    };
    let mut d = comp.instr(d);
    if d.opcode() == Opcode::Broadcast {
        d = comp.instr(d.operands[0]);
    }
    d.opcode() == Opcode::Constant && d.shape.leaves().iter().all(|l| l.element_count() == 1)
}

/// Ops duplicated even when expensive: broadcast, and a convert that widens.
fn always_duplicable(comp: &Computation, instr: &Instruction) -> bool {
    match instr.opcode() {
        Opcode::Broadcast => true,
        Opcode::Convert => {
            let from = comp.instr(instr.operands[0]).shape.element_type();
            let to = instr.shape.element_type();
            matches!((from, to), (Some(f), Some(t)) if t.bit_width() > f.bit_width())
        }
        _ => false,
    }
}

/// At most one operand carries full data; scalars, broadcasts and iotas are cheap to
/// recompute (XLA's `EffectivelyAtMostUnary`).
fn effectively_at_most_unary(comp: &Computation, instr: &Instruction) -> bool {
    instr
        .operands
        .iter()
        .filter(|&&o| {
            let op = comp.instr(o);
            let scalar = op.shape.leaves().iter().all(|l| l.element_count() <= 1);
            !scalar && !matches!(op.opcode(), Opcode::Broadcast | Opcode::Iota)
        })
        .count()
        <= 1
}

fn bytes(shape: &crate::ir::Shape) -> usize {
    shape.leaves().iter().map(|l| l.byte_size()).sum()
}

fn input_bytes(comp: &Computation, instr: &Instruction) -> usize {
    distinct(&instr.operands)
        .iter()
        .map(|&o| bytes(&comp.instr(o).shape))
        .sum()
}

/// The distinct ids of `ids`, in first-seen order.
pub fn distinct(ids: &[InstrId]) -> Vec<InstrId> {
    let mut out: Vec<InstrId> = Vec::new();
    for &i in ids {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}
