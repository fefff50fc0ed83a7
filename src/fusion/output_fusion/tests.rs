//! Tests of `output_fusion.rs`.

use super::*;
use crate::pipeline::testing::parse_verified;

fn check(hlo: &str) -> Result<(), &'static str> {
    let m = parse_verified(hlo);
    let comp = m.entry_computation();
    let dot = comp.find("dot").unwrap();
    let users = comp.users()[dot].clone();
    let consumer = users[0];
    let body = ConsumerBody::of(&m, comp, consumer);
    let param = body.parameter_for(dot).unwrap();
    check_dot_epilogue(comp.instr(dot), &users, consumer, &body, param)
}

#[test]
fn bias_add_is_an_epilogue() {
    assert_eq!(
        check(
            "HloModule m
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,3]{1,0} parameter(1)
  bias = f32[4,3]{1,0} parameter(2)
  dot = f32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT add = f32[4,3]{1,0} add(dot, bias)
}"
        ),
        Ok(())
    );
}

#[test]
fn transposed_dot_is_not_an_epilogue() {
    assert!(
        check(
            "HloModule m
ENTRY main {
  a = f32[4,4]{1,0} parameter(0)
  b = f32[4,4]{1,0} parameter(1)
  dot = f32[4,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,4]{1,0} transpose(dot), dimensions={1,0}
}"
        )
        .is_err()
    );
}

#[test]
fn a_bitcast_between_the_dot_and_its_epilogue_is_fine() {
    assert_eq!(
        check(
            "HloModule m
ENTRY main {
  a = f32[8,32]{1,0} parameter(0)
  w = f32[32,16]{1,0} parameter(1)
  b = f32[16]{0} parameter(2)
  dot = f32[8,16]{1,0} dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[2,4,16]{2,1,0} bitcast(dot)
  bb = f32[2,4,16]{2,1,0} broadcast(b), dimensions={2}
  ROOT add = f32[2,4,16]{2,1,0} add(r, bb)
}"
        ),
        Ok(())
    );
}

#[test]
fn an_elementwise_op_in_another_layout_is_not_an_epilogue() {
    assert!(
        check(
            "HloModule m
ENTRY main {
  a = f32[4,8]{1,0} parameter(0)
  b = f32[8,4]{1,0} parameter(1)
  dot = f32[4,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[4,4]{0,1} negate(dot)
}"
        )
        .is_err()
    );
}
