//! The dot thunk on transposed operands against the untransposed GEMM of the same size:
//! `g @ W` (`rhs_contracting_dims={0}`) beside `g @ W.T` (`rhs_contracting_dims={1}`,
//! every backward pass) and `X.T @ g` (`lhs_contracting_dims={0}`, weight gradients), at
//! 128x1024x1024 and 1024^3. Run with `cargo bench --bench dot_layouts`; compare the
//! medians as ratios (the machine is shared). Tests never assert timings.

use criterion::{Criterion, criterion_group, criterion_main};

use xlac::compiler::{CompileOptions, compile};
use xlac::front::hlo_text::parse_module;
use xlac::io::random_inputs::random_literal;

/// One dot program: `m x k` by `k x n` with the operands stored as the layout asks.
fn program(m: usize, n: usize, k: usize, lhs_t: bool, rhs_t: bool) -> String {
    let lhs = if lhs_t {
        format!("f32[{k},{m}]")
    } else {
        format!("f32[{m},{k}]")
    };
    let rhs = if rhs_t {
        format!("f32[{n},{k}]")
    } else {
        format!("f32[{k},{n}]")
    };
    let (lc, rc) = (usize::from(!lhs_t), usize::from(rhs_t));
    format!(
        "HloModule dot
ENTRY main {{
  a = {lhs}{{1,0}} parameter(0)
  b = {rhs}{{1,0}} parameter(1)
  ROOT d = f32[{m},{n}]{{1,0}} dot(a, b), lhs_contracting_dims={{{lc}}}, rhs_contracting_dims={{{rc}}}
}}"
    )
}

fn dot_layouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("dot_layouts");
    for (m, n, k) in [(128, 1024, 1024), (1024, 1024, 1024)] {
        for (tag, lhs_t, rhs_t) in [
            ("nn", false, false),
            ("nt", false, true),
            ("tn", true, false),
        ] {
            let name = format!("{m}x{n}x{k}_{tag}");
            let module = parse_module(&program(m, n, k, lhs_t, rhs_t), &name)
                .expect("benchmark HLO parses")
                .module;
            let args: Vec<_> = module
                .entry_parameter_shapes()
                .iter()
                .enumerate()
                .map(|(i, s)| random_literal(s, 0, i))
                .collect();
            let mut compiled = compile(module, &CompileOptions::default()).expect("compiles");
            group.bench_function(&name, |b| {
                b.iter(|| compiled.executable.execute(&args).expect("runs"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, dot_layouts);
criterion_main!(benches);
