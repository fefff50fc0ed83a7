//! Explicit vectorization of elementwise loop fusions (issue #7): when every instruction of
//! a fusion is a float elementwise op Cranelift has as a vector instruction, and every
//! array parameter has the output's dimensions and layout (so consecutive minor-dimension
//! elements are consecutive in memory for all of them), the inner loop computes `f32x4` /
//! `f64x2` vectors and a scalar loop finishes the tail. Anything else stays scalar.
//! Cranelift has no auto-vectorizer (../shared/notes/cranelift.md §5.1); XLA relies on
//! LLVM's loop vectorizer for the same loops.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value, types};

use super::CodegenError;
use super::elemental::{Emitter, Frame, Params, data_flags, error};
use crate::ir::{ArrayShape, Computation, InstrId, Op, Opcode, PrimitiveType};

/// The vector type a loop fusion computing `fused` into `output` can use, if any.
pub fn vector_type(fused: &Computation, output: &ArrayShape) -> Option<Type> {
    let (t, ty) = match output.element_type {
        PrimitiveType::F32 => (PrimitiveType::F32, types::F32X4),
        PrimitiveType::F64 => (PrimitiveType::F64, types::F64X2),
        _ => return None,
    };
    let minor = *output.layout.minor_to_major.first()?;
    if output.dims[minor] < i64::from(ty.lane_count()) {
        return None;
    }
    for (_, i) in fused.iter() {
        let a = i.shape.as_array()?;
        if a.element_type != t {
            return None;
        }
        let ok = match &i.op {
            Op::Parameter { .. } => {
                a.rank() == 0 || (a.dims == output.dims && a.layout == output.layout)
            }
            Op::Constant { .. } => a.rank() == 0,
            Op::Broadcast { .. } => fused.instr(i.operands[0]).shape.rank() == 0,
            Op::Plain(op) => {
                use Opcode::*;
                matches!(
                    op,
                    Add | Subtract | Multiply | Divide | Maximum | Minimum | Negate | Abs | Sqrt
                ) && (a.rank() == 0 || a.dims == output.dims)
            }
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    Some(ty)
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
        let instr = frame.comp.instr(id);
        let scalar_operand = |k: usize| frame.comp.instr(instr.operands[k]).shape.rank() == 0;
        let v = match &instr.op {
            Op::Parameter { number } if instr.shape.rank() > 0 => {
                let Params::Buffers(buffers) = &frame.params else {
                    return Err(error(instr, "vector parameters come from buffers"));
                };
                let buffer = buffers[*number].clone();
                let offset = self.physical_offset(&buffer.shape, index);
                let size = buffer.shape.element_type.byte_size() as i64;
                let bytes = self.b.ins().imul_imm_s(offset, size);
                let addr = self.b.ins().iadd(buffer.base, bytes);
                self.b.ins().load(vty, data_flags(), addr, 0)
            }
            Op::Parameter { .. } | Op::Constant { .. } => {
                let s = self.emit1(frame, id, &[])?;
                self.b.ins().splat(vty, s)
            }
            Op::Broadcast { .. } if scalar_operand(0) => {
                let s = self.emit1(frame, instr.operands[0], &[])?;
                self.b.ins().splat(vty, s)
            }
            Op::Plain(op) => {
                let mut args = Vec::with_capacity(instr.operands.len());
                for &o in &instr.operands {
                    args.push(self.emit_vector(frame, o, index, vty, memo)?);
                }
                use Opcode::*;
                match (op, args.as_slice()) {
                    (Add, &[a, b]) => self.b.ins().fadd(a, b),
                    (Subtract, &[a, b]) => self.b.ins().fsub(a, b),
                    (Multiply, &[a, b]) => self.b.ins().fmul(a, b),
                    (Divide, &[a, b]) => self.b.ins().fdiv(a, b),
                    (Maximum, &[a, b]) => self.vector_max_min(vty, a, b, true),
                    (Minimum, &[a, b]) => self.vector_max_min(vty, a, b, false),
                    (Negate, &[a]) => self.b.ins().fneg(a),
                    (Abs, &[a]) => self.b.ins().fabs(a),
                    (Sqrt, &[a]) => self.b.ins().sqrt(a),
                    _ => return Err(error(instr, format!("{op} is not vectorized"))),
                }
            }
            _ => return Err(error(instr, "not vectorized")),
        };
        memo.insert(id, v);
        Ok(v)
    }

    /// XLA's NaN-propagating `maximum`/`minimum` per lane with compares and `bitselect`
    /// (lhs on ties, NaN of the lhs first), like the scalar version.
    fn vector_max_min(&mut self, vty: Type, a: Value, b: Value, max: bool) -> Value {
        let flags = MemFlagsData::new().with_endianness(Endianness::Little);
        let mask = |this: &mut Self, cc: FloatCC, x: Value, y: Value| {
            let m = this.b.ins().fcmp(cc, x, y);
            this.b.ins().bitcast(vty, flags, m)
        };
        let take_b = if max {
            mask(self, FloatCC::LessThan, a, b)
        } else {
            mask(self, FloatCC::LessThan, b, a)
        };
        let r = self.b.ins().bitselect(take_b, b, a);
        let b_nan = mask(self, FloatCC::Unordered, b, b);
        let r = self.b.ins().bitselect(b_nan, b, r);
        let a_nan = mask(self, FloatCC::Unordered, a, a);
        self.b.ins().bitselect(a_nan, a, r)
    }

    /// Stores vector `v` at the output element `index` (the first of its lanes).
    pub fn store_vector(&mut self, base: Value, shape: &ArrayShape, index: &[Value], v: Value) {
        let offset = self.physical_offset(shape, index);
        let size = shape.element_type.byte_size() as i64;
        let bytes = self.b.ins().imul_imm_s(offset, size);
        let addr = self.b.ins().iadd(base, bytes);
        self.b.ins().store(data_flags(), v, addr, 0);
    }
}
