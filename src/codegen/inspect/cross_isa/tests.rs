//! Cross-ISA listings of small kernels written as HLO text: a vectorized elementwise fusion
//! and one calling a libcall, for every supported ISA.

use super::*;
use crate::codegen::{CodegenOptions, compile_kernels};
use crate::compiler::{CompileOptions, optimize};
use crate::front::hlo_text::parse_module;

fn kernels_of(text: &str) -> (Module, KernelSet) {
    let module = parse_module(text, "test.hlo").expect("parses").module;
    let module = optimize(module, &CompileOptions::default())
        .expect("optimizes")
        .module;
    let kernels = compile_kernels(
        &module,
        &CodegenOptions {
            keep_artifacts: true,
            block_math: true,
            no_fp_contraction: false,
        },
    )
    .expect("compiles");
    (module, kernels)
}

// The product has two uses, so it is not contracted into an fma (`ir::fp_contraction`):
// the listings show the vector multiply itself.
const VECTOR_ADD: &str = r#"
HloModule add
ENTRY main {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  m = f32[64] multiply(a, b)
  ROOT s = f32[64] add(m, m)
}
"#;

const WITH_LIBCALL: &str = r#"
HloModule pw
ENTRY main {
  a = f32[3,5] parameter(0)
  b = f32[3,5] parameter(1)
  p = f32[3,5] power(a, b)
  ROOT r = f32[3,5] remainder(p, b)
}
"#;

#[test]
fn names_resolve_and_unknown_names_list_the_supported_ones() {
    let names = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    let got = parse_isas(&names(&[
        "x86_64", "aarch64", "riscv64", "s390x", "aarch64",
    ]))
    .unwrap();
    let got: Vec<&str> = got.iter().map(|s| s.name).collect();
    assert_eq!(got, ["x86_64", "aarch64", "riscv64", "s390x"]);
    assert_eq!(parse_isas(&names(&["all"])).unwrap().len(), 5);
    assert_eq!(parse_isas(&names(&["host"])).unwrap()[0].name, host_name());
    let e = parse_isas(&names(&["arm"])).unwrap_err();
    assert!(
        e.contains("arm") && e.contains("riscv64v") && e.contains("s390x"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

#[test]
fn a_vector_kernel_lists_on_every_isa_with_each_isas_vector_instructions() {
    let (module, kernels) = kernels_of(VECTOR_ADD);
    assert_eq!(kernels.kernels.len(), 1);
    assert!(has_vector_types(
        kernels.kernels[0].artifacts.function.as_ref().unwrap()
    ));
    let listings = compile_for_isas(&module, &kernels, SUPPORTED_ISAS).unwrap();
    assert_eq!(listings.len(), SUPPORTED_ISAS.len());
    let text = |isa: &str| {
        let l = listings.iter().find(|l| l.isa == isa).unwrap();
        assert!(l.error.is_none(), "{isa}: {:?}", l.error);
        l.text.clone()
    };
    // The vector multiply on each ISA, as its own instruction set spells it.
    assert!(text("x86_64").contains("mulps"), "{}", text("x86_64"));
    assert!(text("aarch64").contains("fmul v"), "{}", text("aarch64"));
    assert!(text("s390x").contains("vfmsb"), "{}", text("s390x"));
    let rvv = text("riscv64v");
    assert!(rvv.contains("VCode") && rvv.contains("vfmul.vv"), "{rvv}");
    // Without V: the scalar kernel, decoded by Capstone.
    let rv = text("riscv64");
    assert!(rv.contains("Capstone") && rv.contains("fmul.s"), "{rv}");
    assert!(!rv.contains("vfmul"), "{rv}");
}

#[test]
fn libcalls_compile_everywhere() {
    let (module, kernels) = kernels_of(WITH_LIBCALL);
    let listings = compile_for_isas(&module, &kernels, SUPPORTED_ISAS).unwrap();
    assert!(!listings.is_empty());
    for l in &listings {
        assert!(l.error.is_none(), "{} {}: {:?}", l.kernel, l.isa, l.error);
        assert!(l.text.lines().count() > 5, "{}", l.text);
    }
}

/// A function no backend accepts: f32x8 is rejected by every backend (riscv64 with V even
/// panics).
fn f32x8_function() -> Function {
    use cranelift_codegen::ir::{AbiParam, InstBuilder, UserFuncName, types};
    let mut sig = cranelift_codegen::ir::Signature::new(isa::CallConv::SystemV);
    sig.params.push(AbiParam::new(types::I64));
    let mut func = Function::with_name_signature(UserFuncName::user(0, 0), sig);
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let p = b.block_params(block)[0];
    let flags = cranelift_codegen::ir::MemFlagsData::trusted();
    let v = b.ins().load(types::F32X8, flags, p, 0);
    let w = b.ins().fadd(v, v);
    b.ins().store(flags, w, p, 0);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(cranelift_codegen::isa::TargetFrontendConfig {
        default_call_conv: isa::CallConv::SystemV,
        pointer_width: target_lexicon::PointerWidth::U64,
        page_size_align_log2: 12,
    });
    func
}

#[test]
fn a_function_an_isa_cannot_compile_is_reported_not_a_crash() {
    let func = f32x8_function();
    for spec in SUPPORTED_ISAS {
        let isa = target_isa(spec).unwrap();
        let l = listing("k", spec, compile_one(&func, spec, &*isa));
        let e = l.error.expect("f32x8 cannot compile");
        assert!(
            l.text.contains("NOT COMPILED") && !e.contains('\n'),
            "{}",
            l.text
        );
    }
}

#[test]
fn a_failed_kernel_is_named_in_the_index_and_the_others_still_list() {
    let (module, mut kernels) = kernels_of(WITH_LIBCALL);
    let broken = kernels.kernels[0].name.clone();
    kernels.kernels[0].artifacts.function = Some(f32x8_function());
    let listings = compile_for_isas(&module, &kernels, SUPPORTED_ISAS).unwrap();
    let dir = std::env::temp_dir().join(format!("xlac_cross_isa_{}", std::process::id()));
    let mut d = crate::pipeline::DumpWriter::new(&dir, "m", None).unwrap();
    for l in &listings {
        assert_eq!(l.error.is_some(), l.kernel == broken, "{}", l.text);
        let what = match &l.error {
            None => crate::pipeline::Artifact::KernelAsm {
                kernel: &l.kernel,
                isa: Some(l.isa),
            },
            Some(reason) => crate::pipeline::Artifact::KernelAsmFailed {
                kernel: &l.kernel,
                isa: l.isa,
                reason,
            },
        };
        d.write(what, &l.text).unwrap();
    }
    d.finish().unwrap();
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let failed: Vec<&str> = index
        .lines()
        .filter(|l| l.contains("NOT compiled"))
        .collect();
    assert_eq!(failed.len(), SUPPORTED_ISAS.len(), "{index}");
    assert!(failed.iter().all(|l| l.contains(&broken)), "{index}");
}

#[test]
fn constant_pool_is_cut() {
    let text = "block0: ; offset 0x0\n  ldr q0, [x0]\n  ret\n  .byte 0x00, 0x00\n";
    let out = trim_constant_pool(text);
    assert!(out.contains("ret") && !out.contains(".byte"), "{out}");
}
