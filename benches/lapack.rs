//! The LAPACK routines behind `jnp.linalg` (`eval::lapack`, what both backends run for
//! `lapack_?getrf_ffi`, `?geqrf`+`?orgqr`, `?gesdd`, `?syevd`) on one f32 matrix of 64,
//! 256 and 1024 rows. `scripts/bench_lapack.py` times the same jax programs on XLA:CPU's
//! LAPACK and on `xlac bench` in one run, which is the comparison to quote; this is the
//! routine alone. Run with `cargo bench --bench lapack`. Timings are never asserted.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

use xlac::eval::lapack::{SvdJob, geqrf, gesdd, getrf, orgqr, syevd};

/// A deterministic `n×n` column-major matrix with entries in [-1, 1).
fn matrix(n: usize) -> Vec<f32> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    (0..n * n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn lapack(c: &mut Criterion) {
    let mut group = c.benchmark_group("lapack");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    for n in [64usize, 256, 1024] {
        let a = matrix(n);
        let sym: Vec<f32> = (0..n * n)
            .map(|e| {
                let (i, j) = (e % n, e / n);
                a[i.max(j) + i.min(j) * n]
            })
            .collect();
        group.bench_function(format!("getrf_{n}"), |b| {
            b.iter(|| {
                let mut m = a.clone();
                getrf(n, n, &mut m)
            })
        });
        group.bench_function(format!("geqrf_orgqr_{n}"), |b| {
            b.iter(|| {
                let mut m = a.clone();
                let tau = geqrf(n, n, &mut m);
                orgqr(n, n, &m, &tau)
            })
        });
        group.bench_function(format!("gesdd_{n}"), |b| {
            b.iter(|| gesdd(n, n, &a, SvdJob::All))
        });
        group.bench_function(format!("syevd_{n}"), |b| {
            b.iter(|| {
                let mut m = sym.clone();
                syevd(n, &mut m, true, true)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lapack);
criterion_main!(benches);
