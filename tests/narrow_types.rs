//! The narrow element types (the f8 formats, `f4e2m1fn`, `s4`/`u4`/`s2`/`u2`) against
//! XLA:CPU, bit for bit: every case of `testdata/narrow_types/` (written by
//! `scripts/golden_narrow_types.py` from jax 0.10.2 on CPU) runs on the reference
//! interpreter and on the compiled backend, and every output leaf must equal XLA:CPU's
//! bits (narrow results cross as their u8 codes; a NaN in an f32/f16 output must be a NaN
//! there too, its payload is not compared).

use std::path::{Path, PathBuf};

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text::parse_module;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayData, ArrayLiteral, Literal, Module};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/narrow_types");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Each element's bits, NaNs of every payload as one value.
fn bits(a: &ArrayLiteral) -> Vec<u64> {
    const NAN: u64 = u64::MAX;
    match &a.data {
        ArrayData::Pred(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U8(v) | ArrayData::Raw(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::S8(v) => v.iter().map(|&x| x as u8 as u64).collect(),
        ArrayData::S32(v) => v.iter().map(|&x| x as u32 as u64).collect(),
        ArrayData::F16(v) => v
            .iter()
            .map(|x| {
                if x.is_nan() {
                    NAN
                } else {
                    u64::from(x.to_bits())
                }
            })
            .collect(),
        ArrayData::F32(v) => v
            .iter()
            .map(|x| {
                if x.is_nan() {
                    NAN
                } else {
                    u64::from(x.to_bits())
                }
            })
            .collect(),
        other => panic!("no bit comparison for {other:?}"),
    }
}

/// The problems of one result against `expected.npz`, one line each.
fn compare(dir: &Path, result: &Literal) -> Vec<String> {
    let expected = read_npz(&dir.join("expected.npz")).unwrap();
    let leaves = result.leaves();
    if leaves.len() != expected.len() {
        return vec![format!(
            "{} leaves, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let mut problems = Vec::new();
    for (i, (got, want)) in leaves.iter().zip(&expected).enumerate() {
        let got = got.to_row_major();
        let (g, w) = (bits(&got), bits(&want.literal));
        if got.shape.dims != want.literal.shape.dims || g.len() != w.len() {
            problems.push(format!(
                "leaf {i}: shape {:?}, expected {:?}",
                got.shape.dims, want.literal.shape.dims
            ));
            continue;
        }
        let wrong: Vec<usize> = (0..g.len()).filter(|&k| g[k] != w[k]).collect();
        if let Some(&k) = wrong.first() {
            problems.push(format!(
                "leaf {i}: {} of {} elements differ, first at {k}: {:#x}, expected {:#x}",
                wrong.len(),
                g.len(),
                g[k],
                w[k]
            ));
        }
    }
    problems
}

fn load(dir: &Path) -> (Module, Vec<Literal>) {
    let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
    let module = parse_module(&text, "model.hlo").unwrap().module;
    let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
    let args = bind_arguments(&entry_parameters(&module), inputs, 0).unwrap();
    assert!(args.randomized.is_empty());
    (module, args.literals)
}

/// Cases that do not yet match XLA:CPU on a backend, each with what is wrong. Every other
/// case must be bit-exact, and a listed case that starts matching fails the test too (so
/// the list only shrinks).
fn known_differences(backend: &str) -> &'static [(&'static str, &'static str)] {
    const BOTH: &[(&str, &str)] = &[
        (
            "decode_f4e2m1fn",
            "the largest f4e2m1fn codes convert to the wrong integers",
        ),
        (
            "decode_f8e8m0fnu",
            "code 0 (2^-127) decodes to 0, XLA gives 2^-127 in f32",
        ),
    ];
    const INTERPRETER: &[(&str, &str)] = &[
        (
            "encode_bf16_f8e8m0fnu",
            "bf16 NaN/overflow encodes to 0xff, XLA to 0",
        ),
        ("int_ops_s4", "shifts and clz of s4 computed at 8 bits"),
        ("int_ops_u2", "shifts and clz of u2 computed at 8 bits"),
        ("int_ops_u4", "shifts and clz of u4 computed at 8 bits"),
        ("ops_f4e2m1fn", "the sign of a zero result of f4 arithmetic"),
        (
            "ops_f8e3m4",
            "f8e3m4 arithmetic rounds through f16 where XLA saturates",
        ),
        (
            "ops_f8e4m3",
            "f8e4m3 arithmetic rounds through f16 where XLA saturates",
        ),
        ("ops_f8e4m3fn", "the sign of a NaN from f8e4m3fn arithmetic"),
        (
            "ops_f8e5m2",
            "NaN payload of f8e5m2 arithmetic (0x7e, XLA 0x7f)",
        ),
        (
            "ops_f8e8m0fnu",
            "f8e8m0fnu arithmetic: NaN and the smallest exponents",
        ),
    ];
    const COMPILED: &[(&str, &str)] = &[
        ("int_ops_s2", "a fused convert to s2 has no codegen yet"),
        ("int_ops_s4", "a fused convert to s4 has no codegen yet"),
        ("int_ops_u2", "a fused convert to u2 has no codegen yet"),
        ("int_ops_u4", "a fused convert to u4 has no codegen yet"),
        (
            "ops_f4e2m1fn",
            "a fused convert to f4e2m1fn has no codegen yet",
        ),
        ("ops_f8e3m4", "a fused convert to f8e3m4 has no codegen yet"),
        ("ops_f8e4m3", "a fused convert to f8e4m3 has no codegen yet"),
        (
            "ops_f8e4m3b11fnuz",
            "a fused convert to f8e4m3b11fnuz has no codegen yet",
        ),
        (
            "ops_f8e4m3fn",
            "a fused convert to f8e4m3fn has no codegen yet",
        ),
        (
            "ops_f8e4m3fnuz",
            "a fused convert to f8e4m3fnuz has no codegen yet",
        ),
        ("ops_f8e5m2", "a fused convert to f8e5m2 has no codegen yet"),
        (
            "ops_f8e5m2fnuz",
            "a fused convert to f8e5m2fnuz has no codegen yet",
        ),
        (
            "ops_f8e8m0fnu",
            "a fused convert to f8e8m0fnu has no codegen yet",
        ),
    ];
    match backend {
        "interpreter" => &[BOTH, INTERPRETER].concat().leak()[..],
        _ => &[BOTH, COMPILED].concat().leak()[..],
    }
}

fn run_all(backend: &str) {
    let known = known_differences(backend);
    let cases = cases();
    assert!(
        cases.len() >= 70,
        "expected the 71 cases of testdata/narrow_types"
    );
    let mut problems = Vec::new();
    let mut passed = 0;
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let (module, args) = load(dir);
        let result = match backend {
            "interpreter" => {
                evaluate(&module, &args, &EvalOptions::default()).map_err(|e| e.to_string())
            }
            _ => compile(module, &CompileOptions::default())
                .map_err(|e| e.to_string())
                .and_then(|c| {
                    let mut exe = c.executable;
                    exe.execute(&args).map_err(|e| e.to_string())
                }),
        };
        let p = match result {
            Ok(r) => compare(dir, &r),
            Err(e) => vec![e],
        };
        if p.is_empty() {
            passed += 1;
        }
        match (known.iter().any(|(k, _)| *k == name), p.is_empty()) {
            (true, true) => problems.push(format!("{name}: matches now; drop it from the list")),
            (true, false) => {}
            (false, _) => problems.extend(p.into_iter().map(|p| format!("{name}: {p}"))),
        }
    }
    println!("{backend}: {passed} of {} cases bit-exact", cases.len());
    assert!(
        problems.is_empty(),
        "{backend}: {passed} of {} cases bit-exact; problems:\n{}",
        cases.len(),
        problems.join("\n")
    );
}

#[test]
fn interpreter_matches_xla_bit_for_bit() {
    run_all("interpreter");
}

#[test]
fn compiled_matches_xla_bit_for_bit() {
    run_all("compiled");
}
