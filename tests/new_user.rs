//! A newcomer's first hour, as the README's first section tells it: export a JAX function
//! with `scripts/export_jax.py` (done once with the pinned jax; the output is the checked-in
//! fixture `tests/fixtures/export/out/`, from `tests/fixtures/export/my_model.py`), run it,
//! compare with XLA's outputs (`--expected`), open the dump, and ask about one line of the
//! Python source.
//!
//! Regenerate the fixture (from `tests/fixtures/export/`, with a venv holding
//! testdata/requirements.txt):
//! `python ../../../scripts/export_jax.py my_model:predict --arg 'f32[4,16]' --arg 'f32[16,8]' --arg 'f32[8]' --out out`

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/export/out")
        .join(file)
}

fn xlac(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn export_run_compare_open_the_dump() {
    let dump = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new_user_dump");
    let _ = std::fs::remove_dir_all(&dump);
    let (hlo, mlir) = (fixture("model.hlo"), fixture("model.mlir"));
    let (inputs, expected) = (fixture("inputs.npz"), fixture("expected.npz"));
    // The export kept source locations (debug info) in both files.
    let hlo_text = std::fs::read_to_string(&hlo).unwrap();
    assert!(hlo_text.contains("\"my_model.py\"") && hlo_text.contains("stack_frame_id="));
    assert!(
        std::fs::read_to_string(&mlir)
            .unwrap()
            .contains("my_model.py")
    );

    // Run and compare with XLA's outputs: both outputs within tolerance.
    let (code, out, err) = xlac(&[
        "run",
        s(&hlo),
        "--input",
        s(&inputs),
        "--expected",
        s(&expected),
        "--dump-to",
        s(&dump),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("expected.npz (rtol 0.001, atol 0.001):"),
        "{out}"
    );
    let oks = out
        .lines()
        .filter(|l| l.trim_start().starts_with("output ") && l.ends_with(": ok"))
        .count();
    assert_eq!(oks, 2, "{out}");

    // The StableHLO file runs the same way.
    let (code, out, err) = xlac(&[
        "run",
        s(&mlir),
        "--input",
        s(&inputs),
        "--expected",
        s(&expected),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "--quiet prints nothing: {out}");

    // Open the dump: the page, the index, the final HLO.
    for f in [
        "report.html",
        "index.txt",
        "module_0000.jit_predict.cpu_after_optimizations.txt",
    ] {
        assert!(dump.join(f).exists(), "{f} missing");
    }
    let page = std::fs::read_to_string(dump.join("report.html")).unwrap();
    assert!(
        page.contains("mean over 5 warm runs"),
        "report says how it measured"
    );

    // One line of the Python source, followed through the compiler.
    let (code, story, err) = xlac(&["explain", s(&hlo), "my_model.py:9"]);
    assert_eq!(code, 0, "{err}");
    assert!(story.contains("fusion: %"), "{story}");
}

#[test]
fn a_wrong_expected_file_fails_with_one_line() {
    let (hlo, inputs) = (fixture("model.hlo"), fixture("inputs.npz"));
    // inputs.npz holds three arrays, not the two outputs.
    let (code, _, err) = xlac(&[
        "run",
        s(&hlo),
        "--input",
        s(&inputs),
        "--expected",
        s(&inputs),
        "--quiet",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("2 outputs"),
        "{err}"
    );
    // Values that differ: the expected outputs, perturbed.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("new_user_wrong");
    std::fs::create_dir_all(&dir).unwrap();
    let wrong = dir.join("wrong.npz");
    let mut arrays = xlac::io::npz::read_npz(&fixture("expected.npz")).unwrap();
    if let xlac::ir::ArrayData::F32(v) = &mut arrays[0].literal.data {
        v[0] += 1.0;
    } else {
        panic!("expected f32 outputs");
    }
    let leaves: Vec<&xlac::ir::ArrayLiteral> = arrays.iter().map(|a| &a.literal).collect();
    xlac::io::npz::write_npz(&wrong, &leaves).unwrap();
    let (code, out, err) = xlac(&[
        "run",
        s(&hlo),
        "--input",
        s(&inputs),
        "--expected",
        s(&wrong),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("MISMATCH"), "{out}");
    assert!(err.contains("1 output(s) differ from"), "{err}");
    // A missing file is one line too.
    let (code, _, err) = xlac(&[
        "run",
        s(&hlo),
        "--expected",
        "/nonexistent/e.npz",
        "--quiet",
    ]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
}
