//! Balancing before the nonsymmetric eigensolver and its undoing: `?gebal` permutes rows
//! and columns to isolate eigenvalues (rows or columns that are zero off the diagonal) and
//! scales the rest by powers of two so that rows and columns have similar norms; `?gebak`
//! applies the inverse to eigenvectors (or Schur vectors).
//!
//! Indices follow LAPACK's: `ilo`, `ihi` and the permutation entries of `scale` are
//! 1-based, matrices are column-major.
//!
//! LAPACK: `dgebal.f`/`zgebal.f` (the 3.12 loop structure), `dgebak.f`/`zgebak.f`.

use num_traits::{Float, One, ToPrimitive, Zero};

use super::auxiliary::{Elem, Real};

/// What `?gebal` does (its `JOB`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Balance {
    /// `P`: permute only (`?gees`).
    Permute,
    /// `B`: permute and scale (`?geev`).
    Both,
}

/// Which eigenvectors `?gebak` transforms (its `SIDE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// `R`: right eigenvectors or Schur vectors.
    Right,
    /// `L`: left eigenvectors.
    Left,
}

/// The result of `?gebal`: `A(ilo:ihi, ilo:ihi)` is the part left to reduce (1-based).
#[derive(Clone, Debug)]
pub(crate) struct Balanced<R> {
    /// First row and column of the unreduced block (1-based).
    pub ilo: usize,
    /// Last row and column of the unreduced block (1-based).
    pub ihi: usize,
    /// Outside `ilo..=ihi`: the row/column exchanged with this one (1-based); inside: the
    /// scaling factor.
    pub scale: Vec<R>,
}

/// `?gebal` on the column-major `n×n` `a`, in place.
pub(crate) fn gebal<T: Elem>(job: Balance, n: usize, a: &mut [T]) -> Balanced<T::R> {
    let one = T::R::one();
    let mut scale = vec![one; n];
    if n == 0 {
        return Balanced {
            ilo: 1,
            ihi: 0,
            scale,
        };
    }
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let is_zero = |x: T| x == T::ZERO;
    let (mut k, mut l) = (1usize, n);
    // Rows isolating an eigenvalue go to the bottom.
    let mut noconv = true;
    while noconv {
        noconv = false;
        let mut i = l;
        while i >= 1 {
            let canswap = (1..=l).all(|j| i == j || is_zero(a[at(i, j)]));
            if canswap {
                scale[l - 1] = T::R::lit(i as f64);
                if i != l {
                    swap_columns(a, n, i, l, l);
                    swap_rows(a, n, i, l, k);
                }
                noconv = true;
                if l == 1 {
                    return Balanced {
                        ilo: 1,
                        ihi: 1,
                        scale,
                    };
                }
                l -= 1;
            }
            i -= 1;
        }
    }
    // Columns isolating an eigenvalue go to the left.
    noconv = true;
    while noconv {
        noconv = false;
        let mut j = k;
        // Fortran fixes the loop's bounds on entry.
        let last = l;
        while j <= last {
            let canswap = (k..=l).all(|i| i == j || is_zero(a[at(i, j)]));
            if canswap {
                scale[k - 1] = T::R::lit(j as f64);
                if j != k {
                    swap_columns(a, n, j, k, l);
                    swap_rows(a, n, j, k, k);
                }
                noconv = true;
                k += 1;
            }
            j += 1;
        }
    }
    for s in &mut scale[k - 1..l] {
        *s = one;
    }
    if job == Balance::Permute {
        return Balanced {
            ilo: k,
            ihi: l,
            scale,
        };
    }
    // Scale by powers of two until no row/column pair shrinks by 5% any more.
    let sclfac = T::R::lit(2.0);
    let factor = T::R::lit(0.95);
    let sfmin1 = T::R::safmin() / T::R::ulp();
    let sfmax1 = one / sfmin1;
    let sfmin2 = sfmin1 * sclfac;
    let sfmax2 = one / sfmin2;
    noconv = true;
    while noconv {
        noconv = false;
        for i in k..=l {
            let col: Vec<T> = (k..=l).map(|r| a[at(r, i)]).collect();
            let row: Vec<T> = (k..=l).map(|c| a[at(i, c)]).collect();
            let mut c = T::nrm2(&col);
            let mut r = T::nrm2(&row);
            let ica = amax((1..=l).map(|r| a[at(r, i)]));
            let mut ca = a[at(ica, i)].modulus();
            let ira = amax((k..=n).map(|c| a[at(i, c)]));
            let mut ra = a[at(i, ira + k - 1)].modulus();
            if c == T::R::zero() || r == T::R::zero() {
                continue;
            }
            if (c + ca + r + ra).is_nan() {
                // LAPACK stops with INFO = -3; the caller has rejected non-finite input.
                return Balanced {
                    ilo: k,
                    ihi: l,
                    scale,
                };
            }
            let mut g = r / sclfac;
            let mut f = one;
            let s = c + r;
            while c < g && f.max(c).max(ca) < sfmax2 && r.min(g).min(ra) > sfmin2 {
                f *= sclfac;
                c *= sclfac;
                ca *= sclfac;
                r /= sclfac;
                g /= sclfac;
                ra /= sclfac;
            }
            g = c / sclfac;
            while g >= r && r.max(ra) < sfmax2 && f.min(c).min(g).min(ca) > sfmin2 {
                f /= sclfac;
                c /= sclfac;
                g /= sclfac;
                ca /= sclfac;
                r *= sclfac;
                ra *= sclfac;
            }
            if c + r >= factor * s {
                continue;
            }
            if f < one && scale[i - 1] < one && f * scale[i - 1] <= sfmin1 {
                continue;
            }
            if f > one && scale[i - 1] > one && scale[i - 1] >= sfmax1 / f {
                continue;
            }
            g = one / f;
            scale[i - 1] *= f;
            noconv = true;
            for c in k..=n {
                a[at(i, c)] = a[at(i, c)].scale(g);
            }
            for r in 1..=l {
                a[at(r, i)] = a[at(r, i)].scale(f);
            }
        }
    }
    Balanced {
        ilo: k,
        ihi: l,
        scale,
    }
}

/// BLAS's `i?amax` (1-based): the first entry of largest `|re| + |im|`.
fn amax<T: Elem>(xs: impl Iterator<Item = T>) -> usize {
    let mut best = 1;
    let mut max = T::R::zero();
    for (i, x) in xs.enumerate() {
        let v = x.abs1();
        if i == 0 || v > max {
            max = v;
            best = i + 1;
        }
    }
    best
}

/// Swaps rows `1..=len` of columns `i` and `j` (1-based).
fn swap_columns<T: Elem>(a: &mut [T], n: usize, i: usize, j: usize, len: usize) {
    for r in 0..len {
        a.swap(r + (i - 1) * n, r + (j - 1) * n);
    }
}

/// Swaps columns `from..=n` of rows `i` and `j` (1-based).
fn swap_rows<T: Elem>(a: &mut [T], n: usize, i: usize, j: usize, from: usize) {
    for c in from - 1..n {
        a.swap((i - 1) + c * n, (j - 1) + c * n);
    }
}

/// `?gebak` with `JOB = P` (`scale_too = false`) or `B`: transforms the `n×m` column-major
/// `v` (eigenvectors of the balanced matrix) into those of the original.
pub(crate) fn gebak<T: Elem>(
    bal: &Balanced<T::R>,
    scale_too: bool,
    side: Side,
    n: usize,
    m: usize,
    v: &mut [T],
) {
    if n == 0 || m == 0 {
        return;
    }
    let (ilo, ihi) = (bal.ilo, bal.ihi);
    if scale_too && ilo != ihi {
        for i in ilo..=ihi {
            let s = match side {
                Side::Right => bal.scale[i - 1],
                Side::Left => T::R::one() / bal.scale[i - 1],
            };
            for c in 0..m {
                v[(i - 1) + c * n] = v[(i - 1) + c * n].scale(s);
            }
        }
    }
    for ii in 1..=n {
        let mut i = ii;
        if i >= ilo && i <= ihi {
            continue;
        }
        if i < ilo {
            i = ilo - ii;
        }
        let k = bal.scale[i - 1].to_usize().unwrap_or(i);
        if k == i || k == 0 || k > n {
            continue;
        }
        for c in 0..m {
            v.swap((i - 1) + c * n, (k - 1) + c * n);
        }
    }
}
