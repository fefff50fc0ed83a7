//! The forward rules: the sharding an unannotated instruction takes from its operands,
//! one arm per op family (the rules themselves are `spmd::rules`'s, shared with the
//! partitioner).
//!
//! XLA: `ShardingPropagation::InferShardingFromOperands` in `sharding_propagation.cc`.

use super::{
    Scope, Sh, callee_result, full_dims, is_manual_collective, is_variadic_reduce, keep_dims,
    loop_state, merge_sh,
};
use crate::ir::{Instruction, Op, OpCategory, Opcode, Shape};
use crate::spmd::reshard;
use crate::spmd::rules::{convolution, dot, elementwise, gather_scatter, reduce, shape_ops};
use crate::spmd::tiling::Tiling;

/// The forward rule for an unannotated instruction; `None` while the operands it depends
/// on are undecided (and always for an unannotated parameter: its users decide).
pub(super) fn infer(
    instr: &Instruction,
    operands: &[Option<Sh>],
    comp: &crate::ir::Computation,
    scope: &Scope,
) -> Option<(Sh, &'static str)> {
    let n = scope.n;
    if operands.iter().any(|o| matches!(o, Some(Sh::Manual))) {
        return Some((Sh::Manual, "inside a manual region"));
    }
    let arr = |i: usize| match operands.get(i) {
        Some(Some(Sh::Array(t))) => Some(t),
        _ => None,
    };
    let open = |i: usize| matches!(operands.get(i), Some(None));
    let odims = |i: usize| comp.instrs[instr.operands[i]].shape.dims().to_vec();
    let rep = || Sh::replicated(&instr.shape, n);
    // A one-operand rule: waits for the operand, else its result or replicated.
    let unary = |r: Option<(Sh, &'static str)>, none: &'static str| {
        if open(0) {
            None
        } else {
            Some(r.unwrap_or_else(|| (rep(), none)))
        }
    };
    Some(match (&instr.op, instr.opcode().category()) {
        (Op::Parameter { .. }, _) => return None,
        (Op::GetTupleElement { index }, _) => match operands.first() {
            Some(Some(Sh::Tuple(v))) => (
                v.get(*index).cloned().unwrap_or_else(rep),
                "the tuple element's",
            ),
            Some(None) => return None,
            _ => (rep(), "element of a whole tuple"),
        },
        (Op::Plain(Opcode::Tuple), _) => (
            Sh::Tuple(operands.iter().cloned().collect::<Option<Vec<Sh>>>()?),
            "its elements'",
        ),
        (
            _,
            OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary,
        ) if instr.shape.is_array()
            && instr
                .operands
                .iter()
                .all(|o| comp.instrs[*o].shape.dims() == instr.shape.dims()) =>
        {
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            match elementwise::choose(&ts) {
                Some(t) => (Sh::Array(t), "elementwise: the most split operand"),
                None if (0..operands.len()).any(open) => return None,
                None => (rep(), "elementwise of whole values"),
            }
        }
        (Op::Plain(Opcode::Copy), _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| (Sh::Array(t.clone()), "copy: the operand's")),
                "copy",
            );
        }
        (Op::Broadcast { dimensions }, _) => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(shape_ops::broadcast_result(
                            t,
                            dimensions,
                            instr.shape.rank(),
                        )),
                        "broadcast: the operand's split, new dimensions whole",
                    )
                }),
                "broadcast",
            );
        }
        (Op::Transpose { dimensions }, _) => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(shape_ops::transpose_result(t, dimensions)),
                        "transpose: the split moves with the dimensions",
                    )
                }),
                "transpose",
            );
        }
        (Op::Plain(Opcode::Reshape), _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(
                    |t| match shape_ops::reshape_keep(&odims(0), instr.shape.dims(), t) {
                        (Some(r), true) => (Sh::Array(r), "reshape: the split kept"),
                        (Some(r), false) => (Sh::Array(r), "reshape: the splits that fit kept"),
                        (None, _) => (rep(), "reshape: no split fits"),
                    },
                ),
                "reshape",
            );
        }
        (Op::Reduce { dimensions, .. }, _)
            if instr.operands.len() == 2 && instr.shape.is_array() =>
        {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(reduce::result(t, dimensions)),
                        "reduce: the kept dimensions' split",
                    )
                }),
                "reduce",
            );
        }
        (Op::Reduce { dimensions, .. }, _) if is_variadic_reduce(instr) => {
            // The inputs reduce together: the most split input's kept dimensions.
            let inputs = operands.len() / 2;
            let ts: Vec<&Tiling> = (0..inputs).filter_map(arr).collect();
            let t = match elementwise::choose(&ts) {
                Some(t) => reduce::result(&t, dimensions),
                None if (0..inputs).any(open) => return None,
                None => Tiling::replicated(instr.shape.tuple_elements()?[0].rank(), n),
            };
            let elems = (0..inputs).map(|_| Sh::Array(t.clone())).collect();
            (
                Sh::Tuple(elems),
                "variadic reduce: the kept dimensions' split",
            )
        }
        (
            Op::Dot {
                dimension_numbers, ..
            },
            _,
        ) => {
            let (ld, rd) = (odims(0), odims(1));
            let d = dot::DotDims::new(dimension_numbers, ld.len(), rd.len());
            match (arr(0), arr(1)) {
                (Some(l), Some(r)) => {
                    let od = instr.shape.dims().to_vec();
                    let eb = instr
                        .shape
                        .element_type()
                        .map_or(4, |t| t.byte_size().max(1) as i64);
                    let plan = dot::plan(
                        &d,
                        l,
                        r,
                        None,
                        &|which, from, to| {
                            let dims = if which == 0 { &ld } else { &rd };
                            reshard::cost(dims, eb, from, to)
                        },
                        &|out| out.shard_dims(&od).iter().product::<i64>() * eb,
                    );
                    (Sh::Array(plan.out), "dot: the local dot's result")
                }
                (Some(t), None) | (None, Some(t)) if open(0) || open(1) => {
                    let which = usize::from(open(0));
                    match dot::result_from_operand(&d, which, t) {
                        Some(out) => (Sh::Array(out), "dot: the sharded operand's split"),
                        None => (rep(), "dot"),
                    }
                }
                _ if open(0) && open(1) => return None,
                _ => (rep(), "dot"),
            }
        }
        (Op::Sort { .. }, _) => {
            if (0..operands.len()).any(open) {
                return None;
            }
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            let t =
                elementwise::choose(&ts).unwrap_or_else(|| Tiling::replicated(odims(0).len(), n));
            let sh = match &instr.shape {
                Shape::Tuple(elems) => {
                    Sh::Tuple(elems.iter().map(|_| Sh::Array(t.clone())).collect())
                }
                _ => Sh::Array(t),
            };
            (sh, "sort: the most split operand's")
        }
        (
            Op::Convolution {
                dimension_numbers,
                feature_group_count: 1,
                batch_group_count: 1,
                ..
            },
            _,
        ) => match (arr(0), arr(1)) {
            (Some(l), Some(r)) => (
                Sh::Array(convolution::result(
                    dimension_numbers,
                    l,
                    r,
                    instr.shape.rank(),
                )),
                "convolution: batch from the input, features from the kernel",
            ),
            _ if open(0) || open(1) => return None,
            _ => (rep(), "convolution"),
        },
        (
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            },
            _,
        ) => {
            if open(0) {
                return None;
            }
            let pairs =
                gather_scatter::gather_passthrough(dimension_numbers, slice_sizes, &odims(0));
            match arr(0).and_then(|t| gather_scatter::along(t, &pairs, instr.shape.rank(), false)) {
                Some(t) => (Sh::Array(t), "gather: the passthrough dimensions' split"),
                None => (rep(), "gather"),
            }
        }
        (
            Op::Scatter {
                dimension_numbers, ..
            },
            _,
        ) if instr.operands.len() == 3 && instr.shape.is_array() => {
            if open(0) {
                return None;
            }
            let pairs =
                gather_scatter::scatter_passthrough(dimension_numbers, &odims(0), &odims(2));
            let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.0)).collect();
            match arr(0).and_then(|t| gather_scatter::along(t, &same, instr.shape.rank(), false)) {
                Some(t) => (Sh::Array(t), "scatter: the passthrough dimensions' split"),
                None => (rep(), "scatter"),
            }
        }
        // Data movement that keeps every dimension: the operand's split, even where the
        // sizes change (Shardy's factors run through slice, pad and reverse; the partitioner
        // pads an uneven result).
        (Op::Slice { .. } | Op::Pad { .. } | Op::Reverse { .. }, _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(t.clone()),
                        "slice/pad/reverse: the operand's split",
                    )
                }),
                "slice/pad/reverse",
            );
        }
        (Op::Concatenate { .. }, _) if instr.shape.is_array() => {
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            match elementwise::choose(&ts) {
                Some(t) => (Sh::Array(t), "concatenate: the most split operand"),
                None if (0..operands.len()).any(open) => return None,
                None => (rep(), "concatenate of whole values"),
            }
        }
        (Op::ReduceWindow { .. }, _) if instr.operands.len() == 2 && instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| (Sh::Array(t.clone()), "reduce-window: the operand's split")),
                "reduce-window",
            );
        }
        (Op::DynamicSlice { sizes }, _) if instr.shape.is_array() => {
            let full = full_dims(&odims(0), sizes);
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(keep_dims(t, &full)),
                        "dynamic-slice: the split of the dimensions it takes whole",
                    )
                }),
                "dynamic-slice",
            );
        }
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if instr.shape.is_array() => {
            if open(0) {
                return None;
            }
            let base = arr(0)
                .cloned()
                .unwrap_or_else(|| Tiling::replicated(instr.shape.rank(), n));
            let full = full_dims(&odims(0), &odims(1));
            match arr(1).and_then(|u| base.merge(&keep_dims(u, &full))) {
                Some(t) => (
                    Sh::Array(t),
                    "dynamic-update-slice: the operand's split and the update's whole dimensions'",
                ),
                None => (Sh::Array(base), "dynamic-update-slice: the operand's split"),
            }
        }
        // top-k along the last dimension: rows stay where they are.
        (Op::TopK { .. }, _) => {
            let rank = odims(0).len();
            return unary(
                arr(0).map(|t| {
                    let rows = t.without_dim(rank - 1);
                    let elems = instr.shape.tuple_elements().map_or(1, <[Shape]>::len);
                    (
                        Sh::Tuple(vec![Sh::Array(rows); elems]),
                        "topk: the operand's split, the last dimension whole",
                    )
                }),
                "topk",
            );
        }
        (Op::While { body, .. }, _) => {
            let init = match operands.first() {
                Some(Some(s)) => s.clone(),
                Some(None) => return None,
                None => rep(),
            };
            (
                loop_state(scope, *body, init),
                "while: the loop state's, as the body keeps it",
            )
        }
        (
            Op::Conditional {
                branch_computations,
            },
            _,
        ) => {
            if (1..operands.len()).any(open) {
                return None;
            }
            let mut result: Option<Sh> = None;
            for (i, &branch) in branch_computations.iter().enumerate() {
                let arg = operands.get(i + 1).cloned().flatten().unwrap_or_else(|| {
                    Sh::replicated(&comp.instrs[instr.operands[i + 1]].shape, n)
                });
                if let Some(r) = callee_result(scope, branch, &[arg]) {
                    result = Some(match result {
                        None => r,
                        Some(prev) => merge_sh(&prev, &r),
                    });
                }
            }
            (
                result.unwrap_or_else(rep),
                "conditional: the branches' results",
            )
        }
        // A shard_map's own all-reduce or collective-permute inside a partially manual
        // body (its groups along the manual axes): shard by shard, like elementwise.
        (_, OpCategory::Collective)
            if is_manual_collective(instr)
                && instr.shape.is_array()
                && odims(0) == instr.shape.dims() =>
        {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(t.clone()),
                        "manual collective: the operand's split",
                    )
                }),
                "manual collective",
            );
        }
        _ => (rep(), "no rule: replicated"),
    })
}
