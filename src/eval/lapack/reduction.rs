//! The Hessenberg and tridiagonal reductions jax calls directly, `?gehrd` and
//! `?sytrd`/`?hetrd`, as LAPACK's unblocked `?gehd2` and `?sytd2` over [`Scalar`]. (The
//! nonsymmetric eigensolver has its own `?gehd2` over its element type in
//! `hessenberg.rs`.)
//!
//! LAPACK: `dgehd2.f`, `dsytd2.f`, `zhetd2.f`, `dlarfg.f`.

use super::{Field, Scalar};

/// LAPACK's `?larfg`: the reflector `H = I - τ v vᴴ` (`v₀ = 1`) with `Hᴴ (α, x) = (β, 0)`
/// and `β` real. Scales `x` to `v`'s tail in place; returns `(β, τ)`.
pub(super) fn larfg<T: Scalar>(alpha: T, x: &mut [T]) -> (T, T) {
    let xnorm2 = x.iter().fold(<T::Re as Field>::zero(), |acc, v| {
        let c = v.to_cx();
        acc + c.re * c.re + c.im * c.im
    });
    let a = alpha.to_cx();
    if xnorm2 == <T::Re as Field>::zero() && a.im == <T::Re as Field>::zero() {
        return (alpha, T::zero());
    }
    let norm = (a.re * a.re + a.im * a.im + xnorm2).sqrt_re();
    let beta = if a.re >= <T::Re as Field>::zero() {
        -norm
    } else {
        norm
    };
    let beta_t = T::from_real(beta);
    let tau = (beta_t - alpha) / beta_t;
    let scale = T::one() / (alpha - beta_t);
    for v in x.iter_mut() {
        *v *= scale;
    }
    (beta_t, tau)
}

/// `?gehrd` on one column-major `n×n` matrix: the Hessenberg form and its reflectors in
/// place, `tau` (`n - 1`, zero outside `low..high`).
pub fn gehrd<T: Scalar>(n: usize, a: &mut [T], low: usize, high: usize) -> Vec<T> {
    let mut tau = vec![T::zero(); n.saturating_sub(1)];
    if n == 0 {
        return tau;
    }
    let at = |i: usize, j: usize| i + j * n;
    // 0-based: columns i = low-1 .. high-2 are reduced, rows/columns up to high-1 take part.
    let (lo, hi) = (low.max(1) - 1, high.max(1) - 1);
    for i in lo..hi {
        let mut x: Vec<T> = (i + 2..=hi).map(|r| a[at(r, i)]).collect();
        let (beta, t) = larfg(a[at(i + 1, i)], &mut x);
        tau[i] = t;
        let mut v = vec![T::one()];
        v.extend_from_slice(&x);
        for (k, r) in (i + 2..=hi).enumerate() {
            a[at(r, i)] = x[k];
        }
        // A[0..=hi, i+1..=hi] ← A (I - τ v vᴴ).
        for r in 0..=hi {
            let s = v
                .iter()
                .enumerate()
                .fold(T::zero(), |acc, (k, &vk)| acc + a[at(r, i + 1 + k)] * vk);
            for (k, &vk) in v.iter().enumerate() {
                a[at(r, i + 1 + k)] = a[at(r, i + 1 + k)] - t * s * vk.conj();
            }
        }
        // A[i+1..=hi, i+1..n] ← (I - τ̄ v vᴴ)... i.e. Hᴴ A.
        for c in i + 1..n {
            let s = v.iter().enumerate().fold(T::zero(), |acc, (k, &vk)| {
                acc + vk.conj() * a[at(i + 1 + k, c)]
            });
            for (k, &vk) in v.iter().enumerate() {
                a[at(i + 1 + k, c)] = a[at(i + 1 + k, c)] - t.conj() * vk * s;
            }
        }
        a[at(i + 1, i)] = beta;
    }
    tau
}

/// `?sytrd`/`?hetrd` on one column-major `n×n` matrix whose `lower` (or upper) triangle
/// holds a Hermitian matrix: the reflectors in place of that triangle (below the
/// subdiagonal, or above the superdiagonal), `(d, e, tau)`.
#[allow(clippy::type_complexity)]
pub fn sytrd<T: Scalar>(n: usize, a: &mut [T], lower: bool) -> (Vec<T::Re>, Vec<T::Re>, Vec<T>) {
    let at = |i: usize, j: usize| i + j * n;
    let mut d = vec![<T::Re as Field>::zero(); n];
    let mut e = vec![<T::Re as Field>::zero(); n.saturating_sub(1)];
    let mut tau = vec![T::zero(); n.saturating_sub(1)];
    if n == 0 {
        return (d, e, tau);
    }
    // The full Hermitian matrix the triangle stands for; reduced as a whole.
    let mut h: Vec<T> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
            let v = a[at(r, c)];
            if i == j {
                T::from_real(v.real())
            } else if (r, c) == (i, j) {
                v
            } else {
                v.conj()
            }
        })
        .collect();
    // Lower: reflector i acts on rows/columns i+1.. from the top; upper: on 0..=i from the
    // bottom (LAPACK's order for each triangle).
    let steps: Vec<usize> = if lower {
        (0..n - 1).collect()
    } else {
        (0..n - 1).rev().collect()
    };
    for i in steps {
        // The part of column (lower) or column i+1 (upper) to annihilate, head first.
        let (col, rows): (usize, Vec<usize>) = if lower {
            (i, (i + 1..n).collect())
        } else {
            (i + 1, (0..=i).rev().collect())
        };
        let mut x: Vec<T> = rows[1..].iter().map(|&r| h[at(r, col)]).collect();
        let (beta, t) = larfg(h[at(rows[0], col)], &mut x);
        let mut v = vec![T::one()];
        v.extend_from_slice(&x);
        // H ← Pᴴ H P with P = I - τ v vᴴ on `rows`: H ← H - v wᴴ - w vᴴ, where
        // w = τ H v - ½ τ (τ̄... LAPACK's `alpha = -½ τ (wᴴ v)`).
        let m = rows.len();
        let mut w = vec![T::zero(); n];
        for r in 0..n {
            let mut s = T::zero();
            for k in 0..m {
                s += h[at(r, rows[k])] * v[k];
            }
            w[r] = t * s;
        }
        let wv = (0..m).fold(T::zero(), |acc, k| acc + w[rows[k]].conj() * v[k]);
        let alpha = -(T::from_real(<T::Re as Field>::from_re(0.5)) * t * wv);
        let mut full_v = vec![T::zero(); n];
        for k in 0..m {
            full_v[rows[k]] = v[k];
        }
        for r in 0..n {
            w[r] += alpha * full_v[r];
        }
        for c in 0..n {
            for r in 0..n {
                h[at(r, c)] = h[at(r, c)] - full_v[r] * w[c].conj() - w[r] * full_v[c].conj();
            }
        }
        // The annihilated column is (β, 0, ...) exactly; keep the reflector there in `a`.
        for (k, &r) in rows.iter().enumerate().skip(1) {
            a[at(r, col)] = x[k - 1];
            h[at(r, col)] = T::zero();
            h[at(col, r)] = T::zero();
        }
        h[at(rows[0], col)] = beta;
        h[at(col, rows[0])] = beta.conj();
        e[i] = beta.real();
        tau[i] = t;
    }
    for i in 0..n {
        d[i] = h[at(i, i)].real();
        a[at(i, i)] = T::from_real(d[i]);
    }
    for (i, &ei) in e.iter().enumerate().take(n - 1) {
        let (r, c) = if lower { (i + 1, i) } else { (i, i + 1) };
        a[at(r, c)] = T::from_real(ei);
    }
    (d, e, tau)
}
