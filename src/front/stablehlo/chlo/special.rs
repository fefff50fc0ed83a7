//! Special functions: erf, erfc, erf_inv, bessel_i1e (the gamma family is in `gamma`).
//!
//! Mirrors the `materialize*` functions of openxla/stablehlo
//! `stablehlo/transforms/ChloLegalizeToStablehlo.cpp`: the same polynomial and rational
//! approximations (Cephes, Eigen, Giles' erfinv, Lanczos), the same coefficients and the
//! same order of operations, so results round the way XLA's do. f16 and bf16 operands are
//! computed in f32 and rounded back (`materializeWithUpcast`); f64 has its own
//! coefficients where the reference has them.
//!
//! `chlo.erf` of f32 and f64 is not expanded: XLA turns it into the HLO `erf` op before
//! this legalization runs, and so does xlac.

// Coefficients keep the reference's digits, so they can be compared with its source.
#![allow(clippy::excessive_precision)]

use super::emit::Emitter;
use super::require_float;
use crate::ir::Refusal;
use crate::ir::{InstrId, Opcode, PrimitiveType};

/// `chlo.erf`: the HLO `erf` op, in f32 for f16/bf16.
pub(super) fn erf(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("erf", em, x)?;
    Ok(em.with_upcast(&[x], |em, a| em.unary(Opcode::Erf, a[0])))
}

/// `chlo.erfc`: Cephes approximations, `1 - erf(x)` for |x| < 1, `erfc` for |x| >= 1.
pub(super) fn erfc(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("erfc", em, x)?;
    if em.ty(x) == PrimitiveType::F64 {
        let ge_one = erfc_f64_ge_one(em, x);
        let le_one = erf_f64_le_one(em, x);
        return Ok(select_by_magnitude(em, x, le_one, ge_one));
    }
    Ok(em.with_upcast(&[x], |em, a| {
        let x = a[0];
        let ge_one = erfc_f32_ge_one(em, x);
        let le_one = erf_f32_le_one(em, x);
        select_by_magnitude(em, x, le_one, ge_one)
    }))
}

/// `|x| < 1 ? 1 - erf_small : erfc_large`.
fn select_by_magnitude(
    em: &mut Emitter<'_>,
    x: InstrId,
    erf_small: InstrId,
    erfc_large: InstrId,
) -> InstrId {
    let one = em.c(1.0, x);
    let from_erf = em.sub(one, erf_small);
    let abs_x = em.abs(x);
    let small = em.lt(abs_x, one);
    em.select(small, from_erf, erfc_large)
}

/// erf(x) = x T(x^2) / U(x^2) for |x| <= 1 (f64, Cephes).
fn erf_f64_le_one(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const T: [f64; 5] = [
        9.60497373987051638749E0,
        9.00260197203842689217E1,
        2.23200534594684319226E3,
        7.00332514112805075473E3,
        5.55923013010394962768E4,
    ];
    const U: [f64; 6] = [
        1.00000000000000000000E0,
        3.35617141647503099647E1,
        5.21357949780152679795E2,
        4.59432382970980127987E3,
        2.26290000613890934246E4,
        4.92673942608635921086E4,
    ];
    let x2 = em.mul(x, x);
    let t = em.polynomial(x2, &T);
    let xt = em.mul(x, t);
    let u = em.polynomial(x2, &U);
    em.div(xt, u)
}

/// erfc(x) for |x| >= 1 (f64, Cephes): exp(-x^2) P(|x|)/Q(|x|) below 8, R/S above,
/// 0 when exp underflows, and `2 - erfc(-x)` for negative x.
fn erfc_f64_ge_one(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const MAXLOG: f64 = 7.09782712893383996843E2;
    const P: [f64; 9] = [
        2.46196981473530512524E-10,
        5.64189564831068821977E-1,
        7.46321056442269912687E0,
        4.86371970985681366614E1,
        1.96520832956077098242E2,
        5.26445194995477358631E2,
        9.34528527171957607540E2,
        1.02755188689515710272E3,
        5.57535335369399327526E2,
    ];
    const Q: [f64; 9] = [
        1.00000000000000000000E0,
        1.32281951154744992508E1,
        8.67072140885989742329E1,
        3.54937778887819891062E2,
        9.75708501743205489753E2,
        1.82390916687909736289E3,
        2.24633760818710981792E3,
        1.65666309194161350182E3,
        5.57535340817727675546E2,
    ];
    const R: [f64; 6] = [
        5.64189583547755073984E-1,
        1.27536670759978104416E0,
        5.01905042251180477414E0,
        6.16021097993053585195E0,
        7.40974269950448939160E0,
        2.97886665372100240670E0,
    ];
    const S: [f64; 7] = [
        1.00000000000000000000E0,
        2.26052863220117276590E0,
        9.39603524938001434673E0,
        1.20489539808096656605E1,
        1.70814450747565897222E1,
        9.60896809063285878198E0,
        3.36907645100081516050E0,
    ];
    let x2 = em.mul(x, x);
    let z = em.neg(x2);
    let exp_z = em.exp(z);
    let abs_x = em.abs(x);
    let p = em.polynomial(abs_x, &P);
    let exp_p = em.mul(exp_z, p);
    let q = em.polynomial(abs_x, &Q);
    let below_8 = em.div(exp_p, q);
    let r = em.polynomial(abs_x, &R);
    let exp_r = em.mul(exp_z, r);
    let s = em.polynomial(abs_x, &S);
    let above_8 = em.div(exp_r, s);
    let eight = em.c(8.0, x);
    let lt_8 = em.lt(abs_x, eight);
    let approx = em.select(lt_8, below_8, above_8);
    clamp_and_reflect(em, x, z, approx, MAXLOG)
}

/// Shared tail of the erfc approximations: 0 when `z = -x^2 < -maxlog`, and
/// `erfc(x) = 2 - erfc(-x)` for x < 0.
fn clamp_and_reflect(
    em: &mut Emitter<'_>,
    x: InstrId,
    z: InstrId,
    approx: InstrId,
    maxlog: f64,
) -> InstrId {
    let neg_maxlog = em.c(-maxlog, x);
    let underflow = em.lt(z, neg_maxlog);
    let zero = em.c(0.0, x);
    let clamped = em.select(underflow, zero, approx);
    let negative = em.lt(x, zero);
    let two = em.c(2.0, x);
    let reflected = em.sub(two, clamped);
    em.select(negative, reflected, clamped)
}

/// erf(x) = x T(x^2) for |x| <= 1 (f32, Cephes).
fn erf_f32_le_one(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const T: [f32; 7] = [
        7.853861353153693E-5,
        -8.010193625184903E-4,
        5.188327685732524E-3,
        -2.685381193529856E-2,
        1.128358514861418E-1,
        -3.761262582423300E-1,
        1.128379165726710E+0,
    ];
    let x2 = em.mul(x, x);
    let t = em.polynomial(x2, &widen(&T));
    em.mul(x, t)
}

/// erfc(x) for |x| >= 1 (f32, Cephes): exp(-x^2)/|x| P(1/x^2) below 2, R(1/x^2) above.
fn erfc_f32_ge_one(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const MAXLOG: f64 = 88.72283905206835;
    const P: [f32; 9] = [
        2.326819970068386E-2,
        -1.387039388740657E-1,
        3.687424674597105E-1,
        -5.824733027278666E-1,
        6.210004621745983E-1,
        -4.944515323274145E-1,
        3.404879937665872E-1,
        -2.741127028184656E-1,
        5.638259427386472E-1,
    ];
    const R: [f32; 8] = [
        -1.047766399936249E+1,
        1.297719955372516E+1,
        -7.495518717768503E+0,
        2.921019019210786E+0,
        -1.015265279202700E+0,
        4.218463358204948E-1,
        -2.820767439740514E-1,
        5.641895067754075E-1,
    ];
    let x2 = em.mul(x, x);
    let z = em.neg(x2);
    let abs_x = em.abs(x);
    let one = em.c(1.0, x);
    let recip_x2 = em.div(one, x2);
    let exp_z = em.exp(z);
    let recip_abs = em.div(one, abs_x);
    let scale = em.mul(exp_z, recip_abs);
    let two = em.c(2.0, x);
    let lt_2 = em.lt(abs_x, two);
    let p = em.polynomial(recip_x2, &widen(&P));
    let r = em.polynomial(recip_x2, &widen(&R));
    let poly = em.select(lt_2, p, r);
    let approx = em.mul(scale, poly);
    clamp_and_reflect(em, x, z, approx, MAXLOG)
}

/// f32 coefficients as the f64 values `getConstantLike` receives.
fn widen(c: &[f32]) -> Vec<f64> {
    c.iter().map(|&v| v as f64).collect()
}

/// f64 coefficients rounded to f32, as the f64 values `getConstantLike` receives.
fn as_f32(c: &[f64]) -> Vec<f64> {
    c.iter().map(|&v| v as f32 as f64).collect()
}

/// `chlo.erf_inv`: Giles' single-precision approximation (f32, f16, bf16) or the
/// three-region double-precision one (f64); `erf_inv(±1) = ±inf`.
pub(super) fn erf_inv(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("erf_inv", em, x)?;
    if em.ty(x) == PrimitiveType::F64 {
        return Ok(erf_inv_f64(em, x));
    }
    Ok(em.with_upcast(&[x], |em, a| erf_inv_f32(em, a[0])))
}

/// `w = -log1p(-x^2)`.
fn erf_inv_w(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    let neg_x = em.neg(x);
    let minus_x2 = em.mul(x, neg_x);
    let l = em.log1p(minus_x2);
    em.neg(l)
}

/// `|x| == 1 ? x * inf : result`.
fn erf_inv_edges(em: &mut Emitter<'_>, x: InstrId, result: InstrId) -> InstrId {
    let abs_x = em.abs(x);
    let one = em.c(1.0, x);
    let at_one = em.eq(abs_x, one);
    let inf = em.inf(false, x);
    let x_inf = em.mul(x, inf);
    em.select(at_one, x_inf, result)
}

fn erf_inv_f32(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const W_LT_5: [f32; 9] = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ];
    const W_GE_5: [f32; 9] = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ];
    let w = erf_inv_w(em, x);
    let five = em.c(5.0, x);
    let lt = em.lt(w, five);
    let coefficient = |em: &mut Emitter<'_>, i: usize| {
        let a = em.c(W_LT_5[i] as f64, x);
        let b = em.c(W_GE_5[i] as f64, x);
        em.select(lt, a, b)
    };
    let two_and_half = em.c(2.5, x);
    let w_small = em.sub(w, two_and_half);
    let sqrt_w = em.sqrt(w);
    let three = em.c(3.0, x);
    let w_large = em.sub(sqrt_w, three);
    let w = em.select(lt, w_small, w_large);
    let mut p = coefficient(em, 0);
    for i in 1..W_LT_5.len() {
        let c = coefficient(em, i);
        let pw = em.mul(p, w);
        p = em.add(c, pw);
    }
    let result = em.mul(p, x);
    erf_inv_edges(em, x, result)
}

fn erf_inv_f64(em: &mut Emitter<'_>, x: InstrId) -> InstrId {
    const W_LT_625: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const W_LT_16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const W_GE_16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    let w = erf_inv_w(em, x);
    let c625 = em.c(6.25, x);
    let lt625 = em.lt(w, c625);
    let c16 = em.c(16.0, x);
    let lt16 = em.lt(w, c16);
    // The three regions share one Horner loop: the coefficient is selected per element,
    // and the shorter polynomials stop early (their later steps keep `p`).
    let coefficient = |em: &mut Emitter<'_>, i: usize| {
        let mut c = em.c(W_LT_625[i], x);
        if i < W_LT_16.len() {
            let d = em.c(W_LT_16[i], x);
            c = em.select(lt625, c, d);
        }
        if i < W_GE_16.len() {
            let d = em.c(W_GE_16[i], x);
            c = em.select(lt16, c, d);
        }
        c
    };
    let sqrt_w = em.sqrt(w);
    let c3125 = em.c(3.125, x);
    let w_small = em.sub(w, c3125);
    let c325 = em.c(3.25, x);
    let c5 = em.c(5.0, x);
    let shift = em.select(lt16, c325, c5);
    let w_large = em.sub(sqrt_w, shift);
    let w = em.select(lt625, w_small, w_large);
    let mut p = coefficient(em, 0);
    for i in 1..W_GE_16.len() {
        let c = coefficient(em, i);
        let pw = em.mul(p, w);
        p = em.add(c, pw);
    }
    for i in W_GE_16.len()..W_LT_16.len() {
        let c = coefficient(em, i);
        let pw = em.mul(p, w);
        let next = em.add(c, pw);
        p = em.select(lt16, next, p);
    }
    for i in W_LT_16.len()..W_LT_625.len() {
        let c = coefficient(em, i);
        let pw = em.mul(p, w);
        let next = em.add(c, pw);
        p = em.select(lt625, next, p);
    }
    let result = em.mul(p, x);
    erf_inv_edges(em, x, result)
}

/// `chlo.bessel_i1e`: exponentially scaled modified Bessel function of order one, by
/// Cephes' Chebyshev expansions on [0, 8] and (8, inf).
pub(super) fn bessel_i1e(em: &mut Emitter<'_>, x: InstrId) -> Result<InstrId, Refusal> {
    require_float("bessel_i1e", em, x)?;
    if em.ty(x) == PrimitiveType::F64 {
        return Ok(bessel_i1e_of(em, x, &I1E_A_F64, &I1E_B_F64));
    }
    Ok(em.with_upcast(&[x], |em, a| {
        // The f32 coefficients are the last 17 and 7 of the f64 ones, rounded to f32
        // (checked: the same f32 values as the decimal literals of XLA's f32 tables).
        let (ca, cb) = (as_f32(&I1E_A_F64[12..]), as_f32(&I1E_B_F64[18..]));
        bessel_i1e_of(em, a[0], &ca, &cb)
    }))
}

const I1E_A_F64: [f64; 29] = [
    2.77791411276104639959E-18,
    -2.11142121435816608115E-17,
    1.55363195773620046921E-16,
    -1.10559694773538630805E-15,
    7.60068429473540693410E-15,
    -5.04218550472791168711E-14,
    3.22379336594557470981E-13,
    -1.98397439776494371520E-12,
    1.17361862988909016308E-11,
    -6.66348972350202774223E-11,
    3.62559028155211703701E-10,
    -1.88724975172282928790E-9,
    9.38153738649577178388E-9,
    -4.44505912879632808065E-8,
    2.00329475355213526229E-7,
    -8.56872026469545474066E-7,
    3.47025130813767847674E-6,
    -1.32731636560394358279E-5,
    4.78156510755005422638E-5,
    -1.61760815825896745588E-4,
    5.12285956168575772895E-4,
    -1.51357245063125314899E-3,
    4.15642294431288815669E-3,
    -1.05640848946261981558E-2,
    2.47264490306265168283E-2,
    -5.29459812080949914269E-2,
    1.02643658689847095384E-1,
    -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
];
const I1E_B_F64: [f64; 25] = [
    7.51729631084210481353E-18,
    4.41434832307170791151E-18,
    -4.65030536848935832153E-17,
    -3.20952592199342395980E-17,
    2.96262899764595013876E-16,
    3.30820231092092828324E-16,
    -1.88035477551078244854E-15,
    -3.81440307243700780478E-15,
    1.04202769841288027642E-14,
    4.27244001671195135429E-14,
    -2.10154184277266431302E-14,
    -4.08355111109219731823E-13,
    -7.19855177624590851209E-13,
    2.03562854414708950722E-12,
    1.41258074366137813316E-11,
    3.25260358301548823856E-11,
    -1.89749581235054123450E-11,
    -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,
    -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,
    -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
];

fn bessel_i1e_of(em: &mut Emitter<'_>, x: InstrId, a: &[f64], b: &[f64]) -> InstrId {
    let z = em.abs(x);
    let half = em.c(0.5, x);
    let two = em.c(2.0, x);
    let thirty_two = em.c(32.0, x);
    let eight = em.c(8.0, x);
    let hz = em.mul(half, z);
    let arg_small = em.sub(hz, two);
    let small = chebyshev_full(em, arg_small, a);
    let small = em.mul(z, small);
    let q = em.div(thirty_two, z);
    let arg_large = em.sub(q, two);
    let large = chebyshev_full(em, arg_large, b);
    let sqrt_z = em.sqrt(z);
    let large = em.div(large, sqrt_z);
    let le8 = em.le(z, eight);
    let selected = em.select(le8, small, large);
    let sign = em.sign(x);
    em.mul(sign, selected)
}

/// `materializeChebyshevPolynomialApproximation`: Clenshaw, then `(b0 - b2) * 0.5`.
fn chebyshev_full(em: &mut Emitter<'_>, x: InstrId, coefficients: &[f64]) -> InstrId {
    let zero = em.c(0.0, x);
    let (mut b0, mut b1, mut b2) = (zero, zero, zero);
    for &c in coefficients {
        b2 = b1;
        b1 = b0;
        let xb1 = em.mul(x, b1);
        let d = em.sub(xb1, b2);
        let k = em.c(c, x);
        b0 = em.add(d, k);
    }
    let diff = em.sub(b0, b2);
    let half = em.c(0.5, x);
    em.mul(diff, half)
}
