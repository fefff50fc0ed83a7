//! How many operands and results each StableHLO op takes, checked once for every op before
//! it is converted, so that no conversion indexes past its operands or results.
//! (`stablehlo.dynamic_pad` with two operands, `stablehlo.send` with none, ... would
//! otherwise panic.) The counts are StableHLO's (`stablehlo/dialect/StablehloOps.td`);
//! CHLO ops check theirs in [`crate::front::stablehlo::chlo`].

use crate::front::stablehlo::ast::Operation;

/// A number of operands or results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// Exactly this many.
    Exactly(usize),
    /// This many or more.
    AtLeast(usize),
}

impl Count {
    fn allows(self, n: usize) -> bool {
        match self {
            Count::Exactly(k) => n == k,
            Count::AtLeast(k) => n >= k,
        }
    }

    fn describe(self, what: &str) -> String {
        let (k, prefix) = match self {
            Count::Exactly(k) => (k, ""),
            Count::AtLeast(k) => (k, "at least "),
        };
        let s = if k == 1 { "" } else { "s" };
        format!("{prefix}{k} {what}{s}")
    }
}

/// The operand and result counts of `name` (with its `stablehlo.` prefix), or `None` for
/// ops whose counts the converter does not constrain (calls, custom calls, CHLO ops, ops it
/// does not know and rejects anyway).
pub(crate) fn counts(name: &str) -> Option<(Count, Count)> {
    use Count::{AtLeast, Exactly};
    let short = name.strip_prefix("stablehlo.")?;
    let one = Exactly(1);
    Some(match short {
        // Unary element-wise ops and other one-in, one-out ops.
        "abs"
        | "cbrt"
        | "ceil"
        | "convert"
        | "cosine"
        | "count_leading_zeros"
        | "exponential"
        | "exponential_minus_one"
        | "floor"
        | "imag"
        | "is_finite"
        | "log"
        | "log_plus_one"
        | "logistic"
        | "negate"
        | "not"
        | "popcnt"
        | "real"
        | "round_nearest_afz"
        | "round_nearest_even"
        | "rsqrt"
        | "sign"
        | "sine"
        | "sqrt"
        | "tan"
        | "tanh"
        | "bitcast_convert"
        | "reshape"
        | "reduce_precision"
        | "broadcast_in_dim"
        | "broadcast"
        | "transpose"
        | "reverse"
        | "slice"
        | "get_tuple_element"
        | "fft"
        | "cholesky"
        | "uniform_quantize"
        | "uniform_dequantize"
        | "get_dimension_size"
        | "dynamic_iota" => (one, one),
        // Collectives over several arrays at once.
        "collective_permute" | "collective_broadcast" => (AtLeast(1), AtLeast(1)),
        // Binary ops.
        "add"
        | "and"
        | "atan2"
        | "complex"
        | "divide"
        | "maximum"
        | "minimum"
        | "multiply"
        | "or"
        | "power"
        | "remainder"
        | "shift_left"
        | "shift_right_arithmetic"
        | "shift_right_logical"
        | "subtract"
        | "xor"
        | "compare"
        | "dot"
        | "dot_general"
        | "triangular_solve"
        | "dynamic_reshape"
        | "dynamic_broadcast_in_dim"
        | "pad"
        | "convolution"
        | "gather" => (Exactly(2), one),
        "clamp" | "select" | "dynamic_conv" | "dynamic_gather" | "rng" => (Exactly(3), one),
        "dynamic_pad" => (Exactly(5), one),
        "real_dynamic_slice" => (Exactly(4), one),
        "constant" | "iota" | "replica_id" | "partition_id" => (Exactly(0), one),
        "dynamic_slice" | "concatenate" | "map" => (AtLeast(1), one),
        "dynamic_update_slice" => (AtLeast(2), one),
        "after_all" => (AtLeast(0), one),
        "create_token" => (Exactly(0), one),
        "tuple" => (AtLeast(0), one),
        "optimization_barrier" => (AtLeast(0), AtLeast(0)),
        "rng_bit_generator" => (one, Exactly(2)),
        "reduce" | "reduce_window" => (AtLeast(2), AtLeast(1)),
        "scatter" => (AtLeast(3), AtLeast(1)),
        "sort" => (AtLeast(1), AtLeast(1)),
        "select_and_scatter" => (Exactly(3), one),
        "while" => (AtLeast(0), AtLeast(0)),
        "if" | "case" => (one, AtLeast(0)),
        "all_reduce" | "all_gather" | "all_to_all" | "reduce_scatter" => (AtLeast(1), AtLeast(1)),
        // infeed(token) -> (data..., token); recv(token) -> (data..., token).
        "infeed" | "recv" => (one, AtLeast(1)),
        // outfeed(data..., token) -> token; send(data..., token) -> token.
        "outfeed" | "send" => (AtLeast(1), one),
        "batch_norm_inference" => (Exactly(5), one),
        "batch_norm_training" => (Exactly(3), Exactly(3)),
        "batch_norm_grad" => (Exactly(5), Exactly(3)),
        _ => return None,
    })
}

/// Checks `op`'s operand and result counts; the error names the op and what it takes.
pub(crate) fn check_counts(op: &Operation) -> Result<(), String> {
    let Some((operands, results)) = counts(&op.name) else {
        return Ok(());
    };
    let problem = |count: Count, n: usize, what: &str| {
        format!("'{}' takes {} but has {n}", op.name, count.describe(what))
    };
    if !operands.allows(op.operands.len()) {
        return Err(problem(operands, op.operands.len(), "operand"));
    }
    if !results.allows(op.result_types.len()) {
        return Err(problem(results, op.result_types.len(), "result"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_describe_themselves() {
        assert_eq!(Count::Exactly(1).describe("operand"), "1 operand");
        assert_eq!(Count::AtLeast(2).describe("result"), "at least 2 results");
        assert_eq!(
            counts("stablehlo.dynamic_pad"),
            Some((Count::Exactly(5), Count::Exactly(1)))
        );
        assert_eq!(counts("chlo.erf"), None);
        assert_eq!(counts("func.call"), None);
    }
}
