//! Type changes: `convert` (value conversion: saturating float→int with NaN → 0, the way
//! Rust's `as` and XLA do it), `bitcast-convert` (bit reinterpretation, including the forms
//! that change the element width by adding or dropping a minor dimension),
//! `reduce-precision`, and the rounding of `f16`/`bf16` results (computed in `f32`, rounded
//! to nearest even after every op, as XLA computes them).
//! XLA: `ElementalIrEmitter::EmitIntegerUnaryOp`/`EmitFloatUnaryOp` (kConvert,
//! kBitcastConvert), `EmitReducePrecisionIR` (`xla/service/elemental_ir_emitter.cc`).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};

use super::{Emitter, Frame, element_type, error, value_type};
use crate::codegen::CodegenError;
use crate::ir::{ArrayData, ArrayLiteral, Instruction, PrimitiveType, TypeKind};

impl<'m> Emitter<'m, '_, '_> {
    /// `convert(x)` at `index`.
    pub(super) fn convert_op(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let to = element_type(instr)?;
        let from = element_type(frame.comp.instr(instr.operands[0]))?;
        let x = self.emit1(frame, instr.operands[0], index)?;
        let v = self.convert_value(instr, from, to, x)?;
        Ok(self.round_to_storage(to, v))
    }

    /// Converts a value of element type `from` to element type `to` (before narrow-float
    /// rounding).
    pub fn convert_value(
        &mut self,
        instr: &Instruction,
        from: PrimitiveType,
        to: PrimitiveType,
        x: Value,
    ) -> Result<Value, CodegenError> {
        if from == to {
            return Ok(x);
        }
        let to_ty = value_type(to).ok_or_else(|| error(instr, format!("convert to {to}")))?;
        let from_ty =
            value_type(from).ok_or_else(|| error(instr, format!("convert from {from}")))?;
        use TypeKind::*;
        Ok(match (from.kind(), to.kind()) {
            (Float, Pred) => {
                let zero = self.float_const(from, 0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            }
            (Signed | Unsigned | Pred, Pred) => {
                let zero = self.b.ins().iconst(from_ty, 0);
                self.b.ins().icmp(IntCC::NotEqual, x, zero)
            }
            (Signed | Unsigned | Pred, Signed | Unsigned) => {
                if from_ty.bits() < to_ty.bits() {
                    if from.is_signed_integral() {
                        self.b.ins().sextend(to_ty, x)
                    } else {
                        self.b.ins().uextend(to_ty, x)
                    }
                } else {
                    self.reduce_to(to_ty, x)
                }
            }
            (Signed | Unsigned | Pred, Float) => {
                // Narrow ints convert from 32 bits (Cranelift's conversions want i32/i64).
                let wide = if from_ty.bits() < 32 {
                    if from.is_signed_integral() {
                        self.sign_extend_to(x, types::I32)
                    } else {
                        self.zero_extend_to(x, types::I32)
                    }
                } else {
                    x
                };
                if from.is_signed_integral() {
                    self.b.ins().fcvt_from_sint(to_ty, wide)
                } else {
                    self.b.ins().fcvt_from_uint(to_ty, wide)
                }
            }
            (Float, Signed | Unsigned) => self.float_to_int(from, to, to_ty, x),
            (Float, Float) => {
                let src = self.b.func.dfg.value_type(x);
                if src == to_ty {
                    x
                } else if to_ty == types::F64 {
                    self.b.ins().fpromote(types::F64, x)
                } else {
                    self.b.ins().fdemote(types::F32, x)
                }
            }
            _ => return Err(error(instr, format!("convert from {from} to {to}"))),
        })
    }

    /// Saturating float → int: NaN → 0, out of range → the type's min/max.
    fn float_to_int(
        &mut self,
        _from: PrimitiveType,
        to: PrimitiveType,
        to_ty: types::Type,
        x: Value,
    ) -> Value {
        let signed = to.is_signed_integral();
        if to_ty.bits() >= 32 {
            return if signed {
                self.b.ins().fcvt_to_sint_sat(to_ty, x)
            } else {
                self.b.ins().fcvt_to_uint_sat(to_ty, x)
            };
        }
        // 8/16-bit: saturate to i32, then clamp to the narrow range.
        let bits = to_ty.bits() as i64;
        if signed {
            let wide = self.b.ins().fcvt_to_sint_sat(types::I32, x);
            let lo = self.b.ins().iconst(types::I32, -(1i64 << (bits - 1)));
            let hi = self.b.ins().iconst(types::I32, (1i64 << (bits - 1)) - 1);
            let c = self.b.ins().smax(wide, lo);
            let c = self.b.ins().smin(c, hi);
            self.b.ins().ireduce(to_ty, c)
        } else {
            let wide = self.b.ins().fcvt_to_uint_sat(types::I32, x);
            let hi = self.b.ins().iconst(types::I32, (1i64 << bits) - 1);
            let c = self.b.ins().umin(wide, hi);
            self.b.ins().ireduce(to_ty, c)
        }
    }

    /// `bitcast-convert(x)` at `index`; a width change adds (narrower result) or drops
    /// (wider result) a minor-most dimension of sub-elements, little-endian.
    pub(super) fn bitcast_convert(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let to = element_type(instr)?;
        let operand = frame.comp.instr(instr.operands[0]);
        let from = element_type(operand)?;
        let (fw, tw) = (from.bit_width() as u32, to.bit_width() as u32);
        let bits = if fw == tw {
            let x = self.emit1(frame, instr.operands[0], index)?;
            self.to_bits(from, x)
        } else if fw > tw {
            // Result index [..., j]: bits j*tw.. of the source element at [...].
            let (outer, j) = index.split_at(index.len().saturating_sub(1));
            let x = self.emit1(frame, instr.operands[0], outer)?;
            let raw = self.to_bits(from, x);
            let j = j
                .first()
                .copied()
                .ok_or_else(|| error(instr, "missing sub-element dim"))?;
            let shift = self.b.ins().imul_imm_s(j, i64::from(tw));
            let shifted = self.b.ins().ushr(raw, shift);
            let ty = int_of_width(tw);
            self.reduce_to(ty, shifted)
        } else {
            // Result element at [...]: the source elements [..., k] for k < tw/fw, low first.
            let ty = int_of_width(tw);
            let mut acc = self.b.ins().iconst(ty, 0);
            for k in 0..(tw / fw) {
                let mut sub = index.to_vec();
                sub.push(self.i64c(i64::from(k)));
                let x = self.emit1(frame, instr.operands[0], &sub)?;
                let raw = self.to_bits(from, x);
                let wide = self.zero_extend_to(raw, ty);
                let part = self.b.ins().ishl_imm_s(wide, i64::from(k * fw));
                acc = self.b.ins().bor(acc, part);
            }
            acc
        };
        Ok(self.from_bits(to, bits))
    }

    /// The storage bits of a value of type `t`, as an integer of `t`'s width.
    pub fn to_bits(&mut self, t: PrimitiveType, x: Value) -> Value {
        match t {
            PrimitiveType::F32 => self.b.ins().bitcast(types::I32, MemFlagsData::new(), x),
            PrimitiveType::F64 => self.b.ins().bitcast(types::I64, MemFlagsData::new(), x),
            PrimitiveType::BF16 => {
                let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
                let hi = self.b.ins().ushr_imm_s(bits, 16);
                self.b.ins().ireduce(types::I16, hi)
            }
            PrimitiveType::F16 => {
                let bits = self.libcall("xlac_f32_to_f16", &[x]);
                self.b.ins().ireduce(types::I16, bits)
            }
            _ => x,
        }
    }

    /// The value of type `t` whose storage bits are `bits` (an integer of `t`'s width).
    pub fn from_bits(&mut self, t: PrimitiveType, bits: Value) -> Value {
        match t {
            PrimitiveType::F32 => self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits),
            PrimitiveType::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
            PrimitiveType::BF16 => {
                let wide = self.b.ins().uextend(types::I32, bits);
                let wide = self.b.ins().ishl_imm_s(wide, 16);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), wide)
            }
            PrimitiveType::F16 => {
                let wide = self.b.ins().uextend(types::I32, bits);
                self.libcall("xlac_f16_to_f32", &[wide])
            }
            PrimitiveType::Pred => {
                let zero = self.b.ins().iconst(types::I8, 0);
                self.b.ins().icmp(IntCC::NotEqual, bits, zero)
            }
            _ => bits,
        }
    }

    /// `reduce-precision(x)` at `index` (a libcall; rare in hot loops).
    pub(super) fn reduce_precision(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        exponent_bits: u32,
        mantissa_bits: u32,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let t = element_type(instr)?;
        let x = self.emit1(frame, instr.operands[0], index)?;
        let e = self.b.ins().iconst(types::I32, i64::from(exponent_bits));
        let m = self.b.ins().iconst(types::I32, i64::from(mantissa_bits));
        let v = match t {
            PrimitiveType::F64 => self.libcall("xlac_reduce_precision_f64", &[x, e, m]),
            t if t.is_float() => self.libcall("xlac_reduce_precision_f32", &[x, e, m]),
            _ => return Err(error(instr, format!("reduce-precision on {t}"))),
        };
        Ok(self.round_to_storage(t, v))
    }

    /// Rounds an `f32` holding a result of type `t` to `t`'s precision when `t` is `f16`
    /// or `bf16`; other types pass through.
    pub fn round_to_storage(&mut self, t: PrimitiveType, v: Value) -> Value {
        match t {
            PrimitiveType::BF16 => self.round_to_bf16(v),
            PrimitiveType::F16 => {
                let bits = self.libcall("xlac_f32_to_f16", &[v]);
                self.libcall("xlac_f16_to_f32", &[bits])
            }
            _ => v,
        }
    }

    /// f32 → nearest-even bf16 (still in an f32): `(bits + 0x7fff + lsb) & 0xffff0000`;
    /// NaN becomes the quiet NaN with its sign (Eigen's `bfloat16(float)`).
    pub fn round_to_bf16(&mut self, v: Value) -> Value {
        let bits = self.b.ins().bitcast(types::I32, MemFlagsData::new(), v);
        let lsb = self.b.ins().ushr_imm_s(bits, 16);
        let lsb = self.b.ins().band_imm_s(lsb, 1);
        let biased = self.b.ins().iadd_imm_s(bits, 0x7fff);
        let biased = self.b.ins().iadd(biased, lsb);
        let rounded = self
            .b
            .ins()
            .band_imm_s(biased, 0xffff_0000u32 as i32 as i64);
        let sign = self.b.ins().band_imm_s(bits, 0x8000_0000u32 as i32 as i64);
        let quiet_nan = self.b.ins().bor_imm_s(sign, 0x7fc0_0000);
        let is_nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
        let out = self.b.ins().select(is_nan, quiet_nan, rounded);
        self.b.ins().bitcast(types::F32, MemFlagsData::new(), out)
    }
}

/// The integer type of a width in bits.
fn int_of_width(bits: u32) -> types::Type {
    match bits {
        8 => types::I8,
        16 => types::I16,
        32 => types::I32,
        _ => types::I64,
    }
}

/// A literal's elements as little-endian bytes in physical order (`pred` as 0/1 bytes).
pub fn literal_bytes(array: &ArrayLiteral) -> Option<Vec<u8>> {
    fn flat<const N: usize, T>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(f).collect()
    }
    Some(match &array.data {
        ArrayData::Pred(v) => v.iter().map(|&b| u8::from(b)).collect(),
        ArrayData::U8(v) => v.clone(),
        ArrayData::S8(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::S16(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::S32(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::S64(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::U16(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::U32(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::U64(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::F16(v) => flat(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::BF16(v) => flat(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::F32(v) => flat(v, |x| x.to_le_bytes()),
        ArrayData::F64(v) => flat(v, |x| x.to_le_bytes()),
        _ => return None,
    })
}
