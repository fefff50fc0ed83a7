//! All-reduce (sum, f32) and all-gather across 2, 4 and 8 simulated devices, 4 KiB to
//! 64 MiB per device, through the in-process runtime (`runtime::collectives`), threaded
//! scheduler: one thread per device, each issuing the collective back to back. Criterion's
//! throughput is the bytes of memory each collective touches: all-reduce reads N operands
//! and writes N results (2·N·S), all-gather reads N operands and writes N results of N
//! blocks (N·S + N·N·S), with S the per-device operand (all-gather: S = size / N, so every
//! result is `size`). Compare with the machine's STREAM triad bandwidth (README,
//! "Performance"). Run: `cargo bench --bench collectives`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use xlac::ir::{ArrayShape, PrimitiveType};
use xlac::runtime::collectives::op::{CollectiveKind, CollectiveOp, Pattern};
use xlac::runtime::collectives::reduction::{Native, NativeOp};
use xlac::runtime::collectives::{
    ArrayView, ArrayViewMut, CollectiveMode, Collectives, DeviceGrid, InProcess,
};

const SIZES: &[usize] = &[4 << 10, 256 << 10, 4 << 20, 64 << 20];

/// Runs `iters` back-to-back collectives on every device; returns the wall time.
fn time(n: usize, op: &CollectiveOp, operand: usize, result: usize, iters: u64) -> Duration {
    let collectives: Arc<dyn Collectives> = Arc::new(InProcess::new(
        DeviceGrid::new(1, n as u32),
        CollectiveMode::Threaded {
            deadline: Duration::from_secs(600),
        },
    ));
    let reducer = Native {
        op: NativeOp::Add,
        element_type: PrimitiveType::F32,
    };
    let in_shape = ArrayShape::new(PrimitiveType::F32, &[(operand / 4) as i64]);
    let out_shape = ArrayShape::new(PrimitiveType::F32, &[(result / 4) as i64]);
    // Nonzero fills touch every page before the clock starts: a zero `vec!` is fresh
    // mapped zero pages, and the collective's first writes would time the page faults.
    let mut inputs: Vec<Vec<u8>> = (0..n).map(|d| vec![d as u8 + 1; operand]).collect();
    let mut outputs: Vec<Vec<u8>> = (0..n).map(|_| vec![1u8; result]).collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for (d, (input, output)) in inputs.iter_mut().zip(outputs.iter_mut()).enumerate() {
            let collectives = collectives.clone();
            let (in_shape, out_shape, reducer) = (&in_shape, &out_shape, &reducer);
            s.spawn(move || {
                collectives.start(d).unwrap();
                for _ in 0..iters {
                    let views = [ArrayView {
                        shape: in_shape,
                        data: input,
                    }];
                    let mut outs = [ArrayViewMut {
                        shape: out_shape,
                        data: output,
                    }];
                    collectives
                        .collective(d, op, Some(reducer), &views, &mut outs)
                        .unwrap();
                }
                collectives.finish(d, Ok(()));
            });
        }
    });
    start.elapsed()
}

fn op(kind: CollectiveKind, pattern: Pattern, n: usize) -> CollectiveOp {
    CollectiveOp {
        name: "bench".into(),
        kind,
        pattern,
        channel_id: Some(1),
        groups: vec![(0..n).collect()],
        reduction: (kind == CollectiveKind::AllReduce).then(|| "add".into()),
    }
}

fn collectives(c: &mut Criterion) {
    for (name, kind) in [
        ("all-reduce", CollectiveKind::AllReduce),
        ("all-gather", CollectiveKind::AllGather),
    ] {
        let mut group = c.benchmark_group(name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        for &n in &[2usize, 4, 8] {
            for &size in SIZES {
                let (pattern, operand, result, bytes) = match kind {
                    CollectiveKind::AllReduce => (Pattern::AllReduce, size, size, 2 * n * size),
                    _ => (
                        Pattern::AllGather { dimension: 0 },
                        size / n,
                        size,
                        size + n * size,
                    ),
                };
                let op = op(kind, pattern, n);
                group.throughput(Throughput::Bytes(bytes as u64));
                group.bench_with_input(
                    BenchmarkId::new(format!("{n}dev"), format!("{}KiB", size >> 10)),
                    &size,
                    |b, _| b.iter_custom(|iters| time(n, &op, operand, result, iters)),
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, collectives);
criterion_main!(benches);
