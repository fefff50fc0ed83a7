//! The Hessenberg reduction and its orthogonal factor, as LAPACK's unblocked routines
//! (which `?gehrd` and `?orgqr` run below their crossover of 128 columns): `?gehd2`
//! (`A = Q H Qᴴ`, reflectors stored below the subdiagonal) and `?orghr` (`Q` from them,
//! through `?org2r`/`?ung2r`).
//!
//! Indices `ilo`, `ihi` are 1-based as LAPACK's; matrices are column-major.
//!
//! LAPACK: `dgehd2.f`, `dorghr.f`, `dorg2r.f` (and `z*` for complex), `dlarf.f`.

use super::auxiliary::Elem;

/// `?gehd2`: reduces rows and columns `ilo..=ihi` of the `n×n` `a` to upper Hessenberg
/// form in place; returns `tau` (`n - 1` entries, zero outside `ilo..ihi`).
pub(crate) fn gehd2<T: Elem>(n: usize, ilo: usize, ihi: usize, a: &mut [T]) -> Vec<T> {
    let mut tau = vec![T::ZERO; n.saturating_sub(1)];
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    for i in ilo..ihi {
        // H(i) annihilates A(i+2:ihi, i).
        let mut alpha = a[at(i + 1, i)];
        let mut x: Vec<T> = (i + 2..=ihi).map(|r| a[at(r, i)]).collect();
        let t = T::larfg(&mut alpha, &mut x);
        tau[i - 1] = t;
        let mut v = vec![T::ONE];
        v.extend_from_slice(&x);
        for (k, r) in (i + 2..=ihi).enumerate() {
            a[at(r, i)] = x[k];
        }
        // A(1:ihi, i+1:ihi) ← A(1:ihi, i+1:ihi) H(i).
        larf_right(a, n, ihi, i + 1, &v, t);
        // A(i+1:ihi, i+1:n) ← H(i)ᴴ A(i+1:ihi, i+1:n).
        larf_left(a, n, i + 1, i + 1, n, &v, t.conj());
        a[at(i + 1, i)] = alpha;
    }
    tau
}

/// `?larf`, side `R`: `C ← C (I - τ v vᴴ)` on rows `1..=rows` and columns `c0..` (as many
/// as `v` has entries) of the column-major `a` (`n` rows), 1-based.
fn larf_right<T: Elem>(a: &mut [T], n: usize, rows: usize, c0: usize, v: &[T], tau: T) {
    if tau == T::ZERO {
        return;
    }
    // w = C v, one column at a time (`?gemv`).
    let mut w = vec![T::ZERO; rows];
    for (k, &vk) in v.iter().enumerate() {
        let col = (c0 - 1 + k) * n;
        for (r, wr) in w.iter_mut().enumerate() {
            *wr += vk * a[col + r];
        }
    }
    // C ← C - τ w vᴴ (`?ger`/`?gerc`: column by column, `(-τ v̄ₖ) wᵣ`).
    for (k, &vk) in v.iter().enumerate() {
        let t = -tau * vk.conj();
        let col = (c0 - 1 + k) * n;
        for (r, &wr) in w.iter().enumerate() {
            a[col + r] += wr * t;
        }
    }
}

/// `?larf`, side `L`: `C ← (I - τ v vᴴ) C` on rows `r0..` (as many as `v` has entries)
/// and columns `c0..=c1` of the column-major `a` (`n` rows), 1-based.
fn larf_left<T: Elem>(a: &mut [T], n: usize, r0: usize, c0: usize, c1: usize, v: &[T], tau: T) {
    if tau == T::ZERO {
        return;
    }
    for c in c0..=c1 {
        let col = (c - 1) * n + (r0 - 1);
        // wᶜ = (Cᴴ v)ᶜ (`?gemv` transposed), then C(:, c) -= τ v w̄ᶜ.
        let mut s = T::ZERO;
        for (k, &vk) in v.iter().enumerate() {
            s += a[col + k].conj() * vk;
        }
        let t = -tau * s.conj();
        for (k, &vk) in v.iter().enumerate() {
            a[col + k] += vk * t;
        }
    }
}

/// `?orghr`: the `n×n` unitary `Q` of `?gehd2`'s reflectors (stored in `a` below the
/// subdiagonal, with `tau`); identity outside `ilo..=ihi`.
pub(crate) fn orghr<T: Elem>(n: usize, ilo: usize, ihi: usize, a: &[T], tau: &[T]) -> Vec<T> {
    let mut q = vec![T::ZERO; n * n];
    for j in 0..n {
        q[j + j * n] = T::ONE;
    }
    let nh = ihi.saturating_sub(ilo);
    if nh == 0 {
        return q;
    }
    // The reflectors shifted one column right: an nh×nh `?org2r` at (ilo+1, ilo+1).
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let base = ilo + 1;
    for j in base..=ihi {
        for i in 1..=n {
            q[at(i, j)] = T::ZERO;
        }
        for i in j + 1..=ihi {
            q[at(i, j)] = a[at(i, j - 1)];
        }
    }
    // ?org2r on Q(base:ihi, base:ihi) with k = nh reflectors.
    let m = nh;
    let sub = |i: usize, j: usize| at(base + i - 1, base + j - 1);
    for i in (1..=m).rev() {
        let t = tau[ilo - 1 + i - 1];
        if i < m {
            q[sub(i, i)] = T::ONE;
            let v: Vec<T> = (i..=m).map(|r| q[sub(r, i)]).collect();
            larf_left(&mut q, n, base + i - 1, base + i, base + m - 1, &v, t);
        }
        for r in i + 1..=m {
            q[sub(r, i)] = q[sub(r, i)] * -t;
        }
        q[sub(i, i)] = T::ONE - t;
        for r in 1..i {
            q[sub(r, i)] = T::ZERO;
        }
    }
    q
}
