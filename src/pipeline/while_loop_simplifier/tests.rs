//! Tests of `simplify-while-loops`: HLO before → after, and loops it must leave alone.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

/// A counter loop over `(s32[], f32[4])`: `i < BOUND`, `i += 1`, `x = exp(x)`.
fn counter_loop(bound: &str) -> String {
    format!(
        "
HloModule m
cond {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({bound})
  ROOT lt = pred[] compare(i, n), direction=LT
}}
body {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{{0}} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{{0}} exponential(x)
  ROOT t = (s32[], f32[4]{{0}}) tuple(i1, x1)
}}"
    )
}

const ENTRY_FROM_ZERO: &str = "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}";

#[test]
fn a_loop_whose_condition_is_false_at_the_start_becomes_its_init() {
    let before = counter_loop("3")
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  five = s32[] constant(5)
  init = (s32[], f32[4]{0}) tuple(five, p)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}";
    let after = counter_loop("3")
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  five = s32[] constant(5)
  init = (s32[], f32[4]{0}) tuple(five, p)
  ROOT r = f32[4]{0} get-tuple-element(init), index=1
}";
    check_pass(WhileLoopSimplifier, &before, &after);
}

#[test]
fn a_loop_that_runs_once_becomes_its_body() {
    let before = counter_loop("1") + ENTRY_FROM_ZERO;
    let after = counter_loop("1")
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  i = s32[] get-tuple-element(init), index=0
  x = f32[4]{0} get-tuple-element(init), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{0} exponential(x)
  t = (s32[], f32[4]{0}) tuple(i1, x1)
  ROOT r = f32[4]{0} get-tuple-element(t), index=1
}";
    check_pass(WhileLoopSimplifier, &before, &after);
}

#[test]
fn a_counter_counting_down_with_the_bound_on_the_left_is_matched() {
    // cond: 4 < i, i starts at 5 and steps by -1: runs once (5), stops at 4.
    let text = |entry: &str| {
        format!(
            "
HloModule m
cond {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(n, i), direction=LT
}}
body {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{{0}} get-tuple-element(s), index=1
  m1 = s32[] constant(-1)
  i1 = s32[] add(m1, i)
  x1 = f32[4]{{0}} exponential(x)
  ROOT t = (s32[], f32[4]{{0}}) tuple(i1, x1)
}}
ENTRY main {{
  p = f32[4]{{0}} parameter(0)
  five = s32[] constant(5)
  init = (s32[], f32[4]{{0}}) tuple(five, p)
{entry}
}}"
        )
    };
    check_pass(
        WhileLoopSimplifier,
        &text(
            "  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1",
        ),
        &text(
            "  i = s32[] get-tuple-element(init), index=0
  x = f32[4]{0} get-tuple-element(init), index=1
  m1 = s32[] constant(-1)
  i1 = s32[] add(m1, i)
  x1 = f32[4]{0} exponential(x)
  t = (s32[], f32[4]{0}) tuple(i1, x1)
  ROOT r = f32[4]{0} get-tuple-element(t), index=1",
        ),
    );
}

#[test]
fn known_trip_count_one_from_backend_config_is_trusted() {
    // The bound is a reshape, so only the backend_config tells the trip count.
    let computations = "
HloModule m
cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = s32[1]{0} constant({1})
  n = s32[] reshape(v)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{0} exponential(x)
  ROOT t = (s32[], f32[4]{0}) tuple(i1, x1)
}";
    let before = computations.to_string()
        + r#"
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"1"}}
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}"#;
    let after = computations.to_string()
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  i = s32[] get-tuple-element(init), index=0
  x = f32[4]{0} get-tuple-element(init), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{0} exponential(x)
  t = (s32[], f32[4]{0}) tuple(i1, x1)
  ROOT r = f32[4]{0} get-tuple-element(t), index=1
}";
    check_pass(WhileLoopSimplifier, &before, &after);
}

#[test]
fn keeps_loops_that_run_twice_or_have_unknown_bounds() {
    check_unchanged(WhileLoopSimplifier, &(counter_loop("2") + ENTRY_FROM_ZERO));
    check_unchanged(
        WhileLoopSimplifier,
        "
HloModule m
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i1, n)
}
ENTRY main {
  z = s32[] constant(0)
  p = s32[] parameter(0)
  lim = s32[] clamp(z, p, z)
  init = (s32[], s32[]) tuple(z, lim)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
}",
    );
}

#[test]
fn removes_a_state_element_nothing_reads() {
    let computations = "
HloModule m
cond {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{0} get-tuple-element(s), index=1
  y = f32[4]{0} get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{0} exponential(x)
  y1 = f32[4]{0} add(y, x)
  ROOT t = (s32[], f32[4]{0}, f32[4]{0}) tuple(i1, x1, y1)
}";
    let before = computations.to_string()
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}, f32[4]{0}) tuple(z, p, p)
  w = (s32[], f32[4]{0}, f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}";
    let after = computations.to_string()
        + "
cond.clone {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body.clone {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[4]{0} exponential(x)
  ROOT t = (s32[], f32[4]{0}) tuple(i1, x1)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  tuple = (s32[], f32[4]{0}) tuple(z, p)
  w = (s32[], f32[4]{0}) while(tuple), condition=cond.clone, body=body.clone
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}";
    check_pass(WhileLoopSimplifier, &before, &after);
}

#[test]
fn a_passed_through_element_read_after_the_loop_reads_the_init() {
    let computations = "
HloModule m
cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = f32[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4]{0}) tuple(i1, c)
}";
    let before = computations.to_string()
        + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  i = s32[] get-tuple-element(w), index=0
  c = f32[4]{0} get-tuple-element(w), index=1
  ROOT r = (s32[], f32[4]{0}) tuple(i, c)
}";
    let after = computations.to_string()
        + "
cond.clone {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body.clone {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[]) tuple(i1)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  tuple = (s32[]) tuple(z)
  w = (s32[]) while(tuple), condition=cond.clone, body=body.clone
  i = s32[] get-tuple-element(w), index=0
  ROOT r = (s32[], f32[4]{0}) tuple(i, p)
}";
    check_pass(WhileLoopSimplifier, &before, &after);
}

#[test]
fn keeps_state_that_is_changed_and_read_or_used_whole_or_with_side_effects() {
    // Element 1 is changed by the body and read after the loop: live.
    check_unchanged(WhileLoopSimplifier, &(counter_loop("3") + ENTRY_FROM_ZERO));
    // The loop's whole state is the result: every element is live.
    check_unchanged(
        WhileLoopSimplifier,
        &(counter_loop("3")
            + "
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  ROOT w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
}"),
    );
    // An rng in the body: the loop is not touched even though element 1 is dead and
    // the trip count is 1.
    check_unchanged(
        WhileLoopSimplifier,
        "
HloModule m
cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4]{0} rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[], f32[4]{0}) tuple(i1, r)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(z, p)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
}",
    );
}

#[test]
fn reads_known_trip_count() {
    assert_eq!(
        known_trip_count(r#"{"known_trip_count":{"n":"5"},"known_init_step":{"init":"0"}}"#),
        Some(5)
    );
    assert_eq!(known_trip_count(r#"{"other":1}"#), None);
}
