//! The `rng` op as a native routine, bit for bit as XLA:CPU computes it.
//!
//! XLA:CPU's `rng-expander` turns `rng(a, b)` into Philox-4x32 bits under a u64 key and a
//! 128-bit counter read from `rng-get-and-update-state` (one counter per instruction,
//! starting at `0x7012395` and advanced by the number of 32-bit words of the result after
//! every execution, `xla/backends/cpu/runtime/rng_state_thunk.cc`), and the bits into the
//! distribution (`xla/hlo/builder/lib/prng.cc`: `UniformFloatingPointDistribution`,
//! `UniformIntDistribution`, `NormalFloatingPointDistribution`). This routine computes the
//! same numbers straight into the result buffer:
//! * uniform floats: the top mantissa-width bits as an integer, times 2^-mantissa, then
//!   `fma(u, b - a, a)` (XLA:CPU's LLVM contracts that multiply and add);
//! * uniform integers: `a + d/2 + (d - d/2)`, `d = bits % (b - a)` in unsigned arithmetic;
//! * normal floats: Box-Muller on consecutive pairs of uniforms (`u[2i]`, `u[2i+1]` give
//!   outputs `2i`, the sine, and `2i+1`, the cosine), then `fma(b, z, a)`;
//! * f16/bf16 compute in f32 and round to nearest even at the end, as XLA converts them.
//!
//! The key is `seed ^ fnv1a64(name)` (XLA's is a compile-time constant from the module's
//! and the process's random generators, so it depends on what the process compiled
//! before); counters restart at every run, like the interpreter's.

use std::collections::HashMap;

use half::{bf16, f16};

use crate::ir::{ArrayData, ArrayLiteral, PrimitiveType, RandomDistribution};
use crate::runtime::RuntimeError;
use crate::runtime::buffers::{read_array, write_array};
use crate::runtime::execute::Memory;
use crate::runtime::thunk::BufferRef;

/// The first value of every instruction's counter (XLA's `kRngStateInitialValue`).
pub const STATE_INITIAL: u128 = 0x701_2395;

/// One `rng` instruction.
#[derive(Debug)]
pub struct RngThunk {
    /// The instruction (its name also keys its counter and its Philox key).
    pub name: String,
    /// Uniform or normal.
    pub distribution: RandomDistribution,
    /// The lower bound or the mean, a scalar of the result type.
    pub a: BufferRef,
    /// The upper bound or the standard deviation.
    pub b: BufferRef,
    /// The result.
    pub out: BufferRef,
}

/// The counters of one run, by instruction name, and the seed of the keys.
#[derive(Debug, Default)]
pub struct RngCounters {
    /// `--seed`.
    pub seed: u64,
    counters: HashMap<String, u128>,
}

impl RngCounters {
    /// Fresh counters under `seed`.
    pub fn new(seed: u64) -> RngCounters {
        RngCounters {
            seed,
            counters: HashMap::new(),
        }
    }

    /// The counter of `name` for this call, advancing it by `delta` for the next.
    fn take(&mut self, name: &str, delta: u128) -> u128 {
        let slot = self
            .counters
            .entry(name.to_string())
            .or_insert(STATE_INITIAL);
        let now = *slot;
        *slot = slot.wrapping_add(delta);
        now
    }
}

/// True if the routine computes `rng` of `ty` (XLA's expander takes f16, bf16 and the 32-
/// and 64-bit types; normal needs a float).
pub fn supported(ty: PrimitiveType, distribution: RandomDistribution) -> bool {
    use PrimitiveType::*;
    match ty {
        F16 | BF16 | F32 | F64 => true,
        S32 | U32 | S64 | U64 => distribution == RandomDistribution::Uniform,
        _ => false,
    }
}

/// The Philox key of instruction `name`.
pub fn key(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    seed ^ h
}

/// Runs one `rng`.
pub fn run(t: &RngThunk, memory: &Memory, counters: &mut RngCounters) -> Result<(), RuntimeError> {
    let ty = t.out.shape.element_type;
    if !supported(ty, t.distribution) {
        return Err(RuntimeError::new(format!(
            "{}: rng of {ty} ({:?}) is not supported",
            t.name, t.distribution
        ))
        .unsupported());
    }
    // SAFETY: the slices hold the scalars' and the result's shapes.
    let (a, b) = unsafe {
        (
            read_array(memory.ptr(t.a.slice), &t.a.shape),
            read_array(memory.ptr(t.b.slice), &t.b.shape),
        )
    };
    let n = t.out.shape.element_count();
    let words = if ty.bit_width() == 64 { 2 } else { 1 };
    let counter = counters.take(&t.name, (n * words) as u128);
    let key = key(counters.seed, &t.name);
    let data = match (&a.data, &b.data) {
        (ArrayData::F32(a), ArrayData::F32(b)) => {
            ArrayData::F32(floats32(key, counter, n, t.distribution, a[0], b[0]))
        }
        (ArrayData::F16(a), ArrayData::F16(b)) => ArrayData::F16(
            floats32(
                key,
                counter,
                n,
                t.distribution,
                a[0].to_f32(),
                b[0].to_f32(),
            )
            .into_iter()
            .map(f16::from_f32)
            .collect(),
        ),
        (ArrayData::BF16(a), ArrayData::BF16(b)) => ArrayData::BF16(
            floats32(
                key,
                counter,
                n,
                t.distribution,
                a[0].to_f32(),
                b[0].to_f32(),
            )
            .into_iter()
            .map(bf16::from_f32)
            .collect(),
        ),
        (ArrayData::F64(a), ArrayData::F64(b)) => {
            ArrayData::F64(floats64(key, counter, n, t.distribution, a[0], b[0]))
        }
        (ArrayData::U32(a), ArrayData::U32(b)) => {
            ArrayData::U32(ints32(key, counter, n, a[0], b[0]))
        }
        (ArrayData::S32(a), ArrayData::S32(b)) => ArrayData::S32(
            ints32(key, counter, n, a[0] as u32, b[0] as u32)
                .into_iter()
                .map(|x| x as i32)
                .collect(),
        ),
        (ArrayData::U64(a), ArrayData::U64(b)) => {
            ArrayData::U64(ints64(key, counter, n, a[0], b[0]))
        }
        (ArrayData::S64(a), ArrayData::S64(b)) => ArrayData::S64(
            ints64(key, counter, n, a[0] as u64, b[0] as u64)
                .into_iter()
                .map(|x| x as i64)
                .collect(),
        ),
        _ => {
            return Err(RuntimeError::new(format!(
                "{}: rng bounds must be {ty}[] scalars",
                t.name
            )));
        }
    };
    let value = ArrayLiteral {
        shape: crate::ir::ArrayShape::new(ty, &t.out.shape.dims),
        data,
    };
    // SAFETY: the slice holds the result's shape; the literal is relaid out if needed.
    unsafe { write_array(memory.ptr(t.out.slice), &value, &t.out.shape) };
    Ok(())
}

/// Philox-4x32-10 of the 128-bit counter `x` (least significant word first) under `key`.
fn philox(key: u64, c: u128) -> [u32; 4] {
    let mut k = [key as u32, (key >> 32) as u32];
    let mut x = [
        c as u32,
        (c >> 32) as u32,
        (c >> 64) as u32,
        (c >> 96) as u32,
    ];
    for _ in 0..10 {
        let p0 = u64::from(x[0]) * 0xD251_1F53;
        let p1 = u64::from(x[2]) * 0xCD9E_8D57;
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    x
}

/// `n` 32-bit outputs: element `i` is word `i % 4` of the block for counter `c + i / 4`.
fn bits32(key: u64, c: u128, n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(n.next_multiple_of(4));
    for block in 0..n.div_ceil(4) {
        out.extend_from_slice(&philox(key, c.wrapping_add(block as u128)));
    }
    out.truncate(n);
    out
}

/// `n` 64-bit outputs: pairs of 32-bit words, low word first.
fn bits64(key: u64, c: u128, n: usize) -> Vec<u64> {
    bits32(key, c, 2 * n)
        .chunks_exact(2)
        .map(|w| u64::from(w[0]) | (u64::from(w[1]) << 32))
        .collect()
}

fn ints32(key: u64, c: u128, n: usize, a: u32, b: u32) -> Vec<u32> {
    let range = b.wrapping_sub(a);
    bits32(key, c, n)
        .into_iter()
        .map(|x| {
            let d = if range == 0 { x } else { x % range };
            let half = d >> 1;
            a.wrapping_add(half).wrapping_add(d - half)
        })
        .collect()
}

fn ints64(key: u64, c: u128, n: usize, a: u64, b: u64) -> Vec<u64> {
    let range = b.wrapping_sub(a);
    bits64(key, c, n)
        .into_iter()
        .map(|x| {
            let d = if range == 0 { x } else { x % range };
            let half = d >> 1;
            a.wrapping_add(half).wrapping_add(d - half)
        })
        .collect()
}

macro_rules! floats {
    ($name:ident, $t:ty, $bits:ident, $shift:expr, $mantissa:expr) => {
        fn $name(
            key: u64,
            c: u128,
            n: usize,
            distribution: RandomDistribution,
            a: $t,
            b: $t,
        ) -> Vec<$t> {
            let scale = (-($mantissa as f64)).exp2() as $t;
            let unit = |count: usize| -> Vec<$t> {
                $bits(key, c, count)
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
                    z.into_iter().map(|z| b.mul_add(z, a)).collect()
                }
            }
        }
    };
}

floats!(floats32, f32, bits32, 9, 23);
floats!(floats64, f64, bits64, 12, 52);

#[cfg(test)]
mod tests;
