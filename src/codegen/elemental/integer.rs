//! Integer and `pred` elementwise ops with XLA's semantics: wrapping arithmetic; `x / 0` is
//! -1 (all ones, for unsigned too), `MIN / -1` is `MIN`, `x % 0` is `x`; shifts by the
//! width or more give 0 (or the sign fill for an arithmetic right shift); `pred` ops are
//! C++ `bool` arithmetic. Division is guarded with a safe divisor and a `select`, so no
//! instruction can trap (Cranelift's `sdiv`/`udiv` trap on zero and on overflow).
//! XLA: `ElementalIrEmitter::EmitIntegerBinaryOp`, `EmitIntegerDivide`,
//! `EmitIntegerRemainder`, `EmitShiftLeft` (`xla/service/elemental_ir_emitter.cc`).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::{Emitter, error};
use crate::codegen::CodegenError;
use crate::ir::{Instruction, Opcode, PrimitiveType};

impl Emitter<'_, '_, '_> {
    pub(super) fn int_unary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        t: PrimitiveType,
        x: Value,
    ) -> Result<Value, CodegenError> {
        use Opcode::*;
        let ty = self.b.func.dfg.value_type(x);
        Ok(match op {
            Abs if t.is_signed_integral() => {
                let neg = self.b.ins().ineg(x);
                let zero = self.b.ins().iconst(ty, 0);
                let is_neg = self.b.ins().icmp(IntCC::SignedLessThan, x, zero);
                self.b.ins().select(is_neg, neg, x)
            }
            Abs => x,
            Negate => self.b.ins().ineg(x),
            Not => self.b.ins().bnot(x),
            Sign => {
                let zero = self.b.ins().iconst(ty, 0);
                let positive = if t.is_signed_integral() {
                    self.b.ins().icmp(IntCC::SignedGreaterThan, x, zero)
                } else {
                    self.b.ins().icmp(IntCC::NotEqual, x, zero)
                };
                let positive = self.widen_bool(positive, ty);
                if t.is_signed_integral() {
                    let negative = self.b.ins().icmp(IntCC::SignedLessThan, x, zero);
                    let negative = self.widen_bool(negative, ty);
                    self.b.ins().isub(positive, negative)
                } else {
                    positive
                }
            }
            PopulationCount => {
                let wide = self.zero_extend_to(x, types::I64);
                let n = self.b.ins().popcnt(wide);
                self.reduce_to(ty, n)
            }
            Clz => {
                let wide = self.zero_extend_to(x, types::I64);
                let n = self.b.ins().clz(wide);
                let n = self.b.ins().iadd_imm_s(n, -(64 - ty.bits() as i64));
                self.reduce_to(ty, n)
            }
            _ => return Err(error(instr, format!("{op} is not defined on {t}"))),
        })
    }

    pub(super) fn int_binary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        t: PrimitiveType,
        a: Value,
        b: Value,
    ) -> Result<Value, CodegenError> {
        use Opcode::*;
        let ty = self.b.func.dfg.value_type(a);
        let signed = t.is_signed_integral();
        Ok(match op {
            Add => self.b.ins().iadd(a, b),
            Subtract => self.b.ins().isub(a, b),
            Multiply => {
                // Multiply narrow types in 32 bits: the low bits of the product are the same.
                if ty.bits() < 32 {
                    let wa = self.zero_extend_to(a, types::I32);
                    let wb = self.zero_extend_to(b, types::I32);
                    let p = self.b.ins().imul(wa, wb);
                    self.b.ins().ireduce(ty, p)
                } else {
                    self.b.ins().imul(a, b)
                }
            }
            MulHi => self.mul_hi(ty, signed, a, b),
            Divide | Remainder => self.guarded_divide(op, ty, signed, a, b),
            Maximum if signed => self.b.ins().smax(a, b),
            Maximum => self.b.ins().umax(a, b),
            Minimum if signed => self.b.ins().smin(a, b),
            Minimum => self.b.ins().umin(a, b),
            And => self.b.ins().band(a, b),
            Or => self.b.ins().bor(a, b),
            Xor => self.b.ins().bxor(a, b),
            ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => self.shift(op, ty, a, b),
            Power => {
                let (wa, wb) = if signed {
                    (
                        self.sign_extend_to(a, types::I64),
                        self.sign_extend_to(b, types::I64),
                    )
                } else {
                    (
                        self.zero_extend_to(a, types::I64),
                        self.zero_extend_to(b, types::I64),
                    )
                };
                let name = if signed {
                    "xlac_ipow_signed"
                } else {
                    "xlac_ipow_unsigned"
                };
                let r = self.libcall(name, &[wa, wb]);
                self.reduce_to(ty, r)
            }
            _ => return Err(error(instr, format!("{op} is not defined on {t}"))),
        })
    }

    /// `a / b` or `a % b` without traps: divide by 1 where `b == 0` or `a == MIN, b == -1`,
    /// then select XLA's answers (`-1` / all ones, and `a`, for division by zero).
    fn guarded_divide(
        &mut self,
        op: Opcode,
        ty: types::Type,
        signed: bool,
        a: Value,
        b: Value,
    ) -> Value {
        let zero = self.b.ins().iconst(ty, 0);
        let one = self.b.ins().iconst(ty, 1);
        let by_zero = self.b.ins().icmp(IntCC::Equal, b, zero);
        let mut unsafe_divisor = by_zero;
        if signed {
            let min = self.b.ins().iconst(ty, min_of(ty));
            let minus_one = self.b.ins().iconst(ty, -1);
            let a_min = self.b.ins().icmp(IntCC::Equal, a, min);
            let b_m1 = self.b.ins().icmp(IntCC::Equal, b, minus_one);
            let overflow = self.b.ins().band(a_min, b_m1);
            unsafe_divisor = self.b.ins().bor(by_zero, overflow);
        }
        let safe = self.b.ins().select(unsafe_divisor, one, b);
        if op == Opcode::Divide {
            // MIN / 1 = MIN is already XLA's answer for MIN / -1.
            let q = if signed {
                self.b.ins().sdiv(a, safe)
            } else {
                self.b.ins().udiv(a, safe)
            };
            let all_ones = self.b.ins().iconst(ty, -1);
            self.b.ins().select(by_zero, all_ones, q)
        } else {
            // MIN % 1 = 0 is XLA's answer for MIN % -1.
            let r = if signed {
                self.b.ins().srem(a, safe)
            } else {
                self.b.ins().urem(a, safe)
            };
            self.b.ins().select(by_zero, a, r)
        }
    }

    /// Shifts with amounts read as unsigned; amounts >= the width give 0 (sign fill for
    /// `shift-right-arithmetic`). Cranelift masks the amount, so clamp it first.
    fn shift(&mut self, op: Opcode, ty: types::Type, a: Value, b: Value) -> Value {
        let width = self.b.ins().iconst(ty, ty.bits() as i64);
        let too_far = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, b, width);
        match op {
            Opcode::ShiftRightArithmetic => {
                let max = self.b.ins().iconst(ty, ty.bits() as i64 - 1);
                let amount = self.b.ins().select(too_far, max, b);
                self.b.ins().sshr(a, amount)
            }
            _ => {
                let shifted = if op == Opcode::ShiftLeft {
                    self.b.ins().ishl(a, b)
                } else {
                    self.b.ins().ushr(a, b)
                };
                let zero = self.b.ins().iconst(ty, 0);
                self.b.ins().select(too_far, zero, shifted)
            }
        }
    }

    /// The high half of the double-width product.
    fn mul_hi(&mut self, ty: types::Type, signed: bool, a: Value, b: Value) -> Value {
        if ty == types::I64 {
            return if signed {
                self.b.ins().smulhi(a, b)
            } else {
                self.b.ins().umulhi(a, b)
            };
        }
        let (wa, wb) = if signed {
            (
                self.sign_extend_to(a, types::I64),
                self.sign_extend_to(b, types::I64),
            )
        } else {
            (
                self.zero_extend_to(a, types::I64),
                self.zero_extend_to(b, types::I64),
            )
        };
        let p = self.b.ins().imul(wa, wb);
        let hi = self.b.ins().sshr_imm_s(p, ty.bits() as i64);
        self.b.ins().ireduce(ty, hi)
    }

    pub(super) fn pred_unary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        x: Value,
    ) -> Result<Value, CodegenError> {
        match op {
            Opcode::Not => Ok(self.b.ins().bxor_imm_s(x, 1)),
            _ => Err(error(instr, format!("{op} is not defined on pred"))),
        }
    }

    /// `pred` binary ops as XLA computes them on C++ `bool`.
    pub(super) fn pred_binary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        a: Value,
        b: Value,
    ) -> Result<Value, CodegenError> {
        use Opcode::*;
        Ok(match op {
            And | Multiply | Minimum => self.b.ins().band(a, b),
            Or | Add | Maximum => self.b.ins().bor(a, b),
            Xor | Subtract => self.b.ins().bxor(a, b),
            // x / 0 = true (the maximum of unsigned bool), x / 1 = x.
            Divide => {
                let not_b = self.b.ins().bxor_imm_s(b, 1);
                self.b.ins().bor(a, not_b)
            }
            // x % 0 = x, x % 1 = 0.
            Remainder => {
                let not_b = self.b.ins().bxor_imm_s(b, 1);
                self.b.ins().band(a, not_b)
            }
            Power => {
                let not_b = self.b.ins().bxor_imm_s(b, 1);
                self.b.ins().bor(a, not_b)
            }
            _ => return Err(error(instr, format!("{op} is not defined on pred"))),
        })
    }

    /// A 0/1 `i8` comparison result as 0/1 of `ty`.
    pub fn widen_bool(&mut self, c: Value, ty: types::Type) -> Value {
        if ty == types::I8 {
            c
        } else {
            self.b.ins().uextend(ty, c)
        }
    }

    /// `x` zero-extended to `ty` (unchanged if already that wide).
    pub fn zero_extend_to(&mut self, x: Value, ty: types::Type) -> Value {
        let from = self.b.func.dfg.value_type(x);
        if from.bits() < ty.bits() {
            self.b.ins().uextend(ty, x)
        } else {
            x
        }
    }

    /// `x` truncated to `ty` (unchanged if already that narrow).
    pub fn reduce_to(&mut self, ty: types::Type, x: Value) -> Value {
        if self.b.func.dfg.value_type(x).bits() > ty.bits() {
            self.b.ins().ireduce(ty, x)
        } else {
            x
        }
    }

    /// `x` sign-extended to `ty` (unchanged if already that wide).
    pub fn sign_extend_to(&mut self, x: Value, ty: types::Type) -> Value {
        let from = self.b.func.dfg.value_type(x);
        if from.bits() < ty.bits() {
            self.b.ins().sextend(ty, x)
        } else {
            x
        }
    }
}

/// The smallest value of a signed integer type.
fn min_of(ty: types::Type) -> i64 {
    if ty.bits() == 64 {
        i64::MIN
    } else {
        -(1i64 << (ty.bits() - 1))
    }
}
