//! The `testdata/` corpus from code: the model folders, and checking a module's outputs on
//! a folder's `inputs.npz` against XLA:CPU's `expected.npz`. Shared by the golden tests and
//! the passes' whole-corpus checks, so "matches XLA" means one thing everywhere.

use std::path::{Path, PathBuf};

use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{bind_arguments, entry_parameters};
use crate::io::npz::read_npz;
use crate::ir::{ArrayLiteral, Module};

/// The model folders under the repository's `testdata/` (those with `expected.npz`), sorted.
pub fn model_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.retain(|p| p.join("expected.npz").exists());
    dirs.sort();
    dirs
}

/// Runs `module` on `dir/inputs.npz` with the interpreter and compares every output leaf
/// with `dir/expected.npz` (integers exactly, floats within [`Tolerance::for_output`]).
/// Returns one line per problem; empty when everything matches.
pub fn check_against_expected(module: &Module, dir: &Path) -> Vec<String> {
    let inputs = match read_npz(&dir.join("inputs.npz")) {
        Ok(i) => i,
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let given = inputs.len();
    let args = match bind_arguments(&entry_parameters(module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec![format!("inputs.npz has only {given} arrays")],
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let result = match evaluate(module, &args.literals, &EvalOptions::default()) {
        Ok(r) => r,
        Err(e) => return vec![format!("eval: {e}")],
    };
    compare_with_expected(module, &result.leaves(), dir)
}

/// Compares `leaves`, the outputs of `module` on `dir/inputs.npz`, with
/// `dir/expected.npz` (integers exactly, floats within the [`Tolerance::for_output`] of
/// `module`). Returns one line per problem; empty when everything matches.
pub fn compare_with_expected(module: &Module, leaves: &[&ArrayLiteral], dir: &Path) -> Vec<String> {
    let expected = match read_npz(&dir.join("expected.npz")) {
        Ok(e) => e,
        Err(e) => return vec![format!("expected: {}", e.message)],
    };
    if leaves.len() != expected.len() {
        return vec![format!(
            "{} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = Tolerance::for_output(module, actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("output {i} ({}): {c}", actual.element_type())),
            Err(e) => problems.push(format!("output {i}: {e}")),
        }
    }
    problems
}
