//! Bytes moved and flops of one thunk, counted from its HLO the way XLA's
//! `HloCostAnalysis` counts them (`xla/service/hlo_cost_analysis.cc`): an elementwise op is
//! one flop per output element (transcendentals counted apart), a reduction one per input
//! element, a dot `2·M·N·K`, a convolution two per multiply-add; bytes are the operand
//! buffers read plus the output written, once each (what a fused kernel touches in memory,
//! not what its loop body recomputes).
//!
//! What it is not: a measurement. It is the yardstick the report divides measured time by.

use crate::ir::{Computation, ComputationId, InstrId, Module, Op, OpCategory, Opcode, Shape};

/// What a thunk costs on paper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Floating-point (or integer) arithmetic operations.
    pub flops: u64,
    /// Of which transcendental (exp, log, tanh, ...), counted apart as XLA does.
    pub transcendentals: u64,
    /// Bytes read from operand buffers plus bytes written to the output.
    pub bytes: u64,
}

/// The cost of instruction `id` of computation `c` (a fusion counts its fused computation).
pub fn instruction_cost(module: &Module, c: ComputationId, id: InstrId) -> Cost {
    let comp = &module.computations[c];
    let instr = comp.instr(id);
    let mut seen = Vec::new();
    let mut bytes = leaf_bytes(&instr.shape);
    for &o in &instr.operands {
        if !seen.contains(&o) {
            seen.push(o);
            bytes += leaf_bytes(&comp.instr(o).shape);
        }
    }
    let (flops, transcendentals) = match instr.op {
        Op::Fusion { calls, .. } => {
            let fused = &module.computations[calls];
            fused.order.iter().fold((0, 0), |(f, t), &i| {
                let (fi, ti) = op_flops(fused, i);
                (f + fi, t + ti)
            })
        }
        _ => op_flops(comp, id),
    };
    Cost {
        flops,
        transcendentals,
        bytes,
    }
}

/// Bytes of every array leaf of `shape`.
fn leaf_bytes(shape: &Shape) -> u64 {
    shape.leaves().iter().map(|a| a.byte_size() as u64).sum()
}

fn elements(shape: &Shape) -> u64 {
    shape
        .leaves()
        .iter()
        .map(|a| a.element_count() as u64)
        .sum()
}

/// (flops, transcendentals) of one instruction.
fn op_flops(comp: &Computation, id: InstrId) -> (u64, u64) {
    let instr = comp.instr(id);
    let operand = |k: usize| instr.operands.get(k).map(|&o| &comp.instr(o).shape);
    let opcode = instr.opcode();
    match &instr.op {
        Op::Dot {
            dimension_numbers, ..
        } => {
            let k: u64 = operand(0)
                .and_then(|s| s.leaves().first().map(|a| a.dims.clone()))
                .map(|dims| {
                    dimension_numbers
                        .lhs_contracting_dimensions
                        .iter()
                        .map(|&d| dims.get(d).copied().unwrap_or(1).max(0) as u64)
                        .product()
                })
                .unwrap_or(1);
            (2 * elements(&instr.shape) * k, 0)
        }
        Op::Convolution {
            dimension_numbers,
            feature_group_count,
            ..
        } => {
            // Each output element sums kernel-spatial × input-features/groups products.
            let per_output = operand(1)
                .and_then(|s| s.leaves().first().map(|a| a.dims.clone()))
                .map(|dims| {
                    let spatial: u64 = dimension_numbers
                        .kernel_spatial_dimensions
                        .iter()
                        .map(|&d| dims.get(d).copied().unwrap_or(1).max(0) as u64)
                        .product();
                    let features = dims
                        .get(dimension_numbers.kernel_input_feature_dimension)
                        .copied()
                        .unwrap_or(1)
                        .max(0) as u64;
                    spatial * features.max(1) / (*feature_group_count).max(1) as u64
                })
                .unwrap_or(1);
            (2 * elements(&instr.shape) * per_output.max(1), 0)
        }
        _ => match opcode.category() {
            OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary => {
                let n = elements(&instr.shape);
                if is_transcendental(opcode) {
                    (n, n)
                } else if matches!(
                    opcode,
                    Opcode::Convert | Opcode::Copy | Opcode::BitcastConvert
                ) {
                    (0, 0)
                } else {
                    (n, 0)
                }
            }
            OpCategory::Reduction => {
                let n = operand(0).map(elements).unwrap_or(0);
                (n, 0)
            }
            _ => (0, 0),
        },
    }
}

fn is_transcendental(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Exp | Expm1
            | Log
            | Log1p
            | Tanh
            | Logistic
            | Sin
            | Cos
            | Sinh
            | Cosh
            | Tan
            | Atan2
            | Erf
            | Power
            | Sqrt
            | Rsqrt
            | Cbrt
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::hlo_text::parse_module;

    #[test]
    fn counts_a_dot_and_an_elementwise_fusion_by_hand() {
        let m = parse_module(
            r#"HloModule m

fc {
  a = f32[4,8] parameter(0)
  e = f32[4,8] exponential(a)
  ROOT m = f32[4,8] multiply(e, a)
}

ENTRY main {
  x = f32[4,3] parameter(0)
  y = f32[3,8] parameter(1)
  d = f32[4,8] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT f = f32[4,8] fusion(d), kind=kLoop, calls=fc
}
"#,
            "m.hlo",
        )
        .unwrap()
        .module;
        let entry = m.entry_computation();
        let d = instruction_cost(&m, m.entry, entry.find("d").unwrap());
        // 2·M·N·K = 2·4·8·3; bytes: 12 + 24 floats read, 32 written.
        assert_eq!(d.flops, 192);
        assert_eq!(d.bytes, (12 + 24 + 32) * 4);
        let f = instruction_cost(&m, m.entry, entry.find("f").unwrap());
        // exp and multiply over 32 elements; one read and one write of 32 floats.
        assert_eq!((f.flops, f.transcendentals, f.bytes), (64, 32, 256));
    }
}
