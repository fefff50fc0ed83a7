//! `report.html`: compiling with `--dump-to` writes one self-contained page; headless
//! Chromium loads it from disk, its script runs without errors (it writes `#report-ok`
//! with the number of kernel sections, and `#report-js-error` on any error) and every
//! kernel of the thunk sequence appears in the index the script builds.
//!
//! Needs Debian's `chromium` (`.ci/run` installs it). Under `CI=true` a missing browser
//! fails the test; elsewhere the test prints why it skips.

use std::path::{Path, PathBuf};
use std::process::Command;

const CHROMIUM: &str = "/usr/bin/chromium";

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-report-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The browser, or `None` (after saying why) when it is missing outside CI.
fn chromium() -> Option<&'static str> {
    if Path::new(CHROMIUM).exists() {
        return Some(CHROMIUM);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "{CHROMIUM} is missing: CI must install it (.ci/run does: apt-get install -y chromium)"
    );
    eprintln!("skipping: {CHROMIUM} is not installed (apt-get install -y chromium)");
    None
}

/// The DOM after the page's scripts ran, and Chromium's stderr (console messages).
fn render(browser: &str, page: &Path, test: &str) -> (String, String) {
    // One profile per test: tests run in parallel and Chromium locks its profile.
    let profile = temp_dir(&format!("{test}-profile"));
    std::fs::create_dir_all(&profile).unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("runs chromium");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(out.status.success(), "chromium failed: {:?}", out.status);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Kernel names from the dump's own thunk sequence (`kernel NAME (...)` and
/// `output-fusion NAME: gemm ... then kernel NAME (...)`), not from the report code.
fn kernels_in_thunk_sequence(dump: &Path) -> Vec<String> {
    let file = std::fs::read_dir(dump)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".thunk-sequence.txt"))
        .expect("a thunk sequence");
    let text = std::fs::read_to_string(file).unwrap();
    let mut names = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once("kernel ") else {
            continue;
        };
        let name = rest.split_whitespace().next().unwrap().to_string();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

fn check_model(model: &str, test: &str) {
    let Some(browser) = chromium() else {
        return;
    };
    let dump = temp_dir(test);
    let status = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(["compile", model, "--dump-to"])
        .arg(&dump)
        .status()
        .unwrap();
    assert!(status.success());
    let page = dump.join("report.html");
    let html = std::fs::read_to_string(&page).expect("report.html is written");
    // Self-contained: nothing is fetched.
    for remote in ["http://", "https://", "<link ", "src=\""] {
        let hits: Vec<&str> = html
            .lines()
            .filter(|l| l.contains(remote) && !l.contains("http://www.w3.org/2000/svg"))
            .collect();
        assert!(hits.is_empty(), "{remote} in report.html: {:?}", &hits[..1]);
    }
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert!(index.lines().any(|l| l.starts_with("report.html\t")));

    let (dom, console) = render(browser, &page, test);
    assert!(
        !dom.contains("id=\"report-js-error\""),
        "script error:\n{dom}"
    );
    assert!(!console.contains("Uncaught"), "console:\n{console}");
    let kernels = kernels_in_thunk_sequence(&dump);
    assert!(!kernels.is_empty());
    let marker = format!("id=\"report-ok\" data-kernels=\"{}\"", kernels.len());
    assert!(
        dom.contains(&marker),
        "no {marker} (the script did not run, or counted other kernels)"
    );
    for k in &kernels {
        assert!(
            dom.contains(&format!("<li data-kernel-index=\"{k}\">")),
            "kernel {k} is not in the index the script built"
        );
        assert!(
            dom.contains(&format!("data-kernel=\"{k}\"")),
            "kernel {k} has no section"
        );
    }
    // Linked highlighting has something to link: HLO and CLIF lines share names.
    assert!(dom.contains("class=\"l\" data-n=\""));
    assert!(dom.contains("id=\"kernel-graph\"") && dom.contains("id=\"liveness\""));
    assert!(dom.contains("not measured"));
    let _ = std::fs::remove_dir_all(&dump);
}

#[test]
fn transformer_block_report_loads_in_chromium() {
    check_model("testdata/bench/transformer_block/model.hlo", "transformer");
}

#[test]
fn mlp_report_loads_in_chromium() {
    check_model("testdata/mlp/model.hlo", "mlp");
}

#[test]
fn run_rewrites_the_report_with_measured_times() {
    let Some(browser) = chromium() else {
        return;
    };
    let dump = temp_dir("run");
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args([
            "run",
            "testdata/mlp/model.hlo",
            "--quiet",
            "--triad-gbs",
            "10",
            "--dump-to",
        ])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (dom, console) = render(browser, &dump.join("report.html"), "run");
    assert!(!dom.contains("id=\"report-js-error\""), "script error");
    assert!(!console.contains("Uncaught"), "console:\n{console}");
    assert!(dom.contains("mean over 5 warm runs"), "no measurement note");
    assert!(dom.contains("Triad bandwidth: 10.00 GB/s"));
    assert!(dom.contains("<th>% of triad</th>"));
    // Every kernel row of the cost table has a time in ms, not "not measured".
    for k in kernels_in_thunk_sequence(&dump) {
        let row = dom
            .split("<tr>")
            .find(|r| r.contains(&format!("<td><code>{k}</code></td>")))
            .unwrap_or_else(|| panic!("no cost row for {k}"));
        assert!(
            row.contains(" ms</td>") && row.contains(" GB/s</td>"),
            "{row}"
        );
    }
    let _ = std::fs::remove_dir_all(&dump);
}
