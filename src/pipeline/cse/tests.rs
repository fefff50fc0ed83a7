//! Tests of `cse.rs`.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

#[test]
fn merges_identical_instructions_and_their_users() {
    check_pass(
        Cse,
        "
HloModule m
ENTRY main {
  p = f32[4]{0} parameter(0)
  e1 = f32[4]{0} exponential(p)
  e2 = f32[4]{0} exponential(p)
  n1 = f32[4]{0} negate(e1)
  n2 = f32[4]{0} negate(e2)
  ROOT r = f32[4]{0} add(n1, n2)
}",
        "
HloModule m
ENTRY main {
  p = f32[4]{0} parameter(0)
  e1 = f32[4]{0} exponential(p)
  n1 = f32[4]{0} negate(e1)
  ROOT r = f32[4]{0} add(n1, n1)
}",
    );
}

#[test]
fn merges_commutative_operands_in_either_order() {
    check_pass(
        Cse,
        "
HloModule m
ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  x = f32[4]{0} multiply(a, b)
  y = f32[4]{0} multiply(b, a)
  ROOT r = f32[4]{0} subtract(x, y)
}",
        "
HloModule m
ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  x = f32[4]{0} multiply(a, b)
  ROOT r = f32[4]{0} subtract(x, x)
}",
    );
}

#[test]
fn merges_equal_constants_and_iotas() {
    check_pass(
        Cse,
        "
HloModule m
ENTRY main {
  c1 = f32[3]{0} constant({1, 2, 3})
  c2 = f32[3]{0} constant({1, 2, 3})
  i1 = s32[3]{0} iota(), iota_dimension=0
  i2 = s32[3]{0} iota(), iota_dimension=0
  a = f32[3]{0} add(c1, c2)
  ci1 = f32[3]{0} convert(i1)
  ci2 = f32[3]{0} convert(i2)
  ROOT t = (f32[3]{0}, f32[3]{0}, f32[3]{0}) tuple(a, ci1, ci2)
}",
        "
HloModule m
ENTRY main {
  c1 = f32[3]{0} constant({1, 2, 3})
  i1 = s32[3]{0} iota(), iota_dimension=0
  a = f32[3]{0} add(c1, c1)
  ci1 = f32[3]{0} convert(i1)
  ROOT t = (f32[3]{0}, f32[3]{0}, f32[3]{0}) tuple(a, ci1, ci1)
}",
    );
}

#[test]
fn merges_reduces_whose_reducers_are_equal_but_separate() {
    check_pass(
        Cse,
        "
HloModule m
add.1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add.2 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT t = f32[] add(x, y)
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add.1
  r2 = f32[] reduce(p, z), dimensions={0}, to_apply=add.2
  ROOT m = f32[] multiply(r1, r2)
}",
        "
HloModule m
add.1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add.2 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT t = f32[] add(x, y)
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add.1
  ROOT m = f32[] multiply(r1, r1)
}",
    );
}

#[test]
fn keeps_constants_that_differ_only_in_sign_of_zero_or_nan_bits() {
    check_unchanged(
        Cse,
        "
HloModule m
ENTRY main {
  z = f32[] constant(0)
  nz = f32[] constant(-0)
  n1 = f32[] constant(nan)
  n2 = f32[] constant(-nan)
  ROOT t = (f32[], f32[], f32[], f32[]) tuple(z, nz, n1, n2)
}",
    );
}

#[test]
fn keeps_different_attributes_layouts_and_reducers() {
    check_unchanged(
        Cse,
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  z = f32[] constant(0)
  t1 = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  t2 = f32[3,2]{0,1} transpose(p), dimensions={1,0}
  s1 = f32[2,2]{1,0} slice(p), slice={[0:2], [0:2]}
  s2 = f32[2,2]{1,0} slice(p), slice={[0:2], [1:3]}
  r1 = f32[2]{0} reduce(p, z), dimensions={1}, to_apply=add
  r2 = f32[2]{0} reduce(p, z), dimensions={1}, to_apply=mul
  ROOT t = (f32[3,2]{1,0}, f32[3,2]{0,1}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2]{0}, f32[2]{0}) tuple(t1, t2, s1, s2, r1, r2)
}",
    );
}

#[test]
fn keeps_float_max_with_swapped_operands_and_rng() {
    check_unchanged(
        Cse,
        "
HloModule m
ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  m1 = f32[4]{0} maximum(a, b)
  m2 = f32[4]{0} maximum(b, a)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(m1, m2)
}",
    );
}

#[test]
fn merges_integer_max_with_swapped_operands() {
    check_pass(
        Cse,
        "
HloModule m
ENTRY main {
  a = s32[4]{0} parameter(0)
  b = s32[4]{0} parameter(1)
  m1 = s32[4]{0} maximum(a, b)
  m2 = s32[4]{0} maximum(b, a)
  ROOT t = (s32[4]{0}, s32[4]{0}) tuple(m1, m2)
}",
        "
HloModule m
ENTRY main {
  a = s32[4]{0} parameter(0)
  b = s32[4]{0} parameter(1)
  m1 = s32[4]{0} maximum(a, b)
  ROOT t = (s32[4]{0}, s32[4]{0}) tuple(m1, m1)
}",
    );
}

#[test]
fn never_merges_parameters_or_side_effects() {
    check_unchanged(
        Cse,
        "
HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  r1 = f32[3]{0} rng(a, b), distribution=rng_uniform
  r2 = f32[3]{0} rng(a, b), distribution=rng_uniform
  ROOT t = (f32[], f32[], f32[3]{0}, f32[3]{0}) tuple(a, b, r1, r2)
}",
    );
}
