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

use crate::eval::{RNG_STATE_INITIAL, rng_data, rng_key, rng_words};
use crate::ir::{ArrayLiteral, PrimitiveType, RandomDistribution};
use crate::runtime::RuntimeError;
use crate::runtime::buffers::{read_array, write_array};
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// One `rng` instruction.
#[derive(Clone, Debug)]
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
            .or_insert(RNG_STATE_INITIAL);
        let now = *slot;
        *slot = slot.wrapping_add(delta);
        now
    }
}

/// True if the routine computes `rng` of `ty` (XLA's expander takes f16, bf16 and the 32-
/// and 64-bit types; normal needs a float).
pub fn supported(ty: PrimitiveType, distribution: RandomDistribution) -> bool {
    rng_words(ty, distribution).is_ok()
}

/// Runs one `rng`.
pub fn run(t: &RngThunk, memory: &Memory, counters: &mut RngCounters) -> Result<(), RuntimeError> {
    let ty = t.out.shape.element_type;
    let words = rng_words(ty, t.distribution)?;
    // SAFETY: the slices hold the scalars' and the result's shapes.
    let (a, b) = unsafe {
        (
            read_array(memory.ptr(t.a.slice), &t.a.shape),
            read_array(memory.ptr(t.b.slice), &t.b.shape),
        )
    };
    if a.element_type() != ty || b.element_type() != ty {
        return Err(RuntimeError::new(format!(
            "{}: rng bounds must be {ty}[] scalars",
            t.name
        )));
    }
    let n = t.out.shape.element_count();
    let counter = counters.take(&t.name, n as u128 * words);
    let key = rng_key(counters.seed, &t.name);
    let value = ArrayLiteral {
        shape: crate::ir::ArrayShape::new(ty, &t.out.shape.dims),
        data: rng_data(ty, t.distribution, key, counter, n, &a, &b),
    };
    // SAFETY: the slice holds the result's shape; the literal is relaid out if needed.
    unsafe { write_array(memory.ptr(t.out.slice), &value, &t.out.shape) };
    Ok(())
}

#[cfg(test)]
mod tests;
