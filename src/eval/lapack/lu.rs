//! LU with partial pivoting, `?getrf`: faer's blocked factorization with LAPACK's `ipiv`
//! recovered from its permutation, and LAPACK's unblocked `?getf2` for a matrix with a
//! zero pivot.
//!
//! LAPACK: `dgetrf.f`, `dgetf2.f`.

use faer::MatMut;
use faer::dyn_stack::{MemBuffer, MemStack};

use super::{Scalar, par_for};

/// `?getrf` on one column-major `m×n` matrix: the packed factors in place, `ipiv` and
/// `info`.
pub fn getrf<T: Scalar>(m: usize, n: usize, a: &mut [T]) -> (Vec<i32>, i32) {
    let k = m.min(n);
    if k == 0 {
        return (Vec::new(), 0);
    }
    let original = a.to_vec();
    let mut perm = vec![0usize; m];
    let mut perm_inv = vec![0usize; m];
    {
        let mat = MatMut::from_column_major_slice_mut(a, m, n);
        let mut mem = MemBuffer::new(
            faer::linalg::lu::partial_pivoting::factor::lu_in_place_scratch::<usize, T>(
                m,
                n,
                par_for(m, n),
                Default::default(),
            ),
        );
        faer::linalg::lu::partial_pivoting::factor::lu_in_place(
            mat,
            &mut perm,
            &mut perm_inv,
            par_for(m, n),
            MemStack::new(&mut mem),
            Default::default(),
        );
    }
    let zero_pivot = (0..k).any(|i| a[i + i * m] == T::zero());
    if zero_pivot {
        a.copy_from_slice(&original);
        return getf2(m, n, a);
    }
    // LAPACK's row swaps: at step i, the row that ends at position i is where it is now.
    let mut at: Vec<usize> = (0..m).collect(); // position -> original row
    let mut pos: Vec<usize> = (0..m).collect(); // original row -> position
    let mut ipiv = Vec::with_capacity(k);
    for (i, &row) in perm.iter().enumerate().take(k) {
        let j = pos[row];
        ipiv.push(j as i32 + 1);
        let other = at[i];
        at.swap(i, j);
        pos[row] = i;
        pos[other] = j;
    }
    (ipiv, 0)
}

/// LAPACK's unblocked `?getf2`: right-looking elimination that leaves a column with a zero
/// pivot unscaled and reports the first such column in `info`.
fn getf2<T: Scalar>(m: usize, n: usize, a: &mut [T]) -> (Vec<i32>, i32) {
    let k = m.min(n);
    let mut ipiv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        let mut p = j;
        let mut best = a[j + j * m].abs1();
        for i in j + 1..m {
            let v = a[i + j * m].abs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv.push(p as i32 + 1);
        if a[p + j * m] != T::zero() {
            if p != j {
                for c in 0..n {
                    a.swap(j + c * m, p + c * m);
                }
            }
            let inv = T::one() / a[j + j * m];
            for i in j + 1..m {
                a[i + j * m] *= inv;
            }
        } else if info == 0 {
            info = j as i32 + 1;
        }
        for c in j + 1..n {
            let u = a[j + c * m];
            for i in j + 1..m {
                a[i + c * m] -= a[i + j * m] * u;
            }
        }
    }
    (ipiv, info)
}
