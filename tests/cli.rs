//! The `xlac` binary as users meet it (design.md §4): every failure is exactly one
//! `error:` line on stderr and a non-zero exit, never a panic; a good run prints the result
//! and writes `--output`. Fixture arrays come from `tests/fixtures/make_fixtures.py`.

use std::path::{Path, PathBuf};
use std::process::Command;

use xlac::io::npz::read_npz;

/// `f32[2,3] + f32[2,3]`, in the short text style JAX writes.
const ADD_MODEL: &str = "\
HloModule add_model, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{1,0})->f32[2,3]{1,0}}

ENTRY main {
  x.1 = f32[2,3]{1,0} parameter(0)
  y.2 = f32[2,3]{1,0} parameter(1)
  ROOT add.3 = f32[2,3]{1,0} add(x.1, y.2)
}
";

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn xlac(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        // With XLAC_BACKTRACE set, a panic also prints Rust's own message.
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("the xlac binary runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A scratch folder unique to one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Exactly one line on stderr, starting `error: `, a non-zero exit, no panic. Returns the
/// message after `error: `.
fn one_error(out: &Output) -> String {
    assert_ne!(out.code, 0, "exit code; stderr: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "panic: {}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "stderr should be one line: {:?}",
        out.stderr
    );
    lines[0]
        .strip_prefix("error: ")
        .unwrap_or_else(|| panic!("no `error: ` prefix: {}", lines[0]))
        .to_string()
}

#[test]
fn missing_file() {
    let out = xlac(&["run", "/nonexistent/model.hlo"]);
    assert_eq!(
        one_error(&out),
        "cannot read /nonexistent/model.hlo: No such file or directory"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn empty_file() {
    let dir = scratch("empty");
    let path = write(&dir, "empty.hlo", "");
    let msg = one_error(&xlac(&["run", &path]));
    assert!(msg.starts_with(&format!("{path}:1:1: ")), "{msg}");
    assert!(msg.contains("empty"), "{msg}");
}

#[test]
fn binary_junk() {
    let dir = scratch("junk");
    let junk: Vec<u8> = (0..512u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let path = write(&dir, "junk.hlo", &junk);
    let msg = one_error(&xlac(&["run", &path]));
    assert!(msg.starts_with(&format!("{path}:")), "{msg}");
    // Text that is not a model at all, valid UTF-8 this time.
    let path = write(&dir, "words.hlo", "hello world\n");
    let msg = one_error(&xlac(&["run", &path]));
    assert!(
        msg.starts_with(&format!("{path}:1:1: ")) && msg.contains("'hello'"),
        "{msg}"
    );
}

#[test]
fn stablehlo_is_detected_by_content() {
    let dir = scratch("mlir");
    let path = write(
        &dir,
        "model.txt",
        "module @jit_f {\n  func.func public @main() {\n  }\n}\n",
    );
    let msg = one_error(&xlac(&["run", &path]));
    // Read as StableHLO whatever the extension: the empty body has no return.
    assert!(
        msg.starts_with(&format!("{path}:2:")) && msg.contains("must end with a return"),
        "{msg}"
    );
}

#[test]
fn truncated_file() {
    let dir = scratch("truncated");
    let cut = &ADD_MODEL[..ADD_MODEL.find("parameter(1)").unwrap() + 5];
    let path = write(&dir, "model.hlo", cut);
    let msg = one_error(&xlac(&["run", &path]));
    // The text ends on line 5, inside `param`.
    assert!(msg.starts_with(&format!("{path}:5:")), "{msg}");
}

#[test]
fn unknown_opcode() {
    let dir = scratch("opcode");
    let path = write(
        &dir,
        "model.hlo",
        ADD_MODEL.replace("add(x.1", "frobnicate(x.1"),
    );
    let msg = one_error(&xlac(&["run", &path]));
    assert!(msg.starts_with(&format!("{path}:6:")), "{msg}");
    assert!(msg.contains("frobnicate"), "{msg}");
}

#[test]
fn shape_mismatch_is_a_verifier_error() {
    let dir = scratch("verifier");
    // The declared result type is wrong in both places (header and ROOT), so the one
    // finding is that `add` of two f32[2,3] cannot be f32[2,4].
    let wrong = ADD_MODEL
        .replace("f32[2,3]{1,0} add", "f32[2,4]{1,0} add")
        .replace("->f32[2,3]", "->f32[2,4]");
    let path = write(&dir, "model.hlo", wrong);
    let out = xlac(&["run", &path]);
    let msg = one_error(&out);
    assert_eq!(out.code, 1);
    assert!(
        msg.starts_with(&format!("{path}:")) && msg.contains("add.3"),
        "{msg}"
    );
}

#[test]
fn wrong_input_dtype() {
    let dir = scratch("dtype");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let out = xlac(&[
        "run",
        &path,
        "--input",
        &fixture("f32_2x3.npy"),
        "--input",
        &fixture("s32_2x3.npy"),
    ]);
    let msg = one_error(&out);
    assert_eq!(out.code, 1);
    assert!(
        msg.starts_with("parameter 1 (y.2) expects f32[2,3] but the input has s32[2,3]"),
        "{msg}"
    );
}

#[test]
fn wrong_input_shape() {
    let dir = scratch("shape");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let msg = one_error(&xlac(&[
        "run",
        &path,
        "--input",
        &fixture("f32_3.npy"),
        "--input",
        &fixture("f32_2x3.npy"),
    ]));
    assert!(
        msg.starts_with("parameter 0 (x.1) expects f32[2,3] but the input has f32[3]"),
        "{msg}"
    );
}

#[test]
fn wrong_input_count() {
    let dir = scratch("count");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let a = fixture("f32_2x3.npy");
    let msg = one_error(&xlac(&[
        "run", &path, "--input", &a, "--input", &a, "--input", &a,
    ]));
    assert_eq!(msg, "the model takes 2 parameters but 3 inputs were given");
    let msg = one_error(&xlac(&["run", &path, "--input", &fixture("mixed.npz")]));
    assert!(
        msg.starts_with("the model takes 2 parameters but ")
            && msg.ends_with("mixed.npz has 8 arrays"),
        "{msg}"
    );
}

#[test]
fn runs_and_writes_output() {
    let dir = scratch("output");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let out_path = dir.join("out.npz");
    let a = fixture("f32_2x3.npy");
    let out = xlac(&[
        "run",
        &path,
        "--input",
        &a,
        "--input",
        &a,
        "--output",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    // arange(6) + arange(6), as XLA prints an f32[2,3] literal.
    assert_eq!(
        out.stdout.trim(),
        "f32[2,3] {\n  { 0, 2, 4 },\n  { 6, 8, 10 }\n}"
    );
    let leaves = read_npz(&out_path).unwrap();
    assert_eq!(leaves.len(), 1);
    assert_eq!(
        leaves[0].literal.values::<f32>().unwrap(),
        &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    );
}

#[test]
fn quiet_prints_nothing_and_dump_writes_the_module() {
    let dir = scratch("quiet");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let dump = dir.join("dump");
    let out = xlac(&["run", &path, "--quiet", "--dump-to", dump.to_str().unwrap()]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (0, "", "")
    );
    let text = std::fs::read_to_string(dump.join("module_0000.add_model.before_optimizations.txt"))
        .unwrap();
    assert!(text.starts_with("HloModule add_model"), "{text}");
    // The printer may add XLA's `%` sigils; the instruction itself must be there.
    assert!(
        text.contains("add.3 = f32[2,3]{1,0} add(") && text.contains("ROOT"),
        "{text}"
    );
}

#[test]
fn seeded_random_inputs_are_deterministic() {
    let dir = scratch("seed");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let one = xlac(&["run", &path, "--seed", "5"]);
    let two = xlac(&["run", &path, "--seed", "5"]);
    let other = xlac(&["run", &path, "--seed", "6"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, two.stdout);
    assert_ne!(one.stdout, other.stdout);
}

/// The README's first-run command: a real JAX model with the inputs and outputs JAX gave.
#[test]
fn mlp_matches_jax() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/mlp");
    let dir = scratch("mlp");
    let out_path = dir.join("out.npz");
    let out = xlac(&[
        "run",
        root.join("model.hlo").to_str().unwrap(),
        "--input",
        root.join("inputs.npz").to_str().unwrap(),
        "--output",
        out_path.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let got = read_npz(&out_path).unwrap();
    let want = read_npz(&root.join("expected.npz")).unwrap();
    assert_eq!(got.len(), want.len());
    let (g, w) = (
        got[0].literal.values::<f32>().unwrap(),
        want[0].literal.values::<f32>().unwrap(),
    );
    assert_eq!(g.len(), w.len());
    for (a, b) in g.iter().zip(w) {
        assert!((a - b).abs() <= 1e-5 + 1e-5 * b.abs(), "{a} vs {b}");
    }
}

#[test]
fn isa_writes_a_listing_beside_the_hosts() {
    // `--isa` used to be "not available yet"; tests/cli_isa.rs covers it in depth.
    let dir = scratch("todo");
    let path = write(&dir, "model.hlo", ADD_MODEL);
    let dump = dir.join("dump");
    let dump_s = dump.display().to_string();
    let out = xlac(&[
        "compile",
        path.as_str(),
        "--dump-to",
        dump_s.as_str(),
        "--isa",
        "aarch64",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert!(index.contains(".aarch64.asm"), "{index}");
}

#[test]
fn check_prints_one_line_per_case_and_a_summary() {
    // Two cases (the first chunk has no function and is not a case). Until the StableHLO
    // converter is merged they are UNSUPPORTED; afterwards they PASS and FAIL.
    let dir = scratch("check");
    let text = "// RUN: stablehlo-translate --interpret -split-input-file %s\n// -----\nfunc.func @ok() {\n  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi64>\n  func.return\n}\n// -----\nfunc.func @bad() {\n  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi64>\n  func.return\n}\n";
    let path = write(&dir, "t.mlir", text);
    let out = xlac(&["check", path.as_str()]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    let first = format!("{path}:0");
    assert!(
        lines[0] == format!("PASS {first}")
            || lines[0].starts_with(&format!("UNSUPPORTED {first}: ")),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("FAIL ") || lines[1].starts_with("UNSUPPORTED "),
        "{}",
        lines[1]
    );
    assert!(
        lines[2] == "1 passed, 1 failed, 0 skipped" || lines[2] == "0 passed, 0 failed, 2 skipped",
        "{}",
        lines[2]
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn usage_errors_are_one_line() {
    for args in [
        vec![],
        vec!["run"],
        vec!["run", "m.hlo", "--seed", "x"],
        vec!["run", "m.hlo", "--bogus"],
        vec!["runn"],
    ] {
        let out = xlac(&args);
        one_error(&out);
        assert_eq!(out.code, 2, "{args:?}");
    }
    let help = xlac(&["run", "--help"]);
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.contains("--input <FILE>") && help.stdout.contains("--compare-to"),
        "{}",
        help.stdout
    );
}

/// A module with a dead instruction, so `dce` changes it and the dump holds a pass file.
const DEAD_CODE_MODEL: &str = "\
HloModule dead_code

ENTRY main {
  x.1 = f32[4]{0} parameter(0)
  unused.2 = f32[4]{0} multiply(x.1, x.1)
  ROOT neg.3 = f32[4]{0} negate(x.1)
}
";

#[test]
fn compile_writes_the_dump_folder_in_xla_names() {
    let dir = scratch("compile");
    let path = write(&dir, "model.hlo", DEAD_CODE_MODEL);
    let dump = dir.join("dump");
    let _ = std::fs::remove_dir_all(&dump);
    let out = xlac(&["compile", &path, "--dump-to", &dump.display().to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut files: Vec<String> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // The dead multiply is gone after dce, so that pass has a numbered file; every stage
    // after the passes has its file under XLA's name.
    for expected in [
        "index.txt",
        "module_0000.dead_code.0000.simplification.after_dce.before_tuple-simplifier.txt",
        "module_0000.dead_code.before_optimizations.txt",
        "module_0000.dead_code.compile-times.txt",
        "module_0000.dead_code.cpu_after_optimizations.txt",
        "module_0000.dead_code.fusion-decisions.txt",
        "module_0000.dead_code.cpu_after_optimizations-buffer-assignment.txt",
        "module_0000.dead_code.cpu_after_optimizations-live-range.txt",
        "module_0000.dead_code.cpu_after_optimizations-memory-usage-report.txt",
        "module_0000.dead_code.thunk-sequence.txt",
        "module_0000.dead_code.wrapped_negate.ir-no-opt.clif",
        "module_0000.dead_code.wrapped_negate.ir-with-opt.clif",
        "module_0000.dead_code.wrapped_negate.asm",
    ] {
        assert!(
            files.iter().any(|f| f == expected),
            "{expected} missing from {files:?}"
        );
    }
    let after =
        std::fs::read_to_string(dump.join("module_0000.dead_code.cpu_after_optimizations.txt"))
            .unwrap();
    assert!(!after.contains("unused.2"), "{after}");
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert_eq!(index.lines().count(), files.len() - 1, "{index}");
    // The final dump is HLO that xlac runs again.
    let run = xlac(&[
        "run",
        &dump
            .join("module_0000.dead_code.cpu_after_optimizations.txt")
            .display()
            .to_string(),
        "--quiet",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn disabled_and_filtered_passes_leave_no_pass_file() {
    let dir = scratch("disable");
    let path = write(&dir, "model.hlo", DEAD_CODE_MODEL);
    for flags in [["--disable-passes", "dce"], ["--dump-pass-re", "^algsimp$"]] {
        let dump = dir.join(format!("dump{}", flags[0]));
        let _ = std::fs::remove_dir_all(&dump);
        let out = xlac(&[
            "compile",
            &path,
            "--dump-to",
            &dump.display().to_string(),
            flags[0],
            flags[1],
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let pass_files = std::fs::read_dir(&dump)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.contains(".after_"))
            .collect::<Vec<_>>();
        // Disabled: dce never changes the module. Filtered: only files naming algsimp.
        let unwanted: Vec<_> = pass_files
            .iter()
            .filter(|f| {
                if flags[0] == "--disable-passes" {
                    f.contains("after_dce.")
                } else {
                    !f.contains("algsimp")
                }
            })
            .collect();
        assert!(unwanted.is_empty(), "{flags:?}: {unwanted:?}");
    }
    let bad = xlac(&[
        "compile",
        &path,
        "--dump-to",
        &dir.join("x").display().to_string(),
        "--dump-pass-re",
        "(",
    ]);
    assert_eq!(bad.code, 2);
    assert!(one_error(&bad).contains("--dump-pass-re"));
}

#[test]
fn bisect_reports_that_all_passes_agree() {
    let dir = scratch("bisect");
    let path = write(&dir, "model.hlo", DEAD_CODE_MODEL);
    let out = xlac(&["run", &path, "--bisect", "--quiet"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("agree"), "{}", out.stderr);
}

#[test]
fn two_compiles_write_identical_dumps_apart_from_times() {
    let dir = scratch("determinism");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/transformer_block/model.hlo");
    let mut dumps = Vec::new();
    for run in 0..2 {
        let dump = dir.join(format!("dump{run}"));
        let _ = std::fs::remove_dir_all(&dump);
        let out = xlac(&[
            "compile",
            &model.display().to_string(),
            "--dump-to",
            &dump.display().to_string(),
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut files: Vec<(String, String)> = std::fs::read_dir(&dump)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.to_string_lossy().ends_with("compile-times.txt"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        files.sort();
        dumps.push(files);
    }
    assert!(
        dumps[0].len() > 4,
        "expected per-pass files, got {:?}",
        dumps[0].iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(dumps[0], dumps[1]);
}
