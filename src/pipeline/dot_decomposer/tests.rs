//! Tests for `dot_decomposer`. Expected texts follow XLA's recipe by hand: transpose to
//! [batch, free, contracting] (lhs) / [batch, contracting, free] (rhs), reshape, canonical
//! dot, reshape back. The harness checks bit-equal results.

use super::DotDecomposer;
use crate::pipeline::testing::{check_pass, check_unchanged};

#[test]
fn merges_two_contracting_dims() {
    check_pass(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = f32[2,3,4]{2,1,0} parameter(0)
  b = f32[3,4,5]{2,1,0} parameter(1)
  ROOT d = f32[2,5]{1,0} dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
}",
        "
HloModule m
ENTRY main {
  a = f32[2,3,4]{2,1,0} parameter(0)
  b = f32[3,4,5]{2,1,0} parameter(1)
  transpose = f32[2,3,4]{2,1,0} transpose(a), dimensions={0,1,2}
  reshape = f32[2,12]{1,0} reshape(transpose)
  transpose.1 = f32[3,4,5]{2,1,0} transpose(b), dimensions={0,1,2}
  reshape.1 = f32[12,5]{1,0} reshape(transpose.1)
  dot = f32[2,5]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = f32[2,5]{1,0} reshape(dot)
}",
    );
}

#[test]
fn contracting_dims_listed_out_of_order_keep_their_pairing() {
    // lhs dims {2,1} pair with rhs dims {0,1}: the transposes put both in listed order.
    check_pass(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = f32[2,3,4]{2,1,0} parameter(0)
  b = f32[4,3,5]{2,1,0} parameter(1)
  ROOT d = f32[2,5]{1,0} dot(a, b), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}
}",
        "
HloModule m
ENTRY main {
  a = f32[2,3,4]{2,1,0} parameter(0)
  b = f32[4,3,5]{2,1,0} parameter(1)
  transpose = f32[2,4,3]{2,1,0} transpose(a), dimensions={0,2,1}
  reshape = f32[2,12]{1,0} reshape(transpose)
  transpose.1 = f32[4,3,5]{2,1,0} transpose(b), dimensions={0,1,2}
  reshape.1 = f32[12,5]{1,0} reshape(transpose.1)
  dot = f32[2,5]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = f32[2,5]{1,0} reshape(dot)
}",
    );
}

#[test]
fn moves_batch_dims_first_and_merges_free_dims() {
    check_pass(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = f32[3,2,4,5]{3,2,1,0} parameter(0)
  b = f32[2,5,6]{2,1,0} parameter(1)
  ROOT d = f32[2,3,4,6]{3,2,1,0} dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={3}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}",
        "
HloModule m
ENTRY main {
  a = f32[3,2,4,5]{3,2,1,0} parameter(0)
  b = f32[2,5,6]{2,1,0} parameter(1)
  transpose = f32[2,3,4,5]{3,2,1,0} transpose(a), dimensions={1,0,2,3}
  reshape = f32[2,12,5]{2,1,0} reshape(transpose)
  transpose.1 = f32[2,5,6]{2,1,0} transpose(b), dimensions={0,1,2}
  reshape.1 = f32[2,5,6]{2,1,0} reshape(transpose.1)
  dot = f32[2,12,6]{2,1,0} dot(reshape, reshape.1), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT d = f32[2,3,4,6]{3,2,1,0} reshape(dot)
}",
    );
}

#[test]
fn outer_product_gets_a_size_one_contracting_dim() {
    check_pass(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = f32[3]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(a, b)
}",
        "
HloModule m
ENTRY main {
  a = f32[3]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  transpose = f32[3]{0} transpose(a), dimensions={0}
  reshape = f32[3,1]{1,0} reshape(transpose)
  transpose.1 = f32[4]{0} transpose(b), dimensions={0}
  reshape.1 = f32[1,4]{1,0} reshape(transpose.1)
  dot = f32[3,4]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT d = f32[3,4]{1,0} reshape(dot)
}",
    );
}

#[test]
fn keeps_operand_types_and_precision() {
    check_pass(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = bf16[2,2,3]{2,1,0} parameter(0)
  b = bf16[2,3,4]{2,1,0} parameter(1)
  ROOT d = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, operand_precision={highest,highest}
}",
        "
HloModule m
ENTRY main {
  a = bf16[2,2,3]{2,1,0} parameter(0)
  b = bf16[2,3,4]{2,1,0} parameter(1)
  transpose = bf16[2,2,3]{2,1,0} transpose(a), dimensions={0,1,2}
  reshape = bf16[2,6]{1,0} reshape(transpose)
  transpose.1 = bf16[2,3,4]{2,1,0} transpose(b), dimensions={0,1,2}
  reshape.1 = bf16[6,4]{1,0} reshape(transpose.1)
  dot = f32[2,4]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,highest}
  ROOT d = f32[2,4]{1,0} reshape(dot)
}",
    );
}

#[test]
fn leaves_canonical_dots_alone() {
    check_unchanged(
        DotDecomposer,
        "
HloModule m
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[3,4]{1,0} parameter(1)
  c = f32[3,2]{1,0} parameter(2)
  v = f32[3]{0} parameter(3)
  x = f32[5,2,3]{2,1,0} parameter(4)
  y = f32[5,3,4]{2,1,0} parameter(5)
  mm = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  km = f32[2,4]{1,0} dot(c, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  mv = f32[2]{0} dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bmm = f32[5,2,4]{2,1,0} dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT t = (f32[2,4]{1,0}, f32[2,4]{1,0}, f32[2]{0}, f32[5,2,4]{2,1,0}) tuple(mm, km, mv, bmm)
}",
    );
}
