//! Householder QR, `?geqrf` (faer's blocked factorization for real input, LAPACK's `?geqr2`
//! for complex), and `?orgqr`/`?ungqr` (`Q` from the reflectors, blockwise in the compact
//! `I - V T Vᴴ` form). The unblocked reflector loops are in `householder.rs`.
//!
//! LAPACK: `dgeqrf.f`, `dorgqr.f`, `dlarft.f`.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::{Mat, MatMut};

use super::{Scalar, geqr2, par_for};

/// `?geqrf` on one column-major `m×n` matrix: `R` and the reflectors in place, `tau`.
pub fn geqrf<T: Scalar>(m: usize, n: usize, a: &mut [T]) -> Vec<T> {
    let k = m.min(n);
    if k == 0 {
        return Vec::new();
    }
    // faer's complex reflectors are Hermitian and leave R's diagonal complex; LAPACK's
    // (and numpy's, and jax's tests') R has a real diagonal: run LAPACK's own loop.
    if T::COMPLEX_TYPE {
        return geqr2(m, n, a);
    }
    use faer::linalg::qr::no_pivoting::factor;
    let bs = factor::recommended_block_size::<T>(m, n);
    let mut coeff = Mat::<T>::zeros(bs, k);
    let mut mem = MemBuffer::new(factor::qr_in_place_scratch::<T>(
        m,
        n,
        bs,
        par_for(m, n),
        Default::default(),
    ));
    factor::qr_in_place(
        MatMut::from_column_major_slice_mut(a, m, n),
        coeff.as_mut(),
        par_for(m, n),
        MemStack::new(&mut mem),
        Default::default(),
    );
    (0..k)
        .map(|i| {
            let t = coeff[(i % bs, i)];
            // A reflector faer skipped (zero tail) has t = inf: LAPACK's tau = 0.
            let inv = T::one() / t;
            if inv.is_nan() { T::zero() } else { inv }
        })
        .collect()
}

/// `?orgqr`/`?ungqr`: the `m×n` `Q = H₁⋯H_k` from the reflectors below the diagonal of the
/// column-major `a` and their `tau`, applied a block of columns at a time in the compact
/// form `H_j⋯H_{j+b-1} = I - V T Vᴴ` (`?larft`, forward, columnwise).
pub fn orgqr<T: Scalar>(m: usize, n: usize, a: &[T], tau: &[T]) -> Vec<T> {
    let k = tau.len();
    let mut q = Mat::<T>::zeros(m, n);
    for i in 0..n.min(m) {
        q[(i, i)] = T::one();
    }
    const NB: usize = 32;
    let starts: Vec<usize> = (0..k).step_by(NB).collect();
    for &j0 in starts.iter().rev() {
        let b = NB.min(k - j0);
        let rows = m - j0;
        let v = Mat::<T>::from_fn(rows, b, |r, c| {
            if r < c {
                T::zero()
            } else if r == c {
                T::one()
            } else {
                a[(j0 + r) + (j0 + c) * m]
            }
        });
        // T[:i, i] = -tau_i T[:i, :i] (V[:, :i]ᴴ v_i), T[i, i] = tau_i.
        let mut t = Mat::<T>::zeros(b, b);
        for i in 0..b {
            let ti = tau[j0 + i];
            t[(i, i)] = ti;
            if i == 0 {
                continue;
            }
            let w: Vec<T> = (0..i)
                .map(|s| (i..rows).fold(T::zero(), |acc, r| acc + v[(r, s)].conj() * v[(r, i)]))
                .collect();
            for r in 0..i {
                let mut acc = T::zero();
                for (s, &ws) in w.iter().enumerate().take(i).skip(r) {
                    acc += t[(r, s)] * ws;
                }
                t[(r, i)] = -(ti * acc);
            }
        }
        let mut qs = q.as_mut().submatrix_mut(j0, j0, rows, n - j0);
        let mut w = Mat::<T>::zeros(b, n - j0);
        faer::linalg::matmul::matmul(
            w.as_mut(),
            faer::Accum::Replace,
            v.as_ref().adjoint(),
            qs.as_ref(),
            T::one(),
            par_for(m, n),
        );
        let tw = &t * &w;
        faer::linalg::matmul::matmul(
            qs.as_mut(),
            faer::Accum::Add,
            v.as_ref(),
            tw.as_ref(),
            -T::one(),
            par_for(m, n),
        );
    }
    let mut out = Vec::with_capacity(m * n);
    for j in 0..n {
        for i in 0..m {
            out.push(q[(i, j)]);
        }
    }
    out
}
