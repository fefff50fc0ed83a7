//! Shape inference: the result shape of every opcode from its operands and attributes.
//!
//! The verifier calls [`infer_shape`] on every instruction and compares the answer with the
//! declared shape, as XLA's `ShapeVerifier` does; passes that build new instructions can call
//! it too, so the rules live once. XLA: `xla/service/shape_inference.cc` (the rules) and
//! `xla/service/hlo_verifier.cc` (`ShapeVerifier`, which decides what to do with ops whose
//! shape is not inferable, such as `custom-call` or `bitcast`).
//!
//! What it is not: it does not infer layouts (results are row-major; compare with
//! [`Shape::compatible`]), and it does not look inside called computations beyond their
//! signature (parameter shapes and root shape).
//!
//! Where XLA has a choice, xlac follows what XLA:CPU's verifier accepts:
//! - elementwise operands must have exactly the same element type (no mixed precision), as
//!   `HloVerifier` with `allow_mixed_precision=false` demands;
//! - `dot` and `convolution` take their result element type from the declared shape, because
//!   `preferred_element_type` (e.g. bf16 x bf16 -> f32) is only visible there;
//! - `convert`, `bitcast-convert`, `iota`, `reshape` and `broadcast` take what the
//!   instruction says (element type, target dims) and check it is consistent;
//! - `custom-call`, `parameter`, `bitcast` (byte size checked) and every op xlac does not
//!   model ([`Op::Unmodeled`]) accept the declared shape.
//!
//! The rules are split by op family: [`elementwise`], [`data_movement`], [`reduction`],
//! [`contraction`] and [`control`]. Each `infer_*` function takes the operand shapes (and
//! attributes) and returns the result shape or a sentence saying what is inconsistent.

mod contraction;
mod control;
mod data_movement;
mod elementwise;
mod reduction;
#[cfg(test)]
mod tests;

use super::{
    Arity, ArrayShape, Computation, ComputationId, InstrId, Layout, Module, Op, Opcode,
    PrimitiveType, ProgramShape, Shape, TypeKind,
};

/// The shape `instr` must have, given its operands' declared shapes and its attributes.
/// Layouts are not inferred (the result has row-major layout); compare with
/// [`Shape::compatible`]. The error says what is inconsistent.
pub fn infer_shape(module: &Module, comp: &Computation, instr: InstrId) -> Result<Shape, String> {
    let inst = comp
        .instrs
        .get(instr)
        .ok_or_else(|| format!("there is no instruction {instr}"))?;
    let mut operands = Vec::with_capacity(inst.operands.len());
    for &id in &inst.operands {
        let operand = comp
            .instrs
            .get(id)
            .ok_or_else(|| format!("operand {id} does not exist in computation {}", comp.name))?;
        operands.push(&operand.shape);
    }
    let opcode = inst.opcode();
    // Modeled ops have XLA's fixed operand counts; unmodeled ones are only printed back,
    // and their declared shape is accepted whatever they take.
    if !matches!(inst.op, Op::Unmodeled { .. }) {
        check_arity(opcode, operands.len())?;
    }
    let ctx = Ctx {
        module,
        declared: &inst.shape,
    };
    let shape = ctx.infer(&inst.op, &operands)?;
    Ok(without_layout(shape))
}

/// What every rule may need besides the operands: the module (for called computations)
/// and the declared shape (for ops that take their result type or dims from it).
struct Ctx<'a> {
    module: &'a Module,
    declared: &'a Shape,
}

impl Ctx<'_> {
    /// Dispatch: one arm per [`Op`] variant, no catch-all, so a new variant is a build error.
    fn infer(&self, op: &Op, ops: &[&Shape]) -> Result<Shape, String> {
        use Op::*;
        match op {
            Plain(opcode) => self.infer_plain(*opcode, ops),
            Parameter { .. } => Ok(self.declared.clone()),
            Constant { literal } => Ok(literal.shape()),
            Iota { dimension } => data_movement::infer_iota(self.declared, *dimension),
            Broadcast { dimensions } => {
                data_movement::infer_broadcast(ops[0], self.declared, dimensions)
            }
            Transpose { dimensions } => data_movement::infer_transpose(ops[0], dimensions),
            Reverse { dimensions } => data_movement::infer_reverse(ops[0], dimensions),
            Concatenate { dimension } => data_movement::infer_concatenate(ops, *dimension),
            Slice { slice } => data_movement::infer_slice(ops[0], slice),
            DynamicSlice { sizes } => data_movement::infer_dynamic_slice(ops, sizes),
            Pad { padding } => data_movement::infer_pad(ops[0], ops[1], padding),
            Compare { .. } => elementwise::infer_binary(Opcode::Compare, ops[0], ops[1]),
            GetTupleElement { index } => data_movement::infer_get_tuple_element(ops[0], *index),
            ReducePrecision { exponent_bits, .. } => {
                elementwise::infer_reduce_precision(ops[0], *exponent_bits)
            }
            Reduce {
                dimensions,
                to_apply,
            } => reduction::infer_reduce(ops, dimensions, &self.signature(*to_apply)?),
            ReduceWindow { window, to_apply } => {
                reduction::infer_reduce_window(ops, window, &self.signature(*to_apply)?)
            }
            SelectAndScatter {
                window,
                select,
                scatter,
            } => reduction::infer_select_and_scatter(
                ops,
                window,
                &self.signature(*select)?,
                &self.signature(*scatter)?,
            ),
            Map {
                dimensions,
                to_apply,
            } => reduction::infer_map(ops, dimensions, &self.signature(*to_apply)?),
            Dot {
                dimension_numbers, ..
            } => contraction::infer_dot(ops[0], ops[1], dimension_numbers, self.declared),
            Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } => contraction::infer_convolution(
                ops[0],
                ops[1],
                window,
                dimension_numbers,
                *feature_group_count,
                *batch_group_count,
                self.declared,
            ),
            Gather {
                dimension_numbers,
                slice_sizes,
                ..
            } => data_movement::infer_gather(ops[0], ops[1], dimension_numbers, slice_sizes),
            Scatter {
                dimension_numbers,
                to_apply,
                ..
            } => data_movement::infer_scatter(ops, dimension_numbers, &self.signature(*to_apply)?),
            Sort {
                dimension,
                to_apply,
                ..
            } => reduction::infer_sort(ops, *dimension, &self.signature(*to_apply)?),
            TopK { k, .. } => reduction::infer_topk(ops[0], *k),
            While { condition, body } => control::infer_while(
                ops[0],
                &self.signature(*condition)?,
                &self.signature(*body)?,
            ),
            Conditional {
                branch_computations,
            } => {
                let branches = branch_computations
                    .iter()
                    .map(|&b| self.signature(b))
                    .collect::<Result<Vec<_>, _>>()?;
                control::infer_conditional(ops, &branches)
            }
            Call { to_apply } => control::infer_call("call", ops, &self.signature(*to_apply)?),
            Fusion { calls, .. } => control::infer_call("fusion", ops, &self.signature(*calls)?),
            RngBitGenerator { .. } => control::infer_rng_bit_generator(ops[0], self.declared),
            Rng { distribution } => control::infer_rng(ops, *distribution, self.declared),
            Cholesky { .. } => contraction::infer_cholesky(ops[0]),
            TriangularSolve(options) => {
                contraction::infer_triangular_solve(ops[0], ops[1], options.left_side)
            }
            Fft {
                fft_type,
                fft_length,
            } => contraction::infer_fft(ops[0], *fft_type, fft_length),
            BatchNorm {
                opcode,
                feature_index,
                ..
            } => contraction::infer_batch_norm(*opcode, ops, *feature_index),
            DimensionSize { opcode, dimension } => {
                control::infer_dimension_size(*opcode, ops, *dimension)
            }
            // A custom call's result is whatever the target writes: only the declared
            // shape knows it (XLA's ShapeVerifier::HandleCustomCall checks layouts only).
            CustomCall(_) => Ok(self.declared.clone()),
            Unmodeled { .. } => Ok(self.declared.clone()),
        }
    }

    /// Opcodes without typed attributes: elementwise ops and a few structural ones.
    fn infer_plain(&self, opcode: Opcode, ops: &[&Shape]) -> Result<Shape, String> {
        use Opcode::*;
        match opcode {
            Convert => elementwise::infer_convert(ops[0], self.declared),
            BitcastConvert => elementwise::infer_bitcast_convert(ops[0], self.declared),
            StochasticConvert => {
                elementwise::infer_stochastic_convert(ops[0], ops[1], self.declared)
            }
            Select => elementwise::infer_select(ops[0], ops[1], ops[2]),
            Clamp => elementwise::infer_clamp(ops[0], ops[1], ops[2]),
            Reshape => data_movement::infer_reshape(ops[0], self.declared),
            DynamicReshape => Ok(self.declared.clone()),
            Bitcast => data_movement::infer_bitcast(ops[0], self.declared),
            DynamicUpdateSlice => data_movement::infer_dynamic_update_slice(ops),
            Tuple => Ok(Shape::Tuple(ops.iter().map(|s| (*s).clone()).collect())),
            AfterAll => control::infer_after_all(ops),
            AddDependency => control::infer_add_dependency(ops[0], ops[1]),
            OptimizationBarrier | Domain | Copy => Ok(ops[0].clone()),
            ReplicaId | PartitionId => Ok(Shape::scalar(PrimitiveType::U32)),
            RngGetAndUpdateState => Ok(Shape::array(PrimitiveType::U64, &[2])),
            CopyStart => Ok(Shape::Tuple(vec![
                ops[0].clone(),
                ops[0].clone(),
                Shape::scalar(PrimitiveType::U32),
            ])),
            CopyDone => data_movement::infer_get_tuple_element(ops[0], 0),
            op if op.category() == super::OpCategory::ElementwiseUnary => {
                elementwise::infer_unary(op, ops[0])
            }
            op if op.category() == super::OpCategory::ElementwiseBinary => {
                elementwise::infer_binary(op, ops[0], ops[1])
            }
            // Everything else written without attributes (infeed, send, collectives, ...)
            // is not modeled: the declared shape is accepted.
            _ => Ok(self.declared.clone()),
        }
    }

    /// The signature of a called computation: parameter shapes by number, root shape.
    fn signature(&self, id: ComputationId) -> Result<ProgramShape, String> {
        signature(self.module, id)
    }
}

/// The signature of computation `id`: its parameter shapes (by parameter number) and the
/// shape of its root, i.e. XLA's `ComputeProgramShape`.
pub fn signature(module: &Module, id: ComputationId) -> Result<ProgramShape, String> {
    let comp = module
        .computations
        .get(id)
        .ok_or_else(|| format!("called computation {id} does not exist"))?;
    let root = comp
        .instrs
        .get(comp.root)
        .ok_or_else(|| format!("computation {} has no root instruction", comp.name))?;
    Ok(ProgramShape {
        parameters: comp.parameter_shapes(),
        result: root.shape.clone(),
    })
}

/// Prints a shape without its layout, as XLA's `ShapeUtil::HumanString` does:
/// `f32[4,<=8]`, `(f32[4], s32[])`, `token[]`.
pub fn human_string(shape: &Shape) -> String {
    shape.to_string()
}

/// Prints a computation signature: `(f32[], f32[]) -> f32[]`.
pub(crate) fn human_signature(sig: &ProgramShape) -> String {
    let params: Vec<String> = sig.parameters.iter().map(human_string).collect();
    format!("({}) -> {}", params.join(", "), human_string(&sig.result))
}

/// Checks an opcode's fixed operand count.
fn check_arity(opcode: Opcode, count: usize) -> Result<(), String> {
    match opcode.arity() {
        Arity::Fixed(n) if n != count => Err(format!(
            "{opcode} takes {n} operand{} but has {count}",
            if n == 1 { "" } else { "s" }
        )),
        _ => Ok(()),
    }
}

/// The same shape with every layout reset to row-major: inference does not decide layouts.
fn without_layout(shape: Shape) -> Shape {
    match shape {
        Shape::Array(mut a) => {
            a.layout = Layout::row_major(a.rank());
            Shape::Array(a)
        }
        Shape::Tuple(elements) => Shape::Tuple(elements.into_iter().map(without_layout).collect()),
        other => other,
    }
}

// ---------------------------------------------------------------------------------------
// Small helpers shared by the rule files.

/// The array shape of operand `what`, or an error naming it.
fn expect_array<'a>(shape: &'a Shape, what: &str) -> Result<&'a ArrayShape, String> {
    shape
        .as_array()
        .ok_or_else(|| format!("{what} must be an array, but is {}", human_string(shape)))
}

/// A row-major array shape with these dims and the dynamic flags given (empty = static).
fn array_with_dynamic(element_type: PrimitiveType, dims: Vec<i64>, dynamic: Vec<bool>) -> Shape {
    let dynamic_dims = if dynamic.iter().any(|&d| d) {
        dynamic
    } else {
        Vec::new()
    };
    let layout = Layout::row_major(dims.len());
    Shape::Array(ArrayShape {
        element_type,
        dims,
        dynamic_dims,
        layout,
    })
}

/// Same dims, another element type (keeps dynamic flags).
fn with_element_type(a: &ArrayShape, element_type: PrimitiveType) -> Shape {
    let mut out = a.clone();
    out.element_type = element_type;
    Shape::Array(out)
}

/// True if dimension `i` of `a` is dynamic (`<=N`).
fn is_dynamic(a: &ArrayShape, i: usize) -> bool {
    a.dynamic_dims.get(i).copied().unwrap_or(false)
}

/// True for arrays with rank 0.
fn is_scalar(shape: &Shape) -> bool {
    matches!(shape, Shape::Array(a) if a.rank() == 0)
}

/// `{0,2}` as HLO prints an attribute list.
fn list<T: std::fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", parts.join(","))
}

/// Checks that every entry of `dims` is `< rank` and appears once.
fn check_dims_in_range_and_unique(dims: &[usize], rank: usize, what: &str) -> Result<(), String> {
    let mut seen = vec![false; rank];
    for &d in dims {
        if d >= rank {
            return Err(format!(
                "{what} {} names dimension {d}, but the rank is {rank}",
                list(dims)
            ));
        }
        if seen[d] {
            return Err(format!("{what} {} repeats dimension {d}", list(dims)));
        }
        seen[d] = true;
    }
    Ok(())
}

/// True if `dims` is a permutation of `0..dims.len()`.
fn is_permutation(dims: &[usize]) -> bool {
    let mut seen = vec![false; dims.len()];
    dims.iter()
        .all(|&d| d < seen.len() && !std::mem::replace(&mut seen[d], true))
}

/// The complex type's component (`c64` -> `f32`).
fn complex_component(t: PrimitiveType) -> Option<PrimitiveType> {
    match t {
        PrimitiveType::C64 => Some(PrimitiveType::F32),
        PrimitiveType::C128 => Some(PrimitiveType::F64),
        _ => None,
    }
}

/// XLA's `ElementIsSigned`: signed integers and every floating-point type.
fn is_signed(t: PrimitiveType) -> bool {
    matches!(t.kind(), TypeKind::Signed | TypeKind::Float)
}
