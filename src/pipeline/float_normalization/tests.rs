//! Tests for `float-normalization-bf16`. Expected texts are written by hand from XLA's
//! rule (every bf16 operand converted to f32, every bf16 result computed in f32 and
//! converted back); the harness checks the results stay bit-equal.

use super::FloatNormalization;
use crate::eval::compare::Tolerance;
use crate::pipeline::testing::{check_pass, check_pass_with_tolerance, check_unchanged};

#[test]
fn add_computes_in_f32() {
    check_pass(
        FloatNormalization::bf16(),
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  b = bf16[4]{0} parameter(1)
  ROOT add = bf16[4]{0} add(a, b)
}",
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  b = bf16[4]{0} parameter(1)
  convert = f32[4]{0} convert(a)
  convert.1 = f32[4]{0} convert(b)
  add = f32[4]{0} add(convert, convert.1)
  ROOT convert.2 = bf16[4]{0} convert(add)
}",
    );
}

#[test]
fn a_convert_back_to_f32_reads_the_f32_result() {
    // Excess precision: the product's user converts it to f32, so it reads the f32
    // product and the bf16 rounding goes (XLA:CPU's dump of this program fuses
    // `multiply` straight into `add`). The interpreter rounds the product, so the results
    // agree to bf16 precision only. The round trip is left dead for DCE.
    check_pass_with_tolerance(
        FloatNormalization::bf16(),
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  b = bf16[4]{0} parameter(1)
  mul = bf16[4]{0} multiply(a, b)
  wide = f32[4]{0} convert(mul)
  c = f32[4]{0} parameter(2)
  ROOT add = f32[4]{0} add(wide, c)
}",
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  b = bf16[4]{0} parameter(1)
  convert = f32[4]{0} convert(a)
  convert.1 = f32[4]{0} convert(b)
  mul = f32[4]{0} multiply(convert, convert.1)
  convert.2 = bf16[4]{0} convert(mul)
  wide = f32[4]{0} convert(convert.2)
  c = f32[4]{0} parameter(2)
  ROOT add = f32[4]{0} add(mul, c)
}",
        Tolerance::for_type(crate::ir::PrimitiveType::BF16),
    );
}

#[test]
fn data_movement_and_compare_compute_in_f32() {
    // Plain FloatSupport supports no data movement in bf16 either: XLA:CPU's own dump of
    // testdata/bf16_mixed slices in f32 between two converts.
    check_pass(
        FloatNormalization::bf16(),
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  s = bf16[2]{0} slice(a), slice={[0:2]}
  b = bf16[2]{0} parameter(1)
  ROOT lt = pred[2]{0} compare(s, b), direction=LT
}",
        "
HloModule m
ENTRY main {
  a = bf16[4]{0} parameter(0)
  convert = f32[4]{0} convert(a)
  s = f32[2]{0} slice(convert), slice={[0:2]}
  convert.1 = bf16[2]{0} convert(s)
  b = bf16[2]{0} parameter(1)
  convert.2 = f32[2]{0} convert(convert.1)
  convert.3 = f32[2]{0} convert(b)
  ROOT lt = pred[2]{0} compare(convert.2, convert.3), direction=LT
}",
    );
}

#[test]
fn dots_compute_in_f32_and_round_once() {
    // bf16 x bf16 -> bf16 and -> f32: the interpreter accumulates both in f32, so the
    // rewrite is exact.
    check_pass(
        FloatNormalization::bf16(),
        "
HloModule m
ENTRY main {
  x = bf16[2,3]{1,0} parameter(0)
  w = bf16[3,4]{1,0} parameter(1)
  d = bf16[2,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[2,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (bf16[2,4]{1,0}, f32[2,4]{1,0}) tuple(d, e)
}",
        "
HloModule m
ENTRY main {
  x = bf16[2,3]{1,0} parameter(0)
  w = bf16[3,4]{1,0} parameter(1)
  convert = f32[2,3]{1,0} convert(x)
  convert.1 = f32[3,4]{1,0} convert(w)
  d = f32[2,4]{1,0} dot(convert, convert.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  convert.2 = bf16[2,4]{1,0} convert(d)
  convert.3 = f32[2,3]{1,0} convert(x)
  convert.4 = f32[3,4]{1,0} convert(w)
  e = f32[2,4]{1,0} dot(convert.3, convert.4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (bf16[2,4]{1,0}, f32[2,4]{1,0}) tuple(convert.2, e)
}",
    );
}

#[test]
fn reduce_gets_an_f32_reducer_that_rounds_each_step() {
    // The reducer is normalized in place (callees first), then cloned with f32 edges.
    // The interpreter sums a bf16 add-reduce in f64 and rounds once; the expansion rounds
    // every step as XLA:CPU does, so the results agree only to bf16 precision.
    check_pass_with_tolerance(
        FloatNormalization::bf16(),
        "
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[4,8]{1,0} parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[4]{0} reduce(x, z), dimensions={1}, to_apply=add
}",
        "
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  convert = f32[] convert(a)
  convert.1 = f32[] convert(b)
  s = f32[] add(convert, convert.1)
  ROOT convert.2 = bf16[] convert(s)
}
add.1 {
  a = f32[] parameter(0)
  convert.3 = bf16[] convert(a)
  b = f32[] parameter(1)
  convert.4 = bf16[] convert(b)
  convert = f32[] convert(convert.3)
  convert.1 = f32[] convert(convert.4)
  s = f32[] add(convert, convert.1)
  convert.2 = bf16[] convert(s)
  ROOT convert.5 = f32[] convert(convert.2)
}
ENTRY main {
  x = bf16[4,8]{1,0} parameter(0)
  z = bf16[] constant(0)
  convert = f32[4,8]{1,0} convert(x)
  convert.1 = f32[] convert(z)
  r = f32[4]{0} reduce(convert, convert.1), dimensions={1}, to_apply=add.1
  ROOT convert.2 = bf16[4]{0} convert(r)
}",
        Tolerance {
            rtol: 2e-2,
            atol: 2e-2,
        },
    );
}

#[test]
fn sort_with_bf16_keys_is_exact() {
    check_pass(
        FloatNormalization::bf16(),
        "
HloModule m
cmp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = bf16[6]{0} parameter(0)
  k = s32[6]{0} iota(), iota_dimension=0
  ROOT s = (bf16[6]{0}, s32[6]{0}) sort(x, k), dimensions={0}, is_stable=true, to_apply=cmp
}",
        "
HloModule m
cmp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  convert = f32[] convert(a)
  convert.1 = f32[] convert(b)
  ROOT gt = pred[] compare(convert, convert.1), direction=GT
}
cmp.1 {
  a = f32[] parameter(0)
  convert.2 = bf16[] convert(a)
  b = f32[] parameter(1)
  convert.3 = bf16[] convert(b)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  convert = f32[] convert(convert.2)
  convert.1 = f32[] convert(convert.3)
  ROOT gt = pred[] compare(convert, convert.1), direction=GT
}
ENTRY main {
  x = bf16[6]{0} parameter(0)
  k = s32[6]{0} iota(), iota_dimension=0
  convert = f32[6]{0} convert(x)
  s = (f32[6]{0}, s32[6]{0}) sort(convert, k), dimensions={0}, is_stable=true, to_apply=cmp.1
  get-tuple-element = f32[6]{0} get-tuple-element(s), index=0
  convert.1 = bf16[6]{0} convert(get-tuple-element)
  get-tuple-element.1 = s32[6]{0} get-tuple-element(s), index=1
  ROOT tuple = (bf16[6]{0}, s32[6]{0}) tuple(convert.1, get-tuple-element.1)
}",
    );
}

#[test]
fn leaves_plumbing_and_wide_types_alone() {
    // Parameters, converts, tuples, get-tuple-element, calls and while loops pass bf16
    // through; f32 and f16 arithmetic is not this pass's business.
    check_unchanged(
        FloatNormalization::bf16(),
        "
HloModule m
id {
  ROOT p = (bf16[4]{0}, f32[4]{0}) parameter(0)
}
ENTRY main {
  a = bf16[4]{0} parameter(0)
  b = f32[4]{0} convert(a)
  h = f16[4]{0} parameter(1)
  hh = f16[4]{0} multiply(h, h)
  bb = f32[4]{0} add(b, b)
  t = (bf16[4]{0}, f32[4]{0}) tuple(a, bb)
  c = (bf16[4]{0}, f32[4]{0}) call(t), to_apply=id
  g = bf16[4]{0} get-tuple-element(c), index=0
  ROOT r = (bf16[4]{0}, f16[4]{0}) tuple(g, hh)
}",
    );
}

#[test]
fn while_body_arithmetic_is_normalized_but_the_loop_is_not() {
    check_pass(
        FloatNormalization::bf16(),
        "
HloModule m
cond {
  p = (s32[], bf16[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], bf16[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = bf16[2]{0} get-tuple-element(p), index=1
  y = bf16[2]{0} multiply(x, x)
  ROOT t = (s32[], bf16[2]{0}) tuple(i1, y)
}
ENTRY main {
  x = bf16[2]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], bf16[2]{0}) tuple(z, x)
  ROOT w = (s32[], bf16[2]{0}) while(t), condition=cond, body=body
}",
        "
HloModule m
cond {
  p = (s32[], bf16[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], bf16[2]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = bf16[2]{0} get-tuple-element(p), index=1
  convert = f32[2]{0} convert(x)
  convert.1 = f32[2]{0} convert(x)
  y = f32[2]{0} multiply(convert, convert.1)
  convert.2 = bf16[2]{0} convert(y)
  ROOT t = (s32[], bf16[2]{0}) tuple(i1, convert.2)
}
ENTRY main {
  x = bf16[2]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], bf16[2]{0}) tuple(z, x)
  ROOT w = (s32[], bf16[2]{0}) while(t), condition=cond, body=body
}",
    );
}

#[test]
fn pass_is_named_after_the_low_type() {
    use crate::ir::PrimitiveType;
    use crate::pipeline::Pass;
    assert_eq!(
        FloatNormalization::bf16().name(),
        "float-normalization-bf16"
    );
    assert_eq!(
        FloatNormalization::new(PrimitiveType::F16, PrimitiveType::F32).name(),
        "float-normalization-f16"
    );
}
