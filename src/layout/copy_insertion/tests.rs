//! Copy-insertion rules, one test each: HLO text in, where copies and control edges
//! appear out. Every test also runs the result through buffer assignment and the
//! symbolic checker (`buffer_check`) with the schedule the scheduler picks.

use super::CopyInsertion;
use crate::front::hlo_text::parse_module;
use crate::ir::{Module, Opcode};
use crate::layout::buffer_assignment::BufferAssignment;
use crate::layout::buffer_check::check_buffer_assignment;
use crate::layout::scheduler::HloMemoryScheduler;
use crate::pipeline::Pass;

fn run(text: &str) -> (Module, bool) {
    let mut m = parse_module(text, "t.hlo").expect("parses").module;
    let changed = CopyInsertion.run(&mut m).unwrap();
    crate::ir::verifier::verify(&m).expect("verifies");
    let mut scheduled = m.clone();
    HloMemoryScheduler.run(&mut scheduled).unwrap();
    let ba = BufferAssignment::run(&scheduled).unwrap();
    let problems = check_buffer_assignment(&scheduled, &ba);
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        scheduled
    );
    (m, changed)
}

fn opcode_of(m: &Module, c: crate::ir::ComputationId, id: crate::ir::InstrId) -> Opcode {
    m.computations[c].instrs[id].opcode()
}

#[test]
fn entry_result_that_is_a_parameter_gets_a_copy() {
    let (m, changed) = run(r#"HloModule r
ENTRY main {
  p = f32[4]{0} parameter(0)
  e = f32[4]{0} exponential(p)
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(p, e, e)
}
"#);
    assert!(changed);
    let root = m.entry_computation().root_instr();
    let ops: Vec<Opcode> = root
        .operands
        .iter()
        .map(|&o| opcode_of(&m, m.entry, o))
        .collect();
    // The parameter and the second `e` are copied; the first `e` is not.
    assert_eq!(ops, vec![Opcode::Copy, Opcode::Exp, Opcode::Copy]);
}

#[test]
fn aliased_parameter_result_is_not_copied() {
    let (_, changed) = run(
        r#"HloModule r, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  ROOT p = f32[4]{0} parameter(0)
}
"#,
    );
    assert!(!changed);
}

const LOOP: &str = r#"HloModule loop
cond {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  a = f32[4]{0} get-tuple-element(s), index=1
  b = f32[4]{0} get-tuple-element(s), index=2
  ROOT t = (s32[], f32[4]{0}, f32[4]{0}) tuple(i1, b, a)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  e = f32[4]{0} exponential(p)
  init = (s32[], f32[4]{0}, f32[4]{0}) tuple(z, p, e)
  w = (s32[], f32[4]{0}, f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}
"#;

#[test]
fn while_init_copies_parameters_and_constants_only() {
    let (m, changed) = run(LOOP);
    assert!(changed);
    let entry = m.entry_computation();
    let init = entry.instr(entry.find("init").unwrap());
    let ops: Vec<Opcode> = init
        .operands
        .iter()
        .map(|&o| opcode_of(&m, m.entry, o))
        .collect();
    // z (constant) and p (parameter) are copied; e is fresh and used only here.
    assert_eq!(ops, vec![Opcode::Copy, Opcode::Copy, Opcode::Exp]);
}

#[test]
fn swapped_state_leaves_get_two_copies_and_the_counter_none() {
    let (m, _) = run(LOOP);
    let body = m.find_computation("body").unwrap();
    let comp = &m.computations[body];
    let root = comp.root_instr();
    // Leaf 0: i1 = add(i, 1) reads the old leaf 0 elementwise, once: written in place.
    assert_eq!(comp.instr(root.operands[0]).name, "i1");
    // Leaves 1 and 2 swap: copy(copy(gte)).
    for k in [1, 2] {
        let outer = root.operands[k];
        let inner = comp.instr(outer).operands[0];
        assert_eq!(opcode_of(&m, body, outer), Opcode::Copy);
        assert_eq!(opcode_of(&m, body, inner), Opcode::Copy);
        assert_eq!(
            opcode_of(&m, body, comp.instr(inner).operands[0]),
            Opcode::GetTupleElement
        );
    }
}

#[test]
fn in_place_update_of_the_state_gets_control_edges_not_copies() {
    let (m, _) = run(r#"HloModule dus
cond {
  s = (s32[], f32[8]{0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]{0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8]{0} get-tuple-element(s), index=1
  sl = f32[2]{0} dynamic-slice(x, i), dynamic_slice_sizes={2}
  u = f32[2]{0} exponential(sl)
  d = f32[8]{0} dynamic-update-slice(x, u, i)
  neg = f32[8]{0} negate(x)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[8]{0}, f32[8]{0}) tuple(i1, d, neg)
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  z = s32[] constant(0)
  e = f32[8]{0} exponential(p)
  f = f32[8]{0} negate(p)
  init = (s32[], f32[8]{0}, f32[8]{0}) tuple(z, e, f)
  w = (s32[], f32[8]{0}, f32[8]{0}) while(init), condition=cond, body=body
  ROOT r = f32[8]{0} get-tuple-element(w), index=1
}
"#);
    let body = m.find_computation("body").unwrap();
    let comp = &m.computations[body];
    let root = comp.root_instr();
    // The update writes leaf 1 in place and `neg` writes leaf 2 directly: no copies.
    assert_eq!(comp.instr(root.operands[1]).name, "d");
    assert_eq!(comp.instr(root.operands[2]).name, "neg");
    // `neg` reads the old leaf 1, so it must run before `d` overwrites it; `sl` needs no
    // edge (d already depends on it through u).
    let d = comp.instr(comp.find("d").unwrap());
    assert_eq!(d.control_predecessors, vec![comp.find("neg").unwrap()]);
}

#[test]
fn branch_returning_its_parameter_gets_a_copy() {
    let (m, changed) = run(r#"HloModule cond
on_true {
  x = f32[4]{0} parameter(0)
  ROOT e = f32[4]{0} exponential(x)
}
on_false {
  ROOT x = f32[4]{0} parameter(0)
}
ENTRY main {
  c = pred[] parameter(0)
  p = f32[4]{0} parameter(1)
  n = f32[4]{0} negate(p)
  k = f32[4]{0} conditional(c, n, n), true_computation=on_true, false_computation=on_false
  ROOT a = f32[4]{0} add(k, n)
}
"#);
    assert!(changed);
    let f = m.find_computation("on_false").unwrap();
    assert_eq!(m.computations[f].root_instr().opcode(), Opcode::Copy);
    let t = m.find_computation("on_true").unwrap();
    assert_eq!(m.computations[t].root_instr().opcode(), Opcode::Exp);
}

/// Schedules and plans `m`; the allocation of the entry parameter `param` and of leaf
/// `out` of the entry result.
fn param_and_output_allocations(m: &Module, param: &str, out: &[usize]) -> (usize, usize) {
    let mut scheduled = m.clone();
    HloMemoryScheduler.run(&mut scheduled).unwrap();
    let ba = BufferAssignment::run(&scheduled).unwrap();
    let entry = scheduled.entry_computation();
    let p = ba
        .slice(scheduled.entry, entry.find(param).unwrap(), &[])
        .unwrap();
    let o = ba.slice(scheduled.entry, entry.root, out).unwrap();
    (p.allocation, o.allocation)
}

/// `donate_int_tuple`: output 0 (`x + 1`) is aliased with `y`, which the other fusion
/// still reads; that reader becomes a control predecessor of the writer, and the output
/// then lives in `y`'s buffer.
#[test]
fn aliased_output_waits_for_the_parameters_other_readers() {
    let (m, changed) = run(
        r#"HloModule t, input_output_alias={ {0}: (1, {}, may-alias) }
add_one {
  p = s32[6]{0} parameter(0)
  c = s32[] constant(1)
  b = s32[6]{0} broadcast(c), dimensions={}
  ROOT a = s32[6]{0} add(p, b)
}
times_two {
  p = s32[6]{0} parameter(0)
  c = s32[] constant(2)
  b = s32[6]{0} broadcast(c), dimensions={}
  ROOT m = s32[6]{0} multiply(p, b)
}
ENTRY main {
  x = s32[6]{0} parameter(0)
  y = s32[6]{0} parameter(1)
  f = s32[6]{0} fusion(x), kind=kLoop, calls=add_one
  g = s32[6]{0} fusion(y), kind=kLoop, calls=times_two
  ROOT t = (s32[6]{0}, s32[6]{0}) tuple(f, g)
}
"#,
    );
    assert!(changed);
    let entry = m.entry_computation();
    let (f, g) = (entry.find("f").unwrap(), entry.find("g").unwrap());
    assert_eq!(entry.instr(f).control_predecessors, vec![g]);
    let (y, out) = param_and_output_allocations(&m, "y", &[0]);
    assert_eq!(y, out);
}

/// A reader of the parameter that needs the output (a cycle), or a writer that reads the
/// parameter at other indices (reverse): the output is copied after every reader, and
/// the copy writes into the parameter's buffer.
#[test]
fn aliased_output_is_copied_when_it_cannot_wait() {
    for (text, out) in [
        (
            r#"HloModule cycle, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  x = f32[8]{0} parameter(0)
  a = f32[8]{0} negate(x)
  b = f32[8]{0} add(x, a)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(a, b)
}
"#,
            vec![0],
        ),
        (
            r#"HloModule reversed, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT r = f32[8]{0} reverse(x), dimensions={0}
}
"#,
            vec![],
        ),
    ] {
        let (m, changed) = run(text);
        assert!(changed, "{text}");
        let entry = m.entry_computation();
        let root = entry.root_instr();
        let leaf = match out.as_slice() {
            [k] => entry.instr(root.operands[*k]),
            _ => root,
        };
        assert_eq!(leaf.opcode(), Opcode::Copy, "{m}");
        let (x, o) = param_and_output_allocations(&m, "x", &out);
        assert_eq!(x, o, "{m}");
    }
}

/// An RNN's cell state: `c1 = c + h*c` reads the old `c` once, elementwise, and is written
/// over it; `c*c` reads it through two operands and gets a copy. Readers of the old `c`
/// are ordered before the write by their data edges already.
#[test]
fn elementwise_update_of_the_state_is_in_place() {
    let (m, _) = run(r#"HloModule rnn
cond {
  s = (s32[], f32[8]{0}, f32[8]{0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]{0}, f32[8]{0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = f32[8]{0} get-tuple-element(s), index=1
  h = f32[8]{0} get-tuple-element(s), index=2
  q = f32[8]{0} get-tuple-element(s), index=3
  hc = f32[8]{0} multiply(h, c)
  c1 = f32[8]{0} add(c, hc)
  h1 = f32[8]{0} tanh(c1)
  q1 = f32[8]{0} multiply(q, q)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(i1, c1, h1, q1)
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  z = s32[] constant(0)
  e = f32[8]{0} exponential(p)
  f = f32[8]{0} negate(p)
  g = f32[8]{0} sine(p)
  init = (s32[], f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(z, e, f, g)
  w = (s32[], f32[8]{0}, f32[8]{0}, f32[8]{0}) while(init), condition=cond, body=body
  ROOT r = f32[8]{0} get-tuple-element(w), index=1
}
"#);
    let body = m.find_computation("body").unwrap();
    let comp = &m.computations[body];
    let root = comp.root_instr();
    let names: Vec<&str> = root.operands[..3]
        .iter()
        .map(|&o| comp.instr(o).name.as_str())
        .collect();
    assert_eq!(names, ["i1", "c1", "h1"]);
    assert_eq!(opcode_of(&m, body, root.operands[3]), Opcode::Copy);
    for name in ["i1", "c1", "h1"] {
        let x = comp.instr(comp.find(name).unwrap());
        assert!(x.control_predecessors.is_empty(), "{name}: {m}");
    }
}

const READ_ONLY: &str = r#"HloModule scan
cond {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  a = f32[4]{0} get-tuple-element(s), index=1
  wt = f32[4]{0} get-tuple-element(s), index=2
  a1 = f32[4]{0} multiply(a, wt)
  ROOT t = (s32[], f32[4]{0}, f32[4]{0}) tuple(i1, a1, wt)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  q = f32[4]{0} parameter(1)
  z = s32[] constant(0)
  e = f32[4]{0} exponential(p)
  init = (s32[], f32[4]{0}, f32[4]{0}) tuple(z, e, q)
  w = (s32[], f32[4]{0}, f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=RESULT
}
"#;

/// A parameter in a leaf the loop only reads (a scan's weights) is read in place: no
/// copy, and the loop state of that leaf is the parameter's allocation. Not when the
/// caller reads that leaf of the result, which would alias its input.
#[test]
fn read_only_parameter_in_the_loop_state_is_not_copied() {
    for (result, copied) in [("1", false), ("2", true)] {
        let (m, _) = run(&READ_ONLY.replace("RESULT", result));
        let entry = m.entry_computation();
        let init = entry.instr(entry.find("init").unwrap());
        let leaf2 = opcode_of(&m, m.entry, init.operands[2]);
        assert_eq!(leaf2 == Opcode::Copy, copied, "{m}");
        assert_eq!(opcode_of(&m, m.entry, init.operands[0]), Opcode::Copy);
        if !copied {
            let mut scheduled = m.clone();
            HloMemoryScheduler.run(&mut scheduled).unwrap();
            let ba = BufferAssignment::run(&scheduled).unwrap();
            let entry = scheduled.entry_computation();
            let q = ba.slice(scheduled.entry, entry.find("q").unwrap(), &[]);
            let state = ba.slice(scheduled.entry, entry.find("w").unwrap(), &[2]);
            assert_eq!(q, state);
        }
    }
}

/// Two branches that pass their tuple parameter through, fed the same two values in
/// opposite orders (jax's VJP of a checkpointed `cond` makes this): each branch root is
/// split into leaves and every leaf copied, so the result has bytes of its own. Before,
/// the branches ran nothing and the result read whichever operand buffers the
/// assignment picked: the compiled program returned the values unswapped.
#[test]
fn pass_through_branches_of_swapped_operands_get_copies() {
    let text = r#"HloModule swap
keep {
  ROOT p = (f32[2]{0}, f32[2]{0}) parameter(0)
}
swap {
  ROOT p = (f32[2]{0}, f32[2]{0}) parameter(0)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[2]{0} parameter(1)
  b = f32[2]{0} parameter(2)
  x = f32[2]{0} exponential(a)
  y = f32[2]{0} negate(b)
  t0 = (f32[2]{0}, f32[2]{0}) tuple(x, y)
  t1 = (f32[2]{0}, f32[2]{0}) tuple(y, x)
  k = (f32[2]{0}, f32[2]{0}) conditional(i, t0, t1), branch_computations={keep, swap}
  k0 = f32[2]{0} get-tuple-element(k), index=0
  k1 = f32[2]{0} get-tuple-element(k), index=1
  ROOT r = f32[2]{0} subtract(k0, k1)
}
"#;
    let (m, changed) = run(text);
    assert!(changed);
    for name in ["keep", "swap"] {
        let c = m.find_computation(name).unwrap();
        let root = m.computations[c].root_instr();
        assert_eq!(root.opcode(), Opcode::Tuple, "{m}");
        for &leaf in &root.operands {
            assert_eq!(opcode_of(&m, c, leaf), Opcode::Copy, "{m}");
        }
    }
    // The compiled program against the interpreter, on both branches.
    use crate::eval::{EvalOptions, evaluate};
    use crate::ir::{ArrayLiteral, Literal};
    let module = parse_module(text, "t.hlo").unwrap().module;
    for branch in [0i32, 1] {
        let args = vec![
            Literal::Array(ArrayLiteral::from_vec(&[], vec![branch])),
            Literal::Array(ArrayLiteral::from_vec(&[2], vec![0.5f32, -1.0])),
            Literal::Array(ArrayLiteral::from_vec(&[2], vec![2.0f32, 3.0])),
        ];
        let expected = evaluate(&module, &args, &EvalOptions::default()).unwrap();
        let options = crate::compiler::CompileOptions::default();
        let mut exe = crate::compiler::compile(module.clone(), &options)
            .unwrap()
            .executable;
        assert_eq!(exe.execute(&args).unwrap(), expected, "branch {branch}");
    }
}
