//! Tests of `rng-bit-generator` against golden values from XLA:CPU, and of `rng`'s contract.
//!
//! Every `Case` below was printed by `scripts/golden_rng.py` (jax/jaxlib 0.10.2 on CPU):
//! u64[2] states through `jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)`,
//! u64[3] states through a hand-written `stablehlo.rng_bit_generator` module compiled by the
//! jaxlib CPU client (`jax.lax` only accepts u64[2] keys). Bits are listed row-major.

use super::*;
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{ComputationBuilder, Module, Op, PrimitiveType::*, RandomAlgorithm::*};

struct Case {
    algorithm: RandomAlgorithm,
    state: &'static [u64],
    dims: &'static [i64],
    ty: PrimitiveType,
    new_state: &'static [u64],
    bits: &'static [u64],
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    // three_fry, state ['0x1', '0x2'], uint32[2, 3]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x1, 0x2], dims: &[2, 3], ty: U32,
        new_state: &[0x1, 0x5],
        bits: &[43444564, 3979645651, 1672743891, 2150618427, 3745730563, 4240503393] },
    // three_fry, state ['0x123456789abcdef0', '0xffffffffffffffff'], uint32[5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x123456789abcdef0, 0xffffffffffffffff], dims: &[5], ty: U32,
        new_state: &[0x123456789abcdef0, 0x2],
        bits: &[2754706343, 569486026, 1593802813, 1289978105, 961273596] },
    // three_fry, state ['0x7', '0x2a'], uint32[]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x7, 0x2a], dims: &[], ty: U32,
        new_state: &[0x7, 0x2b],
        bits: &[1840826595] },
    // three_fry, state ['0x7', '0x2a'], uint32[3, 5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x7, 0x2a], dims: &[3, 5], ty: U32,
        new_state: &[0x7, 0x33],
        bits: &[1840826595, 1626631394, 1787582443, 1661566107, 2332484343, 1844903883, 2722664842, 2455917801, 1926954460, 2859232078, 1836525341, 37195727, 4069423450, 2133775001, 2986589293] },
    // three_fry, state ['0x7', '0x2a'], uint64[2, 1, 4]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x7, 0x2a], dims: &[2, 1, 4], ty: U64,
        new_state: &[0x7, 0x32],
        bits: &[6986328641717717219, 7136372091494619115, 9742441428436837111, 11693756456203911115, 8276206389037257961, 3013598947520047950, 159754432852469533, 9164493850386790746] },
    // three_fry, state ['0x7', '0x2a'], uint8[4]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x7, 0x2a], dims: &[4], ty: U8,
        new_state: &[0x7, 0x2c],
        bits: &[227, 226, 235, 155] },
    // three_fry, state ['0x7', '0x2a'], uint16[4]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: ThreeFry, state: &[0x7, 0x2a], dims: &[4], ty: U16,
        new_state: &[0x7, 0x2c],
        bits: &[51427, 27874, 22507, 31899] },
    // philox, state ['0x1', '0x2'], uint32[2, 3]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x1, 0x2], dims: &[2, 3], ty: U32,
        new_state: &[0x1, 0x4],
        bits: &[2100602697, 2847456232, 2074354647, 800269529, 1828267006, 3135207875] },
    // philox, state ['0x123456789abcdef0', '0xffffffffffffffff'], uint32[5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x123456789abcdef0, 0xffffffffffffffff], dims: &[5], ty: U32,
        new_state: &[0x123456789abcdef0, 0x1],
        bits: &[1480449822, 3015399692, 3935955418, 1076038438, 271420659] },
    // philox, state ['0x7', '0x2a'], uint32[]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x7, 0x2a], dims: &[], ty: U32,
        new_state: &[0x7, 0x2b],
        bits: &[1152053090] },
    // philox, state ['0x7', '0x2a'], uint32[3, 5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x7, 0x2a], dims: &[3, 5], ty: U32,
        new_state: &[0x7, 0x2e],
        bits: &[1152053090, 2704721653, 3315919173, 1300955287, 2894365028, 3378036609, 3213232580, 551649830, 1599564945, 2364330631, 1621078392, 3801229436, 742866413, 2934538009, 1357704024] },
    // philox, state ['0x7', '0x2a'], uint64[2, 1, 3]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x7, 0x2a], dims: &[2, 1, 3], ty: U64,
        new_state: &[0x7, 0x2d],
        bits: &[11616691045570113378, 5587560414539213125, 14508556763240104292, 2369317981907192260, 10154722738675608721, 16326156113833603448] },
    // philox, state ['0x7', '0x2a'], uint8[5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x7, 0x2a], dims: &[5], ty: U8,
        new_state: &[0x7, 0x2c],
        bits: &[98, 245, 69, 151, 100] },
    // philox, state ['0x7', '0x2a'], uint16[5]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Philox, state: &[0x7, 0x2a], dims: &[5], ty: U16,
        new_state: &[0x7, 0x2c],
        bits: &[61282, 50933, 59717, 151, 33124] },
    // philox, state ['0x7', '0x2a', '0x9'], uint32[2, 3]: stablehlo.rng_bit_generator compiled by the jaxlib CPU client
    Case { algorithm: Philox, state: &[0x7, 0x2a, 0x9], dims: &[2, 3], ty: U32,
        new_state: &[0x7, 0x2c, 0x9],
        bits: &[966754391, 3602261694, 3873593151, 2231139918, 2880242047, 81869932] },
    // philox, state ['0x7', '0xfffffffffffffffe', '0x9'], uint64[5]: stablehlo.rng_bit_generator compiled by the jaxlib CPU client
    Case { algorithm: Philox, state: &[0x7, 0xfffffffffffffffe, 0x9], dims: &[5], ty: U64,
        new_state: &[0x7, 0x1, 0xa],
        bits: &[4849175718385664714, 5756137391998727526, 10751828921277379452, 12371945925041993443, 5549587234887534670] },
    // default, state ['0x1', '0x2'], uint32[2, 3]: jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)
    Case { algorithm: Default, state: &[0x1, 0x2], dims: &[2, 3], ty: U32,
        new_state: &[0x1, 0x4],
        bits: &[2100602697, 2847456232, 2074354647, 800269529, 1828267006, 3135207875] },
    // default, state ['0x7', '0x2a', '0x9'], uint64[3]: stablehlo.rng_bit_generator compiled by the jaxlib CPU client
    Case { algorithm: Default, state: &[0x7, 0x2a, 0x9], dims: &[3], ty: U64,
        new_state: &[0x7, 0x2c, 0x9],
        bits: &[15471596168330313815, 9582672984483714879, 351628683345985919] },
];

/// The output bits of any integer type, widened to u64 (unsigned reinterpretation).
pub(crate) fn bits_as_u64(lit: &ArrayLiteral) -> Vec<u64> {
    match &lit.data {
        ArrayData::F16(v) => v.iter().map(|&x| u64::from(x.to_bits())).collect(),
        ArrayData::BF16(v) => v.iter().map(|&x| u64::from(x.to_bits())).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| u64::from(x.to_bits())).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| x.to_bits()).collect(),
        ArrayData::U8(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U16(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
        ArrayData::U64(v) => v.clone(),
        ArrayData::S32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
        ArrayData::S64(v) => v.iter().map(|&x| x as u64).collect(),
        other => panic!("unexpected output {other:?}"),
    }
}

fn run_case(
    algorithm: RandomAlgorithm,
    state: &[u64],
    dims: &[i64],
    ty: PrimitiveType,
) -> (Vec<u64>, ArrayLiteral) {
    let state_lit: Literal = ArrayLiteral::from_vec(&[state.len() as i64], state.to_vec()).into();
    let shape = Shape::Tuple(vec![state_lit.shape(), Shape::array(ty, dims)]);
    let out = rng_bit_generator(&shape, &state_lit, algorithm).expect("rng-bit-generator failed");
    let Literal::Tuple(parts) = out else {
        panic!("not a tuple")
    };
    let new_state = parts[0]
        .as_array()
        .unwrap()
        .values::<u64>()
        .unwrap()
        .to_vec();
    let bits = parts[1].as_array().unwrap().clone();
    assert_eq!(bits.shape.dims, dims);
    assert_eq!(bits.element_type(), ty);
    (new_state, bits)
}

#[test]
fn matches_xla_cpu_golden_values() {
    for (i, case) in CASES.iter().enumerate() {
        let (new_state, bits) = run_case(case.algorithm, case.state, case.dims, case.ty);
        assert_eq!(new_state, case.new_state, "case {i}: new state");
        assert_eq!(bits_as_u64(&bits), case.bits, "case {i}: bits");
    }
}

#[test]
fn signed_outputs_are_the_unsigned_bits() {
    // XLA produces the same bit pattern whatever the signedness; take case 0's u32 bits.
    let case = &CASES[0];
    let (_, bits) = run_case(case.algorithm, case.state, case.dims, S32);
    assert_eq!(bits_as_u64(&bits), case.bits);
    let (_, bits) = run_case(ThreeFry, &[7, 42], &[2, 1, 4], S64);
    let expected = CASES
        .iter()
        .find(|c| c.ty == U64 && c.algorithm == ThreeFry)
        .unwrap();
    assert_eq!(bits_as_u64(&bits), expected.bits);
}

#[test]
fn bad_states_and_types_are_errors() {
    let s3: Literal = ArrayLiteral::from_vec(&[3], vec![1u64, 2, 3]).into();
    let shape = Shape::Tuple(vec![s3.shape(), Shape::array(U32, &[4])]);
    assert!(rng_bit_generator(&shape, &s3, ThreeFry).is_err());
    let s2: Literal = ArrayLiteral::from_vec(&[2], vec![1u64, 2]).into();
    let shape = Shape::Tuple(vec![s2.shape(), Shape::array(F32, &[4])]);
    assert!(rng_bit_generator(&shape, &s2, Philox).is_err());
    let s2_u32: Literal = ArrayLiteral::from_vec(&[2], vec![1u32, 2]).into();
    let shape = Shape::Tuple(vec![s2_u32.shape(), Shape::array(U32, &[4])]);
    assert!(rng_bit_generator(&shape, &s2_u32, Philox).is_err());
}

#[test]
fn runs_through_the_evaluator() {
    // (state, bits) = rng-bit-generator(p0), algorithm=rng_philox, as a whole module.
    let mut b = ComputationBuilder::new("main");
    let p = b.parameter(0, Shape::array(U64, &[2]));
    let shape = Shape::Tuple(vec![Shape::array(U64, &[2]), Shape::array(U32, &[2, 3])]);
    let r = b.instr(shape, Op::RngBitGenerator { algorithm: Philox }, &[p]);
    let module = Module::new("m", b.build(r));
    let arg: Literal = ArrayLiteral::from_vec(&[2], vec![1u64, 2]).into();
    let out = evaluate(&module, &[arg], &EvalOptions::default()).unwrap();
    let case = &CASES
        .iter()
        .find(|c| c.algorithm == Philox && c.state == [1, 2])
        .unwrap();
    let parts = out.as_tuple().unwrap();
    assert_eq!(
        parts[0].as_array().unwrap().values::<u64>().unwrap(),
        case.new_state
    );
    assert_eq!(bits_as_u64(parts[1].as_array().unwrap()), case.bits);
}

/// Builds `rng(a, b)` for scalars `a`, `b` of one type and a result of `dims`.
fn rng_module(
    a: ArrayLiteral,
    b: ArrayLiteral,
    dims: &[i64],
    distribution: RandomDistribution,
) -> Module {
    let ty = a.element_type();
    let mut bld = ComputationBuilder::new("main");
    let a = bld.constant(a);
    let b = bld.constant(b);
    let r = bld.instr(Shape::array(ty, dims), Op::Rng { distribution }, &[a, b]);
    Module::new("m", bld.build(r))
}

#[test]
fn rng_uniform_stays_in_range_and_is_deterministic() {
    let m = rng_module(
        ArrayLiteral::scalar(-2.0f32),
        ArrayLiteral::scalar(3.0f32),
        &[1000],
        RandomDistribution::Uniform,
    );
    let opts = EvalOptions {
        seed: 5,
        ..EvalOptions::default()
    };
    let x = evaluate(&m, &[], &opts).unwrap();
    let v = x.as_array().unwrap().values::<f32>().unwrap().to_vec();
    assert!(v.iter().all(|&x| (-2.0..3.0).contains(&x)));
    let mean = v.iter().sum::<f32>() / 1000.0;
    assert!((mean - 0.5).abs() < 0.3, "mean {mean}");
    assert_eq!(
        evaluate(&m, &[], &opts).unwrap(),
        x,
        "same seed, same numbers"
    );
    assert_ne!(
        evaluate(
            &m,
            &[],
            &EvalOptions {
                seed: 6,
                ..EvalOptions::default()
            }
        )
        .unwrap(),
        x
    );

    let m = rng_module(
        ArrayLiteral::scalar(10i32),
        ArrayLiteral::scalar(13i32),
        &[200],
        RandomDistribution::Uniform,
    );
    let x = evaluate(&m, &[], &opts).unwrap();
    let v = x.as_array().unwrap().values::<i32>().unwrap();
    assert!(v.iter().all(|x| (10..13).contains(x)));
    for k in 10..13 {
        assert!(v.contains(&k), "{k} never drawn");
    }
}

#[test]
fn rng_normal_has_the_requested_moments() {
    let m = rng_module(
        ArrayLiteral::scalar(4.0f64),
        ArrayLiteral::scalar(0.5f64),
        &[4000],
        RandomDistribution::Normal,
    );
    let x = evaluate(
        &m,
        &[],
        &EvalOptions {
            seed: 1,
            ..EvalOptions::default()
        },
    )
    .unwrap();
    let v = x.as_array().unwrap().values::<f64>().unwrap();
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
    assert!((mean - 4.0).abs() < 0.05, "mean {mean}");
    assert!((var.sqrt() - 0.5).abs() < 0.05, "std {}", var.sqrt());
}

#[test]
fn rng_advances_its_state_between_calls() {
    let mut b = ComputationBuilder::new("main");
    let lo = b.constant(ArrayLiteral::scalar(0.0f32));
    let hi = b.constant(ArrayLiteral::scalar(1.0f32));
    let shape = Shape::array(F32, &[4]);
    let r1 = b.instr(
        shape.clone(),
        Op::Rng {
            distribution: RandomDistribution::Uniform,
        },
        &[lo, hi],
    );
    let r2 = b.instr(
        shape.clone(),
        Op::Rng {
            distribution: RandomDistribution::Uniform,
        },
        &[lo, hi],
    );
    let t = b.instr(
        Shape::Tuple(vec![shape.clone(), shape]),
        Op::Plain(crate::ir::Opcode::Tuple),
        &[r1, r2],
    );
    let m = Module::new("m", b.build(t));
    let out = evaluate(&m, &[], &EvalOptions::default()).unwrap();
    let parts = out.as_tuple().unwrap();
    assert_ne!(parts[0], parts[1]);
}

#[test]
fn rng_rejects_mismatched_parameters() {
    let m = rng_module(
        ArrayLiteral::scalar(0.0f32),
        ArrayLiteral::scalar(1.0f32),
        &[3],
        RandomDistribution::Uniform,
    );
    let mut bad = m.clone();
    let comp = &mut bad.computations[bad.entry];
    let root = comp.root;
    comp.instrs[root].shape = Shape::array(F64, &[3]);
    assert!(evaluate(&bad, &[], &EvalOptions::default()).is_err());
    let m = rng_module(
        ArrayLiteral::scalar(0i32),
        ArrayLiteral::scalar(1i32),
        &[3],
        RandomDistribution::Normal,
    );
    assert!(evaluate(&m, &[], &EvalOptions::default()).is_err());
}

/// One line of `xla_rng_op.txt`, printed by `scripts/golden_rng_op.py` (jax/jaxlib 0.10.2
/// on CPU, each case in a fresh process, the key read from XLA's dump after
/// `rng-expander`): `rng(a, b)` of one type and shape, XLA's Philox key, and the result
/// bits of the first and the second execution (the counter one delta further).
pub(crate) struct XlaRng {
    pub ty: &'static str,
    pub dims: Vec<i64>,
    pub distribution: &'static str,
    pub a: &'static str,
    pub b: &'static str,
    pub key: u64,
    pub first: Vec<u64>,
    pub second: Vec<u64>,
}

pub(crate) fn xla_rng_cases() -> Vec<XlaRng> {
    let field = |w: &'static str, k: &str| w.strip_prefix(k).expect("golden field");
    let numbers = |s: &str| s.split(',').map(|x| x.parse::<u64>().unwrap()).collect();
    include_str!("xla_rng_op.txt")
        .lines()
        .map(|line| {
            let w: Vec<&'static str> = line.split(' ').collect();
            XlaRng {
                ty: match w[0] {
                    "i32" => "s32",
                    "ui32" => "u32",
                    "i64" => "s64",
                    "ui64" => "u64",
                    t => t,
                },
                dims: match w[1] {
                    "scalar" => Vec::new(),
                    d => d.split('x').map(|x| x.parse().unwrap()).collect(),
                },
                distribution: match w[2] {
                    "UNIFORM" => "rng_uniform",
                    _ => "rng_normal",
                },
                a: w[3],
                b: w[4],
                key: field(w[5], "key=").parse().unwrap(),
                first: numbers(field(w[6], "first=")),
                second: numbers(field(w[7], "second=")),
            }
        })
        .collect()
}

impl XlaRng {
    /// The case as an HLO module whose root is the `rng` instruction `r`.
    pub fn hlo(&self) -> String {
        let dims = self
            .dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let layout = (0..self.dims.len())
            .rev()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(",");
        format!(
            "HloModule m\n\nENTRY main {{\n  a = {t}[] constant({a})\n  b = {t}[] constant({b})\n  \
             ROOT r = {t}[{dims}]{{{layout}}} rng(a, b), distribution={d}\n}}\n",
            t = self.ty,
            a = self.a,
            b = self.b,
            d = self.distribution,
        )
    }

    /// The seed that makes xlac's key of `r` XLA's key.
    pub fn seed(&self) -> u64 {
        self.key ^ rng_key(0, "r")
    }

    /// Checks `got` (a result of this case) against XLA's `want` bits: exact for uniform,
    /// within 4 ulp-sized steps of 1e-6 (f32) / 1e-14 (f64) relative for normal, whose
    /// log/sin/cos are XLA's approximations on one side and libm on the other.
    pub fn assert_matches(&self, got: &ArrayLiteral, want: &[u64], what: &str) {
        let bits = bits_as_u64(got);
        if self.distribution == "rng_uniform" {
            assert_eq!(bits, want, "{what}: {} {:?}", self.ty, self.dims);
            return;
        }
        let pairs: Vec<(f64, f64)> = match self.ty {
            "f32" => bits
                .iter()
                .zip(want)
                .map(|(&g, &w)| {
                    (
                        f64::from(f32::from_bits(g as u32)),
                        f64::from(f32::from_bits(w as u32)),
                    )
                })
                .collect(),
            _ => bits
                .iter()
                .zip(want)
                .map(|(&g, &w)| (f64::from_bits(g), f64::from_bits(w)))
                .collect(),
        };
        let rel = if self.ty == "f32" { 1e-6 } else { 1e-14 };
        assert_eq!(bits.len(), want.len());
        for (g, w) in pairs {
            assert!(
                (g - w).abs() <= rel * w.abs().max(1.0),
                "{what}: {} {:?}: {g} vs XLA's {w}",
                self.ty,
                self.dims
            );
        }
    }
}

#[test]
fn rng_matches_xla_cpu_given_its_key() {
    let cases = xla_rng_cases();
    assert_eq!(cases.len(), 11);
    for case in &cases {
        let m = crate::front::hlo_text::parse_module(&case.hlo(), "rng.hlo")
            .unwrap()
            .module;
        let options = EvalOptions {
            seed: case.seed(),
            ..EvalOptions::default()
        };
        // One evaluator, two calls: the second sees the counter XLA's second execution sees.
        let mut ev = Evaluator::new(&m, options);
        for want in [&case.first, &case.second] {
            let got = ev.call(m.entry, &[]).unwrap();
            case.assert_matches(got.as_array().unwrap(), want, "interpreter");
        }
    }
}

#[test]
fn rng_key_and_counter_follow_xla() {
    // FNV-1a of "" is the offset basis; the seed is xor-ed in.
    assert_eq!(rng_key(0, ""), 0xCBF2_9CE4_8422_2325);
    assert_eq!(rng_key(5, "r") ^ rng_key(0, "r"), 5);
    assert_eq!(RNG_STATE_INITIAL, 0x701_2395);
    // f16 and 8-bit results: f16 computes in f32; s8 is refused as XLA refuses it.
    let m = rng_module(
        ArrayLiteral::scalar(0i8),
        ArrayLiteral::scalar(5i8),
        &[3],
        RandomDistribution::Uniform,
    );
    let e = evaluate(&m, &[], &EvalOptions::default()).unwrap_err();
    assert!(e.to_string().contains("rng of s8"), "{e}");
}
