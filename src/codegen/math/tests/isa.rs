//! Every function, every type, compiled for other ISAs (x86-64 SSE2-only and Haswell,
//! aarch64, s390x): no libcall (no relocation), no instruction that can trap. Prints the
//! machine-code size of each function on x86-64 Haswell.

use super::exact::{copysign_op, is_finite_op, max_op, min_op, round_op};
use super::*;

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
    vec![
        ("atan2", atan2),
        ("pow", pow),
        ("copysign", copysign_op),
        ("max", max_op),
        ("min", min_op),
    ]
}

/// Builds `fn(x[, y]) -> op(x[, y])` for `ty` and compiles it for `isa`.
fn compile_for(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    ty: Type,
    op: Op,
) -> Result<usize, String> {
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
        let o = MathOptions {
            has_fma: isa.has_native_fma(),
        };
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
        .compile(
            isa,
            &mut cranelift_codegen::control::ControlPlane::default(),
        )
        .map_err(|e| format!("{:?}", e.inner))?;
    match code.buffer.relocs() {
        [] => Ok(code.buffer.data().len()),
        relocs => Err(format!(
            "{} relocation(s) (libcalls): {:?}",
            relocs.len(),
            relocs[0].target
        )),
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
        let mut ib =
            cranelift_codegen::isa::lookup(target_lexicon::Triple::from_str(triple).unwrap())
                .unwrap();
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
                match compile_for(&*isa, ty, op) {
                    Ok(bytes) if presets == ["haswell"] => {
                        println!("code size {name:>17} {ty:>5}: {bytes} bytes (x86-64 haswell)")
                    }
                    Ok(_) => {}
                    Err(e) => failures.push(format!("{triple} {presets:?} {name} {ty}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Rough throughput of the f32x4 and f64x2 code on this host (ns per element), for the report.
/// Ignored by default: timings are not assertions. `cargo test --lib math::tests::isa::throughput
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let n = 1 << 16;
    let xs32: Vec<f32> = (0..n)
        .map(|i| (i as f32 / n as f32) * 20.0 - 10.0)
        .collect();
    let xs64: Vec<f64> = xs32.iter().map(|&x| x as f64).collect();
    let out32 = vec![0f32; n];
    let out64 = vec![0f64; n];
    let ops = all_unary()
        .into_iter()
        .map(|(n, f)| (n, Op::Unary(f)))
        .chain(all_binary().into_iter().map(|(n, f)| (n, Op::Binary(f))));
    for (name, op) in ops {
        let (_m32, f32k) = compile(types::F32X4, fma_settings().contains(&true), op);
        let (_m64, f64k) = compile(types::F64X2, fma_settings().contains(&true), op);
        let time = |f: &dyn Fn()| {
            f();
            let t = std::time::Instant::now();
            for _ in 0..20 {
                f();
            }
            t.elapsed().as_secs_f64() * 1e9 / (20.0 * n as f64)
        };
        let t32 = time(&|| unsafe {
            f32k(
                xs32.as_ptr() as _,
                xs32.as_ptr() as _,
                out32.as_ptr() as *mut u8,
                n as i64,
            )
        });
        let t64 = time(&|| unsafe {
            f64k(
                xs64.as_ptr() as _,
                xs64.as_ptr() as _,
                out64.as_ptr() as *mut u8,
                n as i64,
            )
        });
        println!("throughput {name:>17}: f32x4 {t32:.2} ns/elem, f64x2 {t64:.2} ns/elem");
    }
}
