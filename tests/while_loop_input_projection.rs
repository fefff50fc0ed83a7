//! `while-loop-input-projection`: HLO text before → after on a scan's `xs[i] @ W`, the
//! loops it must leave alone (and the reason it logs), and whole programs compiled with
//! the pass against the reference interpreter on the program as written.
//!
//! Release mode: `cargo test --release --test while_loop_input_projection`.

use std::cell::RefCell;
use std::rc::Rc;

use xlac::compiler::{CompileOptions, compile, optimize};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text::parse_module;
use xlac::io::random_inputs::random_literal;
use xlac::ir::verifier::verify;
use xlac::ir::{ComputationId, Module, Op};
use xlac::pipeline::Pass;
use xlac::pipeline::while_loop_input_projection::{
    InputProjectionLog, NotHoisted, WhileLoopInputProjection,
};

fn parse(text: &str) -> Module {
    let module = parse_module(text, "test.hlo")
        .expect("test HLO parses")
        .module;
    verify(&module).expect("test HLO verifies");
    module
}

/// Runs the pass on `text`; the module after it (verified) and the log.
fn run_pass(text: &str) -> (Module, bool, InputProjectionLog) {
    let log = Rc::new(RefCell::new(InputProjectionLog::default()));
    let mut module = parse(text);
    let changed = WhileLoopInputProjection::new(&log)
        .run(&mut module)
        .expect("the pass runs");
    if let Err(errors) = verify(&module) {
        panic!("does not verify after the pass: {errors:?}\n{module}");
    }
    let log = log.borrow().clone();
    (module, changed, log)
}

/// The interpreter's outputs of both modules on the same seeded inputs agree within
/// `tolerance` (the interpreter sums a dot's products in one order whatever the batch).
fn assert_same_results(before: &Module, after: &Module, tolerance: Tolerance) {
    for seed in [1u64, 2] {
        let args: Vec<_> = before
            .entry_parameter_shapes()
            .iter()
            .enumerate()
            .map(|(i, s)| random_literal(s, seed, i))
            .collect();
        let options = EvalOptions::default();
        let want = evaluate(before, &args, &options).expect("runs before");
        let got = evaluate(after, &args, &options).expect("runs after");
        for (i, (w, g)) in want.leaves().iter().zip(got.leaves()).enumerate() {
            let c = compare_arrays(g, w, tolerance).expect("comparable outputs");
            assert!(c.ok(), "output {i} changed: {c}");
        }
    }
}

/// A scan of 4 steps over `xs: f32[4,2,3]`: `h += xs[i] @ W` with `W: f32[3,5]`. `BODY_EXTRA`
/// lines go into the body, `w_out` is the body's new `W`, `index` the slice's row index,
/// `bound` the condition's bound (an instruction of the condition).
fn scan(w_out: &str, index: &str, bound_line: &str, body_extra: &str) -> String {
    format!(
        "HloModule scan

cond {{
  s = (s32[], f32[2,5]{{1,0}}, f32[4,2,3]{{2,1,0}}, f32[3,5]{{1,0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  {bound_line}
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = (s32[], f32[2,5]{{1,0}}, f32[4,2,3]{{2,1,0}}, f32[3,5]{{1,0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[2,5]{{1,0}} get-tuple-element(s), index=1
  xs = f32[4,2,3]{{2,1,0}} get-tuple-element(s), index=2
  w = f32[3,5]{{1,0}} get-tuple-element(s), index=3
  zero = s32[] constant(0)
  one = s32[] constant(1)
  {body_extra}
  slice = f32[1,2,3]{{2,1,0}} dynamic-slice(xs, {index}, zero, zero), dynamic_slice_sizes={{1,2,3}}
  x = f32[2,3]{{1,0}} reshape(slice)
  d = f32[2,5]{{1,0}} dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  h1 = f32[2,5]{{1,0}} add(h, d)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[2,5]{{1,0}}, f32[4,2,3]{{2,1,0}}, f32[3,5]{{1,0}}) tuple(i1, h1, xs, {w_out})
}}

ENTRY main {{
  xs = f32[4,2,3]{{2,1,0}} parameter(0)
  w = f32[3,5]{{1,0}} parameter(1)
  h0 = f32[2,5]{{1,0}} parameter(2)
  z = s32[] constant(0)
  init = (s32[], f32[2,5]{{1,0}}, f32[4,2,3]{{2,1,0}}, f32[3,5]{{1,0}}) tuple(z, h0, xs, w)
  loop = (s32[], f32[2,5]{{1,0}}, f32[4,2,3]{{2,1,0}}, f32[3,5]{{1,0}}) while(init), condition=cond, body=body
  ROOT r = f32[2,5]{{1,0}} get-tuple-element(loop), index=1
}}
"
    )
}

fn plain_scan() -> String {
    scan("w", "i", "n = s32[] constant(4)", "")
}

/// The one reason logged for the dot `d`.
fn reason(log: &InputProjectionLog) -> Result<String, NotHoisted> {
    assert_eq!(log.decisions.len(), 1, "{log}");
    assert_eq!(log.decisions[0].dot, "d");
    log.decisions[0].outcome.clone()
}

#[test]
fn hoists_the_scan_input_projection() {
    let before = plain_scan();
    let (after, changed, log) = run_pass(&before);
    assert!(changed);
    let want = "HloModule scan

cond {
  s = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[2,5]{1,0} get-tuple-element(s), index=1
  xs = f32[4,2,3]{2,1,0} get-tuple-element(s), index=2
  w = f32[3,5]{1,0} get-tuple-element(s), index=3
  zero = s32[] constant(0)
  one = s32[] constant(1)
  slice = f32[1,2,3]{2,1,0} dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,2,3}
  x = f32[2,3]{1,0} reshape(slice)
  d = f32[2,5]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h1 = f32[2,5]{1,0} add(h, d)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}) tuple(i1, h1, xs, w)
}

cond.clone {
  s = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}, f32[8,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body.clone {
  s = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}, f32[8,5]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[2,5]{1,0} get-tuple-element(s), index=1
  xs = f32[4,2,3]{2,1,0} get-tuple-element(s), index=2
  w = f32[3,5]{1,0} get-tuple-element(s), index=3
  one = s32[] constant(1)
  get-tuple-element = f32[8,5]{1,0} get-tuple-element(s), index=4
  constant = s32[] constant(0)
  constant.1 = s32[] constant(2)
  multiply = s32[] multiply(i, constant.1)
  d.row = f32[2,5]{1,0} dynamic-slice(get-tuple-element, multiply, constant), dynamic_slice_sizes={2,5}
  h1 = f32[2,5]{1,0} add(h, d.row)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}, f32[8,5]{1,0}) tuple(i1, h1, xs, w, get-tuple-element)
}

ENTRY main {
  xs = f32[4,2,3]{2,1,0} parameter(0)
  w = f32[3,5]{1,0} parameter(1)
  h0 = f32[2,5]{1,0} parameter(2)
  z = s32[] constant(0)
  d.rows = f32[8,3]{1,0} reshape(xs)
  d.hoisted = f32[8,5]{1,0} dot(d.rows, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tuple = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}, f32[8,5]{1,0}) tuple(z, h0, xs, w, d.hoisted)
  loop = (s32[], f32[2,5]{1,0}, f32[4,2,3]{2,1,0}, f32[3,5]{1,0}, f32[8,5]{1,0}) while(tuple), condition=cond.clone, body=body.clone
  ROOT r = f32[2,5]{1,0} get-tuple-element(loop), index=1
}
";
    assert_eq!(after.to_string(), parse(want).to_string());
    assert!(reason(&log).is_ok());
    assert!(
        log.to_string()
            .starts_with("loop / d: hoisted: one [8,3]x[3,5] dot")
    );
    // The interpreter sums each output element's products in one order whatever the
    // batch, so the rewrite gives the same bits there.
    assert_same_results(&parse(&before), &after, Tolerance::EXACT);
}

#[test]
fn hoists_a_constant_weight() {
    let before = scan(
        "w",
        "i",
        "n = s32[] constant(4)",
        "wc = f32[3,5]{1,0} constant({{1,2,3,4,5},{6,7,8,9,10},{-1,-2,-3,-4,-5}})",
    )
    .replace("dot(x, w)", "dot(x, wc)");
    let (after, changed, log) = run_pass(&before);
    assert!(changed, "{log}");
    assert!(reason(&log).is_ok());
    let entry = after.entry_computation();
    assert!(
        entry.iter().any(|(_, i)| matches!(i.op, Op::Dot { .. })),
        "{after}"
    );
    assert_same_results(&parse(&before), &after, Tolerance::EXACT);
}

#[test]
fn leaves_a_weight_that_changes_in_the_loop() {
    let before = scan(
        "w2",
        "i",
        "n = s32[] constant(4)",
        "w2 = f32[3,5]{1,0} negate(w)",
    );
    let (after, changed, log) = run_pass(&before);
    assert!(!changed);
    assert_eq!(after.to_string(), parse(&before).to_string());
    assert_eq!(reason(&log), Err(NotHoisted::WeightVaries));
}

#[test]
fn leaves_a_slice_not_at_the_counter() {
    let before = scan("w", "j", "n = s32[] constant(4)", "j = s32[] add(i, one)");
    let (_, changed, log) = run_pass(&before);
    assert!(!changed);
    assert_eq!(reason(&log), Err(NotHoisted::IndexNotCounter));
}

#[test]
fn leaves_a_loop_whose_trip_count_is_unknown() {
    // The bound is read from the state (h's first element, converted): not a constant.
    let before = scan(
        "w",
        "i",
        "h = f32[2,5]{1,0} get-tuple-element(s), index=1
  e = f32[1,1]{1,0} slice(h), slice={[0:1], [0:1]}
  e1 = f32[] reshape(e)
  n = s32[] convert(e1)",
        "",
    );
    let (_, changed, log) = run_pass(&before);
    assert!(!changed);
    assert_eq!(reason(&log), Err(NotHoisted::UnknownTripCount));
}

#[test]
fn leaves_a_loop_that_visits_fewer_rows() {
    let before = scan("w", "i", "n = s32[] constant(3)", "");
    let (_, changed, log) = run_pass(&before);
    assert!(!changed);
    assert_eq!(
        reason(&log),
        Err(NotHoisted::TripsDoNotCoverRows {
            trips: Some(3),
            rows: 4
        })
    );
}

#[test]
fn leaves_a_product_over_the_size_limit() {
    // 4096 steps of 2 rows by 2049 columns: the [8192,2049] f32 product is 64.03 MiB.
    let before = plain_scan()
        .replace("f32[4,2,3]", "f32[4096,2,3]")
        .replace("f32[3,5]", "f32[3,2049]")
        .replace("f32[2,5]", "f32[2,2049]")
        .replace("constant(4)", "constant(4096)");
    let (_, changed, log) = run_pass(&before);
    assert!(!changed);
    assert!(
        matches!(reason(&log), Err(NotHoisted::TooLarge { .. })),
        "{log}"
    );
}

#[test]
fn leaves_a_product_whose_row_numbers_overflow_the_counter() {
    // An s8 counter over 100 steps of 2 rows: row 198 does not fit in s8.
    let before = plain_scan()
        .replace("s32[]", "s8[]")
        .replace("f32[4,2,3]", "f32[100,2,3]")
        .replace("constant(4)", "constant(100)");
    let (_, changed, log) = run_pass(&before);
    assert!(!changed);
    assert_eq!(reason(&log), Err(NotHoisted::IndexTypeTooNarrow));
}

/// An LSTM step over `lax.scan`, as jax lowers it after inlining: 16 steps, batch 4,
/// input 24, hidden 16; outputs every step's h and the final c.
const LSTM: &str = "HloModule lstm

cond {
  s = (s32[], f32[4,16]{1,0}, f32[4,16]{1,0}, f32[16,4,16]{2,1,0}, f32[16,4,24]{2,1,0}, f32[24,64]{1,0}, f32[16,64]{1,0}, f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4,16]{1,0}, f32[4,16]{1,0}, f32[16,4,16]{2,1,0}, f32[16,4,24]{2,1,0}, f32[24,64]{1,0}, f32[16,64]{1,0}, f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,16]{1,0} get-tuple-element(s), index=1
  c = f32[4,16]{1,0} get-tuple-element(s), index=2
  hs = f32[16,4,16]{2,1,0} get-tuple-element(s), index=3
  xs = f32[16,4,24]{2,1,0} get-tuple-element(s), index=4
  wx = f32[24,64]{1,0} get-tuple-element(s), index=5
  wh = f32[16,64]{1,0} get-tuple-element(s), index=6
  b = f32[64]{0} get-tuple-element(s), index=7
  zero = s32[] constant(0)
  one = s32[] constant(1)
  fone = f32[] constant(1)
  ones = f32[4,16]{1,0} broadcast(fone), dimensions={}
  xt3 = f32[1,4,24]{2,1,0} dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,4,24}
  xt = f32[4,24]{1,0} reshape(xt3)
  zx = f32[4,64]{1,0} dot(xt, wx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zh = f32[4,64]{1,0} dot(h, wh), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z0 = f32[4,64]{1,0} add(zx, zh)
  bb = f32[4,64]{1,0} broadcast(b), dimensions={1}
  z = f32[4,64]{1,0} add(z0, bb)
  zi = f32[4,16]{1,0} slice(z), slice={[0:4], [0:16]}
  zf = f32[4,16]{1,0} slice(z), slice={[0:4], [16:32]}
  zg = f32[4,16]{1,0} slice(z), slice={[0:4], [32:48]}
  zo = f32[4,16]{1,0} slice(z), slice={[0:4], [48:64]}
  ni = f32[4,16]{1,0} negate(zi)
  ei = f32[4,16]{1,0} exponential(ni)
  di = f32[4,16]{1,0} add(ei, ones)
  si = f32[4,16]{1,0} divide(ones, di)
  nf = f32[4,16]{1,0} negate(zf)
  ef = f32[4,16]{1,0} exponential(nf)
  df = f32[4,16]{1,0} add(ef, ones)
  sf = f32[4,16]{1,0} divide(ones, df)
  no = f32[4,16]{1,0} negate(zo)
  eo = f32[4,16]{1,0} exponential(no)
  do = f32[4,16]{1,0} add(eo, ones)
  so = f32[4,16]{1,0} divide(ones, do)
  tg = f32[4,16]{1,0} tanh(zg)
  fc = f32[4,16]{1,0} multiply(sf, c)
  ig = f32[4,16]{1,0} multiply(si, tg)
  c1 = f32[4,16]{1,0} add(fc, ig)
  tc = f32[4,16]{1,0} tanh(c1)
  h1 = f32[4,16]{1,0} multiply(so, tc)
  h13 = f32[1,4,16]{2,1,0} reshape(h1)
  hs1 = f32[16,4,16]{2,1,0} dynamic-update-slice(hs, h13, i, zero, zero)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4,16]{1,0}, f32[4,16]{1,0}, f32[16,4,16]{2,1,0}, f32[16,4,24]{2,1,0}, f32[24,64]{1,0}, f32[16,64]{1,0}, f32[64]{0}) tuple(i1, h1, c1, hs1, xs, wx, wh, b)
}

ENTRY main {
  b = f32[64]{0} parameter(0)
  wh = f32[16,64]{1,0} parameter(1)
  wx = f32[24,64]{1,0} parameter(2)
  xs = f32[16,4,24]{2,1,0} parameter(3)
  h0 = f32[4,16]{1,0} parameter(4)
  c0 = f32[4,16]{1,0} parameter(5)
  z = s32[] constant(0)
  fz = f32[] constant(0)
  hs0 = f32[16,4,16]{2,1,0} broadcast(fz), dimensions={}
  init = (s32[], f32[4,16]{1,0}, f32[4,16]{1,0}, f32[16,4,16]{2,1,0}, f32[16,4,24]{2,1,0}, f32[24,64]{1,0}, f32[16,64]{1,0}, f32[64]{0}) tuple(z, h0, c0, hs0, xs, wx, wh, b)
  loop = (s32[], f32[4,16]{1,0}, f32[4,16]{1,0}, f32[16,4,16]{2,1,0}, f32[16,4,24]{2,1,0}, f32[24,64]{1,0}, f32[16,64]{1,0}, f32[64]{0}) while(init), condition=cond, body=body
  hs = f32[16,4,16]{2,1,0} get-tuple-element(loop), index=3
  cT = f32[4,16]{1,0} get-tuple-element(loop), index=2
  ROOT out = (f32[16,4,16]{2,1,0}, f32[4,16]{1,0}) tuple(hs, cT)
}
";

/// Dots in the bodies of the module's loops, fused ones included.
fn dots_in_loop_bodies(module: &Module) -> usize {
    fn dots_in(module: &Module, c: ComputationId) -> usize {
        module.computations[c]
            .iter()
            .map(|(_, i)| {
                let here = usize::from(matches!(i.op, Op::Dot { .. }));
                let fused: usize = match i.op {
                    Op::Fusion { calls, .. } => dots_in(module, calls),
                    _ => 0,
                };
                here + fused
            })
            .sum()
    }
    let mut n = 0;
    for &c in &module.order {
        for (_, instr) in module.computations[c].iter() {
            if let Op::While { body, .. } = instr.op {
                n += dots_in(module, body);
            }
        }
    }
    n
}

#[test]
fn the_lstm_pipeline_hoists_the_input_projection_and_keeps_the_recurrent_dot() {
    let options = CompileOptions::default();
    let optimized = optimize(parse(LSTM), &options).expect("optimizes").module;
    // `h @ Wh` depends on the loop and stays; `xs[i] @ Wx` leaves the body.
    assert_eq!(dots_in_loop_bodies(&optimized), 1, "{optimized}");
    let mut without = options.clone();
    without.disabled_passes = vec!["while-loop-input-projection".to_string()];
    let plain = optimize(parse(LSTM), &without).expect("optimizes").module;
    assert_eq!(dots_in_loop_bodies(&plain), 2, "{plain}");
    // The loop carries the [64,64] product; xs, now unread in the body, left the state.
    let text = optimized.to_string();
    assert!(text.contains("f32[64,64]"), "{text}");
    assert!(!text.contains("f32[1,4,24]"), "{text}");
}

#[test]
fn the_compiled_lstm_matches_the_interpreter_on_the_program_as_written() {
    let module = parse(LSTM);
    for seed in [1u64, 7] {
        let args: Vec<_> = module
            .entry_parameter_shapes()
            .iter()
            .enumerate()
            .map(|(i, s)| random_literal(s, seed, i))
            .collect();
        let want = evaluate(&module, &args, &EvalOptions::default()).expect("interprets");
        let got = compile(module.clone(), &CompileOptions::default())
            .expect("compiles")
            .executable
            .execute(&args)
            .expect("runs");
        // A GEMM of 64 rows may sum a row's products in another order than one of 4 rows
        // (or than the interpreter): the usual dot tolerance, not bits.
        let tolerance = Tolerance {
            rtol: 1e-5,
            atol: 1e-5,
        };
        for (i, (w, g)) in want.leaves().iter().zip(got.leaves()).enumerate() {
            let c = compare_arrays(g, w, tolerance).expect("comparable");
            assert!(c.ok(), "seed {seed} output {i}: {c}");
        }
    }
}
