//! Random numbers: `rng-bit-generator` (XLA's threefry and philox, bit-exact) and `rng`.

use super::{EvalError, EvalResult, Evaluator};
use crate::ir::{Literal, RandomAlgorithm, RandomDistribution, Shape};

/// `rng-bit-generator(state), algorithm=...`: `(new state, bits)`.
pub fn rng_bit_generator(shape: &Shape, state: &Literal, algorithm: RandomAlgorithm) -> EvalResult {
    let _ = (shape, state, algorithm);
    Err(EvalError::new("rng-bit-generator is not implemented in the interpreter yet"))
}

/// `rng(a, b), distribution=...`.
pub fn rng(
    ev: &mut Evaluator<'_>,
    shape: &Shape,
    operands: &[&Literal],
    distribution: RandomDistribution,
) -> EvalResult {
    let _ = (ev, shape, operands, distribution);
    Err(EvalError::new("rng is not implemented in the interpreter yet"))
}
