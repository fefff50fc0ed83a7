//! LAPACK's small auxiliary routines that the nonsymmetric eigensolver (`balance.rs`,
//! `hessenberg.rs`, `hqr.rs`, `trevc.rs`) is built on, rounded as the LAPACK jaxlib calls
//! (reference LAPACK compiled by gfortran over OpenBLAS, through scipy): `?lamch`,
//! `?lapy2`, `?lapy3`, `?nrm2`, `?ladiv`, `?larfg`, and gfortran's complex division and
//! `SQRT`.
//!
//! The routines run in the input's precision (f32 input is computed in f32, as `sgeev`
//! does), over [`Elem`]: a real or complex element of one precision [`Real`].
//!
//! LAPACK: `dlamch.f`, `dlapy2.f`, `dlapy3.f`, `dladiv.f`, `dlarfg.f`, `zlarfg.f`.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_complex::Complex;
use num_traits::Float;

/// f32 or f64, with the machine constants LAPACK reads from `?lamch`.
pub(crate) trait Real:
    Float + AddAssign + SubAssign + MulAssign + DivAssign + Debug + Default + 'static
{
    /// `?lamch('P')`: the distance from 1 to the next larger number.
    fn ulp() -> Self;
    /// `?lamch('E')`: half of [`Real::ulp`] (the unit roundoff).
    fn eps() -> Self;
    /// `?lamch('S')`: the smallest normal number.
    fn safmin() -> Self;
    /// A constant, rounded to this precision.
    fn lit(x: f64) -> Self;
    /// `sqrt(Σ xᵢ²)` as OpenBLAS's `?nrm2` computes it on x86-64: f32 sums in f64, f64 in
    /// the x87's 64-bit mantissa (here a double-double), so both round the exact norm.
    fn norm2(parts: &mut dyn Iterator<Item = Self>) -> Self;
}

impl Real for f32 {
    fn ulp() -> f32 {
        f32::EPSILON
    }
    fn eps() -> f32 {
        f32::EPSILON * 0.5
    }
    fn safmin() -> f32 {
        f32::MIN_POSITIVE
    }
    fn lit(x: f64) -> f32 {
        x as f32
    }
    fn norm2(parts: &mut dyn Iterator<Item = f32>) -> f32 {
        let sum: f64 = parts.map(|x| f64::from(x) * f64::from(x)).sum();
        sum.sqrt() as f32
    }
}

impl Real for f64 {
    fn ulp() -> f64 {
        f64::EPSILON
    }
    fn eps() -> f64 {
        f64::EPSILON * 0.5
    }
    fn safmin() -> f64 {
        f64::MIN_POSITIVE
    }
    fn lit(x: f64) -> f64 {
        x
    }
    fn norm2(parts: &mut dyn Iterator<Item = f64>) -> f64 {
        let xs: Vec<f64> = parts.collect();
        let big = xs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if big == 0.0 || !big.is_finite() {
            return big;
        }
        // Squares of very large or small entries would leave f64's range (the x87's is
        // wider): scale by a power of two, which is exact.
        let scale = if !(1e-140..=1e140).contains(&big) {
            2f64.powi((big.log2().floor() as i32).max(-1000))
        } else {
            1.0
        };
        let (mut hi, mut lo) = (0.0f64, 0.0f64);
        for &x in &xs {
            let x = x / scale;
            let p = x * x;
            let e = x.mul_add(x, -p);
            let s = hi + p;
            let bb = s - hi;
            lo += (hi - (s - bb)) + (p - bb) + e;
            hi = s;
        }
        let s = hi + lo;
        lo -= s - hi;
        hi = s;
        let r = hi.sqrt();
        let residual = (-r).mul_add(r, hi) + lo;
        (r + residual / (2.0 * r)) * scale
    }
}

/// A real or complex element of precision `R`: what the generic steps (balancing,
/// Hessenberg reduction, back-transformation) compute on.
pub(crate) trait Elem:
    Copy
    + Debug
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + 'static
{
    /// The real type.
    type R: Real;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// As a complex number.
    fn cx(self) -> Complex<Self::R>;
    /// The complex conjugate.
    fn conj(self) -> Self;
    /// `|re| + |im|` (BLAS's `i?amax` measure, LAPACK's `CABS1`).
    fn abs1(self) -> Self::R;
    /// The modulus (Fortran's `ABS`, `hypot` for a complex number).
    fn modulus(self) -> Self::R;
    /// `self · r` for a real `r` (`?scal`, `zdscal`).
    fn scale(self, r: Self::R) -> Self;
    /// The 2-norm of `x` (`?nrm2`, `dznrm2`).
    fn nrm2(x: &[Self]) -> Self::R;
    /// LAPACK's `?larfg`: overwrites `alpha` with `β` and `x` with `v`'s tail, returns `τ`
    /// of `H = I - τ v vᴴ` with `Hᴴ (α, x) = (β, 0)`, `β` real.
    fn larfg(alpha: &mut Self, x: &mut [Self]) -> Self;
}

macro_rules! elems {
    ($r:ty) => {
        impl Elem for $r {
            type R = $r;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn cx(self) -> Complex<$r> {
                Complex::new(self, 0.0)
            }
            fn conj(self) -> Self {
                self
            }
            fn abs1(self) -> $r {
                self.abs()
            }
            fn modulus(self) -> $r {
                self.abs()
            }
            fn scale(self, r: $r) -> Self {
                self * r
            }
            fn nrm2(x: &[Self]) -> $r {
                <$r as Real>::norm2(&mut x.iter().copied())
            }
            fn larfg(alpha: &mut Self, x: &mut [Self]) -> Self {
                larfg_real(alpha, x)
            }
        }

        impl Elem for Complex<$r> {
            type R = $r;
            const ZERO: Self = Complex::new(0.0, 0.0);
            const ONE: Self = Complex::new(1.0, 0.0);
            fn cx(self) -> Complex<$r> {
                self
            }
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn abs1(self) -> $r {
                self.re.abs() + self.im.abs()
            }
            fn modulus(self) -> $r {
                self.re.hypot(self.im)
            }
            fn scale(self, r: $r) -> Self {
                Complex::new(self.re * r, self.im * r)
            }
            fn nrm2(x: &[Self]) -> $r {
                <$r as Real>::norm2(&mut x.iter().flat_map(|c| [c.re, c.im]))
            }
            fn larfg(alpha: &mut Self, x: &mut [Self]) -> Self {
                larfg_complex(alpha, x)
            }
        }
    };
}
elems!(f32);
elems!(f64);

/// Fortran's `SIGN(a, b)`: `|a|` with the sign of `b`.
pub(crate) fn sign<R: Real>(a: R, b: R) -> R {
    a.abs().copysign(b)
}

/// `?lapy2`: `sqrt(x² + y²)` without needless overflow.
pub(crate) fn lapy2<R: Real>(x: R, y: R) -> R {
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    let (xa, ya) = (x.abs(), y.abs());
    let w = xa.max(ya);
    let z = xa.min(ya);
    if z == R::zero() || w > R::max_value() {
        w
    } else {
        let q = z / w;
        w * (R::one() + q * q).sqrt()
    }
}

/// `?lapy3`: `sqrt(x² + y² + z²)` without needless overflow.
pub(crate) fn lapy3<R: Real>(x: R, y: R, z: R) -> R {
    let (xa, ya, za) = (x.abs(), y.abs(), z.abs());
    let w = xa.max(ya).max(za);
    if w == R::zero() || w > R::max_value() {
        xa + ya + za
    } else {
        let (a, b, c) = (xa / w, ya / w, za / w);
        w * (a * a + b * b + c * c).sqrt()
    }
}

/// `?ladiv`: `(a + ib) / (c + id)`, robustly (Baudin and Smith), as `(p, q)`.
pub(crate) fn ladiv<R: Real>(a: R, b: R, c: R, d: R) -> (R, R) {
    let (mut aa, mut bb, mut cc, mut dd) = (a, b, c, d);
    let ab = a.abs().max(b.abs());
    let cd = c.abs().max(d.abs());
    let mut s = R::one();
    let half = R::lit(0.5);
    let two = R::lit(2.0);
    let ov = R::max_value();
    let un = R::safmin();
    let eps = R::eps();
    let be = two / (eps * eps);
    if ab >= half * ov {
        aa = half * aa;
        bb = half * bb;
        s = two * s;
    }
    if cd >= half * ov {
        cc = half * cc;
        dd = half * dd;
        s = half * s;
    }
    if ab <= un * two / eps {
        aa *= be;
        bb *= be;
        s /= be;
    }
    if cd <= un * two / eps {
        cc *= be;
        dd *= be;
        s *= be;
    }
    let (p, q) = if d.abs() <= c.abs() {
        ladiv1(aa, bb, cc, dd)
    } else {
        let (p, q) = ladiv1(bb, aa, dd, cc);
        (p, -q)
    };
    (p * s, q * s)
}

fn ladiv1<R: Real>(a: R, b: R, c: R, d: R) -> (R, R) {
    let r = d / c;
    let t = R::one() / (c + d * r);
    let p = ladiv2(a, b, c, d, r, t);
    let q = ladiv2(b, -a, c, d, r, t);
    (p, q)
}

fn ladiv2<R: Real>(a: R, b: R, c: R, d: R, r: R, t: R) -> R {
    if r != R::zero() {
        let br = b * r;
        if br != R::zero() {
            (a + br) * t
        } else {
            a * t + (b * t) * r
        }
    } else {
        (a + d * (b / c)) * t
    }
}

/// `zladiv`: `x / y` by [`ladiv`].
pub(crate) fn zladiv<R: Real>(x: Complex<R>, y: Complex<R>) -> Complex<R> {
    let (p, q) = ladiv(x.re, x.im, y.re, y.im);
    Complex::new(p, q)
}

/// `x / y` as gfortran divides complex numbers (Smith's algorithm, no FMA).
pub(crate) fn cdiv<R: Real>(x: Complex<R>, y: Complex<R>) -> Complex<R> {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    if c.abs() < d.abs() {
        let ratio = c / d;
        let div = c * ratio + d;
        Complex::new((a * ratio + b) / div, (b * ratio - a) / div)
    } else {
        let ratio = d / c;
        let div = d * ratio + c;
        Complex::new((b * ratio + a) / div, (b - a * ratio) / div)
    }
}

/// `x / r` for a real `r`, as gfortran divides a complex number by a real one.
pub(crate) fn cdiv_re<R: Real>(x: Complex<R>, r: R) -> Complex<R> {
    Complex::new(x.re / r, x.im / r)
}

/// Fortran's complex `SQRT` (glibc's `csqrt` for finite input of moderate size).
pub(crate) fn csqrt<R: Real>(x: Complex<R>) -> Complex<R> {
    let (re, im) = (x.re, x.im);
    let zero = R::zero();
    let half = R::lit(0.5);
    if im == zero {
        return if re < zero {
            Complex::new(zero, (-re).sqrt().copysign(im))
        } else {
            Complex::new(re.sqrt().abs(), zero.copysign(im))
        };
    }
    if re == zero {
        let r = (half * im.abs()).sqrt();
        return Complex::new(r, r.copysign(im));
    }
    let d = re.hypot(im);
    let (r, s) = if re > zero {
        let r = (half * (d + re)).sqrt();
        (r, half * (im / r))
    } else {
        let s = (half * (d - re)).sqrt();
        ((half * (im / s)).abs(), s)
    };
    Complex::new(r, s.copysign(im))
}

/// `?larfg` for a real element.
fn larfg_real<R: Real>(alpha: &mut R, x: &mut [R]) -> R {
    if x.is_empty() {
        return R::zero();
    }
    let mut xnorm = R::norm2(&mut x.iter().copied());
    if xnorm == R::zero() {
        return R::zero();
    }
    let mut beta = -sign(lapy2(*alpha, xnorm), *alpha);
    let safmin = R::safmin() / R::eps();
    let mut knt = 0;
    if beta.abs() < safmin {
        let rsafmn = R::one() / safmin;
        loop {
            knt += 1;
            x.iter_mut().for_each(|v| *v *= rsafmn);
            beta *= rsafmn;
            *alpha *= rsafmn;
            if !(beta.abs() < safmin && knt < 20) {
                break;
            }
        }
        xnorm = R::norm2(&mut x.iter().copied());
        beta = -sign(lapy2(*alpha, xnorm), *alpha);
    }
    let tau = (beta - *alpha) / beta;
    let f = R::one() / (*alpha - beta);
    x.iter_mut().for_each(|v| *v *= f);
    for _ in 0..knt {
        beta *= safmin;
    }
    *alpha = beta;
    tau
}

/// `zlarfg`: `β` real, `τ` complex; with an empty `x` it still makes `α` real.
fn larfg_complex<R: Real>(alpha: &mut Complex<R>, x: &mut [Complex<R>]) -> Complex<R>
where
    Complex<R>: Elem<R = R>,
{
    let zero = R::zero();
    let mut xnorm = <Complex<R> as Elem>::nrm2(x);
    let (mut alphr, mut alphi) = (alpha.re, alpha.im);
    if xnorm == zero && alphi == zero {
        return Complex::new(zero, zero);
    }
    let mut beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    let safmin = R::safmin() / R::eps();
    let rsafmn = R::one() / safmin;
    let mut knt = 0;
    if beta.abs() < safmin {
        loop {
            knt += 1;
            x.iter_mut().for_each(|v| *v = v.scale(rsafmn));
            beta *= rsafmn;
            alphi *= rsafmn;
            alphr *= rsafmn;
            if !(beta.abs() < safmin && knt < 20) {
                break;
            }
        }
        xnorm = <Complex<R> as Elem>::nrm2(x);
        *alpha = Complex::new(alphr, alphi);
        beta = -sign(lapy3(alphr, alphi, xnorm), alphr);
    }
    let tau = Complex::new((beta - alphr) / beta, -alphi / beta);
    let f = zladiv(
        Complex::new(R::one(), zero),
        *alpha - Complex::new(beta, zero),
    );
    x.iter_mut().for_each(|v| *v = f * *v);
    for _ in 0..knt {
        beta *= safmin;
    }
    *alpha = Complex::new(beta, zero);
    tau
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm2_rounds_the_exact_norm() {
        // 3-4-5 and a sum whose naive f64 evaluation is off by one ulp.
        assert_eq!(f64::norm2(&mut [3.0, 4.0].into_iter()), 5.0);
        let xs = [0.1f64; 10];
        let exact = (0.1f64 * 0.1 * 10.0).sqrt();
        assert!((f64::norm2(&mut xs.into_iter()) - exact).abs() <= f64::EPSILON);
        assert_eq!(
            f64::norm2(&mut [1e200, 1e200].into_iter()),
            1e200 * 2f64.sqrt()
        );
    }

    #[test]
    fn fortran_complex_division_and_sqrt() {
        let q = cdiv(Complex::new(1.0f64, 2.0), Complex::new(3.0, -4.0));
        assert!((q - Complex::new(-0.2, 0.4)).norm() < 1e-16);
        assert_eq!(csqrt(Complex::new(-4.0f64, 0.0)), Complex::new(0.0, 2.0));
        assert_eq!(csqrt(Complex::new(0.0f64, 2.0)), Complex::new(1.0, 1.0));
        let r = csqrt(Complex::new(3.0f64, 4.0));
        assert_eq!(r, Complex::new(2.0, 1.0));
        let (p, q) = ladiv(1.0f64, 0.0, 0.0, 2.0);
        assert_eq!((p, q), (0.0, -0.5));
    }
}
