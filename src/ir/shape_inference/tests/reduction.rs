//! Reductions: reduce, reduce-window, select-and-scatter, map, sort, topk.

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in a table of cases.
#![allow(clippy::cloned_ref_to_slice_refs)]

use super::*;
use crate::ir::PrimitiveType::*;
use crate::ir::*;

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
