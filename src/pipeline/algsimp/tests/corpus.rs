//! The whole-corpus check: `algsimp` then `dce`, until neither changes anything, on every
//! `testdata/*/model.hlo` and `xla_opt.hlo`; the result must still verify after every pass
//! and still match XLA:CPU's `expected.npz` as `tests/golden.rs` checks it. Run with
//! `--nocapture` to see instruction counts before and after and which rules fired.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{bind_arguments, entry_parameters};
use crate::io::npz::read_npz;
use crate::ir::Module;
use crate::ir::hlo_text::parse_module;
use crate::ir::verifier::verify;
use crate::pipeline::Pass;
use crate::pipeline::algsimp::AlgebraicSimplifier;
use crate::pipeline::dce::Dce;

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

/// Live instructions over every live computation.
fn instruction_count(module: &Module) -> usize {
    module
        .order
        .iter()
        .map(|&c| module.computations[c].order.len())
        .sum()
}

/// `algsimp` then `dce` until a round changes nothing (at most 25 rounds, XLA's `HloPassFix`
/// limit), verifying after every pass that changed the module, as `Pipeline` does.
fn simplify_to_fixed_point(
    module: &mut Module,
    simplifier: &mut AlgebraicSimplifier,
) -> Result<(), String> {
    for _ in 0..25 {
        let mut changed = false;
        let passes: [&mut dyn Pass; 2] = [simplifier, &mut Dce];
        for pass in passes {
            if pass.run(module).map_err(|e| e.to_string())? {
                changed = true;
                verify(module).map_err(|errors| {
                    let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                    format!(
                        "verifier failed after {}: {}",
                        pass.name(),
                        lines.join("; ")
                    )
                })?;
            }
        }
        if !changed {
            return Ok(());
        }
    }
    Err("no fixed point after 25 rounds".to_string())
}

/// Simplifies one file of a model folder and compares with `expected.npz`.
/// Returns the problems and the instruction counts before and after.
fn check(
    dir: &Path,
    file: &str,
    fired: &mut BTreeMap<&'static str, usize>,
) -> (Vec<String>, usize, usize) {
    let name = format!("{}/{file}", dir.file_name().unwrap().to_string_lossy());
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut module = match parse_module(&text, &name) {
        Ok(p) => p.module,
        Err(e) => return (vec![format!("{name}: parse: {e}")], 0, 0),
    };
    let before = instruction_count(&module);
    let mut simplifier = AlgebraicSimplifier::new();
    if let Err(e) = simplify_to_fixed_point(&mut module, &mut simplifier) {
        return (vec![format!("{name}: {e}")], before, 0);
    }
    for (rule, n) in simplifier.fired() {
        *fired.entry(rule).or_default() += n;
    }
    let after = instruction_count(&module);
    let inputs = read_npz(&dir.join("inputs.npz")).unwrap();
    let args = match bind_arguments(&entry_parameters(&module), inputs, 0) {
        Ok(a) => a,
        Err(e) => return (vec![format!("{name}: inputs: {e}")], before, after),
    };
    let result = match evaluate(&module, &args.literals, &EvalOptions::default()) {
        Ok(r) => r,
        Err(e) => return (vec![format!("{name}: eval: {e}")], before, after),
    };
    let expected = read_npz(&dir.join("expected.npz")).unwrap();
    let leaves = result.leaves();
    if leaves.len() != expected.len() {
        return (
            vec![format!(
                "{name}: {} outputs, expected {}",
                leaves.len(),
                expected.len()
            )],
            before,
            after,
        );
    }
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = Tolerance::for_output(&module, actual.element_type());
        match compare_arrays(actual, &want.literal, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("{name}: output {i}: {c}")),
            Err(e) => problems.push(format!("{name}: output {i}: {e}")),
        }
    }
    (problems, before, after)
}

#[test]
fn corpus_still_matches_xla_after_algsimp_and_dce() {
    let mut problems = Vec::new();
    let mut fired = BTreeMap::new();
    let mut totals = [0usize; 4];
    for dir in models() {
        let mut line = format!("{:<24}", dir.file_name().unwrap().to_string_lossy());
        for (k, file) in ["model.hlo", "xla_opt.hlo"].into_iter().enumerate() {
            let (p, before, after) = check(&dir, file, &mut fired);
            problems.extend(p);
            totals[2 * k] += before;
            totals[2 * k + 1] += after;
            line += &format!(" {file}: {before:>4} -> {after:>4}");
        }
        eprintln!("{line}");
    }
    eprintln!(
        "total model.hlo: {} -> {}, xla_opt.hlo: {} -> {}",
        totals[0], totals[1], totals[2], totals[3]
    );
    let mut by_count: Vec<_> = fired.into_iter().collect();
    by_count.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    for (rule, n) in by_count {
        eprintln!("{n:>6}  {rule}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
