//! The singular value decomposition, `?gesdd` (and `?gesvd`, computed the same way):
//! faer's SVD in LAPACK's conventions (singular values descending, `vt = Vᴴ`).
//!
//! LAPACK: `dgesdd.f`.

use faer::MatRef;

use super::{Scalar, SvdJob, col_major};

fn identity<T: Scalar>(n: usize) -> Vec<T> {
    let mut v = vec![T::zero(); n * n];
    for i in 0..n {
        v[i + i * n] = T::one();
    }
    v
}

/// `?gesdd` on one column-major `m×n` matrix: `(s, u, vt, info)`; `None` where the job
/// computes nothing (or the solver failed: `info = 1`, values NaN).
#[allow(clippy::type_complexity)]
pub fn gesdd<T: Scalar>(
    m: usize,
    n: usize,
    a: &[T],
    job: SvdJob,
) -> (Option<Vec<T::Re>>, Option<Vec<T>>, Option<Vec<T>>, i32) {
    let k = m.min(n);
    if k == 0 {
        return match job {
            SvdJob::All => (Some(Vec::new()), Some(identity(m)), Some(identity(n)), 0),
            SvdJob::Some => (Some(Vec::new()), Some(Vec::new()), Some(Vec::new()), 0),
            SvdJob::None => (Some(Vec::new()), None, None, 0),
        };
    }
    if a.iter().any(|x| !x.finite()) {
        return (None, None, None, 1);
    }
    let mat = MatRef::from_column_major_slice(a, m, n);
    if job == SvdJob::None {
        return match mat.singular_values() {
            Ok(s) => (Some(s), None, None, 0),
            Err(_) => (None, None, None, 1),
        };
    }
    let svd = if job == SvdJob::All {
        faer::linalg::solvers::Svd::new(mat)
    } else {
        faer::linalg::solvers::Svd::new_thin(mat)
    };
    let Ok(svd) = svd else {
        return (None, None, None, 1);
    };
    let s = svd.S().column_vector();
    let s: Vec<T::Re> = (0..k).map(|i| s[i].real()).collect();
    let u = col_major(svd.U());
    let vt = col_major(svd.V().adjoint().to_owned().as_ref());
    (Some(s), Some(u), Some(vt), 0)
}
