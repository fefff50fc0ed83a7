//! Golden tests of the LAPACK custom calls: each `testdata/lapack/<case>/model.mlir` is a
//! jax function as jax lowers it for XLA:CPU (`lapack_?geqrf_ffi` with a complex `R`,
//! `?geqp3`, `?ormqr`/`?unmqr`, `?gesvd`, `?gehrd`, `?sytrd`/`?hetrd`, `?gees`, `?gtsv` and
//! `tridiagonal_solve_perturbed_ffi`), with XLA:CPU's outputs in `expected.npz`
//! (written by `scripts/golden_linalg.py`). Both the interpreter and the compiled backend
//! must match them. The cases return what LAPACK's conventions fix, so the factors
//! themselves are compared where they are unique.

use std::path::{Path, PathBuf};

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::verifier::verify;
use xlac::ir::{ArrayLiteral, Module, PrimitiveType, stablehlo};

/// The case folders, sorted.
fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/lapack");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/lapack is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.npz").exists())
        .collect();
    dirs.sort();
    dirs
}

fn load(dir: &Path) -> Result<Module, String> {
    let path = dir.join("model.mlir");
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let module = stablehlo::parse_module(&text, &path.display().to_string())
        .map_err(|e| format!("parse: {e}"))?
        .module;
    verify(&module).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        format!("verify: {}", lines.join("; "))
    })?;
    Ok(module)
}

/// Rounding differs from LAPACK's (other summation orders, faer's SVD): a factorization of
/// a well-conditioned 6×6 is good to a few hundred ulps of its largest entry.
fn tolerance(ty: PrimitiveType) -> Tolerance {
    match ty {
        PrimitiveType::F64 | PrimitiveType::C128 => Tolerance {
            rtol: 1e-9,
            atol: 1e-10,
        },
        _ => Tolerance {
            rtol: 1e-4,
            atol: 1e-4,
        },
    }
}

/// Which backend runs the case.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Interpreter,
    Compiled,
}

/// Runs one case on one backend; one line per problem.
fn check(dir: &Path, backend: Backend) -> Vec<String> {
    let module = match load(dir) {
        Ok(m) => m,
        Err(e) => return vec![e],
    };
    let inputs = match read_npz(&dir.join("inputs.npz")) {
        Ok(i) => i,
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let args = match bind_arguments(&entry_parameters(&module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec!["inputs.npz has too few arrays".into()],
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let result = match backend {
        Backend::Interpreter => evaluate(&module, &args.literals, &EvalOptions::default())
            .map_err(|e| format!("eval: {e}")),
        Backend::Compiled => compile(module, &CompileOptions::default())
            .map_err(|e| format!("compile: {e}"))
            .and_then(|c| {
                let mut exe = c.executable;
                exe.execute(&args.literals)
                    .map_err(|e| format!("execute: {e}"))
            }),
    };
    let result = match result {
        Ok(r) => r,
        Err(e) => return vec![e],
    };
    let leaves: Vec<&ArrayLiteral> = result.leaves();
    let expected = read_npz(&dir.join("expected.npz")).expect("expected.npz");
    if leaves.len() != expected.len() {
        return vec![format!(
            "{} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = tolerance(actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("output {i}: {c}")),
            Err(e) => problems.push(format!("output {i}: {e}")),
        }
    }
    problems
}

fn run_all(backend: Backend) {
    let dirs = cases();
    assert!(
        dirs.len() >= 30,
        "expected the LAPACK cases in testdata/lapack"
    );
    let mut problems = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        problems.extend(
            check(dir, backend)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(
        problems.is_empty(),
        "{backend:?}: {} of {} LAPACK cases differ from XLA:CPU:\n{}",
        problems.len(),
        dirs.len(),
        problems.join("\n")
    );
}

#[test]
fn lapack_cases_match_xla_on_the_interpreter() {
    run_all(Backend::Interpreter);
}

#[test]
fn lapack_cases_match_xla_compiled() {
    run_all(Backend::Compiled);
}
