//! `report.html`: compiling with `--dump-to` writes one self-contained page; headless
//! Chromium loads it from disk, its script runs without errors (it writes `#report-ok`
//! with the number of kernel sections, and `#report-js-error` on any error) and every
//! kernel of the thunk sequence appears in the index the script builds. Opened as
//! `report.html#selftest`, the script shows every view in turn, steps through every pass of
//! the pipeline view and opens every fusion cluster of the module graph, then writes
//! `#report-selftest` with what it visited; a sharded run's page has the SPMD decisions and
//! the collectives trace, and a module of 10,000 instructions draws a screenful of rows.
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
    render_at(browser, page, "", test)
}

/// [`render`] with `fragment` (`#selftest`, `#view=NAME`) after the page's address.
fn render_at(browser: &str, page: &Path, fragment: &str, test: &str) -> (String, String) {
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
        .arg(format!("file://{}{fragment}", page.display()))
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
    assert!(dom.contains("id=\"module-graph\"") && dom.contains("id=\"liveness\""));
    assert!(dom.contains("not measured"));
    selftest(
        browser,
        &page,
        test,
        &[
            "overview", "graph", "passes", "kernels", "fusion", "buffers",
        ],
    );
    let _ = std::fs::remove_dir_all(&dump);
}

/// An attribute's value on the element with `id` in `dom`.
fn attribute(dom: &str, id: &str, name: &str) -> Option<String> {
    let at = dom.find(&format!("id=\"{id}\""))?;
    let tag_start = dom[..at].rfind('<')?;
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>')?];
    let (_, rest) = tag.split_once(&format!(" {name}=\""))?;
    Some(rest[..rest.find('"')?].to_string())
}

/// Loads `page#selftest`: every view shows, every pipeline step and fusion cluster is
/// drawn, without errors. Returns the self-test's marker attributes' DOM.
fn selftest(browser: &str, page: &Path, test: &str, views: &[&str]) -> String {
    let (dom, console) = render_at(browser, page, "#selftest", &format!("{test}-selftest"));
    assert!(
        !dom.contains("id=\"report-js-error\""),
        "script error in the self-test:\n{}",
        dom.split("id=\"report-js-error\"").nth(1).unwrap_or("")
    );
    // The page logs nothing: any console message (an error, a warning) fails.
    assert!(
        !console.contains("Uncaught") && !console.contains(":CONSOLE("),
        "console:\n{console}"
    );
    for v in views {
        assert!(dom.contains(&format!("data-view=\"{v}\"")), "no {v} tab");
    }
    let tabs = attribute(&dom, "report-selftest", "data-tabs").expect("the self-test ran");
    let visited = attribute(&dom, "report-selftest", "data-views").unwrap();
    assert_eq!(tabs, visited, "some views did not show");
    assert!(tabs.parse::<usize>().unwrap() >= views.len());
    if views.contains(&"passes") {
        let steps: usize = attribute(&dom, "report-selftest", "data-steps")
            .unwrap()
            .parse()
            .unwrap();
        assert!(steps > 0, "no pipeline steps");
        assert_eq!(
            dom.matches("<li data-step=").count(),
            steps,
            "one list entry per step"
        );
    }
    dom
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
    assert!(!dom.contains("not measured"), "a run measured the thunks");
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

#[test]
fn sharded_run_report_shows_spmd_decisions_and_collectives() {
    let Some(browser) = chromium() else {
        return;
    };
    let dump = temp_dir("sharded");
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args([
            "run",
            "testdata/spmd/dp_mlp_4/model.hlo",
            "--partitions",
            "4",
            "--quiet",
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
    let page = dump.join("report.html");
    let dom = selftest(
        browser,
        &page,
        "sharded",
        &[
            "overview",
            "graph",
            "passes",
            "kernels",
            "fusion",
            "buffers",
            "spmd",
            "collectives",
        ],
    );
    // The decisions are the dump's own: every instruction of spmd-decisions.txt has a row.
    let decisions = dump_file(&dump, ".spmd-decisions.txt");
    let mut rows = 0;
    for line in decisions.lines() {
        // `NAME = opcode` heads each instruction's entry.
        if line.starts_with([' ', '#']) {
            continue;
        }
        let Some((name, _)) = line.split_once(" = ") else {
            continue;
        };
        rows += 1;
        assert!(
            dom.contains(&format!("<tr><td><code>{name}</code></td>"))
                || dom.contains(&format!(
                    "<tr class=\"has-actions\"><td><code>{name}</code></td>"
                )),
            "no decision row for {name}"
        );
    }
    assert!(
        rows > 0,
        "spmd-decisions.txt names no instruction:\n{decisions}"
    );
    // The timeline draws the trace's events: as many boxes as the Chrome trace has
    // transfer spans.
    let trace: serde_json::Value =
        serde_json::from_str(&dump_file(&dump, ".collectives.trace.json")).unwrap();
    let spans = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && !e["name"].as_str().unwrap_or_default().starts_with("wait"))
        .count();
    assert!(spans > 0, "the run made no collectives");
    assert_eq!(dom.matches("<g class=\"collective\">").count(), spans);
    // The run timed device 0's thunks.
    assert!(!dom.contains("times: not measured"));
    assert!(dom.contains("device 0's thunks (of 4 devices)"));
    let _ = std::fs::remove_dir_all(&dump);
}

/// The text of the dump file whose name ends with `suffix`.
fn dump_file(dump: &Path, suffix: &str) -> String {
    let path = std::fs::read_dir(dump)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no *{suffix} in the dump"));
    std::fs::read_to_string(path).unwrap()
}

/// A module of `instructions` instructions: a chain of elementwise ops with a dot (a library
/// call, so not fused) every tenth, so the graph has both many rows and fusion clusters.
fn big_module(instructions: usize) -> String {
    let mut s = String::from(
        "HloModule big\n\nENTRY main {\n  x0 = f32[8,8]{1,0} parameter(0)\n  w = f32[8,8]{1,0} parameter(1)\n",
    );
    for i in 1..instructions - 1 {
        let op = match i % 10 {
            0 => format!(
                "dot(x{}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}",
                i - 1
            ),
            3 => format!("multiply(x{}, x{})", i - 1, i - 1),
            5 => format!("tanh(x{})", i - 1),
            7 => format!("subtract(x{}, w)", i - 1),
            _ => format!("add(x{}, w)", i - 1),
        };
        s.push_str(&format!("  x{i} = f32[8,8]{{1,0}} {op}\n"));
    }
    s.push_str(&format!(
        "  ROOT r = f32[8,8]{{1,0}} negate(x{})\n}}\n",
        instructions - 2
    ));
    s
}

#[test]
fn module_graph_of_ten_thousand_instructions_draws_only_what_is_in_view() {
    let Some(browser) = chromium() else {
        return;
    };
    let dir = temp_dir("big");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("big.hlo");
    std::fs::write(&model, big_module(10_000)).unwrap();
    let dump = dir.join("dump");
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .arg("compile")
        .arg(&model)
        .arg("--dump-to")
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = dump.join("report.html");
    let dom = selftest(browser, &page, "big", &["overview", "graph", "passes"]);
    // Every cluster open, the graph has a row per instruction (entry and fused); the page
    // drew at most a screenful and a margin of them at once.
    let rows: usize = attribute(&dom, "module-graph", "data-rows")
        .unwrap()
        .parse()
        .unwrap();
    let most: usize = attribute(&dom, "report-selftest", "data-most-rows-drawn")
        .unwrap()
        .parse()
        .unwrap();
    assert!(rows >= 1000, "{rows} rows with every cluster closed");
    assert!(most > 0 && most <= 60, "{most} rows drawn at once");
    assert!(dom.matches("class=\"gnode").count() <= 60);
    let _ = std::fs::remove_dir_all(&dir);
}
