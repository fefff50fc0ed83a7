//! What a run leaves: the result printed and saved (`--output`), checked against a file
//! (`--expected`) or the interpreter (`--compare-to`), and the measured `report.html`.
//! Shared by the one-device and multi-device runs, `bench` and `diff-dump`.

use std::io::Write;

use super::{Failure, RunArgs};
use crate::eval::compare::{Tolerance, compare_arrays};
use crate::io::npz::{read_arrays, write_npz};
use crate::ir::Literal;
use crate::report::{ReportData, ReportOptions};
use crate::runtime::profile::ThunkTimes;

/// `--rtol` and `--atol` when not given: run_hlo_module's defaults.
pub const DEFAULT_TOLERANCE: Tolerance = Tolerance {
    rtol: 1e-3,
    atol: 1e-3,
};

/// Prints the result (unless `--quiet`) and writes `--output`.
pub fn print_and_save(result: &Literal, args: &RunArgs) -> Result<(), Failure> {
    if !args.quiet {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = writeln!(stdout, "{result}").and_then(|_| stdout.flush()) {
            // A closed pipe (`xlac run m.hlo | head`) is the reader's choice, not an error.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(Failure::error(format!("cannot print the result: {e}")));
            }
        }
    }
    if let Some(out) = &args.output {
        write_npz(out, &result.leaves())?;
    }
    Ok(())
}

/// `--expected FILE.npz`: compares the result's leaves with the file's arrays, in order,
/// with the `--compare-to` rules; prints the per-leaf report (unless `--quiet`) and fails
/// on a mismatch.
pub fn compare_with_file(
    result: &Literal,
    expected: &std::path::Path,
    args: &RunArgs,
    file: &str,
) -> Result<(), Failure> {
    let arrays = read_arrays(expected)?;
    let want: Vec<&crate::ir::ArrayLiteral> = arrays.iter().map(|a| &a.literal).collect();
    let tol = Tolerance {
        rtol: args.rtol.unwrap_or(DEFAULT_TOLERANCE.rtol),
        atol: args.atol.unwrap_or(DEFAULT_TOLERANCE.atol),
    };
    let shown = expected.display().to_string();
    let theirs = format!("{shown} holds");
    let (report, failed) = compare_leaves(&result.leaves(), &want, tol, &shown, &theirs)?;
    if !args.quiet {
        print!("{report}");
    }
    if failed > 0 {
        return Err(Failure::error(format!(
            "{file}: {failed} output(s) differ from {shown} beyond rtol {} / atol {}",
            tol.rtol, tol.atol
        )));
    }
    Ok(())
}

/// One line per output leaf: `output N TYPE: max abs error A, max rel error R: ok` (or
/// `MISMATCH (...)`), after a header naming the tolerances. Returns the text and the number
/// of leaves that failed.
pub fn comparison_report(
    got: &Literal,
    want: &Literal,
    tol: Tolerance,
) -> Result<(String, usize), Failure> {
    compare_leaves(
        &got.leaves(),
        &want.leaves(),
        tol,
        "interpreter",
        "the interpreter's",
    )
}

/// [`comparison_report`] over leaves; `against` names the reference in the header
/// (`compare to interpreter`), `theirs` in the count mismatch (`the interpreter's`).
pub fn compare_leaves(
    g: &[&crate::ir::ArrayLiteral],
    w: &[&crate::ir::ArrayLiteral],
    tol: Tolerance,
    against: &str,
    theirs: &str,
) -> Result<(String, usize), Failure> {
    if g.len() != w.len() {
        return Err(Failure::error(format!(
            "the compiled result has {} outputs, {theirs} {}",
            g.len(),
            w.len()
        )));
    }
    let mut out = format!(
        "compare to {against} (rtol {}, atol {}):\n",
        tol.rtol, tol.atol
    );
    let mut failed = 0;
    for (i, (a, e)) in g.iter().zip(w).enumerate() {
        let c =
            compare_arrays(a, e, tol).map_err(|m| Failure::error(format!("output {i}: {m}")))?;
        let verdict = if c.ok() {
            "ok".to_string()
        } else {
            failed += 1;
            format!("MISMATCH ({c})")
        };
        out.push_str(&format!(
            "  output {i} {}: max abs error {:.3e}, max rel error {:.3e}: {verdict}\n",
            crate::ir::Shape::Array(a.shape.clone()),
            c.max_abs_error,
            c.max_rel_error
        ));
    }
    Ok((out, failed))
}

/// Rewrites `DIR/report.html` with per-thunk mean times over `runs` warm executions.
pub fn write_measured_report(
    dir: &std::path::Path,
    compiled: &crate::compiler::Compiled,
    times: &ThunkTimes,
    runs: usize,
    triad_gbs: Option<f64>,
) -> Result<(), Failure> {
    write_measured_report_as(dir, compiled, times, runs, false, triad_gbs)
}

/// Rewrites `DIR/report.html` with per-thunk mean times over `runs` executions; `cold`
/// says they are the first execution's (page faults and cold caches included).
pub fn write_measured_report_as(
    dir: &std::path::Path,
    compiled: &crate::compiler::Compiled,
    times: &ThunkTimes,
    runs: usize,
    cold: bool,
    triad_gbs: Option<f64>,
) -> Result<(), Failure> {
    let data = ReportData {
        executable: &compiled.executable,
        fusion_decisions: &compiled.fusion_decisions,
        pass_steps: &compiled.pass_steps,
        spmd: compiled.spmd_decisions.as_ref(),
        collectives: None,
    };
    let options = ReportOptions {
        thunk_ms: Some(times.mean_ms(runs)),
        runs,
        cold,
        triad_gbs,
        devices: None,
    };
    crate::compiler::write_measured_report(dir, &data, &options)
        .map_err(|e| Failure::error(e.to_string()))
}
