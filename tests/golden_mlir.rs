//! Golden tests for StableHLO ingestion: every `testdata/` model's `model.mlir` (what
//! `jax.jit(...).lower(...).as_text()` prints) is converted to HLO, runs on the reference
//! interpreter, and
//! 1. matches XLA:CPU's outputs (`expected.npz`) within `Tolerance::for_output`, and
//! 2. gives the same outputs as the same program read from `model.hlo` (the two ingestion
//!    paths agree): integers and booleans exactly, floats within `Tolerance::for_output`.

use std::path::{Path, PathBuf};

use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::{hlo_text, stablehlo};
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::verifier::verify;
use xlac::ir::{Literal, Module};

/// The model folders under `testdata/`, sorted.
fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/ is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.npz").exists() && p.join("model.mlir").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Loads, verifies and runs one model file on the model's inputs.
fn run(dir: &Path, file: &str) -> Result<(Module, Literal), String> {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let shown = path.display().to_string();
    let module = if file.ends_with(".mlir") {
        stablehlo::parse_module(&text, &shown)
            .map_err(|e| format!("parse: {e}"))?
            .module
    } else {
        hlo_text::parse_module(&text, &shown)
            .map_err(|e| format!("parse: {e}"))?
            .module
    };
    if let Err(errors) = verify(&module) {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        return Err(format!("verify: {}", lines.join("; ")));
    }
    let inputs = read_npz(&dir.join("inputs.npz")).map_err(|e| e.to_string())?;
    let args = bind_arguments(&entry_parameters(&module), inputs, 0)
        .map_err(|e| format!("inputs: {e}"))?;
    if !args.randomized.is_empty() {
        return Err("inputs.npz has too few arrays".into());
    }
    let result = evaluate(&module, &args.literals, &EvalOptions::default())
        .map_err(|e| format!("eval: {e}"))?;
    Ok((module, result))
}

/// One line per problem of one model.
fn check(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let (module, result) = match run(dir, "model.mlir") {
        Ok(r) => r,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let mut problems = Vec::new();
    let leaves = result.leaves();
    let expected = read_npz(&dir.join("expected.npz")).unwrap();
    if leaves.len() != expected.len() {
        return vec![format!(
            "{name}: {} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = Tolerance::for_output(&module, actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("{name}: output {i} vs expected.npz: {c}")),
            Err(e) => problems.push(format!("{name}: output {i} vs expected.npz: {e}")),
        }
    }
    match run(dir, "model.hlo") {
        Err(e) => problems.push(format!("{name}: model.hlo: {e}")),
        Ok((_, hlo_result)) => {
            let hlo_leaves = hlo_result.leaves();
            if hlo_leaves.len() != leaves.len() {
                problems.push(format!(
                    "{name}: {} outputs from model.mlir, {} from model.hlo",
                    leaves.len(),
                    hlo_leaves.len()
                ));
            }
            for (i, (a, b)) in leaves.iter().zip(&hlo_leaves).enumerate() {
                // Integers compare exactly (compare_arrays does that whatever the tolerance).
                let tol = Tolerance::for_output(&module, a.element_type());
                match compare_arrays(a, b, tol) {
                    Ok(c) if c.ok() => {}
                    Ok(c) => problems.push(format!("{name}: output {i} vs model.hlo: {c}")),
                    Err(e) => problems.push(format!("{name}: output {i} vs model.hlo: {e}")),
                }
            }
        }
    }
    problems
}

#[test]
fn stablehlo_models_match_xla_and_hlo() {
    let models = models();
    assert!(
        models.len() >= 40,
        "expected at least 40 testdata models, found {}",
        models.len()
    );
    let problems: Vec<String> = models.iter().flat_map(|d| check(d)).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) over {} models:\n{}",
        problems.len(),
        models.len(),
        problems.join("\n")
    );
}
