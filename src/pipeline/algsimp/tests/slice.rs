//! Tests of `slice.rs`.

use super::{fires, stays};

#[test]
fn whole_slice_and_slice_of_slice() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[10,4]{1,0} parameter(0)
  whole = f32[10,4]{1,0} slice(p), slice={[0:10], [0:4]}
  a = f32[6,4]{1,0} slice(whole), slice={[2:8], [0:4]}
  b = f32[3,2]{1,0} slice(a), slice={[1:4], [1:3]}
  ROOT n = f32[3,2]{1,0} negate(b)
}",
        "
HloModule m
ENTRY main {
  p = f32[10,4]{1,0} parameter(0)
  whole = f32[10,4]{1,0} slice(p), slice={[0:10], [0:4]}
  a = f32[6,4]{1,0} slice(p), slice={[2:8], [0:4]}
  slice = f32[3,2]{1,0} slice(p), slice={[3:6], [1:3]}
  b = f32[3,2]{1,0} slice(a), slice={[1:4], [1:3]}
  ROOT n = f32[3,2]{1,0} negate(slice)
}",
    );
}

#[test]
fn strided_slice_of_slice_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[10]{0} parameter(0)
  a = f32[5]{0} slice(p), slice={[0:10:2]}
  ROOT b = f32[2]{0} slice(a), slice={[1:3]}
}",
    );
}

#[test]
fn concatenates() {
    fires(
        "
HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  e = f32[0]{0} parameter(2)
  one = f32[2]{0} concatenate(x), dimensions={0}
  inner = f32[5]{0} concatenate(one, y), dimensions={0}
  outer = f32[7]{0} concatenate(inner, e, x), dimensions={0}
  ROOT n = f32[7]{0} negate(outer)
}",
        "
HloModule m
ENTRY main {
  x = f32[2]{0} parameter(0)
  y = f32[3]{0} parameter(1)
  e = f32[0]{0} parameter(2)
  one = f32[2]{0} concatenate(x), dimensions={0}
  inner = f32[5]{0} concatenate(x, y), dimensions={0}
  concatenate = f32[7]{0} concatenate(inner, x), dimensions={0}
  outer = f32[7]{0} concatenate(inner, e, x), dimensions={0}
  ROOT n = f32[7]{0} negate(concatenate)
}",
    );
}

#[test]
fn concatenate_along_another_dimension_stays_nested() {
    stays(
        "
HloModule m
ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  inner = f32[2,4]{1,0} concatenate(x, x), dimensions={1}
  ROOT outer = f32[4,4]{1,0} concatenate(inner, inner), dimensions={0}
}",
    );
}

#[test]
fn pads_that_add_nothing() {
    fires(
        "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(7)
  e = f32[0,3]{1,0} parameter(1)
  same = f32[2,3]{1,0} pad(x, v), padding=0_0x0_0
  all = f32[2,3]{1,0} pad(e, v), padding=1_1x0_0
  ROOT r = f32[2,3]{1,0} add(same, all)
}",
        "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(7)
  e = f32[0,3]{1,0} parameter(1)
  same = f32[2,3]{1,0} pad(x, v), padding=0_0x0_0
  broadcast = f32[2,3]{1,0} broadcast(v), dimensions={}
  all = f32[2,3]{1,0} pad(e, v), padding=1_1x0_0
  ROOT r = f32[2,3]{1,0} add(x, broadcast)
}",
    );
}

#[test]
fn real_pads_stay() {
    stays(
        "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[] constant(0)
  a = f32[2,5]{1,0} pad(x, v), padding=0_0x1_1
  ROOT b = f32[3,5]{1,0} pad(a, v), padding=0_0_1x0_0
}",
    );
}

#[test]
fn dynamic_slice_at_constants_is_a_clamped_slice() {
    // Start 9 in a dimension of 10 with size 4 clamps to 6, as dynamic-slice does.
    fires(
        "
HloModule m
ENTRY main {
  x = f32[10,5]{1,0} parameter(0)
  i = s32[] constant(9)
  j = s32[] constant(1)
  ds = f32[4,2]{1,0} dynamic-slice(x, i, j), dynamic_slice_sizes={4,2}
  ROOT n = f32[4,2]{1,0} negate(ds)
}",
        "
HloModule m
ENTRY main {
  x = f32[10,5]{1,0} parameter(0)
  i = s32[] constant(9)
  j = s32[] constant(1)
  slice = f32[4,2]{1,0} slice(x), slice={[6:10], [1:3]}
  ds = f32[4,2]{1,0} dynamic-slice(x, i, j), dynamic_slice_sizes={4,2}
  ROOT n = f32[4,2]{1,0} negate(slice)
}",
    );
}

#[test]
fn dynamic_slice_at_variable_or_negative_starts_stays() {
    stays(
        "
HloModule m
ENTRY main {
  x = f32[10]{0} parameter(0)
  i = s32[] parameter(1)
  neg = s32[] constant(-1)
  a = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  b = f32[4]{0} dynamic-slice(x, neg), dynamic_slice_sizes={4}
  ROOT r = f32[4]{0} add(a, b)
}",
    );
}

#[test]
fn dynamic_slice_of_everything_is_the_operand() {
    fires(
        "
HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[] parameter(1)
  ds = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  ROOT n = f32[4]{0} negate(ds)
}",
        "
HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[] parameter(1)
  ds = f32[4]{0} dynamic-slice(x, i), dynamic_slice_sizes={4}
  ROOT n = f32[4]{0} negate(x)
}",
    );
}
