//! Golden tests: every `testdata/` model runs on the reference interpreter, from jit's HLO
//! (`model.hlo`), from XLA's optimized HLO (`xla_opt.hlo`), and from xlac's own optimized
//! HLO (`model.hlo` through the CPU pipeline, printed as `cpu_after_optimizations.txt` is and
//! parsed back), and matches XLA:CPU's outputs (`expected.npz`): integers and booleans
//! exactly, floats within the per-type tolerances of
//! `xlac::eval::compare::Tolerance::for_output`.

use std::path::Path;

use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_text::parse_module;
use xlac::ir::verifier::verify;
use xlac::testdata::{check_against_expected, model_dirs};

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
    check_against_expected(&module, dir)
        .into_iter()
        .map(|p| format!("{name}: {p}"))
        .collect()
}

fn run_all(file: &str, stage: Stage) {
    let models = model_dirs();
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
