//! Explicit vectorization of elementwise loop fusions: when every instruction of
//! a fusion is a float elementwise op with a vector form (arithmetic, max/min, the
//! transcendentals of the inline math library `codegen::math` but sin/cos/tan, float compares feeding
//! `select`), and every array parameter either has the output's dimensions and layout or is
//! broadcast (a scalar, a row or a column) or a bitcast of a parameter with the output's
//! shape (a dot result reshaped inside the fusion), the inner loop computes `f32x4` / `f64x2`
//! vectors and a scalar loop finishes the tail. A broadcast operand that varies along the
//! output's minor dimension must be a parameter whose own minor dimension is that one (a
//! contiguous vector load); one that does not vary along it is computed as a scalar and
//! splat. Anything else stays scalar.
//! Cranelift has no auto-vectorizer; XLA relies on
//! LLVM's loop vectorizer for the same loops.

use std::collections::HashMap;

use cranelift_codegen::ir::{InstBuilder, Type, Value, types};

use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, Params, array_shape, data_flags, error};
use crate::ir::{
    ArrayShape, ComparisonType, Computation, InstrId, Instruction, Op, Opcode, PrimitiveType,
};

/// The vector type a loop fusion computing `fused` into `output` can use, if any.
/// `library` is the instruction of a `kOutput` fusion the runtime computed into a buffer
/// (its dot): read like a parameter with the output's shape.
pub fn vector_type(
    fused: &Computation,
    output: &ArrayShape,
    library: Option<InstrId>,
) -> Option<Type> {
    vector_type_of(fused, fused.root, output, library)
}

/// The vector type for computing instruction `id` of `fused` as vectors over `space` (a
/// root dynamic-update-slice's update, over the update's elements in the output's layout).
pub fn vector_type_at(fused: &Computation, id: InstrId, space: &ArrayShape) -> Option<Type> {
    vector_type_of(fused, id, space, None)
}

/// The vector type of a multi-output loop fusion: every operand of its root tuple a vector
/// tree over its output, all outputs in the layout of the first (the iteration space's).
pub fn multi_output_vector_type(fused: &Computation, outputs: &[ArrayShape]) -> Option<Type> {
    let root = fused.root_instr();
    if root.opcode() != Opcode::Tuple || root.operands.len() != outputs.len() {
        return None;
    }
    let mut ty = None;
    for (&r, output) in root.operands.iter().zip(outputs) {
        if output.layout != outputs[0].layout {
            return None;
        }
        let t = vector_type_of(fused, r, output, None)?;
        if ty.is_some_and(|u| u != t) {
            return None;
        }
        ty = Some(t);
    }
    ty
}

/// [`vector_type`] for result `root` of `fused` (the root, or a tuple operand) into
/// `output`: a vector tree with at least one whole vector along the output's minor
/// dimension.
fn vector_type_of(
    fused: &Computation,
    root: InstrId,
    output: &ArrayShape,
    library: Option<InstrId>,
) -> Option<Type> {
    let ty = tree_type(fused, root, output, library)?;
    let minor = *output.layout.minor_to_major.first()?;
    (output.dims[minor] >= i64::from(ty.lane_count())).then_some(ty)
}

/// Whether instruction `id` of `fused` can be computed as vectors of `t` lanes running
/// along the `minor` dimension of an iteration space shaped like `output`.
fn instr_ok(
    fused: &Computation,
    id: InstrId,
    output: &ArrayShape,
    t: PrimitiveType,
    minor: usize,
    library: Option<InstrId>,
) -> Option<bool> {
    let i = fused.instr(id);
    let a = i.shape.as_array()?;
    let is_t = a.element_type == t;
    if Some(id) == library {
        return Some(is_t && a.dims == output.dims && a.layout == output.layout);
    }
    let ok = match &i.op {
        Op::Parameter { .. } => {
            is_t && (a.rank() == 0 || (a.dims == output.dims && a.layout == output.layout))
        }
        Op::Constant { .. } => is_t && a.rank() == 0,
        Op::Broadcast { dimensions } if a.element_type != PrimitiveType::Pred => {
            // `emit_vector` reads the vector dimension from the broadcast's own layout.
            is_t && a.dims == output.dims
                && a.layout.minor_to_major.first() == Some(&minor)
                && broadcast_ok(fused, i, dimensions, minor)
        }
        Op::Compare {
            comparison_type, ..
        } => {
            // A pred vector (a lane mask) only feeds `select`, directly or broadcast.
            let float = matches!(comparison_type, None | Some(ComparisonType::Float))
                && i.operands
                    .iter()
                    .all(|&o| fused.instr(o).shape.as_array().map(|s| s.element_type) == Some(t));
            // s32 indices (iotas, scalars) in an f32 loop: i32 lanes, as many as f32's.
            let index_compare = t == PrimitiveType::F32
                && matches!(comparison_type, None | Some(ComparisonType::Signed))
                && i.operands.iter().all(|&o| index_lanes(fused, o, output));
            (float || index_compare) && a.dims == output.dims && feeds_selects(fused, id)
        }
        // A mask broadcast along the vector from the mask of its operand's space.
        Op::Broadcast { dimensions } if a.element_type == PrimitiveType::Pred => {
            let operand = fused.instr(i.operands[0]);
            a.dims == output.dims
                && a.layout == output.layout
                && matches!(operand.op, Op::Compare { .. })
                && operand
                    .shape
                    .as_array()
                    .and_then(|s| s.layout.minor_to_major.first().copied())
                    .is_some_and(|k| dimensions.get(k) == Some(&minor))
                && feeds_selects(fused, id)
        }
        Op::Plain(Opcode::Select) => {
            let mask = fused.instr(i.operands[0]);
            is_t && a.dims == output.dims
                && (matches!(mask.op, Op::Compare { .. })
                    || (matches!(mask.op, Op::Broadcast { .. })
                        && mask.shape.as_array().map(|s| s.element_type)
                            == Some(PrimitiveType::Pred)))
        }
        // A bitcast of a parameter or of a kOutput fusion's dot (`[B·T,D]` seen as
        // `[B,T,D]`) is read like that buffer: same bytes, so the element at an index of the
        // bitcast's shape sits at that index's physical offset in the buffer.
        Op::Plain(Opcode::Bitcast) => {
            let operand_id = i.operands[0];
            let operand = fused.instr(operand_id);
            let read = matches!(operand.op, Op::Parameter { .. }) || Some(operand_id) == library;
            is_t && a.dims == output.dims
                && a.layout == output.layout
                && operand.shape.as_array().map(|s| s.element_type) == Some(t)
                && (read || splits_rows_whole(a, operand.shape.as_array()?, t))
        }
        // A slice with unit stride along the vector keeps reads contiguous: its operand is
        // computed at the shifted index (`tree_type` checks it against its own shape).
        Op::Slice { slice } => {
            let operand = fused.instr(i.operands[0]).shape.as_array()?;
            is_t && a.dims == output.dims
                && a.layout == output.layout
                && operand.layout == a.layout
                && slice[minor].stride == 1
        }
        // A dynamic-slice in the operand's layout reads contiguously from its clamped
        // start (a scan's `xs[i]`); the start indices are scalars.
        Op::DynamicSlice { .. } => {
            let operand = fused.instr(i.operands[0]).shape.as_array()?;
            is_t && a.dims == output.dims && a.layout == output.layout && operand.layout == a.layout
        }
        // A transpose that keeps the vector's dimension minor in its operand (attention's
        // head transposes, `[B,T,H,D] -> [B,H,T,D]`): the operand at the permuted index.
        Op::Transpose { dimensions } => {
            let operand = fused.instr(i.operands[0]).shape.as_array()?;
            is_t && a.dims == output.dims
                && a.layout == output.layout
                && operand.layout.minor_to_major.first() == dimensions.get(minor)
        }
        Op::Plain(op) => is_t && vector_op(*op) && (a.rank() == 0 || a.dims == output.dims),
        _ => false,
    };
    Some(ok)
}

/// Whether a bitcast from `operand` to `a` keeps every vector of `t` lanes inside one row of
/// the operand's minor dimension: both minor dimensions hold whole vectors (the vector loop
/// starts rows on a multiple of the lanes, so a vector's physical offset is one too). A
/// computed operand is then computed as vectors at the operand index of the first lane
/// (`[T,768]` seen as `[T,12,64]`: attention's heads).
fn splits_rows_whole(a: &ArrayShape, operand: &ArrayShape, t: PrimitiveType) -> bool {
    let lanes = (16 / t.byte_size()) as i64;
    let minor_size = |s: &ArrayShape| s.layout.minor_to_major.first().map(|&m| s.dims[m]);
    matches!(minor_size(a), Some(n) if n % lanes == 0)
        && matches!(minor_size(operand), Some(n) if n % lanes == 0)
}

/// Whether `id` is only the mask operand of selects, or of pred broadcasts that are.
fn feeds_selects(fused: &Computation, id: InstrId) -> bool {
    fused.iter().all(|(_, u)| {
        !u.operands.contains(&id)
            || (u.op.opcode() == Opcode::Select && u.operands[1..].iter().all(|&o| o != id))
            || (matches!(u.op, Op::Broadcast { .. })
                && u.shape.as_array().map(|s| s.element_type) == Some(PrimitiveType::Pred))
    })
}

/// Whether `id` is an s32 index the vector loop computes as i32 lanes: an iota over the
/// iteration space, or a scalar (a constant or parameter, maybe broadcast).
fn index_lanes(fused: &Computation, id: InstrId, space: &ArrayShape) -> bool {
    let i = fused.instr(id);
    let Some(a) = i.shape.as_array() else {
        return false;
    };
    if a.element_type != PrimitiveType::S32 {
        return false;
    }
    match &i.op {
        Op::Iota { .. } => a.dims == space.dims && a.layout == space.layout,
        Op::Constant { .. } | Op::Parameter { .. } => a.rank() == 0,
        Op::Broadcast { .. } => fused.instr(i.operands[0]).shape.rank() == 0,
        _ => false,
    }
}

/// The vector type for computing `root` of `fused` (and everything it reads) as vectors
/// along the physical minor dimension of `shape` (the root's own shape), if possible: the
/// input of a row reduction.
pub fn vector_tree_type(fused: &Computation, root: InstrId, shape: &ArrayShape) -> Option<Type> {
    tree_type(fused, root, shape, None)
}

/// [`vector_tree_type`], with `library` read from its buffer (see [`vector_type`]).
fn tree_type<'a>(
    fused: &'a Computation,
    root: InstrId,
    shape: &'a ArrayShape,
    library: Option<InstrId>,
) -> Option<Type> {
    let (t, ty) = match shape.element_type {
        PrimitiveType::F32 => (PrimitiveType::F32, types::F32X4),
        PrimitiveType::F64 => (PrimitiveType::F64, types::F64X2),
        _ => return None,
    };
    // Each instruction with the shape its loop index runs over and that shape's dimension
    // the vector runs along: the root's, below a slice the slice operand's (same layout,
    // so the same dimension), below a mask's broadcast the broadcast operand's.
    let mut stack = vec![(root, shape, *shape.layout.minor_to_major.first()?)];
    let mut seen = std::collections::HashSet::new();
    while let Some((id, space, minor)) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if !instr_ok(fused, id, space, t, minor, library)? {
            return None;
        }
        let i = fused.instr(id);
        match &i.op {
            Op::Slice { .. } | Op::DynamicSlice { .. } => {
                let operand = i.operands[0];
                stack.push((operand, fused.instr(operand).shape.as_array()?, minor));
                continue;
            }
            Op::Transpose { dimensions } => {
                let operand = i.operands[0];
                stack.push((
                    operand,
                    fused.instr(operand).shape.as_array()?,
                    dimensions[minor],
                ));
                continue;
            }
            Op::Broadcast { .. } if i.shape.element_type() == Some(PrimitiveType::Pred) => {
                let operand = fused.instr(i.operands[0]).shape.as_array()?;
                let k = *operand.layout.minor_to_major.first()?;
                stack.push((i.operands[0], operand, k));
                continue;
            }
            // Its index operands are iotas or scalars (`index_lanes`), computed in place.
            Op::Compare { .. }
                if fused.instr(i.operands[0]).shape.element_type() == Some(PrimitiveType::S32) =>
            {
                continue;
            }
            _ => {}
        }
        // A bitcast of a computed value: the operand as vectors over its own shape.
        if i.op == Op::Plain(Opcode::Bitcast) {
            let operand = i.operands[0];
            let computed = !matches!(fused.instr(operand).op, Op::Parameter { .. })
                && Some(operand) != library;
            if computed {
                let s = fused.instr(operand).shape.as_array()?;
                stack.push((operand, s, *s.layout.minor_to_major.first()?));
            }
            continue;
        }
        // A broadcast's operand that does not vary along the vector is computed as a scalar;
        // a bitcast reads its parameter's buffer directly, and so does the library result.
        if Some(id) != library && !matches!(i.op, Op::Broadcast { .. }) {
            stack.extend(i.operands.iter().map(|&o| (o, space, minor)));
        }
    }
    Some(ty)
}

/// Elementwise float opcodes the vector loop computes.
pub(crate) fn vector_op(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Add | Subtract
            | Multiply
            | Divide
            | Maximum
            | Minimum
            | Negate
            | Abs
            | Sqrt
            | Rsqrt
            | Exp
            | Expm1
            | Log
            | Log1p
            | Logistic
            | Tanh
            | Erf
            | Cbrt
            | Power
            | Atan2
    )
}

/// Whether a broadcast can be read as vectors along the output's `minor` dimension: its
/// operand does not vary along it (a scalar per vector, splat), or it is a parameter whose
/// physical minor dimension maps to it (a contiguous load).
fn broadcast_ok(fused: &Computation, b: &Instruction, dimensions: &[usize], minor: usize) -> bool {
    let operand = fused.instr(b.operands[0]);
    match dimensions.iter().position(|&d| d == minor) {
        None => true,
        Some(k) => {
            matches!(operand.op, Op::Parameter { .. })
                && operand
                    .shape
                    .as_array()
                    .and_then(|s| s.layout.minor_to_major.first().copied())
                    == Some(k)
        }
    }
}

impl<'m> Emitter<'m, '_, '_> {
    /// The vector of `vty` lanes of `id` starting at `index` (consecutive along the minor
    /// dimension). Only for fusions [`vector_type`] accepted.
    pub fn emit_vector(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        index: &[Value],
        vty: Type,
        memo: &mut HashMap<InstrId, Value>,
    ) -> Result<Value, CodegenError> {
        if let Some(&v) = memo.get(&id) {
            return Ok(v);
        }
        if let Some(v) = self.row_cached(frame.id, id, index, Some(vty)) {
            memo.insert(id, v);
            return Ok(v);
        }
        let instr = frame.comp.instr(id);
        self.enter_instruction(&instr.name);
        let v = self.emit_vector_uncached(frame, id, instr, index, vty, memo);
        self.leave_instruction();
        let v = v?;
        memo.insert(id, v);
        Ok(v)
    }

    fn emit_vector_uncached(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        instr: &'m Instruction,
        index: &[Value],
        vty: Type,
        memo: &mut HashMap<InstrId, Value>,
    ) -> Result<Value, CodegenError> {
        let t = if vty == types::F64X2 {
            PrimitiveType::F64
        } else {
            PrimitiveType::F32
        };
        let scalar_operand = |k: usize| frame.comp.instr(instr.operands[k]).shape.rank() == 0;
        if let Some((library, buffer)) = &frame.library_result
            && *library == id
        {
            // A kOutput fusion's dot, computed by the runtime into the buffer after the
            // fusion's operands (`vector_type` checked its shape is the loop's).
            return Ok(self.load_vector(buffer.base, &buffer.shape, index, vty));
        }
        if let Some(c) = self.contraction(frame, id) {
            return self.contracted_vector(frame, instr, c, index, vty, memo);
        }
        let v = match &instr.op {
            Op::Parameter { number } if instr.shape.rank() > 0 => {
                let Params::Buffers(buffers) = &frame.params else {
                    return Err(error(instr, "vector parameters come from buffers"));
                };
                let buffer = &buffers[*number];
                self.load_vector(buffer.base, &buffer.shape, index, vty)
            }
            Op::Plain(Opcode::Bitcast) => {
                // `instr_ok` accepted only a bitcast, with the loop's shape, of a parameter
                // or of the library result.
                let operand_id = instr.operands[0];
                let operand = frame.comp.instr(operand_id);
                let base = match (&operand.op, &frame.params, &frame.library_result) {
                    (_, _, Some((library, buffer))) if *library == operand_id => buffer.base,
                    (Op::Parameter { number }, Params::Buffers(buffers), _) => {
                        buffers[*number].base
                    }
                    _ => {
                        // A computed operand (`splits_rows_whole`): its vector at the operand
                        // index of the first lane, another index space with a memo of its own.
                        let at = self.reshape_operand_index(frame, instr, index, true)?;
                        return self.emit_vector(frame, operand_id, &at, vty, &mut HashMap::new());
                    }
                };
                // A bitcast keeps the element type: the buffer read in the bitcast's shape.
                self.load_vector(base, array_shape(instr)?, index, vty)
            }
            Op::Parameter { .. } | Op::Constant { .. } => {
                let s = self.emit1(frame, id, &[])?;
                self.b.ins().splat(vty, s)
            }
            Op::Broadcast { dimensions }
                if instr.shape.element_type() == Some(PrimitiveType::Pred) =>
            {
                // A mask varying along the vector (`instr_ok`): its operand's mask at the
                // operand's index, with a memo of its own (another index space).
                let at: Vec<Value> = dimensions.iter().map(|&d| index[d]).collect();
                self.emit_vector(frame, instr.operands[0], &at, vty, &mut HashMap::new())?
            }
            Op::Broadcast { .. } if scalar_operand(0) => {
                let s = self.emit1(frame, instr.operands[0], &[])?;
                self.b.ins().splat(vty, s)
            }
            Op::Broadcast { dimensions } => {
                let operand = frame.comp.instr(instr.operands[0]);
                let at: Vec<Value> = dimensions.iter().map(|&d| index[d]).collect();
                let minor = *array_shape(instr)?
                    .layout
                    .minor_to_major
                    .first()
                    .ok_or_else(|| error(instr, "rank-0 broadcast"))?;
                if dimensions.contains(&minor) {
                    // Varies along the minor dimension: a contiguous load from the parameter.
                    let (Op::Parameter { number }, Params::Buffers(buffers)) =
                        (&operand.op, &frame.params)
                    else {
                        return Err(error(instr, "vector broadcast of a non-parameter"));
                    };
                    let buffer = &buffers[*number];
                    self.load_vector(buffer.base, &buffer.shape, &at, vty)
                } else {
                    // Constant along the vector: one scalar, splat.
                    let s = self.emit1(frame, instr.operands[0], &at)?;
                    self.b.ins().splat(vty, s)
                }
            }
            Op::ReduceWindow { window, to_apply } => {
                self.vector_reduce_window(frame, instr, window, *to_apply, index, vty)?
            }
            Op::Transpose { dimensions } => {
                // Output dimension `d` is operand dimension `dimensions[d]`; another index
                // space, so the operand's tree gets a memo of its own.
                let mut at = index.to_vec();
                for (d, &od) in dimensions.iter().enumerate() {
                    at[od] = index[d];
                }
                self.emit_vector(frame, instr.operands[0], &at, vty, &mut HashMap::new())?
            }
            Op::Slice { slice } => {
                // The operand at the shifted index; its values there are not the ones the
                // memo holds for this index, so the operand's tree gets a memo of its own.
                let at = self.slice_operand_index(slice, index);
                self.emit_vector(frame, instr.operands[0], &at, vty, &mut HashMap::new())?
            }
            Op::DynamicSlice { sizes } => {
                // As a slice, from the clamped start indices (scalars).
                let at = self.dynamic_slice_operand_index(frame, instr, sizes, index)?;
                self.emit_vector(frame, instr.operands[0], &at, vty, &mut HashMap::new())?
            }
            Op::Compare { direction, .. }
                if frame.comp.instr(instr.operands[0]).shape.element_type()
                    == Some(PrimitiveType::S32) =>
            {
                // s32 indices as i32 lanes (`index_lanes`), compared into an i32 lane
                // mask, seen as the loop's f32 lanes for `select`'s `bitselect`.
                let a = self.index_lanes(frame, instr.operands[0], index)?;
                let b = self.index_lanes(frame, instr.operands[1], index)?;
                self.index_compare(*direction, a, b, vty)
            }
            Op::Compare { direction, .. } => {
                let a = self.emit_vector(frame, instr.operands[0], index, vty, memo)?;
                let b = self.emit_vector(frame, instr.operands[1], index, vty, memo)?;
                // A lane mask of the data type, ready for `select`'s `bitselect`.
                self.float_compare(*direction, a, b)
            }
            Op::Plain(op) => {
                let mut args = Vec::with_capacity(instr.operands.len());
                for &o in &instr.operands {
                    args.push(self.emit_vector(frame, o, index, vty, memo)?);
                }
                self.float_lanes(instr, *op, t, &args)?
            }
            _ => return Err(error(instr, "not vectorized")),
        };
        Ok(v)
    }

    /// The i32x4 lanes of s32 index `id` (accepted by `index_lanes`) at `index`: an iota
    /// along the vector counts up from the index, any other is the same in every lane.
    fn index_lanes(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let instr = frame.comp.instr(id);
        if let Op::Iota { dimension } = instr.op {
            let i = *index
                .get(dimension)
                .ok_or_else(|| error(instr, "iota dimension out of range"))?;
            let i = self.b.ins().ireduce(types::I32, i);
            let lanes = self.b.ins().splat(types::I32X4, i);
            let minor = array_shape(instr)?.layout.minor_to_major.first().copied();
            if minor != Some(dimension) {
                return Ok(lanes);
            }
            let steps: Vec<u8> = (0u32..4).flat_map(|k| k.to_le_bytes()).collect();
            let steps = self.b.func.dfg.constants.insert(steps.into());
            let steps = self.b.ins().vconst(types::I32X4, steps);
            return Ok(self.b.ins().iadd(lanes, steps));
        }
        let s = self.emit1(frame, id, &[])?;
        Ok(self.b.ins().splat(types::I32X4, s))
    }

    /// The address of element number `offset` of `shape` in the buffer at `base` (through
    /// a row kernel's latest pointer reload, `Emitter::base`).
    pub(crate) fn vector_address(
        &mut self,
        base: Value,
        shape: &ArrayShape,
        offset: Value,
    ) -> Value {
        let size = shape.element_type.byte_size() as i64;
        let bytes = self.b.ins().imul_imm_s(offset, size);
        let base = self.base(base);
        self.b.ins().iadd(base, bytes)
    }

    /// Loads the `vty` vector whose first lane is element `index` of the buffer at `base`.
    pub fn load_vector(
        &mut self,
        base: Value,
        shape: &ArrayShape,
        index: &[Value],
        vty: Type,
    ) -> Value {
        let offset = self.physical_offset(shape, index);
        let addr = self.vector_address(base, shape, offset);
        self.b.ins().load(vty, data_flags(), addr, 0)
    }

    /// Stores vector `v` at the output element `index` (the first of its lanes).
    pub fn store_vector(&mut self, base: Value, shape: &ArrayShape, index: &[Value], v: Value) {
        let offset = self.physical_offset(shape, index);
        let addr = self.vector_address(base, shape, offset);
        self.b.ins().store(data_flags(), v, addr, 0);
    }
}
