//! Regression tests for bad input: every file in `tests/bad_input/` whose first lines hold
//! `// RUN:` directives is run through the `xlac` binary, and must end as documented.
//!
//! ```text
//! // RUN: run %s --input %S/huge_header.npy      (arguments after `xlac`)
//! // EXIT: 1                                      (the exit code, default 1)
//! // STDERR: cannot allocate                      (each must appear in stderr)
//! // STDOUT: 1 passed                             (each must appear in stdout)
//! ```
//!
//! `%s` is the file itself, `%S` its folder, `%t` a fresh scratch folder. A file may hold
//! several RUN blocks. Every run must also: exit normally (no signal, no abort), print no
//! `internal error` and no Rust panic text, and, when it fails (other than `check`, which
//! reports per case on stdout), print exactly one `error:` line. Binary inputs (`.npy`,
//! `.npz`) beside the models come from `tests/bad_input/make_inputs.py`; crashers the
//! fuzzer found live here too.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Run {
    args: String,
    exit: i32,
    stderr: Vec<String>,
    stdout: Vec<String>,
}

fn directives(text: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("//") else {
            continue;
        };
        let rest = rest.trim();
        if let Some(args) = rest.strip_prefix("RUN:") {
            runs.push(Run {
                args: args.trim().to_string(),
                exit: 1,
                stderr: Vec::new(),
                stdout: Vec::new(),
            });
        } else if let Some(last) = runs.last_mut() {
            if let Some(code) = rest.strip_prefix("EXIT:") {
                last.exit = code.trim().parse().expect("EXIT takes a number");
            } else if let Some(s) = rest.strip_prefix("STDERR:") {
                last.stderr.push(s.trim().to_string());
            } else if let Some(s) = rest.strip_prefix("STDOUT:") {
                last.stdout.push(s.trim().to_string());
            }
        }
    }
    runs
}

fn cases() -> Vec<(PathBuf, Vec<Run>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/bad_input exists")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read(&path).ok()?;
            let runs = directives(&String::from_utf8_lossy(&text));
            (!runs.is_empty()).then_some((path, runs))
        })
        .collect()
}

fn check_run(file: &Path, run: &Run, scratch: &Path) -> Result<(), String> {
    let folder = file.parent().unwrap_or(Path::new("."));
    let args: Vec<String> = run
        .args
        .split_whitespace()
        .map(|a| {
            a.replace("%s", &file.display().to_string())
                .replace("%S", &folder.display().to_string())
                .replace("%t", &scratch.display().to_string())
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(&args)
        .env_remove("XLAC_BACKTRACE")
        .env_remove("RUST_BACKTRACE")
        .output()
        .map_err(|e| format!("cannot run xlac: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let show = || {
        format!(
            "xlac {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
            args.join(" ")
        )
    };
    let Some(code) = out.status.code() else {
        return Err(format!("killed by a signal ({:?})\n{}", out.status, show()));
    };
    if code != run.exit {
        return Err(format!(
            "exit code {code}, expected {}\n{}",
            run.exit,
            show()
        ));
    }
    for bad in [
        "internal error",
        "panicked",
        "RUST_BACKTRACE",
        "stack overflow",
    ] {
        if stderr.contains(bad) || stdout.contains(bad) {
            return Err(format!("the output says '{bad}'\n{}", show()));
        }
    }
    let errors = stderr.lines().filter(|l| l.starts_with("error:")).count();
    let is_check = args.first().map(String::as_str) == Some("check");
    if code != 0 && !is_check && errors != 1 {
        return Err(format!("{errors} error: lines, expected one\n{}", show()));
    }
    if code == 0 && errors != 0 {
        return Err(format!("exit 0 with an error: line\n{}", show()));
    }
    for want in &run.stderr {
        if !stderr.contains(want.as_str()) {
            return Err(format!("stderr lacks '{want}'\n{}", show()));
        }
    }
    for want in &run.stdout {
        if !stdout.contains(want.as_str()) {
            return Err(format!("stdout lacks '{want}'\n{}", show()));
        }
    }
    Ok(())
}

#[test]
fn every_bad_input_ends_as_documented() {
    let cases = cases();
    assert!(
        cases.len() >= 10,
        "tests/bad_input holds the regression cases"
    );
    let mut failures = Vec::new();
    for (i, (file, runs)) in cases.iter().enumerate() {
        for (j, run) in runs.iter().enumerate() {
            let scratch =
                std::env::temp_dir().join(format!("xlac-bad-input-{}-{i}-{j}", std::process::id()));
            std::fs::create_dir_all(&scratch).unwrap();
            if let Err(e) = check_run(file, run, &scratch) {
                failures.push(format!("{}: {e}", file.display()));
            }
            let _ = std::fs::remove_dir_all(&scratch);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
