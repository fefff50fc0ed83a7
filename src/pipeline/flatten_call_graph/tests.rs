//! Tests of `flatten_call_graph.rs`.

use super::*;
use crate::pipeline::testing::{check_pass, check_unchanged};

#[test]
fn clones_a_computation_called_twice() {
    check_pass(
        FlattenCallGraph,
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
        "
HloModule m
f {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
f.clone {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY main {
  x = f32[] parameter(0)
  c1 = f32[] call(x), to_apply=f
  ROOT c2 = f32[] call(c1), to_apply=f.clone
}",
    );
}

#[test]
fn clones_the_control_flow_subtree_but_not_embedded_callees() {
    // `body` is called by two whiles; its clone gets its own clone of `g` (a call)
    // but shares `add` (a reducer).
    check_pass(
        FlattenCallGraph,
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
g {
  v = f32[2]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT b = f32[2]{0} broadcast(r), dimensions={}
}
body {
  s = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} call(s), to_apply=g
}
cond {
  s = f32[2]{0} parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  w1 = f32[2]{0} while(x), condition=cond, body=body
  ROOT w2 = f32[2]{0} while(w1), condition=cond, body=body
}",
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
g {
  v = f32[2]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT b = f32[2]{0} broadcast(r), dimensions={}
}
body {
  s = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} call(s), to_apply=g
}
cond {
  s = f32[2]{0} parameter(0)
  ROOT f = pred[] constant(false)
}
cond.clone {
  s = f32[2]{0} parameter(0)
  ROOT f = pred[] constant(false)
}
g.clone {
  v = f32[2]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT b = f32[2]{0} broadcast(r), dimensions={}
}
body.clone {
  s = f32[2]{0} parameter(0)
  ROOT c = f32[2]{0} call(s), to_apply=g.clone
}
ENTRY main {
  x = f32[2]{0} parameter(0)
  w1 = f32[2]{0} while(x), condition=cond, body=body
  ROOT w2 = f32[2]{0} while(w1), condition=cond.clone, body=body.clone
}",
    );
}

#[test]
fn clones_every_control_flow_site_of_a_computation_also_used_embedded() {
    check_pass(
        FlattenCallGraph,
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  v = f32[3]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT c = f32[] call(r, z), to_apply=add
}",
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add.clone {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  v = f32[3]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT c = f32[] call(r, z), to_apply=add.clone
}",
    );
}

#[test]
fn leaves_shared_reducers_and_single_callers_alone() {
    check_unchanged(
        FlattenCallGraph,
        "
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
f {
  a = f32[3]{0} parameter(0)
  ROOT n = f32[3]{0} negate(a)
}
ENTRY main {
  v = f32[3]{0} parameter(0)
  z = f32[] constant(0)
  c = f32[3]{0} call(v), to_apply=f
  r1 = f32[] reduce(v, z), dimensions={0}, to_apply=add
  r2 = f32[] reduce(c, z), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[]) tuple(r1, r2)
}",
    );
}
