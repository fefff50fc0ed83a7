//! The backward rules: the sharding an operand that its own operands leave undecided takes
//! from a user (an elementwise user's, a moved broadcast/transpose/reshape split, a
//! reduce's kept dimensions, a dot's result and other operand).
//!
//! XLA: `GetShardingFromUser` (`InferShardingFromUsers`) in `sharding_propagation.cc`.

use super::{Sh, full_dims, is_manual_collective, keep_dims};
use crate::ir::{Instruction, Op, OpCategory, Opcode, Shape};
use crate::spmd::rules::{convolution, dot, gather_scatter, shape_ops};
use crate::spmd::tiling::Tiling;

/// The backward rules: the tiling operand `k` of `user` takes from the user's tiling `out`
/// (and the user's other operands), with the reason. XLA: `GetShardingFromUser`
/// (`InferShardingFromUsers`) for pass-through ops, dot and reduce.
pub(super) fn backward(
    user: &Instruction,
    k: usize,
    out: &Tiling,
    operands: &[Option<Sh>],
    comp: &crate::ir::Computation,
) -> Option<(Tiling, &'static str)> {
    let odims = |i: usize| comp.instrs[user.operands[i]].shape.dims().to_vec();
    let same_dims = user
        .operands
        .iter()
        .all(|o| comp.instrs[*o].shape.dims() == user.shape.dims());
    match (&user.op, user.opcode().category()) {
        (
            _,
            OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary,
        ) if same_dims => Some((out.clone(), "from its elementwise user")),
        (Op::Plain(Opcode::Copy), _) if same_dims => Some((out.clone(), "from its copy")),
        (_, OpCategory::Collective) if same_dims && is_manual_collective(user) => {
            Some((out.clone(), "from its manual collective"))
        }
        (Op::CustomCall(cc), _)
            if same_dims
                && matches!(
                    cc.target.as_str(),
                    "Sharding" | "xla.sdy.FuncResultSharding"
                ) =>
        {
            Some((out.clone(), "from its sharding annotation"))
        }
        (Op::Broadcast { dimensions }, _) => Some((
            shape_ops::broadcast_operand(out, dimensions),
            "from its broadcast: the kept dimensions' split",
        )),
        (Op::Transpose { dimensions }, _) => {
            let map: Vec<Option<usize>> = (0..dimensions.len())
                .map(|j| dimensions.iter().position(|&d| d == j))
                .collect();
            Some((out.project(&map), "from its transpose"))
        }
        (Op::Plain(Opcode::Reshape), _) => {
            match shape_ops::reshape_keep(user.shape.dims(), &odims(0), out) {
                (Some(t), _) => Some((t, "from its reshape")),
                (None, _) => None,
            }
        }
        (Op::Reduce { dimensions, .. }, _) if user.operands.len() == 2 && k == 0 => {
            let rank = odims(0).len();
            let mut next = 0;
            let map: Vec<Option<usize>> = (0..rank)
                .map(|d| {
                    if dimensions.contains(&d) {
                        None
                    } else {
                        next += 1;
                        Some(next - 1)
                    }
                })
                .collect();
            Some((
                out.project(&map),
                "from its reduce: the kept dimensions' split",
            ))
        }
        (Op::Sort { .. }, _) if same_dims => {
            Some((out.clone(), "from its sort: the result's split"))
        }
        (Op::Slice { .. } | Op::Pad { .. } | Op::Reverse { .. } | Op::ReduceWindow { .. }, _)
            if k == 0 && odims(0).len() == out.rank() =>
        {
            Some((
                out.clone(),
                "from its slice/pad/reverse/reduce-window: the result's split",
            ))
        }
        (Op::Concatenate { .. }, _) if odims(k).len() == out.rank() => {
            Some((out.clone(), "from its concatenate: the result's split"))
        }
        (Op::DynamicSlice { sizes }, _) if k == 0 => Some((
            keep_dims(out, &full_dims(&odims(0), sizes)),
            "from its dynamic-slice: the split of the dimensions it takes whole",
        )),
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if k == 0 => Some((
            out.clone(),
            "from its dynamic-update-slice: the result's split",
        )),
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if k == 1 => Some((
            keep_dims(out, &full_dims(user.shape.dims(), &odims(1))),
            "from its dynamic-update-slice: the result's split of the whole dimensions",
        )),
        (
            Op::Convolution {
                dimension_numbers,
                feature_group_count: 1,
                batch_group_count: 1,
                ..
            },
            _,
        ) if k < 2 => {
            let other = match operands.get(1 - k) {
                Some(Some(Sh::Array(t))) => Some(t),
                _ => None,
            };
            convolution::operand_from_users(dimension_numbers, k, other, out, odims(k).len()).map(
                |t| {
                    (
                        t,
                        if k == 0 {
                            "from its convolution: the result's batch split"
                        } else {
                            "from its convolution: the result's feature split"
                        },
                    )
                },
            )
        }
        (
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            },
            _,
        ) if k == 0 => {
            let pairs =
                gather_scatter::gather_passthrough(dimension_numbers, slice_sizes, &odims(0));
            gather_scatter::along(out, &pairs, odims(0).len(), true)
                .map(|t| (t, "from its gather: the passthrough dimensions' split"))
        }
        (
            Op::Scatter {
                dimension_numbers, ..
            },
            _,
        ) if user.operands.len() == 3 && (k == 0 || k == 2) => {
            let (od, ud) = (odims(0), odims(2));
            let pairs = gather_scatter::scatter_passthrough(dimension_numbers, &od, &ud);
            if k == 0 {
                let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.0)).collect();
                gather_scatter::along(out, &same, od.len(), false)
                    .map(|t| (t, "from its scatter: the passthrough dimensions' split"))
            } else {
                gather_scatter::along(out, &pairs, ud.len(), false)
                    .map(|t| (t, "from its scatter: the updates' passthrough split"))
            }
        }
        (
            Op::Dot {
                dimension_numbers, ..
            },
            _,
        ) if k < 2 => {
            let (ld, rd) = (odims(0), odims(1));
            let d = dot::DotDims::new(dimension_numbers, ld.len(), rd.len());
            let other = match operands.get(1 - k) {
                Some(Some(Sh::Array(t))) => Some(t),
                _ => None,
            };
            let rank = if k == 0 { ld.len() } else { rd.len() };
            dot::operand_from_users(&d, k, other, out, rank).map(|t| {
                (
                    t,
                    "from its dot: the result's and the other operand's split",
                )
            })
        }
        _ => None,
    }
}

/// A reduce of several inputs: a tuple of arrays, one per input.
pub(super) fn is_variadic_reduce(instr: &Instruction) -> bool {
    matches!(instr.op, Op::Reduce { .. })
        && matches!(&instr.shape, Shape::Tuple(e)
            if !e.is_empty() && e.len() * 2 == instr.operands.len() && e.iter().all(Shape::is_array))
}
