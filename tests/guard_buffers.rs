//! `--guard-buffers` over real programs: the generated kernels of every `testdata/` model
//! and of the StableHLO conformance corpus run with every buffer placed against a
//! protected page, so a kernel that reads or writes past a buffer would fault (the child
//! process dies of a signal, and this test names the model or the folder). That the guard
//! does fault is `runtime::buffers::tests::reading_past_a_guarded_buffer_faults`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xlac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("the xlac binary runs")
}

fn died_of_a_signal(out: &Output) -> bool {
    out.status.code().is_none()
}

#[test]
fn testdata_kernels_stay_inside_their_buffers() {
    let mut failures = Vec::new();
    let dirs = xlac::testdata::model_dirs();
    for dir in &dirs {
        let model = dir.join("model.hlo");
        let inputs = dir.join("inputs.npz");
        let out = xlac(&[
            "run",
            &model.display().to_string(),
            "--input",
            &inputs.display().to_string(),
            "--guard-buffers",
            "--quiet",
        ]);
        if !out.status.success() {
            failures.push(format!(
                "{}: {:?}: {}",
                dir.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(dirs.len() >= 50, "only {} models", dirs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The corpus, kept in the repository so a fresh clone tests itself.
fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo-conformance")
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "mlir") {
            out.push(p);
        }
    }
}

#[test]
fn conformance_kernels_stay_inside_their_buffers() {
    let dir = conformance_dir();
    let mut files = Vec::new();
    mlir_files(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 400, "only {} files", files.len());
    let (mut passed, mut ran) = (0usize, 0usize);
    let mut failures = Vec::new();
    // A batch per process: a fault names its batch, and the whole corpus stays quick.
    for batch in files.chunks(40) {
        let mut args = vec![
            "check".to_string(),
            "--backend".into(),
            "compiled".into(),
            "--guard-buffers".into(),
        ];
        args.extend(batch.iter().map(|p| p.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = xlac(&refs);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if died_of_a_signal(&out) {
            let last = stdout.lines().last().unwrap_or("").to_string();
            failures.push(format!(
                "{:?} in the batch from {} (last line: {last})",
                out.status,
                batch[0].display()
            ));
            continue;
        }
        passed += stdout.lines().filter(|l| l.starts_with("PASS ")).count();
        ran += stdout
            .lines()
            .filter(|l| l.starts_with("PASS ") || l.starts_with("FAIL "))
            .count();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most cases compile and run; the count keeps the test from passing vacuously.
    assert!(
        ran >= 500 && passed >= 400,
        "{passed} passed of {ran} that ran compiled"
    );
}
