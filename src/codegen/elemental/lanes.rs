//! The per-op lowering of float elementwise ops on values of any lane count: a scalar
//! (`f32`, `f64`) from the element loops, or an `f32x4` / `f64x2` vector from the vector
//! strategies (`vectorize.rs`, `vector_transpose.rs`, `vector_reduce.rs`). Every strategy
//! calls these; a strategy only decides how the operands are loaded (one element, a vector
//! load, a splat, a transposed block).
//!
//! Cranelift's arithmetic takes scalars and vectors alike. Where the two differ, the
//! choice is made here, once: a condition is an `i8` for scalars and a lane mask for
//! vectors ([`Emitter::lane_select`]), and a vector `negate` is one `xor` with a constant
//! sign mask (x64 builds `fneg`'s mask in every iteration).
//! The comparison-direction tables ([`float_cc`], [`signed_cc`], [`unsigned_cc`]) live
//! here too, for every compare the emitters write.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value, types};

use super::{Emitter, error};
use crate::codegen::CodegenError;
use crate::ir::{ComparisonDirection, Instruction, Opcode, PrimitiveType};

/// The float condition code of an HLO comparison direction (ordered; `ne` is true on NaN,
/// as XLA's `UNE`).
pub fn float_cc(direction: ComparisonDirection) -> FloatCC {
    use ComparisonDirection as D;
    match direction {
        D::Eq => FloatCC::Equal,
        D::Ne => FloatCC::NotEqual,
        D::Lt => FloatCC::LessThan,
        D::Le => FloatCC::LessThanOrEqual,
        D::Gt => FloatCC::GreaterThan,
        D::Ge => FloatCC::GreaterThanOrEqual,
    }
}

/// The signed-integer condition code of an HLO comparison direction.
pub fn signed_cc(direction: ComparisonDirection) -> IntCC {
    use ComparisonDirection as D;
    match direction {
        D::Eq => IntCC::Equal,
        D::Ne => IntCC::NotEqual,
        D::Lt => IntCC::SignedLessThan,
        D::Le => IntCC::SignedLessThanOrEqual,
        D::Gt => IntCC::SignedGreaterThan,
        D::Ge => IntCC::SignedGreaterThanOrEqual,
    }
}

/// The unsigned-integer (and `pred`) condition code of an HLO comparison direction.
pub fn unsigned_cc(direction: ComparisonDirection) -> IntCC {
    use ComparisonDirection as D;
    match direction {
        D::Eq => IntCC::Equal,
        D::Ne => IntCC::NotEqual,
        D::Lt => IntCC::UnsignedLessThan,
        D::Le => IntCC::UnsignedLessThanOrEqual,
        D::Gt => IntCC::UnsignedGreaterThan,
        D::Ge => IntCC::UnsignedGreaterThanOrEqual,
    }
}

impl<'m> Emitter<'m, '_, '_> {
    /// A float elementwise op of a vector strategy on operands of any lane count: `copy`,
    /// `select` (its condition a lane mask from [`Emitter::float_compare`]), and the
    /// unary and binary ops of the scalar path.
    pub(crate) fn float_lanes(
        &mut self,
        instr: &Instruction,
        op: Opcode,
        t: PrimitiveType,
        args: &[Value],
    ) -> Result<Value, CodegenError> {
        match (op, args) {
            (Opcode::Copy, &[a]) => Ok(a),
            (Opcode::Select, &[m, a, b]) => Ok(self.lane_select(m, a, b)),
            (_, &[x]) => self.float_unary(instr, op, t, x),
            (_, &[a, b]) => self.float_binary(instr, op, t, a, b),
            _ => Err(error(instr, format!("{op} has no float lowering"))),
        }
    }

    /// `a <direction> b` on floats: an `i8` for scalars; for vectors, a lane mask of the
    /// data type (all ones or zeros per lane), ready for [`Emitter::lane_select`].
    pub(crate) fn float_compare(
        &mut self,
        direction: ComparisonDirection,
        a: Value,
        b: Value,
    ) -> Value {
        self.fcmp_lanes(float_cc(direction), a, b)
    }

    /// `fcmp cc, a, b`, as a lane mask of the data type when the operands are vectors.
    pub(crate) fn fcmp_lanes(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        let m = self.b.ins().fcmp(cc, a, b);
        let ty = self.b.func.dfg.value_type(a);
        if ty.is_vector() {
            self.lane_mask_as(ty, m)
        } else {
            m
        }
    }

    /// `a <direction> b` on signed i32 lanes (indices in an f32 loop), as a lane mask of
    /// the float vector type `ty` (as many lanes), ready for [`Emitter::lane_select`].
    pub(crate) fn index_compare(
        &mut self,
        direction: ComparisonDirection,
        a: Value,
        b: Value,
        ty: Type,
    ) -> Value {
        let m = self.b.ins().icmp(signed_cc(direction), a, b);
        self.lane_mask_as(ty, m)
    }

    /// Lane mask `m` (all ones or zeros per lane) seen as vector type `ty`, same bits.
    fn lane_mask_as(&mut self, ty: Type, m: Value) -> Value {
        let flags = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(ty, flags, m)
    }

    /// `condition ? a : b` per lane: `select` on an `i8`, `bitselect` on a lane mask.
    pub(crate) fn lane_select(&mut self, condition: Value, a: Value, b: Value) -> Value {
        if self.b.func.dfg.value_type(a).is_vector() {
            self.b.ins().bitselect(condition, a, b)
        } else {
            self.b.ins().select(condition, a, b)
        }
    }

    /// `-x`: `fneg` on a scalar; on a vector one `xor` with a constant sign mask.
    pub(crate) fn float_negate(&mut self, x: Value) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        if !ty.is_vector() {
            return self.b.ins().fneg(x);
        }
        let s = if ty == types::F64X2 {
            self.b.ins().f64const(-0.0)
        } else {
            self.b.ins().f32const(-0.0)
        };
        let sign = self.b.ins().splat(ty, s);
        self.b.ins().bxor(x, sign)
    }

    /// XLA's `maximum` (`max` true) or `minimum`: NaN propagates (lhs first), otherwise
    /// [`Emitter::float_max_min_ordered`].
    pub fn float_max_min(&mut self, a: Value, b: Value, max: bool) -> Value {
        let r = self.float_max_min_ordered(a, b, max);
        let b_nan = self.fcmp_lanes(FloatCC::Unordered, b, b);
        let r = self.lane_select(b_nan, b, r);
        let a_nan = self.fcmp_lanes(FloatCC::Unordered, a, a);
        self.lane_select(a_nan, a, r)
    }

    /// `maximum`/`minimum` of `a` and `b` when neither holds a NaN (lhs on ties): one
    /// compare and select, which x64 lowers to a single `maxps`/`minps` on vectors (their
    /// operand order gives exactly this tie rule). A NaN in `b` yields `a`, one in `a`
    /// yields `b`.
    pub(crate) fn float_max_min_ordered(&mut self, a: Value, b: Value, max: bool) -> Value {
        let take_b = if max {
            self.fcmp_lanes(FloatCC::LessThan, a, b)
        } else {
            self.fcmp_lanes(FloatCC::LessThan, b, a)
        };
        self.lane_select(take_b, b, a)
    }
}
