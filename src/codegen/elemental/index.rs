//! Data movement as index arithmetic: each op maps its output index to an operand index
//! (broadcast drops dimensions, transpose permutes, slice scales and shifts, reshape
//! re-linearizes) and asks the operand for that element. Dynamic starts and gather indices
//! are clamped as XLA defines; pad and concatenate select or branch, so no read is ever out
//! of bounds.
//! XLA: `ElementalIrEmitter::MakeElementGenerator` cases kBroadcast, kSlice, kPad,
//! kConcatenate, kGather, kDynamicSlice, kDynamicUpdateSlice, kReshape, kTranspose,
//! kReverse, kIota (`xla/service/elemental_ir_emitter.cc`).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::{Emitter, Frame, array_shape, block_args, element_type, error, value_type};
use crate::codegen::CodegenError;
use crate::ir::{
    GatherDimensionNumbers, InstrId, Instruction, PaddingDimension, PrimitiveType, SliceDimension,
};

impl<'m> Emitter<'m, '_, '_> {
    /// `iota`: the index along `dimension`, converted to the element type.
    pub(super) fn iota(
        &mut self,
        instr: &Instruction,
        dimension: usize,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let t = element_type(instr)?;
        let i = *index
            .get(dimension)
            .ok_or_else(|| error(instr, "iota dimension out of range"))?;
        let v = self.convert_value(instr, PrimitiveType::S64, t, i)?;
        Ok(self.round_to_storage(t, v))
    }

    pub(super) fn broadcast(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        dimensions: &[usize],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let mut operand_index = Vec::with_capacity(dimensions.len());
        for &d in dimensions {
            operand_index.push(
                *index
                    .get(d)
                    .ok_or_else(|| error(instr, "broadcast dimension out of range"))?,
            );
        }
        self.emit(frame, instr.operands[0], &operand_index)
    }

    pub(super) fn transpose(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        dimensions: &[usize],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        // Result dim i is operand dim dimensions[i].
        let mut operand_index = index.to_vec();
        for (i, &d) in dimensions.iter().enumerate() {
            *operand_index
                .get_mut(d)
                .ok_or_else(|| error(instr, "transpose dimension out of range"))? = index[i];
        }
        self.emit(frame, instr.operands[0], &operand_index)
    }

    pub(super) fn reverse(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        dimensions: &[usize],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let dims = array_shape(instr)?.dims.clone();
        let mut operand_index = index.to_vec();
        for &d in dimensions {
            let last = self.i64c(dims[d] - 1);
            operand_index[d] = self.b.ins().isub(last, index[d]);
        }
        self.emit(frame, instr.operands[0], &operand_index)
    }

    pub(super) fn slice(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        slice: &[SliceDimension],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_index = self.slice_operand_index(slice, index);
        self.emit(frame, instr.operands[0], &operand_index)
    }

    /// The operand index a slice's element `index` reads: `start + index * stride` in each
    /// dimension, the same `Value` where that is the identity (so row caches still match).
    pub(crate) fn slice_operand_index(
        &mut self,
        slice: &[SliceDimension],
        index: &[Value],
    ) -> Vec<Value> {
        let mut operand_index = Vec::with_capacity(index.len());
        for (s, &i) in slice.iter().zip(index) {
            let scaled = if s.stride == 1 {
                i
            } else {
                self.b.ins().imul_imm_s(i, s.stride)
            };
            operand_index.push(if s.start == 0 {
                scaled
            } else {
                self.b.ins().iadd_imm_s(scaled, s.start)
            });
        }
        operand_index
    }

    /// A dynamic start index operand (a scalar of any integer type) as `i64`, clamped to
    /// `[0, max]`.
    pub(crate) fn clamped_start(
        &mut self,
        frame: &Frame<'m>,
        operand: InstrId,
        max: i64,
    ) -> Result<Value, CodegenError> {
        let instr = frame.comp.instr(operand);
        let t = element_type(instr)?;
        let v = self.emit1(frame, operand, &[])?;
        let wide = if t.is_signed_integral() {
            self.sign_extend_to(v, types::I64)
        } else {
            self.zero_extend_to(v, types::I64)
        };
        Ok(self.clamp_i64(wide, 0, max.max(0)))
    }

    /// `min(max(v, lo), hi)` on `i64`.
    pub fn clamp_i64(&mut self, v: Value, lo: i64, hi: i64) -> Value {
        let lo = self.i64c(lo);
        let hi = self.i64c(hi);
        let v = self.b.ins().smax(v, lo);
        self.b.ins().smin(v, hi)
    }

    pub(super) fn dynamic_slice(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        sizes: &[i64],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_index = self.dynamic_slice_operand_index(frame, instr, sizes, index)?;
        self.emit(frame, instr.operands[0], &operand_index)
    }

    /// The operand index a dynamic-slice's element `index` reads: the clamped start plus
    /// `index` in each dimension.
    pub(crate) fn dynamic_slice_operand_index(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        sizes: &[i64],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_dims = array_shape(frame.comp.instr(instr.operands[0]))?
            .dims
            .clone();
        let mut operand_index = Vec::with_capacity(index.len());
        for (d, &i) in index.iter().enumerate() {
            let start_operand = *instr
                .operands
                .get(1 + d)
                .ok_or_else(|| error(instr, "missing start index"))?;
            let start = self.clamped_start(frame, start_operand, operand_dims[d] - sizes[d])?;
            operand_index.push(self.b.ins().iadd(start, i));
        }
        Ok(operand_index)
    }

    /// `dynamic-update-slice` read as an element: the update where the (clamped) window
    /// covers the index, the operand elsewhere. (A root DUS is emitted in place instead;
    /// see `loop_emitter.rs`.)
    pub(super) fn dynamic_update_slice(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let dims = array_shape(instr)?.dims.clone();
        let update_dims = array_shape(frame.comp.instr(instr.operands[1]))?
            .dims
            .clone();
        let base = self.emit1(frame, instr.operands[0], index)?;
        if update_dims.contains(&0) {
            return Ok(vec![base]);
        }
        let mut inside: Option<Value> = None;
        let mut update_index = Vec::with_capacity(index.len());
        for (d, &i) in index.iter().enumerate() {
            let start_operand = *instr
                .operands
                .get(2 + d)
                .ok_or_else(|| error(instr, "missing start index"))?;
            let start = self.clamped_start(frame, start_operand, dims[d] - update_dims[d])?;
            let rel = self.b.ins().isub(i, start);
            let limit = self.i64c(update_dims[d]);
            let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, rel, limit);
            inside = Some(match inside {
                None => ok,
                Some(c) => self.b.ins().band(c, ok),
            });
            update_index.push(self.clamp_i64(rel, 0, update_dims[d] - 1));
        }
        let update = self.emit1(frame, instr.operands[1], &update_index)?;
        Ok(vec![match inside {
            Some(c) => self.b.ins().select(c, update, base),
            None => update,
        }])
    }

    pub(super) fn pad(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        padding: &[PaddingDimension],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_dims = array_shape(frame.comp.instr(instr.operands[0]))?
            .dims
            .clone();
        let pad_value = self.emit1(frame, instr.operands[1], &[])?;
        if operand_dims.contains(&0) {
            return Ok(vec![pad_value]);
        }
        let mut valid: Option<Value> = None;
        let mut operand_index = Vec::with_capacity(index.len());
        for (d, (p, &i)) in padding.iter().zip(index).enumerate() {
            let n = operand_dims[d];
            // t = i - low; element k of the operand sits at t = k * (interior + 1).
            let t = self.b.ins().iadd_imm_s(i, -p.low);
            let (k, mut ok) = if p.interior == 0 {
                let limit = self.i64c(n);
                let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, t, limit);
                (t, ok)
            } else {
                let step = p.interior + 1;
                let zero = self.i64c(0);
                let nonneg = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, t, zero);
                let tc = self.b.ins().smax(t, zero);
                let k = self.b.ins().udiv_imm_s(tc, step);
                let r = self.b.ins().urem_imm_s(tc, step);
                let on_element = self.b.ins().icmp(IntCC::Equal, r, zero);
                let limit = self.i64c(n);
                let in_range = self.b.ins().icmp(IntCC::SignedLessThan, k, limit);
                let ok = self.b.ins().band(nonneg, on_element);
                (k, self.b.ins().band(ok, in_range))
            };
            if let Some(v) = valid {
                ok = self.b.ins().band(v, ok);
            }
            valid = Some(ok);
            operand_index.push(self.clamp_i64(k, 0, n - 1));
        }
        let x = self.emit1(frame, instr.operands[0], &operand_index)?;
        Ok(vec![match valid {
            Some(c) => self.b.ins().select(c, x, pad_value),
            None => x,
        }])
    }

    /// `concatenate`: branches to the operand whose range along `dimension` holds the
    /// index (a chain of compares; only the chosen operand is computed).
    pub(super) fn concatenate(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        dimension: usize,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let t = element_type(instr)?;
        let ty = value_type(t).ok_or_else(|| error(instr, format!("type {t}")))?;
        let mut parts = Vec::new();
        let mut offset = 0i64;
        for &o in &instr.operands {
            let size = array_shape(frame.comp.instr(o))?.dims[dimension];
            if size > 0 {
                parts.push((o, offset, size));
            }
            offset += size;
        }
        let Some(&(last, last_offset, _)) = parts.last() else {
            return Ok(vec![self.constant_from_bits(t, 0)]);
        };
        let merge = self.b.create_block();
        self.b.append_block_param(merge, ty);
        for &(o, start, size) in &parts[..parts.len() - 1] {
            let limit = self.i64c(start + size);
            let here = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThan, index[dimension], limit);
            let then_block = self.b.create_block();
            let else_block = self.b.create_block();
            self.b.ins().brif(here, then_block, &[], else_block, &[]);
            self.b.switch_to_block(then_block);
            let v = self.concat_part(frame, o, start, dimension, index)?;
            self.b.ins().jump(merge, &block_args(&[v]));
            self.b.switch_to_block(else_block);
        }
        let v = self.concat_part(frame, last, last_offset, dimension, index)?;
        self.b.ins().jump(merge, &block_args(&[v]));
        self.b.switch_to_block(merge);
        Ok(vec![self.b.block_params(merge)[0]])
    }

    fn concat_part(
        &mut self,
        frame: &Frame<'m>,
        operand: InstrId,
        start: i64,
        dimension: usize,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let mut operand_index = index.to_vec();
        operand_index[dimension] = self.b.ins().iadd_imm_s(index[dimension], -start);
        self.push_scope();
        let v = self.emit1(frame, operand, &operand_index);
        self.pop_scope();
        v
    }

    /// `reshape` (logical row-major order is kept) and `bitcast` (physical order is kept):
    /// linearize the result index, then split it by the operand's strides.
    pub(super) fn reshape(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        index: &[Value],
        is_bitcast: bool,
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_index = self.reshape_operand_index(frame, instr, index, is_bitcast)?;
        self.emit(frame, instr.operands[0], &operand_index)
    }

    /// The operand index a `reshape` (`is_bitcast`: a `bitcast`) reads for its element
    /// `index`.
    pub(crate) fn reshape_operand_index(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        index: &[Value],
        is_bitcast: bool,
    ) -> Result<Vec<Value>, CodegenError> {
        let out = array_shape(instr)?.clone();
        let operand = array_shape(frame.comp.instr(instr.operands[0]))?.clone();
        let same_layout = out.layout.minor_to_major == operand.layout.minor_to_major;
        if out.dims == operand.dims && (!is_bitcast || same_layout) {
            return Ok(index.to_vec());
        }
        // Adding or removing size-1 dimensions keeps every other index (logical order).
        let non_unit =
            |dims: &[i64]| -> Vec<usize> { (0..dims.len()).filter(|&d| dims[d] != 1).collect() };
        let (out_nu, op_nu) = (non_unit(&out.dims), non_unit(&operand.dims));
        let squeeze = out_nu.len() == op_nu.len()
            && out_nu
                .iter()
                .zip(&op_nu)
                .all(|(&a, &b)| out.dims[a] == operand.dims[b]);
        // A bitcast keeps physical order: the squeeze is the same map when the non-unit
        // dimensions are in the same physical order on both sides.
        let physical_order = |m2m: &[usize], nu: &[usize]| -> Vec<usize> {
            m2m.iter()
                .filter_map(|d| nu.iter().position(|x| x == d))
                .collect()
        };
        let same_physical_order = physical_order(&out.layout.minor_to_major, &out_nu)
            == physical_order(&operand.layout.minor_to_major, &op_nu);
        if squeeze && (!is_bitcast || same_physical_order) {
            let zero = self.i64c(0);
            let mut operand_index = vec![zero; operand.rank()];
            for (&a, &b) in out_nu.iter().zip(&op_nu) {
                operand_index[b] = index[a];
            }
            return Ok(operand_index);
        }
        let (out_strides, op_strides) = if is_bitcast {
            (out.physical_strides(), operand.physical_strides())
        } else {
            (out.row_major_strides(), operand.row_major_strides())
        };
        let mut linear = self.i64c(0);
        for (&i, &s) in index.iter().zip(&out_strides) {
            let term = if s == 1 {
                i
            } else {
                self.b.ins().imul_imm_s(i, s as i64)
            };
            linear = self.b.ins().iadd(linear, term);
        }
        let mut operand_index = Vec::with_capacity(operand.rank());
        for (d, &s) in op_strides.iter().enumerate() {
            let q = if s == 1 {
                linear
            } else {
                self.b.ins().udiv_imm_s(linear, s as i64)
            };
            // The most-major dimension needs no modulo; others wrap at their size.
            let size = operand.dims[d];
            if size == 1 {
                operand_index.push(self.i64c(0));
                continue;
            }
            let is_major = op_strides
                .iter()
                .zip(&operand.dims)
                .all(|(&other, &n)| n == 1 || other <= s);
            let v = if is_major || size <= 0 {
                q
            } else {
                self.b.ins().urem_imm_s(q, size)
            };
            operand_index.push(v);
        }
        Ok(operand_index)
    }

    pub(super) fn gather(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        dnums: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand_dims = array_shape(frame.comp.instr(instr.operands[0]))?
            .dims
            .clone();
        let indices = frame.comp.instr(instr.operands[1]);
        let indices_rank = array_shape(indices)?.rank();
        let index_type = element_type(indices)?;
        let out_rank = index.len();
        let batch_out: Vec<usize> = (0..out_rank)
            .filter(|d| !dnums.offset_dims.contains(d))
            .collect();
        let ivd = dnums.index_vector_dim;
        // The batch part of the output index, placed at the indices dims other than ivd.
        let batch_index = |k: Option<Value>, this: &mut Self| -> Vec<Value> {
            let mut v = Vec::with_capacity(indices_rank);
            let mut j = 0;
            for d in 0..indices_rank {
                if d == ivd {
                    v.push(k.unwrap_or_else(|| this.i64c(0)));
                } else {
                    v.push(index[batch_out[j]]);
                    j += 1;
                }
            }
            v
        };
        let zero = self.i64c(0);
        let mut start = vec![zero; operand_dims.len()];
        for (k, &d) in dnums.start_index_map.iter().enumerate() {
            let kv = self.i64c(k as i64);
            let at = batch_index(Some(kv), self);
            let raw = self.emit1(frame, instr.operands[1], &at)?;
            let wide = if index_type.is_signed_integral() {
                self.sign_extend_to(raw, types::I64)
            } else {
                self.zero_extend_to(raw, types::I64)
            };
            start[d] = self.clamp_i64(wide, 0, (operand_dims[d] - slice_sizes[d]).max(0));
        }
        for (&d, &s) in dnums
            .operand_batching_dims
            .iter()
            .zip(&dnums.start_indices_batching_dims)
        {
            // Position of indices dim s among the indices dims other than ivd.
            let pos = (0..s).filter(|&x| x != ivd).count();
            let b = index[batch_out[pos]];
            start[d] = self.b.ins().iadd(start[d], b);
        }
        let offset_operand: Vec<usize> = (0..operand_dims.len())
            .filter(|d| {
                !dnums.collapsed_slice_dims.contains(d) && !dnums.operand_batching_dims.contains(d)
            })
            .collect();
        for (&d, &o) in offset_operand.iter().zip(&dnums.offset_dims) {
            start[d] = self.b.ins().iadd(start[d], index[o]);
        }
        self.emit(frame, instr.operands[0], &start)
    }
}
