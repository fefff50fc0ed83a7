//! Tests of the small CHLO ops, the broadcasting ops, upcasting and errors. Expected values
//! are worked out by hand from the ops' definitions, or copied from the conformance corpus
//! (`stablehlo-interpret/chlo/mulhi.mlir`, `stablehlo-testdata/top_k_*_chlo.mlir`).

use half::bf16;
use num_complex::Complex;

use super::tests::{module_with_params, run};
use super::{ChloAttr, ChloOp, decompose};
use crate::ir::{
    ArrayLiteral, ComparisonDirection, ComparisonType, Literal, NativeType, Op, PrimitiveType,
    Shape,
};

/// A parameter of `values` with dims `dims`.
fn param<T: NativeType>(dims: &[i64], values: Vec<T>) -> (Shape, Literal) {
    let lit = ArrayLiteral::from_vec(dims, values);
    (Shape::Array(lit.shape.clone()), Literal::Array(lit))
}

/// The elements of result `i` as a typed vector.
fn values<T: NativeType>(out: &[Literal], i: usize) -> Vec<T> {
    out[i].as_array().unwrap().values::<T>().unwrap().to_vec()
}

fn attr(name: &str, a: ChloAttr) -> (String, ChloAttr) {
    (name.to_string(), a)
}

#[test]
fn is_inf_family() {
    let x = param(
        &[5],
        vec![f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, 0.0],
    );
    let pred = Shape::array(PrimitiveType::Pred, &[5]);
    let cases = [
        ("chlo.is_inf", [true, true, false, false, false]),
        ("chlo.is_pos_inf", [true, false, false, false, false]),
        ("chlo.is_neg_inf", [false, true, false, false, false]),
    ];
    for (op, want) in cases {
        let out = run(
            op,
            std::slice::from_ref(&x),
            std::slice::from_ref(&pred),
            &[],
        )
        .unwrap();
        assert_eq!(values::<bool>(&out, 0), want, "{op}");
    }
}

#[test]
fn conj_and_square() {
    let z = param(
        &[2],
        vec![Complex::new(3.0f32, 4.0), Complex::new(1.0, -1.0)],
    );
    let c64 = Shape::array(PrimitiveType::C64, &[2]);
    let out = run(
        "chlo.conj",
        std::slice::from_ref(&z),
        std::slice::from_ref(&c64),
        &[],
    )
    .unwrap();
    assert_eq!(
        values::<Complex<f32>>(&out, 0),
        [Complex::new(3.0, -4.0), Complex::new(1.0, 1.0)]
    );
    // (3+4i)^2 = -7+24i; (1-i)^2 = -2i with a real part of exactly +0.
    let out = run("chlo.square", &[z], &[c64], &[]).unwrap();
    let got = values::<Complex<f32>>(&out, 0);
    assert_eq!(got, [Complex::new(-7.0, 24.0), Complex::new(0.0, -2.0)]);
    assert!(got[1].re.is_sign_positive());

    let x = param(&[3], vec![-3.0f64, 0.5, 1e200]);
    let f64s = Shape::array(PrimitiveType::F64, &[3]);
    let out = run(
        "chlo.square",
        std::slice::from_ref(&x),
        std::slice::from_ref(&f64s),
        &[],
    )
    .unwrap();
    assert_eq!(values::<f64>(&out, 0), [9.0, 0.25, f64::INFINITY]);
    // conj of a real value is the value itself.
    let out = run("chlo.conj", &[x], &[f64s], &[]).unwrap();
    assert_eq!(values::<f64>(&out, 0), [-3.0, 0.5, 1e200]);
}

/// `chlo.mulhi` with the corpus's operands and expected values (mulhi.mlir).
#[test]
fn mulhi_matches_corpus() {
    fn check<T: NativeType>(a: Vec<T>, b: Vec<T>, want: Vec<T>) {
        let n = a.len() as i64;
        let (pa, pb) = (param(&[n], a), param(&[n], b));
        let shape = pa.0.clone();
        let out = run("chlo.mulhi", &[pa, pb], &[shape], &[]).unwrap();
        assert_eq!(values::<T>(&out, 0), want, "{:?}", T::TYPE);
    }
    check(vec![64i8, -64, -64], vec![4, 4, -4], vec![1, -1, 1]);
    check(vec![240u8, 128], vec![16, 2], vec![15, 1]);
    check(vec![16384i16, -16384], vec![8, 8], vec![2, -2]);
    check(vec![61440u16, 32768], vec![16, 2], vec![15, 1]);
    check(vec![268435456i32, -268435456], vec![16, 16], vec![1, -1]);
    check(vec![4026531840u32, 2147483648], vec![16, 2], vec![15, 1]);
    check(
        vec![1152921504606846976i64, -1152921504606846976],
        vec![16, 16],
        vec![1, -1],
    );
    check(
        vec![17293822569102704640u64, 9223372036854775808],
        vec![16, 2],
        vec![15, 1],
    );
    // Beyond the corpus: u64::MAX^2 = 2^128 - 2^65 + 1, high half u64::MAX - 1; and
    // i64::MIN * i64::MIN = 2^126, high half 2^62.
    check(vec![u64::MAX], vec![u64::MAX], vec![u64::MAX - 1]);
    check(vec![i64::MIN, -1], vec![i64::MIN, 1], vec![1 << 62, -1]);
}

#[test]
fn constant_like_takes_the_operand_shape() {
    let x = param(&[2, 2], vec![1i32, 2, 3, 4]);
    let out = run(
        "chlo.constant_like",
        &[x],
        &[Shape::array(PrimitiveType::F32, &[2, 2])],
        &[attr("value", ChloAttr::Float(2.5))],
    )
    .unwrap();
    assert_eq!(values::<f32>(&out, 0), [2.5; 4]);
}

/// Corpus `top_k_int32_6_chlo.mlir` and `top_k_bool_5_3_chlo.mlir`.
#[test]
fn top_k_of_integers_and_booleans() {
    let x = param(&[6], vec![5i32, 7, 5, 8, 8, 5]);
    let s32 = Shape::array(PrimitiveType::S32, &[3]);
    let k = [attr("k", ChloAttr::Int(3))];
    let out = run("chlo.top_k", &[x], &[s32.clone(), s32], &k).unwrap();
    assert_eq!(values::<i32>(&out, 0), [8, 8, 7]);
    assert_eq!(values::<i32>(&out, 1), [3, 4, 1]);

    let x = param(&[5, 3], vec![true; 15]);
    let shapes = [
        Shape::array(PrimitiveType::Pred, &[5, 2]),
        Shape::array(PrimitiveType::S32, &[5, 2]),
    ];
    let k = [attr("k", ChloAttr::Int(2))];
    let out = run("chlo.top_k", &[x], &shapes, &k).unwrap();
    assert_eq!(values::<bool>(&out, 0), [true; 10]);
    assert_eq!(values::<i32>(&out, 1), [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
}

#[test]
fn broadcast_add_aligns_trailing_dimensions() {
    // [[1,2,3],[4,5,6]] + [10,20,30] = [[11,22,33],[14,25,36]]
    let a = param(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = param(&[3], vec![10.0f32, 20.0, 30.0]);
    let shape = Shape::array(PrimitiveType::F32, &[2, 3]);
    let out = run("chlo.broadcast_add", &[a, b], &[shape], &[]).unwrap();
    assert_eq!(values::<f32>(&out, 0), [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
}

#[test]
fn broadcast_dimensions_map_the_lower_rank_operand() {
    // [[1,2,3],[4,5,6]] - [1,2] along dimension 0 = [[0,1,2],[2,3,4]]
    let a = param(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let b = param(&[2], vec![1i32, 2]);
    let shape = Shape::array(PrimitiveType::S32, &[2, 3]);
    let dims = [attr("broadcast_dimensions", ChloAttr::Ints(vec![0]))];
    let out = run("chlo.broadcast_subtract", &[a, b], &[shape], &dims).unwrap();
    assert_eq!(values::<i32>(&out, 0), [0, 1, 2, 2, 3, 4]);
}

#[test]
fn broadcast_stretches_size_one_dimensions() {
    // [[1],[2]] * [[10,20,30]] = [[10,20,30],[20,40,60]]
    let a = param(&[2, 1], vec![1i32, 2]);
    let b = param(&[1, 3], vec![10i32, 20, 30]);
    let shape = Shape::array(PrimitiveType::S32, &[2, 3]);
    let out = run("chlo.broadcast_multiply", &[a, b], &[shape], &[]).unwrap();
    assert_eq!(values::<i32>(&out, 0), [10, 20, 30, 20, 40, 60]);
}

#[test]
fn broadcast_compare_and_select() {
    let a = param(&[2, 2], vec![1.0f32, f32::NAN, 3.0, -0.0]);
    let b = param(&[], vec![0.0f32]);
    let pred = Shape::array(PrimitiveType::Pred, &[2, 2]);
    let attrs = [attr(
        "comparison_direction",
        ChloAttr::ComparisonDirection(ComparisonDirection::Gt),
    )];
    let out = run(
        "chlo.broadcast_compare",
        &[a.clone(), b],
        std::slice::from_ref(&pred),
        &attrs,
    )
    .unwrap();
    assert_eq!(values::<bool>(&out, 0), [true, false, true, false]);
    // TOTALORDER puts +nan above everything and -0 below +0.
    let total = [
        attrs[0].clone(),
        attr(
            "compare_type",
            ChloAttr::ComparisonType(ComparisonType::TotalOrder),
        ),
    ];
    let neg_zero = param(&[], vec![-0.0f32]);
    let out = run(
        "chlo.broadcast_compare",
        &[a.clone(), neg_zero],
        &[pred],
        &total,
    )
    .unwrap();
    assert_eq!(values::<bool>(&out, 0), [true, true, true, false]);

    // select([true, false], [[1,2],[3,4]], 9) = [[1,9],[3,9]]
    let p = param(&[2], vec![true, false]);
    let on_true = param(&[2, 2], vec![1i32, 2, 3, 4]);
    let on_false = param(&[], vec![9i32]);
    let shape = Shape::array(PrimitiveType::S32, &[2, 2]);
    let out = run(
        "chlo.broadcast_select",
        &[p, on_true, on_false],
        &[shape],
        &[],
    )
    .unwrap();
    assert_eq!(values::<i32>(&out, 0), [1, 9, 3, 9]);
}

#[test]
fn broadcast_of_a_special_function() {
    // zeta(2, q) for q = 1 and 2: pi^2/6 and pi^2/6 - 1.
    let x = param(&[], vec![2.0f64]);
    let q = param(&[2], vec![1.0f64, 2.0]);
    let shape = Shape::array(PrimitiveType::F64, &[2]);
    let out = run("chlo.broadcast_zeta", &[x, q], &[shape], &[]).unwrap();
    let z = std::f64::consts::PI.powi(2) / 6.0;
    let got = values::<f64>(&out, 0);
    assert!(
        (got[0] - z).abs() < 1e-14 && (got[1] - (z - 1.0)).abs() < 1e-14,
        "{got:?}"
    );
}

#[test]
fn bf16_is_computed_in_f32_and_rounded_back() {
    // lgamma(0.5) = log(sqrt(pi)) = 0.5723649..., lgamma(3) = log(2) = 0.6931472...
    let x = param(&[2], vec![bf16::from_f32(0.5), bf16::from_f32(3.0)]);
    let shape = x.0.clone();
    let out = run("chlo.lgamma", &[x], &[shape], &[]).unwrap();
    let want = [
        bf16::from_f64(0.5723649429247001),
        bf16::from_f64(2f64.ln()),
    ];
    assert_eq!(values::<bf16>(&out, 0), want);
}

/// (op name, parameters, part of the expected error).
type ErrorCase = (&'static str, Vec<(Shape, Literal)>, &'static str);

#[test]
fn unsupported_ops_and_types_are_errors() {
    let f = param(&[2], vec![1.0f32, 2.0]);
    let i = param(&[2], vec![1i32, 2]);
    let f_shape = f.0.clone();
    use crate::ir::ErrorKind::{Invalid, Unsupported};
    let cases: [(ErrorCase, crate::ir::ErrorKind); 5] = [
        (("chlo.scan", vec![f.clone()], "chlo.scan"), Invalid),
        (
            ("chlo.frobnicate", vec![f.clone()], "chlo.frobnicate"),
            Unsupported,
        ),
        (("chlo.erf", vec![i.clone()], "erf of s32"), Unsupported),
        (
            ("chlo.lgamma", vec![f.clone(), f.clone()], "takes 1 operand"),
            Invalid,
        ),
        (
            ("stablehlo.add", vec![f.clone(), f], "not a CHLO op"),
            Invalid,
        ),
    ];
    for ((name, params, message), kind) in cases {
        let err = run(name, &params, std::slice::from_ref(&f_shape), &[]).unwrap_err();
        assert!(err.message.contains(message), "{name}: {err}");
        assert_eq!(err.kind, kind, "{name}: {err}");
    }
    // A declared result type that does not match is reported, not silently accepted.
    let g = param(&[2], vec![1.0f32, 2.0]);
    let wrong = Shape::array(PrimitiveType::F64, &[2]);
    let err = run("chlo.erf", &[g], &[wrong], &[]).unwrap_err();
    assert!(err.message.contains("declared"), "{err}");
}

#[test]
fn names_are_unique_and_follow_the_op() {
    let x = param(&[3], vec![0.1f32, 0.2, 0.3]);
    let (mut module, ids) = module_with_params(std::slice::from_ref(&x));
    let entry = module.entry;
    let op = ChloOp {
        name: "chlo.erf_inv",
        operands: &ids,
        result_shapes: std::slice::from_ref(&x.0),
        attributes: &[],
    };
    decompose(&mut module, entry, &op).unwrap();
    decompose(&mut module, entry, &op).unwrap();
    let comp = module.entry_computation();
    let names: Vec<&str> = comp.iter().map(|(_, i)| i.name.as_str()).collect();
    let unique: std::collections::HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    assert!(
        names[1..].iter().all(|n| n.starts_with("erf_inv.")),
        "{names:?}"
    );
    // Constants are scalars broadcast to the operand's shape, as XLA writes them.
    assert!(
        comp.iter()
            .any(|(_, i)| matches!(i.op, Op::Broadcast { .. }))
    );
}
