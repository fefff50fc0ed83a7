//! `xlac run --distributed mpi` under `mpirun`: one device per rank, the multi-controller model.
//! Every result must equal the in-process run of the same program bit for bit (the ranks
//! fold reductions in group order, as one process does), and a misordered program must stop
//! with a report, never hang. Needs the `mpi` feature and Open MPI's `mpirun`
//! (`scripts/test-all.sh` installs libopenmpi-dev, openmpi-bin and libclang-dev).
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use xlac::io::npz::read_npz;

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("mpi")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `mpirun -np N xlac ARGS` (as root, oversubscribed: the CI machine has 2 cores).
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "--mca",
            "btl_vader_single_copy_mechanism",
            "none",
            "-np",
            &ranks.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .expect("mpirun: install openmpi-bin (scripts/test-all.sh does)")
}

/// `mpirun -np RANKS xlac run MODEL --partitions N --quiet --distributed mpi EXTRA...`.
fn run_distributed(ranks: usize, model: &Path, partitions: usize, extra: &[&str]) -> Output {
    let partitions = partitions.to_string();
    let mut args = vec![
        "run",
        model.to_str().unwrap(),
        "--partitions",
        &partitions,
        "--quiet",
        "--distributed",
        "mpi",
    ];
    args.extend_from_slice(extra);
    mpirun(ranks, &args)
}

fn xlac(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The arrays of an .npz, as (name, raw bytes of the array) for bit-for-bit comparison.
fn npz_bits(path: &Path) -> Vec<(String, String)> {
    read_npz(path)
        .unwrap()
        .into_iter()
        .map(|a| {
            (
                a.name,
                format!("{:?} {:?}", a.literal.shape, a.literal.data),
            )
        })
        .collect()
}

/// 4-device fixtures from jax: a data-parallel training step, a 2x2-mesh matmul and two
/// shard_map programs with explicit collectives; both backends.
#[test]
fn mpi_runs_equal_the_in_process_run_bit_for_bit() {
    let cases = [
        ("spmd/dp_mlp_4/model.hlo", "compiled"),
        ("spmd/matmul_2x2/model.hlo", "compiled"),
        ("spmd/shard_map_4/model.hlo", "compiled"),
        ("spmd/shard_map_2x2/model.mlir", "compiled"),
        ("spmd/dp_mlp_4/model.hlo", "interpreter"),
        ("spmd/shard_map_4/model.hlo", "interpreter"),
    ];
    let mut failures = Vec::new();
    for (i, (model, backend)) in cases.iter().enumerate() {
        let dir = scratch(&format!("case{i}"));
        let model_path = testdata(model);
        let inputs = model_path.parent().unwrap().join("inputs.npz");
        let (m, inp) = (model_path.to_str().unwrap(), inputs.to_str().unwrap());
        let local = dir.join("in_process.npz");
        let o = xlac(&[
            "run",
            m,
            "--partitions",
            "4",
            "--backend",
            backend,
            "--input",
            inp,
            "--output",
            local.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(o.status.success(), "{model} in process: {}", text(&o));
        for check in [false, true] {
            let out = dir.join(format!("mpi_{check}.npz"));
            let mut args = vec![
                "run",
                m,
                "--partitions",
                "4",
                "--backend",
                backend,
                "--input",
                inp,
                "--output",
                out.to_str().unwrap(),
                "--quiet",
                "--distributed",
                "mpi",
            ];
            if check {
                args.push("--check-collective-order");
            }
            let o = mpirun(4, &args);
            if !o.status.success() {
                failures.push(format!("{model} {backend} check={check}: {}", text(&o)));
                continue;
            }
            if npz_bits(&out) != npz_bits(&local) {
                failures.push(format!(
                    "{model} {backend} check={check}: differs from the in-process run"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// With --dump-to, every rank logs its collectives: the same program and the same sequence
/// on every rank, and rank 0 writes the dump folder.
#[test]
fn every_rank_logs_the_same_collective_sequence() {
    let dir = scratch("logs");
    let model = testdata("spmd/shard_map_4/model.hlo");
    let inputs = testdata("spmd/shard_map_4/inputs.npz");
    let o = run_distributed(
        4,
        &model,
        4,
        &[
            "--input",
            inputs.to_str().unwrap(),
            "--dump-to",
            dir.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let ops = |rank: usize| -> Vec<String> {
        let log = std::fs::read_to_string(dir.join(format!("rank_{rank}.collectives.txt")))
            .unwrap_or_else(|e| panic!("rank {rank}'s log: {e}"));
        assert!(
            log.starts_with(&format!("rank {rank} of 4: device {rank} ")),
            "{log}"
        );
        log.lines()
            .filter_map(|l| l.split_whitespace().find(|w| w.starts_with('%')))
            .map(str::to_string)
            .collect()
    };
    let first = ops(0);
    assert!(!first.is_empty(), "rank 0 logged no collectives");
    for r in 1..4 {
        assert_eq!(ops(r), first, "rank {r}'s collectives differ from rank 0's");
    }
    let dumped = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .ends_with("after_optimizations.txt")
        })
        .count();
    assert_eq!(dumped, 1, "rank 0 alone writes the compile dump");
}

/// The misordered programs of the collectives fixtures: with the order check, the ranks stop
/// before any data moves, with the in-process checker's report (a headline and one line per
/// device), printed once.
#[test]
fn misordered_programs_stop_with_the_per_device_report() {
    for name in ["order_swapped", "order_kinds", "order_loop"] {
        let model = testdata(&format!("collectives/{name}/model.hlo"));
        let o = run_distributed(8, &model, 8, &["--check-collective-order"]);
        assert!(!o.status.success(), "{name}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err.matches("error: ").count(),
            1,
            "{name}: one error, from rank 0: {}",
            text(&o)
        );
        assert!(err.contains("collectives deadlock"), "{name}: {}", text(&o));
        let lines = err.lines().filter(|l| l.starts_with("  device ")).count();
        assert_eq!(lines, 8, "{name}: a line per device: {}", text(&o));
    }
}

/// Without the order check, a rank that waits past the deadline stops the job with a
/// report instead of hanging: the device-dependent trip count leaves ranks waiting for
/// ranks that returned.
#[test]
fn a_stalled_rank_stops_the_job_at_the_deadline() {
    let model = testdata("collectives/order_loop/model.hlo");
    let o = run_distributed(8, &model, 8, &["--collectives-deadline", "2"]);
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("error: collectives stalled: rank "),
        "{}",
        text(&o)
    );
}

/// A job whose rank count is not the device count is refused on every rank before it runs.
#[test]
fn a_rank_count_that_is_not_the_device_count_is_refused() {
    let model = testdata("spmd/shard_map_4/model.hlo");
    let o = run_distributed(2, &model, 4, &[]);
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the job has 2 ranks and the program 4 devices"),
        "{}",
        text(&o)
    );
}

/// jax's own per-partition argument shards of a fixture (`shards.npz`: `in<i>_p<p>`), as
/// the `--input-shards` files `DIR/device_<p>.npz` (arr_0, ...).
fn write_jax_input_shards(fixture: &str, devices: usize, dir: &Path) {
    let shards = read_npz(&testdata(fixture).join("shards.npz")).unwrap();
    std::fs::create_dir_all(dir).unwrap();
    for p in 0..devices {
        let mut leaves: Vec<(usize, xlac::ir::ArrayLiteral)> = shards
            .iter()
            .filter_map(|a| {
                let rest = a.name.strip_prefix("in")?;
                let (i, part) = rest.split_once("_p")?;
                (part.parse::<usize>().ok()? == p).then(|| (i.parse().unwrap(), a.literal.clone()))
            })
            .collect();
        leaves.sort_by_key(|l| l.0);
        let arrays: Vec<&xlac::ir::ArrayLiteral> = leaves.iter().map(|l| &l.1).collect();
        xlac::io::npz::write_npz(&dir.join(format!("device_{p}.npz")), &arrays).unwrap();
    }
}

/// `xlac run MODEL --partitions 4 --quiet EXTRA...` in one process.
fn in_process(model: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        model.to_str().unwrap(),
        "--partitions",
        "4",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    xlac(&args)
}

/// Each rank reads only its own shard file (jax's shards of the 4-device training step),
/// and the run equals the one that cuts the global inputs, bit for bit; a shard file of
/// the wrong shape is one error naming the file.
#[test]
fn ranks_read_their_own_shard_files() {
    let dir = scratch("input_shards");
    let shards = dir.join("shards");
    write_jax_input_shards("spmd/dp_mlp_4", 4, &shards);
    let model = testdata("spmd/dp_mlp_4/model.hlo");
    let global = dir.join("global.npz");
    let o = in_process(
        &model,
        &[
            "--input",
            testdata("spmd/dp_mlp_4/inputs.npz").to_str().unwrap(),
            "--output",
            global.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let local = dir.join("local.npz");
    let o = in_process(
        &model,
        &[
            "--input-shards",
            shards.to_str().unwrap(),
            "--output",
            local.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(npz_bits(&local), npz_bits(&global));
    let ranks = dir.join("ranks.npz");
    let o = run_distributed(
        4,
        &model,
        4,
        &[
            "--input-shards",
            shards.to_str().unwrap(),
            "--output",
            ranks.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(npz_bits(&ranks), npz_bits(&global));
    // Every rank writes its own result shard, and nothing is gathered.
    let in_process_dir = dir.join("out_in_process");
    let o = in_process(
        &model,
        &[
            "--input-shards",
            shards.to_str().unwrap(),
            "--output-shards",
            in_process_dir.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let own = dir.join("out_ranks");
    let o = run_distributed(
        4,
        &model,
        4,
        &[
            "--input-shards",
            shards.to_str().unwrap(),
            "--output-shards",
            own.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(o.stdout.is_empty(), "{}", text(&o));
    for d in 0..4 {
        let f = format!("device_{d}.npz");
        assert_eq!(
            npz_bits(&own.join(&f)),
            npz_bits(&in_process_dir.join(&f)),
            "{f}"
        );
    }
    // Device 2's batch shard with a row too few.
    let bad = dir.join("bad");
    write_jax_input_shards("spmd/dp_mlp_4", 4, &bad);
    let mut arrays: Vec<xlac::ir::ArrayLiteral> = read_npz(&bad.join("device_2.npz"))
        .unwrap()
        .into_iter()
        .map(|a| a.literal)
        .collect();
    arrays[4] = xlac::ir::ArrayLiteral::zeros(xlac::ir::ArrayShape::new(
        xlac::ir::PrimitiveType::F32,
        &[7, 16],
    ));
    let refs: Vec<&xlac::ir::ArrayLiteral> = arrays.iter().collect();
    xlac::io::npz::write_npz(&bad.join("device_2.npz"), &refs).unwrap();
    let o = run_distributed(4, &model, 4, &["--input-shards", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{}", text(&o));
    assert!(
        lines[0].contains("device_2.npz")
            && lines[0].contains("f32[7,16]")
            && lines[0].contains("f32[8,16]"),
        "{}",
        lines[0]
    );
}

/// Each device loops as many times as its argument says, then all of them sum their counts:
/// with `--max-while-iterations`, a device given too large a count fails on its own after
/// MPI is up, before the all-reduce the others already wait in.
const LOOP_THEN_SUM: &str = r#"HloModule loop_then_sum, is_scheduled=true, num_partitions=4

add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  n = s32[] get-tuple-element(p), index=1
  ROOT t = (s32[], s32[]) tuple(next, n)
}

ENTRY main_spmd {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  count = s32[] get-tuple-element(w), index=0
  ROOT total = s32[] all-reduce(count), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}
"#;

/// Runs `mpirun APPS` (after the options of [`mpirun`]; `APPS` is `-np N PROGRAM ARGS`,
/// possibly several separated by `:`) and waits at most `limit` for the whole job; a job
/// still running then is killed and reported as a hang.
fn mpirun_within(apps: &[String], limit: std::time::Duration) -> Output {
    use std::process::Stdio;
    let child = Command::new("mpirun")
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "--mca",
            "btl_vader_single_copy_mechanism",
            "none",
        ])
        .args(apps)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun: install openmpi-bin (scripts/test-all.sh does)");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(o) => o.expect("mpirun ran"),
        Err(_) => {
            // mpirun forwards the signal to every rank.
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the job was still running after {limit:?}: a rank hangs");
        }
    }
}

/// `dir/loop_then_sum.hlo` and `dir/shards/device_<d>.npz` holding `counts[d]`.
fn loop_then_sum(dir: &Path, counts: [i32; 4]) -> (String, String) {
    let model = dir.join("loop_then_sum.hlo");
    std::fs::write(&model, LOOP_THEN_SUM).unwrap();
    let shards = dir.join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    for (d, n) in counts.into_iter().enumerate() {
        let a = xlac::ir::ArrayLiteral::scalar(n);
        xlac::io::npz::write_npz(&shards.join(format!("device_{d}.npz")), &[&a]).unwrap();
    }
    (
        model.to_str().unwrap().to_string(),
        shards.to_str().unwrap().to_string(),
    )
}

/// `xlac run MODEL` as one rank of the loop-then-sum job, with `extra` flags.
fn rank_args(model: &str, shards: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        model,
        "--partitions",
        "4",
        "--quiet",
        "--distributed",
        "mpi",
        "--input-shards",
        shards,
        // Far longer than the tests wait: a job that ends did not end by the deadline.
        "--collectives-deadline",
        "3600",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// A rank whose device fails on its own, after MPI started and while the other ranks wait
/// for it in a collective, stops the whole job at once with its error naming it: the others
/// do not wait for the collectives deadline (here far longer than the test allows).
#[test]
fn a_rank_that_fails_alone_stops_the_job_at_once_naming_it() {
    let dir = scratch("rank_fails_alone");
    let (m, s) = loop_then_sum(&dir, [1, 2, 1_000_000, 4]);
    // Without the cap the job sums the counts.
    let o = in_process(
        Path::new(&m),
        &["--input-shards", &s, "--max-while-iterations", "2000000"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let mut apps: Vec<String> = vec!["-np".into(), "4".into(), env!("CARGO_BIN_EXE_xlac").into()];
    apps.extend(rank_args(&m, &s, &["--max-while-iterations", "100"]));
    let o = mpirun_within(&apps, std::time::Duration::from_secs(300));
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        lines.len(),
        1,
        "one error, from the failed rank: {}",
        text(&o)
    );
    assert!(
        lines[0].contains("rank 2") && lines[0].contains("--max-while-iterations 100"),
        "{}",
        text(&o)
    );
    assert!(!err.contains("collectives stalled"), "{}", text(&o));
}

/// A rank the kernel kills in the middle of the job (its CPU-time limit, as a batch system
/// or the out-of-memory killer would) while the others wait for it in the all-reduce: the
/// job ends, long before the collectives deadline, and the dead rank is named.
#[test]
fn a_rank_killed_mid_job_ends_the_job_naming_it() {
    let dir = scratch("rank_killed");
    // Device 2 loops for far longer than its 2 s of CPU time.
    let (m, s) = loop_then_sum(&dir, [1, 2, i32::MAX, 4]);
    let xlac = env!("CARGO_BIN_EXE_xlac");
    let args = rank_args(&m, &s, &[]);
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let mut apps: Vec<String> = vec!["-np".into(), "2".into(), xlac.into()];
    apps.extend(args.iter().cloned());
    apps.extend([
        ":".into(),
        "-np".into(),
        "1".into(),
        "sh".into(),
        "-c".into(),
    ]);
    apps.push(format!("ulimit -t 2; exec '{xlac}' {}", quoted.join(" ")));
    apps.extend([":".into(), "-np".into(), "1".into(), xlac.into()]);
    apps.extend(args.iter().cloned());
    let o = mpirun_within(&apps, std::time::Duration::from_secs(300));
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("process rank 2") && err.contains("exited on signal"),
        "mpirun names the dead rank: {}",
        text(&o)
    );
    assert!(!err.contains("collectives stalled"), "{}", text(&o));
}
