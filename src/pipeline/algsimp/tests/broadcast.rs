//! Tests of `broadcast.rs`.

use super::{fires, stays};
use crate::pipeline::algsimp::broadcast::inserted_degenerate_dims;

#[test]
fn degenerate_dims_inserted() {
    assert_eq!(inserted_degenerate_dims(&[32], &[1, 32]), Some(vec![0]));
    assert_eq!(
        inserted_degenerate_dims(&[2, 3], &[2, 1, 3, 1]),
        Some(vec![1, 3])
    );
    assert_eq!(inserted_degenerate_dims(&[1, 3], &[3]), None);
    assert_eq!(inserted_degenerate_dims(&[6], &[2, 3]), None);
}

#[test]
fn jax_bias_broadcast_chain() {
    // JAX's broadcast_in_dim of a bias: reshape to [1,32], a broadcast that keeps the
    // element count (=> reshape), reshape back, broadcast to [8,32].
    fires(
        "
HloModule m
ENTRY main {
  b = f32[32]{0} parameter(0)
  r1 = f32[1,32]{1,0} reshape(b)
  bc = f32[1,32]{1,0} broadcast(r1), dimensions={0,1}
  r2 = f32[32]{0} reshape(bc)
  ROOT out = f32[8,32]{1,0} broadcast(r2), dimensions={1}
}",
        "
HloModule m
ENTRY main {
  b = f32[32]{0} parameter(0)
  r1 = f32[1,32]{1,0} reshape(b)
  reshape = f32[1,32]{1,0} reshape(r1)
  bc = f32[1,32]{1,0} broadcast(r1), dimensions={0,1}
  reshape.1 = f32[32]{0} reshape(r1)
  r2 = f32[32]{0} reshape(reshape)
  ROOT out = f32[8,32]{1,0} broadcast(reshape.1), dimensions={1}
}",
    );
}

#[test]
fn broadcast_that_repeats_elements_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  ROOT b = f32[2,3]{1,0} broadcast(p), dimensions={1}
}",
    );
}

#[test]
fn unsorted_same_rank_broadcast_is_transpose() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{1,0} broadcast(p), dimensions={1,0}
}",
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT transpose = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  b = f32[3,2]{1,0} broadcast(p), dimensions={1,0}
}",
    );
}

#[test]
fn broadcast_of_broadcast_and_of_iota() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  b1 = f32[2,3]{1,0} broadcast(p), dimensions={1}
  b2 = f32[2,4,3]{2,1,0} broadcast(b1), dimensions={0,2}
  i = s32[4]{0} iota(), iota_dimension=0
  bi = s32[4,5]{1,0} broadcast(i), dimensions={0}
  ROOT t = (f32[2,4,3]{2,1,0}, s32[4,5]{1,0}) tuple(b2, bi)
}",
        "
HloModule m
ENTRY main {
  p = f32[3]{0} parameter(0)
  b1 = f32[2,3]{1,0} broadcast(p), dimensions={1}
  broadcast = f32[2,4,3]{2,1,0} broadcast(p), dimensions={2}
  b2 = f32[2,4,3]{2,1,0} broadcast(b1), dimensions={0,2}
  i = s32[4]{0} iota(), iota_dimension=0
  iota = s32[4,5]{1,0} iota(), iota_dimension=0
  bi = s32[4,5]{1,0} broadcast(i), dimensions={0}
  ROOT t = (f32[2,4,3]{2,1,0}, s32[4,5]{1,0}) tuple(broadcast, iota)
}",
    );
}

#[test]
fn broadcast_of_reshape_that_deletes_dims_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[1,3]{1,0} parameter(0)
  r = f32[3]{0} reshape(p)
  ROOT b = f32[2,3]{1,0} broadcast(r), dimensions={1}
}",
    );
}

#[test]
fn reshape_chains() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  r1 = f32[6]{0} reshape(p)
  r2 = f32[3,2]{1,0} reshape(r1)
  same = f32[3,2]{1,0} reshape(r2)
  ROOT n = f32[3,2]{1,0} negate(same)
}",
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  r1 = f32[6]{0} reshape(p)
  reshape = f32[3,2]{1,0} reshape(p)
  r2 = f32[3,2]{1,0} reshape(r1)
  same = f32[3,2]{1,0} reshape(reshape)
  ROOT n = f32[3,2]{1,0} negate(reshape)
}",
    );
}

#[test]
fn reshape_that_changes_layout_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[2,3]{0,1} reshape(p)
}",
    );
}

#[test]
fn transpose_chains_and_identity() {
    fires(
        "
HloModule m
ENTRY main {
  p = f32[2,3,4]{2,1,0} parameter(0)
  t1 = f32[3,4,2]{2,1,0} transpose(p), dimensions={1,2,0}
  t2 = f32[4,2,3]{2,1,0} transpose(t1), dimensions={1,2,0}
  id = f32[4,2,3]{2,1,0} transpose(t2), dimensions={0,1,2}
  ROOT n = f32[4,2,3]{2,1,0} negate(id)
}",
        "
HloModule m
ENTRY main {
  p = f32[2,3,4]{2,1,0} parameter(0)
  t1 = f32[3,4,2]{2,1,0} transpose(p), dimensions={1,2,0}
  transpose = f32[4,2,3]{2,1,0} transpose(p), dimensions={2,0,1}
  t2 = f32[4,2,3]{2,1,0} transpose(t1), dimensions={1,2,0}
  id = f32[4,2,3]{2,1,0} transpose(transpose), dimensions={0,1,2}
  ROOT n = f32[4,2,3]{2,1,0} negate(transpose)
}",
    );
}

#[test]
fn real_transpose_stays() {
    stays(
        "
HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT t = f32[3,2]{1,0} transpose(p), dimensions={1,0}
}",
    );
}
