//! Accuracy tests for the math library: every function is JIT-compiled (host ISA) into a
//! `fn(a, b, out, n)` loop over scalars and over vectors, run on ~40k inputs, and compared
//! with references computed in Rust at higher precision: f32 functions against the f64
//! std/`libm` result rounded once, f64 functions against std f64 (itself within ~1 ULP) plus
//! exact special values. Errors are in ULPs of the result type, after flushing denormals to
//! zero on both sides (XLA:CPU runs with denormals flushed). Every run also checks that the
//! scalar and vector code give bit-identical results, with and without FMA.
//!
//! `cargo test --lib codegen::math -- --nocapture` prints the max-ULP table.

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};

use super::*;

mod accuracy;
mod exact;
mod isa;

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
    let id = module
        .declare_function("kernel", Linkage::Export, &sig)
        .unwrap();
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
        let done = b.ins().icmp(
            cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThanOrEqual,
            i,
            n,
        );
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
    module
        .define_function(id, &mut ctx)
        .unwrap_or_else(|e| panic!("{e:?}\n{}", ctx.func.display()));
    module.clear_context(&mut ctx);
    module.finalize_definitions().unwrap();
    let f =
        unsafe { std::mem::transmute::<*const u8, KernelFn>(module.get_finalized_function(id)) };
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
    unsafe {
        f(
            pa.as_ptr() as *const u8,
            pb.as_ptr() as *const u8,
            out.as_mut_ptr() as *mut u8,
            n as i64,
        )
    };
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
    if bits & sign_bit != 0 {
        -((bits & (sign_bit - 1)) as i128)
    } else {
        bits as i128
    }
}

/// ULP distance between `got` and `want` after flushing denormals to (signed) zero. NaN
/// matches only NaN. A zero `want` requires the same sign of zero.
fn ulp_error<T: Lane>(got: T, want: T) -> u64 {
    let (g, w) = (got.to_f64(), want.to_f64());
    if w.is_nan() || g.is_nan() {
        return if w.is_nan() && g.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    if w == 0.0 && g == 0.0 && w.is_sign_negative() != g.is_sign_negative() {
        return u64::MAX;
    }
    let flush = |v: f64| {
        if v.abs() < T::min_normal() {
            T::from_f64(0.0 * v.signum())
        } else {
            T::from_f64(v)
        }
    };
    let sign_bit = if T::LANES == 4 {
        1u64 << 31
    } else {
        1u64 << 63
    };
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
fn check_unary<T: Lane>(
    name: &str,
    op: Unary,
    xs: &[T],
    reference: impl Fn(T) -> T,
    budget: u64,
) -> u64 {
    let want: Vec<T> = xs.iter().map(|&x| reference(x)).collect();
    let (e, x, _, got, w) = measure(Op::Unary(op), xs, xs, &want);
    let ty = if T::LANES == 4 { "f32" } else { "f64" };
    println!(
        "ULP {name:>9} {ty}: max {e} (at x={x:?}: got {got:?}, want {w:?}; {} points)",
        xs.len()
    );
    assert!(
        e <= budget,
        "{name} {ty}: max ULP error {e} > budget {budget} at x={x:?}: got {got:?}, want {w:?}"
    );
    e
}

/// Measures a binary function for one type and asserts the budget.
fn check_binary<T: Lane>(
    name: &str,
    op: Binary,
    xs: &[T],
    ys: &[T],
    reference: impl Fn(T, T) -> T,
    budget: u64,
) -> u64 {
    let want: Vec<T> = xs.iter().zip(ys).map(|(&x, &y)| reference(x, y)).collect();
    let (e, x, y, got, w) = measure(Op::Binary(op), xs, ys, &want);
    let ty = if T::LANES == 4 { "f32" } else { "f64" };
    println!(
        "ULP {name:>9} {ty}: max {e} (at ({x:?}, {y:?}): got {got:?}, want {w:?}; {} points)",
        xs.len()
    );
    assert!(
        e <= budget,
        "{name} {ty}: max ULP error {e} > budget {budget} at ({x:?}, {y:?}): got {got:?}, want {w:?}"
    );
    e
}

/// n evenly spaced points from lo to hi inclusive.
fn linspace(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
}
