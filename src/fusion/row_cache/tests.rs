//! Tests of `row_cache.rs`.

use super::*;
use crate::pipeline::testing::parse_verified;

const SOFTMAX: &str = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[4]{0} reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[4,8]{1,0} broadcast(m), dimensions={0}
  s = f32[4,8]{1,0} subtract(x, mb)
  e = f32[4,8]{1,0} exponential(s)
  zero = f32[] constant(0)
  r = f32[4]{0} reduce(e, zero), dimensions={1}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}";

#[test]
fn softmax_exponentials_are_read_in_two_row_contexts() {
    let m = parse_verified(SOFTMAX);
    let c = m.entry_computation();
    let a = RowCacheAnalysis::of(c);
    let e = c.find("e").unwrap();
    assert_eq!(a.row_contexts(e), Some(2));
    assert!(a.reused(c, e));
    // x: the max loop, the sum loop (through e) and the row loop.
    assert_eq!(a.row_contexts(c.find("x").unwrap()), Some(3));
    // The row maximum is evaluated per row, not at the row's elements.
    assert_eq!(a.row_contexts(c.find("m").unwrap()), None);
    // The root is read once: cacheable, but not worth it on reuse.
    let d = c.find("d").unwrap();
    assert!(a.cacheable(c, d) && !a.reused(c, d));
}

#[test]
fn a_column_reduction_is_not_a_row_context() {
    let m = parse_verified(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(x)
  zero = f32[] constant(0)
  r = f32[8]{0} reduce(e, zero), dimensions={0}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={1}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}",
    );
    let c = m.entry_computation();
    let a = RowCacheAnalysis::of(c);
    assert_eq!(a.row_contexts(c.find("e").unwrap()), None);
}

#[test]
fn long_rows_and_integer_values_are_not_cached() {
    let m = parse_verified(
        "HloModule m
ENTRY main {
  x = f32[2,8192]{1,0} parameter(0)
  ROOT e = f32[2,8192]{1,0} exponential(x)
}",
    );
    let c = m.entry_computation();
    let a = RowCacheAnalysis::of(c);
    let e = c.find("e").unwrap();
    assert_eq!(a.row_contexts(e), Some(1));
    assert!(!a.cacheable(c, e), "32 KiB rows do not fit");
    let m = parse_verified(
        "HloModule m
ENTRY main {
  x = s32[2,8]{1,0} parameter(0)
  ROOT n = s32[2,8]{1,0} negate(x)
}",
    );
    let c = m.entry_computation();
    assert!(!RowCacheAnalysis::of(c).cacheable(c, c.root));
}
