//! Tests of `reduce.rs`.

use super::{fires, stays};

const ADD: &str = "
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}";

#[test]
fn reduce_over_a_one_sized_dimension_is_a_reshape() {
    fires(
        &format!(
            "HloModule m{ADD}
ENTRY main {{
  x = f32[3,1]{{1,0}} parameter(0)
  z = f32[] constant(0)
  r = f32[3]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
  ROOT n = f32[3]{{0}} negate(r)
}}"
        ),
        &format!(
            "HloModule m{ADD}
ENTRY main {{
  x = f32[3,1]{{1,0}} parameter(0)
  z = f32[] constant(0)
  reshape = f32[3]{{0}} reshape(x)
  r = f32[3]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
  ROOT n = f32[3]{{0}} negate(reshape)
}}"
        ),
    );
}

#[test]
fn reduce_of_empty_is_the_init() {
    fires(
        &format!(
            "HloModule m{ADD}
ENTRY main {{
  x = f32[3,0]{{1,0}} parameter(0)
  z = f32[] constant(0)
  r = f32[3]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
  ROOT n = f32[3]{{0}} negate(r)
}}"
        ),
        &format!(
            "HloModule m{ADD}
ENTRY main {{
  x = f32[3,0]{{1,0}} parameter(0)
  z = f32[] constant(0)
  broadcast = f32[3]{{0}} broadcast(z), dimensions={{}}
  r = f32[3]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
  ROOT n = f32[3]{{0}} negate(broadcast)
}}"
        ),
    );
}

#[test]
fn real_reduce_stays() {
    stays(&format!(
        "HloModule m{ADD}
ENTRY main {{
  x = f32[3,2]{{1,0}} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
}}"
    ));
}

#[test]
fn variadic_reduce_over_nothing_is_a_tuple_of_reshapes() {
    fires(
        "
HloModule m
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[4]{0} iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[4]{0}, s32[4]{0}) reduce(x, i, lo, z), dimensions={}, to_apply=argmax
}",
        "
HloModule m
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY main {
  x = f32[4]{0} parameter(0)
  i = s32[4]{0} iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  reshape = f32[4]{0} reshape(x)
  reshape.1 = s32[4]{0} reshape(i)
  ROOT tuple = (f32[4]{0}, s32[4]{0}) tuple(reshape, reshape.1)
  r = (f32[4]{0}, s32[4]{0}) reduce(x, i, lo, z), dimensions={}, to_apply=argmax
}",
    );
}
