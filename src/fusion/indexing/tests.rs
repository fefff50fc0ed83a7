//! Tests of `indexing.rs`.

use super::*;
use crate::pipeline::testing::parse_verified;

/// Reads per element and emitted count of `producer` in `consumer`'s body.
fn body_of(hlo: &str, consumer: &str, producer: &str) -> (usize, usize) {
    let m = parse_verified(hlo);
    let comp = m.entry_computation();
    let b = ConsumerBody::of(&m, comp, comp.find(consumer).unwrap());
    let p = b.parameter_for(comp.find(producer).unwrap()).unwrap();
    (b.reads_per_element(p), b.emitted_count(p))
}

#[test]
fn reduce_window_reads_each_element_once_per_window() {
    let (reads, _) = body_of(
        "HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[8,8]{1,0} parameter(0)
  e = f32[8,8]{1,0} exponential(x)
  c = f32[] constant(0)
  ROOT rw = f32[8,8]{1,0} reduce-window(e, c), window={size=3x3 pad=1_1x1_1}, to_apply=max
}",
        "rw",
        "e",
    );
    assert_eq!(reads, 9);
}

#[test]
fn two_slices_evaluate_the_producer_twice() {
    let (reads, emitted) = body_of(
        "HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  e = f32[8]{0} exponential(x)
  s0 = f32[4]{0} slice(e), slice={[0:4]}
  s1 = f32[4]{0} slice(e), slice={[4:8]}
  ROOT a = f32[4]{0} add(s0, s1)
}",
        "s0",
        "e",
    );
    // As a plain consumer, the slice evaluates its operand once per output element.
    assert_eq!(emitted, 1);
    assert_eq!(reads, 1);
}
