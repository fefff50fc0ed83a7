//! `xlac check FILE.mlir...`: runs self-checking StableHLO test files and prints one line
//! per case (`PASS file:case`, `FAIL file:case: reason`, `UNSUPPORTED ...`, `ERROR ...`),
//! then `N passed, M failed, K skipped` over all files (UNSUPPORTED counts as skipped,
//! ERROR as failed). Exits 0 only when every case passed. The engine is [`crate::check`].

use std::io::Write;
use std::path::PathBuf;

use super::{CheckArgs, Failure};
use crate::check::{Runner, Summary};

/// Runs `xlac check`.
pub fn check(args: &CheckArgs) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut runner = Runner {
        probe_output_dir: args.probe_output_dir.clone(),
        ..Runner::stablehlo()
    };
    runner.compiled = args.backend == super::Backend::Compiled;
    runner.guard_buffers = args.guard_buffers;
    if let Some(seconds) = args.timeout {
        runner.timeout = std::time::Duration::from_secs_f64(seconds);
    }
    let summary = check_files(&runner, &args.files, &mut stdout.lock());
    if summary.all_passed() {
        Ok(())
    } else {
        // The lines above already say what went wrong: no `error:` line, just the code.
        Err(Failure {
            lines: Vec::new(),
            code: 1,
        })
    }
}

/// Runs every case of `files` with `runner`, writing one line per case and the summary.
pub fn check_files(runner: &Runner, files: &[PathBuf], out: &mut dyn Write) -> Summary {
    let mut summary = Summary::default();
    for file in files {
        let name = file.display().to_string();
        for result in runner.check_file(file, &name) {
            summary.add(&result.status);
            // Output errors (a closed pipe) must not turn into a panic; the exit code
            // still tells the result.
            let _ = writeln!(out, "{result}");
            let _ = out.flush();
        }
    }
    let _ = writeln!(out, "{summary}");
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_one_line_per_case_and_the_summary() {
        let dir = std::env::temp_dir().join(format!("xlac-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("two.hlo");
        let case = "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(1)\n}\n";
        let bad = "HloModule m\nENTRY e {\n  ROOT c = s32[] frobnicate()\n}\n";
        std::fs::write(&file, format!("// RUN: none\n{case}// -----\n{bad}")).unwrap();
        let missing = dir.join("missing.hlo");
        let mut out = Vec::new();
        let summary = check_files(&Runner::hlo_text(), &[file.clone(), missing], &mut out);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(lines[0], format!("PASS {}:0", file.display()));
        assert!(lines[1].starts_with(&format!("ERROR {}:1: ", file.display())));
        assert!(lines[2].starts_with("ERROR ") && lines[2].contains("cannot read"));
        assert_eq!(lines[3], "1 passed, 2 failed, 0 skipped");
        assert!(!summary.all_passed());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
