//! The implicitly broadcasting binary ops, `chlo.broadcast_add` and friends, plus
//! `chlo.broadcast_compare` and `chlo.broadcast_select`.
//!
//! Mirrors openxla/stablehlo `ChloLegalizeToStablehlo.cpp` (`ConvertTrivialNonBroadcastBinaryOp`,
//! `ConvertTrivialNumpyBroadcastBinaryOp`, `ConvertSelectOp`) for static shapes: operands of
//! the same shape go straight to the HLO op; otherwise each operand is broadcast to the
//! common shape numpy-style (dimensions aligned at the end, size-1 dimensions stretched).
//! `broadcast_dimensions`, when given, says which result dimension each dimension of the
//! lower-rank operand is (XLA's client-side broadcasting); without it the alignment is at
//! the end. HLO's `broadcast` cannot stretch a size-1 dimension, so such dimensions are first
//! removed with a `reshape`, as XLA's `BroadcastTo` does.

use super::emit::Emitter;
use super::{ChloAttr, ChloOp, gamma, misc};
use crate::ir::Refusal;
use crate::ir::{ComparisonDirection, InstrId, Op, Opcode, PrimitiveType, Shape};

/// Decomposes `chlo.broadcast_<binary>`.
pub(super) fn decompose(
    em: &mut Emitter<'_>,
    binary: &str,
    op: &ChloOp<'_>,
) -> Result<InstrId, Refusal> {
    if binary == "select" {
        let [p, a, b] = op.operands else {
            return Err("chlo.broadcast_select takes 3 operands".into());
        };
        let maps: Vec<Vec<usize>> = [*p, *a, *b]
            .iter()
            .map(|&x| trailing_map(em.dims(x).len(), max_rank(em, op.operands)))
            .collect();
        let dims = common_dims(em, op, op.operands, &maps)?;
        let p = broadcast_to(em, *p, &maps[0], &dims)?;
        let a = broadcast_to(em, *a, &maps[1], &dims)?;
        let b = broadcast_to(em, *b, &maps[2], &dims)?;
        return Ok(em.select(p, a, b));
    }
    let [lhs, rhs] = op.operands else {
        return Err(format!("{} takes 2 operands", op.name).into());
    };
    let (lhs, rhs) = (*lhs, *rhs);
    let rank = max_rank(em, op.operands);
    let explicit = match op.attr("broadcast_dimensions") {
        Some(ChloAttr::Ints(dims)) => Some(to_usize(op, dims, rank)?),
        None => None,
        Some(other) => {
            return Err(format!(
                "{}: broadcast_dimensions must be a list of integers, got {other:?}",
                op.name
            )
            .into());
        }
    };
    let map_of = |x: InstrId| -> Result<Vec<usize>, Refusal> {
        let r = em.dims(x).len();
        match &explicit {
            // The explicit map applies to the lower-rank operand.
            Some(map) if r < rank => {
                if map.len() != r {
                    return Err(format!(
                        "{}: broadcast_dimensions has {} entries for an operand of rank {r}",
                        op.name,
                        map.len()
                    )
                    .into());
                }
                Ok(map.clone())
            }
            _ => Ok(trailing_map(r, rank)),
        }
    };
    let maps = vec![map_of(lhs)?, map_of(rhs)?];
    let dims = common_dims(em, op, op.operands, &maps)?;
    let lhs = broadcast_to(em, lhs, &maps[0], &dims)?;
    let rhs = broadcast_to(em, rhs, &maps[1], &dims)?;
    let opcode = match binary {
        "add" => Opcode::Add,
        "and" => Opcode::And,
        "atan2" => Opcode::Atan2,
        "divide" => Opcode::Divide,
        "maximum" => Opcode::Maximum,
        "minimum" => Opcode::Minimum,
        "multiply" => Opcode::Multiply,
        "or" => Opcode::Or,
        "power" => Opcode::Power,
        "remainder" => Opcode::Remainder,
        "shift_left" => Opcode::ShiftLeft,
        "shift_right_arithmetic" => Opcode::ShiftRightArithmetic,
        "shift_right_logical" => Opcode::ShiftRightLogical,
        "subtract" => Opcode::Subtract,
        "xor" => Opcode::Xor,
        "complex" => return Ok(em.complex(lhs, rhs)),
        "next_after" => return misc::next_after(em, lhs, rhs),
        "polygamma" => return gamma::polygamma(em, lhs, rhs),
        "zeta" => return gamma::zeta(em, lhs, rhs),
        "compare" => return compare(em, op, lhs, rhs),
        _ => {
            return Err(Refusal::unsupported(format!(
                "xlac has no decomposition of {}",
                op.name
            )));
        }
    };
    Ok(em.binary(opcode, lhs, rhs))
}

/// `chlo.broadcast_compare` with its `comparison_direction` and optional `compare_type`.
fn compare(
    em: &mut Emitter<'_>,
    op: &ChloOp<'_>,
    lhs: InstrId,
    rhs: InstrId,
) -> Result<InstrId, Refusal> {
    let direction: ComparisonDirection = match op.attr("comparison_direction") {
        Some(ChloAttr::ComparisonDirection(d)) => *d,
        other => {
            return Err(format!(
                "chlo.broadcast_compare needs a comparison_direction, got {other:?}"
            )
            .into());
        }
    };
    let comparison_type = match op.attr("compare_type").or(op.attr("comparison_type")) {
        Some(ChloAttr::ComparisonType(t)) => Some(*t),
        None => None,
        Some(other) => {
            return Err(format!("chlo.broadcast_compare: bad compare_type {other:?}").into());
        }
    };
    let shape = Shape::array(PrimitiveType::Pred, &em.dims(lhs));
    let op = Op::Compare {
        direction,
        comparison_type,
    };
    Ok(em.push(shape, op, vec![lhs, rhs]))
}

fn max_rank(em: &Emitter<'_>, operands: &[InstrId]) -> usize {
    operands
        .iter()
        .map(|&x| em.dims(x).len())
        .max()
        .unwrap_or(0)
}

/// numpy alignment: operand dimension i is result dimension `rank - r + i`.
fn trailing_map(r: usize, rank: usize) -> Vec<usize> {
    (rank - r..rank).collect()
}

fn to_usize(op: &ChloOp<'_>, dims: &[i64], rank: usize) -> Result<Vec<usize>, Refusal> {
    dims.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < rank)
                .ok_or_else(|| {
                    format!("{}: broadcast dimension {d} is out of range", op.name).into()
                })
        })
        .collect()
}

/// The broadcast result dimensions: per result dimension, the operands' sizes must agree
/// or be 1.
fn common_dims(
    em: &Emitter<'_>,
    op: &ChloOp<'_>,
    operands: &[InstrId],
    maps: &[Vec<usize>],
) -> Result<Vec<i64>, Refusal> {
    let rank = max_rank(em, operands);
    let mut dims = vec![1i64; rank];
    let mut seen = vec![false; rank];
    for (&x, map) in operands.iter().zip(maps) {
        for (&size, &r) in em.dims(x).iter().zip(map) {
            if !seen[r] || dims[r] == 1 {
                dims[r] = size;
            } else if size != 1 && size != dims[r] {
                return Err(format!(
                    "{}: operand shapes {:?} cannot be broadcast together",
                    op.name,
                    operands.iter().map(|&x| em.dims(x)).collect::<Vec<_>>()
                )
                .into());
            }
            seen[r] = true;
        }
    }
    Ok(dims)
}

/// Broadcasts `x` (whose dimension i is result dimension `map[i]`) to `dims`.
fn broadcast_to(
    em: &mut Emitter<'_>,
    x: InstrId,
    map: &[usize],
    dims: &[i64],
) -> Result<InstrId, Refusal> {
    let x_dims = em.dims(x);
    let identity = map.iter().enumerate().all(|(i, &r)| i == r);
    if x_dims == dims && identity {
        return Ok(x);
    }
    // Keep the dimensions that already have the result size; drop stretched size-1 ones.
    let mut kept_dims = Vec::new();
    let mut kept_map = Vec::new();
    for (&size, &r) in x_dims.iter().zip(map) {
        if size == dims[r] {
            kept_dims.push(size);
            kept_map.push(r);
        } else if size != 1 {
            return Err(format!("cannot broadcast dimension of size {size} to {}", dims[r]).into());
        }
    }
    let x = if kept_dims.len() == x_dims.len() {
        x
    } else {
        em.reshape(x, &kept_dims)
    };
    Ok(em.broadcast(x, kept_map, dims))
}
