//! `xlac run` on StableHLO (MLIR) input: it runs like HLO text, dumps the input beside the
//! converted HLO, and bad StableHLO gets exactly one `error:` line with `file:line:col`
//! and a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn xlac(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("the xlac binary runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-cli-mlir-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

/// Runs a bad model and returns its single error line.
fn single_error(test: &str, model: &str) -> String {
    let dir = scratch(test);
    let path = write(&dir, "bad.mlir", model);
    let out = xlac(&["run", &path]);
    assert_ne!(out.code, 0, "{test}: exit code");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{test}: want one line, got {:?}",
        out.stderr
    );
    assert!(lines[0].starts_with("error: "), "{test}: {}", lines[0]);
    assert!(out.stdout.is_empty(), "{test}: stdout {:?}", out.stdout);
    lines[0].replace(&path, "bad.mlir")
}

#[test]
fn unknown_op() {
    let e = single_error(
        "unknown_op",
        "func.func @main() -> tensor<2xf32> {\n  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n  %1 = stablehlo.frobnicate %0 : tensor<2xf32>\n  return %1 : tensor<2xf32>\n}\n",
    );
    assert_eq!(e, "error: bad.mlir:3:3: unknown op 'stablehlo.frobnicate'");
}

#[test]
fn type_mismatch() {
    let e = single_error(
        "type_mismatch",
        "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %1 = stablehlo.add %a, %b : tensor<2xf32>\n  return %1 : tensor<2xf32>\n}\n",
    );
    assert!(
        e.starts_with("error: bad.mlir:2:26: type mismatch: operand #1 of 'stablehlo.add'"),
        "{e}"
    );
    // Operands agree with the declaration but not with each other's result.
    let e = single_error(
        "type_mismatch_result",
        "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  %1 = stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n  return %1 : tensor<3xf32>\n}\n",
    );
    assert!(
        e.starts_with(
            "error: bad.mlir:2:3: type mismatch: 'stablehlo.add' declares result tensor<3xf32>"
        ),
        "{e}"
    );
}

#[test]
fn undefined_value() {
    let e = single_error(
        "undefined_value",
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %1 = stablehlo.add %a, %x : tensor<2xf32>\n  return %1 : tensor<2xf32>\n}\n",
    );
    assert_eq!(e, "error: bad.mlir:2:26: undefined value %x");
}

#[test]
fn unbalanced_braces() {
    let e = single_error(
        "unbalanced",
        "module {\nfunc.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %1 = stablehlo.add %a, %a : tensor<2xf32>\n  return %1 : tensor<2xf32>\n",
    );
    assert!(
        e.starts_with("error: bad.mlir:2:53: unbalanced braces"),
        "{e}"
    );
}

#[test]
fn wrong_literal_length() {
    let e = single_error(
        "literal_length",
        "func.func @main() -> tensor<3xf32> {\n  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n",
    );
    assert!(e.starts_with("error: bad.mlir:2:3: dense literal has shape [2] (2 elements) but the type tensor<3xf32> needs [3]"), "{e}");
}

#[test]
fn runs_and_dumps_stablehlo() {
    let dir = scratch("run");
    let model = "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main() -> (tensor<2xi32> {jax.result_info = \"\"}) {\n    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n    %0 = stablehlo.add %c, %c : tensor<2xi32>\n    return %0 : tensor<2xi32>\n  }\n}\n";
    let path = write(&dir, "m.mlir", model);
    let dump = dir.join("dump");
    let out = xlac(&["run", &path, "--dump-to", &dump.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "s32[2] {2, 4}");
    let mlir = std::fs::read_to_string(dump.join("module_0000.jit_f.stablehlo.mlir")).unwrap();
    assert_eq!(mlir, model);
    let hlo =
        std::fs::read_to_string(dump.join("module_0000.jit_f.before_optimizations.txt")).unwrap();
    assert!(hlo.starts_with("HloModule jit_f"), "{hlo}");
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert!(
        index.contains("module_0000.jit_f.stablehlo.mlir")
            && index.contains("module_0000.jit_f.before_optimizations.txt"),
        "{index}"
    );
}
