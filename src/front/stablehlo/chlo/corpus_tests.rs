//! The conformance corpus's single-op CHLO files (`stablehlo-testdata/*_chlo.mlir`, 20x20
//! bf16/f16 inputs written as hex blobs) run through [`super::decompose`] with their own
//! checks: `expect_close` within 3 ULP, `expect_almost_eq` within 1e-3. The expected
//! values were computed by JAX when the corpus was generated.
//!
//! The files are the repository's copy of the corpus (`testdata/stablehlo-conformance/`,
//! or `$XLAC_CONFORMANCE_DIR`).

use std::path::PathBuf;

use half::{bf16, f16};

use super::tests::run;
use crate::ir::{ArrayLiteral, Literal, PrimitiveType, Shape};

/// The corpus directory: `$XLAC_CONFORMANCE_DIR`, else the repository's copy.
fn corpus_dir() -> PathBuf {
    std::env::var_os("XLAC_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo-conformance")
        })
}

/// Every `dense<"0x...">` blob of the file, decoded to bytes, in order.
fn hex_blobs(text: &str) -> Vec<Vec<u8>> {
    text.split("dense<\"0x")
        .skip(1)
        .map(|rest| {
            let hex: &str = rest.split('"').next().unwrap_or("");
            (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
                .collect()
        })
        .collect()
}

/// Little-endian 16-bit floats as f64.
fn decode(ty: PrimitiveType, bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(2)
        .map(|b| {
            let bits = u16::from_le_bytes([b[0], b[1]]);
            match ty {
                PrimitiveType::BF16 => bf16::from_bits(bits).to_f64(),
                _ => f16::from_bits(bits).to_f64(),
            }
        })
        .collect()
}

fn literal16(ty: PrimitiveType, bytes: &[u8]) -> Literal {
    let bits: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let dims = [20, 20];
    Literal::Array(match ty {
        PrimitiveType::BF16 => {
            ArrayLiteral::from_vec(&dims, bits.into_iter().map(bf16::from_bits).collect())
        }
        _ => ArrayLiteral::from_vec(&dims, bits.into_iter().map(f16::from_bits).collect()),
    })
}

/// `expect_close` distance on 16-bit values.
fn ulp16(ty: PrimitiveType, a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if !a.is_finite() || !b.is_finite() {
        return u64::MAX;
    }
    let bits = |x: f64| -> u64 {
        match ty {
            PrimitiveType::BF16 => bf16::from_f64(x.abs()).to_bits() as u64,
            _ => f16::from_f64(x.abs()).to_bits() as u64,
        }
    };
    if a.is_sign_negative() == b.is_sign_negative() {
        bits(a).abs_diff(bits(b))
    } else {
        bits(a) + bits(b)
    }
}

#[test]
fn corpus_single_op_chlo_files_pass() {
    let dir = corpus_dir();
    assert!(
        dir.is_dir(),
        "the conformance corpus is missing: {}",
        dir.display()
    );
    let files = [
        ("acosh_float16_20_20_chlo.mlir", "chlo.acosh"),
        ("asin_bfloat16_20_20_chlo.mlir", "chlo.asin"),
        ("asinh_bfloat16_20_20_chlo.mlir", "chlo.asinh"),
        ("atan_bfloat16_20_20_chlo.mlir", "chlo.atan"),
        ("atanh_bfloat16_20_20_chlo.mlir", "chlo.atanh"),
        ("bessel_i1e_bfloat16_20_20_chlo.mlir", "chlo.bessel_i1e"),
        ("cosh_bfloat16_20_20_chlo.mlir", "chlo.cosh"),
        ("digamma_bfloat16_20_20_chlo.mlir", "chlo.digamma"),
        ("erf_bfloat16_20_20_chlo.mlir", "chlo.erf"),
        ("erf_inv_bfloat16_20_20_chlo.mlir", "chlo.erf_inv"),
        ("erfc_bfloat16_20_20_chlo.mlir", "chlo.erfc"),
        ("lgamma_bfloat16_20_20_chlo.mlir", "chlo.lgamma"),
        (
            "nextafter_bfloat16_20_20_bfloat16_20_20_chlo.mlir",
            "chlo.next_after",
        ),
        ("sinh_bfloat16_20_20_chlo.mlir", "chlo.sinh"),
        ("tan_bfloat16_20_20_chlo.mlir", "chlo.tan"),
    ];
    let mut failures = Vec::new();
    for (file, op) in files {
        let path = dir.join("stablehlo-testdata").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let ty = if file.contains("float16") && !file.contains("bfloat16") {
            PrimitiveType::F16
        } else {
            PrimitiveType::BF16
        };
        let blobs = hex_blobs(&text);
        let (inputs, expected) = blobs.split_at(blobs.len() - 1);
        let shape = Shape::array(ty, &[20, 20]);
        let params: Vec<(Shape, Literal)> = inputs
            .iter()
            .map(|b| (shape.clone(), literal16(ty, b)))
            .collect();
        let out = match run(op, &params, std::slice::from_ref(&shape), &[]) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let got: Vec<f64> = match out[0].as_array() {
            Some(a) if ty == PrimitiveType::BF16 => a
                .values::<bf16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            Some(a) => a
                .values::<f16>()
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            None => unreachable!(),
        };
        let want = decode(ty, &expected[0]);
        let almost_eq = text.contains("@check.expect_almost_eq");
        let bad: Vec<String> = got
            .iter()
            .zip(&want)
            .enumerate()
            .filter(|&(_, (&g, &w))| {
                if almost_eq {
                    !((g - w).abs() <= 1e-3 || g.is_nan() && w.is_nan() || g == w)
                } else {
                    ulp16(ty, g, w) > 3
                }
            })
            .map(|(i, (g, w))| format!("[{i}] got {g:e}, want {w:e}"))
            .collect();
        if !bad.is_empty() {
            failures.push(format!(
                "{file}: {} mismatches, first {}",
                bad.len(),
                bad[0]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// (model, op, argument numbers, attributes, output numbers)
type ModelCase = (
    &'static str,
    &'static str,
    Vec<usize>,
    Vec<(String, super::ChloAttr)>,
    Vec<usize>,
);

/// `testdata/<model>`: real JAX programs whose `model.mlir` uses CHLO ops; `expected.npz`
/// holds XLA:CPU's outputs. Each listed output is one CHLO op on entry arguments, rebuilt
/// here and compared with XLA's per-type tolerance.
#[test]
fn testdata_models_with_chlo_match_xla() {
    use crate::eval::compare::{Tolerance, compare_arrays};
    use crate::io::npz::read_npz;

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let k3 = vec![("k".to_string(), super::ChloAttr::Int(3))];
    let k4 = vec![("k".to_string(), super::ChloAttr::Int(4))];
    let cases: Vec<ModelCase> = vec![
        (
            "nextafter_erfinv",
            "chlo.next_after",
            vec![0, 1],
            vec![],
            vec![0],
        ),
        ("nextafter_erfinv", "chlo.erf_inv", vec![2], vec![], vec![1]),
        ("nextafter_erfinv", "chlo.lgamma", vec![3], vec![], vec![2]),
        ("nextafter_erfinv", "chlo.digamma", vec![3], vec![], vec![3]),
        ("nextafter_erfinv", "chlo.erfc", vec![2], vec![], vec![4]),
        ("top_k", "chlo.top_k", vec![0], k3, vec![0, 1]),
        ("top_k", "chlo.top_k", vec![1], k4, vec![2, 3]),
    ];
    let mut failures = Vec::new();
    for (model, op, args, attrs, outputs) in cases {
        let dir = root.join(model);
        let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
        let expected = read_npz(&dir.join("expected.npz")).unwrap();
        let params: Vec<(Shape, Literal)> = args
            .iter()
            .map(|&i| {
                let lit = inputs[i].literal.clone();
                (Shape::Array(lit.shape.clone()), Literal::Array(lit))
            })
            .collect();
        let result_shapes: Vec<Shape> = outputs
            .iter()
            .map(|&o| Shape::Array(expected[o].literal.shape.clone()))
            .collect();
        let out = run(op, &params, &result_shapes, &attrs).unwrap_or_else(|e| panic!("{op}: {e}"));
        for (got, &o) in out.iter().zip(&outputs) {
            let got = got.as_array().unwrap();
            let want = &expected[o].literal;
            let tol = Tolerance::for_type(want.element_type());
            match compare_arrays(got, want, tol) {
                Ok(c) if c.ok() => {}
                Ok(c) => failures.push(format!("{model} {op} output {o}: {c}")),
                Err(e) => failures.push(format!("{model} {op} output {o}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
