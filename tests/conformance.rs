//! The StableHLO conformance corpus (`testdata/stablehlo-conformance/`, see its README): every
//! `.mlir` file runs through `xlac check`'s engine in-process. The test prints the pass
//! table by folder and the ops of the cases that do not pass (by `primary_op` from
//! `index.tsv`), and fails if fewer cases pass than the floor in
//! `tests/conformance_floor.txt` (one integer; raise it as coverage grows, never lower it).
//! It also checks the case splitting against `index.tsv`'s case counts.
//!
//! `XLAC_CONFORMANCE_DIR` overrides the corpus location; `XLAC_CONFORMANCE_VERBOSE=1`
//! prints every case's line. Every case's result is also written, one TSV line each
//! (`folder  file  case  status  detail`, README §8), to `conformance.tsv` in the test's
//! scratch folder (`CARGO_TARGET_TMPDIR`), for comparing runs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use xlac::check::{CaseResult, Runner, Status, Summary};

/// The corpus folder: `$XLAC_CONFORMANCE_DIR`, else the copy in the repository,
/// `testdata/stablehlo-conformance/`.
fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XLAC_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo-conformance");
    assert!(
        dir.join("index.tsv").exists(),
        "the conformance corpus is missing: expected {} (with index.tsv), or set \
         XLAC_CONFORMANCE_DIR",
        dir.display()
    );
    dir
}

/// Every `.mlir` file under `dir`, as paths relative to it, sorted.
fn mlir_files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if path.extension().is_some_and(|e| e == "mlir") {
                let rel = path.strip_prefix(base).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// One row of `index.tsv`.
struct IndexRow {
    primary_op: String,
    cases: usize,
}

/// `index.tsv` by `folder/file`.
fn read_index(dir: &Path) -> HashMap<String, IndexRow> {
    let text = std::fs::read_to_string(dir.join("index.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (folder, file, op, cases) = (col("folder"), col("file"), col("primary_op"), col("cases"));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                format!("{}/{}", f[folder], f[file]),
                IndexRow {
                    primary_op: f[op].to_string(),
                    cases: f[cases].parse().unwrap(),
                },
            )
        })
        .collect()
}

/// Runs every file, spread over the machine's cores; results in file order.
fn run_all(dir: &Path, files: &[String]) -> Vec<(String, Vec<CaseResult>)> {
    let runner = Runner::stablehlo();
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(name) = files.get(i) else { return };
                    let r = runner.check_file(&dir.join(name), name);
                    results.lock().unwrap().push((i, name.clone(), r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _, _)| *i);
    results.into_iter().map(|(_, n, r)| (n, r)).collect()
}

/// Counts of one table row.
#[derive(Default)]
struct Row {
    files: usize,
    files_passed: usize,
    summary: Summary,
    unsupported: usize,
    errors: usize,
}

impl Row {
    fn add_file(&mut self, results: &[CaseResult]) {
        self.files += 1;
        if results.iter().all(|r| r.status == Status::Pass) {
            self.files_passed += 1;
        }
        for r in results {
            self.summary.add(&r.status);
            match r.status {
                Status::Unsupported(_) => self.unsupported += 1,
                Status::Error(_) => self.errors += 1,
                _ => {}
            }
        }
    }

    fn line(&self, name: &str) -> String {
        let cases = self.summary.passed + self.summary.failed + self.summary.skipped;
        let pct = |a: usize, b: usize| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        format!(
            "| {name} | {}/{} ({:.1}%) | {}/{cases} ({:.1}%) | {} | {} | {} |",
            self.files_passed,
            self.files,
            pct(self.files_passed, self.files),
            self.summary.passed,
            pct(self.summary.passed, cases),
            self.summary.failed - self.errors,
            self.unsupported,
            self.errors,
        )
    }
}

#[test]
fn conformance_corpus() {
    let dir = corpus_dir();
    let index = read_index(&dir);
    let files = mlir_files(&dir);
    assert_eq!(
        files.len(),
        index.len(),
        "index.tsv lists {} files",
        index.len()
    );
    let start = std::time::Instant::now();
    let results = run_all(&dir, &files);
    let elapsed = start.elapsed();

    let verbose = std::env::var_os("XLAC_CONFORMANCE_VERBOSE").is_some();
    let mut tsv = String::from("folder\tfile\tcase\tstatus\tdetail\n");
    for (name, cases) in &results {
        let (folder, file) = name.split_once('/').unwrap_or(("", name));
        for c in cases {
            let detail = c.status.reason().replace(['\t', '\n'], " ");
            tsv.push_str(&format!(
                "{folder}\t{file}\t{}\t{}\t{detail}\n",
                c.case,
                c.status.label()
            ));
        }
    }
    let tsv_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance.tsv");
    std::fs::write(&tsv_path, tsv).unwrap();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut total = Row::default();
    // primary_op -> (cases not passing, of which UNSUPPORTED, files)
    let mut failing_ops: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut split_mismatches = Vec::new();
    for (name, cases) in &results {
        if verbose {
            cases.iter().for_each(|c| println!("{c}"));
        }
        let row = index
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not in index.tsv"));
        if row.cases != cases.len() {
            split_mismatches.push(format!(
                "{name}: {} cases, index.tsv says {}",
                cases.len(),
                row.cases
            ));
        }
        let folder = match name.split('/').collect::<Vec<_>>().as_slice() {
            [top, "quantized", ..] => format!("{top}/quantized"),
            [top, "chlo", ..] => format!("{top}/chlo"),
            [top, ..] => top.to_string(),
            _ => name.clone(),
        };
        rows.entry(folder).or_default().add_file(cases);
        total.add_file(cases);
        let not_passing: Vec<&CaseResult> =
            cases.iter().filter(|c| c.status != Status::Pass).collect();
        if !not_passing.is_empty() {
            let e = failing_ops.entry(row.primary_op.clone()).or_default();
            e.0 += not_passing.len();
            e.1 += not_passing
                .iter()
                .filter(|c| matches!(c.status, Status::Unsupported(_)))
                .count();
            e.2 += 1;
        }
    }

    println!("\nStableHLO conformance ({:.1}s)\n", elapsed.as_secs_f64());
    println!("| folder | files passing | cases passing | fail | unsupported | error |");
    println!("|---|---|---|---|---|---|");
    for (name, row) in &rows {
        println!("{}", row.line(name));
    }
    println!("{}", total.line("total"));
    let mut ops: Vec<_> = failing_ops.into_iter().collect();
    ops.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    println!("\nOps of the cases that do not pass (cases, of which unsupported, files):");
    for (op, (n, unsupported, nfiles)) in &ops {
        println!("  {op}: {n} ({unsupported} unsupported) in {nfiles} file(s)");
    }

    assert!(
        split_mismatches.is_empty(),
        "case splitting disagrees with index.tsv:\n{}",
        split_mismatches.join("\n")
    );
    let floor_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance_floor.txt");
    let floor: usize = std::fs::read_to_string(&floor_path)
        .unwrap()
        .trim()
        .parse()
        .expect("tests/conformance_floor.txt holds one integer");
    let passed = total.summary.passed;
    println!(
        "\n{} (floor {floor}); per-case results in {}",
        total.summary,
        tsv_path.display()
    );
    assert!(
        passed >= floor,
        "{passed} conformance cases pass, fewer than the floor {floor}"
    );
    if passed > floor {
        println!("{passed} cases pass: raise tests/conformance_floor.txt to {passed}");
    }
}

/// The compiled backend on the same corpus: every case that loads is compiled (layout,
/// fusion, buffers, Cranelift kernels, thunks) inside `catch_unwind`. A compile may fail
/// with an error naming the instruction; it must never panic. The `check.*` ops are custom
/// calls only `xlac check` (the interpreter) evaluates, so nothing runs here; the golden
/// tests run the compiled code.
#[test]
fn every_conformance_case_compiles_or_fails_cleanly() {
    use xlac::check::{loader, split_cases};
    use xlac::compiler::{CompileOptions, compile};
    let dir = corpus_dir();
    let (mut compiled, mut errors, mut panics) = (0, 0, Vec::new());
    for rel in mlir_files(&dir) {
        let text = std::fs::read_to_string(dir.join(&rel)).unwrap();
        for chunk in split_cases(&text, "func.func") {
            let Ok(module) = loader::stablehlo(&chunk.text, &rel, chunk.line_offset) else {
                continue;
            };
            let result = std::panic::catch_unwind(|| {
                compile(module, &CompileOptions::default()).map(|_| ())
            });
            match result {
                Ok(Ok(())) => compiled += 1,
                Ok(Err(_)) => errors += 1,
                Err(_) => panics.push(format!("{rel}:{}", chunk.line_offset + 1)),
            }
        }
    }
    println!("conformance cases compiled: {compiled}, clean compile errors: {errors}");
    assert!(compiled > 800, "only {compiled} cases compiled");
    assert!(panics.is_empty(), "compile panicked on: {panics:?}");
}
