//! Deterministic random inputs for parameters that were given no `--input`.
//!
//! Mirrors the spirit of XLA's `MakeFakeArguments` (`xla/tests/test_utils.cc`), which
//! `run_hlo_module` uses: floats uniform in [-0.1, 0.2]. Integers are drawn from [0, 4) so
//! that a parameter used as an index (dynamic-slice starts, gather indices) is in range for
//! any dimension of size 4 or more; predicates are fair coin flips. XLA additionally looks at
//! how each parameter is used (reducer identities, unique sort keys); xlac does not.
//!
//! The generator is SplitMix64: tiny, fast, and its output is fixed by its definition, so
//! `--seed N` gives the same inputs on every machine and every xlac version. Each parameter
//! has its own stream (seeded from the seed and the parameter number), so adding an input
//! for parameter 0 does not change the random values of parameter 1.

use half::{bf16, f16};
use num_complex::Complex;

pub use crate::eval::SplitMix64;
use crate::ir::size::{AllocError, AllocRefusal, try_filled_vec, try_vec_with_capacity};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape, Layout, Literal, PrimitiveType, Shape};

/// Lowest random float.
pub const FLOAT_MIN: f64 = -0.1;
/// Highest random float (exclusive).
pub const FLOAT_MAX: f64 = 0.2;
/// Random integers are in `[0, INT_BOUND)`.
pub const INT_BOUND: u64 = 4;

/// A float in `[FLOAT_MIN, FLOAT_MAX)`.
fn random_float(rng: &mut SplitMix64) -> f64 {
    FLOAT_MIN + (FLOAT_MAX - FLOAT_MIN) * rng.next_f64()
}

/// An integer in `[0, INT_BOUND)`.
fn random_int(rng: &mut SplitMix64) -> u64 {
    rng.next_u64() % INT_BOUND
}

/// A random value of `shape` for entry parameter `parameter`, determined by `seed`.
/// Arrays are row-major; tuples are filled element by element; tokens are tokens.
///
/// Panics if the memory cannot be had: for shapes the caller knows to be small. Inputs
/// use [`try_random_literal`].
pub fn random_literal(shape: &Shape, seed: u64, parameter: usize) -> Literal {
    try_random_literal(shape, seed, parameter).unwrap_or_else(|e| panic!("{e}"))
}

/// [`random_literal`], or an [`AllocError`] naming the parameter when its memory is over
/// the limits of [`crate::ir::size::check_allocation`] or the allocator refuses it.
pub fn try_random_literal(
    shape: &Shape,
    seed: u64,
    parameter: usize,
) -> Result<Literal, AllocError> {
    // Mix the parameter number in with a large odd constant so streams do not overlap.
    let mut rng =
        SplitMix64::new(seed ^ (parameter as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    random_value(shape, &mut rng, parameter)
}

fn random_value(
    shape: &Shape,
    rng: &mut SplitMix64,
    parameter: usize,
) -> Result<Literal, AllocError> {
    Ok(match shape {
        Shape::Array(a) => Literal::Array(random_array(a, rng, parameter)?),
        Shape::Tuple(elements) => Literal::Tuple(
            elements
                .iter()
                .map(|s| random_value(s, rng, parameter))
                .collect::<Result<_, _>>()?,
        ),
        Shape::Token | Shape::Opaque => Literal::Token,
    })
}

fn random_array(
    shape: &ArrayShape,
    rng: &mut SplitMix64,
    parameter: usize,
) -> Result<ArrayLiteral, AllocError> {
    let mut shape = shape.clone();
    shape.layout = Layout::row_major(shape.rank());
    let what = || format!("parameter {parameter} ({})", Shape::Array(shape.clone()));
    let Some(n) = shape.checked_element_count() else {
        return Err(AllocError {
            bytes: u64::MAX,
            what: what(),
            reason: AllocRefusal::Refused,
        });
    };
    use PrimitiveType as P;
    macro_rules! fill {
        ($variant:ident, $e:expr) => {{
            let mut v = try_vec_with_capacity(n, what)?;
            v.extend((0..n).map(|_| $e));
            ArrayData::$variant(v)
        }};
    }
    let data = match shape.element_type {
        P::Pred => fill!(Pred, rng.next_u64() & 1 == 1),
        P::S8 => fill!(S8, random_int(rng) as i8),
        P::S16 => fill!(S16, random_int(rng) as i16),
        P::S32 => fill!(S32, random_int(rng) as i32),
        P::S64 => fill!(S64, random_int(rng) as i64),
        P::U8 => fill!(U8, random_int(rng) as u8),
        P::U16 => fill!(U16, random_int(rng) as u16),
        P::U32 => fill!(U32, random_int(rng) as u32),
        P::U64 => fill!(U64, random_int(rng)),
        P::F16 => fill!(F16, f16::from_f64(random_float(rng))),
        P::BF16 => fill!(BF16, bf16::from_f64(random_float(rng))),
        P::F32 => fill!(F32, random_float(rng) as f32),
        P::F64 => fill!(F64, random_float(rng)),
        P::C64 => fill!(
            C64,
            Complex::new(random_float(rng) as f32, random_float(rng) as f32)
        ),
        P::C128 => fill!(C128, Complex::new(random_float(rng), random_float(rng))),
        // Types xlac does not execute (f8, s4, ...): zero bit patterns.
        _ => ArrayData::Raw(try_filled_vec(n, 0u8, what)?),
    };
    Ok(ArrayLiteral { shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs for seed 0, from the reference C implementation (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn same_seed_same_values_other_seed_other_values() {
        let s = Shape::array(PrimitiveType::F32, &[16]);
        assert_eq!(random_literal(&s, 3, 0), random_literal(&s, 3, 0));
        assert_ne!(random_literal(&s, 3, 0), random_literal(&s, 4, 0));
        assert_ne!(
            random_literal(&s, 3, 0),
            random_literal(&s, 3, 1),
            "parameters get their own streams"
        );
    }

    #[test]
    fn values_are_in_range() {
        let f = random_literal(&Shape::array(PrimitiveType::F64, &[1000]), 0, 0);
        let f = f.as_array().unwrap().values::<f64>().unwrap();
        assert!(f.iter().all(|&x| (-0.1..0.2).contains(&x)));
        assert!(
            f.iter().any(|&x| x < 0.0) && f.iter().any(|&x| x > 0.1),
            "covers the range"
        );
        let i = random_literal(&Shape::array(PrimitiveType::S32, &[1000]), 0, 0);
        let i = i.as_array().unwrap().values::<i32>().unwrap();
        assert!(i.iter().all(|&x| (0..4).contains(&x)));
        assert!((0..4).all(|v| i.contains(&v)));
        let p = random_literal(&Shape::array(PrimitiveType::Pred, &[100]), 0, 0);
        let p = p.as_array().unwrap().values::<bool>().unwrap();
        assert!(p.contains(&true) && p.contains(&false));
    }

    #[test]
    fn tuples_tokens_and_layouts() {
        let mut col = ArrayShape::new(PrimitiveType::BF16, &[2, 3]);
        col.layout.minor_to_major = vec![0, 1];
        let s = Shape::Tuple(vec![Shape::Array(col), Shape::Token]);
        let lit = random_literal(&s, 0, 0);
        let t = lit.as_tuple().unwrap();
        let a = t[0].as_array().unwrap();
        assert!(a.shape.layout.is_row_major());
        assert_eq!(a.values::<bf16>().unwrap().len(), 6);
        assert_eq!(t[1], Literal::Token);
    }
}
