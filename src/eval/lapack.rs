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
//! XLA/JAX: `jaxlib/cpu/lapack_kernels.cc` (the FFI handlers and their attributes).

use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::{Mat, MatMut, MatRef, Par};
use num_complex::Complex;

mod auxiliary;
mod balance;
mod hessenberg;
mod householder;
mod hqr;
mod nonsymmetric;
mod trevc;
mod tridiagonal_solve_perturbed;

pub use householder::{Ormqr, geqp3, geqr2, ormqr};
pub use tridiagonal_solve_perturbed::tridiagonal_solve_perturbed;

use super::custom_call::FfiAttributes;
use super::linalg;
pub use super::linalg::{Field, Trsm};
use crate::ir::{ArrayShape, CustomCall, Instruction, NativeType, PrimitiveType, Shape};

/// Which vectors `?gesdd` computes (`mode`: `A`, `S`, `N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvdJob {
    /// `A`: all of `U` (`m×m`) and `Vᴴ` (`n×n`).
    All,
    /// `S`: the first `min(m, n)` columns of `U` and rows of `Vᴴ`.
    Some,
    /// `N`: singular values only.
    None,
}

/// The LAPACK routine of a custom call, with its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    /// `?getrf`: `(lu, ipiv, info)`.
    Getrf,
    /// `?geqrf`: `(a, tau)`.
    Geqrf,
    /// `?orgqr` / `?ungqr`: `q`.
    Orgqr,
    /// `?gesdd`: `(a, s, u, vt, info)`.
    Gesdd(SvdJob),
    /// `?gesvd` (jax's `SvdAlgorithm.QR`): as `Gesdd`, computed by the same SVD.
    Gesvd(SvdJob),
    /// `?geqp3`: `(a, jpvt, tau)`, QR with column pivoting.
    Geqp3,
    /// `?ormqr` / `?unmqr`: `c` multiplied by `Q` (or `Qᴴ`) of `(a, tau)`.
    Ormqr(Ormqr),
    /// `tridiagonal_solve_perturbed_ffi` (jaxlib's, not LAPACK's): the solution `x`.
    GtsvPerturbed,
    /// `?syevd` / `?heevd`: `(vectors, w, info)`.
    Syevd {
        /// Read the lower triangle (else the upper).
        lower: bool,
        /// `mode = V`.
        vectors: bool,
    },
    /// `?geev`: `(wr, wi, vl, vr, info)` for real input, `(w, vl, vr, info)` for complex.
    Geev {
        /// `compute_left = V`.
        left: bool,
        /// `compute_right = V`.
        right: bool,
    },
    /// `?gtsv`: `(dl, d, du, b, info)`.
    Gtsv,
    /// `?gees` (no eigenvalue sorting): `(t, vs, wr, wi, sdim, info)` for real input,
    /// `(t, vs, w, sdim, info)` for complex.
    Gees {
        /// `mode = V`: the Schur vectors.
        vectors: bool,
    },
    /// `?gehrd`: `(a, tau, info)`, reducing rows and columns `low..=high` (1-based).
    Gehrd {
        /// `low` (1-based).
        low: i64,
        /// `high` (1-based).
        high: i64,
    },
    /// `?sytrd` / `?hetrd`: `(a, d, e, tau, info)`.
    Sytrd {
        /// Read the lower triangle (else the upper).
        lower: bool,
    },
    /// `?potrf`: `(factor, info)`.
    Potrf {
        /// Factor the lower triangle (after resolving the layout constraint).
        lower: bool,
    },
    /// `?trsm`: the solution.
    Trsm(linalg::Trsm),
}

impl Routine {
    /// How many trailing dimensions of each operand and result one matrix owns.
    fn core_ranks(self, complex: bool) -> (&'static [usize], &'static [usize]) {
        match self {
            Routine::Getrf => (&[2], &[2, 1, 0]),
            Routine::Geqrf => (&[2], &[2, 1]),
            Routine::Orgqr => (&[2, 1], &[2]),
            Routine::Gesdd(_) | Routine::Gesvd(_) => (&[2], &[2, 1, 2, 2, 0]),
            Routine::Geqp3 => (&[2, 1], &[2, 1, 1]),
            Routine::Ormqr(_) => (&[2, 1, 2], &[2]),
            Routine::GtsvPerturbed => (&[1, 1, 1, 2], &[2]),
            Routine::Syevd { .. } => (&[2], &[2, 1, 0]),
            Routine::Geev { .. } if complex => (&[2], &[1, 2, 2, 0]),
            Routine::Geev { .. } => (&[2], &[1, 1, 2, 2, 0]),
            Routine::Gtsv => (&[1, 1, 1, 2], &[1, 1, 1, 2, 0]),
            Routine::Gees { .. } if complex => (&[2], &[2, 2, 1, 0, 0]),
            Routine::Gees { .. } => (&[2], &[2, 2, 1, 1, 0, 0]),
            Routine::Gehrd { .. } => (&[2], &[2, 1, 0]),
            Routine::Sytrd { .. } => (&[2], &[2, 1, 1, 1, 0]),
            Routine::Potrf { .. } => (&[2], &[2, 0]),
            Routine::Trsm(_) => (&[2, 2], &[2]),
        }
    }
}

/// One LAPACK custom call, checked against its operand and result shapes.
#[derive(Clone, Debug)]
pub struct LapackCall {
    /// The target (`lapack_sgetrf_ffi`, ...).
    pub target: String,
    /// What to compute.
    pub routine: Routine,
    /// The element type of the matrix operand.
    pub ty: PrimitiveType,
    /// How many matrices (the product of the batch dimensions).
    pub batch: usize,
    /// The operands' logical shapes.
    pub operands: Vec<ArrayShape>,
    /// The results' logical shapes (the array leaves, in order).
    pub results: Vec<ArrayShape>,
}

/// True for the targets [`LapackCall::new`] takes.
pub fn is_lapack_target(target: &str) -> bool {
    parse_target(target).is_some()
        || matches!(
            target,
            "Qr" | "ProductOfElementaryHouseholderReflectors" | TRIDIAGONAL_SOLVE_PERTURBED
        )
}

/// jaxlib's own CPU kernel for `tridiagonal_solve(..., perturb_singular=True)`.
const TRIDIAGONAL_SOLVE_PERTURBED: &str = "tridiagonal_solve_perturbed_ffi";

/// `lapack_?NAME_ffi` → (type letter's element type, NAME).
fn parse_target(target: &str) -> Option<(PrimitiveType, &str)> {
    let body = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let mut chars = body.chars();
    let ty = match chars.next()? {
        's' => PrimitiveType::F32,
        'd' => PrimitiveType::F64,
        'c' => PrimitiveType::C64,
        'z' => PrimitiveType::C128,
        _ => return None,
    };
    let name = chars.as_str();
    let complex = matches!(ty, PrimitiveType::C64 | PrimitiveType::C128);
    let known = match name {
        "getrf" | "geqrf" | "gesdd" | "gesvd" | "geqp3" | "geev" | "gees" | "gtsv" | "potrf"
        | "trsm" | "gehrd" => true,
        "orgqr" | "ormqr" | "syevd" | "sytrd" => !complex,
        "ungqr" | "unmqr" | "heevd" | "hetrd" => complex,
        _ => false,
    };
    known.then_some((ty, name))
}

impl LapackCall {
    /// The call `instr` makes, if its target is one of the LAPACK routines above
    /// (`Ok(None)` otherwise); an error if the attributes or shapes do not fit the routine.
    pub fn new(
        instr: &Instruction,
        cc: &CustomCall,
        operands: &[ArrayShape],
        results: &[ArrayShape],
    ) -> Result<Option<LapackCall>, String> {
        // The platform-neutral names (what `qr-expander` rewrites) mean the same routines.
        let neutral = match cc.target.as_str() {
            "Qr" => Some("geqrf"),
            "ProductOfElementaryHouseholderReflectors" => Some("orgqr"),
            TRIDIAGONAL_SOLVE_PERTURBED => Some("gtsv_perturbed"),
            _ => None,
        };
        // The perturbed solve's element type is its right-hand side's.
        let typed_by = if neutral == Some("gtsv_perturbed") {
            3
        } else {
            0
        };
        let parsed = match (neutral, operands.get(typed_by)) {
            (Some(name), Some(a)) => Some((a.element_type, name)),
            _ => parse_target(&cc.target),
        };
        let Some((ty, name)) = parsed else {
            return Ok(None);
        };
        let attrs = FfiAttributes::of(instr).map_err(|e| e.to_string())?;
        let letter = |n: &str| attrs.letter(n).map_err(|e| e.to_string());
        let flag = |n: &str, yes: u8, no: u8| -> Result<bool, String> {
            match letter(n)? {
                c if c == yes => Ok(true),
                c if c == no => Ok(false),
                c => Err(format!("unexpected {n} = {c} ({:?})", c as char)),
            }
        };
        let routine = match name {
            "getrf" => Routine::Getrf,
            "geqrf" => Routine::Geqrf,
            "orgqr" | "ungqr" => Routine::Orgqr,
            "gesdd" | "gesvd" => {
                let job = match letter("mode")? {
                    b'A' => SvdJob::All,
                    b'S' => SvdJob::Some,
                    b'N' => SvdJob::None,
                    c => return Err(format!("unexpected mode = {c} ({:?})", c as char)),
                };
                if name == "gesdd" {
                    Routine::Gesdd(job)
                } else {
                    Routine::Gesvd(job)
                }
            }
            "geqp3" => Routine::Geqp3,
            "ormqr" | "unmqr" => {
                let boolean = |n: &str| -> Result<bool, String> {
                    match attrs.get(n) {
                        Some("true") => Ok(true),
                        Some("false") => Ok(false),
                        Some(v) => Err(format!("FFI attribute `{n}` = `{v}` is not a boolean")),
                        None => Err(format!("missing FFI attribute `{n}`")),
                    }
                };
                Routine::Ormqr(Ormqr {
                    left: boolean("left")?,
                    transpose: boolean("transpose")?,
                })
            }
            "gtsv_perturbed" => Routine::GtsvPerturbed,
            "syevd" | "heevd" => Routine::Syevd {
                lower: flag("uplo", b'L', b'U')?,
                vectors: flag("mode", b'V', b'N')?,
            },
            "geev" => Routine::Geev {
                left: flag("compute_left", b'V', b'N')?,
                right: flag("compute_right", b'V', b'N')?,
            },
            "gtsv" => Routine::Gtsv,
            "gees" => {
                // jax 0.10.2 never asks for sorting on CPU (`lax.linalg.schur(...,
                // sort_eig_vals=True)` raises NotImplementedError while tracing).
                if flag("sort", b'S', b'N')? {
                    return Err("gees with eigenvalue sorting (sort = S) is not supported".into());
                }
                Routine::Gees {
                    vectors: flag("mode", b'V', b'N')?,
                }
            }
            "gehrd" => {
                let int = |n: &str| -> Result<i64, String> {
                    attrs
                        .get(n)
                        .ok_or_else(|| format!("missing FFI attribute `{n}`"))?
                        .parse::<i64>()
                        .map_err(|_| format!("FFI attribute `{n}` is not an integer"))
                };
                Routine::Gehrd {
                    low: int("low")?,
                    high: int("high")?,
                }
            }
            "sytrd" | "hetrd" => Routine::Sytrd {
                lower: flag("uplo", b'L', b'U')?,
            },
            "potrf" => {
                let mut lower = flag("uplo", b'L', b'U')?;
                if sees_transpose(cc, 0)? {
                    lower = !lower;
                }
                Routine::Potrf { lower }
            }
            "trsm" => {
                let mut how = linalg::Trsm {
                    left_side: flag("side", b'L', b'R')?,
                    lower: flag("uplo", b'L', b'U')?,
                    transpose: false,
                    conjugate: false,
                    unit_diagonal: flag("diag", b'U', b'N')?,
                };
                (how.transpose, how.conjugate) = match letter("trans_x")? {
                    b'N' => (false, false),
                    b'T' => (true, false),
                    b'C' => (true, true),
                    c => return Err(format!("unexpected trans_x = {c} ({:?})", c as char)),
                };
                let (ta, tb) = (sees_transpose(cc, 0)?, sees_transpose(cc, 1)?);
                if ta != tb {
                    return Err("a and b have different layout constraints".into());
                }
                if ta {
                    // LAPACK solves op(aᵀ) xᵀ = bᵀ: transposing back swaps side and triangle.
                    how.left_side = !how.left_side;
                    how.lower = !how.lower;
                }
                Routine::Trsm(how)
            }
            _ => unreachable!("parse_target admits only these names"),
        };
        let complex = matches!(ty, PrimitiveType::C64 | PrimitiveType::C128);
        let (in_core, out_core) = routine.core_ranks(complex);
        if !matches!(routine, Routine::Potrf { .. } | Routine::Trsm(_)) {
            for (i, &c) in in_core.iter().enumerate().take(operands.len()) {
                if c == 2 && sees_transpose(cc, i).unwrap_or(false) {
                    return Err(format!(
                        "operand {i} has a row-major layout constraint; LAPACK reads column-major"
                    ));
                }
            }
        }
        if operands.len() != in_core.len() || results.len() != out_core.len() {
            return Err(format!(
                "{} takes {} operand(s) and returns {} array(s), not {} and {}",
                cc.target,
                in_core.len(),
                out_core.len(),
                operands.len(),
                results.len()
            ));
        }
        let a = &operands[if matches!(routine, Routine::Gtsv | Routine::GtsvPerturbed) {
            3
        } else {
            0
        }];
        let core = 2;
        if a.rank() < core || a.element_type != ty {
            return Err(format!(
                "{} needs a {ty} operand of rank >= 2, not {}[{:?}]",
                cc.target, a.element_type, a.dims
            ));
        }
        let batch_dims = &a.dims[..a.rank() - core];
        let check = |s: &ArrayShape, c: usize, what: &str, i: usize| {
            if s.rank() < c || s.dims[..s.rank() - c] != *batch_dims {
                Err(format!(
                    "{} {what} {i} ({:?}) does not have the batch dimensions {batch_dims:?}",
                    cc.target, s.dims
                ))
            } else {
                Ok(())
            }
        };
        for (i, (s, &c)) in operands.iter().zip(in_core).enumerate() {
            check(s, c, "operand", i)?;
        }
        for (i, (s, &c)) in results.iter().zip(out_core).enumerate() {
            check(s, c, "result", i)?;
        }
        let call = LapackCall {
            target: cc.target.clone(),
            routine,
            ty,
            batch: batch_dims.iter().map(|&d| d.max(0) as usize).product(),
            operands: operands.to_vec(),
            results: results.to_vec(),
        };
        call.check_shapes()?;
        Ok(Some(call))
    }

    /// Whether an SVD's `u` and `vt` are reduced (`m×k`, `k×n`) rather than full. Job `N`
    /// computes no vectors, but jax still sizes their (unwritten) arrays, full or reduced
    /// as `full_matrices` says: the `u` and `vt` results tell which.
    fn svd_reduced(&self, job: SvdJob) -> bool {
        match job {
            SvdJob::Some => true,
            SvdJob::All => false,
            SvdJob::None => {
                let (m, n) = dims2(&self.operands[self.matrix_operand()]);
                let k = m.min(n);
                let is = |i: usize, d: (usize, usize)| {
                    self.results
                        .get(i)
                        .is_some_and(|r| r.rank() >= 2 && dims2(r) == d)
                };
                m != n && is(2, (m, k)) && is(3, (k, n))
            }
        }
    }

    /// The per-matrix sizes every result must have.
    fn check_shapes(&self) -> Result<(), String> {
        let core = |s: &ArrayShape, c: usize| -> Vec<usize> {
            s.dims[s.rank() - c..]
                .iter()
                .map(|&d| d.max(0) as usize)
                .collect()
        };
        let complex = self.is_complex();
        let real = real_of(self.ty);
        let (_, out_core) = self.routine.core_ranks(complex);
        let a = core(&self.operands[self.matrix_operand()], 2);
        let (m, n) = (a[0], a[1]);
        let k = m.min(n);
        let want: Vec<(Vec<usize>, PrimitiveType)> = match self.routine {
            Routine::Getrf => vec![
                (vec![m, n], self.ty),
                (vec![k], PrimitiveType::S32),
                (vec![], PrimitiveType::S32),
            ],
            Routine::Geqrf => vec![(vec![m, n], self.ty), (vec![k], self.ty)],
            Routine::Orgqr => {
                let tau = core(&self.operands[1], 1)[0];
                if tau > n || n > m {
                    return Err(format!("orgqr needs k <= n <= m, got k={tau} {m}x{n}"));
                }
                vec![(vec![m, n], self.ty)]
            }
            Routine::Gesdd(job) | Routine::Gesvd(job) => {
                let (u, vt) = if self.svd_reduced(job) {
                    (vec![m, k], vec![k, n])
                } else {
                    (vec![m, m], vec![n, n])
                };
                vec![
                    (vec![m, n], self.ty),
                    (vec![k], real),
                    (u, self.ty),
                    (vt, self.ty),
                    (vec![], PrimitiveType::S32),
                ]
            }
            Routine::Syevd { .. } => {
                square(m, n)?;
                vec![
                    (vec![n, n], self.ty),
                    (vec![n], real),
                    (vec![], PrimitiveType::S32),
                ]
            }
            Routine::Geev { .. } => {
                square(m, n)?;
                let c = complex_of(self.ty);
                let mut v = if complex {
                    vec![(vec![n], self.ty)]
                } else {
                    vec![(vec![n], self.ty), (vec![n], self.ty)]
                };
                v.extend([
                    (vec![n, n], c),
                    (vec![n, n], c),
                    (vec![], PrimitiveType::S32),
                ]);
                v
            }
            Routine::Gees { .. } => {
                square(m, n)?;
                let mut v = vec![(vec![n, n], self.ty), (vec![n, n], self.ty)];
                v.extend(if complex {
                    vec![(vec![n], self.ty)]
                } else {
                    vec![(vec![n], self.ty), (vec![n], self.ty)]
                });
                v.extend([(vec![], PrimitiveType::S32), (vec![], PrimitiveType::S32)]);
                v
            }
            Routine::Geqp3 => {
                if core(&self.operands[1], 1)[0] != n
                    || self.operands[1].element_type != PrimitiveType::S32
                {
                    return Err(format!("geqp3 jpvt must be s32[{n}]"));
                }
                vec![
                    (vec![m, n], self.ty),
                    (vec![n], PrimitiveType::S32),
                    (vec![k], self.ty),
                ]
            }
            Routine::Ormqr(how) => {
                let tau = core(&self.operands[1], 1)[0];
                let c = core(&self.operands[2], 2);
                let order = if how.left { c[0] } else { c[1] };
                if order != m || tau > n || tau > m {
                    return Err(format!(
                        "ormqr needs c's {} to be a's {m} rows and k <= min(m, n), got a {m}x{n}, k={tau}, c {}x{}",
                        if how.left { "rows" } else { "columns" },
                        c[0],
                        c[1]
                    ));
                }
                vec![(c, self.ty)]
            }
            Routine::Gtsv | Routine::GtsvPerturbed => {
                let n = core(&self.operands[1], 1)[0];
                let b = core(&self.operands[3], 2);
                for i in [0, 2] {
                    if core(&self.operands[i], 1)[0] != n {
                        return Err("gtsv diagonals differ in length".into());
                    }
                }
                if b[0] != n {
                    return Err("gtsv b does not have n rows".into());
                }
                if self.routine == Routine::GtsvPerturbed {
                    vec![(b, self.ty)]
                } else {
                    vec![
                        (vec![n], self.ty),
                        (vec![n], self.ty),
                        (vec![n], self.ty),
                        (b, self.ty),
                        (vec![], PrimitiveType::S32),
                    ]
                }
            }
            Routine::Gehrd { low, high } => {
                square(m, n)?;
                if n > 0 && !(1 <= low && low <= high.max(1) && high <= n as i64) {
                    return Err(format!(
                        "gehrd needs 1 <= low <= high <= n, got {low}, {high}"
                    ));
                }
                vec![
                    (vec![n, n], self.ty),
                    (vec![n.saturating_sub(1)], self.ty),
                    (vec![], PrimitiveType::S32),
                ]
            }
            Routine::Sytrd { .. } => {
                square(m, n)?;
                vec![
                    (vec![n, n], self.ty),
                    (vec![n], real),
                    (vec![n.saturating_sub(1)], real),
                    (vec![n.saturating_sub(1)], self.ty),
                    (vec![], PrimitiveType::S32),
                ]
            }
            Routine::Potrf { .. } => {
                square(m, n)?;
                vec![(vec![n, n], self.ty), (vec![], PrimitiveType::S32)]
            }
            Routine::Trsm(how) => {
                square(m, n)?;
                let b = core(&self.operands[1], 2);
                if (if how.left_side { b[0] } else { b[1] }) != n {
                    return Err(format!("trsm a is {n}x{n} but b is {}x{}", b[0], b[1]));
                }
                vec![(b, self.ty)]
            }
        };
        for (i, ((dims, t), r)) in want.iter().zip(&self.results).enumerate() {
            if core(r, out_core[i]) != *dims || r.element_type != *t {
                return Err(format!(
                    "{} result {i} is {}{:?}, expected {t} with matrix dimensions {dims:?}",
                    self.target, r.element_type, r.dims
                ));
            }
        }
        for (i, o) in self.operands.iter().enumerate().skip(1) {
            let t = if matches!(
                self.routine,
                Routine::Gtsv | Routine::GtsvPerturbed | Routine::Orgqr | Routine::Ormqr(_)
            ) {
                self.ty
            } else if self.routine == Routine::Geqp3 {
                PrimitiveType::S32
            } else {
                o.element_type
            };
            if o.element_type != t || (matches!(self.routine, Routine::Trsm(_)) && t != self.ty) {
                return Err(format!("{} operand {i} is not {}", self.target, self.ty));
            }
        }
        Ok(())
    }

    /// The operand that is a matrix per batch element (`b` for gtsv, else `a`).
    fn matrix_operand(&self) -> usize {
        match self.routine {
            Routine::Gtsv | Routine::GtsvPerturbed => 3,
            _ => 0,
        }
    }

    fn is_complex(&self) -> bool {
        matches!(self.ty, PrimitiveType::C64 | PrimitiveType::C128)
    }

    /// What the routine does, in a few words (for `thunk-sequence.txt`).
    pub fn describe(&self) -> String {
        let t = self.ty;
        let what = match self.routine {
            Routine::Getrf => "getrf (LU, partial pivoting)".to_string(),
            Routine::Geqrf => "geqrf (QR)".to_string(),
            Routine::Orgqr => "orgqr (Q of QR)".to_string(),
            Routine::Gesdd(j) | Routine::Gesvd(j) => format!(
                "{} (SVD, {})",
                if matches!(self.routine, Routine::Gesdd(_)) {
                    "gesdd"
                } else {
                    "gesvd"
                },
                match j {
                    SvdJob::All => "full",
                    SvdJob::Some => "reduced",
                    SvdJob::None => "values only",
                }
            ),
            Routine::Syevd { lower, vectors } => format!(
                "syevd (Hermitian eigen, {}{})",
                if lower { "lower" } else { "upper" },
                if vectors { ", vectors" } else { "" }
            ),
            Routine::Geev { left, right } => format!(
                "geev (eigen{}{})",
                if left { ", left vectors" } else { "" },
                if right { ", right vectors" } else { "" }
            ),
            Routine::Gtsv => "gtsv (tridiagonal solve)".to_string(),
            Routine::GtsvPerturbed => "tridiagonal solve, singular pivots perturbed".to_string(),
            Routine::Geqp3 => "geqp3 (QR, column pivoting)".to_string(),
            Routine::Ormqr(how) => format!(
                "ormqr ({} x {})",
                if how.transpose { "Qᴴ" } else { "Q" },
                if how.left {
                    "from the left"
                } else {
                    "from the right"
                }
            ),
            Routine::Gees { vectors } => {
                format!("gees (Schur{})", if vectors { ", vectors" } else { "" })
            }
            Routine::Gehrd { .. } => "gehrd (Hessenberg reduction)".to_string(),
            Routine::Sytrd { lower } => format!(
                "sytrd (tridiagonal reduction, {})",
                if lower { "lower" } else { "upper" }
            ),
            Routine::Potrf { lower } => {
                format!("potrf, {}", if lower { "lower" } else { "upper" })
            }
            Routine::Trsm(h) => format!(
                "trsm, {} side, {}{}{}",
                if h.left_side { "left" } else { "right" },
                if h.lower { "lower" } else { "upper" },
                if h.transpose { ", transposed" } else { "" },
                if h.unit_diagonal {
                    ", unit diagonal"
                } else {
                    ""
                }
            ),
        };
        format!("{t} {what}, {} matri{}", self.batch, {
            if self.batch == 1 { "x" } else { "ces" }
        })
    }

    /// The trailing dimensions operand `i` keeps per matrix.
    pub fn operand_core_rank(&self, i: usize) -> usize {
        self.routine.core_ranks(self.is_complex()).0[i]
    }

    /// The trailing dimensions result `i` keeps per matrix.
    pub fn result_core_rank(&self, i: usize) -> usize {
        self.routine.core_ranks(self.is_complex()).1[i]
    }
}

fn square(m: usize, n: usize) -> Result<(), String> {
    if m == n {
        Ok(())
    } else {
        Err(format!("the matrix must be square, not {m}x{n}"))
    }
}

fn real_of(t: PrimitiveType) -> PrimitiveType {
    match t {
        PrimitiveType::C64 => PrimitiveType::F32,
        PrimitiveType::C128 => PrimitiveType::F64,
        t => t,
    }
}

fn complex_of(t: PrimitiveType) -> PrimitiveType {
    match t {
        PrimitiveType::F32 => PrimitiveType::C64,
        PrimitiveType::F64 => PrimitiveType::C128,
        t => t,
    }
}

/// True if operand `i`'s layout constraint is row-major within the matrix (its most minor
/// dimension is the last one), so that column-major LAPACK sees the transpose.
fn sees_transpose(cc: &CustomCall, i: usize) -> Result<bool, String> {
    let constraint = cc
        .operand_layout_constraints
        .as_ref()
        .and_then(|c| c.get(i))
        .and_then(Shape::as_array)
        .ok_or_else(|| {
            format!(
                "{} needs operand_layout_constraints for operand {i}",
                cc.target
            )
        })?;
    let rank = constraint.rank();
    Ok(rank >= 2 && constraint.layout.minor_to_major.first() == Some(&(rank - 1)))
}

/// Where a call reads its operands and writes its results: one matrix (or vector, or
/// scalar) at a time, as the `core` trailing dimensions of batch element `batch`, in
/// column-major order (a vector or scalar as it is).
pub trait LapackIo {
    /// Reads batch element `batch` of operand `i`.
    fn read<T: NativeType>(&self, i: usize, core: usize, batch: usize) -> Vec<T>;
    /// Writes batch element `batch` of result `i`.
    fn write<T: NativeType>(&mut self, i: usize, core: usize, batch: usize, v: &[T]);
}

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

// ---------------------------------------------------------------------------------------
// LU

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

// ---------------------------------------------------------------------------------------
// QR

/// `?geqrf` on one column-major `m×n` matrix: `R` and the reflectors in place, `tau`.
pub fn geqrf<T: Scalar>(m: usize, n: usize, a: &mut [T]) -> Vec<T> {
    let k = m.min(n);
    if k == 0 {
        return Vec::new();
    }
    // faer's complex reflectors are Hermitian and leave R's diagonal complex; LAPACK's
    // (and numpy's, and jax's tests') R has a real diagonal: run LAPACK's own loop.
    if T::COMPLEX_TYPE {
        return geqr2(m, n, a);
    }
    use faer::linalg::qr::no_pivoting::factor;
    let bs = factor::recommended_block_size::<T>(m, n);
    let mut coeff = Mat::<T>::zeros(bs, k);
    let mut mem = MemBuffer::new(factor::qr_in_place_scratch::<T>(
        m,
        n,
        bs,
        par_for(m, n),
        Default::default(),
    ));
    factor::qr_in_place(
        MatMut::from_column_major_slice_mut(a, m, n),
        coeff.as_mut(),
        par_for(m, n),
        MemStack::new(&mut mem),
        Default::default(),
    );
    (0..k)
        .map(|i| {
            let t = coeff[(i % bs, i)];
            // A reflector faer skipped (zero tail) has t = inf: LAPACK's tau = 0.
            let inv = T::one() / t;
            if inv.is_nan() { T::zero() } else { inv }
        })
        .collect()
}

/// `?orgqr`/`?ungqr`: the `m×n` `Q = H₁⋯H_k` from the reflectors below the diagonal of the
/// column-major `a` and their `tau`, applied a block of columns at a time in the compact
/// form `H_j⋯H_{j+b-1} = I - V T Vᴴ` (`?larft`, forward, columnwise).
pub fn orgqr<T: Scalar>(m: usize, n: usize, a: &[T], tau: &[T]) -> Vec<T> {
    let k = tau.len();
    let mut q = Mat::<T>::zeros(m, n);
    for i in 0..n.min(m) {
        q[(i, i)] = T::one();
    }
    const NB: usize = 32;
    let starts: Vec<usize> = (0..k).step_by(NB).collect();
    for &j0 in starts.iter().rev() {
        let b = NB.min(k - j0);
        let rows = m - j0;
        let v = Mat::<T>::from_fn(rows, b, |r, c| {
            if r < c {
                T::zero()
            } else if r == c {
                T::one()
            } else {
                a[(j0 + r) + (j0 + c) * m]
            }
        });
        // T[:i, i] = -tau_i T[:i, :i] (V[:, :i]ᴴ v_i), T[i, i] = tau_i.
        let mut t = Mat::<T>::zeros(b, b);
        for i in 0..b {
            let ti = tau[j0 + i];
            t[(i, i)] = ti;
            if i == 0 {
                continue;
            }
            let w: Vec<T> = (0..i)
                .map(|s| (i..rows).fold(T::zero(), |acc, r| acc + v[(r, s)].conj() * v[(r, i)]))
                .collect();
            for r in 0..i {
                let mut acc = T::zero();
                for (s, &ws) in w.iter().enumerate().take(i).skip(r) {
                    acc += t[(r, s)] * ws;
                }
                t[(r, i)] = -(ti * acc);
            }
        }
        let mut qs = q.as_mut().submatrix_mut(j0, j0, rows, n - j0);
        let mut w = Mat::<T>::zeros(b, n - j0);
        faer::linalg::matmul::matmul(
            w.as_mut(),
            faer::Accum::Replace,
            v.as_ref().adjoint(),
            qs.as_ref(),
            T::one(),
            par_for(m, n),
        );
        let tw = &t * &w;
        faer::linalg::matmul::matmul(
            qs.as_mut(),
            faer::Accum::Add,
            v.as_ref(),
            tw.as_ref(),
            -T::one(),
            par_for(m, n),
        );
    }
    let mut out = Vec::with_capacity(m * n);
    for j in 0..n {
        for i in 0..m {
            out.push(q[(i, j)]);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// SVD and eigen

fn col_major<T: Copy>(mat: MatRef<'_, T>) -> Vec<T> {
    let mut out = Vec::with_capacity(mat.nrows() * mat.ncols());
    for j in 0..mat.ncols() {
        for i in 0..mat.nrows() {
            out.push(mat[(i, j)]);
        }
    }
    out
}

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

// ---------------------------------------------------------------------------------------
// tridiagonal solve

/// `?gtsv` with jax's operands: `dl[i] = A[i, i-1]` (`dl[0]` unused), `d`, `du[i] =
/// A[i, i+1]`, and the `n×nrhs` column-major `b`, overwritten with the solution; the
/// diagonals hold LAPACK's factorization afterwards. `info = i` if `U[i-1, i-1]` is zero.
pub fn gtsv<T: Scalar>(dl: &mut [T], d: &mut [T], du: &mut [T], b: &mut [T], nrhs: usize) -> i32 {
    let n = d.len();
    if n == 0 {
        return 0;
    }
    // LAPACK's DL(i) (1-based) is A(i+1, i): jax's dl shifted by one.
    let dl = &mut dl[1..];
    let bi = |i: usize, j: usize| i + j * n;
    for i in 0..n - 1 {
        if d[i].abs1() >= dl[i].abs1() {
            // No row interchange.
            if d[i] == T::zero() {
                return i as i32 + 1;
            }
            let fact = dl[i] / d[i];
            d[i + 1] -= fact * du[i];
            for j in 0..nrhs {
                b[bi(i + 1, j)] = b[bi(i + 1, j)] - fact * b[bi(i, j)];
            }
            if i < n - 2 {
                dl[i] = T::zero();
            }
        } else {
            // Interchange rows i and i+1.
            let fact = d[i] / dl[i];
            d[i] = dl[i];
            let temp = d[i + 1];
            d[i + 1] = du[i] - fact * temp;
            if i < n - 2 {
                dl[i] = du[i + 1];
                du[i + 1] = -(fact * dl[i]);
            }
            du[i] = temp;
            for j in 0..nrhs {
                let t = b[bi(i, j)];
                b[bi(i, j)] = b[bi(i + 1, j)];
                b[bi(i + 1, j)] = t - fact * b[bi(i + 1, j)];
            }
        }
    }
    if d[n - 1] == T::zero() {
        return n as i32;
    }
    for j in 0..nrhs {
        b[bi(n - 1, j)] = b[bi(n - 1, j)] / d[n - 1];
        if n > 1 {
            b[bi(n - 2, j)] = (b[bi(n - 2, j)] - du[n - 2] * b[bi(n - 1, j)]) / d[n - 2];
        }
        for i in (0..n.saturating_sub(2)).rev() {
            b[bi(i, j)] = (b[bi(i, j)] - du[i] * b[bi(i + 1, j)] - dl[i] * b[bi(i + 2, j)]) / d[i];
        }
    }
    0
}

// ---------------------------------------------------------------------------------------
// Hessenberg and tridiagonal reductions (unblocked, as LAPACK's `?gehd2` and `?sytd2`)

/// LAPACK's `?larfg`: the reflector `H = I - τ v vᴴ` (`v₀ = 1`) with `Hᴴ (α, x) = (β, 0)`
/// and `β` real. Scales `x` to `v`'s tail in place; returns `(β, τ)`.
fn larfg<T: Scalar>(alpha: T, x: &mut [T]) -> (T, T) {
    let xnorm2 = x.iter().fold(<T::Re as Field>::zero(), |acc, v| {
        let c = v.to_cx();
        acc + c.re * c.re + c.im * c.im
    });
    let a = alpha.to_cx();
    if xnorm2 == <T::Re as Field>::zero() && a.im == <T::Re as Field>::zero() {
        return (alpha, T::zero());
    }
    let norm = (a.re * a.re + a.im * a.im + xnorm2).sqrt_re();
    let beta = if a.re >= <T::Re as Field>::zero() {
        -norm
    } else {
        norm
    };
    let beta_t = T::from_real(beta);
    let tau = (beta_t - alpha) / beta_t;
    let scale = T::one() / (alpha - beta_t);
    for v in x.iter_mut() {
        *v *= scale;
    }
    (beta_t, tau)
}

/// `?gehrd` on one column-major `n×n` matrix: the Hessenberg form and its reflectors in
/// place, `tau` (`n - 1`, zero outside `low..high`).
pub fn gehrd<T: Scalar>(n: usize, a: &mut [T], low: usize, high: usize) -> Vec<T> {
    let mut tau = vec![T::zero(); n.saturating_sub(1)];
    if n == 0 {
        return tau;
    }
    let at = |i: usize, j: usize| i + j * n;
    // 0-based: columns i = low-1 .. high-2 are reduced, rows/columns up to high-1 take part.
    let (lo, hi) = (low.max(1) - 1, high.max(1) - 1);
    for i in lo..hi {
        let mut x: Vec<T> = (i + 2..=hi).map(|r| a[at(r, i)]).collect();
        let (beta, t) = larfg(a[at(i + 1, i)], &mut x);
        tau[i] = t;
        let mut v = vec![T::one()];
        v.extend_from_slice(&x);
        for (k, r) in (i + 2..=hi).enumerate() {
            a[at(r, i)] = x[k];
        }
        // A[0..=hi, i+1..=hi] ← A (I - τ v vᴴ).
        for r in 0..=hi {
            let s = v
                .iter()
                .enumerate()
                .fold(T::zero(), |acc, (k, &vk)| acc + a[at(r, i + 1 + k)] * vk);
            for (k, &vk) in v.iter().enumerate() {
                a[at(r, i + 1 + k)] = a[at(r, i + 1 + k)] - t * s * vk.conj();
            }
        }
        // A[i+1..=hi, i+1..n] ← (I - τ̄ v vᴴ)... i.e. Hᴴ A.
        for c in i + 1..n {
            let s = v.iter().enumerate().fold(T::zero(), |acc, (k, &vk)| {
                acc + vk.conj() * a[at(i + 1 + k, c)]
            });
            for (k, &vk) in v.iter().enumerate() {
                a[at(i + 1 + k, c)] = a[at(i + 1 + k, c)] - t.conj() * vk * s;
            }
        }
        a[at(i + 1, i)] = beta;
    }
    tau
}

/// `?sytrd`/`?hetrd` on one column-major `n×n` matrix whose `lower` (or upper) triangle
/// holds a Hermitian matrix: the reflectors in place of that triangle (below the
/// subdiagonal, or above the superdiagonal), `(d, e, tau)`.
#[allow(clippy::type_complexity)]
pub fn sytrd<T: Scalar>(n: usize, a: &mut [T], lower: bool) -> (Vec<T::Re>, Vec<T::Re>, Vec<T>) {
    let at = |i: usize, j: usize| i + j * n;
    let mut d = vec![<T::Re as Field>::zero(); n];
    let mut e = vec![<T::Re as Field>::zero(); n.saturating_sub(1)];
    let mut tau = vec![T::zero(); n.saturating_sub(1)];
    if n == 0 {
        return (d, e, tau);
    }
    // The full Hermitian matrix the triangle stands for; reduced as a whole.
    let mut h: Vec<T> = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
            let v = a[at(r, c)];
            if i == j {
                T::from_real(v.real())
            } else if (r, c) == (i, j) {
                v
            } else {
                v.conj()
            }
        })
        .collect();
    // Lower: reflector i acts on rows/columns i+1.. from the top; upper: on 0..=i from the
    // bottom (LAPACK's order for each triangle).
    let steps: Vec<usize> = if lower {
        (0..n - 1).collect()
    } else {
        (0..n - 1).rev().collect()
    };
    for i in steps {
        // The part of column (lower) or column i+1 (upper) to annihilate, head first.
        let (col, rows): (usize, Vec<usize>) = if lower {
            (i, (i + 1..n).collect())
        } else {
            (i + 1, (0..=i).rev().collect())
        };
        let mut x: Vec<T> = rows[1..].iter().map(|&r| h[at(r, col)]).collect();
        let (beta, t) = larfg(h[at(rows[0], col)], &mut x);
        let mut v = vec![T::one()];
        v.extend_from_slice(&x);
        // H ← Pᴴ H P with P = I - τ v vᴴ on `rows`: H ← H - v wᴴ - w vᴴ, where
        // w = τ H v - ½ τ (τ̄... LAPACK's `alpha = -½ τ (wᴴ v)`).
        let m = rows.len();
        let mut w = vec![T::zero(); n];
        for r in 0..n {
            let mut s = T::zero();
            for k in 0..m {
                s += h[at(r, rows[k])] * v[k];
            }
            w[r] = t * s;
        }
        let wv = (0..m).fold(T::zero(), |acc, k| acc + w[rows[k]].conj() * v[k]);
        let alpha = -(T::from_real(<T::Re as Field>::from_re(0.5)) * t * wv);
        let mut full_v = vec![T::zero(); n];
        for k in 0..m {
            full_v[rows[k]] = v[k];
        }
        for r in 0..n {
            w[r] += alpha * full_v[r];
        }
        for c in 0..n {
            for r in 0..n {
                h[at(r, c)] = h[at(r, c)] - full_v[r] * w[c].conj() - w[r] * full_v[c].conj();
            }
        }
        // The annihilated column is (β, 0, ...) exactly; keep the reflector there in `a`.
        for (k, &r) in rows.iter().enumerate().skip(1) {
            a[at(r, col)] = x[k - 1];
            h[at(r, col)] = T::zero();
            h[at(col, r)] = T::zero();
        }
        h[at(rows[0], col)] = beta;
        h[at(col, rows[0])] = beta.conj();
        e[i] = beta.real();
        tau[i] = t;
    }
    for i in 0..n {
        d[i] = h[at(i, i)].real();
        a[at(i, i)] = T::from_real(d[i]);
    }
    for (i, &ei) in e.iter().enumerate().take(n - 1) {
        let (r, c) = if lower { (i + 1, i) } else { (i, i + 1) };
        a[at(r, c)] = T::from_real(ei);
    }
    (d, e, tau)
}

#[cfg(test)]
mod tests;
