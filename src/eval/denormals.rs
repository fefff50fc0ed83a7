//! Flush-to-zero: XLA:CPU runs float arithmetic with denormals flushed to (sign-preserving)
//! zero, both as inputs (DAZ) and as results (FTZ) — its `--xla_cpu_ftz` flag, on by default,
//! which compiles kernels with `denormal-fp-math=preserve-sign`. So on XLA:CPU
//! `log(1e-40)` is `-inf` and `rsqrt(1e-40)` is `inf`. XLA's HloEvaluator keeps denormals;
//! xlac's interpreter follows XLA:CPU by default (`EvalOptions::flush_denormals`), because
//! the results users compare with come from XLA:CPU.
//!
//! Only arithmetic flushes. Ops that move bits without arithmetic (copy, select, negate and
//! abs, which XLA:CPU emits as sign-bit operations, bitcast-convert, reduce-precision, which
//! works on the integer bit pattern) keep denormals.

use std::borrow::Cow;

use crate::ir::{ArrayData, Literal, OpCategory, Opcode};

/// True if XLA:CPU computes `opcode` with float arithmetic that flushes denormals.
pub fn flushes(opcode: Opcode) -> bool {
    use Opcode::*;
    let elementwise = matches!(
        opcode.category(),
        OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary
    );
    elementwise
        && !matches!(
            opcode,
            Copy | Select | Negate | Abs | BitcastConvert | ReducePrecision
        )
}

/// [`flushes`] for one instruction given its operands' element types: a `convert` from a
/// complex type takes the real part without arithmetic, and XLA:CPU keeps its denormals
/// (measured with jax 0.10.2: `c64` (1e-40, 0) converts to the f32 1e-40 and to the bf16
/// denormal 9.18e-41).
pub fn flushes_with(opcode: Opcode, operand_types: &[Option<crate::ir::PrimitiveType>]) -> bool {
    flushes(opcode)
        && !(opcode == Opcode::Convert
            && operand_types
                .iter()
                .any(|t| t.is_some_and(|t| t.is_complex())))
}

/// The literal with every f32/f64 (and bf16, which shares f32's exponent range) denormal
/// replaced by a zero of the same sign; borrowed unchanged when there is none.
pub fn flush(lit: &Literal) -> Cow<'_, Literal> {
    let Literal::Array(a) = lit else {
        return Cow::Borrowed(lit);
    };
    let data = match &a.data {
        ArrayData::F32(v) if v.iter().any(|x| x.is_subnormal()) => ArrayData::F32(
            v.iter()
                .map(|&x| {
                    if x.is_subnormal() {
                        0.0f32.copysign(x)
                    } else {
                        x
                    }
                })
                .collect(),
        ),
        ArrayData::F64(v) if v.iter().any(|x| x.is_subnormal()) => ArrayData::F64(
            v.iter()
                .map(|&x| {
                    if x.is_subnormal() {
                        0.0f64.copysign(x)
                    } else {
                        x
                    }
                })
                .collect(),
        ),
        ArrayData::BF16(v) if v.iter().any(|x| x.to_f32().is_subnormal()) => ArrayData::BF16(
            v.iter()
                .map(|&x| {
                    if x.to_f32().is_subnormal() {
                        half::bf16::from_bits(x.to_bits() & 0x8000)
                    } else {
                        x
                    }
                })
                .collect(),
        ),
        _ => return Cow::Borrowed(lit),
    };
    let mut out = a.clone();
    out.data = data;
    Cow::Owned(Literal::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ArrayLiteral;

    #[test]
    fn flushes_keeping_the_sign() {
        let lit = Literal::Array(ArrayLiteral::from_vec(&[3], vec![1e-40f32, -1e-40, 1.5]));
        let out = flush(&lit);
        let v = out.as_array().unwrap().values::<f32>().unwrap();
        assert_eq!(v[0].to_bits(), 0);
        assert_eq!(v[1].to_bits(), 0x8000_0000);
        assert_eq!(v[2], 1.5);
        let normal = Literal::Array(ArrayLiteral::from_vec(&[1], vec![1.0f64]));
        assert!(matches!(flush(&normal), Cow::Borrowed(_)));
    }

    #[test]
    fn sign_bit_ops_do_not_flush() {
        assert!(flushes(Opcode::Log));
        assert!(flushes(Opcode::Compare));
        assert!(!flushes(Opcode::Negate));
        assert!(!flushes(Opcode::Select));
        assert!(!flushes(Opcode::Reshape));
        use crate::ir::PrimitiveType::{C64, F32};
        assert!(flushes_with(Opcode::Convert, &[Some(F32)]));
        assert!(!flushes_with(Opcode::Convert, &[Some(C64)]));
        assert!(flushes_with(Opcode::Add, &[Some(C64), Some(C64)]));
    }
}
