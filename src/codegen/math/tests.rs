//! Accuracy tests for the math library: every function is JIT-compiled (host ISA) into a
//! `fn(a, b, out, n)` loop over scalars and over vectors, run on ~40k inputs, and compared
//! with references computed in Rust at higher precision: f32 functions against the f64
//! std/`libm` result rounded once, f64 functions against std f64 (itself within ~1 ULP) plus
//! exact special values. Errors are in ULPs of the result type, after flushing denormals to
//! zero on both sides (XLA:CPU runs with denormals flushed). Every run also checks that the
//! scalar and vector code give bit-identical results, with and without FMA.
//!
//! `cargo test --lib codegen::math -- --nocapture` prints the max-ULP table.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Type, Value};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

use super::*;

type Unary = fn(&mut FunctionBuilder, &MathOptions, Value) -> Value;
type Binary = fn(&mut FunctionBuilder, &MathOptions, Value, Value) -> Value;

#[derive(Clone, Copy)]
enum Op {
    Unary(Unary),
    Binary(Binary),
}

type KernelFn = unsafe extern "C" fn(*const u8, *const u8, *mut u8, i64);

fn host_isa() -> OwnedTargetIsa {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").unwrap();
    let isa = cranelift_native::builder().unwrap();
    isa.finish(settings::Flags::new(flags)).unwrap()
}

/// Compiles `out[i] = op(a[i], b[i])` for `n` lanes of `ty` (n a multiple of the lane count).
/// The module is returned with the function so the code stays alive.
fn compile(ty: Type, has_fma: bool, op: Op) -> (JITModule, KernelFn) {
    let isa = host_isa();
    let jb = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    let mut module = JITModule::new(jb);
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(ptr));
    }
    sig.params.push(AbiParam::new(types::I64));
    let id = module.declare_function("kernel", Linkage::Export, &sig).unwrap();
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.append_block_param(header, types::I64);
        b.switch_to_block(entry);
        let [pa, pb, pout, n] = b.block_params(entry).try_into().unwrap();
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().jump(header, &[zero.into()]);

        b.switch_to_block(header);
        let i = b.block_params(header)[0];
        let done = b.ins().icmp(cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThanOrEqual, i, n);
        b.ins().brif(done, exit, &[], body, &[]);

        b.switch_to_block(body);
        let lane_bytes = ty.lane_type().bytes() as i64;
        let off = b.ins().imul_imm_s(i, lane_bytes);
        let flags = MemFlagsData::new().with_notrap();
        let addr_a = b.ins().iadd(pa, off);
        let x = b.ins().load(ty, flags, addr_a, 0);
        let o = MathOptions { has_fma };
        let r = match op {
            Op::Unary(f) => f(&mut b, &o, x),
            Op::Binary(f) => {
                let addr_b = b.ins().iadd(pb, off);
                let y = b.ins().load(ty, flags, addr_b, 0);
                f(&mut b, &o, x, y)
            }
        };
        let addr_o = b.ins().iadd(pout, off);
        b.ins().store(flags, r, addr_o, 0);
        let next = b.ins().iadd_imm_s(i, ty.lane_count() as i64);
        b.ins().jump(header, &[next.into()]);

        b.switch_to_block(exit);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(module.isa().frontend_config());
    }
    module.define_function(id, &mut ctx).unwrap_or_else(|e| panic!("{e:?}\n{}", ctx.func.display()));
    module.clear_context(&mut ctx);
    module.finalize_definitions().unwrap();
    let f = unsafe { std::mem::transmute::<*const u8, KernelFn>(module.get_finalized_function(id)) };
    (module, f)
}

/// A float lane type the harness can run: f32 or f64.
trait Lane: Copy + Default + PartialEq + std::fmt::Debug {
    const SCALAR: Type;
    const VECTOR: Type;
    const LANES: usize;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn bits(self) -> u64;
    fn min_normal() -> f64;
}

impl Lane for f32 {
    const SCALAR: Type = types::F32;
    const VECTOR: Type = types::F32X4;
    const LANES: usize = 4;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn min_normal() -> f64 {
        f32::MIN_POSITIVE as f64
    }
}

impl Lane for f64 {
    const SCALAR: Type = types::F64;
    const VECTOR: Type = types::F64X2;
    const LANES: usize = 2;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn min_normal() -> f64 {
        f64::MIN_POSITIVE
    }
}

/// Runs `op` over (a[i], b[i]) with the given type and FMA setting.
fn run<T: Lane>(ty: Type, has_fma: bool, op: Op, a: &[T], b: &[T]) -> Vec<T> {
    let lanes = ty.lane_count() as usize;
    let n = a.len().div_ceil(lanes) * lanes;
    let mut pa = a.to_vec();
    pa.resize(n, T::default());
    let mut pb = b.to_vec();
    pb.resize(n, T::default());
    let mut out = vec![T::default(); n];
    let (_module, f) = compile(ty, has_fma, op);
    unsafe { f(pa.as_ptr() as *const u8, pb.as_ptr() as *const u8, out.as_mut_ptr() as *mut u8, n as i64) };
    out.truncate(a.len());
    out
}

/// FMA settings to test: always without; with, when the host has it.
fn fma_settings() -> Vec<bool> {
    let mut v = vec![false];
    if host_isa().has_native_fma() {
        v.push(true);
    }
    v
}

/// Maps a float to an integer line where adjacent floats differ by 1 (±0 both map to 0).
fn ordered(bits: u64, sign_bit: u64) -> i128 {
    if bits & sign_bit != 0 { -((bits & (sign_bit - 1)) as i128) } else { bits as i128 }
}

/// ULP distance between `got` and `want` after flushing denormals to (signed) zero. NaN
/// matches only NaN. A zero `want` requires the same sign of zero.
fn ulp_error<T: Lane>(got: T, want: T) -> u64 {
    let (g, w) = (got.to_f64(), want.to_f64());
    if w.is_nan() || g.is_nan() {
        return if w.is_nan() && g.is_nan() { 0 } else { u64::MAX };
    }
    if w == 0.0 && g == 0.0 && w.is_sign_negative() != g.is_sign_negative() {
        return u64::MAX;
    }
    let flush = |v: f64| if v.abs() < T::min_normal() { T::from_f64(0.0 * v.signum()) } else { T::from_f64(v) };
    let sign_bit = if T::LANES == 4 { 1u64 << 31 } else { 1u64 << 63 };
    let (g, w) = (flush(g), flush(w));
    (ordered(g.bits(), sign_bit) - ordered(w.bits(), sign_bit)).unsigned_abs() as u64
}

/// Runs scalar and vector code (with and without FMA), checks they agree bit for bit, and
/// returns the max ULP error against `want` with the worst input.
fn measure<T: Lane>(op: Op, a: &[T], b: &[T], want: &[T]) -> (u64, T, T, T, T) {
    let mut worst = (0u64, T::default(), T::default(), T::default(), T::default());
    for fma in fma_settings() {
        let scalar = run(T::SCALAR, fma, op, a, b);
        let vector = run(T::VECTOR, fma, op, a, b);
        for i in 0..a.len() {
            assert_eq!(
                scalar[i].bits(),
                vector[i].bits(),
                "scalar and vector differ at a={:?} b={:?} (fma={fma}): {:?} vs {:?}",
                a[i],
                b[i],
                scalar[i],
                vector[i]
            );
            let e = ulp_error(scalar[i], want[i]);
            if e > worst.0 {
                worst = (e, a[i], b[i], scalar[i], want[i]);
            }
        }
    }
    worst
}

/// Measures a unary function for one type and asserts the budget.
fn check_unary<T: Lane>(name: &str, op: Unary, xs: &[T], reference: impl Fn(T) -> T, budget: u64) -> u64 {
    let want: Vec<T> = xs.iter().map(|&x| reference(x)).collect();
    let (e, x, _, got, w) = measure(Op::Unary(op), xs, xs, &want);
    let ty = if T::LANES == 4 { "f32" } else { "f64" };
    println!("ULP {name:>9} {ty}: max {e} (at x={x:?}: got {got:?}, want {w:?}; {} points)", xs.len());
    assert!(e <= budget, "{name} {ty}: max ULP error {e} > budget {budget} at x={x:?}: got {got:?}, want {w:?}");
    e
}

/// Measures a binary function for one type and asserts the budget.
fn check_binary<T: Lane>(name: &str, op: Binary, xs: &[T], ys: &[T], reference: impl Fn(T, T) -> T, budget: u64) -> u64 {
    let want: Vec<T> = xs.iter().zip(ys).map(|(&x, &y)| reference(x, y)).collect();
    let (e, x, y, got, w) = measure(Op::Binary(op), xs, ys, &want);
    let ty = if T::LANES == 4 { "f32" } else { "f64" };
    println!("ULP {name:>9} {ty}: max {e} (at ({x:?}, {y:?}): got {got:?}, want {w:?}; {} points)", xs.len());
    assert!(e <= budget, "{name} {ty}: max ULP error {e} > budget {budget} at ({x:?}, {y:?}): got {got:?}, want {w:?}");
    e
}

// ---------------------------------------------------------------------------------------------
// Test points (XLA's accuracy tests use the same classes: specials, powers of 2 and 10,
// log-spaced ranges over the whole domain, dense ranges around tricky points).

fn linspace(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
}

/// Specials, powers of 2 and 10, and log-spaced magnitudes of both signs over the type's range.
fn points<T: Lane>(dense: &[(f64, f64, usize)]) -> Vec<T> {
    let (min_exp2, max_exp2, min_exp10, max_exp10) =
        if T::LANES == 4 { (-149, 127, -45, 38) } else { (-1074, 1023, -323, 308) };
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        T::min_normal(),
        -T::min_normal(),
        1.0,
        -1.0,
    ];
    if T::LANES == 4 {
        v.extend([f32::MAX as f64, f32::MIN as f64, 1e-40, -1e-40]);
    } else {
        v.extend([f64::MAX, f64::MIN, 1e-310, -1e-310]);
    }
    for e in min_exp2..=max_exp2 {
        v.extend([(e as f64).exp2(), -(e as f64).exp2()]);
    }
    for e in min_exp10..=max_exp10 {
        let p: f64 = format!("1e{e}").parse().unwrap();
        v.extend([p, -p]);
    }
    let (lo, hi) = (2f64.powi(min_exp2).ln(), 2f64.powi(max_exp2).ln() + 0.69);
    for x in linspace(lo, hi, 6000) {
        v.extend([x.exp(), -x.exp()]);
    }
    for &(lo, hi, n) in dense {
        v.extend(linspace(lo, hi, n));
    }
    v.into_iter().map(T::from_f64).collect()
}

/// f32 reference: the f64 function rounded once.
fn via_f64(f: fn(f64) -> f64) -> impl Fn(f32) -> f32 {
    move |x| f(x as f64) as f32
}

const ZERO_DENSE: (f64, f64, usize) = (-1e-3, 1e-3, 4001);
const SMALL_DENSE: (f64, f64, usize) = (-2.0, 2.0, 8001);

#[test]
fn exp_accuracy() {
    let d = [SMALL_DENSE, (-110.0, 110.0, 20001), (-750.0, 715.0, 20001), (86.0, 89.0, 3001), (708.0, 710.0, 3001)];
    check_unary::<f32>("exp", exp, &points(&d), via_f64(f64::exp), 2);
    check_unary::<f64>("exp", exp, &points(&d), f64::exp, 2);
}

#[test]
fn expm1_accuracy() {
    let d = [ZERO_DENSE, SMALL_DENSE, (-45.0, 100.0, 20001), (86.0, 89.0, 3001), (705.0, 710.0, 3001)];
    check_unary::<f32>("expm1", expm1, &points(&d), via_f64(f64::exp_m1), 2);
    check_unary::<f64>("expm1", expm1, &points(&d), f64::exp_m1, 2);
}

#[test]
fn log_accuracy() {
    let d = [(0.5, 2.0, 20001), (0.999, 1.001, 4001), (0.0, 100.0, 10001)];
    check_unary::<f32>("log", log, &points(&d), via_f64(f64::ln), 2);
    check_unary::<f64>("log", log, &points(&d), f64::ln, 2);
}

#[test]
fn log1p_accuracy() {
    let d = [ZERO_DENSE, (-1.0, 2.0, 20001), (-1.0, -0.999, 2001)];
    check_unary::<f32>("log1p", log1p, &points(&d), via_f64(f64::ln_1p), 3);
    check_unary::<f64>("log1p", log1p, &points(&d), f64::ln_1p, 3);
}

#[test]
fn tanh_accuracy() {
    let d = [ZERO_DENSE, SMALL_DENSE, (-25.0, 25.0, 20001)];
    check_unary::<f32>("tanh", tanh, &points(&d), via_f64(f64::tanh), 3);
    check_unary::<f64>("tanh", tanh, &points(&d), f64::tanh, 3);
}

fn logistic_ref(x: f64) -> f64 {
    // Both forms are within ~1.5 ULP in f64; the f32 reference rounds it once more.
    if x >= 0.0 { 1.0 / (1.0 + (-x).exp()) } else { x.exp() / (1.0 + x.exp()) }
}

#[test]
fn logistic_accuracy() {
    let d = [SMALL_DENSE, (-110.0, 110.0, 20001), (-750.0, 750.0, 10001)];
    check_unary::<f32>("logistic", logistic, &points(&d), via_f64(logistic_ref), 3);
    check_unary::<f64>("logistic", logistic, &points(&d), logistic_ref, 3);
}

#[test]
fn erf_accuracy() {
    let d = [ZERO_DENSE, SMALL_DENSE, (-7.0, 7.0, 20001), (0.8, 1.3, 4001), (2.7, 2.9, 2001)];
    check_unary::<f32>("erf", erf, &points(&d), via_f64(libm::erf), 1);
    check_unary::<f64>("erf", erf, &points(&d), libm::erf, 2);
}

/// Dense points around multiples of π/2 up to |x| = 1e4, where sin/cos/tan cancel.
fn trig_points<T: Lane>() -> Vec<T> {
    let mut d = vec![SMALL_DENSE, (-1e4, 1e4, 40001)];
    for k in [1.0, 2.0, 3.0, 10.0, 100.0, 1000.0, 6000.0] {
        let c = k * std::f64::consts::FRAC_PI_2;
        d.push((c - 1e-3, c + 1e-3, 201));
    }
    points::<T>(&d).into_iter().filter(|x| !(x.to_f64().abs() > 1e4)).collect()
}

#[test]
fn sin_cos_tan_accuracy() {
    check_unary::<f32>("sin", sin, &trig_points(), via_f64(f64::sin), 1);
    check_unary::<f64>("sin", sin, &trig_points(), f64::sin, 2);
    check_unary::<f32>("cos", cos, &trig_points(), via_f64(f64::cos), 1);
    check_unary::<f64>("cos", cos, &trig_points(), f64::cos, 2);
    check_unary::<f32>("tan", tan, &trig_points(), via_f64(f64::tan), 1);
    check_unary::<f64>("tan", tan, &trig_points(), f64::tan, 3);
}

/// Out of the reduction's exact range the results are not accurate, but they are finite and
/// bounded for finite inputs.
#[test]
fn sin_cos_large_arguments_stay_bounded() {
    let xs: Vec<f64> = (0..200).map(|i| 1e5 * 1.37f64.powi(i)).filter(|x| x.is_finite()).collect();
    for op in [sin as Unary, cos as Unary] {
        for v in run(types::F64X2, false, Op::Unary(op), &xs, &xs) {
            assert!((-1.0..=1.0).contains(&v), "{v}");
        }
    }
}

#[test]
fn atan2_accuracy() {
    fn grid<T: Lane>() -> (Vec<T>, Vec<T>) {
        let mut vals: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -1.0];
        vals.extend((-60..=60).map(|e| 1.7f64.powi(e)));
        vals.extend((-60..=60).map(|e| -(1.3f64.powi(e))));
        vals.extend(linspace(-3.0, 3.0, 61));
        let (mut ys, mut xs) = (vec![], vec![]);
        for &y in &vals {
            for &x in &vals {
                ys.push(T::from_f64(y));
                xs.push(T::from_f64(x));
            }
        }
        (ys, xs)
    }
    let (y, x) = grid::<f32>();
    check_binary::<f32>("atan2", atan2, &y, &x, |y, x| (y as f64).atan2(x as f64) as f32, 1);
    let (y, x) = grid::<f64>();
    check_binary::<f64>("atan2", atan2, &y, &x, f64::atan2, 2);
}

#[test]
fn pow_accuracy() {
    fn grid<T: Lane>() -> (Vec<T>, Vec<T>) {
        let mut xs_base: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -1.0, 0.5, 2.0, -2.0];
        xs_base.extend((-40..=40).map(|e| 1.9f64.powi(e)));
        xs_base.extend((-20..=20).map(|e| -(2.3f64.powi(e))));
        xs_base.extend(linspace(0.9, 1.1, 41));
        let mut ys_base: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.5, -0.5, 1.0 / 3.0];
        ys_base.extend((-10..=10).map(|i| i as f64));
        ys_base.extend(linspace(-300.0, 300.0, 61));
        ys_base.extend((-30..=30).map(|e| 1.5f64.powi(e)));
        ys_base.extend([1e6, -1e6, 1e300, -1e300, 3.0e9, 2f64.powi(53) + 2.0, 2f64.powi(52) + 1.0]);
        let (mut xs, mut ys) = (vec![], vec![]);
        for &x in &xs_base {
            for &y in &ys_base {
                xs.push(T::from_f64(x));
                ys.push(T::from_f64(y));
            }
        }
        // y·log x near the over/underflow limits, where log's error is amplified most;
        // x near √2 and √½ (the ends of log's reduced range).
        let big_t = if T::LANES == 4 { [1.0, 10.0, 40.0, 80.0, 88.0, -80.0, -100.0] } else { [1.0, 10.0, 100.0, 300.0, 700.0, -700.0, -740.0] };
        for x in [1.0001, 1.05, 1.3, 1.4142, 1.41421356, 0.70710678, 0.7072, 0.9, 3.0, 1e10, 1e-10, 1e100, 7e-300] {
            let x = T::from_f64(x).to_f64();
            for t in big_t {
                for i in 0..40 {
                    let y = t / x.ln() * (1.0 + i as f64 * 1e-4);
                    xs.push(T::from_f64(x));
                    ys.push(T::from_f64(y));
                }
            }
        }
        (xs, ys)
    }
    let (x, y) = grid::<f32>();
    check_binary::<f32>("pow", pow, &x, &y, |x, y| (x as f64).powf(y as f64) as f32, 1);
    let (x, y) = grid::<f64>();
    check_binary::<f64>("pow", pow, &x, &y, f64::powf, 2);
}

#[test]
fn cbrt_accuracy() {
    let d = [SMALL_DENSE, (-1000.0, 1000.0, 20001)];
    check_unary::<f32>("cbrt", cbrt, &points(&d), via_f64(f64::cbrt), 1);
    check_unary::<f64>("cbrt", cbrt, &points(&d), f64::cbrt, 1);
}

#[test]
fn sqrt_rsqrt_accuracy() {
    let d = [(0.0, 100.0, 10001)];
    check_unary::<f32>("sqrt", sqrt, &points(&d), f32::sqrt, 0);
    check_unary::<f64>("sqrt", sqrt, &points(&d), f64::sqrt, 0);
    check_unary::<f32>("rsqrt", rsqrt, &points(&d), via_f64(|x| 1.0 / x.sqrt()), 1);
    // 1/sqrt(x) in f64 is itself two roundings away from the true value.
    check_unary::<f64>("rsqrt", rsqrt, &points(&d), |x| 1.0 / x.sqrt(), 2);
}

// ---------------------------------------------------------------------------------------------
// Exact helpers: compared bit for bit with hand-written references.

fn copysign_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    copysign(b, x, y)
}
fn max_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    max(b, x, y)
}
fn min_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value, y: Value) -> Value {
    min(b, x, y)
}
fn round_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    round_nearest_afz(b, x)
}
fn is_finite_op(b: &mut FunctionBuilder, _o: &MathOptions, x: Value) -> Value {
    let k = Kind::of(b, x);
    let m = is_finite(b, x);
    let one = k.f(b, 1.0);
    let zero = k.f(b, 0.0);
    k.select(b, m, one, zero)
}

fn helper_values() -> Vec<f64> {
    let mut v = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -1.0, 1e-40, -1e-310];
    v.extend([0.5, -0.5, 0.49999997, -0.49999997, 0.49999999999999994, 1.5, 2.5, -2.5, 3.5, -3.5]);
    v.extend([8388607.5, 8388608.5, 4503599627370495.5, -4503599627370495.5, 1e30, -1e30, 1e300]);
    v.extend(linspace(-10.0, 10.0, 401));
    v
}

/// Bit-exact check of a binary helper in both widths, scalar and vector.
fn check_exact_binary(name: &str, op: Binary, reference: fn(f64, f64) -> f64) {
    let vals = helper_values();
    let (mut xs, mut ys) = (vec![], vec![]);
    for &x in &vals {
        for &y in &vals {
            xs.push(x);
            ys.push(y);
        }
    }
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let y32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
    for ty in [types::F32, types::F32X4] {
        let got = run(ty, false, Op::Binary(op), &x32, &y32);
        for i in 0..xs.len() {
            let want = reference(x32[i] as f64, y32[i] as f64) as f32;
            assert!(same(got[i].to_bits() as u64, want.to_bits() as u64, want.is_nan()), "{name}({}, {}) = {} want {want} ({ty})", x32[i], y32[i], got[i]);
        }
    }
    for ty in [types::F64, types::F64X2] {
        let got = run(ty, false, Op::Binary(op), &xs, &ys);
        for i in 0..xs.len() {
            let want = reference(xs[i], ys[i]);
            assert!(same(got[i].to_bits(), want.to_bits(), want.is_nan()), "{name}({}, {}) = {} want {want} ({ty})", xs[i], ys[i], got[i]);
        }
    }
}

fn check_exact_unary(name: &str, op: Unary, reference: fn(f64) -> f64) {
    let xs = helper_values();
    let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    for ty in [types::F32, types::F32X4] {
        let got = run(ty, false, Op::Unary(op), &x32, &x32);
        for i in 0..xs.len() {
            let want = reference(x32[i] as f64) as f32;
            assert!(same(got[i].to_bits() as u64, want.to_bits() as u64, want.is_nan()), "{name}({}) = {} want {want} ({ty})", x32[i], got[i]);
        }
    }
    for ty in [types::F64, types::F64X2] {
        let got = run(ty, false, Op::Unary(op), &xs, &xs);
        for i in 0..xs.len() {
            let want = reference(xs[i]);
            assert!(same(got[i].to_bits(), want.to_bits(), want.is_nan()), "{name}({}) = {} want {want} ({ty})", xs[i], got[i]);
        }
    }
}

/// Bit equality, except that any NaN matches any NaN.
fn same(got: u64, want: u64, want_nan: bool) -> bool {
    if want_nan {
        let g = f64::from_bits(got);
        let g32 = f32::from_bits(got as u32);
        (got >> 32 == 0 && g32.is_nan()) || g.is_nan()
    } else {
        got == want
    }
}

#[test]
fn copysign_is_exact() {
    check_exact_binary("copysign", copysign_op, f64::copysign);
}

/// XLA's maximum/minimum: NaN if either is NaN, else `a >= b ? a : b` (a on ±0 ties).
#[test]
fn max_min_propagate_nan() {
    check_exact_binary("max", max_op, |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else if a >= b { a } else { b });
    check_exact_binary("min", min_op, |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else if a <= b { a } else { b });
}

#[test]
fn round_nearest_afz_is_exact() {
    check_exact_unary("round_nearest_afz", round_op, f64::round);
}

#[test]
fn is_finite_is_exact() {
    check_exact_unary("is_finite", is_finite_op, |x| if x.is_finite() { 1.0 } else { 0.0 });
}

/// Hand-checked special values (NaN, infinities, signed zeros, exact points).
#[test]
fn special_values() {
    let inf = f64::INFINITY;
    let cases: &[(&str, Unary, f64, f64)] = &[
        ("exp", exp, inf, inf),
        ("exp", exp, -inf, 0.0),
        ("exp", exp, 0.0, 1.0),
        ("exp", exp, 1000.0, inf),
        ("expm1", expm1, -0.0, -0.0),
        ("expm1", expm1, -inf, -1.0),
        ("expm1", expm1, inf, inf),
        ("log", log, 0.0, -inf),
        ("log", log, -0.0, -inf),
        ("log", log, 1.0, 0.0),
        ("log", log, inf, inf),
        ("log", log, -1.0, f64::NAN),
        ("log1p", log1p, -0.0, -0.0),
        ("log1p", log1p, -1.0, -inf),
        ("log1p", log1p, inf, inf),
        ("log1p", log1p, -2.0, f64::NAN),
        ("tanh", tanh, -0.0, -0.0),
        ("tanh", tanh, inf, 1.0),
        ("tanh", tanh, -inf, -1.0),
        ("logistic", logistic, inf, 1.0),
        ("logistic", logistic, -inf, 0.0),
        ("logistic", logistic, 0.0, 0.5),
        ("erf", erf, -0.0, -0.0),
        ("erf", erf, inf, 1.0),
        ("erf", erf, -inf, -1.0),
        ("sin", sin, -0.0, -0.0),
        ("sin", sin, inf, f64::NAN),
        ("cos", cos, 0.0, 1.0),
        ("cos", cos, -inf, f64::NAN),
        ("tan", tan, -0.0, -0.0),
        ("cbrt", cbrt, -8.0, -2.0),
        ("cbrt", cbrt, -0.0, -0.0),
        ("cbrt", cbrt, -inf, -inf),
        ("sqrt", sqrt, -0.0, -0.0),
        ("sqrt", sqrt, -1.0, f64::NAN),
        ("rsqrt", rsqrt, 0.0, inf),
        ("rsqrt", rsqrt, 4.0, 0.5),
    ];
    for &(name, op, x, want) in cases {
        for fun in [unary_f32, unary_f64] {
            let got = fun(op, x);
            assert!(same(got.to_bits(), want.to_bits(), want.is_nan()), "{name}({x}) = {got}, want {want}");
        }
        for v in [f64::NAN, -f64::NAN] {
            assert!(unary_f64(op, v).is_nan() && unary_f32(op, v).is_nan(), "{name}(NaN) is not NaN");
        }
    }
    let pi = std::f64::consts::PI;
    let bin: &[(&str, Binary, f64, f64, f64)] = &[
        ("atan2", atan2, 0.0, -0.0, pi),
        ("atan2", atan2, -0.0, -0.0, -pi),
        ("atan2", atan2, -0.0, 1.0, -0.0),
        ("atan2", atan2, inf, -inf, 0.75 * pi),
        ("atan2", atan2, -inf, inf, -0.25 * pi),
        ("atan2", atan2, 1.0, 0.0, 0.5 * pi),
        ("atan2", atan2, f64::NAN, 1.0, f64::NAN),
        ("pow", pow, f64::NAN, 0.0, 1.0),
        ("pow", pow, 1.0, f64::NAN, 1.0),
        ("pow", pow, -1.0, inf, 1.0),
        ("pow", pow, -8.0, 1.0 / 3.0, f64::NAN),
        ("pow", pow, -2.0, 3.0, -8.0),
        ("pow", pow, -0.0, -3.0, -inf),
        ("pow", pow, -0.0, 3.0, -0.0),
        ("pow", pow, 0.0, -2.0, inf),
        ("pow", pow, -inf, 3.0, -inf),
        ("pow", pow, -inf, 0.5, inf),
        ("pow", pow, 2.0, 10.0, 1024.0),
        ("pow", pow, 10.0, -2.0, 0.01),
        ("pow", pow, 0.5, inf, 0.0),
        ("pow", pow, 2.0, -inf, 0.0),
    ];
    for &(name, op, x, y, want) in bin {
        let got = run::<f64>(types::F64, false, Op::Binary(op), &[x], &[y])[0];
        assert!(same(got.to_bits(), want.to_bits(), want.is_nan()), "{name}({x}, {y}) = {got}, want {want}");
        let got = run::<f32>(types::F32X4, false, Op::Binary(op), &[x as f32], &[y as f32])[0] as f64;
        let want32 = want as f32 as f64;
        assert!(same(got.to_bits(), want32.to_bits(), want.is_nan()), "{name}({x}, {y}) = {got}, want {want32} (f32x4)");
    }
}

fn unary_f32(op: Unary, x: f64) -> f64 {
    run::<f32>(types::F32X4, false, Op::Unary(op), &[x as f32], &[x as f32])[0] as f64
}

fn unary_f64(op: Unary, x: f64) -> f64 {
    run::<f64>(types::F64, false, Op::Unary(op), &[x], &[x])[0]
}

// ---------------------------------------------------------------------------------------------
// Every function, every type, on other ISAs: it must compile with no libcall (no relocation)
// and contain no instruction that can trap.

fn all_unary() -> Vec<(&'static str, Unary)> {
    vec![
        ("exp", exp),
        ("expm1", expm1),
        ("log", log),
        ("log1p", log1p),
        ("tanh", tanh),
        ("logistic", logistic),
        ("erf", erf),
        ("sin", sin),
        ("cos", cos),
        ("tan", tan),
        ("cbrt", cbrt),
        ("sqrt", sqrt),
        ("rsqrt", rsqrt),
        ("round_nearest_afz", round_op),
        ("is_finite", is_finite_op),
    ]
}

fn all_binary() -> Vec<(&'static str, Binary)> {
    vec![("atan2", atan2), ("pow", pow), ("copysign", copysign_op), ("max", max_op), ("min", min_op)]
}

/// Builds `fn(x[, y]) -> op(x[, y])` for `ty` and compiles it for `isa`.
fn compile_for(isa: &dyn cranelift_codegen::isa::TargetIsa, ty: Type, op: Op) -> Result<(), String> {
    use cranelift_codegen::ir::{Function, Signature, UserFuncName};
    let mut sig = Signature::new(isa.default_call_conv());
    let arity = if matches!(op, Op::Binary(_)) { 2 } else { 1 };
    for _ in 0..arity {
        sig.params.push(AbiParam::new(ty));
    }
    sig.returns.push(AbiParam::new(ty));
    let mut func = Function::with_name_signature(UserFuncName::testcase("math"), sig);
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let o = MathOptions { has_fma: isa.has_native_fma() };
        let r = match op {
            Op::Unary(f) => f(&mut b, &o, params[0]),
            Op::Binary(f) => f(&mut b, &o, params[0], params[1]),
        };
        b.ins().return_(&[r]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
    }
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let opcode = func.dfg.insts[inst].opcode();
            if opcode.can_trap() {
                return Err(format!("trapping instruction {opcode}"));
            }
        }
    }
    let mut ctx = cranelift_codegen::Context::for_function(func);
    let code = ctx
        .compile(isa, &mut cranelift_codegen::control::ControlPlane::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    match code.buffer.relocs() {
        [] => Ok(()),
        relocs => Err(format!("{} relocation(s) (libcalls): {:?}", relocs.len(), relocs[0].target)),
    }
}

#[test]
fn no_libcalls_or_traps_on_other_isas() {
    use std::str::FromStr;
    let targets: &[(&str, &[&str])] = &[
        ("x86_64-unknown-linux-gnu", &[]), // SSE2 only: no roundps, no FMA
        ("x86_64-unknown-linux-gnu", &["haswell"]),
        ("aarch64-unknown-linux-gnu", &[]),
        ("s390x-unknown-linux-gnu", &[]),
    ];
    let mut failures = vec![];
    for &(triple, presets) in targets {
        let mut ib = cranelift_codegen::isa::lookup(target_lexicon::Triple::from_str(triple).unwrap()).unwrap();
        for p in presets {
            ib.enable(p).unwrap();
        }
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").unwrap();
        let isa = ib.finish(settings::Flags::new(flags)).unwrap();
        for ty in [types::F32, types::F64, types::F32X4, types::F64X2] {
            let ops = all_unary()
                .into_iter()
                .map(|(n, f)| (n, Op::Unary(f)))
                .chain(all_binary().into_iter().map(|(n, f)| (n, Op::Binary(f))));
            for (name, op) in ops {
                if let Err(e) = compile_for(&*isa, ty, op) {
                    failures.push(format!("{triple} {presets:?} {name} {ty}: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
