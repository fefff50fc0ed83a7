//! Several devices per MPI process (`runtime::collectives::mpi_hybrid`): 4 ranks of 2 devices
//! run 8-device programs whose collective groups lie inside a process, cross processes, or
//! mix both, with the devices placed on the ranks two ways (devices 2r and 2r+1 on rank r;
//! devices r and r+4 on rank r). Each rank checks its devices' results: bit-equal to the
//! reference interpreter running all 8 devices in one process, and, for XLA's own
//! partitioned programs (`testdata/collectives`), within tolerance of XLA's outputs.
//!
//! A rank that dies between two runs of an all-reduce (under `mpirun --enable-recovery`) is
//! named by each of the others: ranks, devices, and the same error for a program loaded
//! after.
//!
//! Each test re-runs its own binary under `mpirun -np 4`; each rank runs the same test with
//! `XLAC_MPI_HYBRID_RANK` set. Needs the `mpi` feature and Open MPI's `mpirun`.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use xlac::compiler::{
    DeviceBackend, DeviceRunError, DeviceRunOptions, load_on_devices, run_on_devices,
};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::front::hlo_text::parse_module;
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, Literal, Module};
use xlac::runtime::buffers::literal_bytes;
use xlac::runtime::collectives::mpi::MpiWorld;
use xlac::runtime::collectives::mpi_hybrid::{MpiHybrid, job_lost};
use xlac::runtime::collectives::{CollectiveError, DeviceGrid};

const RANKS: usize = 4;
const DEVICES: usize = 8;
const TEST: &str = "two_devices_per_rank_equal_one_process";
const CHILD: &str = "XLAC_MPI_HYBRID_RANK";

/// Groups of every shape at once: pairs inside a rank (first placement), strided groups
/// that put each rank in two groups, halves, groups listed out of device order, an
/// all-gather and a reduce-scatter over mixed groups, an all-to-all, a permute ring.
const GROUPS_HLO: &str = r#"HloModule hybrid_groups, num_partitions=8

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4,8] parameter(0)
  pairs = f32[4,8] all-reduce(x), channel_id=1, replica_groups={{0,1},{2,3},{4,5},{6,7}}, use_global_device_ids=true, to_apply=add
  strided = f32[4,8] all-reduce(x), channel_id=2, replica_groups={{0,2,4,6},{1,3,5,7}}, use_global_device_ids=true, to_apply=add
  halves = f32[4,8] all-reduce(x), channel_id=3, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=add
  mixed = f32[4,8] all-reduce(x), channel_id=4, replica_groups={{7,0,5,2},{1,6,3,4}}, use_global_device_ids=true, to_apply=add
  gathered = f32[16,8] all-gather(x), channel_id=5, replica_groups={{0,4,1,5},{2,6,3,7}}, dimensions={0}, use_global_device_ids=true
  scattered = f32[4,2] reduce-scatter(x), channel_id=6, replica_groups={{3,2,1,0},{4,5,6,7}}, dimensions={1}, use_global_device_ids=true, to_apply=add
  a2a = f32[4,8] all-to-all(x), channel_id=7, replica_groups={{0,2,4,6},{1,3,5,7}}, dimensions={0}
  shifted = f32[4,8] collective-permute(x), channel_id=8, source_target_pairs={{0,3},{3,6},{6,1},{1,4},{4,7},{7,2},{2,5},{5,0}}
  twice = f32[4,8] all-reduce(mixed), channel_id=9, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  ROOT t = (f32[4,8], f32[4,8], f32[4,8], f32[4,8], f32[16,8], f32[4,2], f32[4,8], f32[4,8], f32[4,8]) tuple(pairs, strided, halves, mixed, gathered, scattered, a2a, shifted, twice)
}
"#;

/// One program to check: its module, per-device arguments and, from XLA, per-device
/// outputs.
struct Case {
    name: String,
    module: Module,
    args: Vec<Vec<Literal>>,
    xla: Option<Vec<Vec<ArrayLiteral>>>,
}

/// Values of many magnitudes, so that a sum taken in another order differs in its bits.
fn spread_values(device: usize, n: usize) -> Vec<f32> {
    let mut state = 0x9e37_79b9_u32.wrapping_mul(device as u32 + 1);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let unit = (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
            unit * 10f32.powi((state % 7) as i32 - 3)
        })
        .collect()
}

fn cases() -> Vec<Case> {
    let module = parse_module(GROUPS_HLO, "hybrid_groups.hlo")
        .unwrap()
        .module;
    let args = (0..DEVICES)
        .map(|d| {
            vec![Literal::from(ArrayLiteral::from_vec(
                &[4, 8],
                spread_values(d, 32),
            ))]
        })
        .collect();
    let mut cases = vec![Case {
        name: "hybrid_groups".into(),
        module,
        args,
        xla: None,
    }];
    for name in ["every_collective", "order_aligned"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/collectives")
            .join(name);
        let text = std::fs::read_to_string(dir.join("xla_opt.hlo")).unwrap();
        let module = parse_module(&text, "xla_opt.hlo").unwrap().module;
        let shards = read_npz(&dir.join("shards.npz")).unwrap();
        let pick = |prefix: &str, p: usize| -> Vec<ArrayLiteral> {
            let mut found: Vec<(usize, ArrayLiteral)> = shards
                .iter()
                .filter_map(|a| {
                    let rest = a.name.strip_prefix(prefix)?;
                    let (i, q) = rest.split_once("_p")?;
                    let i: usize = i.parse().ok()?;
                    (q.parse::<usize>().ok()? == p).then(|| (i, a.literal.clone()))
                })
                .collect();
            found.sort_by_key(|(i, _)| *i);
            found.into_iter().map(|(_, l)| l).collect()
        };
        cases.push(Case {
            name: name.into(),
            module,
            args: (0..DEVICES)
                .map(|p| pick("in", p).into_iter().map(Literal::from).collect())
                .collect(),
            xla: Some((0..DEVICES).map(|p| pick("out", p)).collect()),
        });
    }
    cases
}

/// The two placements of 8 devices on 4 ranks: the process of each device.
fn placements() -> [(&'static str, Vec<u32>); 2] {
    [
        ("blocks", (0..DEVICES as u32).map(|d| d / 2).collect()),
        ("strided", (0..DEVICES as u32).map(|d| d % 4).collect()),
    ]
}

fn bits(l: &Literal) -> Vec<Vec<u8>> {
    l.leaves()
        .into_iter()
        .map(|a| literal_bytes(&a.to_row_major()).to_vec())
        .collect()
}

/// One rank's part: every case on both placements; returns the failures.
fn rank_checks(world: &MpiWorld) -> Vec<String> {
    let rank = world.rank();
    let mut failures = Vec::new();
    for case in cases() {
        let grid = DeviceGrid::new(1, DEVICES as u32);
        let reference = run_on_devices(
            std::slice::from_ref(&case.module),
            &grid,
            &case.args,
            &DeviceRunOptions {
                backend: DeviceBackend::Interpreter,
                ..DeviceRunOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: in one process: {e}", case.name))
        .results;
        for (placement, owners) in placements() {
            let what = format!("{} ({placement}) rank {rank}", case.name);
            let mut grid = grid.clone();
            grid.device_assignment = Some(owners);
            let mut loaded = load_on_devices(
                std::slice::from_ref(&case.module),
                &grid,
                &DeviceRunOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let engine = MpiHybrid::new(world, &[loaded.module(0)], &grid, Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let local = engine.local_devices().to_vec();
            assert_eq!(local.len(), 2, "{what}: {local:?}");
            let args: Vec<&Vec<Literal>> = local.iter().map(|&d| &case.args[d]).collect();
            let args: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
            let (results, _trace) = match loaded.execute_devices(&local, &args, Arc::new(engine)) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            for (&d, got) in local.iter().zip(&results) {
                if bits(got) != bits(&reference[d]) {
                    failures.push(format!(
                        "{what}: device {d} differs from the in-process run"
                    ));
                }
                let Some(xla) = &case.xla else { continue };
                for (g, w) in got.leaves().into_iter().zip(&xla[d]) {
                    match compare_arrays(g, w, Tolerance::for_type(w.element_type())) {
                        Ok(c) if c.ok() => {}
                        Ok(c) => failures.push(format!("{what}: device {d}: {c}")),
                        Err(e) => failures.push(format!("{what}: device {d}: {e}")),
                    }
                }
            }
        }
    }
    failures
}

/// Runs test `name` of this binary as the 4 ranks of an mpirun job (with `flags` before
/// `-np`); returns whether mpirun succeeded, the ranks' stdout, and stdout with stderr.
fn under_mpirun(name: &str, flags: &[&str]) -> (bool, String, String) {
    let o = Command::new("mpirun")
        .args([
            "--oversubscribe",
            "--allow-run-as-root",
            "--mca",
            "btl_vader_single_copy_mechanism",
            "none",
            "-x",
            CHILD,
        ])
        .args(flags)
        .args(["-np", &RANKS.to_string()])
        .arg(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .expect("mpirun: install openmpi-bin (scripts/test-all.sh does)");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let text = format!("{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    (o.status.success(), stdout, text)
}

#[test]
fn two_devices_per_rank_equal_one_process() {
    if std::env::var_os(CHILD).is_some() {
        let world = MpiWorld::initialize().unwrap();
        let failures = rank_checks(&world);
        for f in &failures {
            println!("FAIL {f}");
        }
        println!("rank {} checked, {} failures", world.rank(), failures.len());
        assert!(failures.is_empty());
        return;
    }
    let (success, stdout, text) = under_mpirun(TEST, &[]);
    assert!(success, "{text}");
    for r in 0..RANKS {
        assert!(
            stdout.contains(&format!("rank {r} checked, 0 failures")),
            "rank {r}: {text}"
        );
    }
}

const ALL_REDUCE_HLO: &str = r#"HloModule all_reduce_8, num_partitions=8

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
}
"#;

/// One rank's part of [`a_rank_that_dies_is_named_by_the_others`]: an all-reduce over the
/// 8 devices runs once; then rank 2 exits, and the others run it again.
fn die_or_name(world: &MpiWorld) {
    let rank = world.rank();
    let module = parse_module(ALL_REDUCE_HLO, "all_reduce_8.hlo")
        .unwrap()
        .module;
    let mut grid = DeviceGrid::new(1, DEVICES as u32);
    grid.device_assignment = Some((0..DEVICES as u32).map(|d| d / 2).collect());
    let load = || {
        let loaded = load_on_devices(
            std::slice::from_ref(&module),
            &grid,
            &DeviceRunOptions::default(),
        )
        .unwrap();
        let engine =
            MpiHybrid::new(world, &[loaded.module(0)], &grid, Duration::from_secs(2)).unwrap();
        (loaded, Arc::new(engine))
    };
    let (mut loaded, engine) = load();
    let local = engine.local_devices().to_vec();
    let args: Vec<Vec<Literal>> = local
        .iter()
        .map(|&d| {
            vec![Literal::from(ArrayLiteral::from_vec(
                &[4],
                spread_values(d, 4),
            ))]
        })
        .collect();
    let run = |loaded: &mut xlac::compiler::LoadedDevices, engine: &Arc<MpiHybrid>| {
        loaded.execute_devices(&local, &args, engine.clone())
    };
    run(&mut loaded, &engine).unwrap();
    if rank == 2 {
        println!("rank 2 exits");
        // No MPI_Finalize: the process is gone, as if killed.
        std::process::exit(7);
    }
    let named = |what: &str, outcome: Result<_, DeviceRunError>| match outcome {
        Err(DeviceRunError::Collectives(CollectiveError::ProcessesGone(g))) => {
            println!(
                "rank {rank} {what}: ranks {:?} gone, devices {:?}",
                g.ranks, g.devices
            );
            g
        }
        Err(e) => panic!("rank {rank} {what}: another error: {e}"),
        Ok(_) => panic!("rank {rank} {what}: ran without rank 2"),
    };
    let first = named("in the all-reduce", run(&mut loaded, &engine));
    // A program loaded after that fails the same way, before any MPI call.
    let (mut again, engine) = load();
    let second = named("in a new program", run(&mut again, &engine));
    assert_eq!(first, second);
    assert_eq!(job_lost(), Some(&CollectiveError::ProcessesGone(first)));
}

#[test]
fn a_rank_that_dies_is_named_by_the_others() {
    const NAME: &str = "a_rank_that_dies_is_named_by_the_others";
    if std::env::var_os(CHILD).is_some() {
        let world = MpiWorld::initialize().unwrap();
        die_or_name(&world);
        println!("rank {} done", world.rank());
        // MPI_Finalize could wait for the dead rank.
        std::mem::forget(world);
        return;
    }
    // --enable-recovery: mpirun lets the others run on once rank 2 has exited.
    let (_, stdout, text) = under_mpirun(NAME, &["--enable-recovery"]);
    assert!(stdout.contains("rank 2 exits"), "{text}");
    for r in [0, 1, 3] {
        for what in ["in the all-reduce", "in a new program"] {
            let line = format!("rank {r} {what}: ranks [2] gone, devices [4, 5]");
            assert!(stdout.contains(&line), "{line}: {text}");
        }
        assert!(
            stdout.contains(&format!("rank {r} done")),
            "rank {r}: {text}"
        );
    }
}
