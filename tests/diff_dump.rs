//! `xlac diff-dump` on every `testdata/` model against XLA's own dump (`xla_dump/`, written
//! by `testdata/generate_xla_dumps.py` with the pinned jax): every kernel of both sides is
//! listed, every instruction of the original module has a row, and the counts printed
//! equal those of the two final HLO files, counted here from their text (not through the
//! tool's parser). XLA's kernel count is also checked against `meta.json`, which
//! `generate.py` took from XLA's own optimized module.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const NOT_KERNELS: [&str; 5] = [
    "parameter",
    "constant",
    "tuple",
    "get-tuple-element",
    "bitcast",
];

/// (computation, instruction name, opcode, is entry) for every instruction line of `text`.
fn instruction_lines(text: &str) -> Vec<(String, String, String, bool)> {
    let mut out = Vec::new();
    let mut comp: Option<(String, bool)> = None;
    for line in text.lines() {
        let t = line.trim();
        match &comp {
            None => {
                if t.ends_with('{') && !t.starts_with("HloModule") && !t.contains(" = ") {
                    let is_entry = t.starts_with("ENTRY ");
                    let name = t.trim_start_matches("ENTRY ").trim_start_matches('%');
                    let name = name.split([' ', '(']).next().unwrap_or("").to_string();
                    comp = Some((name, is_entry));
                }
            }
            Some((c, is_entry)) => {
                if t == "}" {
                    comp = None;
                    continue;
                }
                let body = t.strip_prefix("ROOT ").unwrap_or(t);
                let Some((name, rest)) = body.split_once(" = ") else {
                    continue;
                };
                let name = name.trim_start_matches('%');
                if name.is_empty() || name.contains(' ') {
                    continue;
                }
                out.push((c.clone(), name.to_string(), opcode_of(rest), *is_entry));
            }
        }
    }
    out
}

/// The opcode after the shape: `f32[2]{0} add(...)`, `(f32[], s32[]) tuple(...)`.
fn opcode_of(rest: &str) -> String {
    let rest = rest.trim_start();
    let after_shape = if rest.starts_with('(') {
        let mut depth = 0usize;
        let mut end = rest.len();
        for (k, ch) in rest.char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        &rest[end..]
    } else {
        rest.split_once(' ').map(|(_, r)| r).unwrap_or("")
    };
    after_shape
        .trim_start()
        .split('(')
        .next()
        .unwrap_or("")
        .to_string()
}

fn kernels_of(text: &str) -> Vec<String> {
    instruction_lines(text)
        .into_iter()
        .filter(|(_, _, op, entry)| *entry && !NOT_KERNELS.contains(&op.as_str()))
        .map(|(_, n, _, _)| n)
        .collect()
}

fn file_ending(dir: &Path, suffix: &str) -> PathBuf {
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().ends_with(suffix))
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "{} files ending {suffix} in {}",
        hits.len(),
        dir.display()
    );
    hits.pop().unwrap()
}

/// The integer before `word` on the first line that starts with `prefix` and has `word`.
fn printed_number(report: &str, prefix: &str, word: &str) -> usize {
    for line in report.lines().filter(|l| l.starts_with(prefix)) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(at) = words.iter().position(|w| w.trim_end_matches(',') == word) {
            return words[at - 1].parse().unwrap();
        }
    }
    panic!("no line starting {prefix:?} with {word:?}")
}

#[test]
fn diff_dump_on_every_testdata_model() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff_dump");
    let _ = std::fs::remove_dir_all(&scratch);
    let models = xlac::testdata::model_dirs();
    assert!(models.len() >= 60, "{} models", models.len());
    let mut checked = 0;
    let mut moved = 0usize;
    for dir in &models {
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let xla_dir = dir.join("xla_dump");
        assert!(
            xla_dir.is_dir(),
            "{name}: no xla_dump/ (run testdata/generate_xla_dumps.py)"
        );
        let out = scratch.join(&name);
        let run = Command::new(env!("CARGO_BIN_EXE_xlac"))
            .args(["diff-dump"])
            .arg(&xla_dir)
            .arg("--dump-to")
            .arg(&out)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&run.stdout).to_string();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let xla_final =
            std::fs::read_to_string(file_ending(&xla_dir, ".cpu_after_optimizations.txt")).unwrap();
        let xlac_final =
            std::fs::read_to_string(file_ending(&out, ".cpu_after_optimizations.txt")).unwrap();
        let before =
            std::fs::read_to_string(file_ending(&xla_dir, ".before_optimizations.txt")).unwrap();

        // Counts printed = counts in the two final HLO files.
        for (label, text) in [("XLA", &xla_final), ("xlac", &xlac_final)] {
            let lines = instruction_lines(text);
            let kernels = kernels_of(text);
            assert_eq!(
                printed_number(&report, &format!("{label}: "), "kernels"),
                kernels.len(),
                "{name}: {label} kernels"
            );
            let final_line = format!("{label} final HLO:");
            assert_eq!(
                printed_number(&report, &final_line, "entry"),
                lines.iter().filter(|l| l.3).count(),
                "{name}: {label} entry instructions"
            );
            assert_eq!(
                printed_number(&report, &final_line, "in"),
                lines.len(),
                "{name}: {label} instructions"
            );
            // Every kernel is listed in the kernel section.
            let section = report
                .split(&format!("\n{label}: {} kernels\n", kernels.len()))
                .nth(1)
                .unwrap_or_else(|| panic!("{name}: no {label} kernel list"));
            let listed: HashSet<&str> = section
                .lines()
                .take(kernels.len())
                .filter_map(|l| l.split_whitespace().nth(1))
                .collect();
            for k in &kernels {
                assert!(
                    listed.contains(k.as_str()),
                    "{name}: {label} kernel {k} not listed"
                );
            }
        }
        // XLA's kernel count as generate.py took it from XLA's optimized module.
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        assert_eq!(
            meta["xla_kernel_count"].as_u64().unwrap() as usize,
            kernels_of(&xla_final).len(),
            "{name}: meta.json's xla_kernel_count"
        );

        // Every instruction of the original module has a row, under its computation.
        let input = instruction_lines(&before);
        assert_eq!(
            printed_number(
                &report,
                "== Where each instruction of the original module landed",
                "instructions"
            ),
            input.len(),
            "{name}: rows"
        );
        let mapping = report
            .split("== Where each instruction")
            .nth(1)
            .unwrap()
            .split("\n== Layouts")
            .next()
            .unwrap();
        let mut rows = HashSet::new();
        let mut comp = String::new();
        for l in mapping.lines() {
            if let Some(c) = l.strip_prefix("computation ") {
                comp = c.trim_end_matches(':').to_string();
            } else if l.starts_with("  ")
                && !l.starts_with("      ")
                && let Some(n) = l.split_whitespace().next()
            {
                rows.insert((comp.clone(), n.to_string()));
            }
        }
        for (c, n, _, _) in &input {
            assert!(
                rows.contains(&(c.clone(), n.clone())),
                "{name}: no row for {c}/{n}"
            );
        }
        moved += mapping
            .lines()
            .filter(|l| l.contains("(not found)"))
            .count();
        // The page carries the section too.
        let page = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(
            page.contains("<section id=\"diff-dump\">"),
            "{name}: report.html"
        );
        checked += 1;
    }
    println!("{checked} models compared; {moved} rows with a side not found");
}

#[test]
fn the_walk_through_model_lists_every_pass_file_of_both_sides() {
    let xla_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/transformer_block/xla_dump");
    let run = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .arg("diff-dump")
        .arg(&xla_dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = String::from_utf8_lossy(&run.stdout);
    let pass_files = std::fs::read_dir(&xla_dir)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            let n = n.to_str().unwrap();
            n.contains(".after_") && !n.contains("cpu_after_optimizations")
        })
        .count();
    assert!(pass_files > 10, "{pass_files}");
    assert_eq!(printed_number(&report, "XLA: ", "pass"), pass_files);
    assert!(printed_number(&report, "xlac: ", "pass") > 0);
}

#[test]
fn bad_dump_folders_are_one_error_line() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff_dump_bad");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let empty = scratch.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let garbage = scratch.join("garbage");
    std::fs::create_dir_all(&garbage).unwrap();
    std::fs::write(
        garbage.join("module_0000.m.cpu_after_optimizations.txt"),
        "HloModule m\n\nENTRY {\n  x = f32[ parameter(0)\n",
    )
    .unwrap();
    let binary = scratch.join("binary");
    std::fs::create_dir_all(&binary).unwrap();
    std::fs::write(
        binary.join("module_0000.m.cpu_after_optimizations.txt"),
        [0xffu8, 0xfe, 0],
    )
    .unwrap();
    let no_input = scratch.join("no_input");
    std::fs::create_dir_all(&no_input).unwrap();
    std::fs::write(
        no_input.join("module_0000.m.cpu_after_optimizations.txt"),
        "HloModule m\n\nENTRY %main (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n",
    )
    .unwrap();
    let cases: [(&Path, &[&str], &str); 6] = [
        (&scratch.join("missing"), &[], "cannot read"),
        (&empty, &[], "not a dump folder"),
        (&garbage, &[], "garbage"),
        (&binary, &[], "not UTF-8 text"),
        (&no_input, &[], "before_optimizations"),
        (&no_input, &["--module", "other"], "has no module other"),
    ];
    for (dir, extra, want) in cases {
        let run = Command::new(env!("CARGO_BIN_EXE_xlac"))
            .arg("diff-dump")
            .arg(dir)
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{}: {stderr}", dir.display());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(want),
            "{want}: {stderr}"
        );
    }
}

/// A bounded fuzz loop over the dump reader: XLA's three files of the walk-through model,
/// truncated, with bytes flipped and lines repeated, deterministic; every mutant reads as a
/// dump and compares, or is refused with an error; none panics.
#[test]
fn mutated_dumps_never_panic() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/mlp/xla_dump");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff_dump_fuzz");
    let files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_str().unwrap().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    let xlac_dir = scratch.join("xlac");
    let _ = std::fs::remove_dir_all(&scratch);
    // xlac's side: a real compile of the same module, read once.
    let before = files
        .iter()
        .find(|(n, _)| n.ends_with(".before_optimizations.txt"))
        .unwrap();
    let module = xlac::front::hlo_text::parse_module(std::str::from_utf8(&before.1).unwrap(), "b")
        .unwrap()
        .module;
    let options = xlac::compiler::CompileOptions {
        dump_to: Some(xlac_dir.clone()),
        ..Default::default()
    };
    xlac::compiler::compile(module, &options).unwrap();
    let xlac_dump = xlac::diff_dump::read_dump(&xlac_dir, None).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut read, mut refused) = (0, 0);
    for round in 0..60 {
        let dir = scratch.join(format!("m{round}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &files {
            let mut b = bytes.clone();
            // Round 0 is the dump as XLA wrote it: it must compare.
            match if round == 0 { 3 } else { next() % 4 } {
                0 => b.truncate((next() as usize) % (b.len() + 1)),
                1 => {
                    for _ in 0..8 {
                        let i = (next() as usize) % b.len();
                        b[i] = (next() % 256) as u8;
                    }
                }
                2 => {
                    let text = String::from_utf8_lossy(&b).into_owned();
                    let lines: Vec<&str> = text.lines().collect();
                    let i = (next() as usize) % lines.len();
                    let mut out = lines.clone();
                    out.insert(i, lines[i]);
                    b = out.join("\n").into_bytes();
                }
                _ => {}
            }
            std::fs::write(dir.join(name), &b).unwrap();
        }
        let outcome = std::panic::catch_unwind(|| {
            xlac::diff_dump::read_dump(&dir, None)
                .and_then(|xla| xlac::diff_dump::diff(&xla, &xlac_dump))
                .map(|d| xlac::diff_dump::render::text(&d))
        });
        match outcome {
            Ok(Ok(_)) => read += 1,
            Ok(Err(_)) => refused += 1,
            Err(_) => panic!("round {round} panicked (files in {})", dir.display()),
        }
    }
    println!("{read} mutants compared, {refused} refused with an error");
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}
