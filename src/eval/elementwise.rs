//! Elementwise ops: unary and binary math, compare, select, clamp, with XLA's exact
//! integer, NaN and rounding semantics. Convert, bitcast-convert and reduce-precision live
//! in `convert.rs` and are re-exported here for the dispatch.
//! XLA: `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h` (math), `hlo_evaluator.cc`
//! (compare, is-finite, real/imag/complex).
//!
//! Every op matches on the operands' typed vectors once and then runs one function pointer
//! from `scalar.rs` over the slices. `f16` and `bf16` compute in `f32` and round back to
//! nearest-even, as XLA's typed visitor does (`ElementwiseT = float`). Operands of a binary
//! op must have equal dimensions: HLO has no implicit broadcasting (only `select` and `clamp`
//! accept scalars, which XLA still allows).

use half::{bf16, f16};
use num_complex::Complex;

pub use super::convert::{bitcast_convert, convert, reduce_precision};
use super::index::expect_array;
use super::scalar::{
    self, c64_binary, c64_unary, c128_binary, c128_unary, int_binary, int_unary, pred_binary,
    pred_unary, real_binary, real_unary, to_bf16, to_f16,
};
use super::{EvalError, EvalResult};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ComparisonDirection, ComparisonType, Literal, Opcode,
    PrimitiveType, Shape,
};

/// An elementwise unary op (`abs`, `exponential`, `not`, `popcnt`, ...).
pub fn unary(opcode: Opcode, shape: &Shape, x: &Literal) -> EvalResult {
    let x = expect_array(x, "operand")?;
    let unsupported = || unsupported_type(opcode, x.element_type());
    // Ops whose result type differs from the operand's.
    match (opcode, &x.data) {
        (Opcode::IsFinite, _) => return is_finite(x),
        (Opcode::Abs, ArrayData::C64(v)) => {
            return result(shape, ArrayData::F32(map1(v, |c| c.norm())));
        }
        (Opcode::Abs, ArrayData::C128(v)) => {
            return result(shape, ArrayData::F64(map1(v, |c| c.norm())));
        }
        (Opcode::Real, ArrayData::C64(v)) => {
            return result(shape, ArrayData::F32(map1(v, |c| c.re)));
        }
        (Opcode::Real, ArrayData::C128(v)) => {
            return result(shape, ArrayData::F64(map1(v, |c| c.re)));
        }
        (Opcode::Imag, ArrayData::C64(v)) => {
            return result(shape, ArrayData::F32(map1(v, |c| c.im)));
        }
        (Opcode::Imag, ArrayData::C128(v)) => {
            return result(shape, ArrayData::F64(map1(v, |c| c.im)));
        }
        // real(x) = x and imag(x) = 0 for real floats.
        (Opcode::Real, _) if x.element_type().is_float() => return result(shape, x.data.clone()),
        (Opcode::Imag, _) if x.element_type().is_float() => {
            return result(shape, ArrayData::zeros(x.element_type(), x.data.len()));
        }
        _ => {}
    }
    macro_rules! ints {
        ($($variant:ident => $t:ty),*) => {
            match &x.data {
                $( ArrayData::$variant(v) => {
                    ArrayData::$variant(map1(v, int_unary::<$t>(opcode).ok_or_else(unsupported)?))
                } )*
                ArrayData::Pred(v) => ArrayData::Pred(map1(v, pred_unary(opcode).ok_or_else(unsupported)?)),
                ArrayData::F32(v) => ArrayData::F32(map1(v, real_unary::<f32>(opcode).ok_or_else(unsupported)?)),
                ArrayData::F64(v) => ArrayData::F64(map1(v, real_unary::<f64>(opcode).ok_or_else(unsupported)?)),
                ArrayData::F16(v) => {
                    let f = real_unary::<f32>(opcode).ok_or_else(unsupported)?;
                    ArrayData::F16(map1(v, |a| to_f16(f(a.to_f32()))))
                }
                ArrayData::BF16(v) => {
                    let f = real_unary::<f32>(opcode).ok_or_else(unsupported)?;
                    ArrayData::BF16(map1(v, |a| to_bf16(f(a.to_f32()))))
                }
                ArrayData::C64(v) => ArrayData::C64(map1(v, c64_unary(opcode).ok_or_else(unsupported)?)),
                ArrayData::C128(v) => ArrayData::C128(map1(v, c128_unary(opcode).ok_or_else(unsupported)?)),
                ArrayData::Raw(_) => return Err(unsupported()),
            }
        };
    }
    let data = ints!(S8 => i8, S16 => i16, S32 => i32, S64 => i64, U8 => u8, U16 => u16, U32 => u32, U64 => u64);
    result(shape, data)
}

/// An elementwise binary op (`add`, `divide`, `shift-left`, `atan2`, `complex`, ...).
pub fn binary(opcode: Opcode, shape: &Shape, a: &Literal, b: &Literal) -> EvalResult {
    let a = expect_array(a, "lhs")?;
    let b = expect_array(b, "rhs")?;
    same_dims(a, b)?;
    let unsupported = || unsupported_type(opcode, a.element_type());
    if opcode == Opcode::Complex {
        let data = match (&a.data, &b.data) {
            (ArrayData::F32(x), ArrayData::F32(y)) => ArrayData::C64(map2(x, y, Complex::new)),
            (ArrayData::F64(x), ArrayData::F64(y)) => ArrayData::C128(map2(x, y, Complex::new)),
            _ => return Err(unsupported()),
        };
        return result(shape, data);
    }
    macro_rules! ints {
        ($($variant:ident => $t:ty),*) => {
            match (&a.data, &b.data) {
                $( (ArrayData::$variant(x), ArrayData::$variant(y)) => {
                    ArrayData::$variant(map2(x, y, int_binary::<$t>(opcode).ok_or_else(unsupported)?))
                } )*
                (ArrayData::Pred(x), ArrayData::Pred(y)) => {
                    ArrayData::Pred(map2(x, y, pred_binary(opcode).ok_or_else(unsupported)?))
                }
                (ArrayData::F32(x), ArrayData::F32(y)) => {
                    ArrayData::F32(map2(x, y, real_binary::<f32>(opcode).ok_or_else(unsupported)?))
                }
                (ArrayData::F64(x), ArrayData::F64(y)) => {
                    ArrayData::F64(map2(x, y, real_binary::<f64>(opcode).ok_or_else(unsupported)?))
                }
                (ArrayData::F16(x), ArrayData::F16(y)) => {
                    let f = real_binary::<f32>(opcode).ok_or_else(unsupported)?;
                    ArrayData::F16(map2(x, y, |p, q| to_f16(f(p.to_f32(), q.to_f32()))))
                }
                (ArrayData::BF16(x), ArrayData::BF16(y)) => {
                    let f = real_binary::<f32>(opcode).ok_or_else(unsupported)?;
                    ArrayData::BF16(map2(x, y, |p, q| to_bf16(f(p.to_f32(), q.to_f32()))))
                }
                (ArrayData::C64(x), ArrayData::C64(y)) => {
                    ArrayData::C64(map2(x, y, c64_binary(opcode).ok_or_else(unsupported)?))
                }
                (ArrayData::C128(x), ArrayData::C128(y)) => {
                    ArrayData::C128(map2(x, y, c128_binary(opcode).ok_or_else(unsupported)?))
                }
                _ => return Err(type_mismatch(a, b)),
            }
        };
    }
    let data = ints!(S8 => i8, S16 => i16, S32 => i32, S64 => i64, U8 => u8, U16 => u16, U32 => u32, U64 => u64);
    result(shape, data)
}

/// A contracted `add` / `subtract` (`ir::fp_contraction`): `(±x) * y + (±z)` with one
/// rounding, as XLA:CPU's kernels compute it with an FMA (`nx`, `nz`: which of `x`, `z` enter
/// negated). f16 computes the fma in f32 and rounds it to f16 once.
pub fn fused_multiply_add(
    shape: &Shape,
    (nx, nz): (bool, bool),
    x: &Literal,
    y: &Literal,
    z: &Literal,
) -> EvalResult {
    use crate::ir::fp_contraction::{fma_f32, fma_f64};
    let (x, y, z) = (
        expect_array(x, "lhs")?,
        expect_array(y, "rhs")?,
        expect_array(z, "addend")?,
    );
    same_dims(x, y)?;
    same_dims(x, z)?;
    let f32s =
        |a: f32, b: f32, c: f32| fma_f32(if nx { -a } else { a }, b, if nz { -c } else { c });
    let data = match (&x.data, &y.data, &z.data) {
        (ArrayData::F32(a), ArrayData::F32(b), ArrayData::F32(c)) => {
            ArrayData::F32((0..a.len()).map(|i| f32s(a[i], b[i], c[i])).collect())
        }
        (ArrayData::F64(a), ArrayData::F64(b), ArrayData::F64(c)) => ArrayData::F64(
            (0..a.len())
                .map(|i| {
                    let (p, q) = (a[i], c[i]);
                    fma_f64(if nx { -p } else { p }, b[i], if nz { -q } else { q })
                })
                .collect(),
        ),
        (ArrayData::F16(a), ArrayData::F16(b), ArrayData::F16(c)) => ArrayData::F16(
            (0..a.len())
                .map(|i| to_f16(f32s(a[i].to_f32(), b[i].to_f32(), c[i].to_f32())))
                .collect(),
        ),
        _ => {
            return Err(EvalError::new(format!(
                "a contracted multiply-add of {} operands",
                x.element_type()
            )));
        }
    };
    result(shape, data)
}

/// `compare(a, b), direction=..., type=...`.
///
/// `FLOAT` is IEEE (every ordered comparison with NaN is false, `NE` is true, `-0 == +0`);
/// `TOTALORDER` orders `-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN` by bit pattern.
/// Integers and pred compare by value (pred: false < true); complex allows only EQ/NE.
pub fn compare(
    a: &Literal,
    b: &Literal,
    direction: ComparisonDirection,
    comparison_type: Option<ComparisonType>,
) -> EvalResult {
    let a = expect_array(a, "lhs")?;
    let b = expect_array(b, "rhs")?;
    same_dims(a, b)?;
    let total_order = comparison_type == Some(ComparisonType::TotalOrder);
    let out: Vec<bool> = match (&a.data, &b.data) {
        (ArrayData::F32(x), ArrayData::F32(y)) if total_order => {
            compare_keys(x, y, direction, |v| {
                scalar::total_order_key(u64::from(v.to_bits()), 32)
            })
        }
        (ArrayData::F64(x), ArrayData::F64(y)) if total_order => {
            compare_keys(x, y, direction, |v| {
                scalar::total_order_key(v.to_bits(), 64)
            })
        }
        (ArrayData::F16(x), ArrayData::F16(y)) if total_order => {
            compare_keys(x, y, direction, |v| {
                scalar::total_order_key(u64::from(v.to_bits()), 16)
            })
        }
        (ArrayData::BF16(x), ArrayData::BF16(y)) if total_order => {
            compare_keys(x, y, direction, |v| {
                scalar::total_order_key(u64::from(v.to_bits()), 16)
            })
        }
        (ArrayData::F16(x), ArrayData::F16(y)) => compare_keys(x, y, direction, f16::to_f32),
        (ArrayData::BF16(x), ArrayData::BF16(y)) => compare_keys(x, y, direction, bf16::to_f32),
        (ArrayData::F32(x), ArrayData::F32(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::F64(x), ArrayData::F64(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::Pred(x), ArrayData::Pred(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::S8(x), ArrayData::S8(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::S16(x), ArrayData::S16(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::S32(x), ArrayData::S32(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::S64(x), ArrayData::S64(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::U8(x), ArrayData::U8(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::U16(x), ArrayData::U16(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::U32(x), ArrayData::U32(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::U64(x), ArrayData::U64(y)) => compare_keys(x, y, direction, |v| v),
        (ArrayData::C64(x), ArrayData::C64(y)) => compare_complex(x, y, direction)?,
        (ArrayData::C128(x), ArrayData::C128(y)) => compare_complex(x, y, direction)?,
        _ => return Err(type_mismatch(a, b)),
    };
    Ok(Literal::Array(ArrayLiteral::from_vec(&a.shape.dims, out)))
}

/// Compares `key(x[i])` with `key(y[i])` using `PartialOrd` (IEEE for floats).
fn compare_keys<T: Copy, K: PartialOrd>(
    x: &[T],
    y: &[T],
    direction: ComparisonDirection,
    key: impl Fn(T) -> K,
) -> Vec<bool> {
    use ComparisonDirection::*;
    let op: fn(&K, &K) -> bool = match direction {
        Eq => K::eq,
        Ne => K::ne,
        Lt => K::lt,
        Le => K::le,
        Gt => K::gt,
        Ge => K::ge,
    };
    x.iter()
        .zip(y)
        .map(|(&p, &q)| op(&key(p), &key(q)))
        .collect()
}

/// Complex numbers have no order: only EQ and NE.
fn compare_complex<T: PartialEq + Copy>(
    x: &[Complex<T>],
    y: &[Complex<T>],
    direction: ComparisonDirection,
) -> EvalResult<Vec<bool>> {
    match direction {
        ComparisonDirection::Eq => Ok(map2(x, y, |p, q| p == q)),
        ComparisonDirection::Ne => Ok(map2(x, y, |p, q| p != q)),
        _ => Err(EvalError::new(format!(
            "compare direction {direction} is not defined for complex"
        ))),
    }
}

/// `is-finite(x)`: false for ±inf and NaN; pred result.
fn is_finite(x: &ArrayLiteral) -> EvalResult {
    let out: Vec<bool> = match &x.data {
        ArrayData::F16(v) => map1(v, |a| a.is_finite()),
        ArrayData::BF16(v) => map1(v, |a| a.is_finite()),
        ArrayData::F32(v) => map1(v, |a| a.is_finite()),
        ArrayData::F64(v) => map1(v, |a| a.is_finite()),
        _ => return Err(unsupported_type(Opcode::IsFinite, x.element_type())),
    };
    Ok(Literal::Array(ArrayLiteral::from_vec(&x.shape.dims, out)))
}

/// `select(pred, on_true, on_false)`; `pred` may be a scalar that picks a whole operand.
pub fn select(pred: &Literal, on_true: &Literal, on_false: &Literal) -> EvalResult {
    let pred = expect_array(pred, "select predicate")?;
    let t = expect_array(on_true, "on_true")?;
    let f = expect_array(on_false, "on_false")?;
    same_dims(t, f)?;
    let p = pred.values::<bool>().ok_or_else(|| {
        EvalError::new(format!(
            "select predicate must be pred, got {}",
            pred.element_type()
        ))
    })?;
    if p.len() != 1 && pred.shape.dims != t.shape.dims {
        return Err(EvalError::new(
            "select predicate must be a scalar or match the operands",
        ));
    }
    macro_rules! pick {
        ($($variant:ident),*) => {
            match (&t.data, &f.data) {
                $( (ArrayData::$variant(x), ArrayData::$variant(y)) => ArrayData::$variant(
                    x.iter().zip(y).enumerate().map(|(i, (&a, &b))| if broadcast_at(p, i) { a } else { b }).collect(),
                ), )*
                _ => return Err(type_mismatch(t, f)),
            }
        };
    }
    let data = pick!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128, Raw
    );
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(t.element_type(), &t.shape.dims),
        data,
    }))
}

/// `clamp(min, x, max)`: `min(max(x, lo), hi)` with `lo`/`hi` scalars or arrays. Floats
/// return the first NaN among lo, x, hi (XLA's evaluator), f16/bf16 compute in f32.
pub fn clamp(min: &Literal, x: &Literal, max: &Literal) -> EvalResult {
    let lo = expect_array(min, "clamp min")?;
    let x = expect_array(x, "clamp operand")?;
    let hi = expect_array(max, "clamp max")?;
    for bound in [lo, hi] {
        if bound.data.len() != 1 && bound.shape.dims != x.shape.dims {
            return Err(EvalError::new(
                "clamp bounds must be scalars or match the operand",
            ));
        }
    }
    fn ord_clamp<T: PartialOrd + Copy>(lo: T, x: T, hi: T) -> T {
        let m = if x < lo { lo } else { x };
        if m < hi { m } else { hi }
    }
    macro_rules! run {
        ($($variant:ident => $f:expr),*) => {
            match (&lo.data, &x.data, &hi.data) {
                $( (ArrayData::$variant(l), ArrayData::$variant(v), ArrayData::$variant(h)) => ArrayData::$variant(
                    v.iter().enumerate().map(|(i, &e)| $f(broadcast_at(l, i), e, broadcast_at(h, i))).collect(),
                ), )*
                _ => return Err(EvalError::new(format!(
                    "clamp is not defined for {}, {}, {}", lo.element_type(), x.element_type(), hi.element_type()
                ))),
            }
        };
    }
    let data = run!(
        Pred => ord_clamp, S8 => ord_clamp, S16 => ord_clamp, S32 => ord_clamp, S64 => ord_clamp,
        U8 => ord_clamp, U16 => ord_clamp, U32 => ord_clamp, U64 => ord_clamp,
        F32 => scalar::real_clamp::<f32>, F64 => scalar::real_clamp::<f64>,
        F16 => |l: f16, e: f16, h: f16| to_f16(scalar::real_clamp(l.to_f32(), e.to_f32(), h.to_f32())),
        BF16 => |l: bf16, e: bf16, h: bf16| to_bf16(scalar::real_clamp(l.to_f32(), e.to_f32(), h.to_f32()))
    );
    Ok(Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(x.element_type(), &x.shape.dims),
        data,
    }))
}

/// Element `i` of `v`, or its only element when it is a broadcast scalar.
fn broadcast_at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 { v[0] } else { v[i] }
}

/// Applies `f` to every element.
fn map1<T: Copy, U>(v: &[T], f: impl Fn(T) -> U) -> Vec<U> {
    v.iter().map(|&a| f(a)).collect()
}

/// Applies `f` to every pair of elements.
fn map2<T: Copy, U>(a: &[T], b: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

/// Wraps result data as a row-major array of the instruction's element type and dims.
fn result(shape: &Shape, data: ArrayData) -> EvalResult {
    let shape = shape
        .as_array()
        .ok_or_else(|| EvalError::new("an elementwise op must have an array shape"))?;
    let out = ArrayShape::new(shape.element_type, &shape.dims);
    let produced = match &data {
        ArrayData::Pred(_) => PrimitiveType::Pred,
        d => element_type_of(d),
    };
    if produced != out.element_type || data.len() != out.element_count() {
        return Err(EvalError::new(format!(
            "computed {} elements of {produced}, but the result shape is {}{:?}",
            data.len(),
            out.element_type,
            out.dims
        )));
    }
    Ok(Literal::Array(ArrayLiteral { shape: out, data }))
}

/// The element type a typed vector holds (`Raw` reports `u8`, it is never produced here).
pub(super) fn element_type_of(data: &ArrayData) -> PrimitiveType {
    use PrimitiveType as P;
    match data {
        ArrayData::Pred(_) => P::Pred,
        ArrayData::S8(_) => P::S8,
        ArrayData::S16(_) => P::S16,
        ArrayData::S32(_) => P::S32,
        ArrayData::S64(_) => P::S64,
        ArrayData::U8(_) | ArrayData::Raw(_) => P::U8,
        ArrayData::U16(_) => P::U16,
        ArrayData::U32(_) => P::U32,
        ArrayData::U64(_) => P::U64,
        ArrayData::F16(_) => P::F16,
        ArrayData::BF16(_) => P::BF16,
        ArrayData::F32(_) => P::F32,
        ArrayData::F64(_) => P::F64,
        ArrayData::C64(_) => P::C64,
        ArrayData::C128(_) => P::C128,
    }
}

fn same_dims(a: &ArrayLiteral, b: &ArrayLiteral) -> EvalResult<()> {
    if a.shape.dims != b.shape.dims {
        return Err(EvalError::new(format!(
            "operand dimensions differ: {:?} and {:?}",
            a.shape.dims, b.shape.dims
        )));
    }
    Ok(())
}

fn unsupported_type(opcode: Opcode, ty: PrimitiveType) -> EvalError {
    EvalError::new(format!("{opcode} is not defined for element type {ty}"))
}

fn type_mismatch(a: &ArrayLiteral, b: &ArrayLiteral) -> EvalError {
    EvalError::new(format!(
        "operand element types differ: {} and {}",
        a.element_type(),
        b.element_type()
    ))
}

#[cfg(test)]
mod tests;
