//! XLA's own partitioned programs on simulated devices: every `xla_opt.hlo` of
//! `testdata/collectives/` (and of `testdata/spmd/` when present) runs on its grid from the
//! per-partition inputs XLA was given (`shards.npz`), on the compiled backend and on the
//! interpreter, and equals XLA's per-partition outputs; three runs give identical bits,
//! and so do runs with `RAYON_NUM_THREADS=1` and `2` (this binary re-runs itself). The
//! programs whose devices issue collectives in different orders stop with the per-device
//! deadlock report (found because every device waits, not by a timeout), and
//! `check-collectives` flags them while the aligned variant passes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use xlac::check::collective_order::check_collectives;
use xlac::compiler::{DeviceBackend, DeviceRunError, DeviceRunOptions, run_on_devices};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::front::hlo_text::parse_module;
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, Literal, Module};
use xlac::runtime::collectives::report::Cause;
use xlac::runtime::collectives::{CollectiveError, DeviceGrid};

struct Fixture {
    name: String,
    module: Module,
    grid: DeviceGrid,
    stalls: bool,
    /// Per device, its arguments.
    args: Vec<Vec<Literal>>,
    /// Per device, XLA's result leaves (empty for programs that stall).
    outputs: Vec<Vec<ArrayLiteral>>,
}

fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<PathBuf> = Vec::new();
    // XLAC_SPMD_FIXTURES=DIR adds the programs of a testdata/spmd folder.
    let mut subs = vec![root.join("collectives")];
    subs.extend(std::env::var_os("XLAC_SPMD_FIXTURES").map(PathBuf::from));
    for sub in subs {
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().join("xla_opt.hlo").exists() && e.path().join("shards.npz").exists() {
                dirs.push(e.path());
            }
        }
    }
    dirs.sort();
    dirs.iter().map(|d| load(d)).collect()
}

fn load(dir: &Path) -> Fixture {
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    let partitions = meta["num_partitions"].as_u64().unwrap() as u32;
    let replicas = meta["num_replicas"].as_u64().unwrap_or(1) as u32;
    let text = std::fs::read_to_string(dir.join("xla_opt.hlo")).unwrap();
    let module = parse_module(&text, "xla_opt.hlo")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .module;
    let shards = read_npz(&dir.join("shards.npz")).unwrap();
    let count = (replicas * partitions) as usize;
    let pick = |prefix: &str, p: usize| -> Vec<ArrayLiteral> {
        let mut found: Vec<(usize, ArrayLiteral)> = shards
            .iter()
            .filter_map(|a| {
                let rest = a.name.strip_prefix(prefix)?;
                let (i, q) = rest.split_once("_p")?;
                (q.parse::<usize>().ok()? == p)
                    .then(|| (i.parse().ok().unwrap(), a.literal.clone()))
            })
            .collect();
        found.sort_by_key(|(i, _)| *i);
        found.into_iter().map(|(_, l)| l).collect()
    };
    let args = (0..count)
        .map(|p| pick("in", p).into_iter().map(Literal::from).collect())
        .collect();
    let outputs = (0..count).map(|p| pick("out", p)).collect();
    Fixture {
        name,
        module,
        grid: DeviceGrid {
            replicas,
            partitions,
            device_assignment: None,
        },
        stalls: meta["stalls"].as_bool().unwrap_or(false),
        args,
        outputs,
    }
}

fn run(f: &Fixture, backend: DeviceBackend) -> Result<Vec<Literal>, DeviceRunError> {
    let options = DeviceRunOptions {
        backend,
        ..DeviceRunOptions::default()
    };
    run_on_devices(std::slice::from_ref(&f.module), &f.grid, &f.args, &options).map(|r| r.results)
}

fn leaves(l: &Literal) -> Vec<ArrayLiteral> {
    l.leaves()
        .into_iter()
        .map(ArrayLiteral::to_row_major)
        .collect()
}

fn digest(results: &[Literal]) -> u64 {
    let mut h = DefaultHasher::new();
    for l in results {
        for leaf in l.leaves() {
            format!("{:?}", leaf.to_row_major()).hash(&mut h);
        }
    }
    h.finish()
}

/// Every runnable fixture on both backends, hashed: what the thread-count test compares.
fn all_digests() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for f in fixtures().iter().filter(|f| !f.stalls) {
        for backend in [DeviceBackend::Compiled, DeviceBackend::Interpreter] {
            let r = run(f, backend).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            out.push((format!("{} {backend:?}", f.name), digest(&r)));
        }
    }
    out
}

#[test]
fn xla_partitioned_programs_equal_xlas_outputs_on_both_backends() {
    let mut ran = 0;
    let mut failures = Vec::new();
    for f in fixtures().iter().filter(|f| !f.stalls) {
        for backend in [DeviceBackend::Compiled, DeviceBackend::Interpreter] {
            let first = match run(f, backend) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{} {backend:?}: {e}", f.name));
                    continue;
                }
            };
            for (d, (got, want)) in first.iter().zip(&f.outputs).enumerate() {
                let got = leaves(got);
                assert_eq!(got.len(), want.len(), "{} device {d}: leaf count", f.name);
                for (g, w) in got.iter().zip(want) {
                    match compare_arrays(g, w, Tolerance::for_type(w.element_type())) {
                        Ok(c) if c.ok() => {}
                        Ok(c) => failures.push(format!("{} {backend:?} device {d}: {c}", f.name)),
                        Err(e) => failures.push(format!("{} {backend:?} device {d}: {e}", f.name)),
                    }
                }
            }
            for _ in 0..2 {
                let again = run(f, backend).unwrap();
                assert_eq!(
                    digest(&again),
                    digest(&first),
                    "{} {backend:?}: runs differ",
                    f.name
                );
            }
            ran += 1;
        }
    }
    eprintln!("{ran} fixture runs, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 4, "only {ran} fixture runs");
}

#[test]
fn results_do_not_depend_on_thread_counts() {
    if std::env::var_os("XLAC_COLLECTIVES_DIGEST").is_some() {
        for (name, d) in all_digests() {
            println!("DIGEST {name} {d:016x}");
        }
        return;
    }
    let here: Vec<String> = all_digests()
        .into_iter()
        .map(|(n, d)| format!("DIGEST {n} {d:016x}"))
        .collect();
    for threads in ["1", "2"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "results_do_not_depend_on_thread_counts",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("XLAC_COLLECTIVES_DIGEST", "1")
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<String> = text
            .lines()
            // The harness prints `test NAME ... ` on the line the first digest starts.
            .filter_map(|l| l.find("DIGEST ").map(|i| l[i..].to_string()))
            .collect();
        assert_eq!(lines, here, "RAYON_NUM_THREADS={threads} gives other bits");
    }
}

#[test]
fn misordered_programs_stop_with_the_per_device_report() {
    let stalling: Vec<Fixture> = fixtures().into_iter().filter(|f| f.stalls).collect();
    assert!(stalling.len() >= 3);
    for f in &stalling {
        for backend in [DeviceBackend::Compiled, DeviceBackend::Interpreter] {
            let start = std::time::Instant::now();
            let err = run(f, backend).expect_err(&f.name);
            let elapsed = start.elapsed();
            let DeviceRunError::Collectives(CollectiveError::Deadlock(report)) = &err else {
                panic!("{}: not a deadlock: {err}", f.name);
            };
            // Found because every device waits, not by a deadline.
            assert_eq!(report.cause, Cause::Deadlock, "{}", f.name);
            assert_eq!(report.devices.len(), 8);
            let text = report.to_string();
            eprintln!("{} {backend:?}: stopped after {elapsed:?}\n{text}", f.name);
            assert!(text.lines().count() == 9, "{text}");
            match f.name.as_str() {
                "order_kinds" => {
                    assert!(text.contains("all-reduce %psum"), "{text}");
                    assert!(text.contains("collective-permute %ppermute"), "{text}");
                }
                "order_swapped" => {
                    assert!(text.contains("all-reduce %psum"), "{text}");
                    assert!(text.contains("all-gather %all_gather"), "{text}");
                }
                "order_loop" => assert!(text.contains("returned"), "{text}"),
                _ => {}
            }
        }
        let check = check_collectives(&f.module, &f.grid);
        assert!(check.diverges(), "{}: {}", f.name, check.text());
    }
    let aligned = fixtures()
        .into_iter()
        .find(|f| f.name == "order_aligned")
        .unwrap();
    let check = check_collectives(&aligned.module, &aligned.grid);
    assert!(!check.diverges(), "{}", check.text());
}

#[test]
fn the_trace_of_every_collective_has_one_lane_per_device() {
    let f = fixtures()
        .into_iter()
        .find(|f| f.name == "every_collective")
        .unwrap();
    let dir = std::env::temp_dir().join(format!("xlac-coll-trace-{}", std::process::id()));
    let options = DeviceRunOptions {
        compile: xlac::compiler::CompileOptions {
            dump_to: Some(dir.clone()),
            ..Default::default()
        },
        ..DeviceRunOptions::default()
    };
    run_on_devices(std::slice::from_ref(&f.module), &f.grid, &f.args, &options).unwrap();
    let name = &f.module.name;
    let json =
        std::fs::read_to_string(dir.join(format!("module_0000.{name}.collectives.trace.json")))
            .unwrap();
    let table =
        std::fs::read_to_string(dir.join(format!("module_0000.{name}.collectives.txt"))).unwrap();
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // The screenshot in docs/multi-device.md is drawn from this trace (scripts/render_trace.py).
    if let Some(out) = std::env::var_os("XLAC_COLLECTIVES_TRACE_OUT") {
        std::fs::write(out, &json).unwrap();
    }
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let events = doc["traceEvents"].as_array().unwrap();
    let lanes: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(lanes, (0..8).collect());
    for kind in [
        "all-reduce",
        "all-gather",
        "collective-permute",
        "all-to-all",
        "reduce-scatter",
    ] {
        assert!(
            events
                .iter()
                .any(|e| e["cat"] == "transfer" && e["name"].as_str().unwrap().starts_with(kind)),
            "no {kind} in the trace"
        );
    }
    assert!(
        table.contains("device 7 (replica 0, partition 7)"),
        "{table}"
    );
    assert!(index.contains("collectives.trace.json"), "{index}");
    assert!(index.contains("cpu_after_optimizations.txt"), "{index}");
}

/// `xlac run FILE --partitions 8` on a misordered program, from HLO and from StableHLO: exit
/// 1 and the deadlock report, one line per device.
#[test]
fn misordered_programs_stop_from_hlo_and_stablehlo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/collectives");
    for name in ["order_kinds", "order_swapped", "order_loop"] {
        for file in ["model.hlo", "model.mlir"] {
            let dir = root.join(name);
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_xlac"))
                .arg("run")
                .arg(dir.join(file))
                .args(["--partitions", "8", "--quiet", "--input"])
                .arg(dir.join("inputs.npz"))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name}/{file}: {stderr}");
            let first = stderr.lines().next().unwrap_or_default();
            assert!(
                first.starts_with("error: ") && first.contains("collectives deadlock"),
                "{name}/{file}: {stderr}"
            );
            let devices = stderr
                .lines()
                .filter(|l| l.starts_with("  device "))
                .count();
            assert_eq!(devices, 8, "{name}/{file}: {stderr}");
        }
    }
}

/// The same collectives issued in one order run from the global program (HLO and
/// StableHLO, partitioned by xlac) and equal XLA's global outputs.
#[test]
fn aligned_programs_run_from_hlo_and_stablehlo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/collectives");
    let tmp = std::env::temp_dir().join(format!("xlac-coll-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for name in ["order_aligned", "every_collective"] {
        for file in ["model.hlo", "model.mlir"] {
            for backend in ["compiled", "interpreter"] {
                let dir = root.join(name);
                let got = tmp.join(format!("{name}-{file}-{backend}.npz"));
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_xlac"))
                    .arg("run")
                    .arg(dir.join(file))
                    .args(["--partitions", "8", "--quiet", "--backend", backend])
                    .arg("--input")
                    .arg(dir.join("inputs.npz"))
                    .arg("--output")
                    .arg(&got)
                    .output()
                    .unwrap();
                let what = format!("{name}/{file} ({backend})");
                assert!(
                    out.status.success(),
                    "{what}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let got = read_npz(&got).unwrap();
                let want = read_npz(&dir.join("expected.npz")).unwrap();
                assert_eq!(got.len(), want.len(), "{what}");
                for (g, w) in got.iter().zip(&want) {
                    let tol = Tolerance {
                        rtol: 1e-4,
                        atol: 1e-4,
                    };
                    let c = compare_arrays(&g.literal, &w.literal, tol).unwrap();
                    assert!(c.ok(), "{what}: {c}");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
