//! Micro-benchmarks, one per kernel class: elementwise, transcendental, row and
//! column reduction, transpose, dot, convolution. Each compiles a small HLO program once and
//! times `Executable::execute` on fixed inputs. Run with `cargo bench --bench kernels`.
//! Timings live here and in `scripts/bench_vs_xla.py`; tests never assert them.

use criterion::{Criterion, criterion_group, criterion_main};

use xlac::compiler::{CompileOptions, compile};
use xlac::front::hlo_text::parse_module;
use xlac::io::random_inputs::random_literal;

/// (name, HLO text) per kernel class, the reductions aside.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "elementwise_add_mul_1m",
        "HloModule elementwise
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  s = f32[1024,1024]{1,0} add(a, b)
  ROOT m = f32[1024,1024]{1,0} multiply(s, a)
}",
    ),
    (
        "transcendental_tanh_exp_1m",
        "HloModule transcendental
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  t = f32[1024,1024]{1,0} tanh(a)
  ROOT e = f32[1024,1024]{1,0} exponential(t)
}",
    ),
    (
        "transpose_add_1024x1024",
        "HloModule transpose
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  t = f32[1024,1024]{1,0} transpose(a), dimensions={1,0}
  ROOT s = f32[1024,1024]{1,0} add(t, b)
}",
    ),
    (
        "dot_256",
        "HloModule dot
ENTRY main {
  a = f32[256,256]{1,0} parameter(0)
  b = f32[256,256]{1,0} parameter(1)
  ROOT d = f32[256,256]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    ),
    (
        "conv_3x3_nhwc",
        "HloModule conv
ENTRY main {
  x = f32[8,32,32,16]{3,2,1,0} parameter(0)
  k = f32[3,3,16,32]{3,2,1,0} parameter(1)
  ROOT c = f32[8,32,32,32]{3,2,1,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}",
    ),
];

/// The sum over dimension `dim` of an f32[1024,1024], as module `name`.
fn reduction(name: &str, dim: usize) -> String {
    format!(
        "HloModule {name}
add {{
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}}
ENTRY main {{
  a = f32[1024,1024]{{1,0}} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[1024]{{0}} reduce(a, z), dimensions={{{dim}}}, to_apply=add
}}"
    )
}

fn kernels(c: &mut Criterion) {
    let reductions = [
        ("row_reduction_1024x1024", reduction("row_reduction", 1)),
        (
            "column_reduction_1024x1024",
            reduction("column_reduction", 0),
        ),
    ];
    let all = PROGRAMS
        .iter()
        .map(|&(name, text)| (name, text.to_string()));
    for (name, text) in all.chain(reductions) {
        let module = parse_module(&text, name)
            .expect("benchmark HLO parses")
            .module;
        let args: Vec<_> = module
            .entry_parameter_shapes()
            .iter()
            .enumerate()
            .map(|(i, s)| random_literal(s, 0, i))
            .collect();
        let mut compiled = compile(module, &CompileOptions::default()).expect("compiles");
        c.bench_function(name, |b| {
            b.iter(|| compiled.executable.execute(&args).expect("runs"))
        });
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
