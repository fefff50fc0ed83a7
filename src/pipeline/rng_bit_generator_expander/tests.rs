//! Tests for `rng-bit-generator-expander`: the expansion must give exactly the bits of the
//! interpreter's `rng-bit-generator` (bit-exact with XLA:CPU) for every algorithm, state
//! size and output type, including the state written back.

use super::RngBitGeneratorExpander;
use crate::eval::compare::Tolerance;
use crate::ir::Opcode;
use crate::pipeline::testing::{check_expansion, check_unchanged};

/// A module that draws `out` bits with `algorithm` from a constant state of `n` words.
fn module(algorithm: &str, state: &str, out: &str) -> String {
    let n = state.split(',').count();
    format!(
        "
HloModule m
ENTRY main {{
  s = u64[{n}]{{0}} constant({{{state}}})
  ROOT r = (u64[{n}]{{0}}, {out}) rng-bit-generator(s), algorithm={algorithm}
}}"
    )
}

fn check(algorithm: &str, state: &str, out: &str) {
    let m = check_expansion(
        RngBitGeneratorExpander::cpu(),
        &module(algorithm, state, out),
        Tolerance::EXACT,
    );
    let main = m.entry_computation();
    assert!(!main.contains_opcode(Opcode::RngBitGenerator));
    assert!(main.contains_opcode(Opcode::Call));
}

#[test]
fn philox_u32_matches_the_interpreter() {
    // 4x6 = 24 words: six full blocks; 10 words: a partial last block.
    check("rng_philox", "42, 7", "u32[4,6]{1,0}");
    check(
        "rng_philox",
        "1234567890123, 18446744073709551615",
        "u32[10]{0}",
    );
}

#[test]
fn philox_three_word_state_carries_into_the_high_half() {
    // The low counter word is 2^64 - 2: blocks 2 and 3 carry into the high word.
    check("rng_philox", "5, 18446744073709551614, 9", "u32[16]{0}");
}

#[test]
fn philox_narrow_signed_and_wide_outputs() {
    check("rng_philox", "3, 4", "u8[10]{0}");
    check("rng_philox", "3, 4", "s16[3,3]{1,0}");
    check("rng_philox", "3, 4", "s32[5]{0}");
    check("rng_philox", "3, 4", "u64[3]{0}");
    check("rng_philox", "3, 4, 5", "s64[2,2]{1,0}");
}

#[test]
fn default_algorithm_is_philox() {
    check("rng_default", "11, 12", "u32[4,8]{1,0}");
}

#[test]
fn threefry_matches_the_interpreter() {
    check("rng_three_fry", "42, 7", "u32[4,6]{1,0}");
    // No even dimension: split along the first largest, with an odd tail.
    check("rng_three_fry", "42, 18446744073709551615", "u32[3,5]{1,0}");
    check("rng_three_fry", "42, 7", "u32[]");
    check("rng_three_fry", "1, 2", "u64[5]{0}");
    check("rng_three_fry", "1, 2", "u8[7]{0}");
}

#[test]
fn leaves_other_random_ops_alone() {
    check_unchanged(
        RngBitGeneratorExpander::cpu(),
        "
HloModule m
ENTRY main {
  a = f32[] constant(0)
  b = f32[] constant(1)
  ROOT r = f32[4]{0} rng(a, b), distribution=rng_uniform
}",
    );
}

#[test]
fn no_elements_leave_the_state_unchanged() {
    // jax 0.10.2 on CPU: `rng_bit_generator(key, (0,))` and `(3, 0)` return the key as the
    // new state, for Philox and ThreeFry alike.
    for (algorithm, state) in [
        ("rng_philox", "42, 7"),
        ("rng_philox", "5, 6, 7"),
        ("rng_three_fry", "42, 7"),
    ] {
        for out in ["u32[0]{0}", "u8[3,0]{1,0}", "u64[0,2]{1,0}"] {
            check(algorithm, state, out);
            let m = crate::front::hlo_text::parse_module(&module(algorithm, state, out), "t.hlo")
                .unwrap()
                .module;
            let mut m2 = m.clone();
            crate::pipeline::Pass::run(&mut RngBitGeneratorExpander::cpu(), &mut m2).unwrap();
            let run = |m: &crate::ir::Module| {
                crate::eval::evaluate(m, &[], &crate::eval::EvalOptions::default()).unwrap()
            };
            let crate::ir::Literal::Tuple(parts) = run(&m2) else {
                panic!("a tuple")
            };
            let s = m.entry_computation();
            let constant = s.instr(s.find("s").unwrap());
            let crate::ir::Op::Constant { literal } = &constant.op else {
                panic!("the state is a constant")
            };
            assert_eq!(&parts[0], literal, "{algorithm} {out}");
        }
    }
}
