//! Golden tests: every `testdata/` model runs on the reference interpreter, from jit's HLO
//! (`model.hlo`), from XLA's optimized HLO (`xla_opt.hlo`), and from xlac's own optimized
//! HLO (`model.hlo` through the CPU pipeline, printed as `cpu_after_optimizations.txt` is and
//! parsed back), and matches XLA:CPU's outputs (`expected.npz`): integers and booleans
//! exactly, floats within the per-type tolerances of
//! `xlac::eval::compare::Tolerance::for_output`.

use std::path::{Path, PathBuf};

use xlac::compiler::{CompileOptions, optimize};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::hlo_text::parse_module;
use xlac::ir::verifier::verify;

/// The model folders under `testdata/`, sorted.
fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/ is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.npz").exists())
        .collect();
    dirs.sort();
    dirs
}

/// Which module of a model folder runs.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// The file as written.
    AsGiven,
    /// The file after xlac's CPU pipeline, printed and parsed back (what the dump holds).
    Optimized,
}

/// Runs one HLO file of a model folder and compares with `expected.npz`.
/// Returns one line per problem.
fn check(dir: &Path, file: &str, stage: Stage) -> Vec<String> {
    let name = format!("{}/{file}", dir.file_name().unwrap().to_string_lossy());
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let module = match parse_module(&text, &path.display().to_string()) {
        Ok(p) => p.module,
        Err(e) => return vec![format!("{name}: parse: {e}")],
    };
    if let Err(errors) = verify(&module) {
        return errors
            .iter()
            .map(|e| format!("{name}: verify: {e}"))
            .collect();
    }
    let module = match stage {
        Stage::AsGiven => module,
        Stage::Optimized => {
            let optimized = match optimize(module, &CompileOptions::default()) {
                Ok(o) => o.module,
                Err(e) => return vec![format!("{name}: pipeline: {e}")],
            };
            match parse_module(&optimized.to_string(), "cpu_after_optimizations.txt") {
                Ok(p) => p.module,
                Err(e) => {
                    return vec![format!(
                        "{name}: the optimized module does not parse back: {e}"
                    )];
                }
            }
        }
    };
    let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
    let n_inputs = inputs.len();
    let args = match bind_arguments(&entry_parameters(&module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec![format!("{name}: inputs.npz has only {n_inputs} arrays")],
        Err(e) => return vec![format!("{name}: inputs: {e}")],
    };
    let result = match evaluate(&module, &args.literals, &EvalOptions::default()) {
        Ok(r) => r,
        Err(e) => return vec![format!("{name}: eval: {e}")],
    };
    let expected = read_npz(&dir.join("expected.npz")).unwrap();
    let leaves = result.leaves();
    if leaves.len() != expected.len() {
        return vec![format!(
            "{name}: {} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = Tolerance::for_output(&module, actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!(
                "{name}: output {i} ({}): {c}",
                actual.element_type()
            )),
            Err(e) => problems.push(format!("{name}: output {i}: {e}")),
        }
    }
    problems
}

fn run_all(file: &str, stage: Stage) {
    let models = models();
    assert!(
        models.len() >= 40,
        "expected at least 40 testdata models, found {}",
        models.len()
    );
    let problems: Vec<String> = models.iter().flat_map(|d| check(d, file, stage)).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) over {} models:\n{}",
        problems.len(),
        models.len(),
        problems.join("\n")
    );
}

#[test]
fn jit_hlo_matches_xla() {
    run_all("model.hlo", Stage::AsGiven);
}

#[test]
fn xla_optimized_hlo_matches_xla() {
    run_all("xla_opt.hlo", Stage::AsGiven);
}

#[test]
fn xlac_optimized_hlo_matches_xla() {
    run_all("model.hlo", Stage::Optimized);
}
