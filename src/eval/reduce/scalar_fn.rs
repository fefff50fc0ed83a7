//! Calling a small scalar computation on array elements: the reducer of a reduce, the
//! combiner of a scatter, the `select` of select-and-scatter, the comparator of a sort.
//!
//! The general way is [`Evaluator::call`] with rank-0 literals, exactly as XLA's
//! HloEvaluator runs an embedded evaluator per element. That is slow, so the common
//! one-instruction computations are recognized and applied natively with the same
//! semantics the elementwise op has (`add` wraps for integers, `maximum`/`minimum`
//! propagate NaN, bf16/f16 arithmetic is done in f32 and rounded after every step):
//! [`ScalarFn`] for `(T, T) -> T` computations, [`ScalarPred`] for `-> pred` comparators.
//!
//! This is not a general scalar compiler: anything other than one op on two parameters
//! (or returning a parameter) takes the slow path.
//! XLA: `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h` (`HandleMaximum`, ...),
//! `xla/hlo/evaluator/hlo_evaluator.cc` (`IsScalarAdd`, `Compare`).

use half::{bf16, f16};
use num_complex::Complex;

use crate::eval::{EvalError, EvalResult};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, ComparisonDirection, ComparisonType, Computation,
    ComputationId, Literal, Module, NativeType, Op, Opcode, PrimitiveType, TypeKind,
};

/// A binary elementwise op a one-instruction computation may consist of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::eval) enum BinaryOp {
    /// `add` (wrapping for integers, `or` for pred).
    Add,
    /// `multiply` (wrapping for integers, `and` for pred).
    Multiply,
    /// `maximum` (NaN-propagating).
    Maximum,
    /// `minimum` (NaN-propagating).
    Minimum,
    /// `and`.
    And,
    /// `or`.
    Or,
}

impl BinaryOp {
    /// The op for an opcode, if it is one of the recognized ones.
    fn from_opcode(opcode: Opcode) -> Option<BinaryOp> {
        Some(match opcode {
            Opcode::Add => BinaryOp::Add,
            Opcode::Multiply => BinaryOp::Multiply,
            Opcode::Maximum => BinaryOp::Maximum,
            Opcode::Minimum => BinaryOp::Minimum,
            Opcode::And => BinaryOp::And,
            Opcode::Or => BinaryOp::Or,
            _ => return None,
        })
    }

    /// True if the op is defined on `ty` (and implemented natively here).
    fn supports(self, ty: PrimitiveType) -> bool {
        if !ty.is_executable() {
            return false;
        }
        match ty.kind() {
            TypeKind::Pred | TypeKind::Signed | TypeKind::Unsigned => true,
            TypeKind::Float => !matches!(self, BinaryOp::And | BinaryOp::Or),
            TypeKind::Complex => matches!(self, BinaryOp::Add | BinaryOp::Multiply),
        }
    }
}

/// A `(T, T) -> T` computation as the interpreter will apply it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::eval) enum ScalarFn {
    /// The root is `op(parameter(0), parameter(1))`, or `op(parameter(1), parameter(0))`
    /// when `swapped` (the order matters for NaN payloads and signed zeros in max/min).
    Binary {
        /// The op.
        op: BinaryOp,
        /// The root's first operand is parameter 1.
        swapped: bool,
    },
    /// The root is the parameter with this number (scatter's "overwrite" combiner).
    Parameter(usize),
    /// Anything else: call the computation per element.
    Call(ComputationId),
}

impl ScalarFn {
    /// Looks at computation `id` and decides how to apply it to two scalars of type `ty`.
    pub(in crate::eval) fn recognize(
        module: &Module,
        id: ComputationId,
        ty: PrimitiveType,
    ) -> ScalarFn {
        let comp = module.computation(id);
        let params = comp.parameters();
        let scalar_of_ty = |s: &crate::ir::Shape| {
            s.as_array()
                .is_some_and(|a| a.rank() == 0 && a.element_type == ty)
        };
        if params.len() != 2 || !params.iter().all(|&p| scalar_of_ty(&comp.instr(p).shape)) {
            return ScalarFn::Call(id);
        }
        let root = comp.root_instr();
        if !scalar_of_ty(&root.shape) {
            return ScalarFn::Call(id);
        }
        match &root.op {
            Op::Parameter { number } => ScalarFn::Parameter(*number),
            Op::Plain(opcode) => {
                let Some(op) = BinaryOp::from_opcode(*opcode).filter(|op| op.supports(ty)) else {
                    return ScalarFn::Call(id);
                };
                match parameter_numbers(comp, &root.operands) {
                    Some((0, 1)) => ScalarFn::Binary { op, swapped: false },
                    Some((1, 0)) => ScalarFn::Binary { op, swapped: true },
                    _ => ScalarFn::Call(id),
                }
            }
            _ => ScalarFn::Call(id),
        }
    }

    /// True when the function is applied natively (no computation call).
    pub(in crate::eval) fn is_native(self) -> bool {
        !matches!(self, ScalarFn::Call(_))
    }

    /// True for `add(p0, p1)`: HloEvaluator reduces floats with such a reducer in f64.
    pub(in crate::eval) fn is_add(self) -> bool {
        matches!(
            self,
            ScalarFn::Binary {
                op: BinaryOp::Add,
                ..
            }
        )
    }

    /// Applies a native function to `(a, b)` = (parameter 0, parameter 1).
    /// Must not be called on [`ScalarFn::Call`] (it returns `a` then).
    #[inline]
    pub(in crate::eval) fn apply<T: Element>(self, a: T, b: T) -> T {
        match self {
            ScalarFn::Binary { op, swapped: false } => T::binary(op, a, b),
            ScalarFn::Binary { op, swapped: true } => T::binary(op, b, a),
            ScalarFn::Parameter(1) => b,
            ScalarFn::Parameter(_) | ScalarFn::Call(_) => a,
        }
    }
}

/// A `-> pred` comparator as the interpreter will apply it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::eval) enum ScalarPred {
    /// The root is `compare(parameter(lhs), parameter(rhs))`, all of one element type.
    Compare {
        /// The direction.
        direction: ComparisonDirection,
        /// `type=TOTALORDER` on a float type.
        total_order: bool,
        /// Parameter number of the compare's first operand.
        lhs: usize,
        /// Parameter number of the compare's second operand.
        rhs: usize,
    },
    /// Anything else: call the computation.
    Call(ComputationId),
}

impl ScalarPred {
    /// Looks at comparator `id` whose compared parameters have element type `ty`.
    pub(in crate::eval) fn recognize(
        module: &Module,
        id: ComputationId,
        ty: PrimitiveType,
    ) -> ScalarPred {
        let comp = module.computation(id);
        let root = comp.root_instr();
        let Op::Compare {
            direction,
            comparison_type,
        } = &root.op
        else {
            return ScalarPred::Call(id);
        };
        let Some((lhs, rhs)) = parameter_numbers(comp, &root.operands) else {
            return ScalarPred::Call(id);
        };
        let operand_ty = root
            .operands
            .first()
            .and_then(|&o| comp.instr(o).shape.element_type());
        let rank0 = root
            .operands
            .iter()
            .all(|&o| comp.instr(o).shape.rank() == 0);
        if lhs == rhs || operand_ty != Some(ty) || !rank0 || !ty.is_executable() || ty.is_complex()
        {
            return ScalarPred::Call(id);
        }
        // The comparison type must be the one the element type implies (or TOTALORDER on
        // floats); anything unusual goes through the elementwise compare.
        let total_order = match (comparison_type, ty.kind()) {
            (None, _) => false,
            (Some(ComparisonType::Float), TypeKind::Float) => false,
            (Some(ComparisonType::TotalOrder), TypeKind::Float) => true,
            (Some(ComparisonType::Signed), TypeKind::Signed) => false,
            (Some(ComparisonType::Unsigned), TypeKind::Unsigned | TypeKind::Pred) => false,
            _ => return ScalarPred::Call(id),
        };
        ScalarPred::Compare {
            direction: *direction,
            total_order,
            lhs,
            rhs,
        }
    }
}

/// The parameter numbers of two operands, if both are parameters.
fn parameter_numbers(
    comp: &Computation,
    operands: &[crate::ir::InstrId],
) -> Option<(usize, usize)> {
    let number = |id| match comp.instr(id).op {
        Op::Parameter { number } => Some(number),
        _ => None,
    };
    match operands {
        [a, b] => Some((number(*a)?, number(*b)?)),
        _ => None,
    }
}

/// An element type the native fast paths work on.
pub(in crate::eval) trait Element: NativeType {
    /// `op(a, b)` with XLA's semantics for this type.
    fn binary(op: BinaryOp, a: Self, b: Self) -> Self;
    /// `compare(a, b), direction=...` (FLOAT/SIGNED/UNSIGNED, or TOTALORDER if `total`).
    fn compare(direction: ComparisonDirection, total: bool, a: Self, b: Self) -> bool;
    /// True for real floating-point types (f16, bf16, f32, f64).
    const IS_FLOAT: bool = false;
    /// The value as f64 (floats only; others return 0).
    fn to_f64(self) -> f64 {
        0.0
    }
    /// A value from f64, rounded as XLA's `SetFromDouble` does (floats only).
    fn from_f64(_v: f64) -> Self {
        Self::default()
    }
    /// A key whose integer order is the TOTALORDER of the type (NaN above +inf, -NaN below
    /// -inf, -0 below +0); `None` for complex numbers.
    fn total_order_key(self) -> Option<i128>;
}

/// Applies an ordinary comparison given `a.partial_cmp(b)`-style relations.
#[inline]
fn compare_with<T: PartialOrd>(direction: ComparisonDirection, a: T, b: T) -> bool {
    match direction {
        ComparisonDirection::Eq => a == b,
        ComparisonDirection::Ne => a != b,
        ComparisonDirection::Lt => a < b,
        ComparisonDirection::Le => a <= b,
        ComparisonDirection::Gt => a > b,
        ComparisonDirection::Ge => a >= b,
    }
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            #[inline]
            fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
                match op {
                    BinaryOp::Add => a.wrapping_add(b),
                    BinaryOp::Multiply => a.wrapping_mul(b),
                    BinaryOp::Maximum => a.max(b),
                    BinaryOp::Minimum => a.min(b),
                    BinaryOp::And => a & b,
                    BinaryOp::Or => a | b,
                }
            }
            #[inline]
            fn compare(direction: ComparisonDirection, _total: bool, a: Self, b: Self) -> bool {
                compare_with(direction, a, b)
            }
            fn total_order_key(self) -> Option<i128> {
                Some(self as i128)
            }
        }
    )*};
}
int_element!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Element for bool {
    #[inline]
    fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
        // HloEvaluator computes pred arithmetic on `bool`: `a + b` is nonzero iff either is
        // true, `a * b` iff both are.
        match op {
            BinaryOp::Add | BinaryOp::Maximum | BinaryOp::Or => a | b,
            BinaryOp::Multiply | BinaryOp::Minimum | BinaryOp::And => a & b,
        }
    }
    #[inline]
    fn compare(direction: ComparisonDirection, _total: bool, a: Self, b: Self) -> bool {
        compare_with(direction, a, b)
    }
    fn total_order_key(self) -> Option<i128> {
        Some(self as i128)
    }
}

/// NaN-propagating maximum, as `HandleMaximum`: a NaN `a` wins, then a NaN `b`, then
/// `std::max(a, b)` (which returns `a` unless `a < b`).
#[inline]
#[allow(clippy::eq_op)] // `x != x` is the NaN test for any float type
fn float_max<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a != a {
        a
    } else if b != b || a < b {
        b
    } else {
        a
    }
}

/// NaN-propagating minimum, as `HandleMinimum` (`std::min(a, b)` returns `a` unless `b < a`).
#[inline]
#[allow(clippy::eq_op)]
fn float_min<T: PartialOrd + Copy>(a: T, b: T) -> T {
    if a != a {
        a
    } else if b != b || b < a {
        b
    } else {
        a
    }
}

/// TOTALORDER key of an f32: the bits as a signed integer, with the magnitude bits of
/// negative numbers flipped so that more negative floats get smaller keys.
#[inline]
fn f32_key(x: f32) -> i128 {
    let b = x.to_bits() as i32;
    (b ^ (((b >> 31) as u32) >> 1) as i32) as i128
}

/// TOTALORDER key of an f64 (see [`f32_key`]).
#[inline]
fn f64_key(x: f64) -> i128 {
    let b = x.to_bits() as i64;
    (b ^ (((b >> 63) as u64) >> 1) as i64) as i128
}

macro_rules! float_element {
    ($t:ty, $key:ident) => {
        impl Element for $t {
            #[inline]
            fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
                match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Multiply => a * b,
                    BinaryOp::Maximum => float_max(a, b),
                    BinaryOp::Minimum => float_min(a, b),
                    // Not recognized for floats (`BinaryOp::supports`).
                    BinaryOp::And | BinaryOp::Or => a,
                }
            }
            #[inline]
            fn compare(direction: ComparisonDirection, total: bool, a: Self, b: Self) -> bool {
                if total {
                    compare_with(direction, $key(a), $key(b))
                } else {
                    compare_with(direction, a, b)
                }
            }
            const IS_FLOAT: bool = true;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn total_order_key(self) -> Option<i128> {
                Some($key(self))
            }
        }
    };
}
float_element!(f32, f32_key);
float_element!(f64, f64_key);

macro_rules! half_element {
    ($t:ty) => {
        impl Element for $t {
            /// Computed in f32 and rounded to nearest even, as HloEvaluator's `ElementwiseT`.
            #[inline]
            fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
                <$t>::from_f32(f32::binary(op, a.to_f32(), b.to_f32()))
            }
            #[inline]
            fn compare(direction: ComparisonDirection, total: bool, a: Self, b: Self) -> bool {
                f32::compare(direction, total, a.to_f32(), b.to_f32())
            }
            const IS_FLOAT: bool = true;
            fn to_f64(self) -> f64 {
                self.to_f64()
            }
            /// Eigen converts a double to a half type through float.
            fn from_f64(v: f64) -> Self {
                <$t>::from_f32(v as f32)
            }
            fn total_order_key(self) -> Option<i128> {
                Some(f32_key(self.to_f32()))
            }
        }
    };
}
half_element!(f16);
half_element!(bf16);

macro_rules! complex_element {
    ($t:ty) => {
        impl Element for Complex<$t> {
            #[inline]
            fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
                match op {
                    BinaryOp::Multiply => a * b,
                    // Only add and multiply are recognized for complex types.
                    _ => a + b,
                }
            }
            #[inline]
            fn compare(direction: ComparisonDirection, _total: bool, a: Self, b: Self) -> bool {
                match direction {
                    ComparisonDirection::Eq => a == b,
                    ComparisonDirection::Ne => a != b,
                    // Never recognized for complex types (`ScalarPred::recognize`).
                    _ => false,
                }
            }
            fn total_order_key(self) -> Option<i128> {
                None
            }
        }
    };
}
complex_element!(f32);
complex_element!(f64);

/// Matches two [`ArrayData`] of the same executable type and binds both typed vectors;
/// evaluates `$other` when the types differ or are raw.
macro_rules! with_same_element_data {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr, $other:expr) => {
        match ($a, $b) {
            (ArrayData::Pred($x), ArrayData::Pred($y)) => $body,
            (ArrayData::S8($x), ArrayData::S8($y)) => $body,
            (ArrayData::S16($x), ArrayData::S16($y)) => $body,
            (ArrayData::S32($x), ArrayData::S32($y)) => $body,
            (ArrayData::S64($x), ArrayData::S64($y)) => $body,
            (ArrayData::U8($x), ArrayData::U8($y)) => $body,
            (ArrayData::U16($x), ArrayData::U16($y)) => $body,
            (ArrayData::U32($x), ArrayData::U32($y)) => $body,
            (ArrayData::U64($x), ArrayData::U64($y)) => $body,
            (ArrayData::F16($x), ArrayData::F16($y)) => $body,
            (ArrayData::BF16($x), ArrayData::BF16($y)) => $body,
            (ArrayData::F32($x), ArrayData::F32($y)) => $body,
            (ArrayData::F64($x), ArrayData::F64($y)) => $body,
            (ArrayData::C64($x), ArrayData::C64($y)) => $body,
            (ArrayData::C128($x), ArrayData::C128($y)) => $body,
            _ => $other,
        }
    };
}
pub(in crate::eval) use with_same_element_data;

/// Element `i` of `data` as a rank-0 literal of type `ty`, to pass to a computation.
pub(in crate::eval) fn scalar_at(data: &ArrayData, ty: PrimitiveType, i: usize) -> Literal {
    Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(ty, &[]),
        data: data.gather(&[i]),
    })
}

/// Stores the rank-0 array `value` (a computation's result) into element `i` of `dst`.
pub(in crate::eval) fn store_scalar(
    dst: &mut ArrayData,
    i: usize,
    value: &Literal,
) -> EvalResult<()> {
    let src = match value {
        Literal::Array(a) if a.data.len() == 1 => &a.data,
        _ => {
            return Err(EvalError::new(format!(
                "computation returned {}, expected a scalar",
                value.shape_text()
            )));
        }
    };
    macro_rules! copy {
        ($x:ident, $y:ident) => {{
            $x[i] = $y[0];
            Ok(())
        }};
    }
    match (dst, src) {
        (ArrayData::Raw(x), ArrayData::Raw(y)) => copy!(x, y),
        (dst, src) => with_same_element_data!(dst, src, |x, y| copy!(x, y), {
            Err(EvalError::new(
                "computation returned a scalar of the wrong element type",
            ))
        }),
    }
}

/// Short shape text for error messages.
trait ShapeText {
    fn shape_text(&self) -> String;
}

impl ShapeText for Literal {
    fn shape_text(&self) -> String {
        match self {
            Literal::Array(a) => format!("{}{:?}", a.shape.element_type, a.shape.dims),
            Literal::Tuple(t) => format!("a tuple of {}", t.len()),
            Literal::Token => "a token".to_string(),
        }
    }
}

/// The array inside an operand literal, or an error naming what was expected.
pub(in crate::eval) fn array<'a>(lit: &'a Literal, what: &str) -> EvalResult<&'a ArrayLiteral> {
    lit.as_array()
        .ok_or_else(|| EvalError::new(format!("{what} must be an array, got {}", lit.shape_text())))
}

/// The elements of an integer index array as i64 (u64 values above `i64::MAX` saturate;
/// every use clamps or bounds-checks them anyway).
pub(in crate::eval) fn index_values(a: &ArrayLiteral) -> EvalResult<Vec<i64>> {
    Ok(match &a.data {
        ArrayData::S8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::S64(v) => v.clone(),
        ArrayData::U8(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| x as i64).collect(),
        ArrayData::U64(v) => v.iter().map(|&x| x.min(i64::MAX as u64) as i64).collect(),
        _ => {
            return Err(EvalError::new(format!(
                "indices must be integers, got {}",
                a.element_type()
            )));
        }
    })
}
