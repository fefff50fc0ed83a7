//! `chlo.ragged_dot`: a dot whose lhs ragged dimension is split into groups, each group
//! multiplied by its own slice of the rhs.
//!
//! With `lhs_ragged_dimensions = [m]` a non-contracting lhs dimension and
//! `rhs_group_dimensions = [g]` (mode 1 of `chlo_ops.td`), row `i` of `m` belongs to the group
//! `k` with `sum(group_sizes[..k]) <= i < sum(group_sizes[..=k])` and is multiplied by
//! `rhs[k]` (the rhs with its group dimension fixed to `k`); rows past the last group are 0.
//! The result is shaped like a plain dot of lhs with the rhs minus its group dimension:
//! batch dims, lhs free dims, rhs free dims.
//!
//! XLA: semantics from openxla/stablehlo `chlo_ops.td` (`RaggedDotOp`); XLA itself keeps
//! a `ragged-dot` HLO op (and `ragged_dot_rewriter` expands it). This file masks the lhs per
//! group (a `[groups, m]` mask built from the running sum of `group_sizes`) and does a
//! single dot over the masked, group-broadcast lhs, folding the sum over groups into the
//! dot by contracting the group dimension together with the contracting dimensions:
//! `out = sum_k sum_c mask[k, i] * lhs[i, c] * rhs[k, c, n]`. Only one group is unmasked per
//! row, so the extra terms are exact zeros. Not supported: the ragged dimension being a
//! contracting or batch dimension (modes 2 and 3), and group sizes with batch dimensions.

use super::ChloAttr;
use super::ChloOp;
use super::emit::Emitter;
use crate::ir::Refusal;
use crate::ir::{DotDimensionNumbers, InstrId, Op, Shape, SliceDimension};

/// Decomposes `chlo.ragged_dot(lhs, rhs, group_sizes)`.
pub(super) fn ragged_dot(em: &mut Emitter<'_>, op: &ChloOp<'_>) -> Result<InstrId, Refusal> {
    let &[lhs, rhs, group_sizes] = op.operands else {
        return Err(format!(
            "chlo.ragged_dot takes 3 operands, got {}",
            op.operands.len()
        )
        .into());
    };
    let lhs_dims = em.dims(lhs);
    let rhs_dims = em.dims(rhs);
    let lb = dims_attr(op, "lhs_batching_dimensions", lhs_dims.len())?;
    let rb = dims_attr(op, "rhs_batching_dimensions", rhs_dims.len())?;
    let lc = dims_attr(op, "lhs_contracting_dimensions", lhs_dims.len())?;
    let rc = dims_attr(op, "rhs_contracting_dimensions", rhs_dims.len())?;
    let lr = dims_attr(op, "lhs_ragged_dimensions", lhs_dims.len())?;
    let rg = dims_attr(op, "rhs_group_dimensions", rhs_dims.len())?;
    let (&[ragged], &[group_dim]) = (lr.as_slice(), rg.as_slice()) else {
        return Err(
            "chlo.ragged_dot: only a ragged non-contracting lhs dimension with an rhs group \
             dimension is supported"
                .into(),
        );
    };
    if lc.contains(&ragged) || lb.contains(&ragged) {
        return Err(Refusal::unsupported(
            "chlo.ragged_dot: a ragged contracting or batch dimension is not supported",
        ));
    }
    let groups = rhs_dims[group_dim];
    if em.dims(group_sizes) != [groups] {
        return Err(
            format!("chlo.ragged_dot: group_sizes must be a vector of {groups} elements").into(),
        );
    }
    let rows = lhs_dims[ragged];

    // Group ends: the running sum of group_sizes; starts = ends - sizes.
    let mut ends = Vec::new();
    let mut running: Option<InstrId> = None;
    for k in 0..groups {
        let size = em.push(
            em.shape(group_sizes)
                .as_array()
                .map(|a| Shape::array(a.element_type, &[1]))
                .unwrap_or_else(|| Shape::Tuple(vec![])),
            Op::Slice {
                slice: vec![SliceDimension {
                    start: k,
                    limit: k + 1,
                    stride: 1,
                }],
            },
            vec![group_sizes],
        );
        let end = match running {
            Some(r) => em.add(r, size),
            None => size,
        };
        running = Some(end);
        ends.push(end);
    }
    let ends = if ends.len() == 1 {
        ends[0]
    } else {
        let shape = Shape::array(em.ty(group_sizes), &[groups]);
        em.push(shape, Op::Concatenate { dimension: 0 }, ends)
    };
    let starts = em.sub(ends, group_sizes);

    // mask[k, i] = starts[k] <= i < ends[k].
    let grid = [groups, rows];
    let row = em.push(
        Shape::array(em.ty(group_sizes), &grid),
        Op::Iota { dimension: 1 },
        vec![],
    );
    let starts = em.broadcast(starts, vec![0], &grid);
    let ends = em.broadcast(ends, vec![0], &grid);
    let after_start = em.ge(row, starts);
    let before_end = em.lt(row, ends);
    let mask = em.and(after_start, before_end);

    // The lhs repeated per group, zero outside each group's rows: [groups, lhs dims...].
    let full: Vec<i64> = std::iter::once(groups)
        .chain(lhs_dims.iter().copied())
        .collect();
    let lhs_b = em.broadcast(lhs, (1..=lhs_dims.len()).collect(), &full);
    let mask_b = em.broadcast(mask, vec![0, 1 + ragged], &full);
    let zero = em.c(0.0, lhs_b);
    let masked = em.select(mask_b, lhs_b, zero);

    // The dot, contracting the group dimension along with the contracting dimensions.
    let shift = |v: &[usize]| -> Vec<usize> { v.iter().map(|d| d + 1).collect() };
    let dimension_numbers = DotDimensionNumbers {
        lhs_batch_dimensions: shift(&lb),
        rhs_batch_dimensions: rb.clone(),
        lhs_contracting_dimensions: std::iter::once(0).chain(shift(&lc)).collect(),
        rhs_contracting_dimensions: std::iter::once(group_dim)
            .chain(rc.iter().copied())
            .collect(),
    };
    let mut dims: Vec<i64> = lb.iter().map(|&d| lhs_dims[d]).collect();
    dims.extend(
        (0..lhs_dims.len())
            .filter(|d| !lb.contains(d) && !lc.contains(d))
            .map(|d| lhs_dims[d]),
    );
    dims.extend(
        (0..rhs_dims.len())
            .filter(|d| !rb.contains(d) && !rc.contains(d) && *d != group_dim)
            .map(|d| rhs_dims[d]),
    );
    let ty = op
        .result_shapes
        .first()
        .and_then(Shape::element_type)
        .unwrap_or_else(|| em.ty(lhs));
    Ok(em.push(
        Shape::array(ty, &dims),
        Op::Dot {
            dimension_numbers,
            precision: Vec::new(),
            algorithm: None,
        },
        vec![masked, rhs],
    ))
}

/// A list of dimension numbers below `rank` (absent is empty).
fn dims_attr(op: &ChloOp<'_>, name: &str, rank: usize) -> Result<Vec<usize>, Refusal> {
    match op.attr(name) {
        None => Ok(Vec::new()),
        Some(ChloAttr::Ints(v)) => v
            .iter()
            .map(|&d| {
                usize::try_from(d)
                    .ok()
                    .filter(|&d| d < rank)
                    .ok_or_else(|| {
                        format!("chlo.ragged_dot: {name} has a bad dimension {d}").into()
                    })
            })
            .collect(),
        Some(_) => Err(format!("chlo.ragged_dot: {name} must be a list of integers").into()),
    }
}
