//! The block routines against the inline CLIF math they mirror, bit for bit, and against
//! f64 references within the math library's ULP budgets.
//!
//! The "same bits" reference is compiled CLIF, not Rust: `codegen::math::{exp, tanh}` emitted
//! on `f32x4` with `MathOptions { has_fma: true }` into a loop over a buffer, JIT-compiled
//! for the host with the codegen's own ISA settings (the tests check the code really holds
//! `f32x4` arithmetic and a native FMA instruction). A second reference is the kernel the
//! codegen emits for a one-op HLO fusion (`exponential`, `tanh` on f32[N]), checked the same
//! way. Every path the host has (AVX-512, AVX2, scalar) runs on ~110k inputs (specials, the
//! clamp/overflow/underflow edges with their neighbouring floats, powers of 2 and 10,
//! log-spaced magnitudes, dense ranges, random bit patterns), with the default float mode
//! and with FTZ/DAZ as kernels run, and on lengths that exercise the loop tails.
//! NaN lanes are compared by NaN-ness; payload differences are counted and printed.

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Value, types};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};

use super::*;
use crate::codegen::denormals::with_flushed_denormals;
use crate::codegen::jit::new_jit_with_isa;
use crate::codegen::math::{self, MathOptions};
use crate::codegen::{CodegenOptions, compile_kernels};
use crate::eval::SplitMix64;

type Unary = fn(&mut FunctionBuilder, &MathOptions, Value) -> Value;
/// `(in, out, n)`: `out[0..n] = f(in[0..n])`, n a multiple of 4.
type LoopFn = unsafe extern "C" fn(*const f32, *mut f32, i64);
/// A block routine's signature.
type BlockFn = unsafe extern "C" fn(*mut f32, u64, *mut PrefetchQueue, u64);

/// One function under test: its CLIF builder, block routine, HLO opcode and f64 reference.
struct Case {
    name: &'static str,
    clif: Unary,
    block: BlockFn,
    kernels: &'static Kernels,
    reference: fn(f64) -> f64,
    budget: u64,
}

fn cases() -> [Case; 2] {
    [
        Case {
            name: "exponential",
            clif: math::exp,
            block: xlac_block_exp_f32,
            kernels: exp::kernels(),
            reference: f64::exp,
            budget: 1,
        },
        Case {
            name: "tanh",
            clif: math::tanh,
            block: xlac_block_tanh_f32,
            kernels: tanh::kernels(),
            reference: f64::tanh,
            budget: 5,
        },
    ]
}

/// The paths this host can run.
fn paths() -> Vec<Path> {
    match host_path() {
        Path::Avx512 => vec![Path::Avx512, Path::Avx2, Path::Scalar],
        Path::Avx2 => vec![Path::Avx2, Path::Scalar],
        Path::Scalar => vec![Path::Scalar],
    }
}

// ---------------------------------------------------------------------------------------------
// The CLIF reference.

/// Compiles `out[i..i+4] = f(in[i..i+4])` over f32x4 with FMA, with the codegen's ISA. The
/// module is returned with the function so that the code stays alive. Panics unless the
/// host ISA has a native FMA and the machine code uses it.
fn compile_clif_f32x4(f: Unary) -> (JITModule, LoopFn) {
    let (mut module, _, isa): (JITModule, _, OwnedTargetIsa) = new_jit_with_isa(true).unwrap();
    assert!(
        isa.has_native_fma(),
        "the reference must be the FMA path: the host ISA has no FMA"
    );
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([ptr, ptr, types::I64].map(AbiParam::new));
    let id = module
        .declare_function("reference", Linkage::Export, &sig)
        .unwrap();
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.set_disasm(true);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    let (entry, header, body, exit) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    b.append_block_params_for_function_params(entry);
    b.append_block_param(header, types::I64);
    b.switch_to_block(entry);
    let [pin, pout, n] = b.block_params(entry).try_into().unwrap();
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
    let off = b.ins().imul_imm_s(i, 4);
    let flags = MemFlagsData::new().with_notrap();
    let a = b.ins().iadd(pin, off);
    let x = b.ins().load(types::F32X4, flags, a, 0);
    let r = f(&mut b, &MathOptions { has_fma: true }, x);
    let a = b.ins().iadd(pout, off);
    b.ins().store(flags, r, a, 0);
    let next = b.ins().iadd_imm_s(i, 4);
    b.ins().jump(header, &[next.into()]);
    b.switch_to_block(exit);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(module.isa().frontend_config());
    module.define_function(id, &mut ctx).unwrap();
    let vcode = ctx
        .compiled_code()
        .and_then(|c| c.vcode.clone())
        .unwrap_or_default();
    // x86-64: the FMA must be a native instruction (not a `fmaf` libcall).
    #[cfg(target_arch = "x86_64")]
    assert!(
        vcode.contains("vfmadd"),
        "the reference has no vfmadd instruction:\n{vcode}"
    );
    let _ = vcode;
    module.clear_context(&mut ctx);
    module.finalize_definitions().unwrap();
    // SAFETY: the function was defined with `LoopFn`'s signature.
    let f = unsafe { std::mem::transmute::<*const u8, LoopFn>(module.get_finalized_function(id)) };
    (module, f)
}

/// Runs the compiled reference over `xs` (padded to a multiple of 4).
fn run_clif(f: LoopFn, xs: &[f32]) -> Vec<f32> {
    let n = xs.len().div_ceil(4) * 4;
    let mut input = xs.to_vec();
    input.resize(n, 0.0);
    let mut out = vec![0f32; n];
    // SAFETY: both buffers hold `n` f32, n a multiple of 4.
    unsafe { f(input.as_ptr(), out.as_mut_ptr(), n as i64) };
    out.truncate(xs.len());
    out
}

/// Runs the kernel the codegen emits for `ROOT f32[N] <op>(p)` in a loop fusion, if that
/// kernel is the inline f32x4 + FMA math (not a call of the block routine itself).
fn run_fusion(op: &str, xs: &[f32]) -> Option<Vec<f32>> {
    let n = xs.len().div_ceil(8) * 8;
    let text = format!(
        "HloModule m
fused {{
  p = f32[{n}]{{0}} parameter(0)
  ROOT r = f32[{n}]{{0}} {op}(p)
}}
ENTRY main {{
  a = f32[{n}]{{0}} parameter(0)
  ROOT f = f32[{n}]{{0}} fusion(a), kind=kLoop, calls=fused
}}"
    );
    let module = crate::front::hlo_text::parse_module(&text, "test")
        .unwrap()
        .module;
    let kernels = compile_kernels(
        &module,
        &CodegenOptions {
            keep_artifacts: true,
            // The inline kernel is the reference: no block routine in it.
            block_math: false,
            no_fp_contraction: false,
        },
    )
    .unwrap();
    let kernel = &kernels.kernels[0];
    let clif = &kernel.artifacts.clif_no_opt;
    assert!(!clif.contains("xlac_block"), "{clif}");
    assert!(clif.contains("f32x4") && clif.contains("fma"), "{clif}");
    let mut input = xs.to_vec();
    input.resize(n, 0.0);
    let mut out = vec![0f32; n];
    let table = [input.as_mut_ptr() as *mut u8, out.as_mut_ptr() as *mut u8];
    // Only the kernel runs with denormals flushed, as the runtime runs it: compiling inside
    // the flushed region could start rayon's pool there, and its threads would inherit
    // FTZ/DAZ for the rest of the process (an interpreter test that runs faer on the pool
    // later, `eval::lapack::tests::geev_left_and_right_vectors`, then computes with flushed
    // denormals and fails).
    // SAFETY: one input and one output buffer of f32[n], as the fusion's shapes say.
    with_flushed_denormals(|| unsafe { (kernel.entry)(table.as_ptr(), 0, kernel.work_units) });
    out.truncate(xs.len());
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Inputs and comparisons.

fn linspace(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
}

/// The test points (~110k): see the file header.
fn points() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signaling NaN
        f32::from_bits(0xffc0_1234), // negative quiet NaN with a payload
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        1e-40,
        -1e-40,
        1.0,
        -1.0,
    ];
    // The clamp, overflow and underflow edges and their neighbouring floats.
    let edges = [
        -104.0, 89.0, 88.72284, 88.7, -87.33655, -103.97208, -88.0, -100.0, 7.905311, 0.0004, 9.0,
        0.5,
    ];
    for e in edges {
        for s in [1.0f32, -1.0] {
            let b = (s * e as f32).to_bits() as i64;
            for d in -64..=64 {
                v.push(f32::from_bits((b + d) as u32));
            }
        }
    }
    for e in -149..=127 {
        v.extend([(e as f32).exp2(), -(e as f32).exp2()]);
    }
    for e in -45..=38 {
        let p: f32 = format!("1e{e}").parse().unwrap();
        v.extend([p, -p]);
    }
    for x in linspace(-103.3, 88.8, 6000) {
        v.extend([x.exp() as f32, -x.exp() as f32]);
    }
    let dense = [
        (-2.0, 2.0, 8001),
        (-1e-3, 1e-3, 4001),
        (-110.0, 110.0, 20001),
        (86.0, 89.5, 3001),
        (-105.0, -86.0, 3001),
        (-25.0, 25.0, 20001),
    ];
    for (lo, hi, n) in dense {
        v.extend(linspace(lo, hi, n).map(|x| x as f32));
    }
    let mut rng = SplitMix64::new(7);
    v.extend((0..30_000).map(|_| f32::from_bits(rng.next_u64() as u32)));
    v
}

/// Bitwise equality, except that any NaN matches any NaN.
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Asserts `got == want` lane by lane (NaN-ness for NaNs); returns how many NaN lanes had a
/// different payload.
fn assert_same(what: &str, xs: &[f32], got: &[f32], want: &[f32]) -> usize {
    assert_eq!(got.len(), want.len());
    let mut payloads = 0;
    for i in 0..xs.len() {
        assert!(
            same(got[i], want[i]),
            "{what}: x = {:e} ({:#010x}): got {:e} ({:#010x}), want {:e} ({:#010x})",
            xs[i],
            xs[i].to_bits(),
            got[i],
            got[i].to_bits(),
            want[i],
            want[i].to_bits()
        );
        payloads += usize::from(got[i].to_bits() != want[i].to_bits());
    }
    payloads
}

/// Runs one path's implementation over a copy of `xs`.
fn run_path(kernels: &Kernels, path: Path, xs: &[f32]) -> Vec<f32> {
    let mut buf = xs.to_vec();
    // SAFETY: `buf` holds xs.len() f32; `paths()` lists only paths the host supports.
    let null = std::ptr::null_mut();
    unsafe { run_block_on(buf.as_mut_ptr(), buf.len() as u64, path, kernels, null, 0) };
    buf
}

/// ULP distance after flushing denormals to signed zero; NaN matches only NaN, zeros must
/// agree in sign (as `codegen::math`'s accuracy tests count).
fn ulp_error(got: f32, want: f32) -> u64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let flush = |v: f32| {
        if v.is_subnormal() {
            0.0 * v.signum()
        } else {
            v
        }
    };
    let (g, w) = (flush(got), flush(want));
    if g == 0.0 && w == 0.0 && g.is_sign_negative() != w.is_sign_negative() {
        return u64::MAX;
    }
    let ordered = |v: f32| {
        let b = v.to_bits();
        if b & 0x8000_0000 != 0 {
            -((b & 0x7fff_ffff) as i64)
        } else {
            b as i64
        }
    };
    (ordered(g) - ordered(w)).unsigned_abs()
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn block_routines_match_the_clif_f32x4_fma_code_bit_for_bit() {
    let xs = points();
    assert!(xs.len() >= 100_000, "{} points", xs.len());
    for case in cases() {
        let (_module, clif) = compile_clif_f32x4(case.clif);
        for ftz in [false, true] {
            let mode = |f: &mut dyn FnMut()| {
                if ftz { with_flushed_denormals(f) } else { f() }
            };
            let mut want = Vec::new();
            mode(&mut || want = run_clif(clif, &xs));
            for path in paths() {
                let mut got = Vec::new();
                mode(&mut || got = run_path(case.kernels, path, &xs));
                let what = format!("{} {path:?} (ftz={ftz}) vs CLIF f32x4", case.name);
                let payloads = assert_same(&what, &xs, &got, &want);
                println!(
                    "{what}: {} points equal, {payloads} NaN payloads differ",
                    xs.len()
                );
            }
            // The exported entry point (the host's fastest path).
            let mut got = xs.clone();
            // SAFETY: `got` holds got.len() f32.
            mode(&mut || unsafe {
                (case.block)(got.as_mut_ptr(), got.len() as u64, std::ptr::null_mut(), 0)
            });
            assert_same(case.name, &xs, &got, &want);
        }
    }
}

#[test]
fn block_routines_match_the_emitted_fusion_kernel() {
    let xs = points();
    for case in cases() {
        let Some(want) = run_fusion(case.name, &xs) else {
            continue;
        };
        let mut got = xs.clone();
        // SAFETY: `got` holds got.len() f32.
        with_flushed_denormals(|| unsafe {
            (case.block)(got.as_mut_ptr(), got.len() as u64, std::ptr::null_mut(), 0)
        });
        let payloads = assert_same(case.name, &xs, &got, &want);
        println!(
            "{} vs the fusion kernel: equal, {payloads} NaN payloads differ",
            case.name
        );
    }
}

#[test]
fn tails_and_lengths_touch_exactly_n_elements() {
    // Values in [−12, 12] in a scrambled order, with a few specials: every lane matters.
    let mut xs: Vec<f32> = (0..1000)
        .map(|i| ((i * 7919 % 1000) as f32 / 1000.0 - 0.5) * 24.0)
        .collect();
    xs[5] = f32::NAN;
    xs[12] = f32::NEG_INFINITY;
    xs[30] = -0.0;
    for case in cases() {
        let (_module, clif) = compile_clif_f32x4(case.clif);
        for path in paths() {
            for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 1000] {
                // Start at an odd offset (unaligned) and keep sentinels on both sides.
                let src = &xs[..n];
                let mut buf = vec![f32::from_bits(0x7fc0_beef); n + 40];
                buf[1..=n].copy_from_slice(src);
                // A queue over `xs` (prefetches only read): the routine must drain its share
                // of lines, and only that, whatever its loop's length.
                let mut queue = queue_at(FAKE, 1 << 20);
                let share = 5;
                // SAFETY: buf[1..] holds at least n f32; the queue is valid.
                unsafe {
                    run_block_on(
                        buf.as_mut_ptr().add(1),
                        n as u64,
                        path,
                        case.kernels,
                        &mut queue,
                        share,
                    )
                };
                let issued = (queue.ranges[0][0] - FAKE) / 64;
                let want_issued = if n == 0 || path == Path::Scalar {
                    0
                } else {
                    share
                };
                assert_eq!(
                    issued, want_issued,
                    "{} {path:?} n={n}: lines prefetched",
                    case.name
                );
                let want = run_clif(clif, src);
                assert_same(
                    &format!("{} {path:?} n={n}", case.name),
                    src,
                    &buf[1..=n],
                    &want,
                );
                for (i, v) in buf.iter().enumerate() {
                    if i == 0 || i > n {
                        assert_eq!(v.to_bits(), 0x7fc0_beef, "{path:?} n={n}: wrote [{i}]");
                    }
                }
            }
            // n = 0 with a null pointer is allowed.
            // SAFETY: n = 0 touches nothing.
            let null = std::ptr::null_mut();
            unsafe { run_block_on(null, 0, path, case.kernels, null.cast(), 0) };
        }
    }
}

#[test]
fn block_routines_are_within_the_math_library_ulp_budgets() {
    let xs = points();
    for case in cases() {
        let mut got = xs.clone();
        // SAFETY: `got` holds got.len() f32.
        unsafe { (case.block)(got.as_mut_ptr(), got.len() as u64, std::ptr::null_mut(), 0) };
        let (mut worst, mut at) = (0, 0.0f32);
        for (&x, &g) in xs.iter().zip(&got) {
            let want = (case.reference)(x as f64) as f32;
            let e = ulp_error(g, want);
            if e > worst {
                (worst, at) = (e, x);
            }
        }
        println!("{}: max {worst} ULP (at x = {at:e})", case.name);
        assert!(
            worst <= case.budget,
            "{}: {worst} ULP at x = {at:e} > budget {}",
            case.name,
            case.budget
        );
    }
}

#[test]
fn availability_follows_the_host_features() {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let wide = has!("fma") && (has!("avx512f") || has!("avx2"));
        assert_eq!(block_math_available(), wide);
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert!(!block_math_available());
}

/// A prefetch queue with one range of `bytes` bytes at `start`. Tests use made-up
/// addresses: a prefetch never faults, and the queue records how far it got.
fn queue_at(start: u64, bytes: u64) -> PrefetchQueue {
    let mut queue = PrefetchQueue::default();
    queue.ranges[0] = [start, start + bytes];
    queue
}

/// Where tests' made-up prefetch ranges start (line-aligned).
const FAKE: u64 = 0x4000_0000;

/// A share is spread over the steps and stops where the queue runs dry; ranges drain in
/// order; a range that starts inside a line still fetches every line it touches.
#[test]
fn prefetcher_issues_its_share_across_ranges() {
    let (a0, b0) = (FAKE, FAKE + 0x10_0000);
    let mut queue = queue_at(a0, 256); // 4 lines
    queue.ranges[1] = [b0, b0 + 640]; // 10 lines
    let mut pf = Prefetcher::new(&mut queue, 9, 4);
    pf.step(); // 3 lines of a
    pf.step(); // 1 of a, 2 of b
    assert_eq!(queue.ranges[0][0], a0 + 256, "a drained");
    assert_eq!(queue.ranges[1][0], b0 + 128);
    let mut pf = Prefetcher::new(&mut queue, 100, 2);
    for _ in 0..5 {
        pf.step();
    }
    assert_eq!(queue.ranges[1][0], b0 + 640, "b drained, and no further");
    assert!(queue.ranges[2..].iter().all(|r| r == &[0, 0]));
    // 256 bytes from the middle of a line touch 5 lines.
    let mut queue = queue_at(a0 + 32, 256);
    let mut pf = Prefetcher::new(&mut queue, 100, 1);
    pf.step();
    assert_eq!(queue.ranges[0][0], a0 + 5 * 64);
    // A null queue is no queue.
    let mut none = Prefetcher::new(std::ptr::null_mut(), 10, 1);
    none.step();
}

/// A JIT-compiled function calls the registered symbols with the `BlockRoutine` signature.
#[test]
fn kernels_can_call_the_registered_block_symbols() {
    use crate::codegen::libcalls::{LibSig, signature_of};
    for (symbol, case) in ["xlac_block_exp_f32", "xlac_block_tanh_f32"]
        .into_iter()
        .zip(cases())
    {
        assert_eq!(signature_of(symbol), Some(LibSig::BlockRoutine));
        let (mut module, libcalls, _) = new_jit_with_isa(true).unwrap();
        let (callee, callee_sig) = libcalls[symbol].clone();
        assert!(callee_sig.returns.is_empty());
        let id = module
            .declare_function("caller", Linkage::Export, &callee_sig)
            .unwrap();
        let mut ctx = module.make_context();
        ctx.func.signature = callee_sig;
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let args = b.block_params(entry).to_vec();
        let f = module.declare_func_in_func(callee, b.func);
        b.ins().call(f, &args);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(module.isa().frontend_config());
        module.define_function(id, &mut ctx).unwrap();
        module.finalize_definitions().unwrap();
        // SAFETY: the caller has the block routines' signature.
        let caller =
            unsafe { std::mem::transmute::<*const u8, BlockFn>(module.get_finalized_function(id)) };
        let xs: Vec<f32> = linspace(-3.0, 3.0, 37).map(|x| x as f32).collect();
        let mut got = xs.clone();
        let mut queue = queue_at(FAKE, 1 << 20);
        // SAFETY: `got` holds 37 f32; the queue is valid.
        unsafe { caller(got.as_mut_ptr(), got.len() as u64, &mut queue, 2) };
        assert_eq!(queue.ranges[0][0], FAKE + 128, "{symbol}: queue drained");
        let want = run_path(case.kernels, Path::Scalar, &xs);
        assert_same(symbol, &xs, &got, &want);
    }
}
