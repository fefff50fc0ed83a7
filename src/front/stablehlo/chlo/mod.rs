//! CHLO ops decomposed into HLO the way XLA legalizes them (chlo-legalize-to-stablehlo).
//!
//! CHLO ("client HLO") is the MLIR dialect JAX uses for operations that are not StableHLO
//! primitives: special functions (`chlo.erf_inv`, `chlo.lgamma`), inverse trigonometric
//! and hyperbolic functions, `chlo.top_k`, and the implicitly broadcasting binary ops
//! (`chlo.broadcast_add`). XLA never executes them directly: before converting MLIR to
//! HLO it rewrites each one into plain ops. This module does the same rewrite, straight
//! into the HLO IR, one op at a time: the StableHLO converter calls [`decompose`] when it
//! meets a `chlo.*` op.
//!
//! The formulas follow openxla/stablehlo `stablehlo/transforms/ChloLegalizeToStablehlo.cpp`,
//! `ChloDecompositionPatterns.td` and `ChloDecompositionPatternsMath.td`, with the two
//! exceptions XLA itself makes before that pass (`chlo-legalize-to-high-level-mhlo`):
//! `chlo.top_k` becomes the HLO `topk` op and `chlo.erf` the HLO `erf` op, which is what
//! `model.hlo` of the JAX programs in `testdata/` shows. `chlo.tan` becomes HLO `tan`.
//!
//! Files by family: `special` (erf, erfc, erf_inv, bessel_i1e), `gamma` (lgamma,
//! digamma, polygamma, zeta), `trig` (acos, asin, atan, acosh, asinh, atanh, cosh, sinh,
//! tan), `broadcast` (the `chlo.broadcast_*` ops), `misc` (is_inf, conj, square,
//! next_after, top_k, constant_like, mulhi). `emit` is the instruction emitter they share.
//!
//! `ragged_dot` (mode 1: a ragged non-contracting lhs dimension) has its own file.
//! `chlo.scan` has a region, which this interface does not carry: the StableHLO converter
//! lowers it itself (`convert/scan.rs`).
//!
//! Not supported: `chlo.constant` (a plain constant: the converter handles it like
//! `stablehlo.constant`), the complex forms of asin/acos/acosh/asinh/atan/atanh, and
//! dynamic shapes. Each gives an error naming the op.

mod broadcast;
mod complex_trig;
mod emit;
mod gamma;
mod misc;
mod ragged_dot;
mod special;
mod trig;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod golden;
#[cfg(test)]
mod misc_tests;
#[cfg(test)]
mod tests;

use crate::ir::Refusal;
use crate::ir::shape_inference::human_string;
use crate::ir::{ComparisonDirection, ComparisonType, ComputationId, InstrId, Module, Shape};

use emit::Emitter;

/// An attribute of a CHLO op, already parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum ChloAttr {
    /// An integer (`k = 3`).
    Int(i64),
    /// A boolean (`is_stable = true`).
    Bool(bool),
    /// A float (`value = 1.0` of `constant_like`).
    Float(f64),
    /// A list of integers (`broadcast_dimensions = array<i64: 1>`).
    Ints(Vec<i64>),
    /// A string.
    Str(String),
    /// `comparison_direction = #chlo<comparison_direction LT>`.
    ComparisonDirection(ComparisonDirection),
    /// `compare_type = #chlo<comparison_type TOTALORDER>`.
    ComparisonType(ComparisonType),
}

/// One CHLO op to decompose: `chlo.erf`, `chlo.top_k`, `chlo.broadcast_add`, ...
pub struct ChloOp<'a> {
    /// Full op name with the dialect, e.g. `chlo.erf`.
    pub name: &'a str,
    /// Operands, already converted; instructions of computation `comp`.
    pub operands: &'a [InstrId],
    /// The declared result types (shape of each result).
    pub result_shapes: &'a [Shape],
    /// Attributes by name (e.g. `k` for top_k, `comparison_direction` for broadcast_compare,
    /// `broadcast_dimensions` for broadcast_* ops).
    pub attributes: &'a [(String, ChloAttr)],
}

impl ChloOp<'_> {
    /// The attribute called `name`, if present.
    fn attr(&self, name: &str) -> Option<&ChloAttr> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
    }
}

/// Appends HLO instructions computing `op` to the end of `module.computations[comp].order`
/// (adding helper computations to the module if needed) and returns one instruction per result.
/// Errors name what is unsupported.
pub fn decompose(
    module: &mut Module,
    comp: ComputationId,
    op: &ChloOp<'_>,
) -> Result<Vec<InstrId>, Refusal> {
    let short = op
        .name
        .strip_prefix("chlo.")
        .ok_or_else(|| format!("`{}` is not a CHLO op", op.name))?;
    let computation = module
        .computations
        .get_mut(comp)
        .ok_or_else(|| format!("{}: there is no computation {comp}", op.name))?;
    for &x in op.operands {
        let shape = computation
            .instrs
            .get(x)
            .map(|i| &i.shape)
            .ok_or_else(|| format!("{}: operand {x} does not exist", op.name))?;
        let Some(array) = shape.as_array() else {
            return Err(format!("{}: operands must be arrays", op.name).into());
        };
        if !array.dynamic_dims.iter().all(|&d| !d) {
            return Err(Refusal::unsupported(format!(
                "{}: dynamic shapes are not supported",
                op.name
            )));
        }
        if !array.element_type.is_executable() {
            return Err(Refusal::unsupported(format!(
                "{}: element type {} is not supported",
                op.name, array.element_type
            )));
        }
    }
    // Names follow the op, as XLA's do after conversion (`erf_inv.3`).
    let mut em = Emitter::new(computation, short);
    let results = dispatch(&mut em, short, op)?;
    check_results(&em, op, &results)?;
    Ok(results)
}

/// Calls the decomposition of the op named `short` (without `chlo.`).
fn dispatch(em: &mut Emitter<'_>, short: &str, op: &ChloOp<'_>) -> Result<Vec<InstrId>, Refusal> {
    if let Some(binary) = short.strip_prefix("broadcast_") {
        return broadcast::decompose(em, binary, op).map(|r| vec![r]);
    }
    let one = match short {
        "erf" => special::erf(em, unary(op)?)?,
        "erfc" => special::erfc(em, unary(op)?)?,
        "erf_inv" => special::erf_inv(em, unary(op)?)?,
        "lgamma" => gamma::lgamma(em, unary(op)?)?,
        "digamma" => gamma::digamma(em, unary(op)?)?,
        "bessel_i1e" => special::bessel_i1e(em, unary(op)?)?,
        "polygamma" => {
            let [n, x] = binary(op)?;
            gamma::polygamma(em, n, x)?
        }
        "zeta" => {
            let [x, q] = binary(op)?;
            gamma::zeta(em, x, q)?
        }
        "acos" => trig::acos(em, unary(op)?)?,
        "asin" => trig::asin(em, unary(op)?)?,
        "atan" => trig::atan(em, unary(op)?)?,
        "acosh" => trig::acosh(em, unary(op)?)?,
        "asinh" => trig::asinh(em, unary(op)?)?,
        "atanh" => trig::atanh(em, unary(op)?)?,
        "cosh" => trig::cosh(em, unary(op)?)?,
        "sinh" => trig::sinh(em, unary(op)?)?,
        "tan" => trig::tan(em, unary(op)?)?,
        "is_inf" => misc::is_inf(em, unary(op)?)?,
        "is_pos_inf" => misc::is_pos_inf(em, unary(op)?)?,
        "is_neg_inf" => misc::is_neg_inf(em, unary(op)?)?,
        "conj" => misc::conj(em, unary(op)?),
        "square" => misc::square(em, unary(op)?),
        "next_after" => {
            let [x, y] = binary(op)?;
            misc::next_after(em, x, y)?
        }
        "mulhi" => {
            let [a, b] = binary(op)?;
            misc::mulhi(em, a, b)?
        }
        "constant_like" => misc::constant_like(em, op)?,
        "top_k" => return misc::top_k(em, op),
        "scan" => {
            return Err(
                "chlo.scan has a region: the StableHLO converter lowers it (convert/scan.rs)"
                    .into(),
            );
        }
        "ragged_dot" => ragged_dot::ragged_dot(em, op)?,
        "constant" => {
            return Err(
                "chlo.constant is a plain constant: convert it like stablehlo.constant".into(),
            );
        }
        _ => {
            return Err(Refusal::unsupported(format!(
                "xlac has no decomposition of {}",
                op.name
            )));
        }
    };
    Ok(vec![one])
}

/// The single operand of a unary op.
fn unary(op: &ChloOp<'_>) -> Result<InstrId, Refusal> {
    match op.operands {
        [x] => Ok(*x),
        _ => Err(format!("{} takes 1 operand, got {}", op.name, op.operands.len()).into()),
    }
}

/// The two operands of a binary op.
fn binary(op: &ChloOp<'_>) -> Result<[InstrId; 2], Refusal> {
    match op.operands {
        [a, b] => Ok([*a, *b]),
        _ => Err(format!("{} takes 2 operands, got {}", op.name, op.operands.len()).into()),
    }
}

/// Checks that the decomposition produced the declared result types.
fn check_results(em: &Emitter<'_>, op: &ChloOp<'_>, results: &[InstrId]) -> Result<(), Refusal> {
    if results.len() != op.result_shapes.len() {
        return Err(format!(
            "{} declares {} results but computes {}",
            op.name,
            op.result_shapes.len(),
            results.len()
        )
        .into());
    }
    for (i, (&r, declared)) in results.iter().zip(op.result_shapes).enumerate() {
        if !em.shape(r).compatible(declared) {
            return Err(format!(
                "{}: result {i} is declared {} but computes {}",
                op.name,
                human_string(declared),
                human_string(em.shape(r))
            )
            .into());
        }
    }
    Ok(())
}

/// Element types the floating-point decompositions accept.
fn require_float(name: &str, em: &Emitter<'_>, x: InstrId) -> Result<(), Refusal> {
    let ty = em.ty(x);
    if ty.is_float() {
        Ok(())
    } else {
        Err(Refusal::unsupported(format!(
            "chlo.{name} of {ty} is not supported"
        )))
    }
}

/// Element types accepted by decompositions that also have a complex form.
fn require_float_or_complex(name: &str, em: &Emitter<'_>, x: InstrId) -> Result<(), Refusal> {
    let ty = em.ty(x);
    if ty.is_float() || ty.is_complex() {
        Ok(())
    } else {
        Err(Refusal::unsupported(format!(
            "chlo.{name} of {ty} is not supported"
        )))
    }
}
