//! The compiled backend from the command line (design.md §4): `xlac run` runs compiled
//! code by default and `--backend interpreter` still works; `--compare-to interpreter`
//! prints one line per output leaf with its largest errors and a verdict; `xlac bench
//! --json` prints one JSON line with `compile_ms`, `run_ms_median`, `run_ms_min`, `iters`, `run_ms`,
//! `peak_rss_mb`;
//! bad input is one `error:` line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `dot(x, y) + x·x`: one dot (a library thunk) and elementwise work (a kernel).
const DOT_MODEL: &str = "\
HloModule dot_model, entry_computation_layout={(f32[4,4]{1,0}, f32[4,4]{1,0})->f32[4,4]{1,0}}

ENTRY main {
  x.1 = f32[4,4]{1,0} parameter(0)
  y.2 = f32[4,4]{1,0} parameter(1)
  d.3 = f32[4,4]{1,0} dot(x.1, y.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  m.4 = f32[4,4]{1,0} multiply(x.1, x.1)
  ROOT a.5 = f32[4,4]{1,0} add(d.3, m.4)
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
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("the xlac binary runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn model_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-cli-compiled-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.hlo");
    std::fs::write(&path, DOT_MODEL).unwrap();
    path
}

fn one_error(out: &Output) -> String {
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "expected one error line: {}", out.stderr);
    assert!(lines[0].starts_with("error: "), "{}", out.stderr);
    lines[0].to_string()
}

/// The per-leaf report: a header with the tolerances, then `output N TYPE: ...: ok`.
fn assert_report(stdout: &str, rtol: &str, atol: &str) {
    let header = format!("compare to interpreter (rtol {rtol}, atol {atol}):");
    assert!(stdout.contains(&header), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("output 0 f32[4,4]: max abs error ")
        })
        .unwrap_or_else(|| panic!("no report line for output 0: {stdout}"));
    assert!(
        line.contains(", max rel error ") && line.ends_with(": ok"),
        "{line}"
    );
}

#[test]
fn interpreter_backend_still_runs() {
    let path = model_file("interp");
    let out = xlac(&["run", path.to_str().unwrap(), "--backend", "interpreter"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("f32[4,4] {"), "{}", out.stdout);
}

#[test]
fn compare_to_interpreter_reports_each_output() {
    let path = model_file("compare");
    let path = path.to_str().unwrap();
    // The interpreter backend compares the optimized module with the module as loaded.
    let out = xlac(&[
        "run",
        path,
        "--backend",
        "interpreter",
        "--compare-to",
        "interpreter",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_report(&out.stdout, "0.001", "0.001");
    // The compiled backend (the default) against the interpreter, with given tolerances.
    let out = xlac(&[
        "run",
        path,
        "--compare-to",
        "interpreter",
        "--rtol",
        "1e-5",
        "--atol",
        "1e-6",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_report(&out.stdout, "0.00001", "0.000001");
}

#[test]
fn compiled_is_the_default_backend_and_matches() {
    let path = model_file("default");
    let compiled = xlac(&["run", path.to_str().unwrap(), "--seed", "3"]);
    let interp = xlac(&[
        "run",
        path.to_str().unwrap(),
        "--seed",
        "3",
        "--backend",
        "interpreter",
    ]);
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    assert_eq!(interp.code, 0, "{}", interp.stderr);
    assert!(
        compiled.stdout.starts_with("f32[4,4] {"),
        "{}",
        compiled.stdout
    );
}

#[test]
fn bench_json_is_one_line_with_the_times() {
    let path = model_file("bench");
    let out = xlac(&["bench", path.to_str().unwrap(), "--iters", "5", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("valid JSON");
    for key in ["compile_ms", "run_ms_median", "run_ms_min"] {
        assert!(
            v[key].as_f64().is_some_and(|x| x >= 0.0),
            "{key}: {}",
            lines[0]
        );
    }
    assert_eq!(v["iters"], 5);
    assert!(v["run_ms_min"].as_f64() <= v["run_ms_median"].as_f64());
    // Every run, whose least is the minimum.
    let runs: Vec<f64> = v["run_ms"]
        .as_array()
        .expect("run_ms is a list")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(runs.len(), 5, "{}", lines[0]);
    assert_eq!(
        runs.iter().copied().fold(f64::INFINITY, f64::min),
        v["run_ms_min"].as_f64().unwrap()
    );
    // The process's peak resident set: a compiled program and its runtime take more than
    // a MiB, and a 4x4 dot far less than a GiB.
    let rss = v["peak_rss_mb"].as_f64().expect("peak_rss_mb is a number");
    assert!(rss > 1.0 && rss < 1024.0, "{}", lines[0]);
}

#[test]
fn bad_input_is_one_error_line() {
    let missing = Path::new("/nonexistent/model.hlo");
    let out = xlac(&["bench", missing.to_str().unwrap(), "--json"]);
    assert_ne!(out.code, 0);
    assert!(one_error(&out).contains("cannot read"));

    let path = model_file("bad");
    let out = xlac(&["bench", path.to_str().unwrap(), "--iters", "0"]);
    assert_eq!(out.code, 2);
    assert!(one_error(&out).contains("--iters"));

    // An input of the wrong shape names the parameter (compiled backend, the default).
    let npy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/f32_3.npy");
    let out = xlac(&[
        "run",
        path.to_str().unwrap(),
        "--input",
        npy.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    let msg = one_error(&out);
    assert!(
        msg.contains("parameter 0") && msg.contains("f32[4,4]"),
        "{msg}"
    );
}
