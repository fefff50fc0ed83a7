//! Random numbers: `rng-bit-generator` (XLA's ThreeFry and Philox, bit-exact with XLA:CPU)
//! and `rng` (a documented, deterministic stand-in: NOT bit-exact with XLA).
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
// The `rng` op.

/// `rng(a, b), distribution=...`.
///
/// Uniform: floats in `[a, b)`, integers in `[a, b)`. Normal: mean `a`, standard deviation
/// `b` (Box-Muller). XLA's evaluator draws from a `std::minstd_rand0` and XLA:CPU expands
/// `rng` into Philox with a per-module seed, so neither is reproducible here; xlac draws
/// from SplitMix64 seeded with [`Evaluator::rng_state`], which advances on every call.
/// Results are deterministic for a given `--seed` but differ from XLA.
pub fn rng(
    ev: &mut Evaluator<'_>,
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
    let mut source = SplitMix64(ev.rng_state);
    // One stream per call: the next call starts from a different state.
    ev.rng_state = ev
        .rng_state
        .wrapping_add(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
        ^ 0x5851_F42D;
    let n = out.element_count();
    let ty = out.element_type;

    macro_rules! floats {
        ($t:ty, $to:expr, $from:expr) => {{
            let lo: f64 = $to(a.values::<$t>().unwrap()[0]);
            let hi: f64 = $to(b.values::<$t>().unwrap()[0]);
            let v: Vec<$t> = (0..n)
                .map(|_| $from(source.sample_float(distribution, lo, hi)))
                .collect();
            <$t as crate::ir::NativeType>::wrap(v)
        }};
    }
    macro_rules! ints {
        ($t:ty) => {{
            if distribution != RandomDistribution::Uniform {
                return Err(EvalError::new(format!(
                    "rng_normal needs a float type, got {ty}"
                )));
            }
            let lo = a.values::<$t>().unwrap()[0] as i128;
            let hi = b.values::<$t>().unwrap()[0] as i128;
            let range = (hi - lo).max(1) as u128;
            let v: Vec<$t> = (0..n)
                .map(|_| (lo + (u128::from(source.next_u64()) % range) as i128) as $t)
                .collect();
            <$t as crate::ir::NativeType>::wrap(v)
        }};
    }
    let data = match ty {
        PrimitiveType::F32 => floats!(f32, |x: f32| f64::from(x), |x: f64| x as f32),
        PrimitiveType::F64 => floats!(f64, |x: f64| x, |x: f64| x),
        PrimitiveType::F16 => floats!(f16, |x: f16| x.to_f64(), f16::from_f64),
        PrimitiveType::BF16 => floats!(bf16, |x: bf16| x.to_f64(), bf16::from_f64),
        PrimitiveType::S8 => ints!(i8),
        PrimitiveType::S16 => ints!(i16),
        PrimitiveType::S32 => ints!(i32),
        PrimitiveType::S64 => ints!(i64),
        PrimitiveType::U8 => ints!(u8),
        PrimitiveType::U16 => ints!(u16),
        PrimitiveType::U32 => ints!(u32),
        PrimitiveType::U64 => ints!(u64),
        _ => return Err(EvalError::new(format!("rng does not support {ty}")).unsupported()),
    };
    Ok(ArrayLiteral {
        shape: crate::ir::ArrayShape::new(ty, &out.dims),
        data,
    }
    .into())
}

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

    fn sample_float(&mut self, distribution: RandomDistribution, a: f64, b: f64) -> f64 {
        match distribution {
            RandomDistribution::Uniform => {
                let x = a + (b - a) * self.next_f64();
                // Rounding can land on b; keep the interval half-open.
                if x >= b && b > a { a } else { x }
            }
            RandomDistribution::Normal => {
                // Box-Muller; 1 - unit() is in (0, 1], so the log is finite.
                let u1 = 1.0 - self.next_f64();
                let u2 = self.next_f64();
                a + b * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            }
        }
    }
}

#[cfg(test)]
mod tests;
