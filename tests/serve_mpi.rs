//! The single controller driving four `xlac serve` workers started by `mpirun`:
//! the controller holds the program and the arrays' metadata, each worker one device's
//! shards; collectives go between the workers over MPI. Needs the `mpi` feature and Open
//! MPI's `mpirun` (`scripts/test-all.sh` installs them).
#![cfg(feature = "mpi")]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use xlac::distributed::{Controller, RemoteArray, Token};
use xlac::front::hlo_text::parse_module;
use xlac::ifrt::{Client, Mesh, Sharding};
use xlac::io::npz::read_npz;
use xlac::ir::ArrayLiteral;
use xlac::pspec;

const SECRET: &str = "the four workers' shared secret";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ifrt")
}

fn npz(name: &str) -> HashMap<String, ArrayLiteral> {
    read_npz(&dir().join(name))
        .unwrap()
        .into_iter()
        .map(|a| (a.name, a.literal))
        .collect()
}

struct Job {
    child: Child,
    /// Per worker: its address and pid.
    workers: Vec<(SocketAddr, u32)>,
    stderr: PathBuf,
}

/// `mpirun -np 4 xlac serve --once ...`, and the four `listening` lines.
fn start_job(name: &str, deadline: &str) -> Job {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("serve_mpi")
        .join(name);
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let token = scratch.join("token");
    std::fs::write(&token, SECRET).unwrap();
    let stderr = scratch.join("stderr.txt");
    let mut child = Command::new("mpirun")
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "--mca",
            "btl_vader_single_copy_mechanism",
            "none",
            "-np",
            "4",
        ])
        .arg(env!("CARGO_BIN_EXE_xlac"))
        .args([
            "serve",
            "--once",
            "--collectives-deadline",
            deadline,
            "--token-file",
        ])
        .arg(&token)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("mpirun: install openmpi-bin (scripts/test-all.sh does)");
    let mut workers = vec![None; 4];
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while workers.iter().any(Option::is_none) {
        let line = lines
            .next()
            .expect("the job ended before every worker listened")
            .unwrap();
        // xlac serve: worker R of 4 (pid P) listening on ADDR
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(&w[..2], ["xlac", "serve:"], "{line}");
        let rank: usize = w[3].parse().unwrap();
        let pid: u32 = w[7].trim_end_matches(')').parse().unwrap();
        let addr: SocketAddr = w[10].parse().unwrap();
        assert!(addr.ip().is_loopback());
        workers[rank] = Some((addr, pid));
    }
    Job {
        child,
        workers: workers.into_iter().map(Option::unwrap).collect(),
        stderr,
    }
}

/// Waits for the job to end, at most `limit`: a job that hangs fails the test.
fn wait(mut job: Job, limit: Duration) -> (std::process::ExitStatus, String) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(job.child.wait());
    });
    let status = match rx.recv_timeout(limit) {
        Ok(s) => s.unwrap(),
        Err(_) => panic!("the job did not end within {limit:?}"),
    };
    (status, std::fs::read_to_string(&job.stderr).unwrap())
}

/// The 4-device data-parallel training step of testdata/ifrt/ and its shardings.
struct DpStep {
    data: HashMap<String, ArrayLiteral>,
    module: xlac::ir::Module,
    mesh: Mesh,
    replicated: Sharding,
    batch: Sharding,
}

fn dp_step() -> DpStep {
    let text = std::fs::read_to_string(dir().join("dp_step_4.hlo")).unwrap();
    let mesh = Mesh::new(&[("x", 4)], (0..4).collect()).unwrap();
    DpStep {
        data: npz("dp_step_4.npz"),
        module: parse_module(&text, "dp_step_4.hlo").unwrap().module,
        replicated: Sharding::named(&mesh, pspec!()),
        batch: Sharding::named(&mesh, pspec!("x")),
        mesh,
    }
}

fn token() -> Token {
    Token::new(SECRET.as_bytes().to_vec()).unwrap()
}

#[test]
fn four_workers_train_five_steps_to_jaxs_losses_and_the_in_process_result() {
    let job = start_job("dp_step_4", "30");
    let addrs: Vec<SocketAddr> = job.workers.iter().map(|w| w.0).collect();
    let DpStep {
        data,
        module,
        mesh,
        replicated,
        batch,
    } = dp_step();
    let names = ["w1", "b1", "w2", "b2"];

    let mut c = Controller::connect(&addrs, &token()).unwrap();
    let exe = c.compile(&module).unwrap();
    let mut params: Vec<RemoteArray> = names
        .iter()
        .map(|n| {
            c.make_array_from_host(&data[*n], replicated.clone())
                .unwrap()
        })
        .collect();
    let mut losses = Vec::new();
    for k in 0..5 {
        let x = c
            .make_array_from_host(&data[&format!("x{k}")], batch.clone())
            .unwrap();
        let y = c
            .make_array_from_host(&data[&format!("y{k}")], batch.clone())
            .unwrap();
        let mut args: Vec<&RemoteArray> = params.iter().collect();
        args.extend([&x, &y]);
        let mut out = c.execute(&exe, &args).unwrap();
        let loss = out.remove(0);
        losses.push(c.copy_to_host(&loss).unwrap());
        for a in params.iter().chain([&x, &y, &loss]) {
            c.delete(a).unwrap();
        }
        params = out;
    }
    let finals: Vec<ArrayLiteral> = params.iter().map(|p| c.copy_to_host(p).unwrap()).collect();
    // A reshard between workers: the batch-sharded layout of w1's rows and back.
    let rows = c
        .reshard(&params[0], Sharding::named(&mesh, pspec!("x")))
        .unwrap();
    let back = c.reshard(&rows, replicated.clone()).unwrap();
    assert_eq!(c.copy_to_host(&back).unwrap(), finals[0]);
    let log: Vec<String> = c.log().to_vec();
    c.close().unwrap();
    let (status, stderr) = wait(job, Duration::from_secs(120));
    assert!(status.success(), "{stderr}");

    // The same five steps in one process (the IFRT client): bit for bit.
    let client = Client::new(4).unwrap();
    let local = client.compile(module).unwrap();
    let mut p: Vec<_> = names
        .iter()
        .map(|n| {
            client
                .make_array_from_host(&data[*n], replicated.clone())
                .unwrap()
        })
        .collect();
    for (k, loss) in losses.iter().enumerate() {
        let mut args = p.clone();
        args.push(
            client
                .make_array_from_host(&data[&format!("x{k}")], batch.clone())
                .unwrap(),
        );
        args.push(
            client
                .make_array_from_host(&data[&format!("y{k}")], batch.clone())
                .unwrap(),
        );
        let mut out = local.execute(&args).unwrap();
        assert_eq!(&out.remove(0).copy_to_host().unwrap(), loss, "step {k}");
        p = out;
    }
    for (a, b) in p.iter().zip(&finals) {
        assert_eq!(&a.copy_to_host().unwrap(), b);
    }
    // And jax's losses and parameters.
    let want = data["loss"].values::<f32>().unwrap();
    for (k, (g, w)) in losses.iter().zip(want).enumerate() {
        let g = g.values::<f32>().unwrap()[0];
        assert!(
            (g - w).abs() <= 1e-5 * w.abs(),
            "step {k}: loss {g}, jax {w}"
        );
    }
    for (got, n) in finals.iter().zip(names) {
        let want = &data[&format!("{n}_final")];
        let worst = got
            .values::<f32>()
            .unwrap()
            .iter()
            .zip(want.values::<f32>().unwrap())
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(worst <= 1e-5, "{n}: max |xlac - jax| = {worst}");
    }
    // The controller's log: one line per call.
    let calls: Vec<&str> = log.iter().map(|l| l.split(' ').next().unwrap()).collect();
    let count = |name: &str| calls.iter().filter(|&&c| c == name).count();
    assert_eq!(calls[0], "connect");
    assert_eq!(calls[1], "compile");
    assert_eq!(count("execute"), 5);
    assert_eq!(count("make-array"), 4 + 10);
    assert_eq!(count("fetch"), 5 + 4 + 1);
    assert_eq!(count("reshard"), 2);
    assert_eq!(count("delete"), 5 * 7);
    // Every worker saw the same requests: a compile, then what the controller sent it.
    for w in 0..4 {
        let compiles = stderr
            .lines()
            .filter(|l| l.contains(&format!("worker {w}: request 1: compile e1")))
            .count();
        assert_eq!(compiles, 1, "{stderr}");
    }
}

#[test]
fn a_killed_worker_is_reported_and_the_job_ends_within_the_deadline() {
    let job = start_job("killed", "3");
    let addrs: Vec<SocketAddr> = job.workers.iter().map(|w| w.0).collect();
    let DpStep {
        data,
        module,
        mesh: _,
        replicated,
        batch,
    } = dp_step();
    let mut c = Controller::connect(&addrs, &token()).unwrap();
    let exe = c.compile(&module).unwrap();
    let mut args: Vec<RemoteArray> = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| {
            c.make_array_from_host(&data[*n], replicated.clone())
                .unwrap()
        })
        .collect();
    args.push(c.make_array_from_host(&data["x0"], batch.clone()).unwrap());
    args.push(c.make_array_from_host(&data["y0"], batch.clone()).unwrap());
    let pid = job.workers[2].1;
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let refs: Vec<&RemoteArray> = args.iter().collect();
    let e = c
        .execute(&exe, &refs)
        .expect_err("a dead worker cannot execute");
    assert!(e.to_string().starts_with("worker "), "{e}");
    drop(c);
    let (status, stderr) = wait(job, Duration::from_secs(60));
    assert!(!status.success());
    assert!(
        stderr.contains("rank 2") || stderr.contains("worker 2"),
        "{stderr}"
    );
}

#[test]
fn a_one_device_program_runs_on_its_worker_alone_and_collectives_on_some_workers_are_refused() {
    let job = start_job("compile_on", "30");
    let addrs: Vec<SocketAddr> = job.workers.iter().map(|w| w.0).collect();
    let mut c = Controller::connect(&addrs, &token()).unwrap();
    let negate = "HloModule negate\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n";
    let module = parse_module(negate, "negate.hlo").unwrap().module;
    let exe = c.compile_on(&module, Some(&[2])).unwrap();
    let x = ArrayLiteral::from_vec(&[4], vec![1f32, -2., 3., -0.]);
    let a = c
        .make_array_from_host(&x, Sharding::SingleDevice { device: 2 })
        .unwrap();
    let out = c.execute(&exe, &[&a]).unwrap();
    assert_eq!(
        c.copy_to_host(&out[0]).unwrap(),
        ArrayLiteral::from_vec(&[4], vec![-1f32, 2., -3., 0.])
    );
    // Communicators are split over every rank: a program with collectives on two of the
    // four workers is refused, by the workers it was sent to.
    let all_reduce = "HloModule all_reduce, num_partitions=2\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} all-reduce(p), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add\n}\n";
    let module = parse_module(all_reduce, "all_reduce.hlo").unwrap().module;
    let e = c.compile_on(&module, Some(&[1, 3])).unwrap_err();
    assert!(
        e.to_string()
            .contains("all_reduce has collectives and runs on 2 of the job's 4 workers"),
        "{e}"
    );
    c.close().unwrap();
    let (status, stderr) = wait(job, Duration::from_secs(60));
    assert!(status.success(), "{stderr}");
    // Only worker 2 was asked to compile and run the one-device program.
    assert!(
        stderr.contains("worker 2: request 1: compile e1 on workers [2]"),
        "{stderr}"
    );
    for w in [0, 1, 3] {
        assert!(
            !stderr.contains(&format!("worker {w}: request 1: compile e1")),
            "{stderr}"
        );
    }
}
