//! The Householder routines that must follow LAPACK's reflector convention exactly, written
//! out as LAPACK's unblocked loops: complex `?geqr2` (`R`'s diagonal real), `?ormqr` /
//! `?unmqr` (apply `Q` or `Qᴴ` from either side) and `?geqp3` (QR with column pivoting,
//! `?laqp2`'s pivot choice and norm downdating).
//!
//! Every reflector is LAPACK's `H = I - τ v vᴴ` with `v₀ = 1` stored below the diagonal
//! (`?larfg`, in the parent module), so that `orgqr`, `ormqr` and jax's own
//! `householder_product` read these factors as they read XLA:CPU's.
//! LAPACK: `zgeqr2.f`, `zunm2r.f`, `zgeqp3.f`, `zlaqp2.f`.

use super::{Field, Scalar, larfg};

/// `|x|`, as LAPACK's `abs` of a complex number (scaled, so that it does not overflow).
pub(super) fn modulus<T: Scalar>(x: T) -> T::Re {
    let c = x.to_cx();
    let (a, b) = (c.re.abs1(), c.im.abs1());
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    let zero = <T::Re as Field>::zero();
    if big == zero {
        return zero;
    }
    let r = small / big;
    big * (<T::Re as Field>::one() + r * r).sqrt_re()
}

/// The 2-norm of `x` (`?nrm2`).
fn nrm2<T: Scalar>(x: &[T]) -> T::Re {
    let zero = <T::Re as Field>::zero();
    let scale = x.iter().fold(zero, |m, &v| {
        let c = v.to_cx();
        let a = c.re.abs1().max_re(c.im.abs1());
        a.max_re(m)
    });
    if scale == zero {
        return zero;
    }
    let sum = x.iter().fold(zero, |acc, &v| {
        let c = v.to_cx();
        let (re, im) = (c.re / scale, c.im / scale);
        acc + re * re + im * im
    });
    scale * sum.sqrt_re()
}

/// The larger of two reals (the first if they compare equal or unordered).
trait MaxRe: Sized {
    fn max_re(self, other: Self) -> Self;
}

impl<R: PartialOrd> MaxRe for R {
    fn max_re(self, other: R) -> R {
        if other > self { other } else { self }
    }
}

/// Applies `I - t v vᴴ` from the left to rows `r0..r0+v.len()` of columns `cols` of the
/// column-major `a` with `lda` rows (`?larf`, side `L`).
fn apply_left<T: Scalar>(
    a: &mut [T],
    lda: usize,
    r0: usize,
    cols: std::ops::Range<usize>,
    v: &[T],
    t: T,
) {
    if t == T::zero() {
        return;
    }
    for c in cols {
        let col = &mut a[c * lda + r0..c * lda + r0 + v.len()];
        let s = v
            .iter()
            .zip(col.iter())
            .fold(T::zero(), |acc, (&vk, &x)| acc + vk.conj() * x);
        let ts = t * s;
        for (x, &vk) in col.iter_mut().zip(v) {
            *x -= vk * ts;
        }
    }
}

/// Applies `I - t v vᴴ` from the right to columns `c0..c0+v.len()` of the `rows×_`
/// column-major `a` (`?larf`, side `R`).
fn apply_right<T: Scalar>(a: &mut [T], rows: usize, c0: usize, v: &[T], t: T) {
    if t == T::zero() {
        return;
    }
    for r in 0..rows {
        let s = v
            .iter()
            .enumerate()
            .fold(T::zero(), |acc, (k, &vk)| acc + a[r + (c0 + k) * rows] * vk);
        let ts = t * s;
        for (k, &vk) in v.iter().enumerate() {
            a[r + (c0 + k) * rows] -= ts * vk.conj();
        }
    }
}

/// Reflector `i` of the column-major `a` (`lda` rows): `v = (1, a[i+1..lda, i])`, from row
/// `row` (its head) down.
fn reflector<T: Scalar>(a: &[T], lda: usize, row: usize, col: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(lda - row);
    v.push(T::one());
    v.extend_from_slice(&a[col * lda + row + 1..(col + 1) * lda]);
    v
}

/// LAPACK's unblocked `?geqr2` on one column-major `m×n` matrix: `R` (real diagonal) and
/// the reflectors in place, `tau`.
pub fn geqr2<T: Scalar>(m: usize, n: usize, a: &mut [T]) -> Vec<T> {
    let k = m.min(n);
    let mut tau = Vec::with_capacity(k);
    for i in 0..k {
        let (beta, t) = reflect_column(a, m, i, i);
        tau.push(t);
        let v = reflector(a, m, i, i);
        apply_left(a, m, i, i + 1..n, &v, t.conj());
        a[i + i * m] = beta;
    }
    tau
}

/// `?larfg` on column `col` from row `row` down: the tail becomes the reflector; returns
/// `(β, τ)` and leaves the head for the caller to overwrite with `β` (after applying).
fn reflect_column<T: Scalar>(a: &mut [T], lda: usize, row: usize, col: usize) -> (T, T) {
    let head = a[row + col * lda];
    let tail = &mut a[col * lda + row + 1..(col + 1) * lda];
    let (beta, t) = larfg(head, tail);
    a[row + col * lda] = T::one();
    (beta, t)
}

/// Which side `Q` multiplies `c` from, and whether it is `Q` or `Qᴴ` (`?ormqr`'s `side` and
/// `trans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ormqr {
    /// `side = L`: `Q c` (else `c Q`).
    pub left: bool,
    /// `trans = T`/`C`: `Qᴴ` (else `Q`).
    pub transpose: bool,
}

/// `?ormqr`/`?unmqr` (as LAPACK's unblocked `?orm2r`): overwrites the column-major
/// `rows×cols` `c` with `op(Q) c` or `c op(Q)`, where `Q = H₁⋯H_k` comes from the
/// reflectors below the diagonal of the column-major `a` (`lda` rows, `k = tau.len()`
/// columns used).
pub fn ormqr<T: Scalar>(
    how: Ormqr,
    a: &[T],
    lda: usize,
    tau: &[T],
    c: &mut [T],
    rows: usize,
    cols: usize,
) {
    let k = tau.len();
    // Q c = H₁(H₂(⋯H_k c)); Qᴴ c = H_kᴴ⋯H₁ᴴ c; c Q = c H₁⋯H_k; c Qᴴ = c H_kᴴ⋯H₁ᴴ.
    let forward = how.left == how.transpose;
    let order: Vec<usize> = if forward {
        (0..k).collect()
    } else {
        (0..k).rev().collect()
    };
    for i in order {
        let v = reflector(a, lda, i, i);
        let t = if how.transpose { tau[i].conj() } else { tau[i] };
        if how.left {
            apply_left(c, rows, i, 0..cols, &v, t);
        } else {
            apply_right(c, rows, i, &v, t);
        }
    }
}

/// `?geqp3` on one column-major `m×n` matrix: `R` and the reflectors in place, `jpvt`
/// (1-based; nonzero entries on entry mark columns moved to the front and factored
/// first, in order) and `tau`. The free columns are pivoted as `?laqp2` does: the largest
/// remaining partial column norm (the first of equals), downdated after each step and
/// recomputed when cancellation makes the downdate unreliable.
pub fn geqp3<T: Scalar>(m: usize, n: usize, a: &mut [T], jpvt: &mut [i32]) -> Vec<T> {
    let k = m.min(n);
    // Fixed columns to the front.
    let mut nfxd = 0;
    for j in 0..n {
        if jpvt[j] != 0 {
            if j != nfxd {
                swap_columns(a, m, j, nfxd);
                jpvt[j] = jpvt[nfxd];
                jpvt[nfxd] = j as i32 + 1;
            } else {
                jpvt[j] = j as i32 + 1;
            }
            nfxd += 1;
        } else {
            jpvt[j] = j as i32 + 1;
        }
    }
    let mut tau = vec![T::zero(); k];
    // Factor the fixed columns, then apply their Qᴴ to the rest.
    let na = nfxd.min(m);
    if na > 0 {
        let t = geqr2(m, na, &mut a[..m * na]);
        tau[..na].copy_from_slice(&t);
        let (fixed, rest) = a.split_at_mut(m * na);
        let how = Ormqr {
            left: true,
            transpose: true,
        };
        ormqr(how, fixed, m, &t, rest, m, n - na);
    }
    if nfxd >= k {
        return tau;
    }
    let eps = T::eps();
    let tol3z = eps.sqrt_re();
    let mut vn1: Vec<T::Re> = (0..n)
        .map(|j| {
            if j < nfxd {
                <T::Re as Field>::zero()
            } else {
                nrm2(&a[j * m + nfxd..(j + 1) * m])
            }
        })
        .collect();
    let mut vn2 = vn1.clone();
    let zero = <T::Re as Field>::zero();
    let one = <T::Re as Field>::one();
    for i in nfxd..k {
        // The pivot: the first column of largest remaining norm.
        let mut pvt = i;
        for j in i + 1..n {
            if vn1[j] > vn1[pvt] {
                pvt = j;
            }
        }
        if pvt != i {
            swap_columns(a, m, pvt, i);
            jpvt.swap(pvt, i);
            vn1[pvt] = vn1[i];
            vn2[pvt] = vn2[i];
        }
        let (beta, t) = reflect_column(a, m, i, i);
        tau[i] = t;
        let v = reflector(a, m, i, i);
        apply_left(a, m, i, i + 1..n, &v, t.conj());
        a[i + i * m] = beta;
        for j in i + 1..n {
            if vn1[j] == zero {
                continue;
            }
            let r = modulus(a[i + j * m]) / vn1[j];
            let temp = (one - r * r).max_re(zero);
            let q = vn1[j] / vn2[j];
            if temp * q * q <= tol3z {
                let norm = if i + 1 < m {
                    nrm2(&a[j * m + i + 1..(j + 1) * m])
                } else {
                    zero
                };
                vn1[j] = norm;
                vn2[j] = norm;
            } else {
                vn1[j] *= temp.sqrt_re();
            }
        }
    }
    tau
}

fn swap_columns<T: Copy>(a: &mut [T], m: usize, i: usize, j: usize) {
    for r in 0..m {
        a.swap(r + i * m, r + j * m);
    }
}
