//! What a LAPACK custom call asks for: the routine and its flags read from the target name
//! and the FFI attributes (`mode`, `uplo`, `left`, ...), checked against the operand and
//! result shapes. Apart from the routines because it is about HLO (targets, attributes,
//! layout constraints), not about numbers.
//!
//! XLA/JAX: the attribute decoding of `jaxlib/cpu/lapack_kernels.cc`.

use super::{Ormqr, dims2, linalg};
use crate::eval::custom_call::FfiAttributes;
use crate::ir::{ArrayShape, CustomCall, Instruction, PrimitiveType, Shape};

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
    pub(super) fn svd_reduced(&self, job: SvdJob) -> bool {
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
    pub(super) fn matrix_operand(&self) -> usize {
        match self.routine {
            Routine::Gtsv | Routine::GtsvPerturbed => 3,
            _ => 0,
        }
    }

    pub(super) fn is_complex(&self) -> bool {
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
