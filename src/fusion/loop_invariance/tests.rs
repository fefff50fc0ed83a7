//! Tests of `loop_invariance.rs`.

use super::*;
use crate::pipeline::testing::parse_verified;

fn analysis(hlo: &str) -> (crate::ir::Module, LoopInvariance) {
    let m = parse_verified(hlo);
    let inv = LoopInvariance::of(m.entry_computation());
    (m, inv)
}

const SOFTMAX_SUM: &str = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[4]{0} reduce(e, c), dimensions={1}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={0}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}";

#[test]
fn a_row_reduction_broadcast_back_is_read_once_per_row() {
    let (m, inv) = analysis(SOFTMAX_SUM);
    let c = m.entry_computation();
    assert!(inv.is_hoisted(c.find("b").unwrap()));
    assert!(!inv.varies(c.find("r").unwrap()));
    // `e` is read per element by the divide and by the row reduction's loop.
    assert!(inv.varies(c.find("e").unwrap()));
}

#[test]
fn a_broadcast_along_the_minor_dimension_is_not_hoisted() {
    let (m, inv) = analysis(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  e = f32[4,8]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[8]{0} reduce(e, c), dimensions={0}, to_apply=add
  b = f32[4,8]{1,0} broadcast(r), dimensions={1}
  ROOT d = f32[4,8]{1,0} divide(e, b)
}",
    );
    let c = m.entry_computation();
    assert!(!inv.is_hoisted(c.find("b").unwrap()));
    assert!(inv.varies(c.find("r").unwrap()));
}

#[test]
fn the_minor_dimension_follows_the_layout() {
    // Column-major output: the inner loop runs along dimension 0, so a broadcast
    // along dimension 1 is the invariant one.
    let (m, inv) = analysis(
        "HloModule m
ENTRY main {
  x = f32[4,8]{0,1} parameter(0)
  v = f32[4]{0} parameter(1)
  w = f32[8]{0} parameter(2)
  bv = f32[4,8]{0,1} broadcast(v), dimensions={0}
  bw = f32[4,8]{0,1} broadcast(w), dimensions={1}
  a = f32[4,8]{0,1} add(x, bv)
  ROOT m = f32[4,8]{0,1} multiply(a, bw)
}",
    );
    let c = m.entry_computation();
    assert!(!inv.is_hoisted(c.find("bv").unwrap()));
    assert!(inv.is_hoisted(c.find("bw").unwrap()));
}

#[test]
fn a_broadcast_inside_a_reduction_is_hoisted_out_of_the_reduction_loop() {
    // Layernorm's variance: the mean is broadcast along the reduced dimension.
    let (m, inv) = analysis(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  mean = f32[4]{0} parameter(1)
  bm = f32[4,8]{1,0} broadcast(mean), dimensions={0}
  d = f32[4,8]{1,0} subtract(x, bm)
  sq = f32[4,8]{1,0} multiply(d, d)
  c = f32[] constant(0)
  ROOT var = f32[4]{0} reduce(sq, c), dimensions={1}, to_apply=add
}",
    );
    let c = m.entry_computation();
    assert!(inv.is_hoisted(c.find("bm").unwrap()));
    assert!(!inv.varies(c.find("mean").unwrap()));
}

#[test]
fn a_transpose_on_the_path_stops_hoisting() {
    let (m, inv) = analysis(
        "HloModule m
ENTRY main {
  v = f32[4]{0} parameter(0)
  b = f32[4,8]{1,0} broadcast(v), dimensions={0}
  ROOT t = f32[8,4]{1,0} transpose(b), dimensions={1,0}
}",
    );
    let c = m.entry_computation();
    assert!(!inv.is_hoisted(c.find("b").unwrap()));
}
