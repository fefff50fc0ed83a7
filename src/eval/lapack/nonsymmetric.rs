//! The drivers of the nonsymmetric eigenproblem, step by step as LAPACK's `?geev` and
//! `?gees` (no sorting) take them: balance (`?gebal`: permute and scale for `geev`,
//! permute only for `gees`), reduce to Hessenberg form (`?gehd2`), form `Q` (`?orghr`),
//! run the Hessenberg QR algorithm (`?hseqr`), then for `geev` compute eigenvectors from
//! the Schur form (`?trevc3`), undo the balancing (`?gebak`) and normalize each vector to
//! unit 2-norm with its largest component real; for `gees` undo the permutation on `Z`.
//!
//! Not ported: the scaling of matrices whose largest entry is below `sqrt(safmin) / ulp`
//! or above its reciprocal (`?lascl` before and after); such matrices run unscaled.
//!
//! LAPACK: `dgeev.f`, `zgeev.f`, `dgees.f`, `zgees.f`.

use num_complex::Complex;

use super::auxiliary::{Elem, Real, lapy2};
use super::balance::{Balance, Side, gebak, gebal};
use super::hessenberg::{gehd2, orghr};
use super::hqr::{Hessenberg, Hqr, hseqr};
use super::trevc::{trevc_complex, trevc_real};

/// The Schur form of `?gees` (no sorting): `(T, Z, eigenvalues)` with `A = Z T Zᴴ`, or the
/// `info` of a QR iteration that did not converge. `Z` is the identity without `vectors`.
#[allow(clippy::type_complexity)]
pub(crate) fn gees<T: Hessenberg>(
    a: &[T],
    n: usize,
    vectors: bool,
) -> Result<(Vec<T>, Vec<T>, Vec<Complex<T::R>>), i32> {
    let mut h = a.to_vec();
    let bal = gebal(Balance::Permute, n, &mut h);
    let tau = gehd2(n, bal.ilo, bal.ihi, &mut h);
    let mut z = if vectors {
        orghr(n, bal.ilo, bal.ihi, &h, &tau)
    } else {
        Vec::new()
    };
    let how = Hqr {
        wantt: true,
        wantz: vectors,
    };
    let (w, info) = hseqr(how, n, bal.ilo, bal.ihi, &mut h, &mut z);
    if info != 0 {
        return Err(info as i32);
    }
    if vectors {
        gebak(&bal, false, Side::Right, n, n, &mut z);
    }
    Ok((h, z, w))
}

/// `?geev`: eigenvalues, then left and right eigenvectors as complex column-major
/// matrices (empty when not asked for), or the `info` of a QR iteration that did not
/// converge.
#[allow(clippy::type_complexity)]
pub(crate) fn geev<T: Eigenvectors>(
    a: &[T],
    n: usize,
    left: bool,
    right: bool,
) -> Result<(Vec<Complex<T::R>>, Vec<Complex<T::R>>, Vec<Complex<T::R>>), i32> {
    let mut h = a.to_vec();
    let bal = gebal(Balance::Both, n, &mut h);
    let tau = gehd2(n, bal.ilo, bal.ihi, &mut h);
    let vectors = left || right;
    let mut z = if vectors {
        orghr(n, bal.ilo, bal.ihi, &h, &tau)
    } else {
        Vec::new()
    };
    let how = Hqr {
        wantt: vectors,
        wantz: vectors,
    };
    let (w, info) = hseqr(how, n, bal.ilo, bal.ihi, &mut h, &mut z);
    if info != 0 {
        return Err(info as i32);
    }
    if !vectors {
        return Ok((w, Vec::new(), Vec::new()));
    }
    let mut vl = if left { z.clone() } else { Vec::new() };
    let mut vr = if right { z } else { Vec::new() };
    T::trevc(
        n,
        &h,
        left.then_some(&mut vl[..]),
        right.then_some(&mut vr[..]),
    );
    let finish = |v: &mut Vec<T>, side: Side| -> Vec<Complex<T::R>> {
        if v.is_empty() {
            return Vec::new();
        }
        gebak(&bal, true, side, n, n, v);
        T::normalize(n, &w, v);
        T::unpack(n, &w, v)
    };
    let vl = finish(&mut vl, Side::Left);
    let vr = finish(&mut vr, Side::Right);
    Ok((w, vl, vr))
}

/// The steps of `?geev` that differ between real and complex matrices.
pub(crate) trait Eigenvectors: Hessenberg {
    /// `?trevc3` (`HOWMNY = B`): `vl`/`vr` hold `Z` on entry, the eigenvectors on return.
    fn trevc(n: usize, t: &[Self], vl: Option<&mut [Self]>, vr: Option<&mut [Self]>);
    /// `?geev`'s normalization: unit 2-norm, largest component real.
    fn normalize(n: usize, w: &[Complex<Self::R>], v: &mut [Self]);
    /// The eigenvectors as complex columns (jaxlib's unpacking of a real pair's columns
    /// `(re, im)` into `re + i im` and `re - i im`).
    fn unpack(n: usize, w: &[Complex<Self::R>], v: &[Self]) -> Vec<Complex<Self::R>>;
}

macro_rules! eigenvectors {
    ($r:ty) => {
        impl Eigenvectors for $r {
            fn trevc(n: usize, t: &[$r], vl: Option<&mut [$r]>, vr: Option<&mut [$r]>) {
                trevc_real(n, t, vl, vr);
            }
            fn normalize(n: usize, w: &[Complex<$r>], v: &mut [$r]) {
                normalize_real(n, w, v);
            }
            fn unpack(n: usize, w: &[Complex<$r>], v: &[$r]) -> Vec<Complex<$r>> {
                let mut out = vec![Complex::new(0.0, 0.0); n * n];
                let mut j = 0;
                while j < n {
                    if w[j].im == 0.0 || j + 1 == n {
                        for i in 0..n {
                            out[i + j * n] = Complex::new(v[i + j * n], 0.0);
                        }
                        j += 1;
                    } else {
                        for i in 0..n {
                            let (re, im) = (v[i + j * n], v[i + (j + 1) * n]);
                            out[i + j * n] = Complex::new(re, im);
                            out[i + (j + 1) * n] = Complex::new(re, -im);
                        }
                        j += 2;
                    }
                }
                out
            }
        }
        impl Eigenvectors for Complex<$r> {
            fn trevc(
                n: usize,
                t: &[Complex<$r>],
                vl: Option<&mut [Complex<$r>]>,
                vr: Option<&mut [Complex<$r>]>,
            ) {
                trevc_complex(n, t, vl, vr);
            }
            fn normalize(n: usize, _w: &[Complex<$r>], v: &mut [Complex<$r>]) {
                normalize_complex(n, v);
            }
            fn unpack(_n: usize, _w: &[Complex<$r>], v: &[Complex<$r>]) -> Vec<Complex<$r>> {
                v.to_vec()
            }
        }
    };
}
eigenvectors!(f32);
eigenvectors!(f64);

/// `dgeev`'s normalization: a real vector to unit 2-norm; a pair's columns `(re, im)`
/// jointly to unit norm, then rotated (`?lartg`) so that the component of largest
/// modulus is real.
fn normalize_real<R: Real + Elem<R = R>>(n: usize, w: &[Complex<R>], v: &mut [R]) {
    let one = R::one();
    let zero = R::zero();
    let mut i = 0;
    while i < n {
        if w[i].im == zero {
            let col = &mut v[i * n..(i + 1) * n];
            let scl = one / R::nrm2(col);
            col.iter_mut().for_each(|x| *x *= scl);
            i += 1;
        } else if w[i].im > zero && i + 1 < n {
            let (a, b) = v.split_at_mut((i + 1) * n);
            let re = &mut a[i * n..];
            let im = &mut b[..n];
            let scl = one / lapy2(R::nrm2(re), R::nrm2(im));
            re.iter_mut().for_each(|x| *x *= scl);
            im.iter_mut().for_each(|x| *x *= scl);
            let mut k = 0;
            let mut best = zero;
            for r in 0..n {
                let m = re[r] * re[r] + im[r] * im[r];
                if r == 0 || m > best {
                    best = m;
                    k = r;
                }
            }
            let (cs, sn) = lartg(re[k], im[k]);
            for r in 0..n {
                let temp = cs * re[r] + sn * im[r];
                im[r] = cs * im[r] - sn * re[r];
                re[r] = temp;
            }
            im[k] = zero;
            i += 2;
        } else {
            i += 1;
        }
    }
}

/// `?lartg` (LAPACK 3.10's): `(c, s)` with `[c s; -s c] (f, g) = (r, 0)`.
fn lartg<R: Real>(f: R, g: R) -> (R, R) {
    let zero = R::zero();
    let one = R::one();
    let safmin = R::safmin();
    let safmax = one / safmin;
    let rtmin = safmin.sqrt();
    let rtmax = (safmax / R::lit(2.0)).sqrt();
    let (f1, g1) = (f.abs(), g.abs());
    if g == zero {
        (one, zero)
    } else if f == zero {
        (zero, one.copysign(g))
    } else if f1 > rtmin && f1 < rtmax && g1 > rtmin && g1 < rtmax {
        let d = (f * f + g * g).sqrt();
        let c = f1 / d;
        let r = d.copysign(f);
        (c, g / r)
    } else {
        let u = safmax.min(safmin.max(f1).max(g1));
        let (fs, gs) = (f / u, g / u);
        let d = (fs * fs + gs * gs).sqrt();
        let c = fs.abs() / d;
        let r = d.copysign(f);
        (c, gs / r)
    }
}

/// `zgeev`'s normalization: unit 2-norm, then the component of largest modulus made real.
fn normalize_complex<R: Real>(n: usize, v: &mut [Complex<R>])
where
    Complex<R>: Elem<R = R>,
{
    for col in v.chunks_mut(n.max(1)) {
        let scl = R::one() / <Complex<R> as Elem>::nrm2(col);
        col.iter_mut().for_each(|x| *x = x.scale(scl));
        let mut k = 0;
        let mut best = R::zero();
        for (r, x) in col.iter().enumerate() {
            let m = x.re * x.re + x.im * x.im;
            if r == 0 || m > best {
                best = m;
                k = r;
            }
        }
        let s = best.sqrt();
        let tmp = Complex::new(col[k].re / s, -col[k].im / s);
        col.iter_mut().for_each(|x| *x = tmp * *x);
        col[k] = Complex::new(col[k].re, R::zero());
    }
}
