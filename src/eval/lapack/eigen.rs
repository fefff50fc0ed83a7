//! The eigensolvers' entry points: `?syevd`/`?heevd` (faer's self-adjoint solver on the
//! named triangle) and `?geev`, `?gees` (LAPACK's nonsymmetric path, ported in
//! `nonsymmetric.rs`), with LAPACK's `info` and NaN results on failure.
//!
//! LAPACK: `dsyevd.f`, `zheevd.f`, `dgeev.f`, `dgees.f`.

use faer::Mat;
use num_complex::Complex;

use super::{Field, Scalar, col_major, nan};

/// `?syevd`/`?heevd` on one column-major `n×n` matrix: the eigenvectors in place (with
/// `vectors`), the eigenvalues ascending, `info`.
pub fn syevd<T: Scalar>(n: usize, a: &mut [T], lower: bool, vectors: bool) -> (Vec<T::Re>, i32) {
    if n == 0 {
        return (Vec::new(), 0);
    }
    // The Hermitian matrix the named triangle stands for.
    let h = Mat::<T>::from_fn(n, n, |i, j| {
        let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
        let v = a[r + c * n];
        if i == j {
            T::from_real(v.real())
        } else if (r, c) == (i, j) {
            v
        } else {
            v.conj()
        }
    });
    if h.col_iter().any(|c| c.iter().any(|x| !x.finite())) {
        a.fill(T::nan());
        return (vec![nan::<T::Re>(); n], 1);
    }
    if !vectors {
        return match h.as_ref().self_adjoint_eigenvalues(faer::Side::Lower) {
            Ok(w) => (w, 0),
            Err(_) => (vec![nan::<T::Re>(); n], 1),
        };
    }
    match h.as_ref().self_adjoint_eigen(faer::Side::Lower) {
        Ok(e) => {
            let s = e.S().column_vector();
            let w = (0..n).map(|i| s[i].real()).collect();
            a.copy_from_slice(&col_major(e.U()));
            (w, 0)
        }
        Err(_) => {
            a.fill(T::nan());
            (vec![nan::<T::Re>(); n], 1)
        }
    }
}

/// `?gees` (no sorting) on one column-major `n×n` matrix: `(T, Z, eigenvalues, info)`
/// with `A = Z T Zᴴ`, `Z` unitary, `T` upper triangular (complex) or in real Schur form
/// (real: 2×2 blocks with equal diagonals for conjugate pairs). Non-finite input or no
/// convergence: `info` nonzero, NaN results.
#[allow(clippy::type_complexity)]
pub fn gees<T: Scalar>(
    n: usize,
    a: &[T],
    vectors: bool,
) -> (Vec<T>, Vec<T>, Vec<Complex<T::Re>>, i32) {
    let result = if a.iter().all(|x| x.finite()) {
        T::schur(a, n, vectors)
    } else {
        Err(1)
    };
    match result {
        Ok((t, z, w)) => (t, z, w, 0),
        Err(info) => {
            let nan_t = T::from_real(nan::<T::Re>());
            (
                vec![nan_t; n * n],
                vec![nan_t; n * n],
                vec![Complex::new(nan::<T::Re>(), nan::<T::Re>()); n],
                info,
            )
        }
    }
}

/// `?geev` on one column-major `n×n` matrix: eigenvalues, left and right eigenvectors
/// (zeros when not asked for), `info`.
#[allow(clippy::type_complexity)]
pub fn geev<T: Scalar>(
    n: usize,
    a: &[T],
    left: bool,
    right: bool,
) -> (
    Vec<Complex<T::Re>>,
    Vec<Complex<T::Re>>,
    Vec<Complex<T::Re>>,
    i32,
) {
    let zero = Complex::new(<T::Re as Field>::zero(), <T::Re as Field>::zero());
    let nan = Complex::new(nan::<T::Re>(), nan::<T::Re>());
    if n == 0 {
        return (Vec::new(), Vec::new(), Vec::new(), 0);
    }
    let failed = |info| (vec![nan; n], vec![nan; n * n], vec![nan; n * n], info);
    if a.iter().any(|x| !x.finite()) {
        return failed(1);
    }
    match T::eigen(a, n, left, right) {
        Ok((w, mut vl, mut vr)) => {
            if !left {
                vl = vec![zero; n * n];
            }
            if !right {
                vr = vec![zero; n * n];
            }
            (w, vl, vr, 0)
        }
        Err(info) => failed(info),
    }
}
