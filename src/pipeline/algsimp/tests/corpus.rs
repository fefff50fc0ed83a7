//! The whole-corpus check: `algsimp` then `dce`, until neither changes anything, on every
//! `testdata/*/model.hlo` and `xla_opt.hlo`; the result must still verify after every pass
//! and still match XLA:CPU's `expected.npz` as `tests/golden.rs` checks it. Run with
//! `--nocapture` to see instruction counts before and after and which rules fired.

use std::collections::BTreeMap;
use std::path::Path;

use crate::front::hlo_text::parse_module;
use crate::ir::Module;
use crate::ir::verifier::verify;
use crate::pipeline::Pass;
use crate::pipeline::algsimp::AlgebraicSimplifier;
use crate::pipeline::dce::Dce;
use crate::testdata::{check_against_expected, model_dirs};

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
    let problems = check_against_expected(&module, dir)
        .into_iter()
        .map(|p| format!("{name}: {p}"))
        .collect();
    (problems, before, after)
}

#[test]
fn corpus_still_matches_xla_after_algsimp_and_dce() {
    let mut problems = Vec::new();
    let mut fired = BTreeMap::new();
    let mut totals = [0usize; 4];
    for dir in model_dirs() {
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
