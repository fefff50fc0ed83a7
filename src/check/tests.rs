//! The runner: case splitting, statuses, and whole files of HLO text cases that use the
//! check custom calls exactly as the StableHLO converter emits them.

use super::*;

#[test]
fn splits_on_the_separator_substring() {
    let text = "// RUN: x\n\nfunc.func @a() {}\n// -----\nfunc.func @b() {}\n\n// // -----\nfunc.func @c() {}\n";
    let chunks = split_cases(text, "func.func");
    let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "// RUN: x\n\nfunc.func @a() {}\n",
            "func.func @b() {}\n\n",
            "func.func @c() {}\n"
        ]
    );
    // Lines before each chunk: a starts at line 1, b after 4 lines, c after 7.
    let offsets: Vec<usize> = chunks.iter().map(|c| c.line_offset).collect();
    assert_eq!(offsets, vec![0, 4, 7]);
}

#[test]
fn chunks_without_a_function_are_not_cases() {
    // probe.mlir's first chunk holds only a comment.
    let text = "// RUN: x\n\n// Test an empty module\n\n// -----\n\nfunc.func @p() {}\n// -----\n";
    let chunks = split_cases(text, "func.func");
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].text, "\nfunc.func @p() {}\n");
    assert_eq!(chunks[0].line_offset, 5);
    assert!(split_cases("", "func.func").is_empty());
    assert_eq!(split_cases("func.func @only() {}", "func.func").len(), 1);
}

/// One HLO text case whose entry body is `body` (it must define a ROOT).
fn case(body: &str) -> String {
    format!("HloModule m\n\nENTRY main {{\n{body}\n}}\n")
}

/// The HLO text loader, plus what the StableHLO converter does for `check.*_const`: the
/// constant written as the second operand moves into `CustomCall::literal`. (The HLO text
/// parser cannot read `literal=` of an array: the printed form has a space in it.)
fn hlo_with_const_checks(
    text: &str,
    file: &str,
    line: usize,
) -> Result<crate::ir::Module, LoadError> {
    use crate::ir::Op;
    let mut module = loader::hlo_text(text, file, line)?;
    for comp in module.computations.values_mut() {
        let ids: Vec<_> = comp.order.clone();
        for id in ids {
            let Op::CustomCall(cc) = &comp.instrs[id].op else {
                continue;
            };
            if !cc.target.ends_with("_const") || comp.instrs[id].operands.len() != 2 {
                continue;
            }
            let k = comp.instrs[id].operands[1];
            let Op::Constant { literal } = comp.instrs[k].op.clone() else {
                continue;
            };
            let instr = &mut comp.instrs[id];
            instr.operands.truncate(1);
            if let Op::CustomCall(cc) = &mut instr.op {
                cc.literal = Some(literal);
            }
        }
    }
    Ok(module)
}

fn statuses(text: &str) -> Vec<Status> {
    Runner {
        loader: hlo_with_const_checks,
        ..Runner::hlo_text()
    }
    .check_text(text, "t.hlo")
    .into_iter()
    .map(|r| r.status)
    .collect()
}

const A: &str = "  a = s64[4] constant({6, 8, 10, 12})\n";

#[test]
fn pass_fail_unsupported_error() {
    let pass = case(&format!(
        "{A}  k = s64[4] constant({{6, 8, 10, 12}})\n  ROOT c = () custom-call(a, k), custom_call_target=\"check.expect_eq_const\", custom_call_has_side_effect=true"
    ));
    let fail = case(&format!(
        "{A}  k = s64[4] constant({{6, 8, 10, 13}})\n  ROOT c = () custom-call(a, k), custom_call_target=\"check.expect_eq_const\", custom_call_has_side_effect=true"
    ));
    let unsupported = case(&format!(
        "{A}  ROOT f = s64[4] custom-call(a), custom_call_target=\"frobnicate\""
    ));
    let error = case(&format!(
        "{A}  ROOT g = s64[4] get-tuple-element(a), index=0"
    ));
    let text = [pass, fail, unsupported, error].join("// -----\n");
    let got = statuses(&text);
    assert_eq!(got[0], Status::Pass);
    assert_eq!(
        got[1],
        Status::Fail("check.expect_eq_const: element [3]: actual 12, expected 13".into())
    );
    assert_eq!(got[2].label(), "UNSUPPORTED", "{got:?}");
    assert!(got[2].reason().contains("frobnicate"));
    assert_eq!(got[3].label(), "ERROR", "{got:?}");
}

#[test]
fn a_case_stops_at_its_first_failing_check() {
    let text = case(&format!(
        "{A}  b = s64[4] constant({{6, 8, 10, 11}})\n  c1 = () custom-call(a, b), custom_call_target=\"check.expect_eq\", custom_call_has_side_effect=true\n  z = s64[4] constant({{0, 0, 0, 0}})\n  c2 = () custom-call(a, z), custom_call_target=\"check.expect_eq_const\", custom_call_has_side_effect=true\n  ROOT t = () tuple()"
    ));
    let got = statuses(&text);
    assert_eq!(
        got,
        vec![Status::Fail(
            "check.expect_eq: element [3]: actual 12, expected 11".into()
        )]
    );
}

#[test]
fn check_attributes_come_from_backend_config() {
    // check.mlir @check_almost_eq_tolerance: 5.0 vs 5.0001 passes at 0.1 and at the default
    // 1e-4; 5.0 vs 5.01 fails at the default.
    let almost = |expected: &str, config: &str| {
        case(&format!(
            "  a = f64[] constant(5)\n  b = f64[] constant({expected})\n  ROOT c = () custom-call(a, b), custom_call_target=\"check.expect_almost_eq\", custom_call_has_side_effect=true{config}"
        ))
    };
    assert_eq!(
        statuses(&almost("5.0001", ", backend_config={\"tolerance\": 0.1}")),
        vec![Status::Pass]
    );
    assert_eq!(statuses(&almost("5.0001", "")), vec![Status::Pass]);
    assert_eq!(
        statuses(&almost("5.01", "")).first().map(Status::label),
        Some("FAIL")
    );
    assert_eq!(
        statuses(&almost("5.01", ", backend_config={\"tolerance\": 0.1}")),
        vec![Status::Pass]
    );
    // expect_close defaults to 3 ULP (the custom-call form); 1.0000002 is 2 ULP above 1 in
    // f32, 1.0000005 is 4.
    let close = |expected: &str, config: &str| {
        case(&format!(
            "  a = f32[] constant(1)\n  b = f32[] constant({expected})\n  ROOT c = () custom-call(a, b), custom_call_target=\"check.expect_close\", custom_call_has_side_effect=true{config}"
        ))
    };
    assert_eq!(statuses(&close("1.0000002", "")), vec![Status::Pass]);
    let got = statuses(&close("1.0000005", ""));
    assert!(got[0].reason().contains("ULP distance 4"), "{got:?}");
    assert_eq!(
        statuses(&close(
            "1",
            ", backend_config={\"max_ulp_difference\": 3, \"min_ulp_difference\": 1}"
        ))[0]
            .label(),
        "FAIL"
    );
}

#[test]
fn probes_record_each_iteration() {
    // probe.mlir @probe_iterations: a probe inside a while body records 1, then 2.
    let text = "HloModule m\n\ncond {\n  s = (s64[], s64[]) parameter(0)\n  i = s64[] get-tuple-element(s), index=0\n  two = s64[] constant(2)\n  ROOT lt = pred[] compare(i, two), direction=LT\n}\n\nbody {\n  s = (s64[], s64[]) parameter(0)\n  i = s64[] get-tuple-element(s), index=0\n  sum = s64[] get-tuple-element(s), index=1\n  one = s64[] constant(1)\n  n = s64[] add(sum, one)\n  p = s64[] custom-call(n), custom_call_target=\"interpreter.probe\", custom_call_has_side_effect=true, backend_config={\"probe_id\": \"probe_iterations\"}\n  j = s64[] add(i, one)\n  ROOT t = (s64[], s64[]) tuple(j, p)\n}\n\nENTRY main {\n  zero = s64[] constant(0)\n  init = (s64[], s64[]) tuple(zero, zero)\n  w = (s64[], s64[]) while(init), condition=cond, body=body\n  one = s64[] constant(1)\n  two = s64[] constant(2)\n  c0 = () custom-call(one), custom_call_target=\"check.expect_serialized_eq\", custom_call_has_side_effect=true, backend_config={\"probe_id\": \"probe_iterations\", \"iter\": 0}\n  c1 = () custom-call(two), custom_call_target=\"check.expect_serialized_eq\", custom_call_has_side_effect=true, backend_config={\"probe_id\": \"probe_iterations\", \"iter\": 1}\n  ROOT t = () tuple()\n}\n";
    assert_eq!(statuses(text), vec![Status::Pass]);
    let wrong = text.replace("\"iter\": 1}", "\"iter\": 2}");
    assert!(
        statuses(&wrong)[0]
            .reason()
            .contains("no value for iteration 2")
    );
}

#[test]
fn run_parallel_results_are_checked() {
    // all_reduce.mlir @cross_replica, as the converter emits it.
    let text = "HloModule m\n\nadd {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  ROOT s = s64[] add(a, b)\n}\n\nall_reduce {\n  x = s64[4] parameter(0)\n  ROOT r = s64[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add\n}\n\nENTRY main {\n  i0 = s64[4] constant({1, 2, 3, 4})\n  i1 = s64[4] constant({5, 6, 7, 8})\n  run = (s64[4], s64[4]) custom-call(i0, i1), custom_call_target=\"interpreter.run_parallel\", called_computations={all_reduce, all_reduce}, backend_config={\"num_replicas\": 2, \"num_partitions\": 1}\n  r0 = s64[4] get-tuple-element(run), index=0\n  r1 = s64[4] get-tuple-element(run), index=1\n  k0 = s64[4] constant({6, 8, 10, 12})\n  c0 = () custom-call(r0, k0), custom_call_target=\"check.expect_eq_const\", custom_call_has_side_effect=true\n  k1 = s64[4] constant({6, 8, 10, 12})\n  c1 = () custom-call(r1, k1), custom_call_target=\"check.expect_eq_const\", custom_call_has_side_effect=true\n  ROOT t = () tuple()\n}\n";
    assert_eq!(statuses(text), vec![Status::Pass]);
    let wrong = text.replacen(
        "k1 = s64[4] constant({6, 8, 10, 12})",
        "k1 = s64[4] constant({6, 8, 10, 11})",
        1,
    );
    assert_eq!(statuses(&wrong)[0].label(), "FAIL");
}

#[test]
fn a_panic_or_a_hang_does_not_stop_the_run() {
    fn panicking(_: &str, _: &str, _: usize) -> Result<crate::ir::Module, LoadError> {
        panic!("loader bug")
    }
    fn hanging(_: &str, _: &str, _: usize) -> Result<crate::ir::Module, LoadError> {
        std::thread::sleep(Duration::from_secs(5));
        Err(LoadError::error("late"))
    }
    let text = "HloModule a\n// -----\nHloModule b\n";
    let runner = Runner {
        loader: panicking,
        ..Runner::hlo_text()
    };
    let results = runner.check_text(text, "p.hlo");
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|r| r.status.reason().contains("panic: loader bug"))
    );
    let runner = Runner {
        loader: hanging,
        timeout: Duration::from_millis(100),
        ..Runner::hlo_text()
    };
    assert_eq!(
        runner.check_text("HloModule a", "h.hlo")[0].status,
        Status::Error("timed out after 0s".into())
    );
}

#[test]
fn lines_and_summary() {
    let r = CaseResult {
        file: "x.mlir".into(),
        case: 2,
        status: Status::Fail("a\nb".into()),
    };
    assert_eq!(r.to_string(), "FAIL x.mlir:2: a b");
    let mut s = Summary::default();
    for st in [
        Status::Pass,
        Status::Fail(String::new()),
        Status::Error(String::new()),
        Status::Unsupported(String::new()),
    ] {
        s.add(&st);
    }
    assert_eq!(s.to_string(), "1 passed, 2 failed, 1 skipped");
    assert!(!s.all_passed());
}

#[test]
fn loader_errors_name_file_lines() {
    // The second case's parse error is on line 4 of the file.
    let text = "HloModule a\nENTRY e {\n ROOT c = s32[] constant(1)\n}\n// -----\nHloModule b\nENTRY e {\n  ROOT c = s32[] bogus-op(1)\n}\n";
    let results = Runner::hlo_text().check_text(text, "l.hlo");
    assert_eq!(results[0].status, Status::Pass);
    assert_eq!(results[1].status.label(), "ERROR");
    assert!(
        results[1].status.reason().contains(":8:"),
        "{:?}",
        results[1]
    );
}

#[test]
fn probes_write_npy_files_and_an_index() {
    // probe.mlir with a probe output directory; expected values are the file's sums,
    // worked by hand.
    let dir = std::env::temp_dir().join(format!("xlac-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let runner = Runner {
        probe_output_dir: Some(dir.clone()),
        ..Runner::stablehlo()
    };
    // The corpus, found as tests/conformance.rs finds it.
    let corpus = std::env::var_os("XLAC_CONFORMANCE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo-conformance")
        });
    let file = corpus.join("stablehlo-interpret/probe.mlir");
    assert!(
        file.exists(),
        "the conformance corpus is missing: {}",
        file.display()
    );
    let file = file.as_path();
    let results = runner.check_file(file, "probe.mlir");
    assert!(
        results.iter().all(|r| r.status == Status::Pass),
        "{results:?}"
    );
    let read = |name: &str| {
        let arrays = crate::io::npz::read_arrays(&dir.join(name)).unwrap();
        Literal::Array(arrays[0].literal.clone())
    };
    let s64 =
        |dims: &[i64], v: Vec<i64>| Literal::Array(crate::ir::ArrayLiteral::from_vec(dims, v));
    // [[-127], [126], [0]] + [[-1], [1], [1]]
    assert_eq!(read("probe_si64_0.npy"), s64(&[3, 1], vec![-128, 127, 1]));
    // [[1], [2], [3]] + [[4], [5], [6]], under the sanitized id `probe/0`.
    assert_eq!(read("probe_0_0.npy"), s64(&[3, 1], vec![5, 7, 9]));
    // [[32766, 0], [0, 0]] + [[1, 1], [2, 2]]
    let ui64 = crate::ir::ArrayLiteral::from_vec(&[2, 2], vec![32767u64, 1, 2, 2]);
    assert_eq!(read("probe_ui64_0.npy"), Literal::Array(ui64));
    // The while body runs twice: sum 1, then 2.
    assert_eq!(read("probe_iterations_0.npy"), s64(&[], vec![1]));
    assert_eq!(read("probe_iterations_1.npy"), s64(&[], vec![2]));
    let index = std::fs::read_to_string(dir.join("index.csv")).unwrap();
    assert!(
        index
            .lines()
            .any(|l| l.starts_with("probe_iterations,s64[],")
                && l.ends_with("probe_iterations_1.npy")),
        "{index}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// UNSUPPORTED comes from the error's kind, not its words: the CHLO op below is real
/// (StableHLO's `chlo._asin_acos_kernel`) and xlac has no decomposition of it, and the
/// message says so without "not supported", "unsupported" or "not implemented".
#[test]
fn unsupported_comes_from_the_error_kind() {
    let lacking = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = chlo._asin_acos_kernel %x : tensor<2xf32> -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    // A wrong program, for the other side of the split: an operand that is never defined.
    let wrong = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %y : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    let text = [lacking, wrong].join("// -----\n");
    let got: Vec<Status> = Runner::stablehlo()
        .check_text(&text, "t.mlir")
        .into_iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(got[0].label(), "UNSUPPORTED", "{got:?}");
    let reason = got[0].reason().to_ascii_lowercase();
    assert!(reason.contains("_asin_acos_kernel"), "{reason}");
    for old in [
        "not supported",
        "unsupported",
        "not implemented",
        "does not",
    ] {
        assert!(!reason.contains(old), "{reason}");
    }
    assert_eq!(got[1].label(), "ERROR", "{got:?}");
}
