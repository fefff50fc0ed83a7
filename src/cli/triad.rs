//! A STREAM triad measured in process (`xlac bench --triad`): `a[i] = b[i] + s * c[i]`
//! over three f64 arrays far larger than the caches, on one thread and on every thread of
//! the pool kernels run on, so a kernel's bandwidth can be read as a share of what this
//! machine moves right now, not of a figure typed in. Bytes are counted as STREAM counts
//! them: 24 per element (two reads, one write; no write-allocate traffic).
//! Reference: McCalpin's STREAM, `stream.c` (read for the rules, not copied).

use std::time::Instant;

use rayon::prelude::*;

/// One triad figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriadFigure {
    /// Threads that ran it.
    pub threads: usize,
    /// Fastest run, GB/s (10^9 bytes).
    pub best_gbs: f64,
    /// Median run, GB/s.
    pub median_gbs: f64,
}

/// Elements per array by default: 8 Mi f64 = 64 MiB each, 192 MiB in all.
pub const DEFAULT_ELEMENTS: usize = 8 << 20;

/// Runs the triad `runs` times (at least 1, after one untimed run that touches every
/// page) on `threads` threads (1 = the calling thread alone).
pub fn measure(elements: usize, threads: usize, runs: usize) -> Result<TriadFigure, String> {
    let elements = elements.max(1);
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let chunk = elements.div_ceil(threads * 4).max(4096);
    let (mut a, mut b, mut c) = (
        Vec::<f64>::with_capacity(elements),
        Vec::<f64>::with_capacity(elements),
        Vec::<f64>::with_capacity(elements),
    );
    // Pages are first touched by the threads that will use them.
    let fill = |v: &mut Vec<f64>, x: f64| {
        v.resize(elements, 0.0);
        pool.install(|| v.par_chunks_mut(chunk).for_each(|s| s.fill(x)));
    };
    fill(&mut a, 0.0);
    fill(&mut b, 1.0);
    fill(&mut c, 2.0);
    let scalar = 3.0;
    let run = |a: &mut [f64]| {
        if threads == 1 {
            triad(a, &b, &c, scalar);
        } else {
            pool.install(|| {
                a.par_chunks_mut(chunk)
                    .zip(b.par_chunks(chunk))
                    .zip(c.par_chunks(chunk))
                    .for_each(|((a, b), c)| triad(a, b, c, scalar));
            });
        }
    };
    run(&mut a);
    let mut gbs = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        run(&mut a);
        let seconds = start.elapsed().as_secs_f64().max(1e-9);
        gbs.push(24.0 * elements as f64 / seconds / 1e9);
    }
    // Keeps the stores from being optimized away.
    std::hint::black_box(&a);
    gbs.sort_by(f64::total_cmp);
    let n = gbs.len();
    let median = if n % 2 == 1 {
        gbs[n / 2]
    } else {
        (gbs[n / 2 - 1] + gbs[n / 2]) / 2.0
    };
    Ok(TriadFigure {
        threads,
        best_gbs: gbs[n - 1],
        median_gbs: median,
    })
}

fn triad(a: &mut [f64], b: &[f64], c: &[f64], scalar: f64) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + scalar * c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_triads_report_positive_bandwidth_on_one_and_two_threads() {
        for threads in [1, 2] {
            let f = measure(1 << 14, threads, 3).unwrap();
            assert_eq!(f.threads, threads);
            assert!(f.best_gbs > 0.0 && f.best_gbs.is_finite());
            assert!(f.median_gbs > 0.0 && f.median_gbs <= f.best_gbs);
        }
    }
}
