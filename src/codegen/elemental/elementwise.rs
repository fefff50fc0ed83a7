//! Elementwise ops on floats, plus the ops every type shares (`select`, `clamp`, `compare`)
//! and the dispatch of elementwise opcodes by element type (integers and `pred` are in
//! `integer.rs`). Float semantics follow the reference interpreter, which follows XLA:CPU:
//! `maximum`/`minimum` propagate NaN (lhs first) and return the lhs on ties, `sign` keeps
//! the sign of zero, `round-nearest-afz` rounds half away from zero.
//! XLA: `ElementalIrEmitter::EmitFloatUnaryOp`, `EmitFloatBinaryOp`, `EmitFloatMax`
//! (`xla/service/elemental_ir_emitter.cc`, `llvm_util.cc`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};

use super::lanes::{float_cc, signed_cc, unsigned_cc};
use super::{Emitter, Frame, element_type, error};
use crate::codegen::CodegenError;
use crate::ir::{
    ComparisonDirection, ComparisonType, Instruction, Opcode, PrimitiveType, TypeKind,
};

impl<'m> Emitter<'m, '_, '_> {
    /// An elementwise instruction (not `convert`/`bitcast-convert`/`compare`) at `index`.
    pub(super) fn elementwise(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        op: Opcode,
        index: &[cranelift_codegen::ir::Value],
    ) -> Result<Value, CodegenError> {
        let t = element_type(instr)?;
        let mut args = Vec::with_capacity(instr.operands.len());
        for &o in &instr.operands {
            args.push(self.operand_at(frame, o, index)?);
        }
        let operand_type = |k: usize| element_type(frame.comp.instr(instr.operands[k]));
        let v = match op {
            Opcode::Select => self.b.ins().select(args[0], args[1], args[2]),
            Opcode::Clamp => self.clamp(t, args[0], args[1], args[2]),
            Opcode::Copy => args[0],
            Opcode::Real | Opcode::Imag => {
                if operand_type(0)?.is_complex() {
                    return Err(error(instr, "complex operands are library work"));
                }
                if op == Opcode::Real {
                    args[0]
                } else {
                    self.constant_from_bits(t, 0)
                }
            }
            Opcode::IsFinite => {
                let ot = operand_type(0)?;
                let abs = self.b.ins().fabs(args[0]);
                let inf = self.float_const(ot, f64::INFINITY);
                self.b.ins().fcmp(FloatCC::LessThan, abs, inf)
            }
            Opcode::Complex | Opcode::StochasticConvert => {
                return Err(error(instr, format!("{op} is not emitted in kernels")));
            }
            _ => match (t.kind(), args.as_slice()) {
                (TypeKind::Float, &[x]) => self.float_unary(instr, op, t, x)?,
                (TypeKind::Float, &[a, b]) => self.float_binary(instr, op, t, a, b)?,
                (TypeKind::Signed | TypeKind::Unsigned, &[x]) => self.int_unary(instr, op, t, x)?,
                (TypeKind::Signed | TypeKind::Unsigned, &[a, b]) => {
                    self.int_binary(instr, op, t, a, b)?
                }
                (TypeKind::Pred, &[x]) => self.pred_unary(instr, op, x)?,
                (TypeKind::Pred, &[a, b]) => self.pred_binary(instr, op, a, b)?,
                _ => return Err(error(instr, format!("{op} on {t} is not emitted"))),
            },
        };
        Ok(self.round_to_storage(t, v))
    }

    /// A float constant of the computation type of `t`.
    pub fn float_const(&mut self, t: PrimitiveType, x: f64) -> Value {
        if t == PrimitiveType::F64 {
            self.b.ins().f64const(x)
        } else {
            self.b.ins().f32const(x as f32)
        }
    }

    pub(super) fn float_unary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        t: PrimitiveType,
        x: Value,
    ) -> Result<Value, CodegenError> {
        use Opcode::*;
        Ok(match op {
            Abs => self.b.ins().fabs(x),
            Negate => self.float_negate(x),
            Floor => self.b.ins().floor(x),
            Ceil => self.b.ins().ceil(x),
            RoundNearestEven => self.b.ins().nearest(x),
            RoundNearestAfz => self.round_half_away_from_zero(t, x),
            Sqrt => self.b.ins().sqrt(x),
            Rsqrt => self.math_op(op, t, &[x]),
            Sign => {
                // NaN stays NaN; otherwise ±1 or ±0 with x's sign.
                let zero = self.float_const(t, 0.0);
                let one = self.float_const(t, 1.0);
                let is_zero = self.b.ins().fcmp(FloatCC::Equal, x, zero);
                let magnitude = self.b.ins().select(is_zero, zero, one);
                let signed = self.b.ins().fcopysign(magnitude, x);
                let is_nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                self.b.ins().select(is_nan, x, signed)
            }
            Exp | Expm1 | Log | Log1p | Logistic | Tanh | Sin | Cos | Tan | Asin | Acos | Sinh
            | Cosh | Asinh | Acosh | Atanh | Erf | Cbrt => self.math_op(op, t, &[x]),
            _ => return Err(error(instr, format!("{op} is not defined on {t}"))),
        })
    }

    pub(super) fn float_binary(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        t: PrimitiveType,
        a: Value,
        b: Value,
    ) -> Result<Value, CodegenError> {
        use Opcode::*;
        Ok(match op {
            Add => self.b.ins().fadd(a, b),
            Subtract => self.b.ins().fsub(a, b),
            Multiply => self.b.ins().fmul(a, b),
            Divide => self.b.ins().fdiv(a, b),
            Maximum => self.float_max_min(a, b, true),
            Minimum => self.float_max_min(a, b, false),
            Remainder | Power | Atan2 => self.math_op(op, t, &[a, b]),
            _ => return Err(error(instr, format!("{op} is not defined on {t}"))),
        })
    }

    /// The transcendental `op` on `args` (scalars of `t`'s computation type, or `f32x4` /
    /// `f64x2` vectors from the vector loop). Every call site of a math function goes
    /// through here. The ops the inline CLIF math library covers (`codegen::math`: exp,
    /// expm1, log, log1p, logistic, tanh, erf, cbrt, pow, atan2, rsqrt; accuracy in its
    /// `//!` doc, at most 3 ULP) are emitted inline; the rest are libcalls to Rust's
    /// `std`/libm, the functions the interpreter uses, and only ever see scalars. sin, cos
    /// and tan stay libcalls: the library's π/2 reduction is exact only up to |x| ≈ 1.6e6
    /// and XLA (like the interpreter) is accurate beyond that.
    pub fn math_op(&mut self, op: Opcode, t: PrimitiveType, args: &[Value]) -> Value {
        use crate::codegen::math;
        use Opcode::*;
        let o = self.env.math;
        let b = &mut *self.b;
        match (op, args) {
            (Exp, &[x]) => return math::exp(b, &o, x),
            (Expm1, &[x]) => return math::expm1(b, &o, x),
            (Log, &[x]) => return math::log(b, &o, x),
            (Log1p, &[x]) => return math::log1p(b, &o, x),
            (Logistic, &[x]) => return math::logistic(b, &o, x),
            (Tanh, &[x]) => return math::tanh(b, &o, x),
            (Erf, &[x]) => return math::erf(b, &o, x),
            (Cbrt, &[x]) => return math::cbrt(b, &o, x),
            (Rsqrt, &[x]) => return math::rsqrt(b, &o, x),
            (Power, &[x, y]) => return math::pow(b, &o, x, y),
            (Atan2, &[y, x]) => return math::atan2(b, &o, y, x),
            _ => {}
        }
        let f64 = t == PrimitiveType::F64;
        let name: &'static str = match (op, f64) {
            (Exp, false) => "xlac_expf",
            (Exp, true) => "xlac_exp",
            (Expm1, false) => "xlac_expm1f",
            (Expm1, true) => "xlac_expm1",
            (Log, false) => "xlac_logf",
            (Log, true) => "xlac_log",
            (Log1p, false) => "xlac_log1pf",
            (Log1p, true) => "xlac_log1p",
            (Logistic, false) => "xlac_logisticf",
            (Logistic, true) => "xlac_logistic",
            (Tanh, false) => "xlac_tanhf",
            (Tanh, true) => "xlac_tanh",
            (Sin, false) => "xlac_sinf",
            (Sin, true) => "xlac_sin",
            (Cos, false) => "xlac_cosf",
            (Cos, true) => "xlac_cos",
            (Tan, false) => "xlac_tanf",
            (Tan, true) => "xlac_tan",
            (Asin, false) => "xlac_asinf",
            (Asin, true) => "xlac_asin",
            (Acos, false) => "xlac_acosf",
            (Acos, true) => "xlac_acos",
            (Sinh, false) => "xlac_sinhf",
            (Sinh, true) => "xlac_sinh",
            (Cosh, false) => "xlac_coshf",
            (Cosh, true) => "xlac_cosh",
            (Asinh, false) => "xlac_asinhf",
            (Asinh, true) => "xlac_asinh",
            (Acosh, false) => "xlac_acoshf",
            (Acosh, true) => "xlac_acosh",
            (Atanh, false) => "xlac_atanhf",
            (Atanh, true) => "xlac_atanh",
            (Erf, false) => "xlac_erff",
            (Erf, true) => "xlac_erf",
            (Cbrt, false) => "xlac_cbrtf",
            (Cbrt, true) => "xlac_cbrt",
            (Power, false) => "xlac_powf",
            (Power, true) => "xlac_pow",
            (Atan2, false) => "xlac_atan2f",
            (Atan2, true) => "xlac_atan2",
            (Remainder, false) => "xlac_fmodf",
            (Remainder, true) => "xlac_fmod",
            _ => unreachable!("math_op called with {op}"),
        };
        self.libcall(name, args)
    }

    /// `round(x)`, half away from zero, exactly: `t = trunc(x)`; if `|x - t| >= 0.5` step
    /// one away from zero. (`x - trunc(x)` is exact, so no double rounding.)
    fn round_half_away_from_zero(&mut self, t: PrimitiveType, x: Value) -> Value {
        let truncated = self.b.ins().trunc(x);
        let diff = self.b.ins().fsub(x, truncated);
        let diff = self.b.ins().fabs(diff);
        let half = self.float_const(t, 0.5);
        let one = self.float_const(t, 1.0);
        let step = self.b.ins().fcopysign(one, x);
        let stepped = self.b.ins().fadd(truncated, step);
        let away = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, diff, half);
        self.b.ins().select(away, stepped, truncated)
    }

    /// XLA's `clamp(lo, x, hi)`: floats give the first NaN of lo, x, hi, else
    /// `min(hi, max(x, lo))`; integers compare by signedness.
    fn clamp(&mut self, t: PrimitiveType, lo: Value, x: Value, hi: Value) -> Value {
        match t.kind() {
            TypeKind::Float => {
                let below = self.b.ins().fcmp(FloatCC::LessThan, x, lo);
                let m = self.b.ins().select(below, lo, x);
                let under = self.b.ins().fcmp(FloatCC::LessThan, m, hi);
                let mut r = self.b.ins().select(under, m, hi);
                for v in [hi, x, lo] {
                    let nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
                    r = self.b.ins().select(nan, v, r);
                }
                r
            }
            TypeKind::Signed => {
                let m = self.b.ins().smax(x, lo);
                self.b.ins().smin(m, hi)
            }
            _ => {
                let m = self.b.ins().umax(x, lo);
                self.b.ins().umin(m, hi)
            }
        }
    }

    /// `compare(a, b)` as a `pred` (i8 0/1).
    pub(super) fn compare(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        direction: ComparisonDirection,
        comparison_type: Option<ComparisonType>,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let a = self.operand_at(frame, instr.operands[0], index)?;
        let b = self.operand_at(frame, instr.operands[1], index)?;
        let t = element_type(frame.comp.instr(instr.operands[0]))?;
        let ctype = comparison_type.unwrap_or(match t.kind() {
            TypeKind::Float => ComparisonType::Float,
            TypeKind::Signed => ComparisonType::Signed,
            TypeKind::Unsigned | TypeKind::Pred => ComparisonType::Unsigned,
            TypeKind::Complex => {
                return Err(error(instr, "complex compare is library work"));
            }
        });
        Ok(match ctype {
            ComparisonType::Float if t.is_float() => self.b.ins().fcmp(float_cc(direction), a, b),
            ComparisonType::TotalOrder if t.is_float() => {
                let ka = self.total_order_key(t, a);
                let kb = self.total_order_key(t, b);
                self.b.ins().icmp(signed_cc(direction), ka, kb)
            }
            ComparisonType::Signed | ComparisonType::TotalOrder if t.is_signed_integral() => {
                self.b.ins().icmp(signed_cc(direction), a, b)
            }
            _ if !t.is_float() => self.b.ins().icmp(unsigned_cc(direction), a, b),
            _ => return Err(error(instr, format!("compare type {ctype} on {t}"))),
        })
    }

    /// An integer whose signed order is XLA's total order of floats
    /// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN): negative patterns get their
    /// magnitude bits flipped. Denormals count as zeros of their sign first, as XLA:CPU
    /// flushes them before comparing.
    fn total_order_key(&mut self, t: PrimitiveType, x: Value) -> Value {
        let (int_ty, shift, tiny) = if t == PrimitiveType::F64 {
            (types::I64, 63, f64::MIN_POSITIVE)
        } else {
            (types::I32, 31, f32::MIN_POSITIVE as f64)
        };
        let abs = self.b.ins().fabs(x);
        let tiny = self.float_const(t, tiny);
        let zero = self.float_const(t, 0.0);
        let signed_zero = self.b.ins().fcopysign(zero, x);
        let is_denormal = self.b.ins().fcmp(FloatCC::LessThan, abs, tiny);
        let x = self.b.ins().select(is_denormal, signed_zero, x);
        let bits = self.b.ins().bitcast(int_ty, MemFlagsData::new(), x);
        let sign = self.b.ins().sshr_imm_s(bits, shift);
        let mask = self.b.ins().ushr_imm_s(sign, 1);
        self.b.ins().bxor(bits, mask)
    }
}
