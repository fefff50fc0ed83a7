//! Differential tests of the native library routines: each HLO module runs compiled (on the
//! one-buffer-per-value plan, so operand and result buffers differ) and on the reference
//! interpreter, which is the oracle; results must agree (integers exactly, floats within
//! f32/f64 tolerance; sorts and scatters move or combine exact values, so any wrong order
//! shows). Each test also checks the thunk line, so a silent fallback to the reference
//! path fails it.

use crate::eval::compare::Tolerance;
use crate::ir::{ArrayLiteral, Literal, NativeType, PrimitiveType as P};
use crate::runtime::tests::{check, check_args, check_with};

fn lit<T: NativeType>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::Array(ArrayLiteral::from_vec(dims, v))
}

const F32: Tolerance = Tolerance {
    rtol: 1e-5,
    atol: 1e-6,
};

fn tol(t: P) -> Tolerance {
    Tolerance::for_type(t)
}

// ---------------------------------------------------------------------------------------
// sort

#[test]
fn sort_odd_sizes_along_each_dimension_and_column_major() {
    let text = check(
        "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[7,13]{0,1} parameter(0)
  s0 = f32[7,13]{0,1} sort(x), dimensions={0}, to_apply=lt
  s1 = f32[7,13]{1,0} sort(x), dimensions={1}, to_apply=lt
  ROOT t = (f32[7,13]{0,1}, f32[7,13]{1,0}) tuple(s0, s1)
}",
    );
    assert!(text.contains("library sort s0 (native"), "{text}");
    assert!(text.contains("library sort s1 (native"), "{text}");
}

#[test]
fn stable_argsort_keeps_equal_keys_in_index_order() {
    let hlo = "HloModule m
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = s32[2,9]{1,0} parameter(0)
  i = s32[2,9]{1,0} parameter(1)
  ROOT s = (s32[2,9]{1,0}, s32[2,9]{1,0}) sort(k, i), dimensions={1}, is_stable=true, to_apply=lt
}";
    let keys = lit(
        &[2, 9],
        vec![3i32, 1, 3, 1, 2, 1, 3, 0, 2, 5, 5, 5, 4, 4, 5, 4, 5, 5],
    );
    let iota = lit(&[2, 9], (0..18).map(|x| x % 9).collect::<Vec<i32>>());
    let text = check_args(hlo, &[keys, iota], Tolerance::EXACT);
    assert!(
        text.contains("library sort s (native, comparator lt compiled, 2 operands, stable)"),
        "{text}"
    );
}

#[test]
fn total_order_comparator_sorts_nans_zeros_and_infinities() {
    let hlo = "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY main {
  x = f32[11]{0} parameter(0)
  ROOT s = f32[11]{0} sort(x), dimensions={0}, to_apply=lt
}";
    let nan = f32::NAN;
    let x = lit(
        &[11],
        vec![
            1.0f32,
            nan,
            -0.0,
            f32::INFINITY,
            0.0,
            -nan,
            -1.0,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            2.5,
        ],
    );
    let text = check_args(hlo, &[x], F32);
    assert!(text.contains("library sort s (native"), "{text}");
}

#[test]
fn jax_float_comparator_with_bitcasts_runs_natively() {
    // The comparator XLA's optimizer leaves for jnp.sort: NaN and -0 canonicalized, then
    // a total order on the bits (`s32[] bitcast(f32[])`).
    let hlo = "HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  izero = s32[] constant(0)
  imax = s32[] constant(2147483647)
  na = pred[] compare(a, a), direction=NE
  nb = pred[] compare(b, b), direction=NE
  za = pred[] compare(a, zero), direction=EQ
  zb = pred[] compare(b, zero), direction=EQ
  sa = f32[] select(za, zero, a)
  sb = f32[] select(zb, zero, b)
  ca = f32[] select(na, nan, sa)
  cb = f32[] select(nb, nan, sb)
  ba = s32[] bitcast(ca)
  bb = s32[] bitcast(cb)
  xa = s32[] xor(imax, ba)
  xb = s32[] xor(imax, bb)
  la = pred[] compare(ba, izero), direction=LT
  lb = pred[] compare(bb, izero), direction=LT
  ka = s32[] select(la, xa, ba)
  kb = s32[] select(lb, xb, bb)
  ROOT r = pred[] compare(ka, kb), direction=LT
}
ENTRY main {
  x = f32[3,6]{1,0} parameter(0)
  ROOT s = f32[3,6]{1,0} sort(x), dimensions={1}, is_stable=true, to_apply=cmp
}";
    let nan = f32::NAN;
    let x = lit(
        &[3, 6],
        vec![
            3.0f32,
            nan,
            -0.0,
            0.0,
            -2.0,
            1.0, //
            f32::INFINITY,
            -1.0,
            nan,
            -nan,
            0.5,
            0.25, //
            1.0,
            1.0,
            -1.0,
            -1.0,
            0.0,
            -0.0,
        ],
    );
    let text = check_args(hlo, &[x], F32);
    assert!(text.contains("library sort s (native"), "{text}");
}

#[test]
fn descending_three_operand_sort_with_tie_breaking_key() {
    let text = check_with(
        "HloModule m
cmp {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = u8[] parameter(2)
  b1 = u8[] parameter(3)
  a2 = bf16[] parameter(4)
  b2 = bf16[] parameter(5)
  gt = pred[] compare(a0, b0), direction=GT
  eq = pred[] compare(a0, b0), direction=EQ
  lt1 = pred[] compare(a1, b1), direction=LT
  tie = pred[] and(eq, lt1)
  ROOT r = pred[] or(gt, tie)
}
ENTRY main {
  k = s32[4,33]{1,0} parameter(0)
  c = s32[] constant(5)
  cb = s32[4,33]{1,0} broadcast(c), dimensions={}
  km = s32[4,33]{1,0} remainder(k, cb)
  u = u8[4,33]{1,0} parameter(1)
  v = bf16[4,33]{1,0} parameter(2)
  ROOT s = (s32[4,33]{1,0}, u8[4,33]{1,0}, bf16[4,33]{1,0}) sort(km, u, v), dimensions={1}, to_apply=cmp
}",
        3,
        tol(P::BF16),
    );
    assert!(text.contains("3 operands"), "{text}");
}

#[test]
fn f64_sort_of_a_large_array_splits_slices_over_threads() {
    let text = check_with(
        "HloModule m
lt {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = f64[64,301]{0,1} parameter(0)
  ROOT s = f64[64,301]{1,0} sort(x), dimensions={1}, to_apply=lt
}",
        11,
        tol(P::F64),
    );
    assert!(text.contains("library sort s (native"), "{text}");
}

// ---------------------------------------------------------------------------------------
// scatter

const SCATTER_ROWS: &str = "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";

/// A row scatter whose combiner `f(a, b)` has the body `combiner` (which defines `ROOT`).
fn scatter_rows(combiner: &str, op: &str) -> String {
    format!(
        "HloModule m
f {{
  {combiner}
}}
ENTRY main {{
  x = f32[6,5]{{1,0}} parameter(0)
  i = s32[7,1]{{1,0}} parameter(1)
  u = f32[7,5]{{1,0}} parameter(2)
  ROOT s = f32[6,5]{{{op}}} scatter(x, i, u), {SCATTER_ROWS}, to_apply=f
}}"
    )
}

fn scatter_args() -> Vec<Literal> {
    let x = lit(&[6, 5], (0..30).map(|v| v as f32 * 0.5 - 3.0).collect());
    // Duplicates (1, 1, 4) and out-of-bounds rows (-1, 6, 100) that must be skipped.
    let i = lit(&[7, 1], vec![1i32, 4, 1, -1, 6, 4, 100]);
    let u = lit(&[7, 5], (0..35).map(|v| (v as f32).sin() * 4.0).collect());
    vec![x, i, u]
}

#[test]
fn scatter_add_with_duplicate_and_out_of_bounds_indices() {
    let text = check_args(
        &scatter_rows(
            "a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)",
            "1,0",
        ),
        &scatter_args(),
        F32,
    );
    assert!(
        text.contains("library scatter s (native, combiner f compiled)"),
        "{text}"
    );
}

#[test]
fn scatter_with_order_dependent_combiners() {
    // Replace (last write wins) and subtract: duplicates must apply in update order.
    let replace = "a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)";
    let subtract =
        "a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] subtract(a, b)";
    check_args(&scatter_rows(replace, "1,0"), &scatter_args(), F32);
    check_args(&scatter_rows(subtract, "0,1"), &scatter_args(), F32);
}

#[test]
fn scatter_two_dimensional_windows_with_index_vectors() {
    let hlo = "HloModule m
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] multiply(a, b)
}
ENTRY main {
  x = s32[5,7]{0,1} parameter(0)
  i = s64[2,4]{1,0} parameter(1)
  u = s32[4,2,3]{2,1,0} parameter(2)
  ROOT s = s32[5,7]{1,0} scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=0, to_apply=f
}";
    // Index vectors are the columns of i: (col, row) starts (2,0), (4,3) (partly outside:
    // skipped), (0,3), (2,0) again.
    let x = lit(&[5, 7], (0..35).map(|v| v - 10).collect::<Vec<i32>>());
    let i = lit(&[2, 4], vec![2i64, 4, 0, 2, 0, 3, 3, 0]);
    let u = lit(&[4, 2, 3], (0..24).map(|v| v % 5 - 2).collect::<Vec<i32>>());
    let text = check_args(hlo, &[x, i, u], Tolerance::EXACT);
    assert!(text.contains("library scatter s (native"), "{text}");
}

#[test]
fn variadic_scatter_combines_both_operands() {
    let hlo = "HloModule m
f {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  s = f32[] add(a, c)
  m = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(s, m)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  y = s32[8]{0} parameter(1)
  i = s32[5]{0} parameter(2)
  u = f32[5]{0} parameter(3)
  v = s32[5]{0} parameter(4)
  ROOT s = (f32[8]{0}, s32[8]{0}) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f
}";
    let args = vec![
        lit(&[8], (0..8).map(|v| v as f32).collect()),
        lit(&[8], (0..8).map(|v| 10 - v).collect::<Vec<i32>>()),
        lit(&[5], vec![3i32, 7, 3, 8, 0]),
        lit(&[5], vec![0.5f32, 1.5, 2.5, 3.5, 4.5]),
        lit(&[5], vec![9i32, -1, 20, 4, 2]),
    ];
    let text = check_args(hlo, &args, F32);
    assert!(text.contains("library scatter s (native"), "{text}");
}

// ---------------------------------------------------------------------------------------
// select-and-scatter

#[test]
fn select_and_scatter_max_pool_gradient_with_padding() {
    let text = check(
        "HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,7,7,3]{3,2,1,0} parameter(0)
  g = f32[2,4,4,3]{3,2,1,0} parameter(1)
  z = f32[] constant(0)
  ROOT s = f32[2,7,7,3]{3,2,1,0} select-and-scatter(x, g, z), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge, scatter=add
}",
    );
    assert!(
        text.contains("library select-and-scatter s (native, select ge and scatter add compiled)"),
        "{text}"
    );
}

#[test]
fn select_and_scatter_ties_pick_the_first_position() {
    // Integer operand full of ties, a column-major layout and a base dilation.
    let hlo = "HloModule m
ge {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
ENTRY main {
  x = s32[5,6]{0,1} parameter(0)
  g = s32[4,3]{1,0} parameter(1)
  z = s32[] constant(7)
  ROOT s = s32[5,6]{0,1} select-and-scatter(x, g, z), window={size=2x3 stride=1x2 pad=0_0x1_0}, select=ge, scatter=add
}";
    let x = lit(&[5, 6], (0..30).map(|v| (v * 7) % 3).collect::<Vec<i32>>());
    let g = lit(&[4, 3], (1..13).collect::<Vec<i32>>());
    let text = check_args(hlo, &[x, g], Tolerance::EXACT);
    assert!(
        text.contains("library select-and-scatter s (native"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// LAPACK

/// `n×n` symmetric positive definite matrices `M Mᵀ + n I` (row-major), `batch` of them.
fn spd(batch: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for b in 0..batch {
        let m: Vec<f64> = (0..n * n)
            .map(|k| ((k * 7 + b * 3) % 11) as f64 / 5.0 - 1.0)
            .collect();
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum();
                out.push(dot + if i == j { n as f64 } else { 0.0 });
            }
        }
    }
    out
}

fn potrf_hlo(t: &str, target: &str, uplo: u8, layout: &str) -> String {
    format!(
        "HloModule m
ENTRY main {{
  a = {t}[2,5,5]{{{layout}}} parameter(0)
  ROOT c = ({t}[2,5,5]{{{layout}}}, s32[2]{{0}}) custom-call(a), custom_call_target=\"{target}\", operand_layout_constraints={{{t}[2,5,5]{{{layout}}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{uplo = {uplo} : ui8}}
}}"
    )
}

#[test]
fn potrf_lower_and_upper_f32_and_f64() {
    let a64 = spd(2, 5);
    for (t, target) in [("f32", "lapack_spotrf_ffi"), ("f64", "lapack_dpotrf_ffi")] {
        let a = if t == "f32" {
            lit(&[2, 5, 5], a64.iter().map(|&x| x as f32).collect())
        } else {
            lit(&[2, 5, 5], a64.clone())
        };
        for uplo in [b'L', b'U'] {
            // Column-major within the matrix as JAX pins it, and row-major (LAPACK then sees
            // the transpose and the triangle flips).
            for layout in ["1,2,0", "2,1,0"] {
                let hlo = potrf_hlo(t, target, uplo, layout);
                let text = check_args(&hlo, std::slice::from_ref(&a), tol(P::F32));
                assert!(text.contains(&format!("native {t} potrf")), "{text}");
            }
        }
    }
}

#[test]
fn potrf_reports_the_failing_pivot_in_info() {
    // The second matrix is not positive definite (a negative pivot at row 3).
    let mut a = spd(2, 5);
    a[25 + 2 * 5 + 2] = -40.0;
    let a = lit(&[2, 5, 5], a.iter().map(|&x| x as f32).collect());
    let text = check_args(
        &potrf_hlo("f32", "lapack_spotrf_ffi", b'L', "1,2,0"),
        &[a],
        tol(P::F32),
    );
    assert!(text.contains("native f32 potrf, lower"), "{text}");
}

fn trsm_hlo(t: &str, side: u8, uplo: u8, trans: u8, diag: u8) -> String {
    let target = if t == "f32" {
        "lapack_strsm_ffi"
    } else {
        "lapack_dtrsm_ffi"
    };
    let (m, n) = (4, 3);
    let k = if side == b'L' { m } else { n };
    format!(
        "HloModule m
ENTRY main {{
  a = {t}[{k},{k}]{{0,1}} parameter(0)
  b = {t}[{m},{n}]{{0,1}} parameter(1)
  ROOT x = {t}[{m},{n}]{{0,1}} custom-call(a, b), custom_call_target=\"{target}\", operand_layout_constraints={{{t}[{k},{k}]{{0,1}}, {t}[{m},{n}]{{0,1}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{diag = {diag} : ui8, side = {side} : ui8, trans_x = {trans} : ui8, uplo = {uplo} : ui8}}
}}"
    )
}

#[test]
fn trsm_every_side_triangle_transpose_and_diagonal() {
    let mut count = 0;
    for t in ["f32", "f64"] {
        for side in [b'L', b'R'] {
            for uplo in [b'L', b'U'] {
                for trans in [b'N', b'T'] {
                    for diag in [b'N', b'U'] {
                        let k = if side == b'L' { 4 } else { 3 };
                        // Well-conditioned: a dominant diagonal.
                        let a: Vec<f64> = (0..k * k)
                            .map(|e| {
                                let (i, j) = (e / k, e % k);
                                if i == j {
                                    3.0 + i as f64
                                } else {
                                    ((e * 5) % 7) as f64 / 7.0 - 0.5
                                }
                            })
                            .collect();
                        let b: Vec<f64> = (0..12).map(|e| (e as f64 * 0.7).cos()).collect();
                        let args = if t == "f32" {
                            vec![
                                lit(&[k as i64, k as i64], a.iter().map(|&x| x as f32).collect()),
                                lit(&[4, 3], b.iter().map(|&x| x as f32).collect()),
                            ]
                        } else {
                            vec![lit(&[k as i64, k as i64], a), lit(&[4, 3], b)]
                        };
                        let text =
                            check_args(&trsm_hlo(t, side, uplo, trans, diag), &args, tol(P::F32));
                        assert!(text.contains(&format!("native {t} trsm")), "{text}");
                        count += 1;
                    }
                }
            }
        }
    }
    assert_eq!(count, 32);
}

#[test]
fn complex_potrf_and_trsm_are_native() {
    let text = check_with(
        "HloModule m
ENTRY main {
  a = c64[3,3]{0,1} parameter(0)
  b = c128[2,3,2]{1,2,0} parameter(1)
  t = c128[2,3,3]{1,2,0} parameter(2)
  c = (c64[3,3]{0,1}, s32[]) custom-call(a), custom_call_target=\"lapack_cpotrf_ffi\", operand_layout_constraints={c64[3,3]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
  x = c128[2,3,2]{1,2,0} custom-call(t, b), custom_call_target=\"lapack_ztrsm_ffi\", operand_layout_constraints={c128[2,3,3]{1,2,0}, c128[2,3,2]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8}
  ROOT r = ((c64[3,3]{0,1}, s32[]), c128[2,3,2]{1,2,0}) tuple(c, x)
}",
        1,
        tol(P::F32),
    );
    assert!(
        text.contains("library custom-call c (native c64 potrf, lower"),
        "{text}"
    );
    assert!(
        text.contains("library custom-call x (native c128 trsm, left side, upper, transposed"),
        "{text}"
    );
}

/// Every LAPACK routine jax emits, batched, with results in layouts other than the
/// column-major ones JAX pins (so the buffer reads and writes are exercised), against the
/// interpreter on the same routines.
#[test]
fn every_lapack_routine_is_native_in_any_result_layout() {
    for (t, s, c) in [
        ("f32", 's', "c64"),
        ("f64", 'd', "c128"),
        ("c64", 'c', "c64"),
        ("c128", 'z', "c128"),
    ] {
        let real = match t {
            "c64" => "f32",
            "c128" => "f64",
            r => r,
        };
        let (orgqr, syevd) = if t.starts_with('c') {
            ("ungqr", "heevd")
        } else {
            ("orgqr", "syevd")
        };
        let geev = if t.starts_with('c') {
            format!("({t}[2,3]{{0,1}}, {c}[2,3,3]{{2,1,0}}, {c}[2,3,3]{{1,2,0}}, s32[2]{{0}})")
        } else {
            format!(
                "({t}[2,3]{{0,1}}, {t}[2,3]{{1,0}}, {c}[2,3,3]{{2,1,0}}, {c}[2,3,3]{{1,2,0}}, s32[2]{{0}})"
            )
        };
        let hlo = format!(
            "HloModule m
ENTRY main {{
  a = {t}[2,4,3]{{1,2,0}} parameter(0)
  sq = {t}[2,3,3]{{2,1,0}} parameter(1)
  dl = {t}[2,3]{{1,0}} parameter(2)
  b = {t}[2,3,2]{{0,2,1}} parameter(3)
  lu = ({t}[2,4,3]{{2,1,0}}, s32[2,3]{{0,1}}, s32[2]{{0}}) custom-call(a), custom_call_target=\"lapack_{s}getrf_ffi\", operand_layout_constraints={{{t}[2,4,3]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{}}
  qr = ({t}[2,4,3]{{1,2,0}}, {t}[2,3]{{0,1}}) custom-call(a), custom_call_target=\"lapack_{s}geqrf_ffi\", operand_layout_constraints={{{t}[2,4,3]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{}}
  r = {t}[2,4,3]{{1,2,0}} get-tuple-element(qr), index=0
  tau = {t}[2,3]{{0,1}} get-tuple-element(qr), index=1
  q = {t}[2,4,3]{{2,1,0}} custom-call(r, tau), custom_call_target=\"lapack_{s}{orgqr}_ffi\", operand_layout_constraints={{{t}[2,4,3]{{1,2,0}}, {t}[2,3]{{1,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{}}
  svd = ({t}[2,4,3]{{1,2,0}}, {real}[2,3]{{1,0}}, {t}[2,4,4]{{2,1,0}}, {t}[2,3,3]{{1,2,0}}, s32[2]{{0}}) custom-call(a), custom_call_target=\"lapack_{s}gesdd_ffi\", operand_layout_constraints={{{t}[2,4,3]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{mode = 65 : ui8}}
  eigh = ({t}[2,3,3]{{2,1,0}}, {real}[2,3]{{1,0}}, s32[2]{{0}}) custom-call(sq), custom_call_target=\"lapack_{s}{syevd}_ffi\", operand_layout_constraints={{{t}[2,3,3]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{mode = 86 : ui8, uplo = 85 : ui8}}
  eig = {geev} custom-call(sq), custom_call_target=\"lapack_{s}geev_ffi\", operand_layout_constraints={{{t}[2,3,3]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{compute_left = 86 : ui8, compute_right = 86 : ui8}}
  gt = ({t}[2,3]{{1,0}}, {t}[2,3]{{0,1}}, {t}[2,3]{{1,0}}, {t}[2,3,2]{{2,1,0}}, s32[2]{{0}}) custom-call(dl, dl, dl, b), custom_call_target=\"lapack_{s}gtsv_ffi\", operand_layout_constraints={{{t}[2,3]{{1,0}}, {t}[2,3]{{1,0}}, {t}[2,3]{{1,0}}, {t}[2,3,2]{{1,2,0}}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{}}
  ROOT out = (({t}[2,4,3]{{2,1,0}}, s32[2,3]{{0,1}}, s32[2]{{0}}), {t}[2,4,3]{{2,1,0}}, ({t}[2,4,3]{{1,2,0}}, {real}[2,3]{{1,0}}, {t}[2,4,4]{{2,1,0}}, {t}[2,3,3]{{1,2,0}}, s32[2]{{0}}), ({t}[2,3,3]{{2,1,0}}, {real}[2,3]{{1,0}}, s32[2]{{0}}), {geev}, ({t}[2,3]{{1,0}}, {t}[2,3]{{0,1}}, {t}[2,3]{{1,0}}, {t}[2,3,2]{{2,1,0}}, s32[2]{{0}})) tuple(lu, q, svd, eigh, eig, gt)
}}"
        );
        let text = check_with(&hlo, 3, tol(P::F32));
        for routine in ["getrf", "geqrf", "orgqr", "gesdd", "syevd", "geev", "gtsv"] {
            assert!(
                text.contains(&format!("native {t} {routine}")),
                "{routine}: {text}"
            );
        }
    }
}

#[test]
fn zero_size_lapack_operands_give_empty_results() {
    let text = check_with(
        "HloModule m
ENTRY main {
  a = f32[0,3,3]{1,2,0} parameter(0)
  b = f32[2,0,0]{1,2,0} parameter(1)
  lu = (f32[0,3,3]{1,2,0}, s32[0,3]{1,0}, s32[0]{0}) custom-call(a), custom_call_target=\"lapack_sgetrf_ffi\", operand_layout_constraints={f32[0,3,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  e = (f32[2,0,0]{1,2,0}, f32[2,0]{1,0}, s32[2]{0}) custom-call(b), custom_call_target=\"lapack_ssyevd_ffi\", operand_layout_constraints={f32[2,0,0]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}
  ROOT t = ((f32[0,3,3]{1,2,0}, s32[0,3]{1,0}, s32[0]{0}), (f32[2,0,0]{1,2,0}, f32[2,0]{1,0}, s32[2]{0})) tuple(lu, e)
}",
        1,
        Tolerance::EXACT,
    );
    assert!(text.contains("native f32 getrf"), "{text}");
}

#[test]
fn an_unknown_custom_call_is_refused_at_compile_time() {
    let module = crate::front::hlo_text::parse_module(
        "HloModule m
ENTRY main {
  a = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} custom-call(a), custom_call_target=\"my_kernel\"
}",
        "m.hlo",
    )
    .unwrap()
    .module;
    let e = crate::compiler::compile(module, &crate::compiler::CompileOptions::default())
        .err()
        .expect("compiling an unknown custom call fails");
    assert!(
        e.to_string()
            .ends_with("custom call 'my_kernel' is not supported (compiled backend)"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// TopK

fn top_k_hlo(t: &str, direction: &str, layout: &str) -> String {
    format!(
        "HloModule m
cmp {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = pred[] compare(a, b), direction={direction}
}}
ENTRY main {{
  x = {t}[3,7]{{{layout}}} parameter(0)
  ROOT c = ({t}[3,4]{{{layout}}}, s32[3,4]{{1,0}}) custom-call(x), custom_call_target=\"TopK\", called_computations={{cmp}}
}}"
    )
}

#[test]
fn top_k_largest_with_nans_ties_and_signed_zeros() {
    let nan = f32::NAN;
    let x = lit(
        &[3, 7],
        vec![
            1.0f32,
            3.0,
            3.0,
            -nan,
            2.0,
            3.0,
            0.5, //
            -0.0,
            0.0,
            nan,
            f32::INFINITY,
            -1.0,
            0.0,
            -0.0, //
            5.0,
            5.0,
            5.0,
            5.0,
            5.0,
            5.0,
            5.0,
        ],
    );
    for layout in ["1,0", "0,1"] {
        let text = check_args(
            &top_k_hlo("f32", "GT", layout),
            std::slice::from_ref(&x),
            F32,
        );
        assert!(
            text.contains("library custom-call c (native TopK, largest 4 of f32)"),
            "{text}"
        );
    }
}

#[test]
fn top_k_smallest_integers() {
    let x = lit(
        &[3, 7],
        (0..21).map(|v| (v * 5) % 4 - 2).collect::<Vec<i32>>(),
    );
    let text = check_args(&top_k_hlo("s32", "LT", "1,0"), &[x], Tolerance::EXACT);
    assert!(text.contains("native TopK, smallest 4 of s32"), "{text}");
}

#[test]
fn topk_op_runs_natively() {
    let text = check_with(
        "HloModule m
ENTRY main {
  x = bf16[5,9]{0,1} parameter(0)
  ROOT t = (bf16[5,3]{1,0}, s32[5,3]{1,0}) topk(x), k=3, largest=false
}",
        4,
        tol(P::BF16),
    );
    assert!(
        text.contains("library topk t (native TopK, smallest 3 of bf16)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// integer dot

#[test]
fn integer_dots_wrap_and_convert_like_the_interpreter() {
    // s8 x u8 -> s16 with wrap-around, batch dims, two contracting dims, column-major.
    let text = check_with(
        "HloModule m
ENTRY main {
  a = s8[3,5,4,2]{0,1,2,3} parameter(0)
  b = u8[4,3,2,6]{3,2,1,0} parameter(1)
  ROOT d = s16[3,5,6]{0,2,1} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2,3}, rhs_contracting_dims={0,2}
}",
        5,
        Tolerance::EXACT,
    );
    assert!(
        text.contains("library dot d (native loop, s8 x u8 -> s16)"),
        "{text}"
    );
    let text = check_with(
        "HloModule m
ENTRY main {
  a = s64[7,9]{1,0} parameter(0)
  b = s32[9]{0} parameter(1)
  ROOT d = u32[7]{0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        6,
        Tolerance::EXACT,
    );
    assert!(text.contains("native loop, s64 x s32 -> u32"), "{text}");
}

#[test]
fn complex_dot_runs_the_native_loop() {
    let text = check_with(
        "HloModule m
ENTRY main {
  a = c64[2,3,5]{2,1,0} parameter(0)
  b = c64[2,5,4]{1,2,0} parameter(1)
  ROOT d = c64[2,3,4]{2,1,0} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}",
        8,
        tol(P::F32),
    );
    assert!(
        text.contains("library dot d (native loop, c64 x c64 -> c64)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// fft: rustfft against the interpreter's plain f64 DFT

/// An f32 transform's error grows with the size of its sums (`|x| <= 1` inputs, outputs
/// up to `n`): a few f32 ulps of `n`, relative and absolute.
const FFT_F32: Tolerance = Tolerance {
    rtol: 1e-5,
    atol: 1e-5,
};
/// The same for f64.
const FFT_F64: Tolerance = Tolerance {
    rtol: 1e-12,
    atol: 1e-12,
};

/// Runs one fft module (seeded inputs) and checks its thunk is the native routine.
fn check_fft(hlo: &str, tolerance: Tolerance, line: &str) {
    let text = check_with(hlo, 11, tolerance);
    assert!(text.contains(line), "{text}");
}

#[test]
fn fft_and_ifft_c64_batched_odd_and_prime_lengths_column_major() {
    check_fft(
        "HloModule m
ENTRY main {
  x = c64[3,7]{0,1} parameter(0)
  f = c64[3,7]{1,0} fft(x), fft_type=FFT, fft_length={7}
  y = c64[2,17]{1,0} parameter(1)
  g = c64[2,17]{0,1} fft(y), fft_type=IFFT, fft_length={17}
  ROOT t = (c64[3,7]{1,0}, c64[2,17]{0,1}) tuple(f, g)
}",
        FFT_F32,
        "library fft g (native rustfft IFFT 17 of c64)",
    );
}

#[test]
fn fft_c128_over_three_dimensions_with_a_batch() {
    check_fft(
        "HloModule m
ENTRY main {
  x = c128[2,3,4,5]{3,2,1,0} parameter(0)
  ROOT f = c128[2,3,4,5]{1,3,2,0} fft(x), fft_type=FFT, fft_length={3,4,5}
}",
        FFT_F64,
        "library fft f (native rustfft FFT 3x4x5 of c128)",
    );
}

#[test]
fn ifft_two_dimensions_length_one_and_large() {
    check_fft(
        "HloModule m
ENTRY main {
  x = c128[1,256]{1,0} parameter(0)
  ROOT f = c128[1,256]{1,0} fft(x), fft_type=IFFT, fft_length={1,256}
}",
        FFT_F64,
        "library fft f (native rustfft IFFT 1x256 of c128)",
    );
}

#[test]
fn rfft_f32_odd_and_f64_three_dimensions() {
    check_fft(
        "HloModule m
ENTRY main {
  x = f32[4,9]{1,0} parameter(0)
  ROOT f = c64[4,5]{1,0} fft(x), fft_type=RFFT, fft_length={9}
}",
        FFT_F32,
        "library fft f (native rustfft RFFT 9 of f32)",
    );
    check_fft(
        "HloModule m
ENTRY main {
  x = f64[2,3,4,6]{0,1,2,3} parameter(0)
  ROOT f = c128[2,3,4,4]{3,2,1,0} fft(x), fft_type=RFFT, fft_length={3,4,6}
}",
        FFT_F64,
        "library fft f (native rustfft RFFT 3x4x6 of f64)",
    );
}

#[test]
fn irfft_even_and_odd_lengths_with_nonzero_imaginary_edges() {
    // Random spectra: the imaginary parts of X[0] and X[n/2] are not zero, and a c2r
    // transform must ignore them as the interpreter's Hermitian extension does.
    check_fft(
        "HloModule m
ENTRY main {
  x = c64[2,3,5]{2,1,0} parameter(0)
  ROOT f = f32[2,3,8]{2,1,0} fft(x), fft_type=IRFFT, fft_length={3,8}
}",
        FFT_F32,
        "library fft f (native rustfft IRFFT 3x8 of c64)",
    );
    check_fft(
        "HloModule m
ENTRY main {
  x = c128[4,2,4]{0,1,2} parameter(0)
  ROOT f = f64[4,2,7]{2,1,0} fft(x), fft_type=IRFFT, fft_length={2,7}
}",
        FFT_F64,
        "library fft f (native rustfft IRFFT 2x7 of c128)",
    );
}

#[test]
fn fft_of_a_zero_size_batch_writes_nothing() {
    check_fft(
        "HloModule m
ENTRY main {
  x = c64[0,4]{1,0} parameter(0)
  ROOT f = c64[0,4]{1,0} fft(x), fft_type=FFT, fft_length={4}
}",
        FFT_F32,
        "library fft f (native rustfft FFT 4 of c64)",
    );
}

// ---------------------------------------------------------------------------------------
// integer and complex convolutions, mixed real/complex dots

#[test]
fn integer_convolution_with_groups_padding_dilations_and_reversal_is_exact() {
    let text = check_with(
        "HloModule m
ENTRY main {
  x = s8[2,7,6,4]{3,2,1,0} parameter(0)
  k = s8[3,2,2,6]{0,1,2,3} parameter(1)
  ROOT c = s32[2,3,9,6]{1,3,2,0} convolution(x, k), window={size=3x2 stride=2x1 pad=1_2x0_-1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=2
}",
        12,
        Tolerance::EXACT,
    );
    assert!(
        text.contains("library convolution c (native loop, s8 x s8 -> s32)"),
        "{text}"
    );
}

#[test]
fn narrow_unsigned_and_wide_signed_convolutions_wrap_as_xla() {
    // u8 products summed in u8 wrap; s64 with a batch group count.
    let text = check_with(
        "HloModule m
ENTRY main {
  x = u8[1,9,5]{2,1,0} parameter(0)
  k = u8[3,5,2]{2,1,0} parameter(1)
  a = u8[1,7,2]{2,1,0} convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f
  y = s64[4,6,3]{0,1,2} parameter(2)
  w = s64[2,3,4]{2,1,0} parameter(3)
  b = s64[2,5,4]{2,1,0} convolution(y, w), window={size=2}, dim_labels=b0f_0io->b0f, batch_group_count=2
  ROOT t = (u8[1,7,2]{2,1,0}, s64[2,5,4]{2,1,0}) tuple(a, b)
}",
        13,
        Tolerance::EXACT,
    );
    assert!(text.contains("native loop, u8 x u8 -> u8"), "{text}");
    assert!(text.contains("native loop, s64 x s64 -> s64"), "{text}");
}

#[test]
fn complex_convolutions_and_a_real_kernel_agree_with_the_interpreter() {
    let text = check_with(
        "HloModule m
ENTRY main {
  x = c64[2,3,8]{2,1,0} parameter(0)
  k = c64[6,3,3]{2,1,0} parameter(1)
  a = c64[2,6,6]{2,1,0} convolution(x, k), window={size=3 pad=1_1 rhs_dilate=2}, dim_labels=bf0_oi0->bf0
  y = c128[1,5,5,2]{3,2,1,0} parameter(2)
  w = f64[2,2,2,3]{3,2,1,0} parameter(3)
  b = c128[1,4,4,3]{3,2,1,0} convolution(y, w), window={size=2x2}, dim_labels=b01f_01io->b01f
  ROOT t = (c64[2,6,6]{2,1,0}, c128[1,4,4,3]{3,2,1,0}) tuple(a, b)
}",
        14,
        Tolerance::EXACT,
    );
    assert!(text.contains("native loop, c64 x c64 -> c64"), "{text}");
    assert!(text.contains("native loop, c128 x f64 -> c128"), "{text}");
}

#[test]
fn mixed_real_and_complex_dot_runs_the_native_loop() {
    let text = check_with(
        "HloModule m
ENTRY main {
  a = f32[3,5]{0,1} parameter(0)
  b = c64[5,4]{1,0} parameter(1)
  ROOT d = c64[3,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        15,
        Tolerance::EXACT,
    );
    assert!(
        text.contains("library dot d (native loop, f32 x c64 -> c64)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// transposed dot operands

/// Every operand layout jax's backward passes give a dot, as one GEMM reading its
/// operands through their strides (no transpose or copy kernel), against the interpreter:
/// `g @ W.T` (rhs contracting its minor dimension), `X.T @ g` (lhs contracting its major
/// one), both, batch dimensions leading and not, and the weight gradient that contracts
/// batch and time at once; in f32, f64 and bf16. The bigger shapes take the threaded GEMM
/// and, for a transposed rhs, its column-major destination.
#[test]
fn dots_read_transposed_operands_through_strides() {
    let layouts: &[(&str, &str, &str, &str)] = &[
        // (lhs dims, rhs dims, dims, result dims); the sizes are M, N, K, B.
        (
            "[M,K]",
            "[N,K]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={1}",
            "[M,N]",
        ),
        (
            "[K,M]",
            "[K,N]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
            "[M,N]",
        ),
        (
            "[K,M]",
            "[N,K]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={1}",
            "[M,N]",
        ),
        (
            "[B,M,K]",
            "[B,N,K]",
            "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}",
            "[B,M,N]",
        ),
        (
            "[B,K,M]",
            "[B,K,N]",
            "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}",
            "[B,M,N]",
        ),
        (
            "[M,B,K]",
            "[N,B,K]",
            "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}",
            "[B,M,N]",
        ),
        (
            "[B,K,M]",
            "[B,K,N]",
            "lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}",
            "[M,N]",
        ),
    ];
    let row_major = |dims: &str| {
        let rank = dims.matches(',').count() + 1;
        let m2m: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
        format!("{{{}}}", m2m.join(","))
    };
    // (M, N, K, B): a small GEMM, one big enough to thread whose transposed rhs costs
    // more to gather than the column-major destination costs to copy (the lhs is then
    // transposed into column-major first), and one whose many rows keep the destination
    // (a transposed rhs is then transposed into row-major first; ragged 8 x 8 blocks).
    for &(m, n, k, b) in &[(5, 7, 9, 2), (48, 300, 200, 2), (300, 52, 203, 2)] {
        let sizes = |dims: &str| {
            dims.replace('M', &m.to_string())
                .replace('N', &n.to_string())
                .replace('K', &k.to_string())
                .replace('B', &b.to_string())
        };
        for ty in ["f32", "f64", "bf16"] {
            for (seed, (ld, rd, dn, od)) in layouts.iter().enumerate() {
                let (a, b, d) = (
                    format!("{}{}", sizes(ld), row_major(ld)),
                    format!("{}{}", sizes(rd), row_major(rd)),
                    format!("{}{}", sizes(od), row_major(od)),
                );
                let hlo = format!(
                    "HloModule m
ENTRY main {{
  a = {ty}{a} parameter(0)
  b = {ty}{b} parameter(1)
  ROOT d = {ty}{d} dot(a, b), {dn}
}}"
                );
                let t = match ty {
                    "f32" => P::F32,
                    "f64" => P::F64,
                    _ => P::BF16,
                };
                let text = check_with(&hlo, seed as u64 + 11, tol(t));
                assert!(
                    text.contains(&format!("dot d (gemm, {ty} x {ty} -> {ty})")),
                    "{hlo}\n{text}"
                );
                assert!(
                    !text.contains("kernel"),
                    "a copy feeds the dot:\n{hlo}\n{text}"
                );
            }
        }
    }
}
