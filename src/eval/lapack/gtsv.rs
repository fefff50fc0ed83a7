//! The tridiagonal solve, `?gtsv`: Gaussian elimination with partial pivoting on the three
//! diagonals, written out (faer has no tridiagonal solver).
//!
//! LAPACK: `dgtsv.f`.

use super::Scalar;

/// `?gtsv` with jax's operands: `dl[i] = A[i, i-1]` (`dl[0]` unused), `d`, `du[i] =
/// A[i, i+1]`, and the `n×nrhs` column-major `b`, overwritten with the solution; the
/// diagonals hold LAPACK's factorization afterwards. `info = i` if `U[i-1, i-1]` is zero.
pub fn gtsv<T: Scalar>(dl: &mut [T], d: &mut [T], du: &mut [T], b: &mut [T], nrhs: usize) -> i32 {
    let n = d.len();
    if n == 0 {
        return 0;
    }
    // LAPACK's DL(i) (1-based) is A(i+1, i): jax's dl shifted by one.
    let dl = &mut dl[1..];
    let bi = |i: usize, j: usize| i + j * n;
    for i in 0..n - 1 {
        if d[i].abs1() >= dl[i].abs1() {
            // No row interchange.
            if d[i] == T::zero() {
                return i as i32 + 1;
            }
            let fact = dl[i] / d[i];
            d[i + 1] -= fact * du[i];
            for j in 0..nrhs {
                b[bi(i + 1, j)] = b[bi(i + 1, j)] - fact * b[bi(i, j)];
            }
            if i < n - 2 {
                dl[i] = T::zero();
            }
        } else {
            // Interchange rows i and i+1.
            let fact = d[i] / dl[i];
            d[i] = dl[i];
            let temp = d[i + 1];
            d[i + 1] = du[i] - fact * temp;
            if i < n - 2 {
                dl[i] = du[i + 1];
                du[i + 1] = -(fact * dl[i]);
            }
            du[i] = temp;
            for j in 0..nrhs {
                let t = b[bi(i, j)];
                b[bi(i, j)] = b[bi(i + 1, j)];
                b[bi(i + 1, j)] = t - fact * b[bi(i + 1, j)];
            }
        }
    }
    if d[n - 1] == T::zero() {
        return n as i32;
    }
    for j in 0..nrhs {
        b[bi(n - 1, j)] = b[bi(n - 1, j)] / d[n - 1];
        if n > 1 {
            b[bi(n - 2, j)] = (b[bi(n - 2, j)] - du[n - 2] * b[bi(n - 1, j)]) / d[n - 2];
        }
        for i in (0..n.saturating_sub(2)).rev() {
            b[bi(i, j)] = (b[bi(i, j)] - du[i] * b[bi(i + 1, j)] - dl[i] * b[bi(i + 2, j)]) / d[i];
        }
    }
    0
}
