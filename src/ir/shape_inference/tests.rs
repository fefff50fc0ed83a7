//! Tests for shape inference. Every expected shape is worked out by hand from XLA's
//! operation semantics (https://openxla.org/xla/operation_semantics) or copied from a real
//! XLA:CPU dump in `testdata/` (cited where so); none comes from the code under test.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::{human_string, infer_shape};
use crate::ir::PrimitiveType::{self, *};
use crate::ir::*;

fn s(t: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::array(t, dims)
}

fn tuple(elements: Vec<Shape>) -> Shape {
    Shape::Tuple(elements)
}

/// A module whose entry is a placeholder, with these callees; returns their ids.
fn module_with(callees: Vec<Computation>) -> (Module, Vec<ComputationId>) {
    let mut module = Module::new("m", Computation::new("placeholder"));
    let ids = callees
        .into_iter()
        .map(|c| module.add_computation(c))
        .collect();
    (module, ids)
}

/// Builds `ROOT r = declared op(p0, p1, ...)` as the entry of `module` and infers its shape,
/// printed without layout.
fn infer_in(
    mut module: Module,
    params: &[Shape],
    op: Op,
    declared: Shape,
) -> Result<String, String> {
    let mut b = ComputationBuilder::new("main");
    let ids: Vec<InstrId> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.clone()))
        .collect();
    let root = b.instr(declared, op, &ids);
    let entry = module.entry;
    module.computations[entry] = b.build(root);
    infer_shape(&module, &module.computations[entry], root).map(|shape| human_string(&shape))
}

/// [`infer_in`] with no called computations.
fn infer(params: &[Shape], op: Op, declared: Shape) -> Result<String, String> {
    infer_in(module_with(vec![]).0, params, op, declared)
}

fn plain(opcode: Opcode, params: &[Shape], declared: Shape) -> Result<String, String> {
    infer(params, Op::Plain(opcode), declared)
}

fn ok(text: &str) -> Result<String, String> {
    Ok(text.to_string())
}

/// Asserts an error whose message contains `needle`.
#[track_caller]
fn assert_err(result: Result<String, String>, needle: &str) {
    match result {
        Err(message) => assert!(
            message.contains(needle),
            "message {message:?} lacks {needle:?}"
        ),
        Ok(shape) => panic!("expected an error containing {needle:?}, got {shape}"),
    }
}

/// `(a: T[], b: T[]) -> T[]` computing `opcode(a, b)`: a scalar reducer.
fn scalar_binary(name: &str, t: PrimitiveType, opcode: Opcode) -> Computation {
    let mut b = ComputationBuilder::new(name);
    let x = b.parameter(0, s(t, &[]));
    let y = b.parameter(1, s(t, &[]));
    let r = b.binary(opcode, x, y);
    b.build(r)
}

/// A computation with these parameters whose root is `tuple(params...)` or, for one
/// parameter, a compare of it with itself (`pred[]`) when `pred_root`.
fn signature_only(name: &str, params: &[Shape], root: Shape) -> Computation {
    let mut b = ComputationBuilder::new(name);
    let ids: Vec<InstrId> = params
        .iter()
        .enumerate()
        .map(|(i, p)| b.parameter(i, p.clone()))
        .collect();
    // The root's op does not matter to the callers' inference, only its declared shape.
    let r = b.instr(root, Op::Plain(Opcode::Tuple), &ids);
    b.build(r)
}

fn window(sizes: &[i64], strides: &[i64], pads: &[(i64, i64)]) -> Window {
    Window {
        dimensions: sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| WindowDimension {
                stride: strides[i],
                padding_low: pads[i].0,
                padding_high: pads[i].1,
                ..WindowDimension::of_size(size)
            })
            .collect(),
    }
}

// ----- elementwise -----------------------------------------------------------------------

#[test]
fn binary_ops_need_equal_shapes_and_types() {
    let (f4, f5) = (s(F32, &[4]), s(F32, &[5]));
    assert_eq!(
        plain(Opcode::Add, &[f4.clone(), f4.clone()], f4.clone()),
        ok("f32[4]")
    );
    assert_eq!(
        plain(Opcode::Add, &[f4.clone(), f5], f4.clone()),
        Err("operands are f32[4] and f32[5]; add needs equal shapes".to_string())
    );
    assert_err(
        plain(Opcode::Multiply, &[f4.clone(), s(S32, &[4])], f4.clone()),
        "same element type",
    );
    // Bitwise ops need pred or integers; arithmetic (other than add) rejects pred.
    assert_err(
        plain(Opcode::And, &[f4.clone(), f4.clone()], f4),
        "pred or integer",
    );
    let p = s(Pred, &[2]);
    assert_err(
        plain(Opcode::Subtract, &[p.clone(), p.clone()], p),
        "numeric",
    );
    let i = s(S32, &[3]);
    assert_eq!(
        plain(Opcode::ShiftRightLogical, &[i.clone(), i.clone()], i),
        ok("s32[3]")
    );
}

#[test]
fn compare_gives_pred_and_complex_gives_complex() {
    let x = s(F32, &[2, 3]);
    let op = Op::Compare {
        direction: ComparisonDirection::Lt,
        comparison_type: None,
    };
    assert_eq!(
        infer(&[x.clone(), x.clone()], op, s(Pred, &[2, 3])),
        ok("pred[2,3]")
    );
    assert_eq!(
        plain(Opcode::Complex, &[x.clone(), x.clone()], s(C64, &[2, 3])),
        ok("c64[2,3]")
    );
    let d = s(F64, &[1]);
    assert_eq!(
        plain(Opcode::Complex, &[d.clone(), d], s(C128, &[1])),
        ok("c128[1]")
    );
}

#[test]
fn unary_ops_check_element_types() {
    assert_eq!(
        plain(Opcode::Exp, &[s(F32, &[3])], s(F32, &[3])),
        ok("f32[3]")
    );
    assert_eq!(
        plain(Opcode::Abs, &[s(C64, &[3])], s(F32, &[3])),
        ok("f32[3]")
    );
    assert_eq!(
        plain(Opcode::Abs, &[s(S32, &[3])], s(S32, &[3])),
        ok("s32[3]")
    );
    assert_eq!(
        plain(Opcode::Real, &[s(C128, &[2])], s(F64, &[2])),
        ok("f64[2]")
    );
    assert_eq!(
        plain(Opcode::IsFinite, &[s(BF16, &[2])], s(Pred, &[2])),
        ok("pred[2]")
    );
    assert_eq!(
        plain(Opcode::Not, &[s(Pred, &[2])], s(Pred, &[2])),
        ok("pred[2]")
    );
    assert_eq!(plain(Opcode::Clz, &[s(U8, &[2])], s(U8, &[2])), ok("u8[2]"));
    assert_err(
        plain(Opcode::Floor, &[s(S32, &[3])], s(S32, &[3])),
        "floor needs a floating-point operand",
    );
    assert_err(
        plain(Opcode::Sqrt, &[s(S32, &[3])], s(S32, &[3])),
        "floating-point or complex",
    );
    assert_err(
        plain(Opcode::PopulationCount, &[s(F32, &[3])], s(F32, &[3])),
        "integer",
    );
    // copy keeps any shape, tuples included, and ignores layouts.
    let t = tuple(vec![s(F32, &[2]), s(S32, &[])]);
    assert_eq!(plain(Opcode::Copy, &[t.clone()], t), ok("(f32[2], s32[])"));
}

#[test]
fn convert_takes_the_declared_type() {
    assert_eq!(
        plain(Opcode::Convert, &[s(F32, &[2, 3])], s(S32, &[2, 3])),
        ok("s32[2,3]")
    );
    assert_eq!(
        plain(Opcode::Convert, &[s(F32, &[2, 3])], s(BF16, &[9])),
        ok("bf16[2,3]")
    );
}

#[test]
fn bitcast_convert_adds_or_removes_a_minor_dimension() {
    // f32 is 4 bytes: f32[2] -> u8[2,4] and back.
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(F32, &[2])], s(U8, &[2, 4])),
        ok("u8[2,4]")
    );
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(U8, &[2, 4])], s(F32, &[2])),
        ok("f32[2]")
    );
    assert_eq!(
        plain(Opcode::BitcastConvert, &[s(F32, &[2])], s(S32, &[2])),
        ok("s32[2]")
    );
    assert_err(
        plain(Opcode::BitcastConvert, &[s(U8, &[2, 3])], s(F32, &[2])),
        "last dimension of 4",
    );
    assert_err(
        plain(Opcode::BitcastConvert, &[s(C64, &[2])], s(U64, &[2])),
        "complex",
    );
}

#[test]
fn select_needs_a_pred_of_the_same_dims() {
    let (p, x) = (s(Pred, &[4]), s(F32, &[4]));
    assert_eq!(
        plain(Opcode::Select, &[p, x.clone(), x.clone()], x.clone()),
        ok("f32[4]")
    );
    // Current XLA no longer accepts a scalar predicate for an array select.
    assert_err(
        plain(
            Opcode::Select,
            &[s(Pred, &[]), x.clone(), x.clone()],
            x.clone(),
        ),
        "same dimensions",
    );
    assert_err(
        plain(
            Opcode::Select,
            &[s(S32, &[4]), x.clone(), x.clone()],
            x.clone(),
        ),
        "must be pred",
    );
    assert_err(
        plain(Opcode::Select, &[s(Pred, &[4]), x.clone(), s(F32, &[5])], x),
        "equal shapes",
    );
}

#[test]
fn clamp_accepts_scalar_bounds() {
    let (lo, x) = (s(F32, &[]), s(F32, &[4]));
    assert_eq!(
        plain(
            Opcode::Clamp,
            &[lo.clone(), x.clone(), lo.clone()],
            x.clone()
        ),
        ok("f32[4]")
    );
    assert_eq!(
        plain(
            Opcode::Clamp,
            &[x.clone(), x.clone(), lo.clone()],
            x.clone()
        ),
        ok("f32[4]")
    );
    assert_err(
        plain(Opcode::Clamp, &[s(F32, &[3]), x.clone(), lo], x.clone()),
        "clamp needs min and max",
    );
    assert_err(
        plain(Opcode::Clamp, &[s(S32, &[]), x.clone(), s(F32, &[])], x),
        "one element type",
    );
}

#[test]
fn reduce_precision_keeps_the_shape() {
    let op = Op::ReducePrecision {
        exponent_bits: 8,
        mantissa_bits: 7,
    };
    assert_eq!(
        infer(&[s(F32, &[3])], op.clone(), s(F32, &[3])),
        ok("f32[3]")
    );
    assert_err(infer(&[s(S32, &[3])], op, s(S32, &[3])), "floating-point");
}

// ----- data movement ---------------------------------------------------------------------

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

// ----- reductions ------------------------------------------------------------------------

#[test]
fn reduce_removes_dimensions() {
    let (module, ids) = module_with(vec![scalar_binary("add", F32, Opcode::Add)]);
    let op = |dims: Vec<usize>| Op::Reduce {
        dimensions: dims,
        to_apply: ids[0],
    };
    let params = [s(F32, &[2, 3]), s(F32, &[])];
    assert_eq!(
        infer_in(module.clone(), &params, op(vec![1]), s(F32, &[2])),
        ok("f32[2]")
    );
    assert_eq!(
        infer_in(module.clone(), &params, op(vec![0, 1]), s(F32, &[])),
        ok("f32[]")
    );
    assert_err(
        infer_in(module.clone(), &params, op(vec![2]), s(F32, &[2])),
        "rank is 2",
    );
    let bad_init = [s(F32, &[2, 3]), s(F32, &[1])];
    assert_err(
        infer_in(module, &bad_init, op(vec![1]), s(F32, &[2])),
        "init value 0 is f32[1]",
    );
}

#[test]
fn variadic_reduce_gives_a_tuple() {
    // argmax: reduce((values, indices), (init_v, init_i)) with a (f32, s32, f32, s32) -> (f32, s32) reducer.
    let reducer = signature_only(
        "argmax",
        &[s(F32, &[]), s(S32, &[]), s(F32, &[]), s(S32, &[])],
        tuple(vec![s(F32, &[]), s(S32, &[])]),
    );
    let (module, ids) = module_with(vec![reducer]);
    let op = Op::Reduce {
        dimensions: vec![1],
        to_apply: ids[0],
    };
    let params = [s(F32, &[4, 5]), s(S32, &[4, 5]), s(F32, &[]), s(S32, &[])];
    let declared = tuple(vec![s(F32, &[4]), s(S32, &[4])]);
    assert_eq!(
        infer_in(module.clone(), &params, op.clone(), declared.clone()),
        ok("(f32[4], s32[4])")
    );
    let odd = [s(F32, &[4, 5]), s(S32, &[4, 5]), s(F32, &[])];
    assert_err(infer_in(module, &odd, op, declared), "even count");
}

#[test]
fn reduce_window_slides_the_window() {
    let (module, ids) = module_with(vec![scalar_binary("max", F32, Opcode::Maximum)]);
    // 2x2 max pool, stride 2, on 4x4: (4 - 2) / 2 + 1 = 2 per dimension.
    let pool = Op::ReduceWindow {
        window: window(&[2, 2], &[2, 2], &[(0, 0), (0, 0)]),
        to_apply: ids[0],
    };
    let params = [s(F32, &[4, 4]), s(F32, &[])];
    assert_eq!(
        infer_in(module.clone(), &params, pool, s(F32, &[2, 2])),
        ok("f32[2,2]")
    );
    // size 3, stride 1, padding 1 on each side: (1 + 4 + 1 - 3) / 1 + 1 = 4 ("same").
    let same = Op::ReduceWindow {
        window: window(&[3, 3], &[1, 1], &[(1, 1), (1, 1)]),
        to_apply: ids[0],
    };
    assert_eq!(
        infer_in(module.clone(), &params, same, s(F32, &[4, 4])),
        ok("f32[4,4]")
    );
    // Dilations: base dilation 2 makes 4 elements span 7; window 3 dilated by 2 spans 5:
    // (7 - 5) / 1 + 1 = 3.
    let mut w = window(&[3], &[1], &[(0, 0)]);
    w.dimensions[0].base_dilation = 2;
    w.dimensions[0].window_dilation = 2;
    let dilated = Op::ReduceWindow {
        window: w,
        to_apply: ids[0],
    };
    assert_eq!(
        infer_in(
            module.clone(),
            &[s(F32, &[4]), s(F32, &[])],
            dilated,
            s(F32, &[3])
        ),
        ok("f32[3]")
    );
    let wrong_rank = Op::ReduceWindow {
        window: window(&[2], &[2], &[(0, 0)]),
        to_apply: ids[0],
    };
    assert_err(
        infer_in(module, &params, wrong_rank, s(F32, &[2, 2])),
        "the window has 1 dimensions",
    );
}

#[test]
fn select_and_scatter_returns_the_operand_shape() {
    let ge = signature_only("ge", &[s(F32, &[]), s(F32, &[])], s(Pred, &[]));
    let (module, ids) = module_with(vec![ge, scalar_binary("add", F32, Opcode::Add)]);
    let op = Op::SelectAndScatter {
        window: window(&[2, 2], &[2, 2], &[(0, 0), (0, 0)]),
        select: ids[0],
        scatter: ids[1],
    };
    let params = [s(F32, &[4, 4]), s(F32, &[2, 2]), s(F32, &[])];
    assert_eq!(
        infer_in(module.clone(), &params, op.clone(), s(F32, &[4, 4])),
        ok("f32[4,4]")
    );
    let bad_source = [s(F32, &[4, 4]), s(F32, &[3, 3]), s(F32, &[])];
    assert_err(
        infer_in(module, &bad_source, op, s(F32, &[4, 4])),
        "windowed operand",
    );
}

#[test]
fn map_sort_topk() {
    let (module, ids) = module_with(vec![
        scalar_binary("add", F32, Opcode::Add),
        signature_only(
            "lt",
            &[s(F32, &[]), s(F32, &[]), s(S32, &[]), s(S32, &[])],
            s(Pred, &[]),
        ),
    ]);
    let map = Op::Map {
        dimensions: vec![0, 1],
        to_apply: ids[0],
    };
    let x = s(F32, &[2, 3]);
    assert_eq!(
        infer_in(
            module.clone(),
            &[x.clone(), x.clone()],
            map.clone(),
            x.clone()
        ),
        ok("f32[2,3]")
    );
    assert_err(
        infer_in(module.clone(), &[x.clone()], map, x.clone()),
        "one scalar per operand",
    );

    // argsort: sort(keys, iota) with a 4-parameter comparator -> a tuple.
    let sort = Op::Sort {
        dimension: 1,
        is_stable: true,
        to_apply: ids[1],
    };
    let params = [s(F32, &[4, 9]), s(S32, &[4, 9])];
    let declared = tuple(vec![s(F32, &[4, 9]), s(S32, &[4, 9])]);
    assert_eq!(
        infer_in(module.clone(), &params, sort.clone(), declared.clone()),
        ok("(f32[4,9], s32[4,9])")
    );
    let mismatched = [s(F32, &[4, 9]), s(S32, &[4, 8])];
    assert_err(
        infer_in(module.clone(), &mismatched, sort, declared),
        "same dimensions",
    );

    let topk = Op::TopK {
        k: 3,
        largest: true,
    };
    let declared = tuple(vec![s(F32, &[5, 3]), s(S32, &[5, 3])]);
    assert_eq!(
        infer_in(module.clone(), &[s(F32, &[5, 8])], topk, declared.clone()),
        ok("(f32[5,3], s32[5,3])")
    );
    assert_err(
        infer_in(
            module,
            &[s(F32, &[5, 2])],
            Op::TopK {
                k: 3,
                largest: true,
            },
            declared,
        ),
        "k=3",
    );
}

// ----- contractions ----------------------------------------------------------------------

fn dot_op(lb: &[usize], lc: &[usize], rb: &[usize], rc: &[usize]) -> Op {
    Op::Dot {
        dimension_numbers: DotDimensionNumbers {
            lhs_batch_dimensions: lb.to_vec(),
            rhs_batch_dimensions: rb.to_vec(),
            lhs_contracting_dimensions: lc.to_vec(),
            rhs_contracting_dimensions: rc.to_vec(),
        },
        precision: vec![Precision::Default, Precision::Default],
        algorithm: None,
    }
}

#[test]
fn dot_orders_batch_then_lhs_then_rhs() {
    let matmul = dot_op(&[], &[1], &[], &[0]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 3]), s(F32, &[3, 4])],
            matmul.clone(),
            s(F32, &[2, 4])
        ),
        ok("f32[2,4]")
    );
    assert_err(
        infer(
            &[s(F32, &[2, 3]), s(F32, &[5, 4])],
            matmul.clone(),
            s(F32, &[2, 4]),
        ),
        "contracting dimensions of equal size",
    );
    // testdata attention: bqk,bkd->bqd is f32[2,8,4] x f32[2,4,16] -> f32[2,8,16].
    let bmm = dot_op(&[0], &[2], &[0], &[1]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 8, 4]), s(F32, &[2, 4, 16])],
            bmm,
            s(F32, &[2, 8, 16])
        ),
        ok("f32[2,8,16]")
    );
    // bqd,bkd->bqk contracts the last dims of both.
    let qk = dot_op(&[0], &[2], &[0], &[2]);
    assert_eq!(
        infer(
            &[s(F32, &[2, 8, 4]), s(F32, &[2, 8, 4])],
            qk,
            s(F32, &[2, 8, 8])
        ),
        ok("f32[2,8,8]")
    );
    // preferred_element_type: bf16 x bf16 accumulating in f32.
    assert_eq!(
        infer(
            &[s(BF16, &[2, 3]), s(BF16, &[3, 4])],
            matmul,
            s(F32, &[2, 4])
        ),
        ok("f32[2,4]")
    );
}

fn nhwc_conv(window: Window, feature_group_count: i64, batch_group_count: i64) -> Op {
    // b01f_01io->b01f
    Op::Convolution {
        window,
        dimension_numbers: ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 3,
            input_spatial_dimensions: vec![1, 2],
            kernel_input_feature_dimension: 2,
            kernel_output_feature_dimension: 3,
            kernel_spatial_dimensions: vec![0, 1],
            output_batch_dimension: 0,
            output_feature_dimension: 3,
            output_spatial_dimensions: vec![1, 2],
        },
        feature_group_count,
        batch_group_count,
        precision: vec![],
    }
}

#[test]
fn convolution_windows_and_groups() {
    let same = window(&[3, 3], &[1, 1], &[(1, 1), (1, 1)]);
    let x = s(F32, &[1, 5, 5, 2]);
    assert_eq!(
        infer(
            &[x.clone(), s(F32, &[3, 3, 2, 4])],
            nhwc_conv(same.clone(), 1, 1),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
    // stride 2, no padding: (5 - 3) / 2 + 1 = 2.
    let strided = window(&[3, 3], &[2, 2], &[(0, 0), (0, 0)]);
    assert_eq!(
        infer(
            &[x.clone(), s(F32, &[3, 3, 2, 4])],
            nhwc_conv(strided, 1, 1),
            s(F32, &[1, 2, 2, 4])
        ),
        ok("f32[1,2,2,4]")
    );
    assert_err(
        infer(
            &[x, s(F32, &[3, 3, 3, 4])],
            nhwc_conv(same.clone(), 1, 1),
            s(F32, &[1, 5, 5, 4]),
        ),
        "needs 2 input features",
    );
    // Depthwise: 4 features in 4 groups, kernel input features 4 / 4 = 1.
    let x4 = s(F32, &[1, 5, 5, 4]);
    assert_eq!(
        infer(
            &[x4.clone(), s(F32, &[3, 3, 1, 4])],
            nhwc_conv(same.clone(), 4, 1),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
    // batch_group_count=2: batch 2 -> 1, kernel output features 4 divisible by 2.
    let x2 = s(F32, &[2, 5, 5, 4]);
    assert_eq!(
        infer(
            &[x2, s(F32, &[3, 3, 4, 4])],
            nhwc_conv(same, 1, 2),
            s(F32, &[1, 5, 5, 4])
        ),
        ok("f32[1,5,5,4]")
    );
}

#[test]
fn linear_algebra_and_fft() {
    let a = s(F32, &[2, 4, 4]);
    assert_eq!(
        infer(&[a.clone()], Op::Cholesky { lower: true }, a.clone()),
        ok("f32[2,4,4]")
    );
    assert_err(
        infer(
            &[s(F32, &[4, 3])],
            Op::Cholesky { lower: true },
            s(F32, &[4, 3]),
        ),
        "square",
    );
    let solve = |left_side| {
        Op::TriangularSolve(TriangularSolveOptions {
            left_side,
            lower: true,
            unit_diagonal: false,
            transpose_a: TriangularTranspose::NoTranspose,
        })
    };
    // left side: a x = b with b [.., 4, 3]; right side: x a = b with b [.., 3, 4].
    assert_eq!(
        infer(
            &[a.clone(), s(F32, &[2, 4, 3])],
            solve(true),
            s(F32, &[2, 4, 3])
        ),
        ok("f32[2,4,3]")
    );
    assert_eq!(
        infer(
            &[a.clone(), s(F32, &[2, 3, 4])],
            solve(false),
            s(F32, &[2, 3, 4])
        ),
        ok("f32[2,3,4]")
    );
    assert_err(
        infer(&[a, s(F32, &[2, 3, 4])], solve(true), s(F32, &[2, 3, 4])),
        "rows",
    );
    // rfft of 8 reals gives 8/2 + 1 = 5 complex values.
    let rfft = Op::Fft {
        fft_type: FftType::Rfft,
        fft_length: vec![8],
    };
    assert_eq!(
        infer(&[s(F32, &[3, 8])], rfft, s(C64, &[3, 5])),
        ok("c64[3,5]")
    );
    let irfft = Op::Fft {
        fft_type: FftType::Irfft,
        fft_length: vec![8],
    };
    assert_eq!(
        infer(&[s(C64, &[3, 5])], irfft, s(F32, &[3, 8])),
        ok("f32[3,8]")
    );
}

// ----- control flow and the rest ---------------------------------------------------------

#[test]
fn while_state_must_match_condition_and_body() {
    let state = tuple(vec![s(S32, &[]), s(F32, &[4])]);
    let cond = signature_only("cond", &[state.clone()], s(Pred, &[]));
    let body = signature_only("body", &[state.clone()], state.clone());
    let bad_body = signature_only("bad_body", &[state.clone()], s(F32, &[4]));
    let (module, ids) = module_with(vec![cond, body, bad_body]);
    let op = Op::While {
        condition: ids[0],
        body: ids[1],
    };
    assert_eq!(
        infer_in(module.clone(), &[state.clone()], op, state.clone()),
        ok("(s32[], f32[4])")
    );
    let op = Op::While {
        condition: ids[0],
        body: ids[2],
    };
    assert_err(
        infer_in(module, &[state.clone()], op, state),
        "the body is ((s32[], f32[4])) -> f32[4]",
    );
}

#[test]
fn conditional_branches_agree() {
    let x = s(F32, &[6]);
    let b0 = signature_only("b0", &[x.clone()], x.clone());
    let b1 = signature_only("b1", &[x.clone()], x.clone());
    let b2 = signature_only("b2", &[x.clone()], s(F32, &[5]));
    let (module, ids) = module_with(vec![b0, b1, b2]);
    let op = |branches: &[usize]| Op::Conditional {
        branch_computations: branches.iter().map(|&i| ids[i]).collect(),
    };
    let params = [s(S32, &[]), x.clone(), x.clone()];
    assert_eq!(
        infer_in(module.clone(), &params, op(&[0, 1]), x.clone()),
        ok("f32[6]")
    );
    let pred_params = [s(Pred, &[]), x.clone(), x.clone()];
    assert_eq!(
        infer_in(module.clone(), &pred_params, op(&[0, 1]), x.clone()),
        ok("f32[6]")
    );
    assert_err(
        infer_in(module.clone(), &params, op(&[0, 2]), x.clone()),
        "all branches must return the same shape",
    );
    let bad_selector = [s(F32, &[]), x.clone(), x.clone()];
    assert_err(
        infer_in(module, &bad_selector, op(&[0, 1]), x),
        "pred[] or s32[]",
    );
}

#[test]
fn call_and_fusion_match_the_callee() {
    let x = s(F32, &[4]);
    let f = signature_only(
        "fused_computation",
        &[x.clone(), x.clone()],
        s(F32, &[4, 1]),
    );
    let (module, ids) = module_with(vec![f]);
    let fusion = Op::Fusion {
        kind: FusionKind::Output,
        calls: ids[0],
    };
    assert_eq!(
        infer_in(
            module.clone(),
            &[x.clone(), x.clone()],
            fusion.clone(),
            s(F32, &[4, 1])
        ),
        ok("f32[4,1]")
    );
    assert_err(
        infer_in(
            module.clone(),
            &[x.clone(), s(F32, &[3])],
            fusion,
            s(F32, &[4, 1]),
        ),
        "the fusion passes (f32[4], f32[3]) but the called computation is (f32[4], f32[4]) -> f32[4,1]",
    );
    let call = Op::Call { to_apply: ids[0] };
    assert_err(
        infer_in(module, &[x.clone()], call, x),
        "the call passes (f32[4])",
    );
}

#[test]
fn rng_tokens_constants_custom_calls() {
    let state = s(U64, &[2]);
    let declared = tuple(vec![state.clone(), s(U32, &[3, 4])]);
    let rbg = Op::RngBitGenerator {
        algorithm: RandomAlgorithm::ThreeFry,
    };
    assert_eq!(
        infer(&[state.clone()], rbg.clone(), declared),
        ok("(u64[2], u32[3,4])")
    );
    assert_err(
        infer(&[state], rbg, s(U32, &[3, 4])),
        "returns (state, bits)",
    );

    let rng = Op::Rng {
        distribution: RandomDistribution::Uniform,
    };
    assert_eq!(
        infer(&[s(F32, &[]), s(F32, &[])], rng.clone(), s(F32, &[3])),
        ok("f32[3]")
    );
    assert_err(
        infer(&[s(F32, &[]), s(S32, &[])], rng, s(F32, &[3])),
        "two f32[] bounds",
    );

    assert_eq!(
        plain(
            Opcode::AfterAll,
            &[Shape::Token, Shape::Token],
            Shape::Token
        ),
        ok("token[]")
    );
    assert_err(
        plain(Opcode::AfterAll, &[s(F32, &[])], Shape::Token),
        "takes tokens",
    );

    // A constant's shape is its literal's.
    let lit = Literal::from(ArrayLiteral::from_vec(&[3], vec![1.0f32, 2.0, 3.0]));
    assert_eq!(
        infer(&[], Op::Constant { literal: lit }, s(F32, &[4])),
        ok("f32[3]")
    );

    // custom-call: whatever is declared (here lapack's (a, info)).
    let cc = Op::CustomCall(Box::new(CustomCall::new("lapack_spotrf_ffi")));
    let declared = tuple(vec![s(F32, &[6, 6]), s(S32, &[])]);
    assert_eq!(
        infer(&[s(F32, &[6, 6])], cc, declared),
        ok("(f32[6,6], s32[])")
    );
}

#[test]
fn fixed_arity_is_checked_without_panicking() {
    assert_err(
        plain(Opcode::Add, &[s(F32, &[4])], s(F32, &[4])),
        "add takes 2 operands but has 1",
    );
    assert_err(
        infer(&[s(F32, &[4])], Op::Iota { dimension: 0 }, s(F32, &[4])),
        "iota takes 0 operands",
    );
    // Ops xlac does not model keep the declared shape, whatever their operands.
    let op = Op::Unmodeled {
        opcode: Opcode::AllReduce,
        called: vec![],
    };
    assert_eq!(infer(&[s(F32, &[4])], op, s(F32, &[4])), ok("f32[4]"));
}
