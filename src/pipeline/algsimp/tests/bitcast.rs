//! Tests of `bitcast.rs`.

use crate::pipeline::algsimp::AlgebraicSimplifier;
use crate::pipeline::testing::{check_pass, check_unchanged};

// The replaced instruction stays, dead, for `dce` (as in every algsimp test).
#[test]
fn row_major_reshape_becomes_bitcast() {
    check_pass(
        AlgebraicSimplifier::layout_sensitive(),
        "
HloModule m
ENTRY main {
  p0 = f32[2,6]{1,0} parameter(0)
  ROOT r = f32[3,4]{1,0} reshape(p0)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[2,6]{1,0} parameter(0)
  ROOT bitcast = f32[3,4]{1,0} bitcast(p0)
  r = f32[3,4]{1,0} reshape(p0)
}",
    );
}

#[test]
fn reshape_of_a_column_major_operand_stays() {
    check_unchanged(
        AlgebraicSimplifier::layout_sensitive(),
        "
HloModule m
ENTRY main {
  p0 = f32[2,6]{0,1} parameter(0)
  ROOT r = f32[3,4]{1,0} reshape(p0)
}",
    );
}

#[test]
fn transpose_into_the_matching_layout_becomes_bitcast() {
    check_pass(
        AlgebraicSimplifier::layout_sensitive(),
        "
HloModule m
ENTRY main {
  p0 = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(p0), dimensions={1,0}
}",
        "
HloModule m
ENTRY main {
  p0 = f32[2,3]{1,0} parameter(0)
  ROOT bitcast = f32[3,2]{0,1} bitcast(p0)
  t = f32[3,2]{0,1} transpose(p0), dimensions={1,0}
}",
    );
    check_unchanged(
        AlgebraicSimplifier::layout_sensitive(),
        "
HloModule m
ENTRY main {
  p0 = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
}",
    );
}

#[test]
fn layout_insensitive_mode_keeps_reshapes() {
    check_unchanged(
        AlgebraicSimplifier::new(),
        "
HloModule m
ENTRY main {
  p0 = f32[2,6]{1,0} parameter(0)
  ROOT r = f32[3,4]{1,0} reshape(p0)
}",
    );
}
