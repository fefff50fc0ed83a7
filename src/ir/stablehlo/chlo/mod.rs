//! CHLO ops decomposed into HLO the way XLA legalizes them (chlo-legalize-to-stablehlo).
use crate::ir::{ComparisonDirection, ComparisonType, ComputationId, InstrId, Module, Shape};

/// An attribute of a CHLO op, already parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum ChloAttr {
    /// An integer (`k = 2`, `dimension = 0`).
    Int(i64),
    /// A boolean (`is_reverse = true`).
    Bool(bool),
    /// A float.
    Float(f64),
    /// A list of integers (`broadcast_dimensions = array<i64: 0, 1>`).
    Ints(Vec<i64>),
    /// A string or an enum spelling not listed below.
    Str(String),
    /// `comparison_direction = #chlo<comparison_direction LT>`.
    ComparisonDirection(ComparisonDirection),
    /// `compare_type = #chlo<comparison_type FLOAT>`.
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

/// Appends HLO instructions computing `op` to the end of `module.computations[comp].order`
/// (adding helper computations to the module if needed) and returns one instruction per result.
/// Errors name what is unsupported.
pub fn decompose(
    module: &mut Module,
    comp: ComputationId,
    op: &ChloOp<'_>,
) -> Result<Vec<InstrId>, String> {
    let _ = (module, comp);
    Err(format!("`{}` is not supported yet", op.name))
}
