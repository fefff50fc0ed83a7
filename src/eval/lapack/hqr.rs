//! The Hessenberg QR algorithm: `?hseqr` through `?lahqr`, the small-matrix path of
//! reference LAPACK. Real matrices take Francis double-shift steps and end in real Schur
//! form, each 2×2 block of a complex-conjugate pair standardized by `?lanv2` (equal
//! diagonal, off-diagonals of opposite sign); complex matrices take single-shift steps and
//! end upper triangular. The eigenvalues come out in the order of `T`'s diagonal, which is
//! what makes them LAPACK's order.
//!
//! Not ported: for `n >= 75` LAPACK's `?hseqr` switches to `?laqr0` (multishift sweeps with
//! aggressive early deflation); here `?lahqr` serves every size, so for such matrices the
//! Schur form is a valid one, but its eigenvalue order (and so `T`, `Z`) may differ from
//! LAPACK's. Neither is `?hseqr`'s `?laqr0` retry after `?lahqr` fails to converge.
//!
//! Indices are 1-based as LAPACK's; matrices column-major with `n` rows.
//!
//! LAPACK: `dhseqr.f`, `dlahqr.f`, `dlanv2.f`, `zhseqr.f`, `zlahqr.f`.

use num_complex::Complex;

use num_traits::Zero;

use super::auxiliary::{Elem, Real, cdiv_re, csqrt, lapy2, sign, zladiv};

/// What `?hseqr` computes besides the eigenvalues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hqr {
    /// `JOB = S`: the Schur form `T` (else only the eigenvalues, `E`).
    pub wantt: bool,
    /// `COMPZ = V`: the Schur vectors, accumulated into the given `Z`.
    pub wantz: bool,
}

/// `?hseqr` on the upper Hessenberg `n×n` `h` (already triangular outside
/// `ilo..=ihi`): its eigenvalues, and `info` (0, or the row `?lahqr` stopped at). With
/// `wantt`, `h` becomes `T`; with `wantz`, `z ← z Q`.
pub(crate) fn hseqr<T: Hessenberg>(
    how: Hqr,
    n: usize,
    ilo: usize,
    ihi: usize,
    h: &mut [T],
    z: &mut [T],
) -> (Vec<Complex<T::R>>, usize) {
    let zero = Complex::new(T::R::zero(), T::R::zero());
    let mut w = vec![zero; n];
    if n == 0 {
        return (w, 0);
    }
    for i in (1..ilo).chain(ihi + 1..=n) {
        w[i - 1] = h[(i - 1) + (i - 1) * n].cx();
    }
    if ilo == ihi {
        w[ilo - 1] = h[(ilo - 1) + (ilo - 1) * n].cx();
        return (w, 0);
    }
    let info = T::lahqr(how, n, ilo, ihi, h, &mut w, ilo, ihi, z);
    if (how.wantt || info != 0) && n > 2 {
        for j in 1..=n - 2 {
            for i in j + 2..=n {
                h[(i - 1) + (j - 1) * n] = T::ZERO;
            }
        }
    }
    (w, info)
}

/// An element type with its `?lahqr`.
pub(crate) trait Hessenberg: Elem {
    /// `?lahqr`: eigenvalues of rows/columns `ilo..=ihi` into `w`, `z`'s rows
    /// `iloz..=ihiz` updated; returns `info`.
    #[allow(clippy::too_many_arguments)]
    fn lahqr(
        how: Hqr,
        n: usize,
        ilo: usize,
        ihi: usize,
        h: &mut [Self],
        w: &mut [Complex<Self::R>],
        iloz: usize,
        ihiz: usize,
        z: &mut [Self],
    ) -> usize;
}

macro_rules! hessenberg {
    ($r:ty) => {
        impl Hessenberg for $r {
            fn lahqr(
                how: Hqr,
                n: usize,
                ilo: usize,
                ihi: usize,
                h: &mut [$r],
                w: &mut [Complex<$r>],
                iloz: usize,
                ihiz: usize,
                z: &mut [$r],
            ) -> usize {
                dlahqr(how, n, ilo, ihi, h, w, iloz, ihiz, z)
            }
        }
        impl Hessenberg for Complex<$r> {
            fn lahqr(
                how: Hqr,
                n: usize,
                ilo: usize,
                ihi: usize,
                h: &mut [Complex<$r>],
                w: &mut [Complex<$r>],
                iloz: usize,
                ihiz: usize,
                z: &mut [Complex<$r>],
            ) -> usize {
                zlahqr(how, n, ilo, ihi, h, w, iloz, ihiz, z)
            }
        }
    };
}
hessenberg!(f32);
hessenberg!(f64);

/// `drot`: `(x, y) ← (c x + s y, c y - s x)` elementwise.
fn rot<R: Real>(a: &mut [R], xs: impl Iterator<Item = (usize, usize)>, c: R, s: R) {
    for (x, y) in xs {
        let temp = c * a[x] + s * a[y];
        a[y] = c * a[y] - s * a[x];
        a[x] = temp;
    }
}

/// `dlahqr` (real double-shift QR).
#[allow(clippy::too_many_arguments)]
fn dlahqr<R: Real + Elem<R = R>>(
    how: Hqr,
    n: usize,
    ilo: usize,
    ihi: usize,
    h: &mut [R],
    w: &mut [Complex<R>],
    iloz: usize,
    ihiz: usize,
    z: &mut [R],
) -> usize {
    let zero = R::zero();
    let one = R::one();
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let dat1 = R::lit(0.75);
    let dat2 = R::lit(-0.4375);
    const KEXSH: usize = 10;
    if n == 0 {
        return 0;
    }
    if ilo == ihi {
        w[ilo - 1] = Complex::new(h[at(ilo, ilo)], zero);
        return 0;
    }
    // Clear out the trash below the subdiagonal.
    for j in ilo..=ihi.saturating_sub(3) {
        h[at(j + 2, j)] = zero;
        h[at(j + 3, j)] = zero;
    }
    if ilo + 2 <= ihi {
        h[at(ihi, ihi - 2)] = zero;
    }
    let nh = ihi - ilo + 1;
    let safmin = R::safmin();
    let ulp = R::ulp();
    let smlnum = safmin * (R::lit(nh as f64) / ulp);
    let (mut i1, mut i2) = (1, n);
    let itmax = 30 * nh.max(10);
    let mut kdefl = 0usize;
    let mut i = ihi;
    let mut v = [zero; 3];
    while i >= ilo {
        let mut l = ilo;
        let mut converged = false;
        for _its in 0..=itmax {
            // Look for a single small subdiagonal element.
            let mut k = i;
            while k > l {
                if h[at(k, k - 1)].abs() <= smlnum {
                    break;
                }
                let mut tst = h[at(k - 1, k - 1)].abs() + h[at(k, k)].abs();
                if tst == zero {
                    if k >= ilo + 2 {
                        tst += h[at(k - 1, k - 2)].abs();
                    }
                    if k < ihi {
                        tst += h[at(k + 1, k)].abs();
                    }
                }
                // Ahues and Kressner's conservative deflation criterion.
                if h[at(k, k - 1)].abs() <= ulp * tst {
                    let ab = h[at(k, k - 1)].abs().max(h[at(k - 1, k)].abs());
                    let ba = h[at(k, k - 1)].abs().min(h[at(k - 1, k)].abs());
                    let aa = h[at(k, k)]
                        .abs()
                        .max((h[at(k - 1, k - 1)] - h[at(k, k)]).abs());
                    let bb = h[at(k, k)]
                        .abs()
                        .min((h[at(k - 1, k - 1)] - h[at(k, k)]).abs());
                    let s = aa + ab;
                    if ba * (ab / s) <= smlnum.max(ulp * (bb * (aa / s))) {
                        break;
                    }
                }
                k -= 1;
            }
            l = k;
            if l > ilo {
                h[at(l, l - 1)] = zero;
            }
            // A block of order 1 or 2 has split off.
            if l + 1 >= i {
                converged = true;
                break;
            }
            kdefl += 1;
            if !how.wantt {
                i1 = l;
                i2 = i;
            }
            let (mut h11, mut h12, mut h21, mut h22);
            if kdefl.is_multiple_of(2 * KEXSH) {
                let s = h[at(i, i - 1)].abs() + h[at(i - 1, i - 2)].abs();
                h11 = dat1 * s + h[at(i, i)];
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else if kdefl.is_multiple_of(KEXSH) {
                let s = h[at(l + 1, l)].abs() + h[at(l + 2, l + 1)].abs();
                h11 = dat1 * s + h[at(l, l)];
                h12 = dat2 * s;
                h21 = s;
                h22 = h11;
            } else {
                h11 = h[at(i - 1, i - 1)];
                h21 = h[at(i, i - 1)];
                h12 = h[at(i - 1, i)];
                h22 = h[at(i, i)];
            }
            let s = h11.abs() + h12.abs() + h21.abs() + h22.abs();
            let (rt1r, rt1i, rt2r, rt2i) = if s == zero {
                (zero, zero, zero, zero)
            } else {
                h11 /= s;
                h21 /= s;
                h12 /= s;
                h22 /= s;
                let tr = (h11 + h22) / R::lit(2.0);
                let det = (h11 - tr) * (h22 - tr) - h12 * h21;
                let rtdisc = det.abs().sqrt();
                if det >= zero {
                    // A complex-conjugate pair of shifts.
                    (tr * s, rtdisc * s, tr * s, -(rtdisc * s))
                } else {
                    // Two real shifts: use the one nearer H(i, i) twice.
                    let a = tr + rtdisc;
                    let b = tr - rtdisc;
                    let r = if (a - h22).abs() <= (b - h22).abs() {
                        a * s
                    } else {
                        b * s
                    };
                    (r, zero, r, zero)
                }
            };
            // Look for two consecutive small subdiagonal elements.
            let mut m = i - 2;
            loop {
                let mut h21s = h[at(m + 1, m)];
                let s = (h[at(m, m)] - rt2r).abs() + rt2i.abs() + h21s.abs();
                h21s = h[at(m + 1, m)] / s;
                v[0] = h21s * h[at(m, m + 1)] + (h[at(m, m)] - rt1r) * ((h[at(m, m)] - rt2r) / s)
                    - rt1i * (rt2i / s);
                v[1] = h21s * (h[at(m, m)] + h[at(m + 1, m + 1)] - rt1r - rt2r);
                v[2] = h21s * h[at(m + 2, m + 1)];
                let s = v[0].abs() + v[1].abs() + v[2].abs();
                v[0] /= s;
                v[1] /= s;
                v[2] /= s;
                if m == l {
                    break;
                }
                let h00 = h[at(m, m - 1)].abs() * (v[1].abs() + v[2].abs());
                let h01 = ulp
                    * v[0].abs()
                    * (h[at(m - 1, m - 1)].abs() + h[at(m, m)].abs() + h[at(m + 1, m + 1)].abs());
                if h00 <= h01 {
                    break;
                }
                m -= 1;
            }
            // The double-shift QR step: chase the bulge down.
            for k in m..i {
                let nr = 3.min(i - k + 1);
                if k > m {
                    for (t, vt) in v.iter_mut().enumerate().take(nr) {
                        *vt = h[at(k + t, k - 1)];
                    }
                }
                let (head, tail) = v.split_at_mut(1);
                let t1 = R::larfg(&mut head[0], &mut tail[..nr - 1]);
                if k > m {
                    h[at(k, k - 1)] = v[0];
                    h[at(k + 1, k - 1)] = zero;
                    if k + 1 < i {
                        h[at(k + 2, k - 1)] = zero;
                    }
                } else if m > l {
                    // Not H(k, k-1) = -H(k, k-1): that fails when v(2), v(3) underflow.
                    h[at(k, k - 1)] *= one - t1;
                }
                let v2 = v[1];
                let t2 = t1 * v2;
                if nr == 3 {
                    let v3 = v[2];
                    let t3 = t1 * v3;
                    for j in k..=i2 {
                        let sum = h[at(k, j)] + v2 * h[at(k + 1, j)] + v3 * h[at(k + 2, j)];
                        h[at(k, j)] -= sum * t1;
                        h[at(k + 1, j)] -= sum * t2;
                        h[at(k + 2, j)] -= sum * t3;
                    }
                    for j in i1..=(k + 3).min(i) {
                        let sum = h[at(j, k)] + v2 * h[at(j, k + 1)] + v3 * h[at(j, k + 2)];
                        h[at(j, k)] -= sum * t1;
                        h[at(j, k + 1)] -= sum * t2;
                        h[at(j, k + 2)] -= sum * t3;
                    }
                    if how.wantz {
                        for j in iloz..=ihiz {
                            let sum = z[at(j, k)] + v2 * z[at(j, k + 1)] + v3 * z[at(j, k + 2)];
                            z[at(j, k)] -= sum * t1;
                            z[at(j, k + 1)] -= sum * t2;
                            z[at(j, k + 2)] -= sum * t3;
                        }
                    }
                } else if nr == 2 {
                    for j in k..=i2 {
                        let sum = h[at(k, j)] + v2 * h[at(k + 1, j)];
                        h[at(k, j)] -= sum * t1;
                        h[at(k + 1, j)] -= sum * t2;
                    }
                    for j in i1..=i {
                        let sum = h[at(j, k)] + v2 * h[at(j, k + 1)];
                        h[at(j, k)] -= sum * t1;
                        h[at(j, k + 1)] -= sum * t2;
                    }
                    if how.wantz {
                        for j in iloz..=ihiz {
                            let sum = z[at(j, k)] + v2 * z[at(j, k + 1)];
                            z[at(j, k)] -= sum * t1;
                            z[at(j, k + 1)] -= sum * t2;
                        }
                    }
                }
            }
        }
        if !converged {
            return i;
        }
        if l == i {
            // One real eigenvalue.
            w[i - 1] = Complex::new(h[at(i, i)], zero);
        } else if l + 1 == i {
            // A pair: standardize the 2×2 block and apply the rotation to the rest.
            let (mut a, mut b, mut c, mut d) = (
                h[at(i - 1, i - 1)],
                h[at(i - 1, i)],
                h[at(i, i - 1)],
                h[at(i, i)],
            );
            let (rt1, rt2, cs, sn) = lanv2(&mut a, &mut b, &mut c, &mut d);
            h[at(i - 1, i - 1)] = a;
            h[at(i - 1, i)] = b;
            h[at(i, i - 1)] = c;
            h[at(i, i)] = d;
            w[i - 2] = rt1;
            w[i - 1] = rt2;
            if how.wantt {
                if i2 > i {
                    rot(h, (i + 1..=i2).map(|j| (at(i - 1, j), at(i, j))), cs, sn);
                }
                rot(h, (i1..i - 1).map(|j| (at(j, i - 1), at(j, i))), cs, sn);
            }
            if how.wantz {
                rot(z, (iloz..=ihiz).map(|j| (at(j, i - 1), at(j, i))), cs, sn);
            }
        }
        kdefl = 0;
        if l < 2 {
            break;
        }
        i = l - 1;
    }
    0
}

/// `dlanv2`: the Schur factorization of a real 2×2 `[[a, b], [c, d]]` in place, either
/// upper triangular or with `a = d` and `b c < 0`; returns the eigenvalues and `(cs, sn)`.
pub(crate) fn lanv2<R: Real>(
    a: &mut R,
    b: &mut R,
    c: &mut R,
    d: &mut R,
) -> (Complex<R>, Complex<R>, R, R) {
    let zero = R::zero();
    let one = R::one();
    let half = R::lit(0.5);
    let multpl = R::lit(4.0);
    let safmin = R::safmin();
    let eps = R::ulp();
    let two = R::lit(2.0);
    let safmn2 = two.powi(((safmin / eps).ln() / two.ln() / two).to_i32().unwrap_or(0));
    let safmx2 = one / safmn2;
    let (mut cs, mut sn);
    if *c == zero {
        cs = one;
        sn = zero;
    } else if *b == zero {
        // Swap rows and columns.
        cs = zero;
        sn = one;
        std::mem::swap(a, d);
        *b = -*c;
        *c = zero;
    } else if *a - *d == zero && sign(one, *b) != sign(one, *c) {
        cs = one;
        sn = zero;
    } else {
        let mut temp = *a - *d;
        let mut p = half * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * sign(one, *b) * sign(one, *c);
        let mut scale = p.abs().max(bcmax);
        let mut z = (p / scale) * p + (bcmax / scale) * bcmis;
        if z >= multpl * eps {
            // Real eigenvalues: make it upper triangular.
            z = p + sign(scale.sqrt() * z.sqrt(), p);
            *a = *d + z;
            *d -= (bcmax / z) * bcmis;
            let tau = lapy2(*c, z);
            cs = z / tau;
            sn = *c / tau;
            *b -= *c;
            *c = zero;
        } else {
            // Complex or nearly equal real eigenvalues: make the diagonal equal.
            let mut count = 0;
            let mut sigma = *b + *c;
            loop {
                count += 1;
                scale = temp.abs().max(sigma.abs());
                if scale >= safmx2 {
                    sigma *= safmn2;
                    temp *= safmn2;
                    if count <= 20 {
                        continue;
                    }
                }
                if scale <= safmn2 {
                    sigma *= safmx2;
                    temp *= safmx2;
                    if count <= 20 {
                        continue;
                    }
                }
                break;
            }
            p = half * temp;
            let mut tau = lapy2(sigma, temp);
            cs = (half * (one + sigma.abs() / tau)).sqrt();
            sn = -(p / (tau * cs)) * sign(one, sigma);
            // [aa bb; cc dd] = [a b; c d] [cs -sn; sn cs]
            let aa = *a * cs + *b * sn;
            let bb = -*a * sn + *b * cs;
            let cc = *c * cs + *d * sn;
            let dd = -*c * sn + *d * cs;
            // [a b; c d] = [cs sn; -sn cs] [aa bb; cc dd]
            *a = aa * cs + cc * sn;
            *b = (bb * cs) + (dd * sn);
            *c = -(aa * sn) + (cc * cs);
            *d = -bb * sn + dd * cs;
            temp = half * (*a + *d);
            *a = temp;
            *d = temp;
            if *c != zero {
                if *b != zero {
                    if sign(one, *b) == sign(one, *c) {
                        // Real eigenvalues after all: reduce to upper triangular.
                        let sab = b.abs().sqrt();
                        let sac = c.abs().sqrt();
                        p = sign(sab * sac, *c);
                        tau = one / (*b + *c).abs().sqrt();
                        *a = temp + p;
                        *d = temp - p;
                        *b -= *c;
                        *c = zero;
                        let cs1 = sab * tau;
                        let sn1 = sac * tau;
                        let t = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = t;
                    }
                } else {
                    *b = -*c;
                    *c = zero;
                    let t = cs;
                    cs = -sn;
                    sn = t;
                }
            }
        }
    }
    let rt1r = *a;
    let rt2r = *d;
    let (rt1i, rt2i) = if *c == zero {
        (zero, zero)
    } else {
        let im = b.abs().sqrt() * c.abs().sqrt();
        (im, -im)
    };
    (Complex::new(rt1r, rt1i), Complex::new(rt2r, rt2i), cs, sn)
}

/// `zlahqr` (complex single-shift QR).
#[allow(clippy::too_many_arguments)]
fn zlahqr<R: Real>(
    how: Hqr,
    n: usize,
    ilo: usize,
    ihi: usize,
    h: &mut [Complex<R>],
    w: &mut [Complex<R>],
    iloz: usize,
    ihiz: usize,
    z: &mut [Complex<R>],
) -> usize
where
    Complex<R>: Elem<R = R>,
{
    let rzero = R::zero();
    let czero = Complex::new(rzero, rzero);
    let cone = Complex::new(R::one(), rzero);
    let half = R::lit(0.5);
    let dat1 = R::lit(0.75);
    const KEXSH: usize = 10;
    let at = |i: usize, j: usize| (i - 1) + (j - 1) * n;
    let cabs1 = |x: Complex<R>| x.re.abs() + x.im.abs();
    let scal = |a: &mut [Complex<R>], idx: &mut dyn Iterator<Item = usize>, s: Complex<R>| {
        for p in idx {
            a[p] = s * a[p];
        }
    };
    if n == 0 {
        return 0;
    }
    if ilo == ihi {
        w[ilo - 1] = h[at(ilo, ilo)];
        return 0;
    }
    for j in ilo..=ihi.saturating_sub(3) {
        h[at(j + 2, j)] = czero;
        h[at(j + 3, j)] = czero;
    }
    if ilo + 2 <= ihi {
        h[at(ihi, ihi - 2)] = czero;
    }
    let (jlo, jhi) = if how.wantt { (1, n) } else { (ilo, ihi) };
    // Make the subdiagonal real.
    for i in ilo + 1..=ihi {
        if h[at(i, i - 1)].im != rzero {
            let sc = cdiv_re(h[at(i, i - 1)], cabs1(h[at(i, i - 1)]));
            let sc = cdiv_re(sc.conj(), sc.norm());
            h[at(i, i - 1)] = Complex::new(h[at(i, i - 1)].norm(), rzero);
            scal(h, &mut (i..=jhi).map(|c| at(i, c)), sc);
            scal(h, &mut (jlo..=jhi.min(i + 1)).map(|r| at(r, i)), sc.conj());
            if how.wantz {
                scal(z, &mut (iloz..=ihiz).map(|r| at(r, i)), sc.conj());
            }
        }
    }
    let nh = ihi - ilo + 1;
    let nz = ihiz + 1 - iloz;
    let safmin = R::safmin();
    let ulp = R::ulp();
    let smlnum = safmin * (R::lit(nh as f64) / ulp);
    let (mut i1, mut i2) = (1, n);
    let itmax = 30 * nh.max(10);
    let mut kdefl = 0usize;
    let mut i = ihi;
    while i >= ilo {
        let mut l = ilo;
        let mut converged = false;
        for _its in 0..=itmax {
            let mut k = i;
            while k > l {
                if cabs1(h[at(k, k - 1)]) <= smlnum {
                    break;
                }
                let mut tst = cabs1(h[at(k - 1, k - 1)]) + cabs1(h[at(k, k)]);
                if tst == rzero {
                    if k >= ilo + 2 {
                        tst += h[at(k - 1, k - 2)].re.abs();
                    }
                    if k < ihi {
                        tst += h[at(k + 1, k)].re.abs();
                    }
                }
                if h[at(k, k - 1)].re.abs() <= ulp * tst {
                    let ab = cabs1(h[at(k, k - 1)]).max(cabs1(h[at(k - 1, k)]));
                    let ba = cabs1(h[at(k, k - 1)]).min(cabs1(h[at(k - 1, k)]));
                    let aa = cabs1(h[at(k, k)]).max(cabs1(h[at(k - 1, k - 1)] - h[at(k, k)]));
                    let bb = cabs1(h[at(k, k)]).min(cabs1(h[at(k - 1, k - 1)] - h[at(k, k)]));
                    let s = aa + ab;
                    if ba * (ab / s) <= smlnum.max(ulp * (bb * (aa / s))) {
                        break;
                    }
                }
                k -= 1;
            }
            l = k;
            if l > ilo {
                h[at(l, l - 1)] = czero;
            }
            if l >= i {
                converged = true;
                break;
            }
            kdefl += 1;
            if !how.wantt {
                i1 = l;
                i2 = i;
            }
            let t;
            if kdefl.is_multiple_of(2 * KEXSH) {
                let s = dat1 * h[at(i, i - 1)].re.abs();
                t = Complex::new(s, rzero) + h[at(i, i)];
            } else if kdefl.is_multiple_of(KEXSH) {
                let s = dat1 * h[at(l + 1, l)].re.abs();
                t = Complex::new(s, rzero) + h[at(l, l)];
            } else {
                // Wilkinson's shift.
                let mut tt = h[at(i, i)];
                let u = csqrt(h[at(i - 1, i)]) * csqrt(h[at(i, i - 1)]);
                let s = cabs1(u);
                if s != rzero {
                    let x = (h[at(i - 1, i - 1)] - tt).scale(half);
                    let sx = cabs1(x);
                    let s = s.max(cabs1(x));
                    let xs = cdiv_re(x, s);
                    let us = cdiv_re(u, s);
                    let mut y = csqrt(xs * xs + us * us).scale(s);
                    if sx > rzero {
                        let xd = cdiv_re(x, sx);
                        if xd.re * y.re + xd.im * y.im < rzero {
                            y = -y;
                        }
                    }
                    tt -= u * zladiv(u, x + y);
                }
                t = tt;
            }
            // Look for two consecutive small subdiagonal elements.
            let mut m = i - 1;
            let mut v;
            loop {
                if m == l {
                    let h11 = h[at(l, l)];
                    let h11s = h11 - t;
                    let h21 = h[at(l + 1, l)].re;
                    let s = cabs1(h11s) + h21.abs();
                    v = [cdiv_re(h11s, s), Complex::new(h21 / s, rzero)];
                    break;
                }
                let h11 = h[at(m, m)];
                let h22 = h[at(m + 1, m + 1)];
                let h11s = h11 - t;
                let h21 = h[at(m + 1, m)].re;
                let s = cabs1(h11s) + h21.abs();
                let h11s = cdiv_re(h11s, s);
                let h21 = h21 / s;
                v = [h11s, Complex::new(h21, rzero)];
                let h10 = h[at(m, m - 1)].re;
                if h10.abs() * h21.abs() <= ulp * (cabs1(h11s) * (cabs1(h11) + cabs1(h22))) {
                    break;
                }
                m -= 1;
            }
            // The single-shift QR step.
            for k in m..i {
                if k > m {
                    v = [h[at(k, k - 1)], h[at(k + 1, k - 1)]];
                }
                let (head, tail) = v.split_at_mut(1);
                let t1 = <Complex<R> as Elem>::larfg(&mut head[0], tail);
                if k > m {
                    h[at(k, k - 1)] = v[0];
                    h[at(k + 1, k - 1)] = czero;
                }
                let v2 = v[1];
                let t2 = (t1 * v2).re;
                for j in k..=i2 {
                    let sum = t1.conj() * h[at(k, j)] + h[at(k + 1, j)].scale(t2);
                    h[at(k, j)] -= sum;
                    h[at(k + 1, j)] -= sum * v2;
                }
                for j in i1..=(k + 2).min(i) {
                    let sum = t1 * h[at(j, k)] + h[at(j, k + 1)].scale(t2);
                    h[at(j, k)] -= sum;
                    h[at(j, k + 1)] -= sum * v2.conj();
                }
                if how.wantz {
                    for j in iloz..=ihiz {
                        let sum = t1 * z[at(j, k)] + z[at(j, k + 1)].scale(t2);
                        z[at(j, k)] -= sum;
                        z[at(j, k + 1)] -= sum * v2.conj();
                    }
                }
                if k == m && m > l {
                    // Make H(m+1, m) real again (it was H(m+1, m) (1 - τ)).
                    let temp = cone - t1;
                    let temp = cdiv_re(temp, temp.norm());
                    h[at(m + 1, m)] *= temp.conj();
                    if m + 2 <= i {
                        h[at(m + 2, m + 1)] *= temp;
                    }
                    for j in m..=i {
                        if j != m + 1 {
                            if i2 > j {
                                scal(h, &mut (j + 1..=i2).map(|c| at(j, c)), temp);
                            }
                            scal(h, &mut (i1..j).map(|r| at(r, j)), temp.conj());
                            if how.wantz {
                                scal(z, &mut (iloz..iloz + nz).map(|r| at(r, j)), temp.conj());
                            }
                        }
                    }
                }
            }
            // Make H(i, i-1) real.
            let temp = h[at(i, i - 1)];
            if temp.im != rzero {
                let rtemp = temp.norm();
                h[at(i, i - 1)] = Complex::new(rtemp, rzero);
                let temp = cdiv_re(temp, rtemp);
                if i2 > i {
                    scal(h, &mut (i + 1..=i2).map(|c| at(i, c)), temp.conj());
                }
                scal(h, &mut (i1..i).map(|r| at(r, i)), temp);
                if how.wantz {
                    scal(z, &mut (iloz..iloz + nz).map(|r| at(r, i)), temp);
                }
            }
        }
        if !converged {
            return i;
        }
        w[i - 1] = h[at(i, i)];
        kdefl = 0;
        if l < 2 {
            break;
        }
        i = l - 1;
    }
    0
}
