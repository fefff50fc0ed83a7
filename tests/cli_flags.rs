//! Every flag of `xlac run`, `xlac compile` and `xlac bench`, in every mode (one device or
//! `--partitions 2`, the compiled backend or `--backend interpreter`, `--distributed`), is
//! honoured (exit 0) or refused with one `error:` line naming it (exit 2): none is
//! silently ignored. The flags come from clap's own list, so a flag added without a row in
//! the tables below fails `every_flag_is_classified`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::CommandFactory;
use xlac::io::npz::write_npz;
use xlac::ir::ArrayLiteral;

const MODEL: &str = "HloModule flags

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(x)
}
";

/// `p` counts up while `p == p`: a loop that never ends by itself.
const ENDLESS: &str = "HloModule spin

cond {
  p = s32[] parameter(0)
  ROOT same = pred[] compare(p, p), direction=EQ
}

body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
";

/// The modes of `xlac run`, as the flags that choose them.
const RUN_MODES: [(&str, &[&str]); 4] = [
    ("one device, compiled", &[]),
    ("one device, interpreter", &["--backend", "interpreter"]),
    ("2 partitions, compiled", &["--partitions", "2"]),
    (
        "2 partitions, interpreter",
        &["--partitions", "2", "--backend", "interpreter"],
    ),
];

/// What a flag does in a mode.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Exit 0.
    Honoured,
    /// Exit 2, one `error:` line that names the flag.
    Refused,
}

use Expect::{Honoured as H, Refused as R};

/// The files the flags read, in a scratch folder.
struct Files {
    dir: PathBuf,
}

impl Files {
    fn new(test: &str) -> Files {
        let dir = std::env::temp_dir().join(format!("xlac-flags-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("shards")).unwrap();
        std::fs::write(dir.join("model.hlo"), MODEL).unwrap();
        std::fs::write(dir.join("endless.hlo"), ENDLESS).unwrap();
        let x = ArrayLiteral::from_vec(&[4], vec![1f32, -2., 3., -4.]);
        write_npz(&dir.join("in.npz"), &[&x]).unwrap();
        for d in 0..2 {
            write_npz(&dir.join(format!("shards/device_{d}.npz")), &[&x]).unwrap();
        }
        let y = ArrayLiteral::from_vec(&[4], vec![-1f32, 2., -3., 4.]);
        write_npz(&dir.join("expected.npz"), &[&y]).unwrap();
        let wrong = ArrayLiteral::from_vec(&[4], vec![0f32; 4]);
        write_npz(&dir.join("wrong.npz"), &[&wrong]).unwrap();
        Files { dir }
    }

    /// `args` with `{d}` replaced by the folder.
    fn args(&self, args: &[&str]) -> Vec<String> {
        let d = self.dir.display().to_string();
        args.iter().map(|a| a.replace("{d}", &d)).collect()
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
}

/// Runs xlac under coreutils' `timeout`, so a flag that is ignored where it should stop a
/// run (an endless loop's limits) fails the test instead of hanging it.
fn xlac(args: &[String], dir: &Path) -> Outcome {
    let out = Command::new("timeout")
        .arg("120")
        .arg(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .env("XLAC_AUTOTUNE_CACHE", dir.join("autotune.json"))
        .output()
        .unwrap();
    Outcome {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One row: clap's id of the flag, its arguments on one device and on several (`None`:
/// the same), and what each mode does with it.
#[derive(Clone, Copy)]
struct Row {
    id: &'static str,
    args: &'static [&'static str],
    multi_args: Option<&'static [&'static str]>,
    expect: &'static [Expect],
}

const fn row(id: &'static str, args: &'static [&'static str], expect: &'static [Expect]) -> Row {
    Row {
        id,
        args,
        multi_args: None,
        expect,
    }
}

/// `xlac run`, in the order of [`RUN_MODES`]. The mode flags themselves
/// (`--partitions`, `--backend`, `--distributed` and what only it allows) have their own
/// tests below.
const RUN_FLAGS: &[Row] = &[
    row("inputs", &["--input", "{d}/in.npz"], &[H, H, H, H]),
    row("output", &["--output", "{d}/out.npz"], &[H, H, H, H]),
    row("dump_to", &["--dump-to", "{d}/dump"], &[H, H, H, H]),
    row("seed", &["--seed", "3"], &[H, H, H, H]),
    row("quiet", &["--quiet"], &[H, H, H, H]),
    row("threads", &["--threads", "2"], &[H, H, H, H]),
    row(
        "compare_to",
        &["--compare-to", "interpreter"],
        &[H, H, H, H],
    ),
    row(
        "disable_passes",
        &["--disable-passes", "fusion"],
        &[H, H, H, H],
    ),
    row(
        "dump_pass_re",
        &["--dump-to", "{d}/dump", "--dump-pass-re", "algsimp"],
        &[H, H, H, H],
    ),
    row("layouts", &["--layout", "param0={0}"], &[H, H, H, H]),
    row("autotune", &["--autotune"], &[H, R, H, R]),
    row("inline_math", &["--inline-math"], &[H, R, H, R]),
    row("guard_buffers", &["--guard-buffers"], &[H, R, H, R]),
    row(
        "max_array_bytes",
        &["--max-array-bytes", "1000000"],
        &[H, H, H, H],
    ),
    row("timeout", &["--timeout", "100"], &[H, H, H, H]),
    row(
        "max_while_iterations",
        &["--max-while-iterations", "10"],
        &[H, H, H, H],
    ),
    row("bisect", &["--bisect"], &[H, H, R, R]),
    row(
        "rtol",
        &["--compare-to", "interpreter", "--rtol", "0.1"],
        &[H, H, H, H],
    ),
    row(
        "atol",
        &["--compare-to", "interpreter", "--atol", "0.1"],
        &[H, H, H, H],
    ),
    row(
        "triad_gbs",
        &["--dump-to", "{d}/dump", "--triad-gbs", "10"],
        &[H, R, R, R],
    ),
    row(
        "profile_runs",
        &["--dump-to", "{d}/dump", "--profile-runs", "1"],
        &[H, R, R, R],
    ),
    row(
        "expected",
        &["--input", "{d}/in.npz", "--expected", "{d}/expected.npz"],
        &[H, H, H, H],
    ),
    row("replicas", &["--replicas", "1"], &[H, H, H, H]),
    Row {
        id: "device_assignment",
        args: &["--device-assignment", "0"],
        multi_args: Some(&["--device-assignment", "1,0"]),
        expect: &[H, H, H, H],
    },
    row(
        "output_shards",
        &["--output-shards", "{d}/out_shards"],
        &[H, H, H, H],
    ),
    row(
        "input_shards",
        &["--input-shards", "{d}/shards"],
        &[H, H, H, H],
    ),
    row(
        "result_sharding",
        &["--result-sharding", "{replicated}"],
        &[R, R, R, R],
    ),
    row("collectives", &["--collectives", "threaded"], &[R, R, H, H]),
    row(
        "collectives_deadline",
        &["--collectives-deadline", "5"],
        &[R, R, H, H],
    ),
];

/// Flags of `run` that choose the mode, tested on their own.
const RUN_MODE_FLAGS: &[&str] = &[
    "model",
    "partitions",
    "backend",
    "distributed",
    "check_collective_order",
];

/// `xlac compile`: on one device, then with `--partitions 2`.
const COMPILE_FLAGS: &[Row] = &[
    row("isa", &["--isa", "aarch64"], &[H, H]),
    row("disable_passes", &["--disable-passes", "fusion"], &[H, H]),
    row("dump_pass_re", &["--dump-pass-re", "algsimp"], &[H, H]),
    row("layouts", &["--layout", "param0={0}"], &[H, H]),
    row("autotune", &["--autotune"], &[H, H]),
    row("inline_math", &["--inline-math"], &[H, H]),
    row("guard_buffers", &["--guard-buffers"], &[H, H]),
    row("replicas", &["--replicas", "1"], &[H, H]),
    Row {
        id: "device_assignment",
        args: &["--device-assignment", "0"],
        multi_args: Some(&["--device-assignment", "1,0"]),
        expect: &[H, H],
    },
    row("output_shards", &["--output-shards", "{d}/s"], &[R, R]),
    row("input_shards", &["--input-shards", "{d}/shards"], &[R, R]),
    row(
        "result_sharding",
        &["--result-sharding", "{replicated}"],
        &[R, R],
    ),
    row(
        "max_array_bytes",
        &["--max-array-bytes", "1000000"],
        &[H, H],
    ),
    row("timeout", &["--timeout", "100"], &[R, R]),
    row(
        "max_while_iterations",
        &["--max-while-iterations", "10"],
        &[R, R],
    ),
];

const COMPILE_MODE_FLAGS: &[&str] = &["model", "dump_to", "partitions"];

/// `xlac bench` (one mode: one device, compiled).
const BENCH_FLAGS: &[Row] = &[
    row("inputs", &["--input", "{d}/in.npz"], &[H]),
    row("iters", &["--iters", "3"], &[H]),
    row("json", &["--json"], &[H]),
    row("threads", &["--threads", "2"], &[H]),
    row("dump_to", &["--dump-to", "{d}/bdump"], &[H]),
    row(
        "triad_gbs",
        &["--dump-to", "{d}/bdump", "--triad-gbs", "10"],
        &[H],
    ),
    row("triad", &["--triad"], &[H]),
    row("disable_passes", &["--disable-passes", "fusion"], &[H]),
    row("autotune", &["--autotune"], &[H]),
    row("inline_math", &["--inline-math"], &[H]),
    row("max_array_bytes", &["--max-array-bytes", "1000000"], &[H]),
    row("timeout", &["--timeout", "100"], &[H]),
    row(
        "max_while_iterations",
        &["--max-while-iterations", "10"],
        &[H],
    ),
];

const BENCH_MODE_FLAGS: &[&str] = &["model"];

/// clap's argument ids of `xlac SUB` (help and version aside).
fn clap_ids(sub: &str) -> BTreeSet<String> {
    let cli = xlac::cli::Cli::command();
    let sub = cli
        .get_subcommands()
        .find(|c| c.get_name() == sub)
        .unwrap_or_else(|| panic!("no subcommand {sub}"));
    sub.get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "help" && id != "version")
        .collect()
}

#[test]
fn every_flag_is_classified() {
    for (sub, rows, modes) in [
        ("run", RUN_FLAGS, RUN_MODE_FLAGS),
        ("compile", COMPILE_FLAGS, COMPILE_MODE_FLAGS),
        ("bench", BENCH_FLAGS, BENCH_MODE_FLAGS),
    ] {
        let classified: BTreeSet<String> = rows
            .iter()
            .map(|r| r.id.to_string())
            .chain(modes.iter().map(|m| m.to_string()))
            .collect();
        let flags = clap_ids(sub);
        let missing: Vec<_> = flags.difference(&classified).collect();
        assert!(
            missing.is_empty(),
            "xlac {sub}: flags nobody classified (add a row: honoured or refused, per mode): {missing:?}"
        );
        let stale: Vec<_> = classified.difference(&flags).collect();
        assert!(
            stale.is_empty(),
            "xlac {sub}: rows for flags clap does not have: {stale:?}"
        );
    }
}

/// Runs every row of `rows` in every mode; returns the mismatches.
fn walk(
    files: &Files,
    sub: &str,
    model: &str,
    base: &[&str],
    modes: &[(&str, &[&str])],
    rows: &[Row],
) -> Vec<String> {
    let mut wrong = Vec::new();
    for r in rows {
        assert_eq!(
            r.expect.len(),
            modes.len(),
            "{}: one expectation per mode",
            r.id
        );
        for ((mode, mode_args), &expect) in modes.iter().zip(r.expect) {
            let multi = mode_args.contains(&"--partitions");
            let flag_args = if multi {
                r.multi_args.unwrap_or(r.args)
            } else {
                r.args
            };
            let mut args = vec![sub.to_string(), files.args(&[model])[0].clone()];
            args.extend(files.args(base));
            args.extend(mode_args.iter().map(|s| s.to_string()));
            args.extend(files.args(flag_args));
            let out = xlac(&args, &files.dir);
            let errors: Vec<&str> = out
                .stderr
                .lines()
                .filter(|l| l.starts_with("error:"))
                .collect();
            let ok = match expect {
                Expect::Honoured => out.code == Some(0),
                Expect::Refused => {
                    let flag = flag_args
                        .iter()
                        .rev()
                        .find(|a| a.starts_with("--"))
                        .copied()
                        .unwrap_or_default();
                    out.code == Some(2)
                        && out.stderr.lines().count() == 1
                        && errors.len() == 1
                        && errors[0].contains(flag)
                }
            };
            if !ok {
                wrong.push(format!(
                    "xlac {} ({mode}): expected {expect:?}, got exit {:?}: {}",
                    args.join(" "),
                    out.code,
                    out.stderr.trim()
                ));
            }
        }
    }
    wrong
}

#[test]
fn every_run_flag_is_honoured_or_refused_in_every_mode() {
    let files = Files::new("run");
    let wrong = walk(&files, "run", "{d}/model.hlo", &[], &RUN_MODES, RUN_FLAGS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_compile_flag_is_honoured_or_refused_in_every_mode() {
    let files = Files::new("compile");
    let wrong = walk(
        &files,
        "compile",
        "{d}/model.hlo",
        &["--dump-to", "{d}/cdump"],
        &[
            ("one device", &[]),
            ("2 partitions", &["--partitions", "2"]),
        ],
        COMPILE_FLAGS,
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_bench_flag_is_honoured_or_refused() {
    let files = Files::new("bench");
    let wrong = walk(
        &files,
        "bench",
        "{d}/model.hlo",
        &["--iters", "1"],
        &[("one device", &[])],
        &BENCH_FLAGS
            .iter()
            .filter(|r| r.id != "iters")
            .copied()
            .collect::<Vec<_>>(),
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn expected_is_checked_in_every_mode() {
    let files = Files::new("expected");
    for (mode, mode_args) in RUN_MODES {
        for (file, code) in [("expected.npz", 0), ("wrong.npz", 1)] {
            let mut args = files.args(&[
                "run",
                "{d}/model.hlo",
                "--input",
                "{d}/in.npz",
                "--quiet",
                "--expected",
            ]);
            args.push(files.args(&[&format!("{{d}}/{file}")])[0].clone());
            args.extend(mode_args.iter().map(|s| s.to_string()));
            let out = xlac(&args, &files.dir);
            assert_eq!(out.code, Some(code), "{mode}, {file}: {}", out.stderr);
            if code == 1 {
                assert!(
                    out.stderr.contains("differ from") && out.stderr.contains("wrong.npz"),
                    "{mode}: {}",
                    out.stderr
                );
            }
        }
    }
}

#[test]
fn while_loop_limits_hold_in_every_mode() {
    let files = Files::new("limits");
    for (mode, mode_args) in RUN_MODES {
        for (limit, says) in [
            (
                ["--max-while-iterations", "50"],
                "reached --max-while-iterations 50",
            ),
            (["--timeout", "0.2"], "timed out after 0.2 s"),
        ] {
            let mut args = files.args(&["run", "{d}/endless.hlo", "--quiet"]);
            args.extend(limit.iter().map(|s| s.to_string()));
            args.extend(mode_args.iter().map(|s| s.to_string()));
            let out = xlac(&args, &files.dir);
            assert_eq!(out.code, Some(1), "{mode} {limit:?}: {}", out.stderr);
            assert!(
                out.stderr.contains(says),
                "{mode} {limit:?}: {}",
                out.stderr
            );
        }
    }
}

#[test]
fn distributed_without_a_launcher_is_one_error_line() {
    let files = Files::new("distributed");
    for extra in [&[][..], &["--check-collective-order"][..]] {
        let mut args = files.args(&[
            "run",
            "{d}/model.hlo",
            "--partitions",
            "2",
            "--distributed",
            "mpi",
        ]);
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = xlac(&args, &files.dir);
        assert_ne!(out.code, Some(0), "{}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
    }
}

#[test]
fn a_huge_device_count_in_the_module_is_one_error_line() {
    let files = Files::new("huge");
    let path = files.dir.join("huge.hlo");
    std::fs::write(
        &path,
        MODEL.replace(
            "HloModule flags",
            "HloModule flags, num_partitions=1000000000",
        ),
    )
    .unwrap();
    for backend in ["compiled", "interpreter"] {
        let args: Vec<String> = ["run", &path.display().to_string(), "--backend", backend]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = xlac(&args, &files.dir);
        assert_eq!(out.code, Some(1), "{}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        assert!(out.stderr.contains("1 to 512 devices"), "{}", out.stderr);
    }
}

#[test]
fn an_allocation_over_the_address_space_limit_is_refused_by_name() {
    let files = Files::new("ulimit");
    let path = files.dir.join("big.hlo");
    std::fs::write(
        &path,
        "HloModule big\n\nENTRY main {\n  x = f32[800000000]{0} parameter(0)\n  ROOT n = f32[800000000]{0} negate(x)\n}\n",
    )
    .unwrap();
    // 3.2 GB of parameter under a 2 GB address-space limit: refused before allocating,
    // naming the limit, not the machine's memory.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2000000 && exec {} run {} --quiet",
            env!("CARGO_BIN_EXE_xlac"),
            path.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("address-space limit (ulimit -v)"),
        "{stderr}"
    );
}
