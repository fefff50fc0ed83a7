//! Tests of buffer assignment: HLO text in, allocations and slices out, expected values
//! worked out by hand; and the symbolic checker (`buffer_check`) over every testdata model
//! after the whole HLO pipeline.

use super::buffer_assignment::{ALIGNMENT, AllocationKind, BufferAssignment, Slice};
use super::buffer_check::check_buffer_assignment;
use crate::front::hlo_text::parse_module;
use crate::ir::Module;

fn parse(text: &str) -> Module {
    parse_module(text, "test.hlo").expect("parses").module
}

fn slice_of(m: &Module, ba: &BufferAssignment, name: &str, index: &[usize]) -> Slice {
    let c = m.entry;
    let id = m.computations[c].find(name).expect(name);
    ba.slice(c, id, index).expect("has a slice")
}

/// a, b, c, d are f32[16] (64 bytes); `reverse` cannot write over its operand. `a` dies
/// at `b`, `b` at `c`: a and c have disjoint lifetimes and share bytes; overlapping ones
/// never do. `d` dies at the elementwise `r`, which writes over it in place.
const CHAIN: &str = r#"HloModule chain
ENTRY main {
  p = f32[16]{0} parameter(0)
  a = f32[16]{0} reverse(p), dimensions={0}
  b = f32[16]{0} reverse(a), dimensions={0}
  c = f32[16]{0} reverse(b), dimensions={0}
  d = f32[16]{0} reverse(c), dimensions={0}
  ROOT r = f32[16]{0} add(d, p)
}
"#;

#[test]
fn disjoint_temporaries_share_and_overlapping_do_not() {
    let m = parse(CHAIN);
    let ba = BufferAssignment::run(&m).unwrap();
    let (a, b, c, d) = (
        slice_of(&m, &ba, "a", &[]),
        slice_of(&m, &ba, "b", &[]),
        slice_of(&m, &ba, "c", &[]),
        slice_of(&m, &ba, "d", &[]),
    );
    // a [1,2] and b [2,3] overlap at time 2; a and c [3,4] do not.
    assert_eq!(a.allocation, b.allocation);
    assert_ne!(a.offset, b.offset);
    assert_eq!(a.offset, c.offset);
    assert_eq!(d, slice_of(&m, &ba, "r", &[]));
    // Two 64-byte slots, 64-aligned: 128 bytes of temp.
    assert_eq!(ba.temp_bytes(), 128);
    assert_eq!(ALIGNMENT, 64);
    // The parameter and the result have allocations of their own.
    let p = slice_of(&m, &ba, "p", &[]);
    let r = slice_of(&m, &ba, "r", &[]);
    assert!(matches!(
        ba.allocations[p.allocation].kind,
        AllocationKind::Parameter { number: 0, .. }
    ));
    assert!(ba.allocations[r.allocation].maybe_live_out);
    assert!(check_buffer_assignment(&m, &ba).is_empty());
}

#[test]
fn bitcast_and_tuple_forward_their_operand() {
    let m = parse(
        r#"HloModule fwd
ENTRY main {
  p = f32[2,8]{1,0} parameter(0)
  e = f32[2,8]{1,0} exponential(p)
  bc = f32[16]{0} bitcast(e)
  n = f32[16]{0} negate(bc)
  t = (f32[16]{0}, f32[2,8]{1,0}) tuple(n, e)
  ROOT g = f32[16]{0} get-tuple-element(t), index=0
}
"#,
    );
    let ba = BufferAssignment::run(&m).unwrap();
    assert_eq!(slice_of(&m, &ba, "bc", &[]), slice_of(&m, &ba, "e", &[]));
    assert_eq!(slice_of(&m, &ba, "t", &[0]), slice_of(&m, &ba, "n", &[]));
    assert_eq!(slice_of(&m, &ba, "g", &[]), slice_of(&m, &ba, "n", &[]));
    // n is the result: its own live-out allocation; e is the only temp (64 bytes).
    let n = slice_of(&m, &ba, "n", &[]);
    assert!(ba.allocations[n.allocation].maybe_live_out);
    assert_eq!(ba.temp_bytes(), 64);
    assert!(
        ba.slice(m.entry, m.computations[m.entry].find("t").unwrap(), &[])
            .is_none()
    );
    assert!(check_buffer_assignment(&m, &ba).is_empty());
}

const WHILE: &str = r#"HloModule loop
cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = f32[4]{0} get-tuple-element(s), index=1
  x1 = f32[4]{0} exponential(x)
  ROOT t = (s32[], f32[4]{0}) tuple(i1, x1)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  zc = s32[] copy(z)
  pc = f32[4]{0} copy(p)
  init = (s32[], f32[4]{0}) tuple(zc, pc)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}
"#;

#[test]
fn while_state_is_one_buffer_per_leaf() {
    let m = parse(WHILE);
    let ba = BufferAssignment::run(&m).unwrap();
    let body = m.find_computation("body").unwrap();
    let cond = m.find_computation("cond").unwrap();
    let in_body = |name: &str| {
        let c = &m.computations[body];
        ba.slice(body, c.find(name).unwrap(), &[]).unwrap()
    };
    let w1 = slice_of(&m, &ba, "w", &[1]);
    assert_eq!(slice_of(&m, &ba, "pc", &[]), w1);
    assert_eq!(in_body("x"), w1);
    assert_eq!(in_body("x1"), w1);
    assert_eq!(slice_of(&m, &ba, "r", &[]), w1);
    let cs = &m.computations[cond];
    assert_eq!(
        ba.slice(cond, cs.find("s").unwrap(), &[0]),
        Some(slice_of(&m, &ba, "zc", &[]))
    );
    assert_ne!(slice_of(&m, &ba, "w", &[0]), w1);
    let problems = check_buffer_assignment(&m, &ba);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn dynamic_update_slice_is_in_place_when_its_operand_dies() {
    let m = parse(
        r#"HloModule dus
ENTRY main {
  p = f32[8]{0} parameter(0)
  u = f32[2]{0} parameter(1)
  i = s32[] parameter(2)
  e = f32[8]{0} exponential(p)
  d = f32[8]{0} dynamic-update-slice(e, u, i)
  ROOT n = f32[8]{0} negate(d)
}
"#,
    );
    let ba = BufferAssignment::run(&m).unwrap();
    assert_eq!(slice_of(&m, &ba, "d", &[]), slice_of(&m, &ba, "e", &[]));
    assert!(check_buffer_assignment(&m, &ba).is_empty());

    // Here `e` is read again after the update: the update needs bytes of its own.
    let m = parse(
        r#"HloModule dus
ENTRY main {
  p = f32[8]{0} parameter(0)
  u = f32[2]{0} parameter(1)
  i = s32[] parameter(2)
  e = f32[8]{0} exponential(p)
  d = f32[8]{0} dynamic-update-slice(e, u, i)
  ROOT a = f32[8]{0} add(d, e)
}
"#,
    );
    let ba = BufferAssignment::run(&m).unwrap();
    assert_ne!(slice_of(&m, &ba, "d", &[]), slice_of(&m, &ba, "e", &[]));
    assert!(check_buffer_assignment(&m, &ba).is_empty());
}

#[test]
fn checker_catches_a_clobbered_value() {
    let m = parse(CHAIN);
    let mut ba = BufferAssignment::run(&m).unwrap();
    // Put `b` on the parameter's bytes: writing `b` destroys `p`, which `r` reads last.
    let c = m.entry;
    let b = m.computations[c].find("b").unwrap();
    let p = slice_of(&m, &ba, "p", &[]);
    ba.set_slice_for_test(c, b, &[], p);
    let problems = check_buffer_assignment(&m, &ba);
    assert!(!problems.is_empty());
}

#[test]
fn dump_texts_use_xla_labels() {
    let m = parse(CHAIN);
    let ba = BufferAssignment::run(&m).unwrap();
    let text = ba.to_text(&m);
    assert!(text.starts_with("BufferAssignment:\n"), "{text}");
    assert!(
        text.contains("allocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:\n value: <0 p> (size=64,offset=0): f32[16]{0}"),
        "{text}"
    );
    assert!(text.contains(", maybe-live-out:"), "{text}");
    assert!(
        text.contains("allocation 2: size 128, preallocated-temp:"),
        "{text}"
    );
    let live = ba.live_range_text(&m);
    assert!(live.contains("    1:a\n"), "{live}");
    assert!(live.contains("    a{}:1-2\n"), "{live}");
    let report = ba.memory_usage_report(&m);
    assert!(
        report.starts_with("Total bytes used: 256 (256B)"),
        "{report}"
    );
}

/// Every testdata model, after the whole HLO pipeline: the plan passes the symbolic check.
#[test]
fn no_live_value_is_overwritten_in_any_testdata_model() {
    let mut problems = Vec::new();
    for dir in crate::testdata::model_dirs() {
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let module = parse(&text);
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let optimized = match crate::compiler::optimize(module, &Default::default()) {
            Ok(o) => o.module,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        match BufferAssignment::run(&optimized) {
            Ok(ba) => problems.extend(
                check_buffer_assignment(&optimized, &ba)
                    .into_iter()
                    .map(|p| format!("{name}: {p}")),
            ),
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `donate_two_of_three` as multi-output fusion leaves it: one kLoop fusion computes all
/// three outputs; outputs {0} and {1} are aliased with parameters 0 and 2, which only the
/// fusion reads, elementwise: both outputs live in their parameter's allocation.
const MULTI_OUTPUT_ALIAS: &str = r#"HloModule mof, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (2, {}, may-alias) }
fused {
  param_0 = f32[16,8]{1,0} parameter(0)
  param_1 = f32[16,8]{1,0} parameter(1)
  param_2 = f32[16,8]{1,0} parameter(2)
  multiply = f32[16,8]{1,0} multiply(param_0, param_1)
  add = f32[16,8]{1,0} add(param_2, param_0)
  constant = f32[] constant(1)
  broadcast = f32[16,8]{1,0} broadcast(constant), dimensions={}
  subtract = f32[16,8]{1,0} subtract(param_1, broadcast)
  ROOT tuple = (f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) tuple(multiply, add, subtract)
}

ENTRY main {
  x = f32[16,8]{1,0} parameter(0)
  y = f32[16,8]{1,0} parameter(1)
  z = f32[16,8]{1,0} parameter(2)
  f = (f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) fusion(y, z, x), kind=kLoop, calls=fused
  g2 = f32[16,8]{1,0} get-tuple-element(f), index=2
  g0 = f32[16,8]{1,0} get-tuple-element(f), index=0
  g1 = f32[16,8]{1,0} get-tuple-element(f), index=1
  ROOT r = (f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) tuple(g1, g0, g2)
}
"#;

#[test]
fn aliased_outputs_of_a_multi_output_fusion_live_in_their_parameters() {
    let m = parse(MULTI_OUTPUT_ALIAS);
    let ba = BufferAssignment::run(&m).unwrap();
    let (x, y, z) = (
        slice_of(&m, &ba, "x", &[]),
        slice_of(&m, &ba, "y", &[]),
        slice_of(&m, &ba, "z", &[]),
    );
    assert_eq!(slice_of(&m, &ba, "r", &[0]), x);
    assert_eq!(slice_of(&m, &ba, "r", &[1]), z);
    assert_ne!(slice_of(&m, &ba, "r", &[2]).allocation, y.allocation);
    for (p, live_out) in [(x, true), (y, false), (z, true)] {
        let a = &ba.allocations[p.allocation];
        assert!(matches!(a.kind, AllocationKind::Parameter { .. }));
        assert_eq!(a.maybe_live_out, live_out);
    }
    assert!(check_buffer_assignment(&m, &ba).is_empty());
    let text = ba.to_text(&m);
    assert!(
        text.contains("parameter 0, shape |f32[16,8]| at ShapeIndex {}, maybe-live-out:"),
        "{text}"
    );
}

/// Where the aliased parameter is still read after the output is written, or is read
/// at other indices than the one written (a reverse inside the fusion), the output keeps
/// an allocation of its own: the parameter's bytes are never overwritten early.
#[test]
fn aliased_outputs_do_not_overwrite_a_parameter_still_read() {
    let later_reader = r#"HloModule later, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  x = f32[8]{0} parameter(0)
  a = f32[8]{0} negate(x)
  b = f32[8]{0} reverse(x), dimensions={0}
  ROOT r = (f32[8]{0}, f32[8]{0}) tuple(a, b)
}
"#;
    let reversed = r#"HloModule reversed, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
fused {
  p = f32[8]{0} parameter(0)
  rev = f32[8]{0} reverse(p), dimensions={0}
  ROOT add = f32[8]{0} add(p, rev)
}

ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT f = f32[8]{0} fusion(x), kind=kLoop, calls=fused
}
"#;
    for (text, out) in [(later_reader, vec![0]), (reversed, vec![])] {
        let m = parse(text);
        let ba = BufferAssignment::run(&m).unwrap();
        let x = slice_of(&m, &ba, "x", &[]);
        let root = m.entry_computation().root;
        let r = ba.slice(m.entry, root, &out).unwrap();
        assert_ne!(r.allocation, x.allocation, "{text}");
        assert!(!ba.allocations[x.allocation].maybe_live_out);
        assert!(check_buffer_assignment(&m, &ba).is_empty());
    }
    // The same negate, read by nobody after it: in place.
    let alone = later_reader.replace(
        "  b = f32[8]{0} reverse(x), dimensions={0}\n",
        "  b = f32[8]{0} reverse(a), dimensions={0}\n",
    );
    let m = parse(&alone);
    let ba = BufferAssignment::run(&m).unwrap();
    assert_eq!(slice_of(&m, &ba, "a", &[]), slice_of(&m, &ba, "x", &[]));
}

#[test]
fn an_alias_to_a_missing_parameter_is_an_invalid_module() {
    let m = parse(
        r#"HloModule missing, is_scheduled=true, input_output_alias={ {}: (3, {}, may-alias) }
ENTRY main {
  p = f32[16]{0} parameter(0)
  ROOT n = f32[16]{0} negate(p)
}
"#,
    );
    let e = BufferAssignment::run(&m).unwrap_err();
    assert_eq!(
        e,
        super::BufferAssignmentError::MissingAliasedParameter {
            parameter: 3,
            parameters: 1
        }
    );
    assert_eq!(e.kind(), crate::ir::ErrorKind::Invalid);
    assert_eq!(
        e.to_string(),
        "input_output_alias names parameter 3 but the entry has 1"
    );
}
