//! [`Scalar`]: the four element types (f32, f64, c64, c128) the faer-backed routines are
//! generic over, with the few LAPACK facts (pivot measure, machine constants) they need
//! and the hooks into the ported nonsymmetric eigensolver.

use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use num_complex::Complex;

use super::{Field, nonsymmetric};
use crate::ir::NativeType;

/// The element types the routines run on: f32, f64, c64, c128.
pub trait Scalar:
    Field
    + faer::traits::ComplexField<Real = Self::Re>
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    /// The real type (`f32` for c64).
    type Re: Scalar<Re = Self::Re> + faer::traits::RealField + PartialOrd + Copy;
    /// The complex type of the same precision.
    type Cx: Scalar<Re = Self::Re> + NativeType;
    /// True for c64 and c128.
    const COMPLEX_TYPE: bool;
    /// `|re| + |im|`, LAPACK's pivot measure.
    fn abs1(self) -> Self::Re;
    /// As a complex number.
    fn to_cx(self) -> Complex<Self::Re>;
    /// The real part.
    fn real(self) -> Self::Re;
    /// The real part as an element.
    fn from_real(r: Self::Re) -> Self;
    /// `Self::Cx` from its parts.
    fn cx(c: Complex<Self::Re>) -> Self::Cx;
    /// Neither component is infinite or NaN.
    fn finite(self) -> bool;
    /// The machine epsilon of the real type (LAPACK's `?lamch('E')` is half of it).
    fn eps() -> Self::Re;
    /// The smallest real whose reciprocal does not overflow (LAPACK's `?lamch('S')`).
    fn safe_min() -> Self::Re;
    /// `?geev` on the `n×n` column-major `a` (`nonsymmetric.rs`): the eigenvalues in
    /// LAPACK's order, the left and right eigenvectors (column-major, empty when not asked
    /// for), or the `info` of a QR iteration that did not converge.
    #[allow(clippy::type_complexity)]
    fn eigen(
        a: &[Self],
        n: usize,
        left: bool,
        right: bool,
    ) -> Result<
        (
            Vec<Complex<Self::Re>>,
            Vec<Complex<Self::Re>>,
            Vec<Complex<Self::Re>>,
        ),
        i32,
    >;
    /// `?gees` (no sorting) on the `n×n` column-major `a` (`nonsymmetric.rs`): the Schur
    /// form `T`, the Schur vectors `Z` (`A = Z T Zᴴ`; the identity without `vectors`) and
    /// the eigenvalues read off `T`, or the `info` of a QR iteration that did not converge.
    #[allow(clippy::type_complexity)]
    fn schur(
        a: &[Self],
        n: usize,
        vectors: bool,
    ) -> Result<(Vec<Self>, Vec<Self>, Vec<Complex<Self::Re>>), i32>;
}

macro_rules! scalars {
    ($re:ty) => {
        impl Scalar for $re {
            type Re = $re;
            type Cx = Complex<$re>;
            const COMPLEX_TYPE: bool = false;
            fn abs1(self) -> $re {
                self.abs()
            }
            fn to_cx(self) -> Complex<$re> {
                Complex::new(self, 0.0)
            }
            fn real(self) -> $re {
                self
            }
            fn from_real(r: $re) -> Self {
                r
            }
            fn cx(c: Complex<$re>) -> Complex<$re> {
                c
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
            fn eps() -> $re {
                <$re>::EPSILON
            }
            fn safe_min() -> $re {
                <$re>::MIN_POSITIVE
            }
            fn eigen(
                a: &[Self],
                n: usize,
                left: bool,
                right: bool,
            ) -> Result<(Vec<Complex<$re>>, Vec<Complex<$re>>, Vec<Complex<$re>>), i32> {
                nonsymmetric::geev(a, n, left, right)
            }
            fn schur(
                a: &[Self],
                n: usize,
                vectors: bool,
            ) -> Result<(Vec<Self>, Vec<Self>, Vec<Complex<$re>>), i32> {
                nonsymmetric::gees(a, n, vectors)
            }
        }
        impl Scalar for Complex<$re> {
            type Re = $re;
            type Cx = Complex<$re>;
            const COMPLEX_TYPE: bool = true;
            fn abs1(self) -> $re {
                self.re.abs() + self.im.abs()
            }
            fn to_cx(self) -> Complex<$re> {
                self
            }
            fn real(self) -> $re {
                self.re
            }
            fn from_real(r: $re) -> Self {
                Complex::new(r, 0.0)
            }
            fn cx(c: Complex<$re>) -> Complex<$re> {
                c
            }
            fn finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            fn eps() -> $re {
                <$re>::EPSILON
            }
            fn safe_min() -> $re {
                <$re>::MIN_POSITIVE
            }
            fn eigen(
                a: &[Self],
                n: usize,
                left: bool,
                right: bool,
            ) -> Result<(Vec<Complex<$re>>, Vec<Complex<$re>>, Vec<Complex<$re>>), i32> {
                nonsymmetric::geev(a, n, left, right)
            }
            fn schur(
                a: &[Self],
                n: usize,
                vectors: bool,
            ) -> Result<(Vec<Self>, Vec<Self>, Vec<Complex<$re>>), i32> {
                nonsymmetric::gees(a, n, vectors)
            }
        }
    };
}
scalars!(f32);
scalars!(f64);
