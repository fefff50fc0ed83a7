//! `tridiagonal_solve_perturbed_ffi`: what `lax.linalg.tridiagonal_solve(...,
//! perturb_singular=True)` calls on CPU. Gaussian elimination with partial pivoting on the
//! three diagonals (LAPACK's `?lagtf`), the forward solve fused in; in the back
//! substitution a pivot too small to divide by is moved away from zero by multiples of
//! `eps·max|U|` (LAPACK's `?lagts`), so a singular system still has a finite answer
//! (inverse iteration solves `(T - λI) x = b` at an eigenvalue `λ`).
//! jaxlib: `jaxlib/tridiagonal_solve_perturbed.h`, which this follows step by step.

use super::householder::modulus;
use super::{Field, Scalar};

/// Solves `T x = b` for the column-major `n×nrhs` `b` (overwritten with `x`), where `T` has
/// the subdiagonal `dl[1..]`, diagonal `d` and superdiagonal `du[..n-1]`.
pub fn tridiagonal_solve_perturbed<T: Scalar>(
    dl: &[T],
    d: &[T],
    du: &[T],
    b: &mut [T],
    nrhs: usize,
) {
    let n = d.len();
    if n == 0 {
        return;
    }
    let rhs: Vec<T> = b.to_vec();
    let x = b;
    let row = |v: &[T], i: usize| -> Vec<T> { (0..nrhs).map(|c| v[i + c * n]).collect() };
    let set = |v: &mut [T], i: usize, r: &[T]| {
        for (c, &e) in r.iter().enumerate() {
            v[i + c * n] = e;
        }
    };
    let eps = T::eps();
    if n == 1 {
        let mut p = d[0];
        let mut r = row(&rhs, 0);
        maybe_perturb_pivot(eps * modulus(p), &mut p, &mut r);
        let out: Vec<T> = r.iter().map(|&e| e / p).collect();
        set(x, 0, &out);
        return;
    }
    // U's diagonal and two superdiagonals, row by row.
    let mut u = vec![[T::zero(); 3]; n];
    u[0][0] = d[0];
    u[0][1] = du[0];
    let mut max_abs_u = max(modulus(u[0][0]), modulus(u[0][1]));
    let mut scale1 = modulus(u[0][0]) + modulus(u[0][1]);
    set(x, 0, &row(&rhs, 0));
    for k in 0..n - 1 {
        u[k + 1][0] = d[k + 1];
        let mut scale2 = modulus(dl[k + 1]) + modulus(u[k + 1][0]);
        if k < n - 2 {
            scale2 += modulus(du[k + 1]);
        }
        if dl[k + 1] == T::zero() {
            scale1 = scale2;
            u[k + 1][1] = du[k + 1];
            u[k][2] = T::zero();
            set(x, k + 1, &row(&rhs, k + 1));
        } else {
            let zero = <T::Re as Field>::zero();
            let piv1 = if u[k][0] == T::zero() {
                zero
            } else {
                modulus(u[k][0]) / scale1
            };
            let piv2 = modulus(dl[k + 1]) / scale2;
            if piv2 <= piv1 {
                scale1 = scale2;
                let factor = dl[k + 1] / u[k][0];
                u[k + 1][0] = u[k + 1][0] - factor * u[k][1];
                u[k + 1][1] = du[k + 1];
                u[k][2] = T::zero();
                let xk = row(x, k);
                let r: Vec<T> = row(&rhs, k + 1)
                    .iter()
                    .zip(&xk)
                    .map(|(&r, &p)| r - factor * p)
                    .collect();
                set(x, k + 1, &r);
            } else {
                // Swap rows k and k+1.
                let factor = u[k][0] / dl[k + 1];
                let utmp = u[k][1];
                u[k][0] = dl[k + 1];
                u[k + 1][0] = utmp - factor * d[k + 1];
                u[k][1] = d[k + 1];
                if k < n - 2 {
                    u[k][2] = du[k + 1];
                    u[k + 1][1] = -(factor * du[k + 1]);
                }
                let xk = row(x, k);
                let rk1 = row(&rhs, k + 1);
                let r: Vec<T> = xk.iter().zip(&rk1).map(|(&p, &r)| p - factor * r).collect();
                set(x, k + 1, &r);
                set(x, k, &rk1);
                scale1 = modulus(u[k + 1][0]) + modulus(u[k + 1][1]);
            }
        }
        if k < n - 2 {
            for e in u[k] {
                max_abs_u = max(max_abs_u, modulus(e));
            }
        }
    }
    max_abs_u = max(max_abs_u, modulus(u[n - 1][0]));
    let perturb = eps * max_abs_u;
    // Back substitution, perturbing tiny pivots.
    for k in (0..n).rev() {
        let mut p = u[k][0];
        let mut r = row(x, k);
        if k + 1 < n {
            let x1 = row(x, k + 1);
            for (e, &v) in r.iter_mut().zip(&x1) {
                *e -= u[k][1] * v;
            }
        }
        if k + 2 < n {
            let x2 = row(x, k + 2);
            for (e, &v) in r.iter_mut().zip(&x2) {
                *e -= u[k][2] * v;
            }
        }
        maybe_perturb_pivot(perturb, &mut p, &mut r);
        let inv = T::one() / p;
        let out: Vec<T> = r.iter().map(|&e| e * inv).collect();
        set(x, k, &out);
    }
}

/// Moves `pivot` away from zero (by `perturb`, doubling) or scales it and `row` up, until
/// neither `row / pivot` nor `1 / pivot` overflows (`MaybePerturbPivot`, from `?lagts`).
fn maybe_perturb_pivot<T: Scalar>(perturb: T::Re, pivot: &mut T, row: &mut [T]) {
    let one = <T::Re as Field>::one();
    let zero = <T::Re as Field>::zero();
    let safemin = T::safe_min();
    let bignum = one / safemin;
    let mut abs_pivot = modulus(*pivot);
    if abs_pivot >= one {
        return;
    }
    let mut perturb = copysign(max(perturb.abs1(), safemin), pivot.real());
    let max_factor = row.iter().fold(zero, |m, &e| max(m, modulus(e)));
    let two = <T::Re as Field>::from_re(2.0);
    let mut stop = false;
    while abs_pivot < one && !stop {
        if abs_pivot < safemin {
            if abs_pivot == zero || max_factor * safemin > abs_pivot {
                *pivot += T::from_real(perturb);
                perturb *= two;
            } else {
                *pivot *= T::from_real(bignum);
                for e in row.iter_mut() {
                    *e *= T::from_real(bignum);
                }
                stop = true;
            }
        } else if max_factor > abs_pivot * bignum {
            *pivot += T::from_real(perturb);
            perturb *= two;
        } else {
            stop = true;
        }
        abs_pivot = modulus(*pivot);
    }
}

/// `std::max` (the first if neither is larger; NaN-propagating only from `a`).
fn max<R: PartialOrd>(a: R, b: R) -> R {
    if a < b { b } else { a }
}

/// `|x|` with the sign of `sign` (`-0.0` counts as negative, as in `copysign`).
fn copysign<R: Scalar<Re = R> + PartialOrd>(x: R, sign: R) -> R {
    let mag = x.abs1();
    let negative = sign < R::zero() || (sign == R::zero() && (R::one() / sign) < R::zero());
    if negative { -mag } else { mag }
}
