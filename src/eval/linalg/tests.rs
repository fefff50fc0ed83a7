//! Tests of `cholesky`, `triangular-solve`, `potrf` and `trsm` against XLA:CPU.
//!
//! Expected values were printed by `scripts/golden_linalg.py` (jax/jaxlib 0.10.2 on CPU):
//! the ops through hand-written `stablehlo.cholesky` / `stablehlo.triangular_solve` modules
//! (which XLA:CPU expands), the LAPACK routines through direct `stablehlo.custom_call`s to
//! `lapack_?potrf_ffi` / `lapack_?trsm_ffi` (so the untouched triangle and `info` show).

// Golden values are XLA's printed outputs; some are (or are 1 ulp from) sqrt(2).
#![allow(clippy::approx_constant)]

use super::*;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{ComputationBuilder, Module, Op, Shape};

/// An SPD matrix whose unused (upper) triangle holds junk: 100, 200, 300.
const JUNK_UPPER: [f64; 9] = [4.0, 100.0, 200.0, 2.0, 5.0, 300.0, 0.6, 1.5, 3.0];
/// The same SPD matrix with junk in the lower triangle.
const JUNK_LOWER: [f64; 9] = [4.0, 2.0, 0.6, 100.0, 5.0, 1.5, 200.0, 300.0, 3.0];
/// Symmetric, not positive definite: the third pivot is 1 - 1.5² - 1.25² < 0.
const NOT_PD: [f64; 9] = [4.0, 2.0, 3.0, 2.0, 5.0, 4.0, 3.0, 4.0, 1.0];
/// The 1-D Laplacian, SPD.
const SPD2: [f64; 9] = [2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0];

fn f64s(dims: &[i64], v: &[f64]) -> Literal {
    ArrayLiteral::from_vec(dims, v.to_vec()).into()
}
fn f32s(dims: &[i64], v: &[f64]) -> Literal {
    ArrayLiteral::from_vec(dims, v.iter().map(|&x| x as f32).collect()).into()
}
fn out_f64(l: &Literal) -> Vec<f64> {
    l.as_array().unwrap().values::<f64>().unwrap().to_vec()
}
fn out_f32(l: &Literal) -> Vec<f64> {
    l.as_array()
        .unwrap()
        .values::<f32>()
        .unwrap()
        .iter()
        .map(|&x| f64::from(x))
        .collect()
}

/// Equal, NaN matching NaN, within `rel` relative error (0 = bit-exact).
fn assert_close(got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "got {got:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= rel * w.abs();
        assert!(
            ok,
            "element {i}: got {g}, want {w}\n got {got:?}\nwant {want:?}"
        );
    }
}

const NAN: f64 = f64::NAN;

#[test]
fn cholesky_lower_reads_only_the_lower_triangle_and_zeroes_the_upper() {
    // chol_op_lower_f64, chol_op_lower_f32: stablehlo.cholesky lower=true.
    let l = cholesky(&f64s(&[3, 3], &JUNK_UPPER), true).unwrap();
    assert_close(
        &out_f64(&l),
        &[2.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.3, 0.6, 1.5968719422671311],
        0.0,
    );
    let l = cholesky(&f32s(&[3, 3], &JUNK_UPPER), true).unwrap();
    let want = [
        2.0,
        0.0,
        0.0,
        1.0,
        2.0,
        0.0,
        0.30000001192092896,
        0.6000000238418579,
        1.5968718528747559,
    ];
    assert_close(&out_f32(&l), &want, 0.0);
}

#[test]
fn cholesky_upper() {
    // chol_op_upper_f32: stablehlo.cholesky lower=false.
    let u = cholesky(&f32s(&[3, 3], &JUNK_LOWER), false).unwrap();
    let want = [
        2.0,
        1.0,
        0.30000001192092896,
        0.0,
        2.0,
        0.6000000238418579,
        0.0,
        0.0,
        1.5968718528747559,
    ];
    assert_close(&out_f32(&u), &want, 0.0);
}

#[test]
fn cholesky_of_a_non_pd_matrix_is_all_nan_per_batch_element() {
    // chol_op_not_pd_f64 and chol_op_batched_f64: [SPD2, NOT_PD].
    let l = cholesky(&f64s(&[3, 3], &NOT_PD), true).unwrap();
    assert!(out_f64(&l).iter().all(|x| x.is_nan()));
    let batched: Vec<f64> = SPD2.iter().chain(&NOT_PD).copied().collect();
    let l = cholesky(&f64s(&[2, 3, 3], &batched), true).unwrap();
    let want = [
        1.414213562373095,
        0.0,
        0.0,
        -0.7071067811865475,
        1.2247448713915892,
        0.0,
        0.0,
        -0.8164965809277261,
        1.1547005383792515,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
    ];
    assert_close(&out_f64(&l), &want, 0.0);
}

#[test]
fn cholesky_rejects_bad_shapes_and_types() {
    assert!(cholesky(&f64s(&[2, 3], &[0.0; 6]), true).is_err());
    assert!(cholesky(&f64s(&[3], &[0.0; 3]), true).is_err());
    let ints: Literal = ArrayLiteral::from_vec(&[1, 1], vec![4i32]).into();
    assert!(cholesky(&ints, true).is_err());
}

#[test]
fn cholesky_complex_factors_a_hermitian_matrix() {
    // A = L L^H with L = [[2, 0], [1+i, 3]]: A = [[4, 2-2i], [2+2i, 11]] (by hand).
    let c = |re: f64, im: f64| Complex::new(re, im);
    let a: Literal = ArrayLiteral::from_vec(
        &[2, 2],
        vec![c(4.0, 0.0), c(9.0, 9.0), c(2.0, 2.0), c(11.0, 0.0)],
    )
    .into();
    let l = cholesky(&a, true).unwrap();
    let got = l
        .as_array()
        .unwrap()
        .values::<Complex<f64>>()
        .unwrap()
        .to_vec();
    assert_eq!(
        got,
        vec![c(2.0, 0.0), c(0.0, 0.0), c(1.0, 1.0), c(3.0, 0.0)]
    );
}

#[test]
fn potrf_leaves_the_other_triangle_untouched() {
    // potrf_L_f32 and potrf_U_f64: lapack_spotrf_ffi uplo=L, lapack_dpotrf_ffi uplo=U.
    let (f, info) = potrf(f32s(&[3, 3], &JUNK_UPPER).as_array().unwrap(), true).unwrap();
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
    assert_close(&out_f32(&f.into()), &want, 0.0);
    assert_eq!(info, [0]);
    let (f, info) = potrf(f64s(&[3, 3], &JUNK_LOWER).as_array().unwrap(), false).unwrap();
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
    assert_close(&out_f64(&f.into()), &want, 0.0);
    assert_eq!(info, [0]);
}

#[test]
fn potrf_failure_matches_lapack() {
    // potrf_L_batched_f64 ([SPD2, NOT_PD]), potrf_L_not_pd_4x4_f64, potrf_L_not_pd_5x5_f64.
    let batched: Vec<f64> = SPD2.iter().chain(&NOT_PD).copied().collect();
    let (f, info) = potrf(f64s(&[2, 3, 3], &batched).as_array().unwrap(), true).unwrap();
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
    assert_close(&out_f64(&f.into()), &want, 0.0);
    assert_eq!(info, [0, 3]);

    let a4 = [
        4.0, 2., 3., 1., 2., 5., 4., 2., 3., 4., 1., 3., 1., 2., 3., 7.,
    ];
    let (f, info) = potrf(f64s(&[4, 4], &a4).as_array().unwrap(), true).unwrap();
    let want = [
        2.0, 2.0, 3.0, 1.0, 1.0, 2.0, 4.0, 2.0, 1.5, 1.25, -2.8125, 3.0, 0.5, 0.75, 3.0, 7.0,
    ];
    assert_close(&out_f64(&f.into()), &want, 0.0);
    assert_eq!(info, [3]);

    let a5 = [
        4.0, 2., 1., 3., 1., 2., 5., 1., 4., 2., 1., 1., 6., 1., 1., 3., 4., 1., 1., 3., 1., 2.,
        1., 3., 7.,
    ];
    let (f, info) = potrf(f64s(&[5, 5], &a5).as_array().unwrap(), true).unwrap();
    let want = [
        2.0,
        2.0,
        1.0,
        3.0,
        1.0,
        1.0,
        2.0,
        1.0,
        4.0,
        2.0,
        0.5,
        0.25,
        2.384848003542364,
        1.0,
        1.0,
        1.5,
        1.25,
        -0.026207120918047958,
        -2.8131868131868134,
        3.0,
        0.5,
        0.75,
        0.2358640882624316,
        3.0,
        7.0,
    ];
    assert_close(&out_f64(&f.into()), &want, 1e-15);
    assert_eq!(info, [4]);
}

/// The coefficient matrix of the triangular-solve tests; both triangles are used.
const A: [f64; 9] = [2.0, 7.0, -3.0, 1.0, 4.0, 5.0, -2.0, 0.5, 8.0];
const B_LEFT: [f64; 6] = [1.0, 2.0, 3.0, -1.0, 0.5, 4.0];
const B_RIGHT: [f64; 6] = [1.0, 3.0, 0.5, 2.0, -1.0, 4.0];

fn solve(
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: TriangularTranspose,
) -> Vec<f64> {
    let options = TriangularSolveOptions {
        left_side,
        lower,
        unit_diagonal,
        transpose_a,
    };
    let b = if left_side {
        f64s(&[3, 2], &B_LEFT)
    } else {
        f64s(&[2, 3], &B_RIGHT)
    };
    out_f64(&triangular_solve(&f64s(&[3, 3], &A), &b, &options).unwrap())
}

#[test]
fn triangular_solve_matches_xla() {
    use TriangularTranspose::*;
    // trisolve_op cases: stablehlo.triangular_solve with these options.
    assert_close(
        &solve(true, true, false, NoTranspose),
        &[0.5, 1.0, 0.625, -0.5, 0.1484375, 0.78125],
        0.0,
    );
    assert_close(
        &solve(true, false, false, NoTranspose),
        &[-1.7578125, 4.8125, 0.671875, -0.875, 0.0625, 0.5],
        0.0,
    );
    assert_close(
        &solve(true, true, false, Transpose),
        &[0.19140625, 1.65625, 0.7421875, -0.3125, 0.0625, 0.5],
        0.0,
    );
    assert_close(
        &solve(true, false, true, Adjoint),
        &[1.0, 2.0, -4.0, -15.0, 23.5, 85.0],
        0.0,
    );
    assert_close(
        &solve(false, true, false, NoTranspose),
        &[0.19140625, 0.7421875, 0.0625, 1.65625, -0.3125, 0.5],
        0.0,
    );
    assert_close(
        &solve(false, false, false, Transpose),
        &[-1.7578125, 0.671875, 0.0625, 4.8125, -0.875, 0.5],
        0.0,
    );
}

#[test]
fn triangular_solve_batched_f32() {
    // "trisolve_op batched f32 left lower": a = [A, Aᵀ/2 + I], b = [B, 2B]. XLA inverts the
    // diagonal block and multiplies, so its 0.8333334 is 1 ulp from substitution's 0.8333333.
    let at: Vec<f64> = (0..9)
        .map(|i| A[(i % 3) * 3 + i / 3] * 0.5 + if i % 4 == 0 { 1.0 } else { 0.0 })
        .collect();
    let a: Vec<f64> = A.iter().chain(&at).copied().collect();
    let b: Vec<f64> = B_LEFT
        .iter()
        .chain(&B_LEFT.map(|x| 2.0 * x))
        .copied()
        .collect();
    let options = TriangularSolveOptions {
        left_side: true,
        lower: true,
        unit_diagonal: false,
        transpose_a: TriangularTranspose::NoTranspose,
    };
    let x = triangular_solve(&f32s(&[2, 3, 3], &a), &f32s(&[2, 3, 2], &b), &options).unwrap();
    let want = [
        0.5,
        1.0,
        0.625,
        -0.5,
        0.1484375,
        0.78125,
        1.0,
        2.0,
        0.833333432674408,
        -3.0,
        0.08333338797092438,
        3.6999998092651367,
    ];
    assert_close(&out_f32(&x), &want, 2e-6);
}

#[test]
fn triangular_solve_rejects_mismatched_shapes() {
    let options = TriangularSolveOptions {
        left_side: true,
        lower: true,
        unit_diagonal: false,
        transpose_a: TriangularTranspose::NoTranspose,
    };
    assert!(triangular_solve(&f64s(&[3, 3], &A), &f64s(&[2, 3], &B_RIGHT), &options).is_err());
    assert!(triangular_solve(&f64s(&[3, 3], &A), &f32s(&[3, 2], &B_LEFT), &options).is_err());
    assert!(triangular_solve(&f64s(&[3, 2], &B_LEFT), &f64s(&[3, 2], &B_LEFT), &options).is_err());
}

#[test]
fn trsm_matches_lapack() {
    // "trsm side=.. uplo=.. trans=.. diag=.. f64": lapack_dtrsm_ffi called directly.
    let run = |left_side, lower, transpose, unit_diagonal| {
        let how = Trsm {
            left_side,
            lower,
            transpose,
            conjugate: false,
            unit_diagonal,
        };
        let b = if left_side {
            f64s(&[3, 2], &B_LEFT)
        } else {
            f64s(&[2, 3], &B_RIGHT)
        };
        let a = f64s(&[3, 3], &A);
        out_f64(
            &trsm(a.as_array().unwrap(), b.as_array().unwrap(), how)
                .unwrap()
                .into(),
        )
    };
    assert_close(
        &run(true, true, false, false),
        &[0.5, 1.0, 0.625, -0.5, 0.1484375, 0.78125],
        0.0,
    );
    assert_close(
        &run(true, false, true, false),
        &[0.5, 1.0, -0.125, -2.0, 0.328125, 2.125],
        0.0,
    );
    assert_close(
        &run(false, true, true, true),
        &[1.0, 2.0, 1.5, 2.0, -3.0, 9.5],
        0.0,
    );
    assert_close(
        &run(false, false, false, false),
        &[0.5, -0.125, 0.328125, 1.0, -2.0, 2.125],
        0.0,
    );
}

#[test]
fn ops_run_through_the_evaluator() {
    // cholesky then a triangular solve L x = b, as one module.
    let mut bld = ComputationBuilder::new("main");
    let a = bld.parameter(0, Shape::array(crate::ir::PrimitiveType::F64, &[3, 3]));
    let b = bld.parameter(1, Shape::array(crate::ir::PrimitiveType::F64, &[3, 2]));
    let l = bld.instr(
        Shape::array(crate::ir::PrimitiveType::F64, &[3, 3]),
        Op::Cholesky { lower: true },
        &[a],
    );
    let options = TriangularSolveOptions {
        left_side: true,
        lower: true,
        unit_diagonal: false,
        transpose_a: TriangularTranspose::NoTranspose,
    };
    let x = bld.instr(
        Shape::array(crate::ir::PrimitiveType::F64, &[3, 2]),
        Op::TriangularSolve(options),
        &[l, b],
    );
    let m = Module::new("m", bld.build(x));
    // L = [[2,0,0],[1,2,0],[0.3,0.6,l22]]: x0 = b0/2, x1 = (b1 - x0)/2 (by hand).
    let out = evaluate(
        &m,
        &[f64s(&[3, 3], &JUNK_UPPER), f64s(&[3, 2], &B_LEFT)],
        &EvalOptions::default(),
    )
    .unwrap();
    let got = out_f64(&out);
    assert_close(&got[..4], &[0.5, 1.0, 1.25, -1.0], 0.0);
}
