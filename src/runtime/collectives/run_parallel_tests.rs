//! Collectives on process grids, written as HLO text, through the device runtime. Each grid
//! is one `interpreter.run_parallel` custom call; expected values are the check constants of the
//! StableHLO conformance files (`stablehlo-interpret/<op>.mlir`), named per test.

use crate::eval::{EvalOptions, Evaluator};
use crate::front::hlo_text::parse_module;
use crate::ir::{ArrayLiteral, Literal};

/// Parses and runs `text`; returns the elements of the result tuple.
fn run(text: &str) -> Result<Vec<Literal>, String> {
    let module = parse_module(text, "test.hlo")
        .map_err(|e| format!("parse: {e}"))?
        .module;
    let mut ev = Evaluator::new(&module, EvalOptions::default());
    ev.custom_call_handler = Some(super::run_parallel::RunParallel::wrapping(None));
    match ev.call(module.entry, &[]) {
        Ok(Literal::Tuple(t)) => Ok(t),
        Ok(v) => Ok(vec![v]),
        Err(e) => Err(e.to_string()),
    }
}

fn s64(dims: &[i64], v: &[i64]) -> Literal {
    ArrayLiteral::from_vec(dims, v.to_vec()).into()
}

const ADD: &str =
    "add {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  ROOT s = s64[] add(a, b)\n}\n";

/// A module with the `add` reducer, a `program` computation and an entry that runs
/// `programs` (a list of names) on a `r x p` grid with the given operands.
fn grid_module(
    program: &str,
    entry_body: &str,
    operands: &str,
    result: &str,
    programs: &str,
    r: u32,
    p: u32,
) -> String {
    format!(
        "HloModule m\n\n{ADD}\n{program}\nENTRY main {{\n{entry_body}  ROOT run = {result} custom-call({operands}), custom_call_target=\"interpreter.run_parallel\", called_computations={{{programs}}}, backend_config={{\"num_replicas\": {r}, \"num_partitions\": {p}}}\n}}\n"
    )
}

#[test]
fn all_reduce_cross_replica() {
    // all_reduce.mlir @cross_replica: [1,2,3,4] + [5,6,7,8] on both replicas.
    let program = "program {\n  x = s64[4] parameter(0)\n  ROOT r = s64[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add\n}\n";
    let entry = "  c0 = s64[4] constant({1, 2, 3, 4})\n  c1 = s64[4] constant({5, 6, 7, 8})\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1",
        "(s64[4], s64[4])",
        "program, program",
        2,
        1,
    );
    let want = s64(&[4], &[6, 8, 10, 12]);
    assert_eq!(run(&text).unwrap(), vec![want.clone(), want]);
}

#[test]
fn all_reduce_ragged_groups_and_flattened_ids() {
    // all_reduce.mlir @ragged_replica_groups: replica 2 is alone in {2,-1}.
    let program = "program {\n  x = s64[4] parameter(0)\n  ROOT r = s64[4] all-reduce(x), replica_groups={{0,1},{2,-1}}, to_apply=add\n}\n";
    let entry = "  c0 = s64[4] constant({1, 2, 3, 4})\n  c1 = s64[4] constant({5, 6, 7, 8})\n  c2 = s64[4] constant({6, 8, 10, 12})\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1, c2",
        "(s64[4], s64[4], s64[4])",
        "program, program, program",
        3,
        1,
    );
    let want = s64(&[4], &[6, 8, 10, 12]);
    assert_eq!(
        run(&text).unwrap(),
        vec![want.clone(), want.clone(), want.clone()]
    );
    // all_reduce.mlir @flattened_ids: channel + use_global_device_ids, same result.
    let program = "program {\n  x = s64[4] parameter(0)\n  ROOT r = s64[4] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add\n}\n";
    let entry = "  c0 = s64[4] constant({1, 2, 3, 4})\n  c1 = s64[4] constant({5, 6, 7, 8})\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1",
        "(s64[4], s64[4])",
        "program, program",
        2,
        1,
    );
    assert_eq!(run(&text).unwrap(), vec![want.clone(), want]);
}

#[test]
fn all_reduce_variadic_with_a_general_reducer() {
    // all_reduce.mlir @cross_replica_variadic; the reducer is add with an extra copy, so
    // it takes the per-element path.
    let program = "addc {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  s = s64[] add(a, b)\n  ROOT c = s64[] copy(s)\n}\n\nprogram {\n  x = s64[4] parameter(0)\n  y = s64[5] parameter(1)\n  ROOT r = (s64[4], s64[5]) all-reduce(x, y), replica_groups={{0,1}}, to_apply=addc\n}\n";
    let entry = "  a0 = s64[4] constant({1, 2, 3, 4})\n  b0 = s64[5] constant({5, 6, 7, 8, 9})\n  a1 = s64[4] constant({11, 12, 13, 14})\n  b1 = s64[5] constant({15, 16, 17, 18, 19})\n";
    let text = grid_module(
        program,
        entry,
        "a0, b0, a1, b1",
        "(s64[4], s64[5], s64[4], s64[5])",
        "program, program",
        2,
        1,
    );
    let (x, y) = (
        s64(&[4], &[12, 14, 16, 18]),
        s64(&[5], &[20, 22, 24, 26, 28]),
    );
    assert_eq!(run(&text).unwrap(), vec![x.clone(), y.clone(), x, y]);
}

#[test]
fn all_gather_cross_replica_and_partition_on_2x2() {
    // all_gather.mlir @cross_replica_and_partition_issue_1933: operands (%1, %1, %0, %1).
    let program = "program {\n  x = s64[2,2] parameter(0)\n  ROOT g = s64[2,8] all-gather(x), channel_id=1, replica_groups={{0,1}}, dimensions={1}\n}\n";
    let entry =
        "  c0 = s64[2,2] constant({{1, 2}, {3, 4}})\n  c1 = s64[2,2] constant({{5, 6}, {7, 8}})\n";
    let text = grid_module(
        program,
        entry,
        "c1, c1, c0, c1",
        "(s64[2,8], s64[2,8], s64[2,8], s64[2,8])",
        "program, program, program, program",
        2,
        2,
    );
    let want = s64(&[2, 8], &[5, 6, 1, 2, 5, 6, 5, 6, 7, 8, 3, 4, 7, 8, 7, 8]);
    assert_eq!(
        run(&text).unwrap(),
        vec![want.clone(), want.clone(), want.clone(), want]
    );
}

#[test]
fn reduce_scatter_cross_replica() {
    // reduce_scatter.mlir @cross_replica.
    let program = "program {\n  x = s64[2,4] parameter(0)\n  ROOT r = s64[2,2] reduce-scatter(x), replica_groups={{0,1}}, dimensions={1}, to_apply=add\n}\n";
    let entry = "  c0 = s64[2,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}})\n  c1 = s64[2,4] constant({{9, 10, 11, 12}, {13, 14, 15, 16}})\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1",
        "(s64[2,2], s64[2,2])",
        "program, program",
        2,
        1,
    );
    assert_eq!(
        run(&text).unwrap(),
        vec![
            s64(&[2, 2], &[10, 12, 18, 20]),
            s64(&[2, 2], &[14, 16, 22, 24])
        ]
    );
}

#[test]
fn all_to_all_split_and_concat_dimensions() {
    // all_to_all.mlir @cross_replica (split 1, concat 0) and @cross_replica_issue_2433
    // (group {1,0}).
    let entry = "  c0 = s64[2,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}})\n  c1 = s64[2,4] constant({{9, 10, 11, 12}, {13, 14, 15, 16}})\n";
    let program = "program {\n  x = s64[2,4] parameter(0)\n  ROOT r = s64[4,2] all-to-all(x), replica_groups={{0,1}}, dimensions={1}\n}\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1",
        "(s64[4,2], s64[4,2])",
        "program, program",
        2,
        1,
    );
    assert_eq!(
        run(&text).unwrap(),
        vec![
            s64(&[4, 2], &[1, 2, 5, 6, 9, 10, 13, 14]),
            s64(&[4, 2], &[3, 4, 7, 8, 11, 12, 15, 16])
        ]
    );
    let program = program.replace("{{0,1}}", "{{1,0}}");
    let text = grid_module(
        &program,
        entry,
        "c0, c1",
        "(s64[4,2], s64[4,2])",
        "program, program",
        2,
        1,
    );
    assert_eq!(
        run(&text).unwrap(),
        vec![
            s64(&[4, 2], &[11, 12, 15, 16, 3, 4, 7, 8]),
            s64(&[4, 2], &[9, 10, 13, 14, 1, 2, 5, 6])
        ]
    );
    // all_to_all.mlir @cross_partition: a channel id makes the groups partitions (1x2).
    let program = "program {\n  x = s64[2,4] parameter(0)\n  ROOT r = s64[4,2] all-to-all(x), channel_id=1, replica_groups={{0,1}}, dimensions={1}\n}\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1",
        "(s64[4,2], s64[4,2])",
        "program, program",
        1,
        2,
    );
    assert_eq!(
        run(&text).unwrap()[1],
        s64(&[4, 2], &[3, 4, 7, 8, 11, 12, 15, 16])
    );
}

#[test]
fn collective_permute_with_self_loops() {
    // collective_permute.mlir @cross_replica_with_self_loops: replica 0 receives nothing.
    let program = "program {\n  x = s64[2,2] parameter(0)\n  ROOT r = s64[2,2] collective-permute(x), source_target_pairs={{0,1},{1,2},{3,3},{4,4}}\n}\n";
    let entry = (0..5)
        .map(|i| {
            let b = 4 * i + 1;
            format!(
                "  c{i} = s64[2,2] constant({{{{{}, {}}}, {{{}, {}}}}})\n",
                b,
                b + 1,
                b + 2,
                b + 3
            )
        })
        .collect::<String>();
    let text = grid_module(
        program,
        &entry,
        "c0, c1, c2, c3, c4",
        "(s64[2,2], s64[2,2], s64[2,2], s64[2,2], s64[2,2])",
        "program, program, program, program, program",
        5,
        1,
    );
    assert_eq!(
        run(&text).unwrap(),
        vec![
            s64(&[2, 2], &[0, 0, 0, 0]),
            s64(&[2, 2], &[1, 2, 3, 4]),
            s64(&[2, 2], &[5, 6, 7, 8]),
            s64(&[2, 2], &[13, 14, 15, 16]),
            s64(&[2, 2], &[17, 18, 19, 20]),
        ]
    );
}

#[test]
fn collective_broadcast_outside_the_group_gives_zeros() {
    // collective_broadcast.mlir @cross_replica: group {2,1} on 4 replicas, source replica 2.
    let program = "program {\n  x = s64[1,2] parameter(0)\n  ROOT r = s64[1,2] collective-broadcast(x), replica_groups={{2,1}}\n}\n";
    let entry = "  c0 = s64[1,2] constant({{1, 2}})\n  c1 = s64[1,2] constant({{3, 4}})\n  c2 = s64[1,2] constant({{5, 6}})\n  c3 = s64[1,2] constant({{7, 8}})\n";
    let text = grid_module(
        program,
        entry,
        "c0, c1, c2, c3",
        "(s64[1,2], s64[1,2], s64[1,2], s64[1,2])",
        "program, program, program, program",
        4,
        1,
    );
    let (z, v) = (s64(&[1, 2], &[0, 0]), s64(&[1, 2], &[5, 6]));
    assert_eq!(run(&text).unwrap(), vec![z.clone(), v.clone(), v, z]);
}

#[test]
fn collective_broadcast_dynamic_root_picks_a_source_per_operand() {
    // collective_broadcast.mlir @has_dynamic_root_variadic: root [0, 1] takes data0 from
    // process 0 and data1 from process 1; the root operand is not a result.
    let program = "program {\n  a = s64[1,2] parameter(0)\n  b = s64[1,2] parameter(1)\n  r = s32[2] parameter(2)\n  ROOT t = (s64[1,2], s64[1,2]) collective-broadcast(a, b, r), replica_groups={{0,1}}, has_dynamic_root=true\n}\n";
    let entry = "  a0 = s64[1,2] constant({{1, 2}})\n  b0 = s64[1,2] constant({{5, 6}})\n  a1 = s64[1,2] constant({{3, 4}})\n  b1 = s64[1,2] constant({{7, 8}})\n  r = s32[2] constant({0, 1})\n";
    let text = grid_module(
        program,
        entry,
        "a0, b0, r, a1, b1, r",
        "(s64[1,2], s64[1,2], s64[1,2], s64[1,2])",
        "program, program",
        2,
        1,
    );
    let (a, b) = (s64(&[1, 2], &[1, 2]), s64(&[1, 2], &[7, 8]));
    assert_eq!(run(&text).unwrap(), vec![a.clone(), b.clone(), a, b]);
}

#[test]
fn replica_and_partition_ids_on_a_2x2_grid() {
    // replica_id.mlir / partition_id.mlir, on a 2x2 grid: process i is (i / 2, i % 2).
    let program = "program {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n";
    let text = grid_module(
        program,
        "",
        "",
        "(u32[], u32[], u32[], u32[], u32[], u32[], u32[], u32[])",
        "program, program, program, program",
        2,
        2,
    );
    let ids: Vec<u32> = run(&text)
        .unwrap()
        .iter()
        .map(|l| l.as_array().unwrap().values::<u32>().unwrap()[0])
        .collect();
    assert_eq!(ids, vec![0, 0, 0, 1, 1, 0, 1, 1]);
}

#[test]
fn send_recv_and_feeds() {
    // send_recv.mlir @sequential_send_recv_same_channel: FIFO on one channel.
    let program = "sender {\n  x = s64[2] parameter(0)\n  t = token[] parameter(1)\n  s = (s64[2], u32[], token[]) send(x, t), channel_id=1, is_host_transfer=true\n  d = token[] send-done(s), channel_id=1, is_host_transfer=true\n  c = s64[2] constant({5, 6})\n  s2 = (s64[2], u32[], token[]) send(c, d), channel_id=1, is_host_transfer=true\n  ROOT d2 = token[] send-done(s2), channel_id=1, is_host_transfer=true\n}\n\nreceiver {\n  t = token[] parameter(0)\n  r = (s64[2], u32[], token[]) recv(t), channel_id=1, is_host_transfer=true\n  d = (s64[2], token[]) recv-done(r), channel_id=1, is_host_transfer=true\n  v = s64[2] get-tuple-element(d), index=0\n  r2 = (s64[2], u32[], token[]) recv(t), channel_id=1, is_host_transfer=true\n  d2 = (s64[2], token[]) recv-done(r2), channel_id=1, is_host_transfer=true\n  v2 = s64[2] get-tuple-element(d2), index=0\n  ROOT out = (s64[2], s64[2]) tuple(v, v2)\n}\n";
    let entry = "  x = s64[2] constant({1, 2})\n  t = token[] after-all()\n";
    let text = grid_module(
        program,
        entry,
        "x, t, t",
        "(token[], s64[2], s64[2])",
        "sender, receiver",
        2,
        1,
    );
    let out = run(&text).unwrap();
    assert_eq!(out[1..], [s64(&[2], &[1, 2]), s64(&[2], &[5, 6])]);

    // infeed.mlir: two infeeds pop the queue in order; outfeed.mlir just runs.
    let text = "HloModule m\n\nq0 {\n  ROOT c = s64[2] constant({1, 2})\n}\n\nq1 {\n  ROOT c = s64[2] constant({5, 6})\n}\n\nprogram {\n  t = token[] parameter(0)\n  i = (s64[2], token[]) infeed(t)\n  a = s64[2] get-tuple-element(i), index=0\n  i2 = (s64[2], token[]) infeed(t)\n  b = s64[2] get-tuple-element(i2), index=0\n  o = token[] outfeed(b, t)\n  ROOT out = (s64[2], s64[2]) tuple(a, b)\n}\n\nENTRY main {\n  t = token[] after-all()\n  ROOT run = (s64[2], s64[2]) custom-call(t), custom_call_target=\"interpreter.run_parallel\", called_computations={program}, backend_config={\"num_replicas\": 1, \"num_partitions\": 1, \"infeed\": [\"q0\", \"q1\"]}\n}\n";
    assert_eq!(
        run(text).unwrap(),
        vec![s64(&[2], &[1, 2]), s64(&[2], &[5, 6])]
    );
}

#[test]
fn single_device_collectives_are_a_1x1_grid() {
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY main {{\n  x = s64[3] constant({{1, 2, 3}})\n  r = s64[3] all-reduce(x), replica_groups={{}}, to_apply=add\n  p = s64[3] collective-permute(x), source_target_pairs={{{{0,0}}}}\n  q = s64[3] collective-permute(x), source_target_pairs={{}}\n  ROOT t = (s64[3], s64[3], s64[3]) tuple(r, p, q)\n}}\n"
    );
    let x = s64(&[3], &[1, 2, 3]);
    assert_eq!(
        run(&text).unwrap(),
        vec![x.clone(), x, s64(&[3], &[0, 0, 0])]
    );
    // A group naming a replica the grid does not have is an error, not a hang.
    let text = format!(
        "HloModule m\n\n{ADD}\nENTRY main {{\n  x = s64[3] constant({{1, 2, 3}})\n  ROOT r = s64[3] all-reduce(x), replica_groups={{{{0,1}}}}, to_apply=add\n}}\n"
    );
    assert!(
        run(&text)
            .unwrap_err()
            .contains("outside the 1x1 process grid")
    );
}

#[test]
fn a_process_that_skips_a_collective_fails_the_grid_quickly() {
    // Process 0 all-reduces, process 1 returns at once: the runtime sees that no device can
    // run any more and stops with the deadlock report, without waiting for its deadline.
    let text = format!(
        "HloModule m\n\n{ADD}\nreducer {{\n  x = s64[2] parameter(0)\n  ROOT r = s64[2] all-reduce(x), replica_groups={{{{0,1}}}}, to_apply=add\n}}\n\nidle {{\n  ROOT x = s64[2] parameter(0)\n}}\n\nENTRY main {{\n  c = s64[2] constant({{1, 2}})\n  ROOT run = (s64[2], s64[2]) custom-call(c, c), custom_call_target=\"interpreter.run_parallel\", called_computations={{reducer, idle}}, backend_config={{\"num_replicas\": 2, \"num_partitions\": 1}}\n}}\n"
    );
    let err = run(&text).unwrap_err();
    assert!(
        err.contains("collectives deadlock: 1 device waits (all-reduce %r), 1 returned"),
        "{err}"
    );
}
