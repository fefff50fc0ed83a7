//! Tests of `convert.rs`.

use super::{fires, stays};
use crate::ir::PrimitiveType as P;
use crate::pipeline::algsimp::convert::cast_preserves_values;

#[test]
fn which_casts_preserve_values() {
    // From the ranges of the types: s8 is [-128, 127], u8 [0, 255], bf16 has an
    // 8-bit significand, f16 an 11-bit one, f32 24 bits, f64 53 bits.
    assert!(cast_preserves_values(P::F32, P::F64));
    assert!(!cast_preserves_values(P::F64, P::F32));
    assert!(!cast_preserves_values(P::F16, P::BF16));
    assert!(cast_preserves_values(P::S8, P::S32));
    assert!(!cast_preserves_values(P::S8, P::U32));
    assert!(cast_preserves_values(P::U8, P::S16));
    assert!(!cast_preserves_values(P::U8, P::S8));
    assert!(cast_preserves_values(P::U8, P::BF16));
    assert!(!cast_preserves_values(P::S32, P::F32));
    assert!(cast_preserves_values(P::S32, P::F64));
    assert!(cast_preserves_values(P::Pred, P::F16));
    assert!(!cast_preserves_values(P::S32, P::Pred));
    assert!(cast_preserves_values(P::F32, P::C64));
    assert!(!cast_preserves_values(P::C64, P::F32));
}

#[test]
fn round_trips_through_wider_types_vanish() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  q = s8[3]{0} parameter(1)
  w = f64[3]{0} convert(p)
  n = f32[3]{0} convert(w)
  same = s8[3]{0} convert(q)
  a = s32[3]{0} convert(same)
  b = s8[3]{0} convert(a)
  ROOT t = (f32[3]{0}, s8[3]{0}) tuple(n, b)
}",
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  q = s8[3]{0} parameter(1)
  w = f64[3]{0} convert(p)
  n = f32[3]{0} convert(w)
  same = s8[3]{0} convert(q)
  a = s32[3]{0} convert(q)
  b = s8[3]{0} convert(a)
  ROOT t = (f32[3]{0}, s8[3]{0}) tuple(p, q)
}",
    );
}

#[test]
fn lossy_round_trips_stay() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  q = s32[3]{0} parameter(1)
  h = f16[3]{0} convert(p)
  n = f32[3]{0} convert(h)
  b = s8[3]{0} convert(q)
  a = s32[3]{0} convert(b)
  r = f32[3]{0} convert(q)
  s = s32[3]{0} convert(r)
  ROOT t = (f32[3]{0}, s32[3]{0}, s32[3]{0}) tuple(n, a, s)
}",
    );
}
