//! The LAPACK FFI custom calls jax/jaxlib 0.10.2 emits on CPU (`lapack_?getrf_ffi`,
//! `?geqrf`, `?geqp3`, `?orgqr`/`?ungqr`, `?ormqr`/`?unmqr`, `?gesdd`, `?gesvd`,
//! `?syevd`/`?heevd`, `?geev`, `?gees`, `?gehrd`, `?sytrd`/`?hetrd`, `?gtsv`, `?potrf`,
//! `?trsm`, and jaxlib's `tridiagonal_solve_perturbed_ffi`), for f32, f64, c64 and c128
//! with any number of batch dimensions.
//!
//! One implementation serves both backends: [`run`] computes a call through the
//! [`LapackIo`] trait, which the interpreter implements over literals
//! (`eval::custom_call`) and the compiled backend over the plan's buffers in their physical
//! layouts (`runtime::library::lapack`). Each batch matrix is handed to the routine as a
//! logical column-major matrix (what LAPACK sees under JAX's `{…,0,1}` layout constraints).
//!
//! The factorizations are `faer`'s (pure Rust, blocked, SIMD; as fast as OpenBLAS's LAPACK
//! at these sizes), converted to LAPACK's output conventions:
//! * `getrf`: faer's partial pivoting picks the first entry of largest `|re| + |im|`, as
//!   LAPACK's `i?amax` does, so pivots and factors are LAPACK's. `ipiv` (1-based row swaps in
//!   order) is recovered from faer's permutation; `info` is the first exact zero on `U`'s
//!   diagonal. A matrix with a zero pivot is refactored with the unblocked `?getf2` loop,
//!   which (as LAPACK) skips the division by that pivot instead of spreading `inf`/NaN.
//! * `geqrf`: for real input faer's, which stores the reflectors as LAPACK does (unit lower
//!   trapezoid below `R`) with `H = I - v vᴴ / t`; LAPACK's `tau` is `1/t`, and the results
//!   equal LAPACK's (same sign rule, `β = -sign(α)‖x‖`). faer's complex reflectors are
//!   Hermitian and leave `R`'s diagonal complex, so complex input runs LAPACK's unblocked
//!   `?geqr2` (`householder.rs`): complex `tau`, real `β` on `R`'s diagonal.
//! * `geqp3`, `ormqr`/`unmqr`: LAPACK's unblocked `?laqp2` and `?orm2r` (`householder.rs`).
//! * `gesvd`: the same SVD as `gesdd` (LAPACK computes it by QR sweeps instead of divide and
//!   conquer; the factors agree up to the usual signs and phases).
//! * `tridiagonal_solve_perturbed_ffi`: jaxlib's kernel, ported
//!   (`tridiagonal_solve_perturbed.rs`).
//! * `orgqr`/`ungqr`: `Q = H₁⋯H_k` applied to the identity, blockwise with LAPACK's compact
//!   `I - V T Vᴴ` form (`?larft`), so it accepts any LAPACK `tau` (XLA's complex ones too).
//! * `gesdd`: faer's SVD (singular values descending, as LAPACK), `vt = Vᴴ`. Singular
//!   vectors are unique only up to sign (phase): compare by reconstruction.
//! * `syevd`/`heevd`: the named triangle made Hermitian (imaginary part of the diagonal
//!   ignored, as LAPACK does), faer's self-adjoint eigensolver: eigenvalues ascending.
//! * `geev`, `gees` (no sorting): LAPACK's own path, ported (`nonsymmetric.rs` and the
//!   routines it calls): `?gebal` (`geev` permutes and scales, `gees` only permutes),
//!   `?gehd2`, `?orghr`, `?hseqr` through `?lahqr` (real double-shift QR ending in LAPACK's
//!   standard 2×2 blocks, `?lanv2`; complex single-shift QR), `?trevc3`, `?gebak` and
//!   `?geev`'s normalization (unit 2-norm, largest component real). Computed in the
//!   input's precision, so eigenvalues come in LAPACK's order and `T`, `Z` and the
//!   eigenvectors are LAPACK's up to rounding (OpenBLAS's kernels sum in other orders).
//!   For `n >= 75` LAPACK's `?hseqr` runs the multishift `?laqr0` instead, which is not
//!   ported: there the results are a valid Schur form and valid eigenvectors, but the
//!   eigenvalue order may differ from LAPACK's.
//! * `gtsv`: LAPACK's `?gtsv` (Gaussian elimination with partial pivoting on the three
//!   diagonals), written out: faer has no tridiagonal solver.
//! * `potrf`, `trsm`: the unblocked loops of `eval::linalg` (so the compiled backend, the
//!   interpreter and `cholesky`'s expander agree to the bit).
//!
//! Failures: where faer reports no convergence, or the input is NaN or infinite, `info` is 1
//! (for `geev`/`gees` the row where the QR iteration stopped) and the results are NaN,
//! which is what jax turns any nonzero `info` into.
//!
//! Files: `call.rs` reads a custom call (routine, flags, shapes), `scalar.rs` holds the
//! element types, and each routine family has its own: `lu.rs`, `qr.rs` (with the unblocked
//! reflector loops in `householder.rs`), `svd.rs`, `eigen.rs`, `gtsv.rs`, `reduction.rs`
//! (`?gehrd`, `?sytrd`), and the ported nonsymmetric eigensolver (`nonsymmetric.rs` and the
//! files it names). Cholesky and the triangular solve are `eval::linalg`'s.
//!
//! XLA/JAX: `jaxlib/cpu/lapack_kernels.cc` (the FFI handlers and their attributes).

use faer::{MatRef, Par};
use num_complex::Complex;

mod auxiliary;
mod balance;
mod call;
mod eigen;
mod gtsv;
mod hessenberg;
mod householder;
mod hqr;
mod lu;
mod nonsymmetric;
mod qr;
mod reduction;
mod scalar;
mod svd;
mod trevc;
mod tridiagonal_solve_perturbed;

pub use call::{LapackCall, Routine, SvdJob, is_lapack_target};
pub use eigen::{gees, geev, syevd};
pub use gtsv::gtsv;
pub use householder::{Ormqr, geqp3, geqr2, ormqr};
pub use lu::getrf;
pub use qr::{geqrf, orgqr};
use reduction::larfg;
pub use reduction::{gehrd, sytrd};
pub use scalar::Scalar;
pub use svd::gesdd;
pub use tridiagonal_solve_perturbed::tridiagonal_solve_perturbed;

use super::linalg;
pub use super::linalg::{Field, Trsm};
use crate::ir::{ArrayShape, NativeType, PrimitiveType};

/// Where a call reads its operands and writes its results: one matrix (or vector, or
/// scalar) at a time, as the `core` trailing dimensions of batch element `batch`, in
/// column-major order (a vector or scalar as it is).
pub trait LapackIo {
    /// Reads batch element `batch` of operand `i`.
    fn read<T: NativeType>(&self, i: usize, core: usize, batch: usize) -> Vec<T>;
    /// Writes batch element `batch` of result `i`.
    fn write<T: NativeType>(&mut self, i: usize, core: usize, batch: usize, v: &[T]);
}

/// Runs `call` on every matrix `io` holds.
pub fn run(call: &LapackCall, io: &mut impl LapackIo) -> Result<(), String> {
    match call.ty {
        PrimitiveType::F32 => run_typed::<f32>(call, io),
        PrimitiveType::F64 => run_typed::<f64>(call, io),
        PrimitiveType::C64 => run_typed::<Complex<f32>>(call, io),
        PrimitiveType::C128 => run_typed::<Complex<f64>>(call, io),
        t => Err(format!("{}: {t} is not supported", call.target)),
    }
}

fn dims2(s: &ArrayShape) -> (usize, usize) {
    let r = s.rank();
    (s.dims[r - 2].max(0) as usize, s.dims[r - 1].max(0) as usize)
}

fn run_typed<T: Scalar>(call: &LapackCall, io: &mut impl LapackIo) -> Result<(), String> {
    let (m, n) = dims2(&call.operands[call.matrix_operand()]);
    for b in 0..call.batch {
        match call.routine {
            Routine::Getrf => {
                let mut a = io.read::<T>(0, 2, b);
                let (ipiv, info) = getrf(m, n, &mut a);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &ipiv);
                io.write(2, 0, b, &[info]);
            }
            Routine::Geqrf => {
                let mut a = io.read::<T>(0, 2, b);
                let tau = geqrf(m, n, &mut a);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &tau);
            }
            Routine::Orgqr => {
                let a = io.read::<T>(0, 2, b);
                let tau = io.read::<T>(1, 1, b);
                let q = orgqr(m, n, &a, &tau);
                io.write(0, 2, b, &q);
            }
            Routine::Gesdd(job) | Routine::Gesvd(job) => {
                let a = io.read::<T>(0, 2, b);
                let (u_cols, vt_rows) = if call.svd_reduced(job) {
                    (m.min(n), m.min(n))
                } else {
                    (m, n)
                };
                let (s, u, vt, info) = gesdd(m, n, &a, job);
                let s = s.unwrap_or_else(|| vec![nan::<T::Re>(); m.min(n)]);
                let u = u.unwrap_or_else(|| vec![T::zero(); m * u_cols]);
                let vt = vt.unwrap_or_else(|| vec![T::zero(); vt_rows * n]);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &s);
                io.write(2, 2, b, &u);
                io.write(3, 2, b, &vt);
                io.write(4, 0, b, &[info]);
            }
            Routine::Syevd { lower, vectors } => {
                let mut a = io.read::<T>(0, 2, b);
                let (w, info) = syevd(n, &mut a, lower, vectors);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &w);
                io.write(2, 0, b, &[info]);
            }
            Routine::Geev { left, right } => {
                let a = io.read::<T>(0, 2, b);
                let (w, vl, vr, info) = geev(n, &a, left, right);
                let mut r = 0;
                if call.is_complex() {
                    let w: Vec<T::Cx> = w.into_iter().map(T::cx).collect();
                    io.write(0, 1, b, &w);
                    r = 1;
                } else {
                    let wr: Vec<T::Re> = w.iter().map(|c| c.re).collect();
                    let wi: Vec<T::Re> = w.iter().map(|c| c.im).collect();
                    io.write(0, 1, b, &wr);
                    io.write(1, 1, b, &wi);
                    r += 2;
                }
                let vl: Vec<T::Cx> = vl.into_iter().map(T::cx).collect();
                let vr: Vec<T::Cx> = vr.into_iter().map(T::cx).collect();
                io.write(r, 2, b, &vl);
                io.write(r + 1, 2, b, &vr);
                io.write(r + 2, 0, b, &[info]);
            }
            Routine::Gees { vectors } => {
                let a = io.read::<T>(0, 2, b);
                let (t, z, w, info) = gees(n, &a, vectors);
                io.write(0, 2, b, &t);
                // jobvs = N leaves vs unreferenced; xlac writes zeros there.
                let z = if vectors { z } else { vec![T::zero(); n * n] };
                io.write(1, 2, b, &z);
                let mut r = 2;
                if call.is_complex() {
                    let w: Vec<T::Cx> = w.into_iter().map(T::cx).collect();
                    io.write(r, 1, b, &w);
                    r += 1;
                } else {
                    let wr: Vec<T::Re> = w.iter().map(|c| c.re).collect();
                    let wi: Vec<T::Re> = w.iter().map(|c| c.im).collect();
                    io.write(r, 1, b, &wr);
                    io.write(r + 1, 1, b, &wi);
                    r += 2;
                }
                // sdim: no eigenvalues are selected without sorting.
                io.write(r, 0, b, &[0i32]);
                io.write(r + 1, 0, b, &[info]);
            }
            Routine::Gtsv => {
                let mut dl = io.read::<T>(0, 1, b);
                let mut d = io.read::<T>(1, 1, b);
                let mut du = io.read::<T>(2, 1, b);
                let mut rhs = io.read::<T>(3, 2, b);
                let nrhs = dims2(&call.operands[3]).1;
                let info = gtsv(&mut dl, &mut d, &mut du, &mut rhs, nrhs);
                io.write(0, 1, b, &dl);
                io.write(1, 1, b, &d);
                io.write(2, 1, b, &du);
                io.write(3, 2, b, &rhs);
                io.write(4, 0, b, &[info]);
            }
            Routine::GtsvPerturbed => {
                let dl = io.read::<T>(0, 1, b);
                let d = io.read::<T>(1, 1, b);
                let du = io.read::<T>(2, 1, b);
                let mut rhs = io.read::<T>(3, 2, b);
                let nrhs = dims2(&call.operands[3]).1;
                tridiagonal_solve_perturbed(&dl, &d, &du, &mut rhs, nrhs);
                io.write(0, 2, b, &rhs);
            }
            Routine::Geqp3 => {
                let mut a = io.read::<T>(0, 2, b);
                let mut jpvt = io.read::<i32>(1, 1, b);
                let tau = geqp3(m, n, &mut a, &mut jpvt);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &jpvt);
                io.write(2, 1, b, &tau);
            }
            Routine::Ormqr(how) => {
                let a = io.read::<T>(0, 2, b);
                let tau = io.read::<T>(1, 1, b);
                let (rows, cols) = dims2(&call.operands[2]);
                let mut c = io.read::<T>(2, 2, b);
                ormqr(how, &a, m, &tau, &mut c, rows, cols);
                io.write(0, 2, b, &c);
            }
            Routine::Gehrd { low, high } => {
                let mut a = io.read::<T>(0, 2, b);
                let tau = gehrd(n, &mut a, low as usize, high as usize);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &tau);
                io.write(2, 0, b, &[0i32]);
            }
            Routine::Sytrd { lower } => {
                let mut a = io.read::<T>(0, 2, b);
                let (d, e, tau) = sytrd(n, &mut a, lower);
                io.write(0, 2, b, &a);
                io.write(1, 1, b, &d);
                io.write(2, 1, b, &e);
                io.write(3, 1, b, &tau);
                io.write(4, 0, b, &[0i32]);
            }
            Routine::Potrf { lower } => {
                let a = transpose(&io.read::<T>(0, 2, b), n, n);
                let (f, info) = linalg::potrf_one(&a, n, lower);
                io.write(0, 2, b, &transpose(&f, n, n));
                io.write(1, 0, b, &[info]);
            }
            Routine::Trsm(how) => {
                let a = transpose(&io.read::<T>(0, 2, b), n, n);
                let (bm, bn) = dims2(&call.operands[1]);
                let x = transpose(&io.read::<T>(1, 2, b), bn, bm);
                let out = linalg::trsm_one(&a, &x, n, bm, bn, how);
                io.write(0, 2, b, &transpose(&out, bm, bn));
            }
        }
    }
    Ok(())
}

fn nan<R: Field>() -> R {
    R::nan()
}

/// `v` is `rows×cols` in one order; returns it in the other (column-major ⇔ row-major).
fn transpose<T: Copy>(v: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for j in 0..cols {
        for i in 0..rows {
            out.push(v[j + i * cols]);
        }
    }
    out
}

/// faer's parallelism for a factorization of an `m x n` matrix: one thread below
/// [`SEQUENTIAL_BELOW`] rows or columns, the pool above. On the 2-core VM with nothing
/// else running (`xlac bench` of jitted `lax.linalg.lu` / `jnp.linalg.qr`, f32, `--threads
/// 1` against `2`, two rounds): LU 128 0.13-0.20 / 0.21-0.24 ms, 256 0.52-0.77 / 0.90,
/// 512 2.9-3.1 / 4.9-6.9, 1024 19.8-25.9 / 19.3-24.2; QR 256 2.9-3.2 / 3.4-3.9, 512
/// 12.6-13.6 / 14.1, 1024 61 / 55-63. Below 1024 faer's splits wait for each other more
/// than they gain (and on a loaded machine for a descheduled thread: 37 ms against 9.7
/// for the 256 LU).
fn par_for(m: usize, n: usize) -> Par {
    if m.min(n) < SEQUENTIAL_BELOW {
        Par::Seq
    } else {
        faer::get_global_parallelism()
    }
}

/// See [`par_for`].
const SEQUENTIAL_BELOW: usize = 1024;

fn col_major<T: Copy>(mat: MatRef<'_, T>) -> Vec<T> {
    let mut out = Vec::with_capacity(mat.nrows() * mat.ncols());
    for j in 0..mat.ncols() {
        for i in 0..mat.nrows() {
            out.push(mat[(i, j)]);
        }
    }
    out
}

#[cfg(test)]
mod tests;
