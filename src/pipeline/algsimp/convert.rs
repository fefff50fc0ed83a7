//! Converts that change nothing: `convert(x) => x` to x's own type, and
//! `convert(convert(x)) => x` when the inner convert loses nothing (f32 -> f64 -> f32,
//! s8 -> s32 -> s8). A lossy pair (f32 -> f16 -> f32, s32 -> s8 -> s32) stays.
//!
//! XLA: `HandleConvert`, `IsConvertPairNoOp` in `algebraic_simplifier.cc`;
//! `primitive_util::CastPreservesValues` in `xla/primitive_util.cc`.

use super::Rewrite;
use super::matchers::operands;
use crate::ir::{Computation, InstrId, Op, Opcode, PrimitiveType};

/// `convert`: to the same type, or back through a lossless convert.
pub fn simplify_convert(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    convert_same_type(comp, id).or_else(|| convert_round_trip(comp, id))
}

/// The element type of an instruction.
fn element_type(comp: &Computation, id: InstrId) -> Option<PrimitiveType> {
    comp.instr(id).shape.element_type()
}

/// convert(x) => x when x already has the type
fn convert_same_type(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let x = operands(comp, id)[0];
    if element_type(comp, x)? != element_type(comp, id)? {
        return None;
    }
    Rewrite::replace_with(comp, id, x, "convert(x) => x")
}

/// convert(convert(x, T), type(x)) => x when converting to T preserves every value
fn convert_round_trip(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let inner = operands(comp, id)[0];
    if comp.instr(inner).op != Op::Plain(Opcode::Convert) {
        return None;
    }
    let x = operands(comp, inner)[0];
    let source = element_type(comp, x)?;
    if source != element_type(comp, id)?
        || !cast_preserves_values(source, element_type(comp, inner)?)
    {
        return None;
    }
    Rewrite::replace_with(comp, id, x, "convert(convert(x)) => x")
}

/// XLA's `CastPreservesValues(from, to)`: every `from` value survives the trip to `to`.
/// Decided for the types xlac computes in; the narrow float formats only trivially.
pub(super) fn cast_preserves_values(from: PrimitiveType, to: PrimitiveType) -> bool {
    use PrimitiveType as P;
    if from == to {
        return true;
    }
    if !from.is_executable() || !to.is_executable() {
        return false;
    }
    if from == P::Pred {
        return true; // 0 and 1 fit everywhere
    }
    if to == P::Pred {
        return false;
    }
    if to.is_complex() {
        let to_component = if to == P::C64 { P::F32 } else { P::F64 };
        let from_component = match from {
            P::C64 => P::F32,
            P::C128 => P::F64,
            other => other,
        };
        return cast_preserves_values(from_component, to_component);
    }
    if from.is_complex() {
        return false; // drops the imaginary part
    }
    if from.is_float() {
        // Wider exponent and significand, NaN and infinities kept: only these widen.
        return matches!(
            (from, to),
            (P::F16, P::F32)
                | (P::F16, P::F64)
                | (P::BF16, P::F32)
                | (P::BF16, P::F64)
                | (P::F32, P::F64)
        );
    }
    // Integers: compare the bits that carry magnitude (a signed type spends one on the sign).
    let magnitude_bits = |t: PrimitiveType| {
        if t.is_signed_integral() {
            t.bit_width() - 1
        } else {
            t.bit_width()
        }
    };
    if to.is_float() {
        let significand = match to {
            P::F16 => 11,
            P::BF16 => 8,
            P::F32 => 24,
            _ => 53,
        };
        return magnitude_bits(from) <= significand;
    }
    if from.is_signed_integral() && to.is_unsigned_integral() {
        return false; // drops negative numbers
    }
    magnitude_bits(from) <= magnitude_bits(to)
}
