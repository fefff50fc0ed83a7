//! Elementwise ops on complex numbers (`c64`, `c128`) as a native routine: the kernels'
//! elemental emitter computes real types only, so an elementwise instruction that reads or
//! writes complex numbers stays unfused and runs here, one instruction per thunk, over the
//! plan's buffers in their physical layouts.
//!
//! The formulas are [`num_complex`]'s, the ones the interpreter uses (so both give the
//! same bits), and XLA:CPU's results agree within the tolerances of the op sweep:
//! * complex to complex: `negate`, `sign` (`x / |x|`, 0 for 0), `exponential`, `log`,
//!   `sqrt`, `rsqrt`, `tanh`, `sine`, `cosine`, `tan`, `logistic` (`1 / (1 + e^-x)`),
//!   `log-plus-one`, `exponential-minus-one`, `cbrt` (the principal root);
//! * complex to real: `abs` (`|x|`), `real`, `imag`;
//! * binary: `add`, `subtract`, `multiply`, `divide`, `atan2`, `maximum`/`minimum`
//!   (lexicographic on (re, im)), `power` (with XLA's `1`, `inf^r` special cases);
//! * `complex(re, im)`, `compare` (EQ, NE), `select`, and `convert` between complex types,
//!   from any real type to complex, and from complex to any real type (the real part,
//!   narrowed by the destination's rules: integers saturate and NaN is 0, `pred` is
//!   `re != 0`, `f16`/`bf16` round from the real part as f32, a NaN to the quiet NaN of its
//!   sign, as the interpreter's `convert`; denormals kept, as XLA:CPU keeps them: taking
//!   the real part is no arithmetic).
//!
//! Denormals: as the interpreter and XLA:CPU's flush-to-zero do, real f32/f64 operands and
//! results of arithmetic ops are flushed to zero (complex values are computed as they
//! are).
//! XLA: `xla/service/elemental_ir_emitter.cc` (`EmitComplexUnaryOp`, `EmitComplexBinaryOp`).

use num_complex::Complex as Cx;

use crate::ir::{ComparisonDirection, OpCategory, Opcode, PrimitiveType};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

use super::inputs_safe_from;

/// One elementwise instruction over complex numbers.
#[derive(Clone, Debug)]
pub struct ComplexElementwiseThunk {
    /// The instruction.
    pub name: String,
    /// Its opcode.
    pub opcode: Opcode,
    /// For `compare`: EQ or NE.
    pub direction: Option<ComparisonDirection>,
    /// Operands (a scalar `select` predicate applies to every element).
    pub operands: Vec<BufferRef>,
    /// The result.
    pub out: BufferRef,
}

/// One element, widened: every complex as `Cx<f64>`, every real as `f64` (integers
/// as `i128`, so that integer to c64 rounds once).
#[derive(Clone, Copy, Debug)]
enum Value {
    Int(i128),
    Real(f64),
    Complex(Cx<f64>),
}

/// True if the routine computes `opcode` on these operand and result types (at least one
/// of them complex).
pub fn supported(
    opcode: Opcode,
    direction: Option<ComparisonDirection>,
    operands: &[PrimitiveType],
    out: PrimitiveType,
) -> bool {
    use Opcode::*;
    use PrimitiveType::*;
    let complex = |t: PrimitiveType| matches!(t, C64 | C128);
    let real = |t: PrimitiveType| {
        matches!(
            t,
            Pred | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64
        )
    };
    if !operands.iter().chain([&out]).any(|&t| complex(t)) {
        return false;
    }
    let same = |ts: &[PrimitiveType]| ts.iter().all(|&t| t == out);
    match (opcode, operands) {
        (
            Negate | Sign | Exp | Log | Sqrt | Rsqrt | Tanh | Sin | Cos | Tan | Logistic | Log1p
            | Expm1 | Cbrt,
            [_],
        ) => same(operands),
        (Abs | Real | Imag, [x]) => complex(*x) && out == if *x == C64 { F32 } else { F64 },
        (Add | Subtract | Multiply | Divide | Atan2 | Maximum | Minimum | Power, [_, _]) => {
            same(operands)
        }
        (Complex, [a, b]) => a == b && out == if *a == F32 { C64 } else { C128 } && real(*a),
        (Compare, [a, b]) => {
            a == b
                && out == Pred
                && matches!(
                    direction,
                    Some(ComparisonDirection::Eq | ComparisonDirection::Ne)
                )
        }
        (Select, [p, a, b]) => *p == Pred && a == b && *a == out,
        (Convert, [x]) => {
            (complex(*x) && (complex(out) || real(out))) || (real(*x) && complex(out))
        }
        _ => false,
    }
}

/// True if XLA:CPU computes `opcode` with flushed denormals (the interpreter's rule: float
/// arithmetic, not the ops that only move bits).
fn flushes(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode.category(),
        OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary
    ) && !matches!(
        opcode,
        Copy | Select | Negate | Abs | BitcastConvert | ReducePrecision
    )
}

/// Flushes a subnormal f32 (`single`) or f64 to a zero of its sign.
fn flush(x: f64, single: bool) -> f64 {
    let subnormal = if single {
        (x as f32).is_subnormal()
    } else {
        x.is_subnormal()
    };
    if subnormal { 0.0f64.copysign(x) } else { x }
}

/// Reads element `i` of type `ty` at `p`.
///
/// # Safety
/// `p` must hold at least `i + 1` elements of `ty`.
unsafe fn load(p: *const u8, ty: PrimitiveType, i: usize) -> Value {
    use PrimitiveType::*;
    macro_rules! rd {
        ($t:ty) => {
            // SAFETY: the caller guarantees the element; unaligned reads are allowed.
            unsafe { p.cast::<$t>().add(i).read_unaligned() }
        };
    }
    match ty {
        Pred => Value::Int(i128::from(rd!(u8) != 0)),
        S8 => Value::Int(rd!(i8).into()),
        S16 => Value::Int(rd!(i16).into()),
        S32 => Value::Int(rd!(i32).into()),
        S64 => Value::Int(rd!(i64).into()),
        U8 => Value::Int(rd!(u8).into()),
        U16 => Value::Int(rd!(u16).into()),
        U32 => Value::Int(rd!(u32).into()),
        U64 => Value::Int(rd!(u64).into()),
        F16 => Value::Real(half::f16::from_bits(rd!(u16)).to_f64()),
        BF16 => Value::Real(half::bf16::from_bits(rd!(u16)).to_f64()),
        F32 => Value::Real(f64::from(rd!(f32))),
        F64 => Value::Real(rd!(f64)),
        C64 => {
            let [re, im] = rd!([f32; 2]);
            Value::Complex(Cx::new(f64::from(re), f64::from(im)))
        }
        C128 => {
            let [re, im] = rd!([f64; 2]);
            Value::Complex(Cx::new(re, im))
        }
        _ => Value::Int(0),
    }
}

/// Writes `v` as element `i` of type `ty` at `p` (a real type only as the result of an op
/// that computes one: `abs`, `real`, `imag`, `compare`, or `convert` from complex).
///
/// # Safety
/// `p` must hold at least `i + 1` elements of `ty`.
unsafe fn store(p: *mut u8, ty: PrimitiveType, i: usize, v: Value) {
    use PrimitiveType::*;
    macro_rules! wr {
        ($t:ty, $x:expr) => {
            // SAFETY: the caller guarantees the element; unaligned writes are allowed.
            unsafe { p.cast::<$t>().add(i).write_unaligned($x) }
        };
    }
    let real = |v: Value| match v {
        Value::Int(x) => x as f64,
        Value::Real(x) => x,
        Value::Complex(c) => c.re,
    };
    // f32 to f16/bf16 as Eigen rounds (nearest even), a NaN to the quiet NaN of its sign.
    let narrow = |x: f64, quiet: u16, to: fn(f32) -> u16| {
        let x = x as f32;
        if x.is_nan() {
            (if x.is_sign_negative() { 0x8000 } else { 0 }) | quiet
        } else {
            to(x)
        }
    };
    match (ty, v) {
        (Pred, v) => wr!(u8, u8::from(real(v) != 0.0)),
        // Float to integer: Rust's `as` saturates and maps NaN to 0, XLA's rule.
        (S8, v) => wr!(i8, real(v) as i8),
        (S16, v) => wr!(i16, real(v) as i16),
        (S32, v) => wr!(i32, real(v) as i32),
        (S64, v) => wr!(i64, real(v) as i64),
        (U8, v) => wr!(u8, real(v) as u8),
        (U16, v) => wr!(u16, real(v) as u16),
        (U32, v) => wr!(u32, real(v) as u32),
        (U64, v) => wr!(u64, real(v) as u64),
        (F16, v) => wr!(
            u16,
            narrow(real(v), 0x7e00, |x| half::f16::from_f32(x).to_bits())
        ),
        (BF16, v) => wr!(
            u16,
            narrow(real(v), 0x7fc0, |x| half::bf16::from_f32(x).to_bits())
        ),
        (F32, v) => wr!(f32, real(v) as f32),
        (F64, v) => wr!(f64, real(v)),
        (C64, Value::Complex(c)) => wr!([f32; 2], [c.re as f32, c.im as f32]),
        (C128, Value::Complex(c)) => wr!([f64; 2], [c.re, c.im]),
        (C64, Value::Int(x)) => wr!([f32; 2], [x as f32, 0.0]),
        (C128, Value::Int(x)) => wr!([f64; 2], [x as f64, 0.0]),
        (C64, Value::Real(x)) => wr!([f32; 2], [x as f32, 0.0]),
        (C128, Value::Real(x)) => wr!([f64; 2], [x, 0.0]),
        _ => {}
    }
}

/// The op on one element, in the precision of `single` (c64/f32) or double.
fn compute(t: &ComplexElementwiseThunk, single: bool, args: &[Value]) -> Value {
    use Opcode::*;
    let c = |v: Value| match v {
        Value::Complex(c) => c,
        Value::Real(x) => Cx::new(x, 0.0),
        Value::Int(x) => Cx::new(x as f64, 0.0),
    };
    // Rounds through c64 where the op is single precision.
    macro_rules! in_precision {
        () => {{
            if single {
                let n = |v: Value| {
                    let z = c(v);
                    Cx::new(z.re as f32, z.im as f32)
                };
                let w = |z: Cx<f32>| Value::Complex(Cx::new(f64::from(z.re), f64::from(z.im)));
                match args {
                    [x] => w(unary32(t.opcode, n(*x))),
                    [x, y] => w(binary32(t.opcode, n(*x), n(*y))),
                    _ => unreachable!("checked by supported"),
                }
            } else {
                match args {
                    [x] => Value::Complex(unary64(t.opcode, c(*x))),
                    [x, y] => Value::Complex(binary64(t.opcode, c(*x), c(*y))),
                    _ => unreachable!("checked by supported"),
                }
            }
        }};
    }
    match t.opcode {
        Abs => {
            let z = c(args[0]);
            if single {
                Value::Real(f64::from(Cx::new(z.re as f32, z.im as f32).norm()))
            } else {
                Value::Real(z.norm())
            }
        }
        Real => Value::Real(c(args[0]).re),
        Imag => Value::Real(c(args[0]).im),
        Complex => {
            let re = match args[0] {
                Value::Real(x) => x,
                _ => 0.0,
            };
            let im = match args[1] {
                Value::Real(x) => x,
                _ => 0.0,
            };
            Value::Complex(Cx::new(re, im))
        }
        Compare => {
            let eq = c(args[0]) == c(args[1]);
            let r = if t.direction == Some(ComparisonDirection::Eq) {
                eq
            } else {
                !eq
            };
            Value::Int(i128::from(r))
        }
        Select => {
            let p = matches!(args[0], Value::Int(x) if x != 0);
            if p { args[1] } else { args[2] }
        }
        Convert => args[0],
        _ => in_precision!(),
    }
}

macro_rules! complex_ops {
    ($unary:ident, $binary:ident, $t:ty) => {
        /// The complex unary ops (the interpreter's formulas).
        fn $unary(op: Opcode, x: Cx<$t>) -> Cx<$t> {
            use Opcode::*;
            let one = Cx::new(1.0, 0.0);
            match op {
                Negate => -x,
                Sign => {
                    let r = x.norm();
                    if r == 0.0 { Cx::new(0.0, 0.0) } else { x / r }
                }
                Exp => x.exp(),
                Log => x.ln(),
                Sqrt => x.sqrt(),
                Rsqrt => one / x.sqrt(),
                Tanh => x.tanh(),
                Sin => x.sin(),
                Cos => x.cos(),
                Tan => x.tan(),
                Logistic => one / (one + (-x).exp()),
                Log1p => (x + one).ln(),
                Expm1 => x.exp() - one,
                Cbrt => x.cbrt(),
                _ => x,
            }
        }

        /// The complex binary ops (the interpreter's formulas).
        fn $binary(op: Opcode, a: Cx<$t>, b: Cx<$t>) -> Cx<$t> {
            use Opcode::*;
            let one = Cx::new(1.0, 0.0);
            let zero = Cx::new(0.0, 0.0);
            match op {
                Add => a + b,
                Subtract => a - b,
                Multiply => a * b,
                Divide => a / b,
                Atan2 => {
                    let (y, x) = (a, b);
                    let i = Cx::new(0.0, 1.0);
                    -i * ((x + i * y) / (x * x + y * y).sqrt()).ln()
                }
                Maximum => {
                    if (a.re, a.im) < (b.re, b.im) {
                        b
                    } else {
                        a
                    }
                }
                Minimum => {
                    if (b.re, b.im) < (a.re, a.im) {
                        b
                    } else {
                        a
                    }
                }
                Power => {
                    if a == one || b == zero {
                        return one;
                    }
                    // inf^(r + 0i) is inf for r > 0 and 0 for r < 0 (XLA's special case).
                    let a_is_pos_inf = a.im == 0.0 && a.re == <$t>::INFINITY;
                    if a_is_pos_inf && b.im == 0.0 && b.re > 0.0 {
                        return a;
                    }
                    if a_is_pos_inf && b.im == 0.0 && b.re < 0.0 {
                        return zero;
                    }
                    a.powc(b)
                }
                _ => a,
            }
        }
    };
}
complex_ops!(unary32, binary32, f32);
complex_ops!(unary64, binary64, f64);

/// Runs one instruction.
pub fn run(t: &ComplexElementwiseThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let out = &t.out.shape;
    let types: Vec<PrimitiveType> = t.operands.iter().map(|o| o.shape.element_type).collect();
    if !supported(t.opcode, t.direction, &types, out.element_type) {
        return Err(RuntimeError::new(format!(
            "{}: {} of {types:?} -> {} is not a complex elementwise op",
            t.name, t.opcode, out.element_type
        )));
    }
    let inputs: Vec<&BufferRef> = t.operands.iter().collect();
    let (ptrs, _staged) = inputs_safe_from(&inputs, std::slice::from_ref(&t.out), memory);
    let dst = memory.ptr(t.out.slice);
    let dims: Vec<usize> = out.dims.iter().map(|&d| d.max(0) as usize).collect();
    let out_strides = out.physical_strides();
    // A rank-0 operand (a `select` predicate) applies to every element.
    let strides: Vec<Vec<usize>> = t
        .operands
        .iter()
        .map(|o| {
            if o.shape.rank() == 0 {
                vec![0; dims.len()]
            } else {
                o.shape.physical_strides()
            }
        })
        .collect();
    let single = |ty: PrimitiveType| matches!(ty, PrimitiveType::C64 | PrimitiveType::F32);
    let precision = t
        .operands
        .iter()
        .map(|o| o.shape.element_type)
        .chain([out.element_type])
        .find(|ty| ty.is_complex())
        .is_some_and(single);
    let flushing = flushes(t.opcode);
    let mut args = vec![Value::Int(0); t.operands.len()];
    super::for_each_index(&dims, None, &mut |index| {
        for (k, o) in t.operands.iter().enumerate() {
            let ty = o.shape.element_type;
            // SAFETY: the index is inside the operand's shape.
            let mut v = unsafe { load(ptrs[k], ty, super::offset(index, &strides[k])) };
            if flushing && let Value::Real(x) = v {
                v = Value::Real(flush(x, ty != PrimitiveType::F64));
            }
            args[k] = v;
        }
        let mut r = compute(t, precision, &args);
        if flushing && let Value::Real(x) = r {
            r = Value::Real(flush(x, out.element_type != PrimitiveType::F64));
        }
        // SAFETY: the index is inside the result's shape.
        unsafe { store(dst, out.element_type, super::offset(index, &out_strides), r) };
    });
    Ok(())
}

#[cfg(test)]
mod tests;
