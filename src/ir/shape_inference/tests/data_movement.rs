//! Data movement: iota, broadcast, reshape, bitcast, slices, pad, tuples, gather, scatter.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::*;
use crate::ir::PrimitiveType::*;
use crate::ir::*;

#[test]
fn iota_broadcast_reshape_bitcast() {
    assert_eq!(
        infer(&[], Op::Iota { dimension: 1 }, s(S32, &[4, 3])),
        ok("s32[4,3]")
    );
    assert_err(
        infer(&[], Op::Iota { dimension: 2 }, s(S32, &[4, 3])),
        "out of range",
    );

    let bcast = |dims: Vec<usize>| Op::Broadcast { dimensions: dims };
    assert_eq!(
        infer(&[s(F32, &[3])], bcast(vec![1]), s(F32, &[2, 3])),
        ok("f32[2,3]")
    );
    assert_eq!(
        infer(&[s(F32, &[])], bcast(vec![]), s(F32, &[2, 3])),
        ok("f32[2,3]")
    );
    assert_err(
        infer(&[s(F32, &[3])], bcast(vec![0]), s(F32, &[2, 3])),
        "broadcast needs equal sizes",
    );
    // The element type comes from the operand: declaring another one is caught.
    assert_eq!(
        infer(&[s(F32, &[3])], bcast(vec![1]), s(S32, &[2, 3])),
        ok("f32[2,3]")
    );

    assert_eq!(
        plain(Opcode::Reshape, &[s(F32, &[2, 3])], s(F32, &[6])),
        ok("f32[6]")
    );
    assert_err(
        plain(Opcode::Reshape, &[s(F32, &[2, 3])], s(F32, &[7])),
        "changes the element count",
    );

    // A bitcast between layouts (as XLA:CPU's layout assignment makes) keeps the bytes.
    let mut col = ArrayShape::new(F32, &[3, 2]);
    col.layout.minor_to_major = vec![0, 1];
    assert_eq!(
        plain(Opcode::Bitcast, &[s(F32, &[2, 3])], Shape::Array(col)),
        ok("f32[3,2]")
    );
    assert_eq!(
        plain(Opcode::Bitcast, &[s(S32, &[1])], s(S32, &[])),
        ok("s32[]")
    );
    assert_err(
        plain(Opcode::Bitcast, &[s(F32, &[2, 3])], s(F32, &[5])),
        "changes the size",
    );
}

#[test]
fn transpose_reverse_concatenate_slice_pad() {
    let x = s(F32, &[2, 3, 4]);
    let op = Op::Transpose {
        dimensions: vec![2, 0, 1],
    };
    assert_eq!(
        infer(&[x.clone()], op, s(F32, &[4, 2, 3])),
        ok("f32[4,2,3]")
    );
    assert_err(
        infer(
            &[x.clone()],
            Op::Transpose {
                dimensions: vec![0, 0, 1],
            },
            x.clone(),
        ),
        "permutation",
    );
    assert_eq!(
        infer(
            &[x.clone()],
            Op::Reverse {
                dimensions: vec![0, 2]
            },
            x.clone()
        ),
        ok("f32[2,3,4]")
    );
    assert_err(
        infer(
            &[x.clone()],
            Op::Reverse {
                dimensions: vec![3],
            },
            x,
        ),
        "rank is 3",
    );

    let cat = Op::Concatenate { dimension: 0 };
    assert_eq!(
        infer(
            &[s(F32, &[2, 3]), s(F32, &[4, 3])],
            cat.clone(),
            s(F32, &[6, 3])
        ),
        ok("f32[6,3]")
    );
    assert_err(
        infer(&[s(F32, &[2, 3]), s(F32, &[4, 2])], cat, s(F32, &[6, 3])),
        "all other dimensions equal",
    );

    // [1:8:3] takes indices 1, 4, 7.
    let sl = |start, limit, stride| Op::Slice {
        slice: vec![SliceDimension {
            start,
            limit,
            stride,
        }],
    };
    assert_eq!(
        infer(&[s(F32, &[10])], sl(1, 8, 3), s(F32, &[3])),
        ok("f32[3]")
    );
    assert_err(
        infer(&[s(F32, &[10])], sl(1, 11, 1), s(F32, &[10])),
        "limit <= size",
    );

    // 3 elements, 1 low, 2 high, 1 between each pair: 1 + 3 + 2 + 2 = 8.
    let pad = Op::Pad {
        padding: vec![PaddingDimension {
            low: 1,
            high: 2,
            interior: 1,
        }],
    };
    assert_eq!(
        infer(&[s(F32, &[3]), s(F32, &[])], pad.clone(), s(F32, &[8])),
        ok("f32[8]")
    );
    assert_err(
        infer(&[s(F32, &[3]), s(S32, &[])], pad, s(F32, &[8])),
        "padding value",
    );
}

#[test]
fn dynamic_slice_and_update() {
    let (x, i) = (s(F32, &[8, 8]), s(S32, &[]));
    let ds = Op::DynamicSlice { sizes: vec![2, 3] };
    assert_eq!(
        infer(
            &[x.clone(), i.clone(), i.clone()],
            ds.clone(),
            s(F32, &[2, 3])
        ),
        ok("f32[2,3]")
    );
    assert_err(
        infer(&[x.clone(), i.clone()], ds.clone(), s(F32, &[2, 3])),
        "one per dimension",
    );
    assert_err(
        infer(&[x.clone(), i.clone(), s(S64, &[])], ds, s(F32, &[2, 3])),
        "one type",
    );
    let dus = Op::Plain(Opcode::DynamicUpdateSlice);
    let u = s(F32, &[2, 8]);
    assert_eq!(
        infer(
            &[x.clone(), u, i.clone(), i.clone()],
            dus.clone(),
            x.clone()
        ),
        ok("f32[8,8]")
    );
    assert_err(
        infer(&[x.clone(), s(F32, &[9, 1]), i.clone(), i], dus, x),
        "does not fit",
    );
}

#[test]
fn tuples_and_get_tuple_element() {
    let t = tuple(vec![s(F32, &[2]), s(S32, &[])]);
    assert_eq!(
        plain(Opcode::Tuple, &[s(F32, &[2]), s(S32, &[])], t.clone()),
        ok("(f32[2], s32[])")
    );
    let gte = |index| Op::GetTupleElement { index };
    assert_eq!(infer(&[t.clone()], gte(1), s(S32, &[])), ok("s32[]"));
    assert_err(infer(&[t], gte(2), s(S32, &[])), "out of range");
    assert_err(
        infer(&[s(F32, &[2])], gte(0), s(F32, &[2])),
        "needs a tuple",
    );
}

#[test]
fn gather_like_jnp_take() {
    // x[idx] for x: f32[5,3], idx: s32[4]: one row per index.
    let dnums = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let op = Op::Gather {
        dimension_numbers: dnums,
        slice_sizes: vec![1, 3],
        indices_are_sorted: false,
    };
    assert_eq!(
        infer(
            &[s(F32, &[5, 3]), s(S32, &[4, 1])],
            op.clone(),
            s(F32, &[4, 3])
        ),
        ok("f32[4,3]")
    );
    // index_vector_dim = rank(indices): the indices s32[4] are read as s32[4,1].
    assert_eq!(
        infer(
            &[s(F32, &[5, 3]), s(S32, &[4])],
            op.clone(),
            s(F32, &[4, 3])
        ),
        ok("f32[4,3]")
    );
    assert_err(
        infer(&[s(F32, &[5, 3]), s(F32, &[4, 1])], op, s(F32, &[4, 3])),
        "must be integers",
    );
}

#[test]
fn gather_from_testdata() {
    // testdata/*/xla_opt.hlo: `f32[2,10,1] gather(..), offset_dims={1,2},
    // collapsed_slice_dims={}, start_index_map={1}, index_vector_dim=1, slice_sizes={10,1}`
    // with 2 index vectors of one component each.
    let dnums = GatherDimensionNumbers {
        offset_dims: vec![1, 2],
        start_index_map: vec![1],
        index_vector_dim: 1,
        ..Default::default()
    };
    let op = Op::Gather {
        dimension_numbers: dnums,
        slice_sizes: vec![10, 1],
        indices_are_sorted: false,
    };
    assert_eq!(
        infer(
            &[s(F32, &[10, 7]), s(S32, &[2, 1])],
            op,
            s(F32, &[2, 10, 1])
        ),
        ok("f32[2,10,1]")
    );
}

#[test]
fn scatter_add_from_testdata() {
    // testdata/segment_sum-style `scatter-add.0 = f32[10,4] scatter(..),
    // update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0},
    // index_vector_dim=1`: 3 updates, each a [1,4] window.
    let (mut module, ids) = module_with(vec![scalar_binary("add", F32, Opcode::Add)]);
    let dnums = ScatterDimensionNumbers {
        update_window_dims: vec![1, 2],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let op = Op::Scatter {
        dimension_numbers: dnums,
        to_apply: ids[0],
        indices_are_sorted: false,
        unique_indices: false,
    };
    let params = [s(F32, &[10, 4]), s(S32, &[3, 1]), s(F32, &[3, 1, 4])];
    assert_eq!(
        infer_in(module.clone(), &params, op.clone(), s(F32, &[10, 4])),
        ok("f32[10,4]")
    );
    let too_wide = [s(F32, &[10, 4]), s(S32, &[3, 1]), s(F32, &[3, 1, 5])];
    assert_err(
        infer_in(module.clone(), &too_wide, op.clone(), s(F32, &[10, 4])),
        "operand allows 4",
    );
    let wrong_count = [s(F32, &[10, 4]), s(S32, &[3, 1]), s(F32, &[2, 1, 4])];
    assert_err(
        infer_in(module.clone(), &wrong_count, op.clone(), s(F32, &[10, 4])),
        "scatter dimensions",
    );
    // An s32 combiner cannot add f32 updates.
    let s32_add = module.add_computation(scalar_binary("add_s32", S32, Opcode::Add));
    let Op::Scatter {
        dimension_numbers, ..
    } = op
    else {
        unreachable!()
    };
    let op = Op::Scatter {
        dimension_numbers,
        to_apply: s32_add,
        indices_are_sorted: false,
        unique_indices: false,
    };
    assert_err(
        infer_in(module, &params, op, s(F32, &[10, 4])),
        "init value 0 is f32[]",
    );
}
