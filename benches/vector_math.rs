//! Micro-benchmarks of the native block math routines (`codegen::block_math`) beside the
//! inline CLIF math they mirror: `exp` and `tanh` over 1024 and 1M f32, as the
//! block routine (in place, the host's fastest path) and as the kernel the codegen emits for
//! a one-op loop fusion (`f32x4` + FMA), both single-threaded and with FTZ/DAZ set as kernels
//! run. Run with `cargo bench --bench vector_math`; criterion prints elements per second.
//! Timings live here; tests never assert them.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use xlac::codegen::block_math::{
    PrefetchQueue, block_math_available, xlac_block_exp_f32, xlac_block_tanh_f32,
};
use xlac::codegen::denormals::with_flushed_denormals;
use xlac::codegen::{CodegenOptions, compile_kernels};
use xlac::front::hlo_text::parse_module;

/// Inputs in [−4, 4): a fixed, non-trivial spread.
fn inputs(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 4096) as f32 / 512.0 - 4.0)
        .collect()
}

fn vector_math(c: &mut Criterion) {
    println!("block_math_available: {}", block_math_available());
    type Block = unsafe extern "C" fn(*mut f32, u64, *mut PrefetchQueue, u64);
    let funcs: [(&str, &str, Block); 2] = [
        ("exp", "exponential", xlac_block_exp_f32),
        ("tanh", "tanh", xlac_block_tanh_f32),
    ];
    let mut group = c.benchmark_group("vector_math");
    for (name, opcode, block) in funcs {
        for n in [1024usize, 1 << 20] {
            group.throughput(Throughput::Elements(n as u64));
            // The block routine, in place. Under FTZ/DAZ the code is branch-free and its
            // time does not depend on the values (which drift as the buffer is reused).
            let mut buf = inputs(n);
            with_flushed_denormals(|| {
                group.bench_function(format!("block_{name}_{n}"), |b| {
                    // SAFETY: `buf` holds n f32.
                    b.iter(|| unsafe { block(buf.as_mut_ptr(), n as u64, std::ptr::null_mut(), 0) })
                })
            });
            // The codegen's kernel for the same op: inline CLIF math on f32x4.
            let text = format!(
                "HloModule m
fused {{
  p = f32[{n}]{{0}} parameter(0)
  ROOT r = f32[{n}]{{0}} {opcode}(p)
}}
ENTRY main {{
  a = f32[{n}]{{0}} parameter(0)
  ROOT f = f32[{n}]{{0}} fusion(a), kind=kLoop, calls=fused
}}"
            );
            let module = parse_module(&text, "bench").unwrap().module;
            let kernels = compile_kernels(&module, &CodegenOptions::default()).unwrap();
            let kernel = &kernels.kernels[0];
            let mut input = inputs(n);
            let mut out = vec![0f32; n];
            let table = [input.as_mut_ptr() as *mut u8, out.as_mut_ptr() as *mut u8];
            with_flushed_denormals(|| {
                group.bench_function(format!("clif_f32x4_{name}_{n}"), |b| {
                    // SAFETY: one input and one output buffer of f32[n].
                    b.iter(|| unsafe { (kernel.entry)(table.as_ptr(), 0, kernel.work_units) })
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, vector_math);
criterion_main!(benches);
