//! Sibling multi-output fusion: HLO in, HLO out (written by hand), and the refusals.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

fn mof() -> (MultiOutputFusion, DecisionLog) {
    let log = DecisionLog::default();
    (MultiOutputFusion::new(log.clone()), log)
}

#[test]
fn two_loops_over_one_input_become_one_with_two_outputs() {
    let (pass, log) = mof();
    check_pass(
        pass,
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  n = f32[8]{0} negate(x)
  a = f32[8]{0} abs(x)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(n, a)
}",
        "HloModule m
wrapped_abs_computation {
  param_0 = f32[8]{0} parameter(0)
  a = f32[8]{0} abs(param_0)
  n = f32[8]{0} negate(param_0)
  ROOT tuple = (f32[8]{0}, f32[8]{0}) tuple(a, n)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  wrapped_abs = (f32[8]{0}, f32[8]{0}) fusion(x), kind=kLoop, calls=wrapped_abs_computation
  get-tuple-element.1 = f32[8]{0} get-tuple-element(wrapped_abs), index=0
  get-tuple-element = f32[8]{0} get-tuple-element(wrapped_abs), index=1
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(get-tuple-element, get-tuple-element.1)
}",
    );
    let log = log.borrow();
    assert_eq!(log.len(), 1);
    assert_eq!(
        log[0].rule,
        FusionRule::SiblingMultiOutput { shared: "x".into() }
    );
}

#[test]
fn a_sibling_that_reads_the_other_is_refused() {
    let (pass, log) = mof();
    check_unchanged(
        pass,
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  n = f32[8]{0} negate(x)
  ROOT a = f32[8]{0} add(x, n)
}",
    );
    assert_eq!(log.borrow()[0].rule, FusionRule::SiblingsDependent);
}

#[test]
fn a_reduction_and_a_loop_over_its_input_are_not_merged() {
    let (pass, log) = mof();
    check_unchanged(
        pass,
        "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(x, c), dimensions={1}, to_apply=sum
  n = f32[4,8]{1,0} negate(x)
  ROOT t = (f32[4]{0}, f32[4,8]{1,0}) tuple(r, n)
}",
    );
    assert!(matches!(
        log.borrow()[0].rule,
        FusionRule::SiblingsIterateDifferently { .. }
    ));
}

/// A max and a sum over axis 0 of one 1 MiB input stay two kernels: each alone streams
/// its rows on every thread (the row-chunked column kernel has one output).
#[test]
fn large_column_reductions_are_not_merged() {
    let (pass, log) = mof();
    check_unchanged(
        pass,
        "HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[1024,256]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[256]{0} reduce(x, c), dimensions={0}, to_apply=sum
  m = f32[256]{0} reduce(x, c), dimensions={0}, to_apply=max
  ROOT t = (f32[256]{0}, f32[256]{0}) tuple(r, m)
}",
    );
    assert_eq!(
        log.borrow()[0].rule,
        FusionRule::SiblingColumnReduction {
            input_bytes: 1 << 20
        }
    );
}

/// Adam's shape: one loop writes the new moments, the next reads them at its own index
/// to update the parameter. The update joins the moments' loop as a third output, reading
/// the moments as that loop computes them; they stay outputs (their users read them
/// through the merged fusion).
#[test]
fn a_loop_reading_another_loops_outputs_at_its_index_joins_it() {
    let (pass, log) = mof();
    check_pass(
        pass,
        "HloModule m
moments {
  g = f32[8]{0} parameter(0)
  m = f32[8]{0} parameter(1)
  m2 = f32[8]{0} add(m, g)
  g2 = f32[8]{0} multiply(g, g)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(m2, g2)
}
update {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} parameter(1)
  b = f32[8]{0} parameter(2)
  d = f32[8]{0} divide(a, b)
  ROOT s = f32[8]{0} subtract(p, d)
}
ENTRY main {
  g = f32[8]{0} parameter(0)
  m = f32[8]{0} parameter(1)
  p = f32[8]{0} parameter(2)
  f = (f32[8]{0}, f32[8]{0}) fusion(g, m), kind=kLoop, calls=moments
  m2 = f32[8]{0} get-tuple-element(f), index=0
  g2 = f32[8]{0} get-tuple-element(f), index=1
  u = f32[8]{0} fusion(p, m2, g2), kind=kLoop, calls=update
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(m2, u)
}",
        "HloModule m
moments {
  param_0 = f32[8]{0} parameter(0)
  param_1 = f32[8]{0} parameter(1)
  param_2 = f32[8]{0} parameter(2)
  m2 = f32[8]{0} add(param_1, param_0)
  g2 = f32[8]{0} multiply(param_0, param_0)
  d = f32[8]{0} divide(m2, g2)
  s = f32[8]{0} subtract(param_2, d)
  ROOT t = (f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(m2, g2, s)
}
ENTRY main {
  g = f32[8]{0} parameter(0)
  m = f32[8]{0} parameter(1)
  p = f32[8]{0} parameter(2)
  f = (f32[8]{0}, f32[8]{0}, f32[8]{0}) fusion(g, m, p), kind=kLoop, calls=moments
  get-tuple-element = f32[8]{0} get-tuple-element(f), index=2
  m2 = f32[8]{0} get-tuple-element(f), index=0
  g2 = f32[8]{0} get-tuple-element(f), index=1
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(m2, get-tuple-element)
}",
    );
    let log = log.borrow();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].rule, FusionRule::ProducerConsumerMultiOutput);
    assert_eq!(
        (log[0].producer.as_str(), log[0].consumer.as_str()),
        ("f", "u")
    );
}

/// Left apart: a consumer that reads the producer's output at another index (through a
/// reverse), and one whose other operand is computed from the producer's output (the
/// merged loop would read its own result).
#[test]
fn a_loop_reading_another_loops_outputs_elsewhere_or_through_a_third_is_left_apart() {
    let producer = "moments {
  g = f32[8]{0} parameter(0)
  ROOT m = f32[8]{0} multiply(g, g)
}
";
    for (body, entry) in [
        (
            "update {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} parameter(1)
  r = f32[8]{0} reverse(a), dimensions={0}
  ROOT s = f32[8]{0} subtract(p, r)
}",
            "  p = f32[8]{0} parameter(1)
  ROOT u = f32[8]{0} fusion(p, f), kind=kLoop, calls=update",
        ),
        (
            "update {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} parameter(1)
  ROOT s = f32[8]{0} subtract(p, a)
}",
            "  n = f32[8]{0} sort(f), dimensions={0}, to_apply=lt
  ROOT u = f32[8]{0} fusion(n, f), kind=kLoop, calls=update",
        ),
    ] {
        let (pass, log) = mof();
        check_unchanged(
            pass,
            &format!(
                "HloModule m
lt {{
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}}
{producer}{body}
ENTRY main {{
  g = f32[8]{{0}} parameter(0)
  f = f32[8]{{0}} fusion(g), kind=kLoop, calls=moments
{entry}
}}"
            ),
        );
        assert!(log.borrow().iter().all(|d| !d.fused));
    }
}

/// Inside a while body the same pair stays apart: merged, both loop-carried values would
/// be outputs of one fusion, which copy insertion copies every iteration.
#[test]
fn loops_in_a_while_body_are_not_merged_producer_into_consumer() {
    let (pass, log) = mof();
    check_unchanged(
        pass,
        "HloModule m
moments {
  g = f32[8]{0} parameter(0)
  ROOT m = f32[8]{0} multiply(g, g)
}
update {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} parameter(1)
  ROOT s = f32[8]{0} subtract(p, a)
}
body {
  state = (f32[8]{0}, f32[8]{0}) parameter(0)
  g = f32[8]{0} get-tuple-element(state), index=0
  p = f32[8]{0} get-tuple-element(state), index=1
  f = f32[8]{0} fusion(g), kind=kLoop, calls=moments
  u = f32[8]{0} fusion(p, f), kind=kLoop, calls=update
  ROOT next = (f32[8]{0}, f32[8]{0}) tuple(f, u)
}
cond {
  state = (f32[8]{0}, f32[8]{0}) parameter(0)
  ROOT no = pred[] constant(false)
}
ENTRY main {
  g = f32[8]{0} parameter(0)
  p = f32[8]{0} parameter(1)
  init = (f32[8]{0}, f32[8]{0}) tuple(g, p)
  ROOT w = (f32[8]{0}, f32[8]{0}) while(init), condition=cond, body=body
}",
    );
    assert!(log.borrow().iter().all(|d| !d.fused));
}
