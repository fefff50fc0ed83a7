//! Linear algebra: the `cholesky` and `triangular-solve` ops, and the LAPACK routines behind
//! the custom calls JAX emits on CPU (`potrf`, `trsm`; see `custom_call.rs`).
//!
//! XLA:CPU does not run these ops natively: it expands them before codegen, so their
//! semantics are those of the expanders, which this file follows:
//! * `xla/service/cholesky_expander.cc`: only the `lower` triangle of the operand is read
//!   (`lower=false` transposes in and out); the other triangle of the result is **zero**;
//!   if any pivot's square root is NaN (the matrix is not positive definite, or holds a
//!   NaN) the **whole matrix** of that batch element is NaN.
//! * `xla/service/triangular_solve_expander.cc`: only the named triangle of `a` is read,
//!   `unit_diagonal` replaces the diagonal by ones, `TRANSPOSE` / `ADJOINT` solve with
//!   `a^T` / `a^H`.
//!
//! The LAPACK routines (`jaxlib/cpu/lapack_kernels.cc` calling `?potrf` / `?trsm`) differ:
//! `potrf` leaves the other triangle **untouched**, and on failure at pivot `j` (1-based)
//! returns `info = j`, columns before `j` factored, the failing diagonal entry holding the
//! non-positive value it computed, and everything after it unchanged (what OpenBLAS's
//! unblocked `potf2` does, verified against jaxlib 0.10.2).
//!
//! Numerics: both paths are computed with the textbook left-looking algorithms
//! (Cholesky–Crout, forward/back substitution), summing in index order. XLA's expanders
//! use blocked algorithms above 128 rows and, for triangular solves of small batches, invert
//! the diagonal blocks and multiply; LAPACK uses its own orders. Results agree to rounding
//! (usually bit-for-bit on small, well-conditioned inputs), not always bit-for-bit.
//!
//! Supported element types: f32, f64, c64, c128.

use std::ops::{Add, Div, Mul, Neg, Sub};

use num_complex::Complex;

use super::{EvalError, EvalResult};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, Literal, NativeType, PrimitiveType, Shape,
    TriangularSolveOptions, TriangularTranspose,
};

/// An element type the linear algebra routines compute in: a real or complex float.
pub trait Field:
    NativeType
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// A quiet NaN (NaN + 0i for complex, as XLA's `FullLike(l, NaN)` gives).
    fn nan() -> Self;
    /// The complex conjugate (identity for reals).
    fn conj(self) -> Self;
    /// The real part, widened.
    fn re(self) -> f64;
    /// Builds a value from a real number (rounded to the element precision).
    fn from_re(x: f64) -> Self;
    /// `sqrt(re(self))` as an element (imaginary part 0): the Cholesky pivot.
    fn sqrt_re(self) -> Self;
    /// True if any component is NaN.
    fn is_nan(self) -> bool;
}

macro_rules! real_field {
    ($t:ty) => {
        impl Field for $t {
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
            }
            fn nan() -> Self {
                <$t>::NAN
            }
            fn conj(self) -> Self {
                self
            }
            fn re(self) -> f64 {
                self as f64
            }
            fn from_re(x: f64) -> Self {
                x as $t
            }
            fn sqrt_re(self) -> Self {
                self.sqrt()
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
real_field!(f32);
real_field!(f64);

macro_rules! complex_field {
    ($t:ty) => {
        impl Field for Complex<$t> {
            fn zero() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            fn nan() -> Self {
                Complex::new(<$t>::NAN, 0.0)
            }
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn re(self) -> f64 {
                self.re as f64
            }
            fn from_re(x: f64) -> Self {
                Complex::new(x as $t, 0.0)
            }
            fn sqrt_re(self) -> Self {
                Complex::new(self.re.sqrt(), 0.0)
            }
            fn is_nan(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
        }
    };
}
complex_field!(f32);
complex_field!(f64);

/// Calls `$f::<T>(args...)` with `T` the element type of `$data`, wrapping the `Vec<T>` it
/// returns (with any extra outputs) back into `ArrayData`; other types are an error.
macro_rules! dispatch_field {
    ($what:expr, $data:expr, |$v:ident: $T:ident| $body:expr) => {
        match $data {
            ArrayData::F32($v) => {
                type $T = f32;
                $body
            }
            ArrayData::F64($v) => {
                type $T = f64;
                $body
            }
            ArrayData::C64($v) => {
                type $T = Complex<f32>;
                $body
            }
            ArrayData::C128($v) => {
                type $T = Complex<f64>;
                $body
            }
            _ => {
                return Err(
                    EvalError::new(format!("{} does not support this element type", $what))
                        .unsupported(),
                )
            }
        }
    };
}

/// The row-major array inside a literal, or an error naming `what`.
fn array<'a>(lit: &'a Literal, what: &str) -> EvalResult<&'a ArrayLiteral> {
    match lit {
        Literal::Array(a) if a.shape.layout.is_row_major() => Ok(a),
        _ => Err(EvalError::new(format!("{what} must be a row-major array"))),
    }
}

/// Splits `[..., rows, cols]` into (batch count, rows, cols); rank must be at least 2.
fn matrix_dims(shape: &ArrayShape, what: &str) -> EvalResult<(usize, usize, usize)> {
    let r = shape.rank();
    if r < 2 {
        return Err(EvalError::new(format!(
            "{what} must have rank >= 2, got {:?}",
            shape.dims
        )));
    }
    let rows = shape.dims[r - 2] as usize;
    let cols = shape.dims[r - 1] as usize;
    let batch = shape.dims[..r - 2].iter().product::<i64>() as usize;
    Ok((batch, rows, cols))
}

/// The square-matrix size of `[..., n, n]`, with the batch count.
fn square_dims(shape: &ArrayShape, what: &str) -> EvalResult<(usize, usize)> {
    let (batch, rows, cols) = matrix_dims(shape, what)?;
    if rows != cols {
        return Err(EvalError::new(format!(
            "{what} must be square matrices, got {:?}",
            shape.dims
        )));
    }
    Ok((batch, rows))
}

/// `m` (n×n, row-major) transposed, optionally conjugated.
fn transposed<T: Field>(m: &[T], n: usize, conjugate: bool) -> Vec<T> {
    let mut t = vec![T::zero(); n * n];
    for i in 0..n {
        for j in 0..n {
            t[j * n + i] = if conjugate {
                m[i * n + j].conj()
            } else {
                m[i * n + j]
            };
        }
    }
    t
}

// ---------------------------------------------------------------------------------------
// cholesky

/// `cholesky(a), lower=...` over the two minor dimensions, batched over the rest, with
/// XLA's CholeskyExpander semantics (see the file doc).
pub fn cholesky(a: &Literal, lower: bool) -> EvalResult {
    let a = array(a, "cholesky operand")?;
    let (batch, n) = square_dims(&a.shape, "cholesky operand")?;
    if batch * n == 0 {
        return Ok(a.clone().into());
    }
    let data = dispatch_field!("cholesky", &a.data, |v: T| {
        let mut out: Vec<T> = Vec::with_capacity(v.len());
        for m in v.chunks_exact(n * n).take(batch) {
            out.extend(cholesky_expander(m, n, lower));
        }
        T::wrap(out)
    });
    Ok(ArrayLiteral {
        shape: ArrayShape::new(a.element_type(), &a.shape.dims),
        data,
    }
    .into())
}

/// One matrix of [`cholesky`].
fn cholesky_expander<T: Field>(a: &[T], n: usize, lower: bool) -> Vec<T> {
    // The expander factors the lower triangle; for `upper` it transposes (no conjugate).
    let a = if lower {
        a.to_vec()
    } else {
        transposed(a, n, false)
    };
    let mut l = vec![T::zero(); n * n];
    let mut seen_error = false;
    for j in 0..n {
        // Row j of L·L^H restricted to what is known so far.
        let dot = |l: &[T], r: usize| {
            (0..j).fold(T::zero(), |acc, k| acc + l[r * n + k] * l[j * n + k].conj())
        };
        let d = a[j * n + j] - dot(&l, j);
        let pivot = d.sqrt_re();
        seen_error |= pivot.is_nan();
        if n == 1 {
            // A 1×1 block is factored as sqrt(x) directly.
            l[0] = pivot;
            break;
        }
        // The unblocked loop computes the whole column as (a - L·L^H)[:, j] / pivot,
        // diagonal included. XLA's algebraic simplifier turns `x / sqrt(d)` into
        // `x * rsqrt(d)`, and XLA:CPU computes rsqrt as `1 / sqrt`: do the same, it decides
        // the last bit (d * (1/sqrt(d)) is not always sqrt(d)).
        let rsqrt = T::one() / pivot;
        l[j * n + j] = d * rsqrt;
        for r in j + 1..n {
            l[r * n + j] = (a[r * n + j] - dot(&l, r)) * rsqrt;
        }
    }
    if seen_error {
        return vec![T::nan(); n * n];
    }
    if lower { l } else { transposed(&l, n, false) }
}

/// LAPACK `?potrf` on one batch of `[..., n, n]` row-major matrices holding the *logical*
/// matrix: returns the factors (other triangle untouched) and one `info` per matrix.
#[cfg(test)]
pub(super) fn potrf(a: &ArrayLiteral, lower: bool) -> EvalResult<(ArrayLiteral, Vec<i32>)> {
    let (batch, n) = square_dims(&a.shape, "potrf operand")?;
    if batch * n == 0 {
        return Ok((a.clone(), vec![0; batch]));
    }
    let mut infos = Vec::with_capacity(batch);
    let data = dispatch_field!("potrf", &a.data, |v: T| {
        let mut out: Vec<T> = Vec::with_capacity(v.len());
        for m in v.chunks_exact(n * n).take(batch) {
            let (f, info) = potrf_one(m, n, lower);
            out.extend(f);
            infos.push(info);
        }
        T::wrap(out)
    });
    Ok((
        ArrayLiteral {
            shape: ArrayShape::new(a.element_type(), &a.shape.dims),
            data,
        },
        infos,
    ))
}

/// One matrix of [`potrf`]: unblocked left-looking Cholesky in place, as `?potf2` does.
pub(super) fn potrf_one<T: Field>(a: &[T], n: usize, lower: bool) -> (Vec<T>, i32) {
    // `U` is `L^H` of the same Hermitian matrix: factor the conjugate transpose and undo it,
    // which also carries the untouched lower triangle through unchanged.
    let mut w = if lower {
        a.to_vec()
    } else {
        transposed(a, n, true)
    };
    let mut info = 0;
    for j in 0..n {
        let dot = |w: &[T], r: usize| {
            (0..j).fold(T::zero(), |acc, k| acc + w[r * n + k] * w[j * n + k].conj())
        };
        let ajj = w[j * n + j].re() - dot(&w, j).re();
        if ajj.is_nan() || ajj <= 0.0 {
            // LAPACK stores the failing value and stops.
            w[j * n + j] = T::from_re(ajj);
            info = j as i32 + 1;
            break;
        }
        let ajj = T::from_re(ajj).sqrt_re();
        w[j * n + j] = ajj;
        // Scale by the reciprocal, as LAPACK's `?scal(1/ajj)` does.
        let inv = T::one() / ajj;
        for r in j + 1..n {
            w[r * n + j] = (w[r * n + j] - dot(&w, r)) * inv;
        }
    }
    let w = if lower { w } else { transposed(&w, n, true) };
    (w, info)
}

// ---------------------------------------------------------------------------------------
// triangular solve

/// What one triangular solve computes: `op(a) x = b` (left side) or `x op(a) = b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Trsm {
    /// `op(a)` is on the left of `x`.
    pub left_side: bool,
    /// Read the lower triangle of `a` (else the upper).
    pub lower: bool,
    /// `op(a)` is `a^T` (with `conjugate`: `a^H`).
    pub transpose: bool,
    /// Conjugate `a` (only meaningful with `transpose` here: LAPACK's `C` and XLA's ADJOINT).
    pub conjugate: bool,
    /// The diagonal of `a` is taken to be ones.
    pub unit_diagonal: bool,
}

impl Trsm {
    /// The solve an XLA `triangular-solve` instruction asks for.
    pub fn from_options(o: &TriangularSolveOptions) -> Trsm {
        Trsm {
            left_side: o.left_side,
            lower: o.lower,
            transpose: o.transpose_a != TriangularTranspose::NoTranspose,
            conjugate: o.transpose_a == TriangularTranspose::Adjoint,
            unit_diagonal: o.unit_diagonal,
        }
    }
}

/// `triangular-solve(a, b), ...`: `a` is `[..., k, k]`, `b` and the result `[..., m, n]`
/// with `k == m` (left side) or `k == n` (right side).
pub fn triangular_solve(a: &Literal, b: &Literal, options: &TriangularSolveOptions) -> EvalResult {
    let how = Trsm::from_options(options);
    let ty = array(b, "triangular-solve b")?.element_type();
    if matches!(ty, PrimitiveType::F16 | PrimitiveType::BF16) {
        // XLA:CPU has no f16/bf16 solver; its expansion computes every step in f32 (bf16
        // through float normalization, f16 as each f16 op is computed), so the
        // interpreter solves in f32 and rounds the result once.
        let wide = |x: &Literal| -> EvalResult<Literal> {
            let mut shape = array(x, "triangular-solve operand")?.shape.clone();
            shape.element_type = PrimitiveType::F32;
            super::convert::convert(&Shape::Array(shape), x)
        };
        let (a32, b32) = (wide(a)?, wide(b)?);
        let x: Literal = trsm(
            array(&a32, "triangular-solve a")?,
            array(&b32, "triangular-solve b")?,
            how,
        )?
        .into();
        return super::convert::convert(&b.shape(), &x);
    }
    let a = array(a, "triangular-solve a")?;
    let b = array(b, "triangular-solve b")?;
    Ok(trsm(a, b, how)?.into())
}

/// Solves every batch element of `a`, `b` (row-major, logical) as `how` says.
pub(super) fn trsm(a: &ArrayLiteral, b: &ArrayLiteral, how: Trsm) -> EvalResult<ArrayLiteral> {
    let (batch, k) = square_dims(&a.shape, "triangular-solve a")?;
    let (b_batch, m, n) = matrix_dims(&b.shape, "triangular-solve b")?;
    let r = a.shape.rank();
    if b.shape.rank() != r || a.shape.dims[..r - 2] != b.shape.dims[..r - 2] || batch != b_batch {
        return Err(EvalError::new(format!(
            "triangular-solve batch dimensions differ: {:?} vs {:?}",
            a.shape.dims, b.shape.dims
        )));
    }
    if (if how.left_side { m } else { n }) != k {
        return Err(EvalError::new(format!(
            "triangular-solve shapes do not match: a {:?}, b {:?}",
            a.shape.dims, b.shape.dims
        )));
    }
    if a.element_type() != b.element_type() {
        return Err(EvalError::new(
            "triangular-solve operands have different element types",
        ));
    }
    if batch * m * n == 0 {
        return Ok(b.clone());
    }
    let data = dispatch_field!("triangular-solve", &a.data, |av: T| {
        let bv = T::slice(&b.data)
            .ok_or_else(|| EvalError::new("triangular-solve b has the wrong type"))?;
        let mut out: Vec<T> = Vec::with_capacity(bv.len());
        for (am, bm) in av
            .chunks_exact(k * k)
            .zip(bv.chunks_exact(m * n))
            .take(batch)
        {
            out.extend(trsm_one(am, bm, k, m, n, how));
        }
        T::wrap(out)
    });
    Ok(ArrayLiteral {
        shape: ArrayShape::new(b.element_type(), &b.shape.dims),
        data,
    })
}

/// One matrix of [`trsm`]: builds `op(a)` explicitly (masked to its triangle), turns a
/// right-side solve into a left-side one by transposing (`x M = b` ⇔ `Mᵀ xᵀ = bᵀ`), then
/// substitutes forward or backward.
pub(super) fn trsm_one<T: Field>(
    a: &[T],
    b: &[T],
    k: usize,
    m: usize,
    n: usize,
    how: Trsm,
) -> Vec<T> {
    // M = op(triangle(a)), with ones on the diagonal for unit_diagonal.
    let mut mat = vec![T::zero(); k * k];
    for i in 0..k {
        for j in 0..k {
            let in_triangle = if how.lower { j <= i } else { j >= i };
            if !in_triangle {
                continue;
            }
            let v = if i == j && how.unit_diagonal {
                T::one()
            } else {
                a[i * k + j]
            };
            let v = if how.conjugate { v.conj() } else { v };
            let (r, c) = if how.transpose { (j, i) } else { (i, j) };
            mat[r * k + c] = v;
        }
    }
    let mut mat_lower = how.lower ^ how.transpose;
    // Left-side form: mat · x = rhs, rhs k×cols.
    let (rhs, cols) = if how.left_side {
        (b.to_vec(), n)
    } else {
        mat = transposed(&mat, k, false);
        mat_lower = !mat_lower;
        let mut bt = vec![T::zero(); m * n];
        for i in 0..m {
            for j in 0..n {
                bt[j * m + i] = b[i * n + j];
            }
        }
        (bt, m)
    };
    let mut x = rhs;
    let rows: Box<dyn Iterator<Item = usize>> = if mat_lower {
        Box::new(0..k)
    } else {
        Box::new((0..k).rev())
    };
    for i in rows {
        let known = if mat_lower { 0..i } else { i + 1..k };
        for c in 0..cols {
            let s = known
                .clone()
                .fold(T::zero(), |acc, j| acc + mat[i * k + j] * x[j * cols + c]);
            let v = x[i * cols + c] - s;
            x[i * cols + c] = if how.unit_diagonal {
                v
            } else {
                v / mat[i * k + i]
            };
        }
    }
    if how.left_side {
        return x;
    }
    // x is n×m (k = n); transpose back to m×n.
    let mut out = vec![T::zero(); m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = x[j * m + i];
        }
    }
    out
}

#[cfg(test)]
mod tests;
