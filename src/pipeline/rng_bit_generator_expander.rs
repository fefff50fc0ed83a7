//! `rng-bit-generator-expander`: replaces `rng-bit-generator` with a `call` of a
//! computation that computes the same bits with plain integer HLO (u32/u64 adds,
//! multiplies, shifts, xors, iota), so the compiled path needs no RNG kernel.
//! XLA: `xla/hlo/transforms/expanders/rng_bit_generator_expander.cc`, with the generators
//! of `xla/hlo/builder/lib/prng.cc` (`ThreeFryBitGenerator`, `PhiloxBitGenerator`).
//! `cpu_compiler.cc` runs it with Philox as the default, so `rng_default` means Philox.
//!
//! The state layout and the order in which generated words fill the output are those
//! documented in `src/eval/rng.rs` (the interpreter, bit-exact with XLA:CPU), which is
//! the oracle for the tests:
//! * Philox-4x32-10: block `b` encrypts the 128-bit counter `counter + b`; element `i` of
//!   a 32-bit output is word `i % 4` of block `i / 4`; a 64-bit element joins two words.
//!   The counter advances by the number of blocks.
//! * ThreeFry-2x32-20: block `b` encrypts the 64-bit counter `counter + b`; a 64-bit
//!   output takes one block per element; a 32-bit output is split in two along one
//!   dimension, the two words of a block landing next to each other along it.
//!
//! Each round is written out (unrolled), as XLA's builder code unrolls them. Narrow
//! outputs (u8, u16, s8, s16) and signed ones are the 32-bit words converted, which
//! keeps the low bits.

use super::op_expander::{
    HloText, array, find_instructions, import_computations, replace_with_call,
};
use super::{Pass, PassError};
use crate::ir::{ComputationId, InstrId, Module, Op, PrimitiveType, RandomAlgorithm};

/// Expands `rng-bit-generator` into integer arithmetic.
pub struct RngBitGeneratorExpander {
    /// What `rng_default` means (Philox on CPU).
    pub default_algorithm: RandomAlgorithm,
}

impl RngBitGeneratorExpander {
    /// The expander as `cpu_compiler.cc` configures it: `rng_default` is Philox.
    pub fn cpu() -> RngBitGeneratorExpander {
        RngBitGeneratorExpander {
            default_algorithm: RandomAlgorithm::Philox,
        }
    }
}

impl Pass for RngBitGeneratorExpander {
    fn name(&self) -> &'static str {
        "rng-bit-generator-expander"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let rngs = find_instructions(module, |op| matches!(op, Op::RngBitGenerator { .. }));
        for &(c, id) in &rngs {
            self.expand(module, c, id)?;
        }
        Ok(!rngs.is_empty())
    }
}

impl RngBitGeneratorExpander {
    /// Replaces one `rng-bit-generator` with a call of its generator computation.
    fn expand(&self, module: &mut Module, c: ComputationId, id: InstrId) -> Result<(), PassError> {
        let comp = &module.computations[c];
        let instr = &comp.instrs[id];
        let Op::RngBitGenerator { mut algorithm } = instr.op else {
            return Err(PassError::new("not an rng-bit-generator"));
        };
        if algorithm == RandomAlgorithm::Default {
            algorithm = self.default_algorithm;
        }
        let bad = || {
            PassError::new(format!(
                "{}: unsupported rng-bit-generator shape",
                instr.name
            ))
            .unsupported()
        };
        let state_len = match comp.instrs[instr.operands[0]].shape.dims() {
            [n] => *n,
            _ => return Err(bad()),
        };
        let out = match instr.shape.tuple_elements() {
            Some([_, out]) => out.as_array().ok_or_else(bad)?.clone(),
            _ => return Err(bad()),
        };
        let ty = out.element_type;
        if !ty.is_integral() || ![8, 16, 32, 64].contains(&ty.bit_width()) {
            return Err(bad());
        }
        let body = match algorithm {
            RandomAlgorithm::Philox | RandomAlgorithm::ThreeFry if out.element_count() == 0 => {
                no_bits(state_len, ty, &out.dims)
            }
            RandomAlgorithm::Philox if state_len == 2 || state_len == 3 => {
                philox(state_len, ty, &out.dims)
            }
            RandomAlgorithm::ThreeFry if state_len == 2 => threefry(ty, &out.dims),
            _ => return Err(bad()),
        };
        let text = format!("HloModule rng\nENTRY {body}");
        let callee = import_computations(module, &text, c)?;
        replace_with_call(module, c, id, callee);
        Ok(())
    }
}

/// The key, as the two u32 halves `(low, high)` broadcast to `dims`.
fn key_words(h: &mut HloText, key: &str, dims: &[i64]) -> [String; 2] {
    let (lo, hi) = split_u64(h, key, &[]);
    let lo = h.op(
        &array("u32", dims),
        &format!("broadcast({lo}), dimensions={{}}"),
    );
    let hi = h.op(
        &array("u32", dims),
        &format!("broadcast({hi}), dimensions={{}}"),
    );
    [lo, hi]
}

/// The low and high u32 halves of a u64 value of shape `dims`.
fn split_u64(h: &mut HloText, x: &str, dims: &[i64]) -> (String, String) {
    let (s64, s32) = (array("u64", dims), array("u32", dims));
    let lo = h.op(&s32, &format!("convert({x})"));
    let k32 = h.splat("u64", "32", dims);
    let shifted = h.binary(&s64, "shift-right-logical", x, &k32);
    let hi = h.op(&s32, &format!("convert({shifted})"));
    (lo, hi)
}

/// `lo | hi << 32` as u64.
fn join_u64(h: &mut HloText, lo: &str, hi: &str, dims: &[i64]) -> String {
    let s64 = array("u64", dims);
    let lo = h.op(&s64, &format!("convert({lo})"));
    let hi = h.op(&s64, &format!("convert({hi})"));
    let k32 = h.splat("u64", "32", dims);
    let hi = h.binary(&s64, "shift-left", &hi, &k32);
    h.binary(&s64, "or", &lo, &hi)
}

/// Element `index` of the `u64[n]` state as a scalar.
fn state_word(h: &mut HloText, index: usize) -> String {
    let s = h.op(
        "u64[1]",
        &format!("slice(state), slice={{[{index}:{}]}}", index + 1),
    );
    h.op("u64[]", &format!("reshape({s})"))
}

/// Philox: the whole generator computation for a `u64[state_len]` state.
fn philox(state_len: i64, ty: PrimitiveType, dims: &[i64]) -> String {
    let count: i64 = dims.iter().product();
    let wide = ty.bit_width() == 64;
    // Four 32-bit words per block; a 64-bit output element takes two.
    let words = if wide { 2 * count } else { count };
    let blocks = (words + 3) / 4;
    let b = [blocks];
    let (s64, s32) = (array("u64", &b), array("u32", &b));

    let mut h = HloText::new();
    h.parameter("state", &format!("u64[{state_len}]"), 0);
    let key = state_word(&mut h, 0);
    let low = state_word(&mut h, 1);
    let high = if state_len == 3 {
        state_word(&mut h, 2)
    } else {
        key.clone()
    };

    // Counters `(low, high) + b` for every block, carrying into the high half.
    let iota = h.op(&s64, "iota(), iota_dimension=0");
    let low_b = h.op(&s64, &format!("broadcast({low}), dimensions={{}}"));
    let high_b = h.op(&s64, &format!("broadcast({high}), dimensions={{}}"));
    let (c_low, c_high) = add_u128(&mut h, &low_b, &high_b, &iota, &b);
    let (x0, x1) = split_u64(&mut h, &c_low, &b);
    let (x2, x3) = split_u64(&mut h, &c_high, &b);
    let mut x = [x0, x1, x2, x3];
    let mut k = key_words(&mut h, &key, &b);

    for _ in 0..10 {
        let (hi0, lo0) = mul_hi_lo(&mut h, &x[0], "3528531795", &b); // 0xD2511F53
        let (hi1, lo1) = mul_hi_lo(&mut h, &x[2], "3449720151", &b); // 0xCD9E8D57
        let t = h.binary(&s32, "xor", &hi1, &x[1]);
        let n0 = h.binary(&s32, "xor", &t, &k[0]);
        let t = h.binary(&s32, "xor", &hi0, &x[3]);
        let n2 = h.binary(&s32, "xor", &t, &k[1]);
        x = [n0, lo1, n2, lo0];
        let wa = h.splat("u32", "2654435769", &b); // 0x9E3779B9
        let wb = h.splat("u32", "3144134277", &b); // 0xBB67AE85
        k = [
            h.binary(&s32, "add", &k[0], &wa),
            h.binary(&s32, "add", &k[1], &wb),
        ];
    }

    // Deal the words out: block-major, word-minor.
    let bits = if wide {
        let a = join_u64(&mut h, &x[0], &x[1], &b);
        let c = join_u64(&mut h, &x[2], &x[3], &b);
        interleave(&mut h, "u64", &[a, c], blocks, count)
    } else {
        interleave(&mut h, "u32", &x, blocks, count)
    };
    let bits = finish_bits(&mut h, &bits, ty, dims);

    // The new state: the key, then the counter advanced by the number of blocks.
    let n = h.op("u64[]", &format!("constant({blocks})"));
    let (new_low, new_high) = add_u128(&mut h, &low, &high, &n, &[]);
    let key1 = h.op("u64[1]", &format!("reshape({key})"));
    let low1 = h.op("u64[1]", &format!("reshape({new_low})"));
    let state = if state_len == 3 {
        let high1 = h.op("u64[1]", &format!("reshape({new_high})"));
        h.op(
            "u64[3]",
            &format!("concatenate({key1}, {low1}, {high1}), dimensions={{0}}"),
        )
    } else {
        h.op(
            "u64[2]",
            &format!("concatenate({key1}, {low1}), dimensions={{0}}"),
        )
    };
    let out = array(ty.name(), dims);
    h.finish(
        "philox",
        &format!("(u64[{state_len}], {out})"),
        &format!("tuple({state}, {bits})"),
    )
}

/// An output of no elements: no block is encrypted, so the state comes back unchanged (as
/// on XLA:CPU, whatever the algorithm).
fn no_bits(state_len: i64, ty: PrimitiveType, dims: &[i64]) -> String {
    let mut h = HloText::new();
    let state = h.parameter("state", &format!("u64[{state_len}]"), 0);
    let empty = h.splat(ty.name(), "0", dims);
    let out = array(ty.name(), dims);
    h.finish(
        "no_bits",
        &format!("(u64[{state_len}], {out})"),
        &format!("tuple({state}, {empty})"),
    )
}

/// 128-bit `(low, high) + n` for a u64 `n`: the low half wraps, the high half takes the carry.
fn add_u128(h: &mut HloText, low: &str, high: &str, n: &str, dims: &[i64]) -> (String, String) {
    let s64 = array("u64", dims);
    let new_low = h.binary(&s64, "add", low, n);
    let carried = h.op(
        &array("pred", dims),
        &format!("compare({new_low}, {low}), direction=LT"),
    );
    let carry = h.op(&s64, &format!("convert({carried})"));
    let new_high = h.binary(&s64, "add", high, &carry);
    (new_low, new_high)
}

/// The high and low u32 halves of `x * m` computed in u64.
fn mul_hi_lo(h: &mut HloText, x: &str, m: &str, dims: &[i64]) -> (String, String) {
    let wide = h.op(&array("u64", dims), &format!("convert({x})"));
    let m = h.splat("u64", m, dims);
    let p = h.binary(&array("u64", dims), "multiply", &wide, &m);
    let (lo, hi) = split_u64(h, &p, dims);
    (hi, lo)
}

/// Puts `parts` (each `[blocks]`) side by side per block and keeps the first `count`:
/// element `i` is part `i % parts.len()` of block `i / parts.len()`.
fn interleave(h: &mut HloText, ty: &str, parts: &[String], blocks: i64, count: i64) -> String {
    let n = parts.len() as i64;
    let columns: Vec<String> = parts
        .iter()
        .map(|p| h.op(&array(ty, &[blocks, 1]), &format!("reshape({p})")))
        .collect();
    let matrix = h.op(
        &array(ty, &[blocks, n]),
        &format!("concatenate({}), dimensions={{1}}", columns.join(", ")),
    );
    let flat = h.op(&array(ty, &[blocks * n]), &format!("reshape({matrix})"));
    h.op(
        &array(ty, &[count]),
        &format!("slice({flat}), slice={{[0:{count}]}}"),
    )
}

/// Reshapes the flat bits to `dims` and converts them to the output type.
fn finish_bits(h: &mut HloText, flat: &str, ty: PrimitiveType, dims: &[i64]) -> String {
    let raw = if ty.bit_width() == 64 { "u64" } else { "u32" };
    let shaped = h.op(&array(raw, dims), &format!("reshape({flat})"));
    if ty.name() == raw {
        shaped
    } else {
        h.op(&array(ty.name(), dims), &format!("convert({shaped})"))
    }
}

/// ThreeFry: the whole generator computation for a `u64[2]` state.
fn threefry(ty: PrimitiveType, dims: &[i64]) -> String {
    let mut h = HloText::new();
    h.parameter("state", "u64[2]", 0);
    let key = state_word(&mut h, 0);
    let counter = state_word(&mut h, 1);
    let out = array(ty.name(), dims);

    let (bits, blocks) = if ty.bit_width() == 64 {
        // One block per element, numbered row-major.
        let count: i64 = dims.iter().product();
        let b = [count];
        let words = threefry_blocks(&mut h, &key, &counter, &b);
        let joined = join_u64(&mut h, &words[0], &words[1], &b);
        (finish_bits(&mut h, &joined, ty, dims), count)
    } else if dims.is_empty() {
        // A scalar: word 0 of one block.
        let words = threefry_blocks(&mut h, &key, &counter, &[1]);
        let bits = finish_bits(&mut h, &words[0], ty, dims);
        (bits, 1)
    } else {
        // Split along the first even dimension (else the first largest); the two words
        // of a block sit next to each other along it.
        let split = dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
            (0..dims.len()).fold(0, |best, i| if dims[i] > dims[best] { i } else { best })
        });
        let mut half = dims.to_vec();
        half[split] = (dims[split] + 1) / 2;
        let blocks: i64 = half.iter().product();
        let words = threefry_blocks(&mut h, &key, &counter, &[blocks]);
        // [.., h, 1, ..] per word, side by side: [.., h, 2, ..] -> [.., 2h, ..].
        let mut with_pair = half.clone();
        with_pair.insert(split + 1, 1);
        let parts: Vec<String> = words
            .iter()
            .map(|w| h.op(&array("u32", &with_pair), &format!("reshape({w})")))
            .collect();
        with_pair[split + 1] = 2;
        let pairs = h.op(
            &array("u32", &with_pair),
            &format!(
                "concatenate({}, {}), dimensions={{{}}}",
                parts[0],
                parts[1],
                split + 1
            ),
        );
        let mut doubled = half.clone();
        doubled[split] *= 2;
        let mut bits = h.op(&array("u32", &doubled), &format!("reshape({pairs})"));
        if doubled[split] != dims[split] {
            let ranges: Vec<String> = dims.iter().map(|d| format!("[0:{d}]")).collect();
            bits = h.op(
                &array("u32", dims),
                &format!("slice({bits}), slice={{{}}}", ranges.join(", ")),
            );
        }
        let bits = if ty == PrimitiveType::U32 {
            bits
        } else {
            h.op(&out, &format!("convert({bits})"))
        };
        (bits, blocks)
    };

    let n = h.op("u64[]", &format!("constant({blocks})"));
    let new_counter = h.binary("u64[]", "add", &counter, &n);
    let key1 = h.op("u64[1]", &format!("reshape({key})"));
    let counter1 = h.op("u64[1]", &format!("reshape({new_counter})"));
    let state = h.op(
        "u64[2]",
        &format!("concatenate({key1}, {counter1}), dimensions={{0}}"),
    );
    h.finish(
        "threefry",
        &format!("(u64[2], {out})"),
        &format!("tuple({state}, {bits})"),
    )
}

/// ThreeFry-2x32-20 of the counters `counter + b` for `b` in `0..blocks`: the two output
/// words, each `u32[blocks]`.
fn threefry_blocks(h: &mut HloText, key: &str, counter: &str, b: &[i64]) -> [String; 2] {
    let (s64, s32) = (array("u64", b), array("u32", b));
    let iota = h.op(&s64, "iota(), iota_dimension=0");
    let base = h.op(&s64, &format!("broadcast({counter}), dimensions={{}}"));
    let counters = h.binary(&s64, "add", &base, &iota);
    let (mut x0, mut x1) = split_u64(h, &counters, b);
    let [k0, k1] = key_words(h, key, b);
    // The third key word is the parity constant xor the two key words.
    let parity = h.splat("u32", "466688986", b); // 0x1BD11BDA
    let t = h.binary(&s32, "xor", &parity, &k0);
    let k2 = h.binary(&s32, "xor", &t, &k1);
    let ks = [k0, k1, k2];
    const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    x0 = h.binary(&s32, "add", &x0, &ks[0]);
    x1 = h.binary(&s32, "add", &x1, &ks[1]);
    for group in 0..5usize {
        for &r in &ROTATIONS[group % 2] {
            x0 = h.binary(&s32, "add", &x0, &x1);
            let left = h.splat("u32", &r.to_string(), b);
            let right = h.splat("u32", &(32 - r).to_string(), b);
            let l = h.binary(&s32, "shift-left", &x1, &left);
            let rr = h.binary(&s32, "shift-right-logical", &x1, &right);
            let rotated = h.binary(&s32, "or", &l, &rr);
            x1 = h.binary(&s32, "xor", &rotated, &x0);
        }
        x0 = h.binary(&s32, "add", &x0, &ks[(group + 1) % 3]);
        let round = h.splat("u32", &(group + 1).to_string(), b);
        let t = h.binary(&s32, "add", &x1, &ks[(group + 2) % 3]);
        x1 = h.binary(&s32, "add", &t, &round);
    }
    [x0, x1]
}

#[cfg(test)]
mod tests;
