//! Tests of the device runtime: every collective on small grids against hand-computed
//! values (the StableHLO spec's examples), on both backends, bit for bit equal; deadlock
//! and mismatch reports; bad ops; traces; the static checker.

use super::*;
use crate::check::collective_order::check_collectives;
use crate::compiler::{DeviceBackend, DeviceRunOptions, run_on_devices};
use crate::front::hlo_text::parse_module;
use crate::ir::{ArrayLiteral, Literal, Module};

const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";

fn module(text: &str) -> Module {
    parse_module(text, "test.hlo").expect("parses").module
}

fn f32s(dims: &[i64], v: &[f32]) -> Literal {
    ArrayLiteral::from_vec(dims, v.to_vec()).into()
}

fn values(l: &Literal) -> Vec<f32> {
    l.as_array()
        .and_then(|a| a.values::<f32>())
        .expect("f32 array")
        .to_vec()
}

/// Runs `text` on `grid` with per-device args on `backend`.
fn run(
    text: &str,
    grid: DeviceGrid,
    args: Vec<Vec<Literal>>,
    backend: DeviceBackend,
    mode: Option<CollectiveMode>,
) -> Result<Vec<Literal>, CollectiveError> {
    let m = module(text);
    let options = DeviceRunOptions {
        backend,
        mode,
        ..DeviceRunOptions::default()
    };
    match run_on_devices(&[m], &grid, &args, &options) {
        Ok(r) => Ok(r.results),
        Err(crate::compiler::DeviceRunError::Collectives(e)) => Err(e),
        Err(e) => panic!("does not compile: {e}"),
    }
}

/// Runs on both backends; asserts they agree bit for bit; returns the results.
fn both(text: &str, grid: DeviceGrid, args: Vec<Vec<Literal>>) -> Vec<Literal> {
    let a = run(
        text,
        grid.clone(),
        args.clone(),
        DeviceBackend::Interpreter,
        None,
    )
    .expect("interpreter runs");
    let b = run(text, grid, args, DeviceBackend::Compiled, None).expect("compiled runs");
    assert_eq!(bits(&a), bits(&b), "the backends disagree");
    a
}

/// Every leaf's bytes (NaN payloads included).
fn bits(results: &[Literal]) -> Vec<Vec<u8>> {
    results
        .iter()
        .flat_map(|l| l.leaves())
        .map(|a| crate::runtime::buffers::literal_bytes(&a.to_row_major()).to_vec())
        .collect()
}

fn per_device(n: usize, f: impl Fn(usize) -> Vec<Literal>) -> Vec<Vec<Literal>> {
    (0..n).map(f).collect()
}

#[test]
fn all_reduce_sums_in_device_order() {
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[3] parameter(0)\n  ROOT r = f32[3] all-reduce(x), channel_id=1, replica_groups={{{{0,1,2,3}}}}, use_global_device_ids=true, to_apply=add\n}}\n"
    );
    let args = per_device(4, |d| {
        vec![f32s(&[3], &[d as f32, 1.0, 1e8 * (d as f32 - 1.5)])]
    });
    let out = both(&text, DeviceGrid::new(1, 4), args);
    for r in &out {
        // ((-1.5e8 + -0.5e8) + 0.5e8) + 1.5e8, folded in device order.
        assert_eq!(
            values(r),
            vec![6.0, 4.0, ((-1.5e8f32 + -0.5e8) + 0.5e8) + 1.5e8]
        );
    }
}

#[test]
fn groups_gather_scatter_and_all_to_all() {
    // Two groups {0,1},{2,3} (iota form), all-gather along 1, reduce-scatter along 0,
    // array all-to-all split 0 concat 1 (the converter's form).
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[2,2] parameter(0)\n  g = f32[2,4] all-gather(x), channel_id=1, replica_groups=[2,2]<=[4], dimensions={{1}}, use_global_device_ids=true\n  s = f32[1,2] reduce-scatter(x), channel_id=1, replica_groups=[2,2]<=[4], dimensions={{0}}, use_global_device_ids=true, to_apply=add\n  t = f32[2,2] all-to-all(x), channel_id=1, replica_groups={{{{0,1}},{{2,3}}}}, dimensions={{0}}\n  ROOT o = (f32[2,4], f32[1,2], f32[2,2]) tuple(g, s, t)\n}}\n"
    );
    let args = per_device(4, |d| {
        let b = 10.0 * d as f32;
        vec![f32s(&[2, 2], &[b, b + 1.0, b + 2.0, b + 3.0])]
    });
    let out = both(&text, DeviceGrid::new(1, 4), args);
    let parts = |l: &Literal| {
        l.as_tuple()
            .expect("tuple")
            .iter()
            .map(values)
            .collect::<Vec<_>>()
    };
    let p1 = parts(&out[1]);
    assert_eq!(p1[0], vec![0.0, 1.0, 10.0, 11.0, 2.0, 3.0, 12.0, 13.0]);
    // Rows summed over {0,1}: [10,12],[14,16]; device 1 gets row 1.
    assert_eq!(p1[1], vec![14.0, 16.0]);
    // All-to-all: device 1 gets row 1 of device 0, then row 1 of its own.
    assert_eq!(p1[2], vec![2.0, 3.0, 12.0, 13.0]);
    let p2 = parts(&out[2]);
    assert_eq!(p2[1], vec![50.0, 52.0]);
}

#[test]
fn permute_leaves_zeros_and_tuple_forms() {
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[2] parameter(0)\n  y = f32[2] parameter(1)\n  p = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{{{0,1}},{{1,2}}}}\n  t = (f32[2], f32[2], f32[2]) all-to-all(x, y, x), channel_id=1, replica_groups={{{{0,1,2}}}}\n  r = (f32[2], f32[2]) all-reduce(x, y), channel_id=1, replica_groups={{{{0,1,2}}}}, use_global_device_ids=true, to_apply=add\n  i = u32[] partition-id()\n  ROOT o = (f32[2], (f32[2], f32[2], f32[2]), (f32[2], f32[2]), u32[]) tuple(p, t, r, i)\n}}\n"
    );
    let args = per_device(3, |d| {
        vec![
            f32s(&[2], &[d as f32, 1.0]),
            f32s(&[2], &[100.0 + d as f32, 0.5]),
        ]
    });
    let out = both(&text, DeviceGrid::new(1, 3), args);
    let t0 = out[0].as_tuple().unwrap();
    assert_eq!(
        values(&t0[0]),
        vec![0.0, 0.0],
        "device 0 is no target: zeros"
    );
    let t2 = out[2].as_tuple().unwrap();
    assert_eq!(values(&t2[0]), vec![1.0, 1.0]);
    // Tuple all-to-all: device 1 gets operand 1 of every device: y0, y1, y2.
    let a2a = out[1].as_tuple().unwrap()[1]
        .as_tuple()
        .unwrap()
        .iter()
        .map(values)
        .collect::<Vec<_>>();
    assert_eq!(
        a2a,
        vec![vec![100.0, 0.5], vec![101.0, 0.5], vec![102.0, 0.5]]
    );
    let combined = t2[2]
        .as_tuple()
        .unwrap()
        .iter()
        .map(values)
        .collect::<Vec<_>>();
    assert_eq!(combined, vec![vec![3.0, 3.0], vec![303.0, 1.5]]);
    assert_eq!(t2[3].as_array().unwrap().values::<u32>().unwrap(), &[2]);
}

#[test]
fn any_reduction_computation_runs_compiled() {
    // max(a, b) * 1 + 0: not one binary op, so the compiled scalar function runs it.
    let text = "HloModule m\n\nmx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] maximum(a, b)\n  one = f32[] constant(1)\n  ROOT r = f32[] multiply(m, one)\n}\n\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT r = f32[3] all-reduce(x), replica_groups={}, to_apply=mx\n}\n";
    let args = per_device(2, |d| vec![f32s(&[3], &[d as f32, -(d as f32), f32::NAN])]);
    let out = both(text, DeviceGrid::new(2, 1), args);
    let v = values(&out[0]);
    assert_eq!(&v[..2], &[1.0, 0.0]);
    assert!(v[2].is_nan());
}

#[test]
fn group_modes_on_a_replica_partition_grid() {
    // 2 replicas x 2 partitions; cross-replica groups {0,1} of replica ids, per partition.
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[1] parameter(0)\n  a = f32[1] all-reduce(x), replica_groups={{{{0,1}}}}, to_apply=add\n  b = f32[1] all-reduce(x), channel_id=2, replica_groups={{{{0,1}}}}, to_apply=add\n  c = f32[1] all-reduce(x), channel_id=3, replica_groups={{{{0,1}},{{2,3}}}}, use_global_device_ids=true, to_apply=add\n  ROOT o = (f32[1], f32[1], f32[1]) tuple(a, b, c)\n}}\n"
    );
    let args = per_device(4, |d| vec![f32s(&[1], &[(1 << d) as f32])]);
    let out = both(&text, DeviceGrid::new(2, 2), args);
    let row = |d: usize| {
        out[d]
            .as_tuple()
            .unwrap()
            .iter()
            .map(|l| values(l)[0])
            .collect::<Vec<_>>()
    };
    // Device d = replica*2 + partition. Cross-replica: {0,2},{1,3}; replica-and-partition:
    // all four; flattened {0,1},{2,3}: devices 0 and 1, 2 and 3.
    assert_eq!(row(0), vec![5.0, 15.0, 3.0]);
    assert_eq!(row(1), vec![10.0, 15.0, 3.0]);
}

/// Even devices all-reduce, odd ones permute: every device waits, none can complete.
const MISORDERED: &str = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\neven {\n  p = (f32[2]) parameter(0)\n  x = f32[2] get-tuple-element(p), index=0\n  ROOT psum.5 = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add\n}\n\nodd {\n  p = (f32[2]) parameter(0)\n  x = f32[2] get-tuple-element(p), index=0\n  ROOT ppermute.1 = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}\n}\n\nENTRY e {\n  x = f32[2] parameter(0)\n  i = u32[] partition-id()\n  two = u32[] constant(2)\n  r = u32[] remainder(i, two)\n  zero = u32[] constant(0)\n  c = pred[] compare(r, zero), direction=EQ\n  t = (f32[2]) tuple(x)\n  ROOT o = f32[2] conditional(c, t, t), true_computation=even, false_computation=odd\n}\n";

#[test]
fn a_misordered_program_stops_with_every_devices_position() {
    let args = per_device(4, |d| vec![f32s(&[2], &[d as f32, 0.0])]);
    for backend in [DeviceBackend::Interpreter, DeviceBackend::Compiled] {
        for mode in [
            None,
            Some(CollectiveMode::Threaded {
                deadline: std::time::Duration::from_secs(30),
            }),
        ] {
            let start = std::time::Instant::now();
            let err = run(
                MISORDERED,
                DeviceGrid::new(1, 4),
                args.clone(),
                backend,
                mode,
            )
            .unwrap_err();
            let CollectiveError::Deadlock(report) = &err else {
                panic!("not a deadlock: {err}");
            };
            // Found at once, not by a timeout (the threaded deadline is 30 s).
            assert!(start.elapsed() < std::time::Duration::from_secs(20));
            let text = report.to_string();
            assert!(
                text.contains("all-reduce %psum.5 vs collective-permute %ppermute.1"),
                "{text}"
            );
            assert!(text.contains("device 0 (replica 0, partition 0): waits in all-reduce %psum.5 #0 (channel 1, group {0,1,2,3}; not there: {1,3})"), "{text}");
            assert!(
                text.contains(
                    "device 3 (replica 0, partition 3): waits in collective-permute %ppermute.1 #0"
                ),
                "{text}"
            );
            assert!(text.contains("none completed"), "{text}");
        }
    }
}

#[test]
fn a_device_dependent_trip_count_stops_and_names_returned_devices() {
    let text = format!(
        "HloModule m\n\n{ADD}\ncond {{\n  s = (u32[], f32[2]) parameter(0)\n  i = u32[] get-tuple-element(s), index=0\n  n = u32[] partition-id()\n  ROOT c = pred[] compare(i, n), direction=LE\n}}\n\nbody {{\n  s = (u32[], f32[2]) parameter(0)\n  i = u32[] get-tuple-element(s), index=0\n  x = f32[2] get-tuple-element(s), index=1\n  one = u32[] constant(1)\n  j = u32[] add(i, one)\n  psum.2 = f32[2] all-reduce(x), channel_id=1, replica_groups={{{{0,1,2}}}}, use_global_device_ids=true, to_apply=add\n  ROOT t = (u32[], f32[2]) tuple(j, psum.2)\n}}\n\nENTRY e {{\n  x = f32[2] parameter(0)\n  z = u32[] constant(0)\n  s = (u32[], f32[2]) tuple(z, x)\n  w = (u32[], f32[2]) while(s), condition=cond, body=body\n  ROOT r = f32[2] get-tuple-element(w), index=1\n}}\n"
    );
    let grid = DeviceGrid::new(1, 3);
    let args = per_device(3, |_| vec![f32s(&[2], &[1.0, 2.0])]);
    for backend in [DeviceBackend::Interpreter, DeviceBackend::Compiled] {
        let err = run(&text, grid.clone(), args.clone(), backend, None).unwrap_err();
        let s = err.to_string();
        assert!(s.contains("device 0 (replica 0, partition 0): returned; 1 completed, last all-reduce %psum.2 #0"), "{s}");
        assert!(
            s.contains("device 1 (replica 0, partition 1): waits in all-reduce %psum.2 #1"),
            "{s}"
        );
    }
    let report = check_collectives(&module(&text), &grid);
    assert!(report.diverges(), "{}", report.text());
    assert!(
        report
            .text()
            .contains("while %w: its trip count depends on the device"),
        "{}",
        report.text()
    );
}

#[test]
fn the_checker_evaluates_branches_per_device() {
    let grid = DeviceGrid::new(1, 4);
    let report = check_collectives(&module(MISORDERED), &grid);
    assert!(report.diverges());
    assert!(
        report
            .text()
            .contains("devices 0 and 1 diverge at collective #0"),
        "{}",
        report.text()
    );
    // Both branches all-reduce: the same sequence on every device.
    let aligned = MISORDERED.replace(
        "ROOT ppermute.1 = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}",
        "ROOT psum.6 = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add",
    );
    let report = check_collectives(&module(&aligned), &grid);
    assert!(!report.diverges(), "{}", report.text());
    let args = per_device(4, |d| vec![f32s(&[2], &[d as f32, 1.0])]);
    let out = both(&aligned, grid, args);
    assert_eq!(values(&out[3]), vec![6.0, 4.0]);
}

#[test]
fn bad_ops_are_one_line_naming_op_and_devices() {
    let cases = [
        (
            "replica_groups={{0,1},{1,2,3}}",
            "all-reduce %r: device 1 is in two replica groups ({0,1} and {1,2,3})",
        ),
        (
            "replica_groups={{0,1}}",
            "all-reduce %r: devices 2, 3 are in no replica group",
        ),
    ];
    for (groups, want) in cases {
        let text = format!(
            "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[1] parameter(0)\n  ROOT r = f32[1] all-reduce(x), channel_id=1, {groups}, use_global_device_ids=true, to_apply=add\n}}\n"
        );
        for backend in [DeviceBackend::Interpreter, DeviceBackend::Compiled] {
            let args = per_device(4, |_| vec![f32s(&[1], &[1.0])]);
            let err = run(&text, DeviceGrid::new(1, 4), args, backend, None).unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
            assert!(!err.to_string().contains('\n'));
        }
    }
    let text = "HloModule m\n\nENTRY e {\n  x = f32[1] parameter(0)\n  ROOT p = f32[1] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{2,1}}\n}\n";
    let args = per_device(3, |_| vec![f32s(&[1], &[1.0])]);
    let err = run(
        text,
        DeviceGrid::new(1, 3),
        args,
        DeviceBackend::Compiled,
        None,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("collective-permute %p: device 1 is the target of two pairs"),
        "{err}"
    );
}

#[test]
fn participants_with_other_shapes_are_a_mismatch() {
    let make = |n: i64| {
        module(&format!(
            "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  ROOT r = f32[{n}] all-reduce(x), replica_groups={{}}, to_apply=add\n}}\n"
        ))
    };
    let modules = [make(2), make(3)];
    let args = vec![
        vec![f32s(&[2], &[1.0, 2.0])],
        vec![f32s(&[3], &[1.0, 2.0, 3.0])],
    ];
    for backend in [DeviceBackend::Interpreter, DeviceBackend::Compiled] {
        let options = DeviceRunOptions {
            backend,
            ..DeviceRunOptions::default()
        };
        let err = run_on_devices(&modules, &DeviceGrid::new(2, 1), &args, &options).unwrap_err();
        let s = err.to_string();
        assert!(s.contains("all-reduce %r #0: device 0 (all-reduce %r) and device 1 (all-reduce %r) disagree: f32[2] vs f32[3]"), "{s}");
    }
}

#[test]
fn the_trace_has_one_lane_per_device() {
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[4] parameter(0)\n  a = f32[4] all-reduce(x), replica_groups={{}}, to_apply=add\n  ROOT g = f32[8] all-gather(a), replica_groups={{}}, dimensions={{0}}\n}}\n"
    );
    let args = per_device(2, |_| vec![f32s(&[4], &[1.0; 4])]);
    let options = DeviceRunOptions::default();
    let run = run_on_devices(&[module(&text)], &DeviceGrid::new(2, 1), &args, &options).unwrap();
    let json: serde_json::Value = serde_json::from_str(&run.trace.chrome_json()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let lanes: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(lanes, [0, 1].into_iter().collect());
    let transfers: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["cat"] == "transfer").collect();
    assert_eq!(transfers.len(), 4);
    assert_eq!(transfers[0]["args"]["bytes_out"], 16);
    let table = run.trace.table();
    assert!(table.contains("all-gather %g"), "{table}");
}

#[test]
fn mesh_replica_groups_parse_and_run() {
    // XLA's V3 form with a device list: groups {0,2,4,6},{1,3,5,7}.
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY e {{\n  x = f32[1] parameter(0)\n  ROOT r = f32[1] all-reduce(x), channel_id=1, replica_groups=mesh['axis_0'=2,'axis_1'=1,'axis_2'=4], device_ids=([4,2]T(1,0)) {{'axis_2'}}, use_global_device_ids=true, to_apply=add\n}}\n"
    );
    let args = per_device(8, |d| vec![f32s(&[1], &[(1 << d) as f32])]);
    let out = both(&text, DeviceGrid::new(1, 8), args);
    assert_eq!(values(&out[0]), vec![1.0 + 4.0 + 16.0 + 64.0]);
    assert_eq!(values(&out[7]), vec![2.0 + 8.0 + 32.0 + 128.0]);
}
