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
