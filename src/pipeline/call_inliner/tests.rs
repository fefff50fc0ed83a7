//! Tests of `call_inliner.rs`.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

#[test]
fn inlines_a_jax_style_call() {
    check_pass(
        CallInliner::new(),
        "
HloModule m
relu.1 {
  x = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  b = f32[4]{0} broadcast(zero), dimensions={}
  ROOT max = f32[4]{0} maximum(x, b)
}
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  jit_relu_.2 = f32[4]{0} call(p0), to_apply=relu.1
  ROOT neg = f32[4]{0} negate(jit_relu_.2)
}",
        "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  b = f32[4]{0} broadcast(zero), dimensions={}
  max = f32[4]{0} maximum(p0, b)
  ROOT neg = f32[4]{0} negate(max)
}",
    );
}

#[test]
fn renames_clashing_names_and_maps_parameters_in_order() {
    // Parameter 1 is `a` and parameter 0 is `b`: the mapping goes by number.
    check_pass(
        CallInliner::new(),
        "
HloModule m
f {
  b = f32[] parameter(1)
  a = f32[] parameter(0)
  ROOT sub = f32[] subtract(a, b)
}
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  sub = f32[] add(x, y)
  c = f32[] call(sub, y), to_apply=f
  ROOT r = f32[] multiply(c, sub)
}",
        "
HloModule m
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  sub = f32[] add(x, y)
  sub.1 = f32[] subtract(sub, y)
  ROOT r = f32[] multiply(sub.1, sub)
}",
    );
}

#[test]
fn inlines_nested_calls_and_each_call_site() {
    check_pass(
        CallInliner::new(),
        "
HloModule m
inner {
  a = f32[] parameter(0)
  ROOT e = f32[] exponential(a)
}
outer {
  a = f32[] parameter(0)
  c = f32[] call(a), to_apply=inner
  ROOT n = f32[] negate(c)
}
ENTRY main {
  x = f32[] parameter(0)
  c1 = f32[] call(x), to_apply=outer
  c2 = f32[] call(c1), to_apply=outer
  ROOT t = (f32[], f32[]) tuple(c1, c2)
}",
        "
HloModule m
ENTRY main {
  x = f32[] parameter(0)
  e = f32[] exponential(x)
  n = f32[] negate(e)
  e.1 = f32[] exponential(n)
  n.1 = f32[] negate(e.1)
  ROOT t = (f32[], f32[]) tuple(n, n.1)
}",
    );
}

#[test]
fn a_callee_that_returns_its_parameter_disappears() {
    check_pass(
        CallInliner::new(),
        "
HloModule m
id {
  ROOT a = f32[2]{0} parameter(0)
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} call(x), to_apply=id
}",
        "
HloModule m
ENTRY main {
  ROOT x = f32[2]{0} parameter(0)
}",
    );
}

#[test]
fn inlines_xla_cpu_small_call() {
    check_pass(
        CallInliner::new(),
        r#"
HloModule m
f {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply=f, frontend_attributes={xla_cpu_small_call="true"}
}"#,
        "
HloModule m
ENTRY main {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}",
    );
}

#[test]
fn keeps_calls_marked_not_inlineable_or_with_backend_config() {
    check_unchanged(
        CallInliner::new(),
        r#"
HloModule m
f {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  x = f32[] parameter(0)
  c1 = f32[] call(x), to_apply=f, frontend_attributes={inlineable="false"}
  c2 = f32[] call(c1), to_apply=f, backend_config={"flag":true}
  ROOT t = (f32[], f32[]) tuple(c1, c2)
}"#,
    );
}

#[test]
fn single_call_site_mode_keeps_shared_callees() {
    check_unchanged(
        CallInliner {
            single_call_site: true,
            ..CallInliner::new()
        },
        "
HloModule m
f {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  x = f32[] parameter(0)
  c1 = f32[] call(x), to_apply=f
  ROOT c2 = f32[] call(c1), to_apply=f
}",
    );
}

#[test]
fn leaves_a_module_without_calls_alone() {
    check_unchanged(
        CallInliner::new(),
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}",
    );
}
