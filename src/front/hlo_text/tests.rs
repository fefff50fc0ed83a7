//! Parser and printer tests on whole modules: syntax variants, typed attributes, error
//! positions, and robustness on malformed input. Expected values are written by hand from
//! XLA's syntax (xla-cpu.md §1) and the real dumps in `testdata/`.

use super::*;
use crate::ir::{
    BackendConfig, ComparisonDirection, FusionKind, InstrId, Op, Opcode, PrimitiveType, Shape, Span,
};

fn parse(text: &str) -> ParsedModule {
    match parse_module(text, "t.hlo") {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn error(text: &str) -> String {
    match parse_module(text, "t.hlo") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Parse, print, parse again: the modules must be equal and printing stable.
fn round_trip(text: &str) -> String {
    let first = parse(text).module;
    let printed = print_module(&first);
    let second = match parse_module(&printed, "printed") {
        Ok(p) => p.module,
        Err(e) => panic!("{e}\n{printed}"),
    };
    if let Some(d) = module_diff(&first, &second) {
        panic!("{d}\n{printed}");
    }
    assert_eq!(print_module(&second), printed);
    printed
}

fn entry_instr<'m>(m: &'m Module, name: &str) -> &'m crate::ir::Instruction {
    let c = m.entry_computation();
    c.instr(c.find(name).unwrap_or_else(|| panic!("no {name}")))
}

const SMALL: &str = "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
";

#[test]
fn short_style_module() {
    let m = parse(SMALL).module;
    assert_eq!(m.name, "m");
    assert_eq!(m.order.len(), 2);
    assert_eq!(m.entry_computation().name, "main");
    let r = entry_instr(&m, "r");
    let Op::Reduce {
        dimensions,
        to_apply,
    } = &r.op
    else {
        panic!("{:?}", r.op)
    };
    assert_eq!(dimensions, &vec![0]);
    assert_eq!(m.computations[*to_apply].name, "add");
    // Missing layouts are row-major.
    assert_eq!(
        entry_instr(&m, "p")
            .shape
            .as_array()
            .unwrap()
            .layout
            .minor_to_major,
        vec![0]
    );
    assert_eq!(
        round_trip(SMALL),
        "HloModule m

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add
}

"
    );
}

#[test]
fn spans_point_at_instructions() {
    let m = parse(SMALL).module;
    let c = m.entry_computation();
    assert_eq!(c.spans[c.find("p").unwrap()], Span { line: 10, col: 3 });
    assert_eq!(c.spans[c.root], Span { line: 12, col: 3 });
}

#[test]
fn entry_is_marked_or_last_and_prints_last() {
    let text = "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(1)\n}\nother {\n  ROOT d = s32[] constant(2)\n}\n";
    let m = parse(text).module;
    assert_eq!(m.entry_computation().name, "e");
    assert_eq!(m.computations[m.order[1]].name, "e");
    let m = parse(
        "HloModule m\na {\n ROOT c = s32[] constant(1)\n}\nb {\n ROOT d = s32[] constant(2)\n}\n",
    )
    .module;
    assert_eq!(m.entry_computation().name, "b");
    // No header: the module is named after the entry.
    let m = parse("ENTRY e {\n ROOT c = s32[] constant(1)\n}").module;
    assert_eq!(m.name, "module_e");
}

#[test]
fn long_style_with_operand_shapes_and_header() {
    let text = r#"HloModule jit_f, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}, allow_spmd_sharding_propagation_to_output={true}, replica_count=1

ENTRY %main.3 (x.1: f32[2,3]) -> f32[2,3] {
  %x.1 = f32[2,3]{0,1} parameter(0), metadata={op_name="x"}
  ROOT %n = f32[2,3]{0,1} negate(f32[2,3]{0,1} %x.1), sharding={replicated}, metadata={op_name="jit(f)/neg" source_file="f.py" source_line=3}
}, execution_thread="main"
"#;
    let p = parse(text);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let m = &p.module;
    assert!(m.config.is_scheduled);
    assert_eq!(m.config.input_output_alias.len(), 1);
    assert_eq!(m.config.replica_count, Some(1));
    assert_eq!(
        m.config.raw_attributes[0].name,
        "allow_spmd_sharding_propagation_to_output"
    );
    assert_eq!(
        m.entry_computation().execution_thread.as_deref(),
        Some("main")
    );
    let n = entry_instr(m, "n");
    assert_eq!(n.sharding, Some(crate::ir::HloSharding::Replicated));
    assert_eq!(n.metadata.as_ref().unwrap().source_line, Some(3));
    let printed = round_trip(text);
    assert!(printed.starts_with("HloModule jit_f, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}, allow_spmd_sharding_propagation_to_output={true}, replica_count=1\n"));
    assert!(printed.contains("ROOT %n = f32[2,3]{0,1} negate(%x.1), sharding={replicated}, metadata={op_name=\"jit(f)/neg\" source_file=\"f.py\" source_line=3}\n}, execution_thread=\"main\"\n"));
}

#[test]
fn stack_frame_tables() {
    let text = r#"HloModule m

FileNames
1 "generate.py"

FunctionNames
1 "<module>"
2 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=4 end_column=22}
2 {file_name_id=1 function_name_id=2 line=3 end_line=4 column=8 end_column=19}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}


ENTRY %e () -> s32[] {
  ROOT %c = s32[] constant(1), metadata={op_name="c" stack_frame_id=2}
}

"#;
    let m = parse(text).module;
    let frames = m.stack_frames.as_ref().unwrap();
    assert_eq!(frames.function_names, vec!["<module>", "f"]);
    assert_eq!(frames.file_locations[1].end_line, 4);
    assert_eq!(frames.stack_frames[1].parent_frame_id, 2);
    assert_eq!(round_trip(text), text);
    assert_eq!(
        error("HloModule m\nFileNames\n2 \"a\"\nENTRY e {\n ROOT c = s32[] constant(1)\n}"),
        "t.hlo:3:1: FileNames entry 2 should be numbered 1"
    );
}

#[test]
fn compact_gte_operands_become_instructions() {
    let text = "HloModule m
ENTRY e {
  p = (f32[2], (s32[], f32[])) parameter(0)
  get-tuple-element.0 = f32[2] get-tuple-element(p), index=0
  a = f32[] add(p#1#1, p#1#1)
  ROOT t = (s32[], f32[]) tuple(%p#1#0, a)
}
";
    let m = parse(text).module;
    let c = m.entry_computation();
    // p#1 once, p#1#1 once (reused), p#1#0 once; names avoid the written get-tuple-element.0.
    let gtes: Vec<&str> = c
        .iter()
        .filter(|(_, i)| i.opcode() == Opcode::GetTupleElement)
        .map(|(_, i)| i.name.as_str())
        .collect();
    assert_eq!(
        gtes,
        vec![
            "get-tuple-element.0",
            "get-tuple-element.1",
            "get-tuple-element.2",
            "get-tuple-element.3"
        ]
    );
    let a = entry_instr(&m, "a");
    assert_eq!(a.operands[0], a.operands[1]);
    let inner = c.instr(a.operands[0]);
    assert_eq!(inner.op, Op::GetTupleElement { index: 1 });
    assert_eq!(inner.shape, Shape::scalar(PrimitiveType::F32));
    assert_eq!(
        c.instr(inner.operands[0])
            .shape
            .tuple_elements()
            .unwrap()
            .len(),
        2
    );
    round_trip(text);
    assert_eq!(
        error(
            "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] negate(p#0)\n}"
        ),
        "t.hlo:4:28: `p#0`: no tuple element 0 in f32[2]"
    );
}

#[test]
fn nested_instruction_operands() {
    let text = "HloModule m
ENTRY e {
  x = f32[] parameter(0)
  ROOT a = f32[] add(x, f32[] constant(1.5))
}
";
    let m = parse(text).module;
    let a = entry_instr(&m, "a");
    let c = m.entry_computation();
    let k = c.instr(a.operands[1]);
    assert_eq!(k.name, "constant.0");
    assert_eq!(k.opcode(), Opcode::Constant);
    assert_eq!(c.order.len(), 3);
    assert!(
        print_module(&m)
            .contains("%constant.0 = f32[] constant(1.5)\n  ROOT %a = f32[] add(%x, %constant.0)")
    );
    round_trip(text);
}

#[test]
fn inline_to_apply_computation() {
    let text = "HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT m = f32[] maximum(a, b)
  }
}
";
    let m = parse(text).module;
    assert_eq!(m.order.len(), 2);
    assert_eq!(m.computations[m.order[0]].name, "r.to_apply");
    round_trip(text);
}

#[test]
fn typed_attributes_of_many_ops_round_trip() {
    let text = r#"HloModule m

cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p0 = f32[4,4] parameter(0)
  ROOT n = f32[4,4] negate(p0)
}

cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(5)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  ROOT s = (s32[], f32[4]) parameter(0)
}

ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  w = f32[3,3,3,8] parameter(1)
  conv = f32[1,4,8,8] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f, feature_group_count=1, operand_precision={highest,default}
  m = f32[4,4] parameter(2)
  d = f32[4,4] dot(m, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}, algorithm=dot_f32_f32_f32
  i = s32[4,2] parameter(3)
  g = f32[4,1,4] gather(m, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,4}, indices_are_sorted=true
  u = f32[4] parameter(4)
  si = s32[4,1] parameter(5)
  sc = f32[4,4] scatter(m, si, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add
  z = f32[] constant(0)
  rw = f32[4,2] reduce-window(m, z), window={size=1x2 stride=1x2}, to_apply=add
  pd = f32[7,4] pad(m, z), padding=1_2_1x0_0_0
  sl = f32[2,2] slice(m), slice={[0:4:2], [1:3]}
  ds = f32[2,2] dynamic-slice(m, i, i), dynamic_slice_sizes={2,2}
  tr = f32[4,4] transpose(m), dimensions={1,0}
  rv = f32[4,4] reverse(m), dimensions={0}
  cc = f32[8,4] concatenate(m, m), dimensions={0}
  io = s32[4] iota(), iota_dimension=0
  st = (f32[4], s32[4], f32[4], s32[4]) sort(u, io, u, io), dimensions={0}, is_stable=true, to_apply=cmp
  rp = f32[4] reduce-precision(u), exponent_bits=5, mantissa_bits=10
  fu = f32[4,4] fusion(m), kind=kLoop, calls=fused, backend_config={"outer_dimension_partitions":["4"]}
  t0 = (s32[], f32[4]) tuple(io, u)
  wl = (s32[], f32[4]) while(t0), condition=cond, body=body, backend_config={"known_trip_count":{"n":"5"}}
  pr = pred[] parameter(6)
  cd = f32[4,4] conditional(pr, m, m), true_computation=fused, false_computation=fused
  ix = s32[] parameter(7)
  cs = f32[4,4] conditional(ix, m, m, m), branch_computations={fused, fused, fused}
  ch = f32[4,4] cholesky(m), lower=true
  ts = f32[4,4] triangular-solve(m, m), left_side=true, unit_diagonal=true, transpose_a=TRANSPOSE
  cl = f32[4,4] call(m), to_apply=fused, frontend_attributes={xla_cpu_small_call="true"}
  rb = (u64[2], u32[4]) rng-bit-generator(si), algorithm=rng_philox
  tk = (f32[4,2], s32[4,2]) topk(m), k=2, largest=false
  cx = c64[4] parameter(8)
  ff = c64[4] fft(cx), fft_type=FFT, fft_length={4}
  cp = f32[4,4] copy(m), control-predecessors={tr, rv}
  lp = (f32[4,4], s32[]) custom-call(m), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[4,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
  cq = f32[4,4] custom-call(m), custom_call_target="foo", custom_call_has_side_effect=true, backend_config="raw \"text\""
  bc = f32[16] bitcast(m)
  ROOT out = (f32[4,4], f32[4,4]) tuple(d, sc)
}
"#;
    let p = parse(text);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let m = &p.module;
    let Op::Convolution {
        window,
        dimension_numbers,
        precision,
        ..
    } = &entry_instr(m, "conv").op
    else {
        panic!()
    };
    assert_eq!(window.dimensions[1].window_dilation, 2);
    assert_eq!(dimension_numbers.input_feature_dimension, 3);
    assert_eq!(precision.len(), 2);
    let Op::Compare { direction, .. } = &m.computations[m.order[0]].root_instr().op else {
        panic!()
    };
    assert_eq!(*direction, ComparisonDirection::Lt);
    let Op::Fusion { kind, .. } = entry_instr(m, "fu").op else {
        panic!()
    };
    assert_eq!(kind, FusionKind::Loop);
    assert_eq!(
        entry_instr(m, "cq").backend_config,
        Some(BackendConfig::Quoted("raw \"text\"".into()))
    );
    let Op::CustomCall(cc) = &entry_instr(m, "lp").op else {
        panic!()
    };
    assert_eq!(
        cc.operand_layout_constraints.as_ref().unwrap()[0]
            .as_array()
            .unwrap()
            .layout
            .minor_to_major,
        vec![0, 1]
    );
    let cp = entry_instr(m, "cp");
    assert_eq!(cp.control_predecessors.len(), 2);
    let printed = round_trip(text);
    // A pred selector prints its branches by name; an s32 one as a list.
    assert!(
        printed.contains(
            "conditional(%pr, %m, %m), true_computation=%fused, false_computation=%fused"
        )
    );
    assert!(printed.contains("branch_computations={%fused, %fused, %fused}"));
    assert!(printed.contains("slice={[0:4:2], [1:3:1]}"));
    assert!(printed.contains("padding=1_2_1x0_0_0"));
    assert!(printed.contains("operand_precision={highest,default}"));
}

#[test]
fn unknown_attributes_and_unmodeled_opcodes_are_kept_with_warnings() {
    let text = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0), some_new_attr={1, \"x\"}
  ar = f32[4] all-reduce(x), channel_id=1, replica_groups={{0}}, to_apply=add
  ROOT n = f32[4] negate(ar), dimensions={0}
}
";
    let p = parse(text);
    let warnings: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        vec![
            "t.hlo:8:28: attribute `some_new_attr` is not used by `parameter`; kept verbatim",
            "t.hlo:9:15: xlac does not model `all-reduce`; its attributes are kept verbatim",
            "t.hlo:10:31: attribute `dimensions` is not used by `negate`; kept verbatim",
        ]
    );
    let m = &p.module;
    let ar = entry_instr(m, "ar");
    let Op::Unmodeled { opcode, called } = &ar.op else {
        panic!()
    };
    assert_eq!(*opcode, Opcode::AllReduce);
    assert_eq!(called[0].attribute, "to_apply");
    assert_eq!(ar.raw_attributes.len(), 2);
    let printed = round_trip(text);
    assert!(printed.contains("all-reduce(%x), to_apply=%add, channel_id=1, replica_groups={{0}}"));
    assert!(printed.contains("parameter(0), some_new_attr={1, \"x\"}"));
}

#[test]
fn errors_are_located() {
    let cases: &[(&str, &str)] = &[
        ("", "t.hlo:1:1: the module has no computations"),
        (
            "HloModule",
            "t.hlo:1:10: expected a module name, found end of input",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] frobnicate()\n}",
            "t.hlo:3:18: unknown opcode `frobnicate`",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT b = f32[2,2] broadcast(x)\n}",
            "t.hlo:4:21: `broadcast` needs the attribute `dimensions`",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT y = f32[] negate(x)\n}",
            "t.hlo:3:25: operand `x` is not defined before this instruction",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=later\n}\nlater {\n  ROOT p = f32[] parameter(0)\n}",
            "t.hlo:4:36: computation `later` is not defined before its use (callees come first)",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  x = f32[] parameter(1)\n}",
            "t.hlo:4:3: instruction `x` is defined twice",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n",
            "t.hlo:2:7: computation `e` is not closed with `}`",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0), metadata={op_name=\"a\"}, metadata={}\n}",
            "t.hlo:3:56: attribute `metadata` is given twice",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = parameter(0)\n}",
            "t.hlo:3:12: expected the result shape, found `parameter(0)`",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] constant(1e99)\n}",
            "t.hlo:3:27: 1e99 is out of range for f32",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = s32[] iota(), iota_dimension=-1\n}",
            "t.hlo:3:41: expected a non-negative integer, found -1",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT s = f32[2] slice(x), slice={[0:2}\n}",
            "t.hlo:4:40: expected `]`, found `}`",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT s = f32[2] slice(x), slice={[0:2]\n",
            "t.hlo:4:35: unbalanced brackets in attribute value",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0), backend_config=\"abc\n}",
            "t.hlo:3:47: unterminated string in attribute value",
        ),
        (
            "HloModule m\nENTRY e {\n}",
            "t.hlo:2:7: computation `e` has no instructions",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[999999999999999999999] parameter(0)\n}",
            "t.hlo:3:11: integer `999999999999999999999` does not fit in 64 bits",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0), frontend_attributes={a=\"1\"} junk\n}",
            "t.hlo:3:60: unexpected `junk` after an attribute value",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(&error(text), want, "for input:\n{text}");
    }
}

#[test]
fn malformed_input_never_panics() {
    // Every prefix of a real-looking module, and some junk, must give Ok or Err, never panic.
    let text = r#"HloModule m, entry_computation_layout={(f32[2,2]{1,0})->(f32[2,2]{1,0}, pred[])}
FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=1 end_column=2}
StackFrames
1 {file_location_id=1 parent_frame_id=0}
%r (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, %b), metadata={op_name="x" stack_frame_id=1}
}
ENTRY %e (p: f32[2,2]) -> (f32[2,2], pred[]) {
  %p = f32[2,2]{1,0} parameter(0)
  %c = f32[2,2]{0,1} constant({ { 1, -inf }, { nan(0x3), 2.5e-3 } })
  %w = f32[2,1]{1,0} reduce-window(%p, f32[] constant(0)), window={size=1x2 stride=1x2 pad=0_0x0_0}, to_apply=%r
  %t = (f32[2,2]{1,0}, pred[]) tuple(%p, pred[] constant(true))
  ROOT %g = (f32[2,2]{1,0}, pred[]) tuple(%t#0, %t#1), backend_config={"a":"}"}
}
"#;
    parse(text);
    for end in 0..text.len() {
        if text.is_char_boundary(end) {
            let _ = parse_module(&text[..end], "prefix");
        }
    }
    let junk = [
        "\u{0}\u{1}\u{2}",
        "((((((((((",
        "{{{{{{",
        "HloModule m\nENTRY e {\n ROOT x = f32[] constant(",
        "%%%%",
        "ENTRY",
        "HloModule \u{ff}\u{fe}",
    ];
    for j in junk {
        assert!(parse_module(j, "junk").is_err(), "{j:?}");
    }
    let deep = format!(
        "HloModule m\nENTRY e {{\n ROOT x = {}f32[]{} parameter(0)\n}}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(error(&deep), "t.hlo:3:76: shape nests too deeply");
}

#[test]
fn constant_with_column_major_layout_is_stored_physically() {
    let m = parse("HloModule m\nENTRY e {\n  ROOT c = s32[2,3]{0,1} constant({ { 1, 2, 3 }, { 4, 5, 6 } })\n}").module;
    let Op::Constant { literal } = &m.entry_computation().root_instr().op else {
        panic!()
    };
    assert_eq!(
        literal.as_array().unwrap().values::<i32>().unwrap(),
        &[1, 4, 2, 5, 3, 6]
    );
    assert!(print_module(&m).contains("constant({ { 1, 2, 3 }, { 4, 5, 6 } })"));
}

#[test]
fn elided_constant_warns() {
    let p = parse("HloModule m\nENTRY e {\n  ROOT c = f32[20] constant({...})\n}");
    assert_eq!(
        p.warnings[0].to_string(),
        "t.hlo:3:29: elided constant `{...}` filled with zeros"
    );
    // The printer never elides.
    assert!(
        print_module(&p.module)
            .contains("constant({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})")
    );
}

#[test]
fn roots_and_instruction_ids() {
    let m =
        parse("HloModule m\nENTRY e {\n  ROOT a = s32[] constant(1)\n  b = s32[] constant(2)\n}")
            .module;
    let c = m.entry_computation();
    assert_eq!(c.root, InstrId::from_u32(0));
    assert!(print_module(&m).contains("ROOT %a = s32[] constant(1)\n  %b = s32[] constant(2)\n"));
    assert_eq!(
        error(
            "HloModule m\nENTRY e {\n  ROOT a = s32[] constant(1)\n  ROOT b = s32[] constant(2)\n}"
        ),
        "t.hlo:4:3: more than one ROOT instruction"
    );
}

#[test]
fn hostile_sizes_and_nesting_are_errors() {
    let huge = "HloModule m\nENTRY e {\n  ROOT c = f32[99999999999,99999999999] constant({...})\n}";
    assert_eq!(
        error(huge),
        "t.hlo:3:12: f32[99999999999,99999999999] is too large: its size in bytes does not fit in 64 bits"
    );
    let huge = "HloModule m\nENTRY e {\n  ROOT c = f32[4000000000] constant({...})\n}";
    assert_eq!(
        error(huge),
        "t.hlo:3:37: elided constant is too large to fill with zeros"
    );
    let nested = format!(
        "HloModule m\nENTRY e {{\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate({}x{})\n}}",
        "f32[] negate(".repeat(200),
        ")".repeat(200)
    );
    assert_eq!(error(&nested), "t.hlo:4:850: operands nest too deeply");
    // Any single-character corruption of a module gives Ok or Err, never a panic.
    let text = SMALL;
    for (i, _) in text.char_indices() {
        for c in [
            "{", "}", "(", ")", "[", "]", ",", "=", "%", "#", "\"", "-", "0", "x", " ", "\n", "/*",
            "é",
        ] {
            let mutated = format!("{}{c}{}", &text[..i], &text[i + 1..]);
            let _ = parse_module(&mutated, "m");
        }
    }
}
