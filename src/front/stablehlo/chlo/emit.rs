//! A small instruction emitter for the CHLO decompositions: it appends HLO instructions to
//! one computation with computed shapes and unique XLA-like names (`erf_inv.3`).
//!
//! The decompositions read like the formulas they implement (`em.mul(x, em.c(0.5, x))`), so
//! the emitter's methods are infallible: `decompose` checks operand types before any
//! formula runs, and every method here derives its result shape from its operands the way
//! HLO shape inference does (elementwise ops keep the first operand's shape, `compare`
//! gives `pred`, `real`/`imag` give the component type).
//!
//! It plays the role of MLIR's `OpBuilder` plus `getConstantLike` in
//! `stablehlo/transforms/ChloLegalizeToStablehlo.cpp`: a constant "like" a value is a
//! scalar constant of its element type broadcast to its dimensions.

use std::collections::{HashMap, HashSet};

use half::{bf16, f16};
use num_complex::Complex;

use crate::ir::{
    ArrayLiteral, ArrayShape, ComparisonDirection, Computation, InstrId, Instruction, Literal, Op,
    Opcode, PrimitiveType, Shape,
};

/// A scalar value for a constant: integer-valued constants stay exact for 64-bit integers.
#[derive(Copy, Clone, Debug)]
pub(super) enum Scalar {
    /// A floating-point value, rounded to the element type.
    F(f64),
    /// An integer value, wrapped (two's complement) to the element type.
    I(i64),
}

/// Appends instructions to one computation.
pub(super) struct Emitter<'a> {
    comp: &'a mut Computation,
    /// Names start with this (the CHLO op's name without `chlo.`).
    prefix: String,
    next: usize,
    taken: HashSet<String>,
    /// One constant per (type, value bits, dims): the same `0.5` is not emitted twice.
    constants: HashMap<(PrimitiveType, u64, bool, Vec<i64>), InstrId>,
}

/// Methods `$method(a, b)` that emit the binary opcode of the same name.
macro_rules! binary_ops {
    ($( $method:ident => $opcode:ident ),*) => {
        $( pub(super) fn $method(&mut self, a: InstrId, b: InstrId) -> InstrId {
            self.binary(Opcode::$opcode, a, b)
        } )*
    };
}

/// Methods `$method(x)` that emit the unary opcode of the same name.
macro_rules! unary_ops {
    ($( $method:ident => $opcode:ident ),*) => {
        $( pub(super) fn $method(&mut self, x: InstrId) -> InstrId {
            self.unary(Opcode::$opcode, x)
        } )*
    };
}

/// Methods `$method(a, b)` that emit `compare(a, b), direction=$direction`.
macro_rules! comparisons {
    ($( $method:ident => $direction:ident ),*) => {
        $( pub(super) fn $method(&mut self, a: InstrId, b: InstrId) -> InstrId {
            self.cmp(ComparisonDirection::$direction, a, b)
        } )*
    };
}

impl<'a> Emitter<'a> {
    /// An emitter appending to `comp`, naming instructions `<prefix>.<n>`.
    pub(super) fn new(comp: &'a mut Computation, prefix: &str) -> Emitter<'a> {
        let taken = comp.instrs.values().map(|i| i.name.clone()).collect();
        Emitter {
            comp,
            prefix: prefix.to_string(),
            next: 0,
            taken,
            constants: HashMap::new(),
        }
    }

    fn fresh_name(&mut self) -> String {
        loop {
            let name = format!("{}.{}", self.prefix, self.next);
            self.next += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }

    /// Appends any instruction with an explicit shape.
    pub(super) fn push(&mut self, shape: Shape, op: Op, operands: Vec<InstrId>) -> InstrId {
        let name = self.fresh_name();
        self.comp.push(Instruction::new(name, shape, op, operands))
    }

    /// The shape of an instruction of the computation.
    pub(super) fn shape(&self, x: InstrId) -> &Shape {
        &self.comp.instrs[x].shape
    }

    /// The dimensions of an array instruction.
    pub(super) fn dims(&self, x: InstrId) -> Vec<i64> {
        self.shape(x).dims().to_vec()
    }

    /// The element type of an array instruction (`pred` for non-arrays, which
    /// `decompose` rules out before calling anything).
    pub(super) fn ty(&self, x: InstrId) -> PrimitiveType {
        self.shape(x).element_type().unwrap_or(PrimitiveType::Pred)
    }

    /// `x`'s shape with another element type.
    fn retyped(&self, x: InstrId, ty: PrimitiveType) -> Shape {
        Shape::array(ty, &self.dims(x))
    }

    // ---- constants -------------------------------------------------------------------

    /// A constant of `value` with the element type and dimensions of `like`
    /// (MLIR's `getConstantLike`): a scalar constant, broadcast unless `like` is a scalar.
    pub(super) fn c(&mut self, value: f64, like: InstrId) -> InstrId {
        self.constant_like(Scalar::F(value), like)
    }

    /// An integer constant like `like` (exact for 64-bit integer types).
    pub(super) fn ci(&mut self, value: i64, like: InstrId) -> InstrId {
        self.constant_like(Scalar::I(value), like)
    }

    /// A constant of `value` with `like`'s element type and dimensions.
    pub(super) fn constant_like(&mut self, value: Scalar, like: InstrId) -> InstrId {
        let ty = self.ty(like);
        let dims = self.dims(like);
        self.constant(value, ty, &dims)
    }

    /// A constant of element type `ty` and dimensions `dims`, every element `value`.
    pub(super) fn constant(&mut self, value: Scalar, ty: PrimitiveType, dims: &[i64]) -> InstrId {
        let (bits, is_int) = match value {
            Scalar::F(v) => (v.to_bits(), false),
            Scalar::I(v) => (v as u64, true),
        };
        let key = (ty, bits, is_int, dims.to_vec());
        if let Some(&id) = self.constants.get(&key) {
            return id;
        }
        let literal = Literal::Array(scalar_literal(ty, value));
        let scalar = self.push(Shape::scalar(ty), Op::Constant { literal }, vec![]);
        let id = if dims.is_empty() {
            scalar
        } else {
            self.push(
                Shape::array(ty, dims),
                Op::Broadcast { dimensions: vec![] },
                vec![scalar],
            )
        };
        self.constants.insert(key, id);
        id
    }

    /// `+inf` or `-inf` like `x` (a float or complex type).
    pub(super) fn inf(&mut self, negative: bool, like: InstrId) -> InstrId {
        let v = if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        self.c(v, like)
    }

    /// The largest finite value of `x`'s float type (`APFloat::getLargest`).
    pub(super) fn max_finite(&mut self, like: InstrId) -> InstrId {
        let v = match float_component(self.ty(like)) {
            PrimitiveType::F16 => f16::MAX.to_f64(),
            PrimitiveType::BF16 => bf16::MAX.to_f64(),
            PrimitiveType::F32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        self.c(v, like)
    }

    /// The smallest positive subnormal value (`APFloat::getSmallest`).
    pub(super) fn smallest_subnormal(&mut self, like: InstrId) -> InstrId {
        let exponent = match float_component(self.ty(like)) {
            PrimitiveType::F16 => -24,
            PrimitiveType::BF16 => -133,
            PrimitiveType::F32 => -149,
            _ => -1074,
        };
        self.c(2f64.powi(exponent), like)
    }

    // ---- elementwise ops -------------------------------------------------------------

    /// An elementwise unary op keeping `x`'s shape.
    pub(super) fn unary(&mut self, opcode: Opcode, x: InstrId) -> InstrId {
        let shape = self.shape(x).clone();
        self.push(shape, Op::Plain(opcode), vec![x])
    }

    /// An elementwise binary op with `a`'s shape.
    pub(super) fn binary(&mut self, opcode: Opcode, a: InstrId, b: InstrId) -> InstrId {
        let shape = self.shape(a).clone();
        self.push(shape, Op::Plain(opcode), vec![a, b])
    }

    /// `compare(a, b), direction=dir`: `pred` of `a`'s dimensions.
    pub(super) fn cmp(
        &mut self,
        direction: ComparisonDirection,
        a: InstrId,
        b: InstrId,
    ) -> InstrId {
        let shape = self.retyped(a, PrimitiveType::Pred);
        let op = Op::Compare {
            direction,
            comparison_type: None,
        };
        self.push(shape, op, vec![a, b])
    }

    /// `select(p, a, b)`: `a`'s shape.
    pub(super) fn select(&mut self, p: InstrId, a: InstrId, b: InstrId) -> InstrId {
        let shape = self.shape(a).clone();
        self.push(shape, Op::Plain(Opcode::Select), vec![p, a, b])
    }

    /// `convert(x)` to element type `ty`.
    pub(super) fn convert(&mut self, x: InstrId, ty: PrimitiveType) -> InstrId {
        let shape = self.retyped(x, ty);
        self.push(shape, Op::Plain(Opcode::Convert), vec![x])
    }

    /// `bitcast-convert(x)` to an element type of the same width.
    pub(super) fn bitcast_convert(&mut self, x: InstrId, ty: PrimitiveType) -> InstrId {
        let shape = self.retyped(x, ty);
        self.push(shape, Op::Plain(Opcode::BitcastConvert), vec![x])
    }

    /// `real(z)` or `imag(z)`: the component type.
    pub(super) fn part(&mut self, opcode: Opcode, z: InstrId) -> InstrId {
        let shape = self.retyped(z, float_component(self.ty(z)));
        self.push(shape, Op::Plain(opcode), vec![z])
    }

    /// `complex(re, im)`.
    pub(super) fn complex(&mut self, re: InstrId, im: InstrId) -> InstrId {
        let ty = match self.ty(re) {
            PrimitiveType::F64 => PrimitiveType::C128,
            _ => PrimitiveType::C64,
        };
        let shape = self.retyped(re, ty);
        self.push(shape, Op::Plain(Opcode::Complex), vec![re, im])
    }

    /// `reshape(x)` to `dims`.
    pub(super) fn reshape(&mut self, x: InstrId, dims: &[i64]) -> InstrId {
        let shape = self.retyped_dims(x, dims);
        self.push(shape, Op::Plain(Opcode::Reshape), vec![x])
    }

    /// `broadcast(x), dimensions=map` to `dims`.
    pub(super) fn broadcast(&mut self, x: InstrId, map: Vec<usize>, dims: &[i64]) -> InstrId {
        let shape = self.retyped_dims(x, dims);
        self.push(shape, Op::Broadcast { dimensions: map }, vec![x])
    }

    fn retyped_dims(&self, x: InstrId, dims: &[i64]) -> Shape {
        Shape::array(self.ty(x), dims)
    }

    // Short names for the formulas; each is the HLO opcode (or comparison) of the same name.

    binary_ops! {
        add => Add, sub => Subtract, mul => Multiply, div => Divide, rem => Remainder,
        pow => Power, atan2 => Atan2, and => And, or => Or
    }
    unary_ops! {
        neg => Negate, exp => Exp, log => Log, log1p => Log1p, sqrt => Sqrt, floor => Floor,
        sign => Sign, sin => Sin, cos => Cos
    }
    comparisons! {
        lt => Lt, le => Le, gt => Gt, ge => Ge, eq => Eq, ne => Ne
    }

    /// `abs(x)`; real for a complex `x`.
    pub(super) fn abs(&mut self, x: InstrId) -> InstrId {
        if self.ty(x).is_complex() {
            // abs of a complex number is real.
            let shape = self.retyped(x, float_component(self.ty(x)));
            return self.push(shape, Op::Plain(Opcode::Abs), vec![x]);
        }
        self.unary(Opcode::Abs, x)
    }

    /// `is-finite(x)`: pred.
    pub(super) fn is_finite(&mut self, x: InstrId) -> InstrId {
        let shape = self.retyped(x, PrimitiveType::Pred);
        self.push(shape, Op::Plain(Opcode::IsFinite), vec![x])
    }

    /// Horner evaluation `((c0 * x + c1) * x + c2) ...`, as
    /// `materializePolynomialApproximation` emits it.
    pub(super) fn polynomial(&mut self, x: InstrId, coefficients: &[f64]) -> InstrId {
        let Some((&first, rest)) = coefficients.split_first() else {
            return self.c(0.0, x);
        };
        let mut poly = self.c(first, x);
        for &c in rest {
            let px = self.mul(poly, x);
            let k = self.c(c, x);
            poly = self.add(px, k);
        }
        poly
    }

    /// Runs `f` in f32 when the operands are f16 or bf16 and converts the result back
    /// (`materializeWithUpcast` with f32 as the minimum precision).
    pub(super) fn with_upcast(
        &mut self,
        args: &[InstrId],
        f: impl FnOnce(&mut Emitter<'a>, &[InstrId]) -> InstrId,
    ) -> InstrId {
        let original = self.ty(args[0]);
        if !matches!(original, PrimitiveType::F16 | PrimitiveType::BF16) {
            return f(self, args);
        }
        let wide: Vec<InstrId> = args
            .iter()
            .map(|&a| self.convert(a, PrimitiveType::F32))
            .collect();
        let result = f(self, &wide);
        self.convert(result, original)
    }
}

/// The float type of one component: `f32` for `c64`, `f64` for `c128`, else the type itself.
pub(super) fn float_component(ty: PrimitiveType) -> PrimitiveType {
    match ty {
        PrimitiveType::C64 => PrimitiveType::F32,
        PrimitiveType::C128 => PrimitiveType::F64,
        t => t,
    }
}

/// A rank-0 literal of `ty` holding `value` (floats rounded to nearest, integers wrapped).
fn scalar_literal(ty: PrimitiveType, value: Scalar) -> ArrayLiteral {
    use PrimitiveType as P;
    let f = match value {
        Scalar::F(v) => v,
        Scalar::I(v) => v as f64,
    };
    let i = match value {
        Scalar::F(v) => v as i64,
        Scalar::I(v) => v,
    };
    match ty {
        P::Pred => ArrayLiteral::scalar(i != 0),
        P::S8 => ArrayLiteral::scalar(i as i8),
        P::S16 => ArrayLiteral::scalar(i as i16),
        P::S32 => ArrayLiteral::scalar(i as i32),
        P::S64 => ArrayLiteral::scalar(i),
        P::U8 => ArrayLiteral::scalar(i as u8),
        P::U16 => ArrayLiteral::scalar(i as u16),
        P::U32 => ArrayLiteral::scalar(i as u32),
        P::U64 => ArrayLiteral::scalar(i as u64),
        P::F16 => ArrayLiteral::scalar(f16::from_f64(f)),
        P::BF16 => ArrayLiteral::scalar(bf16::from_f64(f)),
        P::F32 => ArrayLiteral::scalar(f as f32),
        P::C64 => ArrayLiteral::scalar(Complex::new(f as f32, 0.0)),
        P::C128 => ArrayLiteral::scalar(Complex::new(f, 0.0)),
        // `decompose` only reaches here with executable types; f64 is the fallback.
        _ => ArrayLiteral::scalar(f),
    }
}

/// An array shape's dims as a fresh row-major shape of another type (for callers that
/// build shapes from declared result types).
pub(super) fn array_shape(ty: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}
