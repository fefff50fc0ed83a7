//! Vectorized tiled transposes (`vector_transpose.rs`) against the interpreter: f32 and f64
//! transposes with sizes that are and are not multiples of the block and the tile, rank-3
//! permutations, transposes combined with elementwise ops, broadcasts (along the vector,
//! along the tiled dimension, scalars), compare/select, and fusions that must fall back to
//! the scalar tiled loops. Each case also checks which path the kernel took, so a case
//! meant for the block path cannot silently pass through the scalar one.

use super::harness::check_hlo;
use crate::codegen::{CodegenOptions, compile_kernels};

/// Which loop the kernel of a case must contain.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    /// Vector blocks with an in-register transpose (`shuffle`).
    Shuffled,
    /// No vectors at all (the scalar tiled loops).
    Scalar,
}

/// A module whose entry is one kLoop fusion with parameters `params` (shape texts, named
/// `p0, p1, ...`), the instruction lines `body`, and `ROOT r = root`.
fn module(params: &[&str], body: &str, root: &str) -> String {
    let mut fused = String::new();
    let mut entry = String::new();
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        fused.push_str(&format!("  p{i} = {p} parameter({i})\n"));
        entry.push_str(&format!("  a{i} = {p} parameter({i})\n"));
        args.push(format!("a{i}"));
    }
    let result = root.split(' ').next().unwrap();
    format!(
        "HloModule m\n\nfused {{\n{fused}{body}  ROOT r = {root}\n}}\n\nENTRY main {{\n{entry}  ROOT f = {result} fusion({}), kind=kLoop, calls=fused\n}}\n",
        args.join(", ")
    )
}

/// Runs the differential check and asserts the kernel took `path`.
fn check(text: &str, seed: u64, path: Path) {
    check_hlo(text, seed);
    let m = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let kernels = compile_kernels(
        &m,
        &CodegenOptions {
            keep_artifacts: true,
            block_math: true,
            no_fp_contraction: false,
        },
    )
    .unwrap();
    let clif = &kernels.kernels[0].artifacts.clif_no_opt;
    let vectors = clif.contains("f32x4") || clif.contains("f64x2");
    let got = if vectors && clif.contains("shuffle") {
        Path::Shuffled
    } else if !vectors {
        Path::Scalar
    } else {
        panic!("vectors without shuffles\n{text}\n{clif}")
    };
    assert_eq!(got, path, "kernel path of\n{text}\n{clif}");
}

/// Plain 2-D transposes: blocks plus edges of every kind (not multiples of 4, of the tile,
/// fewer than 4 along one dimension).
#[test]
fn transposes_2d() {
    let sizes = [
        (64, 64),
        (37, 45),
        (4, 1000),
        (1000, 4),
        (33, 8),
        (2048, 6),
        (5, 3),
        (3, 70),
    ];
    for (k, &(a, b)) in sizes.iter().enumerate() {
        for t in ["f32", "f64"] {
            let lanes = if t == "f32" { 4 } else { 2 };
            let path = if a >= lanes && b >= lanes {
                Path::Shuffled
            } else {
                Path::Scalar
            };
            let text = module(
                &[&format!("{t}[{a},{b}]{{1,0}}")],
                "",
                &format!("{t}[{b},{a}]{{1,0}} transpose(p0), dimensions={{1,0}}"),
            );
            check(&text, 3100 + k as u64, path);
        }
    }
}

/// transpose_add's fusion (`out{0,1} = transpose(y) + x` as a copy to the output layout)
/// and the same with the output in the other layout.
#[test]
fn transpose_add() {
    for (k, (a, b)) in [(64, 64), (37, 45), (128, 36)].into_iter().enumerate() {
        let body = format!(
            "  t = f32[{a},{b}]{{1,0}} transpose(p0), dimensions={{1,0}}\n  s = f32[{a},{b}]{{1,0}} add(t, p1)\n"
        );
        let text = module(
            &[
                &format!("f32[{b},{a}]{{1,0}}"),
                &format!("f32[{a},{b}]{{1,0}}"),
            ],
            &body,
            &format!("f32[{a},{b}]{{0,1}} copy(s)"),
        );
        check(&text, 3200 + k as u64, Path::Shuffled);
        let text = module(
            &[
                &format!("f32[{b},{a}]{{1,0}}"),
                &format!("f32[{a},{b}]{{1,0}}"),
            ],
            &body,
            &format!("f32[{a},{b}]{{1,0}} copy(s)"),
        );
        check(&text, 3210 + k as u64, Path::Shuffled);
    }
}

/// Rank-3 permutations: the tiled pair is any two dimensions, the third a loop outside.
#[test]
fn transposes_3d() {
    let cases = [
        ("f32[6,36,40]{2,1,0}", "f32[6,40,36]{2,1,0}", "{0,2,1}"),
        ("f32[12,5,20]{2,1,0}", "f32[20,5,12]{2,1,0}", "{2,1,0}"),
        ("f32[9,7,13]{2,1,0}", "f32[13,7,9]{2,1,0}", "{2,1,0}"),
        ("f32[8,12,5]{2,1,0}", "f32[5,8,12]{2,1,0}", "{2,0,1}"),
        ("f64[5,10,6]{2,1,0}", "f64[6,10,5]{2,1,0}", "{2,1,0}"),
        ("f32[16,20,4]{0,2,1}", "f32[20,16,4]{2,1,0}", "{1,0,2}"),
    ];
    for (k, (p, out, perm)) in cases.iter().enumerate() {
        let text = module(&[p], "", &format!("{out} transpose(p0), dimensions={perm}"));
        check(&text, 3300 + k as u64, Path::Shuffled);
    }
}

/// Elementwise ops and broadcasts around a transpose: a row broadcast along the vector,
/// a column broadcast along the tiled dimension (splats), scalars, transcendentals,
/// maximum (NaN rules) and compare/select; f32 and f64.
#[test]
fn transposes_with_elementwise_and_broadcasts() {
    for t in ["f32", "f64"] {
        let body = format!(
            "  tr = {t}[40,44]{{1,0}} transpose(p0), dimensions={{1,0}}\n  row = {t}[40,44]{{1,0}} broadcast(p2), dimensions={{1}}\n  col = {t}[40,44]{{1,0}} broadcast(p3), dimensions={{0}}\n  c = {t}[] constant(0.5)\n  cs = {t}[40,44]{{1,0}} broadcast(c), dimensions={{}}\n  m = {t}[40,44]{{1,0}} multiply(tr, row)\n  e = {t}[40,44]{{1,0}} sqrt(col)\n  a = {t}[40,44]{{1,0}} add(m, e)\n  x = {t}[40,44]{{1,0}} maximum(a, p1)\n  lt = pred[40,44]{{1,0}} compare(tr, cs), direction=LT\n  s = {t}[40,44]{{1,0}} select(lt, x, tr)\n"
        );
        let params = [
            format!("{t}[44,40]{{1,0}}"),
            format!("{t}[40,44]{{1,0}}"),
            format!("{t}[44]{{0}}"),
            format!("{t}[40]{{0}}"),
        ];
        let params: Vec<&str> = params.iter().map(|s| s.as_str()).collect();
        let text = module(&params, &body, &format!("{t}[40,44]{{1,0}} abs(s)"));
        check(&text, 3400, Path::Shuffled);
    }
    // A transposed operand reached through a broadcast (rank 2 to rank 3).
    let body = "  tr = f32[20,3,24]{2,1,0} broadcast(p0), dimensions={2,0}\n  n = f32[20,3,24]{2,1,0} negate(tr)\n";
    let text = module(&["f32[24,20]{1,0}"], body, "f32[20,3,24]{2,1,0} sqrt(n)");
    check(&text, 3410, Path::Shuffled);
}

/// What the block path does not accept keeps the scalar tiled loops: integers, converts,
/// slices, f16, operands strided along both tiled dimensions.
#[test]
fn scalar_fallbacks() {
    let cases = [
        (
            vec!["s32[40,44]{1,0}"],
            "",
            "s32[44,40]{1,0} transpose(p0), dimensions={1,0}",
        ),
        (
            vec!["f32[40,44]{1,0}"],
            "  t = f32[44,40]{1,0} transpose(p0), dimensions={1,0}\n",
            "f64[44,40]{1,0} convert(t)",
        ),
        (
            vec!["f32[40,50]{1,0}"],
            "  s = f32[40,44]{1,0} slice(p0), slice={[0:40], [2:46]}\n",
            "f32[44,40]{1,0} transpose(s), dimensions={1,0}",
        ),
        (
            vec!["f16[40,44]{1,0}"],
            "",
            "f16[44,40]{1,0} transpose(p0), dimensions={1,0}",
        ),
    ];
    for (k, (params, body, root)) in cases.iter().enumerate() {
        check(&module(params, body, root), 3600 + k as u64, Path::Scalar);
    }
    // Two operands transposed along different dimensions: whichever pair is tiled, one of
    // them is strided along both (no block form).
    let body = "  t0 = f32[8,12,16]{2,1,0} transpose(p0), dimensions={2,1,0}\n  t1 = f32[8,12,16]{2,1,0} transpose(p1), dimensions={0,2,1}\n";
    let text = module(
        &["f32[16,12,8]{2,1,0}", "f32[8,16,12]{2,1,0}"],
        body,
        "f32[8,12,16]{2,1,0} add(t0, t1)",
    );
    for seed in 0..2 {
        check(&text, 3650 + seed, Path::Scalar);
    }
}
