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
