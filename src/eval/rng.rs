//! Random numbers: `rng-bit-generator` (XLA's ThreeFry and Philox, bit-exact with XLA:CPU)
//! and `rng` (XLA:CPU's `rng-expander`: Philox bits into the distribution, bit-exact given
//! the key; see [`rng`]).
//!
//! XLA: `xla/service/rng_bit_generator_expander.cc` (how the state is sliced and rebuilt),
//! `xla/hlo/builder/lib/prng.cc` (`ThreeFryBitGenerator`, `PhiloxBitGenerator`), and
//! `cpu_compiler.cc`, which runs `RngBitGeneratorExpander(RNG_PHILOX)`: on CPU
//! `rng_default` means Philox.
//!
//! The state operand is `u64[n]`; `state[0]` is always the key.
//! * ThreeFry (`n == 2`): `state[1]` is a 64-bit counter. 32-bit outputs come in pairs from
//!   one ThreeFry-2x32 block (see [`threefry_bits32`]); 64-bit outputs take one block each.
//!   The counter advances by the number of blocks used.
//! * Philox (`n == 2` or `n == 3`): the counter is 128 bits. With `n == 3` it is
//!   `(low = state[1], high = state[2])`; with `n == 2` it is `(low = state[1], high = state[0])`
//!   and only the low half is written back. Each Philox-4x32 block gives four 32-bit words,
//!   dealt out round-robin (see [`philox_bits32`]).
//! * Narrow outputs (`u8`, `u16`, `s8`, `s16`) are the low bits of the 32-bit outputs of the
//!   same shape; signed outputs are the unsigned bits reinterpreted.

use half::{bf16, f16};

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{
    ArrayData, ArrayLiteral, Literal, PrimitiveType, RandomAlgorithm, RandomDistribution, Shape,
};

/// `rng-bit-generator(state), algorithm=...`: `(new state, bits)`.
pub fn rng_bit_generator(shape: &Shape, state: &Literal, algorithm: RandomAlgorithm) -> EvalResult {
    let state_lit = state
        .as_array()
        .ok_or_else(|| EvalError::new("rng-bit-generator state must be an array"))?;
    let state: &[u64] = state_lit
        .values::<u64>()
        .filter(|_| state_lit.shape.rank() == 1)
        .ok_or_else(|| EvalError::new("rng-bit-generator state must be u64[n]"))?;
    let out = match shape.tuple_elements() {
        Some([_, Shape::Array(out)]) => out,
        _ => {
            return Err(EvalError::new(
                "rng-bit-generator must return (state, bits)",
            ));
        }
    };
    let dims = out.dims.clone();
    let count = out.element_count();
    let ty = out.element_type;

    let wide = match ty.bit_width() {
        8 | 16 | 32 if ty.is_integral() => false,
        64 if ty.is_integral() => true,
        _ => {
            return Err(EvalError::new(format!(
                "rng-bit-generator cannot produce {ty}: only 8- to 64-bit integers"
            )));
        }
    };
    let (new_state, bits): (Vec<u64>, Vec<u64>) = match algorithm {
        RandomAlgorithm::ThreeFry => {
            let [key, counter] = state else {
                return Err(EvalError::new("rng_three_fry needs a u64[2] state"));
            };
            let (bits, counter) = if wide {
                threefry_bits64(*key, *counter, count)
            } else {
                let bits = threefry_bits32(*key, *counter, &dims);
                (bits.0.into_iter().map(u64::from).collect(), bits.1)
            };
            (vec![*key, counter], bits)
        }
        RandomAlgorithm::Philox | RandomAlgorithm::Default => {
            let (key, low, high) = match state {
                [key, low] => (*key, *low, *key),
                [key, low, high] => (*key, *low, *high),
                _ => return Err(EvalError::new("rng_philox needs a u64[2] or u64[3] state")),
            };
            let counter = u128::from(low) | (u128::from(high) << 64);
            let (bits, counter) = if wide {
                philox_bits64(key, counter, count)
            } else {
                let (bits, counter) = philox_bits32(key, counter, count);
                (bits.into_iter().map(u64::from).collect(), counter)
            };
            let mut new_state = vec![key, counter as u64];
            if state.len() == 3 {
                new_state.push((counter >> 64) as u64);
            }
            (new_state, bits)
        }
    };

    // Narrow and signed types keep the low bits, as XLA's ConvertElementType from u32 does.
    let data = match ty {
        PrimitiveType::U8 => ArrayData::U8(bits.iter().map(|&b| b as u8).collect()),
        PrimitiveType::U16 => ArrayData::U16(bits.iter().map(|&b| b as u16).collect()),
        PrimitiveType::U32 => ArrayData::U32(bits.iter().map(|&b| b as u32).collect()),
        PrimitiveType::U64 => ArrayData::U64(bits),
        PrimitiveType::S8 => ArrayData::S8(bits.iter().map(|&b| b as u8 as i8).collect()),
        PrimitiveType::S16 => ArrayData::S16(bits.iter().map(|&b| b as u16 as i16).collect()),
        PrimitiveType::S32 => ArrayData::S32(bits.iter().map(|&b| b as u32 as i32).collect()),
        PrimitiveType::S64 => ArrayData::S64(bits.iter().map(|&b| b as i64).collect()),
        _ => unreachable!("checked above"),
    };
    let bits = ArrayLiteral {
        shape: crate::ir::ArrayShape::new(ty, &dims),
        data,
    };
    let state_len = new_state.len() as i64;
    let new_state = ArrayLiteral::from_vec(&[state_len], new_state);
    Ok(Literal::Tuple(vec![new_state.into(), bits.into()]))
}

// ---------------------------------------------------------------------------------------
// ThreeFry-2x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011)

/// ThreeFry-2x32 with 20 rounds: encrypts the counter block `x` under `key`.
fn threefry2x32(key: [u32; 2], mut x: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    // The third key word is the parity constant xor the two key words.
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    x[0] = x[0].wrapping_add(ks[0]);
    x[1] = x[1].wrapping_add(ks[1]);
    // Five groups of four rounds, each followed by a key injection.
    for group in 0..5usize {
        for &r in &ROTATIONS[group % 2] {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        x[0] = x[0].wrapping_add(ks[(group + 1) % 3]);
        x[1] = x[1]
            .wrapping_add(ks[(group + 2) % 3])
            .wrapping_add(group as u32 + 1);
    }
    x
}

/// Splits a u64 into its (low, high) 32-bit halves.
fn halves(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// 64-bit ThreeFry outputs: element `i` is the block for counter `counter + i`, low word
/// first. Returns the bits and the advanced counter.
fn threefry_bits64(key: u64, counter: u64, count: usize) -> (Vec<u64>, u64) {
    let bits = (0..count as u64)
        .map(|i| {
            let [lo, hi] = threefry2x32(halves(key), halves(counter.wrapping_add(i)));
            u64::from(lo) | (u64::from(hi) << 32)
        })
        .collect();
    (bits, counter.wrapping_add(count as u64))
}

/// 32-bit ThreeFry outputs, laid out as XLA's `ThreeFryRngBit32` does.
///
/// XLA splits the shape in two along one dimension (the first even one, else the first
/// largest; a scalar counts as `[2]`): element `c` along that dimension comes from word
/// `c % 2` of the block at half-index `c / 2`, and blocks are numbered row-major over the
/// halved shape. The counter advances by the number of blocks.
fn threefry_bits32(key: u64, counter: u64, dims: &[i64]) -> (Vec<u32>, u64) {
    let dims: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    let split = if dims.is_empty() {
        None
    } else {
        let even = dims.iter().position(|&d| d % 2 == 0);
        // First dimension of maximal size (strictly-greater scan keeps the first).
        let largest =
            (0..dims.len()).fold(0, |best, i| if dims[i] > dims[best] { i } else { best });
        Some(even.unwrap_or(largest))
    };
    let Some(split) = split else {
        // Scalar: one block, first word.
        let [w0, _] = threefry2x32(halves(key), halves(counter));
        return (vec![w0], counter.wrapping_add(1));
    };
    let mut half = dims.clone();
    half[split] = dims[split].div_ceil(2);
    let blocks: usize = half.iter().product();
    let count: usize = dims.iter().product();

    // Row-major strides of the full and the halved shape.
    let strides = |d: &[usize]| {
        let mut s = vec![1usize; d.len()];
        for i in (0..d.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1] * d[i + 1];
        }
        s
    };
    let (full_strides, half_strides) = (strides(&dims), strides(&half));
    let mut out = vec![0u32; count];
    for (linear, slot) in out.iter_mut().enumerate() {
        let mut block = 0usize;
        let mut word = 0usize;
        for d in 0..dims.len() {
            let mut c = (linear / full_strides[d]) % dims[d];
            if d == split {
                word = c % 2;
                c /= 2;
            }
            block += c * half_strides[d];
        }
        *slot = threefry2x32(halves(key), halves(counter.wrapping_add(block as u64)))[word];
    }
    (out, counter.wrapping_add(blocks as u64))
}

// ---------------------------------------------------------------------------------------
// Philox-4x32 (same paper), 10 rounds.

/// Philox-4x32-10: encrypts the 128-bit counter `x` (four words, least significant first).
fn philox4x32(key: [u32; 2], mut x: [u32; 4]) -> [u32; 4] {
    const W32A: u32 = 0x9E37_79B9;
    const W32B: u32 = 0xBB67_AE85;
    const M4X32A: u32 = 0xD251_1F53;
    const M4X32B: u32 = 0xCD9E_8D57;
    let mut k = key;
    for _ in 0..10 {
        let p0 = u64::from(x[0]) * u64::from(M4X32A);
        let p1 = u64::from(x[2]) * u64::from(M4X32B);
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [k[0].wrapping_add(W32A), k[1].wrapping_add(W32B)];
    }
    x
}

/// The Philox block for counter `counter + i` (128-bit wrapping add, as XLA's
/// `Uint128AddUint64` carries into the high half).
fn philox_block(key: u64, counter: u128, i: u64) -> [u32; 4] {
    let c = counter.wrapping_add(u128::from(i));
    let [a, b] = halves(c as u64);
    let [d, e] = halves((c >> 64) as u64);
    philox4x32(halves(key), [a, b, d, e])
}

/// 32-bit Philox outputs: element `i` is word `i % 4` of block `i / 4`; the counter
/// advances by the number of blocks.
fn philox_bits32(key: u64, counter: u128, count: usize) -> (Vec<u32>, u128) {
    let blocks = count.div_ceil(4);
    let mut out = Vec::with_capacity(blocks * 4);
    for b in 0..blocks as u64 {
        out.extend_from_slice(&philox_block(key, counter, b));
    }
    out.truncate(count);
    (out, counter.wrapping_add(blocks as u128))
}

/// 64-bit Philox outputs: each block gives two u64s (words 0|1 and 2|3, low word first);
/// element `i` is u64 `i % 2` of block `i / 2`.
fn philox_bits64(key: u64, counter: u128, count: usize) -> (Vec<u64>, u128) {
    // XLA asks for 2 * count 32-bit words, i.e. ceil(2 * count / 4) blocks.
    let blocks = (2 * count).div_ceil(4);
    let mut out = Vec::with_capacity(blocks * 2);
    for b in 0..blocks as u64 {
        let w = philox_block(key, counter, b);
        out.push(u64::from(w[0]) | (u64::from(w[1]) << 32));
        out.push(u64::from(w[2]) | (u64::from(w[3]) << 32));
    }
    out.truncate(count);
    (out, counter.wrapping_add(blocks as u128))
}

// ---------------------------------------------------------------------------------------
// The `rng` op, as XLA:CPU's `rng-expander` computes it.

/// The first value of every `rng` instruction's counter: XLA:CPU's
/// `rng-get-and-update-state` starts there (`kRngStateInitialValue`,
/// `xla/backends/cpu/runtime/rng_state_thunk.cc`).
pub const RNG_STATE_INITIAL: u128 = 0x701_2395;

/// The Philox key of the `rng` instruction `name` under `seed`: `seed` xor the 64-bit
/// FNV-1a hash of the name. (XLA's key is a constant drawn from the module's and the
/// process's random generators at compile time, so it depends on what the process
/// compiled before; a given XLA key `k` is reproduced with `seed = k ^ fnv1a(name)`.)
pub fn rng_key(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    seed ^ h
}

/// `rng(a, b), distribution=...`, bit for bit as XLA:CPU's `rng-expander` computes it.
///
/// Bits: Philox-4x32 under [`rng_key`] from the instruction's counter (starting at
/// [`RNG_STATE_INITIAL`], advanced after every call by the number of 32-bit words of the
/// result, as `rng-get-and-update-state` is; kept in [`Evaluator::rng_counters`]).
/// Uniform floats: the top mantissa-width bits as an integer, times 2^-mantissa, then
/// `fma(u, b - a, a)` (XLA:CPU's LLVM contracts the multiply and add). Uniform integers:
/// The first element of a 32- or 64-bit integer literal as unsigned bits.
fn int_bits(x: &ArrayLiteral) -> u64 {
    match &x.data {
        ArrayData::S32(v) => v[0] as u32 as u64,
        ArrayData::U32(v) => u64::from(v[0]),
        ArrayData::S64(v) => v[0] as u64,
        ArrayData::U64(v) => v[0],
        _ => 0,
    }
}

/// `a + d/2 + (d - d/2)` for `d = bits % (b - a)` (unsigned). Normal: Box-Muller on
/// consecutive pairs of uniforms, `(u[2i], u[2i+1])` giving outputs `2i` (sine) and `2i+1`
/// (cosine), then `fma(b, z, a)`. f16/bf16 compute in f32 and round at the
/// end. Other types are errors, as in XLA (which takes 32- and 64-bit types only).
pub fn rng(
    ev: &mut Evaluator<'_>,
    name: &str,
    shape: &Shape,
    operands: &[&Literal],
    distribution: RandomDistribution,
) -> EvalResult {
    let out = shape
        .as_array()
        .ok_or_else(|| EvalError::new("rng must return an array"))?;
    let [a, b] = operands else {
        return Err(EvalError::new("rng takes two operands"));
    };
    let scalar = |l: &Literal| -> EvalResult<ArrayLiteral> {
        match l {
            Literal::Array(x) if x.shape.rank() == 0 && x.element_type() == out.element_type => {
                Ok(x.clone())
            }
            _ => Err(EvalError::new(format!(
                "rng parameters must be {}[] scalars",
                out.element_type
            ))),
        }
    };
    let (a, b) = (scalar(a)?, scalar(b)?);
    let n = out.element_count();
    let ty = out.element_type;
    let words = rng_words(ty, distribution)?;
    let key = rng_key(ev.options.seed, name);
    let slot = ev
        .rng_counters
        .entry(name.to_string())
        .or_insert(RNG_STATE_INITIAL);
    let counter = *slot;
    *slot = slot.wrapping_add(n as u128 * words);
    Ok(ArrayLiteral {
        shape: crate::ir::ArrayShape::new(ty, &out.dims),
        data: rng_data(ty, distribution, key, counter, n, &a, &b),
    }
    .into())
}

/// How many 32-bit Philox words one element of `ty` draws (the counter advances by that
/// times the element count), or why XLA's rng-expander refuses `ty` under `distribution`.
pub fn rng_words(ty: PrimitiveType, distribution: RandomDistribution) -> EvalResult<u128> {
    use PrimitiveType as T;
    let words = match ty {
        T::F16 | T::BF16 | T::F32 | T::S32 | T::U32 => 1,
        T::F64 | T::S64 | T::U64 => 2,
        _ => {
            return Err(EvalError::new(format!(
                "rng of {ty}: XLA's rng-expander takes f16, bf16 and 32- and 64-bit types"
            )));
        }
    };
    if distribution == RandomDistribution::Normal && ty.is_integral() {
        return Err(EvalError::new(format!(
            "rng_normal needs a float type, got {ty}"
        )));
    }
    Ok(words)
}

/// The `n` values of `rng(a, b)` of type `ty` under Philox `key` from `counter`: the
/// formulas above, shared by the interpreter and the native routine. `ty` has passed
/// [`rng_words`] and `a`, `b` are scalars of `ty`.
pub fn rng_data(
    ty: PrimitiveType,
    distribution: RandomDistribution,
    key: u64,
    counter: u128,
    n: usize,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
) -> ArrayData {
    use PrimitiveType as T;
    let f32_of = |x: &ArrayLiteral| -> f32 {
        match &x.data {
            ArrayData::F16(v) => v[0].to_f32(),
            ArrayData::BF16(v) => v[0].to_f32(),
            ArrayData::F32(v) => v[0],
            _ => 0.0,
        }
    };
    match ty {
        T::F16 | T::BF16 | T::F32 => {
            let v = rng_f32(key, counter, n, distribution, f32_of(a), f32_of(b));
            match ty {
                T::F16 => ArrayData::F16(v.into_iter().map(f16::from_f32).collect()),
                T::BF16 => ArrayData::BF16(v.into_iter().map(bf16::from_f32).collect()),
                _ => ArrayData::F32(v),
            }
        }
        T::F64 => {
            let f64_of = |x: &ArrayLiteral| match &x.data {
                ArrayData::F64(v) => v[0],
                _ => 0.0,
            };
            ArrayData::F64(rng_f64(key, counter, n, distribution, f64_of(a), f64_of(b)))
        }
        T::U32 | T::S32 => {
            let bits = philox_bits32(key, counter, n).0;
            let lo = int_bits(a) as u32;
            let hi = int_bits(b) as u32;
            let v = bits.into_iter().map(|x| uniform_int32(x, lo, hi));
            if ty == T::U32 {
                ArrayData::U32(v.collect())
            } else {
                ArrayData::S32(v.map(|x| x as i32).collect())
            }
        }
        _ => {
            let bits = philox_bits64(key, counter, n).0;
            let lo = int_bits(a);
            let hi = int_bits(b);
            let v = bits.into_iter().map(|x| uniform_int64(x, lo, hi));
            if ty == T::U64 {
                ArrayData::U64(v.collect())
            } else {
                ArrayData::S64(v.map(|x| x as i64).collect())
            }
        }
    }
}

/// `a + d/2 + (d - d/2)` with `d = bits % (b - a)` in wrapping unsigned arithmetic
/// (XLA's `ConvertRandomBitsToUniformInt`; a remainder by zero is the dividend).
fn uniform_int32(bits: u32, a: u32, b: u32) -> u32 {
    let range = b.wrapping_sub(a);
    let d = if range == 0 { bits } else { bits % range };
    let half = d >> 1;
    a.wrapping_add(half).wrapping_add(d - half)
}

/// [`uniform_int32`] for 64-bit types.
fn uniform_int64(bits: u64, a: u64, b: u64) -> u64 {
    let range = b.wrapping_sub(a);
    let d = if range == 0 { bits } else { bits % range };
    let half = d >> 1;
    a.wrapping_add(half).wrapping_add(d - half)
}

macro_rules! rng_float {
    ($name:ident, $t:ty, $bits:ident, $shift:expr, $mantissa:expr) => {
        /// Uniform or normal floats from Philox bits (see [`rng`]).
        fn $name(
            key: u64,
            counter: u128,
            n: usize,
            distribution: RandomDistribution,
            a: $t,
            b: $t,
        ) -> Vec<$t> {
            let scale = (-($mantissa as f64)).exp2() as $t;
            let unit = |count: usize| -> Vec<$t> {
                $bits(key, counter, count)
                    .0
                    .into_iter()
                    .map(|x| (x >> $shift) as $t * scale)
                    .collect()
            };
            match distribution {
                RandomDistribution::Uniform => {
                    unit(n).into_iter().map(|u| u.mul_add(b - a, a)).collect()
                }
                RandomDistribution::Normal => {
                    let pairs = n.div_ceil(2);
                    // Uniform on [0, 1): fma(u, 1 - 0, 0) is u.
                    let u = unit(2 * pairs);
                    let tiny = 1.0e-7f32 as $t;
                    let two_pi = (2.0 * std::f64::consts::PI) as $t;
                    // Consecutive uniforms pair up; each pair gives two outputs in place.
                    let mut z = Vec::with_capacity(2 * pairs);
                    for pair in u.chunks_exact(2) {
                        let u1 = pair[0].max(tiny);
                        let v1 = two_pi * pair[1];
                        let r = (-2.0 * u1.ln()).sqrt();
                        z.push(v1.sin() * r);
                        z.push(v1.cos() * r);
                    }
                    z.truncate(n);
                    z.into_iter().map(|x| b.mul_add(x, a)).collect()
                }
            }
        }
    };
}

rng_float!(rng_f32, f32, philox_bits32, 9, 23);
rng_float!(rng_f64, f64, philox_bits64, 12, 52);

/// SplitMix64 (Steele, Lea, Flood 2014, as in `java.util.SplittableRandom`): a small,
/// well-mixed 64-bit generator whose output is fixed by its definition. The `rng` op and
/// `xlac run`'s random inputs both draw from it.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
pub(crate) mod tests;
