//! Tests of the LAPACK and TopK custom calls, run as whole modules through the evaluator.
//!
//! Expected values were printed by `scripts/golden_linalg.py` (jax/jaxlib 0.10.2 on CPU),
//! which calls `lapack_?potrf_ffi` / `lapack_?trsm_ffi` directly with these attributes and
//! column-major layouts, and runs `jax.lax.top_k` (which XLA:CPU lowers to `TopK`).

// Golden values are XLA's printed outputs; some are (or are 1 ulp from) sqrt(2).
#![allow(clippy::approx_constant)]

use super::*;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{Computation, ComputationBuilder, Layout, Module, PrimitiveType::*};

/// `shape` with a column-major matrix layout (`{r-2, r-1, r-3, ..., 0}`) as JAX pins it,
/// or row-major when `column_major` is false.
fn constrained(ty: PrimitiveType, dims: &[i64], column_major: bool) -> Shape {
    let mut s = ArrayShape::new(ty, dims);
    let r = dims.len();
    if column_major {
        let mut m2m = vec![r - 2, r - 1];
        m2m.extend((0..r - 2).rev());
        s.layout = Layout {
            minor_to_major: m2m,
            extra: None,
        };
    }
    Shape::Array(s)
}

/// `ROOT custom-call(p0, p1, ...)` with the given target, attributes and layouts.
fn cc_module(
    target: &str,
    params: &[Shape],
    result: Shape,
    column_major: Option<bool>,
    config: Option<&str>,
) -> Module {
    let mut b = ComputationBuilder::new("main");
    let ps: Vec<_> = params
        .iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i, s.clone()))
        .collect();
    let mut cc = CustomCall::new(target);
    cc.operand_layout_constraints = column_major.map(|cm| {
        params
            .iter()
            .map(|s| constrained(s.element_type().unwrap(), s.dims(), cm))
            .collect()
    });
    let r = b.instr(result, Op::CustomCall(Box::new(cc)), &ps);
    let mut comp = b.build(r);
    comp.instrs[r].backend_config = config.map(|c| BackendConfig::Json(c.to_string()));
    Module::new("m", comp)
}

fn f64s(dims: &[i64], v: &[f64]) -> Literal {
    ArrayLiteral::from_vec(dims, v.to_vec()).into()
}
fn f32s(dims: &[i64], v: &[f64]) -> Literal {
    ArrayLiteral::from_vec(dims, v.iter().map(|&x| x as f32).collect()).into()
}
fn as_f64(l: &Literal) -> Vec<f64> {
    let a = l.as_array().unwrap();
    match &a.data {
        ArrayData::F64(v) => v.clone(),
        ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        other => panic!("not a float array: {other:?}"),
    }
}
fn run(m: &Module, args: &[Literal]) -> EvalResult {
    evaluate(m, args, &EvalOptions::default())
}

const JUNK_UPPER: [f64; 9] = [4.0, 100.0, 200.0, 2.0, 5.0, 300.0, 0.6, 1.5, 3.0];
const NOT_PD: [f64; 9] = [4.0, 2.0, 3.0, 2.0, 5.0, 4.0, 3.0, 4.0, 1.0];
const SPD2: [f64; 9] = [2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0];

fn potrf_shape(ty: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::Tuple(vec![
        Shape::array(ty, dims),
        Shape::array(S32, &dims[..dims.len() - 2]),
    ])
}

#[test]
fn potrf_lower_f32() {
    // potrf_L_f32: lapack_spotrf_ffi, uplo = 76 ('L'), layout {0,1}.
    let m = cc_module(
        "lapack_spotrf_ffi",
        &[Shape::array(F32, &[3, 3])],
        potrf_shape(F32, &[3, 3]),
        Some(true),
        Some("{uplo = 76 : ui8}"),
    );
    let out = run(&m, &[f32s(&[3, 3], &JUNK_UPPER)]).unwrap();
    let parts = out.as_tuple().unwrap();
    let want = [
        2.0,
        100.0,
        200.0,
        1.0,
        2.0,
        300.0,
        0.30000001192092896,
        0.6000000238418579,
        1.5968719720840454,
    ];
    assert_eq!(as_f64(&parts[0]), want);
    assert_eq!(parts[1].as_array().unwrap().values::<i32>().unwrap(), [0]);
}

#[test]
fn potrf_batched_with_a_failure() {
    // potrf_L_batched_f64: [SPD2, NOT_PD], uplo 'L', layout {1,2,0}; info = [0, 3].
    let batched: Vec<f64> = SPD2.iter().chain(&NOT_PD).copied().collect();
    let m = cc_module(
        "lapack_dpotrf_ffi",
        &[Shape::array(F64, &[2, 3, 3])],
        potrf_shape(F64, &[2, 3, 3]),
        Some(true),
        Some("{uplo = 76 : ui8}"),
    );
    let out = run(&m, &[f64s(&[2, 3, 3], &batched)]).unwrap();
    let parts = out.as_tuple().unwrap();
    let want = [
        1.4142135623730951,
        -1.0,
        0.0,
        -0.7071067811865475,
        1.224744871391589,
        -1.0,
        0.0,
        -0.8164965809277261,
        1.1547005383792515,
        2.0,
        2.0,
        3.0,
        1.0,
        2.0,
        4.0,
        1.5,
        1.25,
        -2.8125,
    ];
    assert_eq!(as_f64(&parts[0]), want);
    assert_eq!(
        parts[1].as_array().unwrap().values::<i32>().unwrap(),
        [0, 3]
    );
}

#[test]
fn potrf_with_a_row_major_constraint_flips_uplo() {
    // With a row-major layout LAPACK sees aᵀ, so uplo 'L' factors the logical upper triangle:
    // the result must be potrf_U_f64's golden on the same logical input (lower = junk).
    let junk_lower = [4.0, 2.0, 0.6, 100.0, 5.0, 1.5, 200.0, 300.0, 3.0];
    let m = cc_module(
        "lapack_dpotrf_ffi",
        &[Shape::array(F64, &[3, 3])],
        potrf_shape(F64, &[3, 3]),
        Some(false),
        Some("{uplo = 76 : ui8}"),
    );
    let out = run(&m, &[f64s(&[3, 3], &junk_lower)]).unwrap();
    let want = [
        2.0,
        1.0,
        0.3,
        100.0,
        2.0,
        0.6,
        200.0,
        300.0,
        1.5968719422671311,
    ];
    assert_eq!(as_f64(&out.as_tuple().unwrap()[0]), want);
}

const A: [f64; 9] = [2.0, 7.0, -3.0, 1.0, 4.0, 5.0, -2.0, 0.5, 8.0];
const B_LEFT: [f64; 6] = [1.0, 2.0, 3.0, -1.0, 0.5, 4.0];
const B_RIGHT: [f64; 6] = [1.0, 3.0, 0.5, 2.0, -1.0, 4.0];

fn trsm_f64(config: &str, left: bool) -> Vec<f64> {
    let bd: &[i64] = if left { &[3, 2] } else { &[2, 3] };
    let m = cc_module(
        "lapack_dtrsm_ffi",
        &[Shape::array(F64, &[3, 3]), Shape::array(F64, bd)],
        Shape::array(F64, bd),
        Some(true),
        Some(config),
    );
    let b = if left {
        f64s(bd, &B_LEFT)
    } else {
        f64s(bd, &B_RIGHT)
    };
    as_f64(&run(&m, &[f64s(&[3, 3], &A), b]).unwrap())
}

#[test]
fn trsm_flags() {
    // "trsm side=.. uplo=.. trans=.. diag=.. f64" goldens.
    let l_l_n_n = trsm_f64(
        "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}",
        true,
    );
    assert_eq!(l_l_n_n, [0.5, 1.0, 0.625, -0.5, 0.1484375, 0.78125]);
    let l_u_t_n = trsm_f64(
        "{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}",
        true,
    );
    assert_eq!(l_u_t_n, [0.5, 1.0, -0.125, -2.0, 0.328125, 2.125]);
    let r_l_t_u = trsm_f64(
        "{diag = 85 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}",
        false,
    );
    assert_eq!(r_l_t_u, [1.0, 2.0, 1.5, 2.0, -3.0, 9.5]);
    let r_u_n_n = trsm_f64(
        "{diag = 78 : ui8, side = 82 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}",
        false,
    );
    assert_eq!(r_u_n_n, [0.5, -0.125, 0.328125, 1.0, -2.0, 2.125]);
}

#[test]
fn trsm_batched_f32() {
    // "trsm batched f32 side=L uplo=U trans=N diag=N": a = [A, Aᵀ/2 + I], b = [B, 2B].
    let at: Vec<f64> = (0..9)
        .map(|i| A[(i % 3) * 3 + i / 3] * 0.5 + if i % 4 == 0 { 1.0 } else { 0.0 })
        .collect();
    let a: Vec<f64> = A.iter().chain(&at).copied().collect();
    let b: Vec<f64> = B_LEFT
        .iter()
        .chain(&B_LEFT.map(|x| 2.0 * x))
        .copied()
        .collect();
    let config = "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}";
    let m = cc_module(
        "lapack_strsm_ffi",
        &[Shape::array(F32, &[2, 3, 3]), Shape::array(F32, &[2, 3, 2])],
        Shape::array(F32, &[2, 3, 2]),
        Some(true),
        Some(config),
    );
    let got = as_f64(&run(&m, &[f32s(&[2, 3, 3], &a), f32s(&[2, 3, 2], &b)]).unwrap());
    let want = [
        -1.7578125,
        4.8125,
        0.671875,
        -0.875,
        0.0625,
        0.5,
        0.6041666865348816,
        3.0,
        1.9833333492279053,
        -0.8000000715255737,
        0.20000000298023224,
        1.600000023841858,
    ];
    for (g, w) in got.iter().zip(&want) {
        // LAPACK's column-oriented update order may round differently in f32.
        assert!(
            (g - w).abs() <= 2e-7 * w.abs().max(1.0),
            "got {got:?}\nwant {want:?}"
        );
    }
}

#[test]
fn trsm_rejects_missing_or_bad_attributes() {
    let m = cc_module(
        "lapack_dtrsm_ffi",
        &[Shape::array(F64, &[3, 3]), Shape::array(F64, &[3, 2])],
        Shape::array(F64, &[3, 2]),
        Some(true),
        Some("{side = 76 : ui8}"),
    );
    let e = run(&m, &[f64s(&[3, 3], &A), f64s(&[3, 2], &B_LEFT)]).unwrap_err();
    assert!(e.message.contains("missing FFI attribute"), "{e}");
    let bad = "{diag = 78 : ui8, side = 76 : ui8, trans_x = 81 : ui8, uplo = 76 : ui8}";
    let m = cc_module(
        "lapack_dtrsm_ffi",
        &[Shape::array(F64, &[3, 3]), Shape::array(F64, &[3, 2])],
        Shape::array(F64, &[3, 2]),
        Some(true),
        Some(bad),
    );
    assert!(run(&m, &[f64s(&[3, 3], &A), f64s(&[3, 2], &B_LEFT)]).is_err());
    let ok = "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}";
    let m = cc_module(
        "lapack_dtrsm_ffi",
        &[Shape::array(F64, &[3, 3]), Shape::array(F64, &[3, 2])],
        Shape::array(F64, &[3, 2]),
        None,
        Some(ok),
    );
    assert!(
        run(&m, &[f64s(&[3, 3], &A), f64s(&[3, 2], &B_LEFT)]).is_err(),
        "no layout constraints"
    );
}

/// A module whose root is `TopK(p0)` with a `compare(p0, p1), direction=dir` comparator.
fn topk_module(x: &ArrayShape, k: i64, dir: ComparisonDirection) -> Module {
    let mut cb = ComputationBuilder::new("compare-greater-than");
    let p0 = cb.parameter(0, Shape::scalar(x.element_type));
    let p1 = cb.parameter(1, Shape::scalar(x.element_type));
    let c = cb.compare(dir, p0, p1);
    let comparator: Computation = cb.build(c);
    let mut out_dims = x.dims.clone();
    *out_dims.last_mut().unwrap() = k;
    let result = Shape::Tuple(vec![
        Shape::array(x.element_type, &out_dims),
        Shape::array(S32, &out_dims),
    ]);
    let mut b = ComputationBuilder::new("main");
    let p = b.parameter(0, Shape::Array(x.clone()));
    let mut cc = CustomCall::new("TopK");
    let mut m = Module::new("m", Computation::new("placeholder"));
    let cmp = m.add_computation(comparator);
    cc.called_computations = vec![cmp];
    let r = b.instr(result, Op::CustomCall(Box::new(cc)), &[p]);
    m.computations[m.entry] = b.build(r);
    m
}

#[test]
fn top_k_matches_xla() {
    // topk.values / topk.indices: jax.lax.top_k(x, 3) on CPU (the TopK custom call).
    let x = vec![
        1.0f32,
        3.0,
        -0.0,
        0.0,
        3.0,
        f32::NAN,
        2.0,
        f32::NEG_INFINITY,
        5.0,
        f32::INFINITY,
    ];
    let x = ArrayLiteral::from_vec(&[2, 5], x);
    let m = topk_module(&x.shape, 3, ComparisonDirection::Gt);
    let out = run(&m, &[x.into()]).unwrap();
    let parts = out.as_tuple().unwrap();
    let v = parts[0].as_array().unwrap().values::<f32>().unwrap();
    assert_eq!(&v[..3], &[3.0, 3.0, 1.0]);
    assert!(v[3].is_nan() && v[4] == f32::INFINITY && v[5] == 5.0);
    assert_eq!(
        parts[1].as_array().unwrap().values::<i32>().unwrap(),
        [1, 4, 0, 0, 4, 3]
    );
}

#[test]
fn top_k_orders_signed_zeros_and_supports_smallest() {
    // Total order: -0 < +0, so the largest of [-0, +0] is +0 at index 1 (by hand).
    let x = ArrayLiteral::from_vec(&[2], vec![-0.0f32, 0.0]);
    let m = topk_module(&x.shape, 1, ComparisonDirection::Gt);
    let out = run(&m, &[x.clone().into()]).unwrap();
    assert_eq!(
        out.as_tuple().unwrap()[1]
            .as_array()
            .unwrap()
            .values::<i32>()
            .unwrap(),
        [1]
    );
    // An LT comparator picks the smallest: [5, -2, 7, -2] -> -2 (1), -2 (3).
    let x = ArrayLiteral::from_vec(&[4], vec![5i32, -2, 7, -2]);
    let m = topk_module(&x.shape, 2, ComparisonDirection::Lt);
    let out = run(&m, &[x.into()]).unwrap();
    let parts = out.as_tuple().unwrap();
    assert_eq!(
        parts[0].as_array().unwrap().values::<i32>().unwrap(),
        [-2, -2]
    );
    assert_eq!(
        parts[1].as_array().unwrap().values::<i32>().unwrap(),
        [1, 3]
    );
}

#[test]
fn unknown_targets_are_named() {
    let m = cc_module(
        "my_kernel",
        &[Shape::array(F32, &[2])],
        Shape::array(F32, &[2]),
        None,
        None,
    );
    let e = run(&m, &[f32s(&[2], &[1.0, 2.0])]).unwrap_err();
    assert_eq!(
        e.message,
        "custom-call target \"my_kernel\" is not supported by the interpreter"
    );
}

#[test]
fn ffi_attributes_parse() {
    let a =
        FfiAttributes::parse("{diag = 78 : ui8, side = 76 : ui8, name = \"a, b\", d = {x = 1}}")
            .unwrap();
    assert_eq!(a.get("diag"), Some("78"));
    assert_eq!(a.letter("side").unwrap(), b'L');
    assert_eq!(a.get("name"), Some("a, b"));
    assert_eq!(a.get("d"), Some("{x = 1}"));
    assert_eq!(FfiAttributes::parse("").unwrap(), FfiAttributes::default());
    assert_eq!(
        FfiAttributes::parse("{}").unwrap(),
        FfiAttributes::default()
    );
    assert!(FfiAttributes::parse("{uplo}").is_err());
    assert!(
        FfiAttributes::parse("{uplo = 300 : ui8}")
            .unwrap()
            .letter("uplo")
            .is_err()
    );
}
