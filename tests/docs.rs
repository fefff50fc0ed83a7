//! Every runnable command block in `docs/` is run against the built `xlac`, and its output
//! compared with the excerpt on the page, so no page can go stale.
//!
//! A runnable block is a fenced block whose info string starts `console run`:
//!
//! ````text
//! ```console run
//! $ xlac run testdata/mlp/model.hlo --quiet
//! expected output line
//! ...
//! ```
//! ````
//!
//! Each `$ ` line (continued by a trailing `\`) is one shell command, run from the repository
//! root by `sh` with stderr merged into stdout, `xlac` on `PATH` (the binary under test) and
//! `LAB` set to a fresh scratch folder; the lines after it, up to the next command, are its
//! expected output. An expected line equals an output line, except that `[..]` stands for any
//! text within the line; a line `...` stands for any number of output lines. Without `...` at
//! its ends the excerpt covers the whole output. Paths under `LAB` print as `$LAB`.
//!
//! Words after `console run`: `exit=N` expects exit status N (default 0); `jax` runs only when
//! `XLAC_DOCS_PYTHON` names a Python with jax 0.10.2 and the plugin (`python` is that
//! interpreter inside the block); `mpi` runs only in a build with the `mpi` feature and
//! `mpirun` on `PATH`. `XLAC_DOCS_SKIP_PLAIN=1` runs only the `jax` and `mpi` blocks (CI runs
//! the plain ones in its first `cargo test`). `XLAC_DOCS_ONLY=TEXT` runs the pages whose
//! path contains TEXT. `XLAC_BLESS=1` rewrites the excerpts that no longer match (the first
//! lines and the last of a long output).
//!
//! The test also holds the pages to their shape: the README at most 200 lines, and every
//! chapter lab in `docs/chapters/` with at least one runnable block.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A command may take this long before the test calls it hung (coreutils `timeout`).
const COMMAND_TIMEOUT_SECONDS: u32 = 300;
/// Blessed excerpts of longer outputs keep this many first lines, `...` and the last line.
const BLESS_HEAD_LINES: usize = 12;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// When a block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    Jax,
    Mpi,
}

/// One `$` command of a runnable block and the page lines holding its expected output.
#[derive(Debug)]
struct Step {
    command: String,
    /// Line of the `$` in the page, 1-based, for messages.
    line: usize,
    /// `lines[expected.0..expected.1]` of the page.
    expected: (usize, usize),
}

#[derive(Debug)]
struct Block {
    needs: Needs,
    /// Also needs MPI (a `jax` block that starts an MPI job).
    mpi: bool,
    exit: i32,
    steps: Vec<Step>,
}

/// The runnable blocks of one page.
fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        i += 1;
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut words = info.split_whitespace();
        let runnable = words.next() == Some("console") && words.next() == Some("run");
        let mut block = Block {
            needs: Needs::Nothing,
            mpi: false,
            exit: 0,
            steps: Vec::new(),
        };
        if runnable {
            for word in words {
                match word {
                    "jax" => block.needs = Needs::Jax,
                    "mpi" if block.needs == Needs::Jax => block.mpi = true,
                    "mpi" => {
                        block.needs = Needs::Mpi;
                        block.mpi = true;
                    }
                    _ => match word.strip_prefix("exit=").map(str::parse) {
                        Some(Ok(code)) => block.exit = code,
                        _ => panic!("line {i}: unknown word {word:?} after `console run`"),
                    },
                }
            }
        }
        // The body, up to the closing fence.
        let start = i;
        while i < lines.len() && !lines[i].trim_start().starts_with("```") {
            i += 1;
        }
        let end = i;
        i += 1;
        if !runnable {
            continue;
        }
        let mut j = start;
        while j < end {
            let Some(first) = lines[j].strip_prefix("$ ") else {
                panic!(
                    "line {}: a runnable block starts with a `$ ` command",
                    j + 1
                );
            };
            let line = j + 1;
            let mut command = first.to_string();
            while command.ends_with('\\') && j + 1 < end {
                command.pop();
                j += 1;
                command.push(' ');
                command.push_str(lines[j].trim());
            }
            j += 1;
            let from = j;
            while j < end && !lines[j].starts_with("$ ") {
                j += 1;
            }
            block.steps.push(Step {
                command,
                line,
                expected: (from, j),
            });
        }
        out.push(block);
    }
    out
}

/// `line` against one expected line, `[..]` matching any text.
fn line_matches(expected: &str, line: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (k, part) in parts.iter().enumerate() {
        if k + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Whether `output` fits the excerpt `expected` (`...` lines match any run of lines).
fn excerpt_matches(expected: &[String], output: &[String]) -> bool {
    match expected.split_first() {
        None => output.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=output.len()).any(|skip| excerpt_matches(rest, &output[skip..]))
        }
        Some((first, rest)) => {
            !output.is_empty()
                && line_matches(first, &output[0])
                && excerpt_matches(rest, &output[1..])
        }
    }
}

/// The excerpt `XLAC_BLESS` writes for `output`.
fn excerpt_of(output: &[String]) -> Vec<String> {
    if output.len() <= BLESS_HEAD_LINES + 2 {
        return output.to_vec();
    }
    let mut lines = output[..BLESS_HEAD_LINES].to_vec();
    lines.push("...".into());
    lines.push(output[output.len() - 1].clone());
    lines
}

/// Runs one command; returns its exit status and output lines (trailing blanks trimmed).
fn run(command: &str, lab: &Path, python: Option<&str>) -> (i32, Vec<String>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_xlac")).parent().unwrap();
    let mut path =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    path.insert(0, bin.to_path_buf());
    let script = match python {
        // `python` in a jax block is the interpreter that has jax and the plugin.
        Some(python) => format!("python() {{ \"{python}\" \"$@\"; }}\n{command}"),
        None => command.to_string(),
    };
    let out = Command::new("timeout")
        .arg(COMMAND_TIMEOUT_SECONDS.to_string())
        .args(["sh", "-c", &format!("exec 2>&1\n{script}")])
        .current_dir(root())
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("LAB", lab)
        .env_remove("XLAC_BACKTRACE")
        .output()
        .expect("sh and timeout run");
    let text = String::from_utf8_lossy(&out.stdout).replace(&*lab.to_string_lossy(), "$LAB");
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    (out.status.code().unwrap_or(-1), lines)
}

/// Pages under `docs/`, recursively, sorted.
fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pages(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

fn mpi_available() -> bool {
    cfg!(feature = "mpi")
        && Command::new("mpirun")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

#[test]
fn runnable_blocks_in_docs_print_what_the_pages_say() {
    let bless = std::env::var_os("XLAC_BLESS").is_some();
    let python = std::env::var("XLAC_DOCS_PYTHON").ok();
    let mpi = mpi_available();
    let only = std::env::var("XLAC_DOCS_ONLY").ok();
    let skip_plain = std::env::var_os("XLAC_DOCS_SKIP_PLAIN").is_some();
    let mut all = Vec::new();
    pages(&root().join("docs"), &mut all);
    let mut failures = Vec::new();
    let (mut ran, mut skipped) = (0, 0);
    for page in all {
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let text = std::fs::read_to_string(&page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut replacements: Vec<((usize, usize), Vec<String>)> = Vec::new();
        for block in blocks(&lines) {
            let runs = match block.needs {
                Needs::Nothing => !skip_plain,
                Needs::Jax => python.is_some() && (!block.mpi || mpi),
                Needs::Mpi => mpi,
            };
            if !runs {
                skipped += block.steps.len();
                continue;
            }
            // One scratch folder per block: its commands may build on each other.
            let lab = tempfile_dir(&name, block.steps[0].line);
            for (k, step) in block.steps.iter().enumerate() {
                let (code, output) = run(&step.command, &lab, python.as_deref());
                ran += 1;
                let last = k + 1 == block.steps.len();
                let want_exit = if last { block.exit } else { 0 };
                let expected: Vec<String> = lines[step.expected.0..step.expected.1]
                    .iter()
                    .map(|l| l.trim_end().to_string())
                    .collect();
                if code != want_exit {
                    failures.push(format!(
                        "{name}:{}: `{}` exited {code}, the page expects {want_exit}; output:\n{}",
                        step.line,
                        step.command,
                        output.join("\n")
                    ));
                } else if !excerpt_matches(&expected, &output) {
                    if bless {
                        replacements.push((step.expected, excerpt_of(&output)));
                    } else {
                        failures.push(format!(
                            "{name}:{}: `{}` printed something else (XLAC_BLESS=1 rewrites the \
                             excerpt); output:\n{}",
                            step.line,
                            step.command,
                            output.join("\n")
                        ));
                    }
                }
            }
            let _ = std::fs::remove_dir_all(&lab);
        }
        if !replacements.is_empty() {
            let mut new: Vec<String> = Vec::new();
            let mut at = 0;
            for ((from, to), excerpt) in replacements {
                new.extend(lines[at..from].iter().map(|l| l.to_string()));
                new.extend(excerpt);
                at = to;
            }
            new.extend(lines[at..].iter().map(|l| l.to_string()));
            std::fs::write(&page, new.join("\n") + "\n").unwrap();
        }
    }
    eprintln!("docs: {ran} commands run, {skipped} skipped (jax or mpi not available)");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A fresh scratch folder under the target directory for one block.
fn tempfile_dir(page: &str, line: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("docs")
        .join(format!("{}-{line}", page.replace(['/', '.'], "_")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn readme_stays_a_front_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(
        n <= 200,
        "README.md has {n} lines; reference text belongs in docs/"
    );
}

#[test]
fn every_chapter_lab_has_a_runnable_block() {
    let dir = root().join("docs/chapters");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    let numbers: Vec<String> = chapters
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy()[..2].to_string())
        .collect();
    let want: Vec<String> = (1..=14).map(|n| format!("{n:02}")).collect();
    assert_eq!(
        numbers, want,
        "one lab per chapter, docs/chapters/NN-name.md"
    );
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let runnable = blocks(&lines)
            .iter()
            .filter(|b| b.needs == Needs::Nothing)
            .count();
        assert!(
            runnable > 0,
            "{} has no runnable block that runs without jax or MPI",
            chapter.display()
        );
    }
}

#[test]
fn excerpts_match_as_documented() {
    let s = |v: &[&str]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let output = s(&["a 1", "b 2", "c 3"]);
    assert!(excerpt_matches(&s(&["a 1", "b 2", "c 3"]), &output));
    assert!(excerpt_matches(&s(&["a [..]", "...", "c 3"]), &output));
    assert!(excerpt_matches(&s(&["...", "b 2", "..."]), &output));
    assert!(!excerpt_matches(&s(&["a 1", "b 2"]), &output));
    assert!(!excerpt_matches(&s(&["b 2", "..."]), &output));
    assert!(!excerpt_matches(&s(&["a 1", "b 3", "..."]), &output));
    assert!(line_matches("x [..] z", "x y y z"));
    assert!(!line_matches("x [..] z", "x y y z!"));
}
