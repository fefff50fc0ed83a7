//! Tests of `dot.rs`.

use super::{fires, stays};

#[test]
fn outer_product_is_a_multiply_of_broadcasts() {
    fires(
        "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}
}",
        "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  broadcast = f32[3,4]{1,0} broadcast(x), dimensions={0}
  broadcast.1 = f32[3,4]{1,0} broadcast(y), dimensions={1}
  ROOT multiply = f32[3,4]{1,0} multiply(broadcast, broadcast.1)
  d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}
}",
    );
}

#[test]
fn batched_outer_product_with_mixed_types() {
    // bf16 operands into an f32 dot: the operands are transposed batch-first and
    // converted to f32, as the dot converts them.
    fires(
        "
HloModule m
ENTRY main {
  x = bf16[3,2]{1,0} parameter(0)
  y = bf16[2,5]{1,0} parameter(1)
  d = f32[2,3,5]{2,1,0} dot(x, y), lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={}, rhs_contracting_dims={}
  ROOT n = f32[2,3,5]{2,1,0} negate(d)
}",
        "
HloModule m
ENTRY main {
  x = bf16[3,2]{1,0} parameter(0)
  y = bf16[2,5]{1,0} parameter(1)
  transpose = bf16[2,3]{1,0} transpose(x), dimensions={1,0}
  convert = f32[2,3]{1,0} convert(transpose)
  broadcast = f32[2,3,5]{2,1,0} broadcast(convert), dimensions={0,1}
  convert.1 = f32[2,5]{1,0} convert(y)
  broadcast.1 = f32[2,3,5]{2,1,0} broadcast(convert.1), dimensions={0,2}
  multiply = f32[2,3,5]{2,1,0} multiply(broadcast, broadcast.1)
  d = f32[2,3,5]{2,1,0} dot(x, y), lhs_batch_dims={1}, lhs_contracting_dims={}, rhs_batch_dims={0}, rhs_contracting_dims={}
  ROOT n = f32[2,3,5]{2,1,0} negate(multiply)
}",
    );
}

#[test]
fn size_one_contracting_dim_goes_in_two_rounds() {
    // Round 1 drops the 1-sized contracting dims; round 2 (not run here) makes the
    // remaining outer product a multiply.
    fires(
        "
HloModule m
ENTRY main {
  x = f32[3,1]{1,0} parameter(0)
  y = f32[1,4]{1,0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        "
HloModule m
ENTRY main {
  x = f32[3,1]{1,0} parameter(0)
  y = f32[1,4]{1,0} parameter(1)
  reshape = f32[3]{0} reshape(x)
  reshape.1 = f32[4]{0} reshape(y)
  ROOT dot = f32[3,4]{1,0} dot(reshape, reshape.1), lhs_contracting_dims={}, rhs_contracting_dims={}
  d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
}

#[test]
fn vector_matrix_dot_loses_its_one_sized_row() {
    fires(
        "
HloModule m
ENTRY main {
  x = f32[1,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  d = f32[1,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[1,4]{1,0} negate(d)
}",
        "
HloModule m
ENTRY main {
  x = f32[1,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  reshape = f32[3]{0} reshape(x)
  dot = f32[4]{0} dot(reshape, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  reshape.1 = f32[1,4]{1,0} reshape(dot)
  d = f32[1,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[1,4]{1,0} negate(reshape.1)
}",
    );
}

#[test]
fn matrix_product_stays() {
    stays(
        "
HloModule m
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[3,4]{1,0} parameter(1)
  ROOT d = f32[2,4]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
}

#[test]
fn outer_product_with_a_special_algorithm_stays_a_dot() {
    stays(
        "
HloModule m
ENTRY main {
  x = f32[3]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT d = f32[3,4]{1,0} dot(x, y), lhs_contracting_dims={}, rhs_contracting_dims={}, algorithm=dot_bf16_bf16_f32
}",
    );
}
