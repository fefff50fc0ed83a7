//! The LAPACK custom calls JAX emits for `jnp.linalg.cholesky` and `solve_triangular` on
//! CPU, as native routines for f32 and f64: `lapack_?potrf_ffi` (Cholesky; the factor with
//! the other triangle untouched, and `info` per matrix: 0, or the 1-based pivot where the
//! matrix stopped being positive definite) and `lapack_?trsm_ffi` (triangular solve with
//! alpha = 1, left/right side, lower/upper, transpose, unit diagonal).
//!
//! Each batch matrix is read from its buffer (any physical layout) into a logical row-major
//! work array, factored or solved with the textbook unblocked loops (left-looking
//! Cholesky–Crout as `?potf2`, forward/back substitution), and written back through the
//! result's layout. The flags are read as the interpreter reads them (`eval::custom_call`):
//! the FFI attributes in `backend_config` (`uplo = 76 : ui8`), flipped when an
//! `operand_layout_constraints` entry is row-major within the matrix (LAPACK, column-major,
//! then sees the transpose). The arithmetic follows `eval::linalg` operation for operation
//! (the Cholesky pivot is formed in f64, the scale is a multiply by the reciprocal), so both
//! backends agree to the bit on the same inputs. Complex targets keep the reference
//! implementation.
//! XLA/JAX: `jaxlib/cpu/lapack_kernels.cc` (`CholeskyFactorization`, `TriMatrixEquationSolver`).

use std::ops::{Add, Div, Mul, Sub};

use super::{for_each_index, offset};
use crate::ir::{BackendConfig, CustomCall, Instruction, PrimitiveType, Shape};
use crate::runtime::RuntimeError;
use crate::runtime::execute::Memory;
use crate::runtime::thunk::BufferRef;

/// Which LAPACK routine, with its flags resolved to the logical matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    /// `?potrf`: factor the `lower` (or upper) triangle.
    Potrf {
        /// Lower (`L = chol(a)`, `a = L Lᵀ`) or upper (`a = Uᵀ U`).
        lower: bool,
    },
    /// `?trsm`: solve `op(a) x = b` (left side) or `x op(a) = b`.
    Trsm(Trsm),
}

/// The flags of a triangular solve, on the logical matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trsm {
    /// `op(a)` is on the left of `x`.
    pub left_side: bool,
    /// Read the lower triangle of `a` (else the upper).
    pub lower: bool,
    /// `op(a) = aᵀ`.
    pub transpose: bool,
    /// Ones on the diagonal of `a`.
    pub unit_diagonal: bool,
}

/// A LAPACK custom call on buffers.
#[derive(Debug)]
pub struct LapackThunk {
    /// The custom-call instruction.
    pub name: String,
    /// The target (`lapack_spotrf_ffi`, ...).
    pub target: String,
    /// What to compute.
    pub routine: Routine,
    /// `a` (`[..., n, n]`).
    pub a: BufferRef,
    /// `b` for trsm (`[..., m, n]`).
    pub b: Option<BufferRef>,
    /// The factor (potrf) or the solution (trsm).
    pub out: BufferRef,
    /// `info` per matrix (potrf).
    pub info: Option<BufferRef>,
}

impl LapackThunk {
    /// Builds the thunk for `instr` if its target is a real LAPACK routine xlac runs
    /// natively; `Ok(None)` for other targets (complex ones keep the reference path).
    /// `operands` and `results` are the array leaves, in order.
    pub fn new(
        instr: &Instruction,
        cc: &CustomCall,
        operands: &[BufferRef],
        results: &[BufferRef],
    ) -> Result<Option<LapackThunk>, String> {
        let potrf = matches!(
            cc.target.as_str(),
            "lapack_spotrf_ffi" | "lapack_dpotrf_ffi"
        );
        let trsm = matches!(cc.target.as_str(), "lapack_strsm_ffi" | "lapack_dtrsm_ffi");
        if !potrf && !trsm {
            return Ok(None);
        }
        let attrs = attributes(instr)?;
        let letter = |name: &str| -> Result<u8, String> {
            attrs
                .iter()
                .find(|(n, _)| n == name)
                .ok_or_else(|| format!("missing FFI attribute `{name}`"))?
                .1
                .parse::<u8>()
                .map_err(|_| format!("FFI attribute `{name}` is not a byte"))
        };
        let flag = |name: &str, yes: u8, no: u8| -> Result<bool, String> {
            match letter(name)? {
                c if c == yes => Ok(true),
                c if c == no => Ok(false),
                c => Err(format!("unexpected {name} = {c} ({:?})", c as char)),
            }
        };
        let real = |b: &BufferRef| {
            matches!(
                b.shape.element_type,
                PrimitiveType::F32 | PrimitiveType::F64
            )
        };
        if potrf {
            let ([a], [out, info]) = (operands, results) else {
                return Err("potrf takes one operand and returns (factor, info)".into());
            };
            if !real(a) || out.shape.element_type != a.shape.element_type {
                return Err("potrf operand and factor must be f32 or f64".into());
            }
            let mut lower = flag("uplo", b'L', b'U')?;
            if sees_transpose(cc, 0)? {
                lower = !lower;
            }
            return Ok(Some(LapackThunk {
                name: instr.name.clone(),
                target: cc.target.clone(),
                routine: Routine::Potrf { lower },
                a: a.clone(),
                b: None,
                out: out.clone(),
                info: Some(info.clone()),
            }));
        }
        let ([a, b], [out]) = (operands, results) else {
            return Err("trsm takes (a, b) and returns one array".into());
        };
        let t = a.shape.element_type;
        if !real(a) || b.shape.element_type != t || out.shape.element_type != t {
            return Err("trsm operands must all be f32 or all f64".into());
        }
        let mut how = Trsm {
            left_side: flag("side", b'L', b'R')?,
            lower: flag("uplo", b'L', b'U')?,
            transpose: match letter("trans_x")? {
                b'N' => false,
                // `C` on a real matrix is the transpose.
                b'T' | b'C' => true,
                c => return Err(format!("unexpected trans_x = {c} ({:?})", c as char)),
            },
            unit_diagonal: flag("diag", b'U', b'N')?,
        };
        let (ta, tb) = (sees_transpose(cc, 0)?, sees_transpose(cc, 1)?);
        if ta != tb {
            return Err("a and b have different layout constraints".into());
        }
        if ta {
            // LAPACK solves op(aᵀ) xᵀ = bᵀ: transposing back swaps the side and the triangle.
            how.left_side = !how.left_side;
            how.lower = !how.lower;
        }
        Ok(Some(LapackThunk {
            name: instr.name.clone(),
            target: cc.target.clone(),
            routine: Routine::Trsm(how),
            a: a.clone(),
            b: Some(b.clone()),
            out: out.clone(),
            info: None,
        }))
    }

    /// What the thunk line says after "native".
    pub fn describe(&self) -> String {
        let t = self.a.shape.element_type;
        match self.routine {
            Routine::Potrf { lower } => {
                format!("{t} potrf, {}", if lower { "lower" } else { "upper" })
            }
            Routine::Trsm(h) => format!(
                "{t} trsm, {} side, {}{}{}",
                if h.left_side { "left" } else { "right" },
                if h.lower { "lower" } else { "upper" },
                if h.transpose { ", transposed" } else { "" },
                if h.unit_diagonal {
                    ", unit diagonal"
                } else {
                    ""
                }
            ),
        }
    }
}

/// The `name = value : type` entries of a typed-FFI `backend_config` (values unquoted,
/// without their type).
fn attributes(instr: &Instruction) -> Result<Vec<(String, String)>, String> {
    let text = match &instr.backend_config {
        None => return Ok(Vec::new()),
        Some(BackendConfig::Json(t) | BackendConfig::Quoted(t)) => t.trim(),
    };
    let body = text.strip_prefix('{').unwrap_or(text);
    let body = body.strip_suffix('}').unwrap_or(body);
    let mut out = Vec::new();
    for item in body.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("cannot parse the FFI attributes `{text}`"))?;
        let value = value.split_once(':').map_or(value, |(v, _)| v);
        out.push((
            name.trim().to_string(),
            value.trim().trim_matches('"').to_string(),
        ));
    }
    Ok(out)
}

/// True if operand `i`'s layout constraint is row-major within the matrix, so that
/// column-major LAPACK sees the transpose of the logical matrix.
fn sees_transpose(cc: &CustomCall, i: usize) -> Result<bool, String> {
    let c = cc
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
    let rank = c.rank();
    Ok(rank >= 2 && c.layout.minor_to_major.first() == Some(&(rank - 1)))
}

/// f32 or f64, as the routines need them.
trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Default
{
    const ONE: Self;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    fn sqrt(self) -> Self;
}

impl Real for f32 {
    const ONE: Self = 1.0;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Real for f64 {
    const ONE: Self = 1.0;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

/// The batch matrices of a `[..., rows, cols]` buffer: for each batch index (row-major),
/// the element offset of `[batch..., 0, 0]`, and the physical strides of rows and columns.
struct Matrices {
    starts: Vec<usize>,
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl Matrices {
    fn of(b: &BufferRef) -> Result<Matrices, String> {
        let r = b.shape.rank();
        if r < 2 {
            return Err("LAPACK operands must have rank >= 2".into());
        }
        let dims: Vec<usize> = b.shape.dims.iter().map(|&d| d.max(0) as usize).collect();
        let strides = b.shape.physical_strides();
        let mut starts = Vec::new();
        let batch = &dims[..r - 2];
        for_each_index(batch, None, &mut |i| {
            starts.push(offset(i, &strides[..r - 2]))
        });
        Ok(Matrices {
            starts,
            rows: dims[r - 2],
            cols: dims[r - 1],
            row_stride: strides[r - 2],
            col_stride: strides[r - 1],
        })
    }

    /// Matrix `k` as a logical row-major vector.
    ///
    /// # Safety
    /// `base` must hold the buffer these matrices describe, with elements of type `T`.
    unsafe fn read<T: Copy>(&self, base: *const u8, k: usize) -> Vec<T> {
        let mut v = Vec::with_capacity(self.rows * self.cols);
        for i in 0..self.rows {
            for j in 0..self.cols {
                let e = self.starts[k] + i * self.row_stride + j * self.col_stride;
                // SAFETY: `e` is an element of the buffer.
                v.push(unsafe { base.cast::<T>().add(e).read_unaligned() });
            }
        }
        v
    }

    /// Writes matrix `k` from a logical row-major vector.
    ///
    /// # Safety
    /// As [`Matrices::read`], writable.
    unsafe fn write<T: Copy>(&self, base: *mut u8, k: usize, v: &[T]) {
        for i in 0..self.rows {
            for j in 0..self.cols {
                let e = self.starts[k] + i * self.row_stride + j * self.col_stride;
                // SAFETY: `e` is an element of the buffer.
                unsafe {
                    base.cast::<T>()
                        .add(e)
                        .write_unaligned(v[i * self.cols + j])
                };
            }
        }
    }
}

/// Runs a LAPACK thunk.
pub fn run(t: &LapackThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let r = match t.a.shape.element_type {
        PrimitiveType::F32 => run_typed::<f32>(t, memory),
        PrimitiveType::F64 => run_typed::<f64>(t, memory),
        other => Err(format!("{other} is not supported")),
    };
    r.map_err(|m| RuntimeError::new(format!("{} ({}): {m}", t.name, t.target)))
}

fn run_typed<T: Real>(t: &LapackThunk, memory: &Memory) -> Result<(), String> {
    let a = Matrices::of(&t.a)?;
    let out = Matrices::of(&t.out)?;
    let a_ptr = memory.ptr(t.a.slice);
    let out_ptr = memory.ptr(t.out.slice);
    match t.routine {
        Routine::Potrf { lower } => {
            let n = a.rows;
            if a.cols != n || out.rows != n || out.cols != n || out.starts.len() != a.starts.len() {
                return Err("potrf needs square matrices of equal shape".into());
            }
            let info = t.info.as_ref().ok_or("potrf has no info output")?;
            if info.shape.element_type != PrimitiveType::S32
                || info.shape.element_count() != a.starts.len()
            {
                return Err("potrf info must be s32 with one element per matrix".into());
            }
            let info_strides = info.shape.physical_strides();
            let info_dims: Vec<usize> =
                info.shape.dims.iter().map(|&d| d.max(0) as usize).collect();
            let mut info_at = Vec::new();
            for_each_index(&info_dims, None, &mut |i| {
                info_at.push(offset(i, &info_strides))
            });
            // Read every matrix before writing any: the factor may share the operand's buffer.
            // SAFETY: the slices hold the shapes `Matrices` describes.
            let inputs: Vec<Vec<T>> = (0..a.starts.len())
                .map(|k| unsafe { a.read::<T>(a_ptr, k) })
                .collect();
            let info_ptr = memory.ptr(info.slice).cast::<i32>();
            for (k, m) in inputs.into_iter().enumerate() {
                let (f, code) = potrf(m, n, lower);
                // SAFETY: as above; `info_at[k]` is an element of the info buffer.
                unsafe {
                    out.write(out_ptr, k, &f);
                    info_ptr.add(info_at[k]).write_unaligned(code);
                }
            }
        }
        Routine::Trsm(how) => {
            let b = Matrices::of(t.b.as_ref().ok_or("trsm has no b operand")?)?;
            let b_ptr = memory.ptr(t.b.as_ref().map(|b| b.slice).ok_or("no b")?);
            let (k, m, n) = (a.rows, b.rows, b.cols);
            if a.cols != k
                || (if how.left_side { m } else { n }) != k
                || b.starts.len() != a.starts.len()
                || out.rows != m
                || out.cols != n
                || out.starts.len() != b.starts.len()
            {
                return Err("trsm shapes do not match".into());
            }
            // SAFETY: the slices hold the shapes `Matrices` describes.
            let inputs: Vec<(Vec<T>, Vec<T>)> = (0..a.starts.len())
                .map(|i| unsafe { (a.read::<T>(a_ptr, i), b.read::<T>(b_ptr, i)) })
                .collect();
            for (i, (am, bm)) in inputs.into_iter().enumerate() {
                let x = trsm(&am, &bm, k, m, n, how);
                // SAFETY: as above.
                unsafe { out.write(out_ptr, i, &x) };
            }
        }
    }
    Ok(())
}

fn transposed<T: Real>(m: &[T], n: usize) -> Vec<T> {
    let mut t = vec![T::default(); n * n];
    for i in 0..n {
        for j in 0..n {
            t[j * n + i] = m[i * n + j];
        }
    }
    t
}

/// One matrix of `?potrf`: unblocked left-looking Cholesky, as `?potf2` does; on failure
/// at pivot `j` the diagonal holds the non-positive value and `info = j + 1`.
fn potrf<T: Real>(a: Vec<T>, n: usize, lower: bool) -> (Vec<T>, i32) {
    // `U` is `Lᵀ` of the same symmetric matrix: factor the transpose and undo it, which
    // also carries the untouched triangle through unchanged.
    let mut w = if lower { a } else { transposed(&a, n) };
    let mut info = 0;
    for j in 0..n {
        let dot = |w: &[T], r: usize| {
            (0..j).fold(T::default(), |acc, k| acc + w[r * n + k] * w[j * n + k])
        };
        let ajj = w[j * n + j].to_f64() - dot(&w, j).to_f64();
        if ajj.is_nan() || ajj <= 0.0 {
            w[j * n + j] = T::from_f64(ajj);
            info = j as i32 + 1;
            break;
        }
        let ajj = T::from_f64(ajj).sqrt();
        w[j * n + j] = ajj;
        // Scale by the reciprocal, as LAPACK's `?scal(1/ajj)` does.
        let inv = T::ONE / ajj;
        for r in j + 1..n {
            w[r * n + j] = (w[r * n + j] - dot(&w, r)) * inv;
        }
    }
    let w = if lower { w } else { transposed(&w, n) };
    (w, info)
}

/// One matrix of `?trsm` (alpha = 1): builds `op(a)` restricted to its triangle, turns a
/// right-side solve into a left-side one (`x M = b` ⇔ `Mᵀ xᵀ = bᵀ`), substitutes.
fn trsm<T: Real>(a: &[T], b: &[T], k: usize, m: usize, n: usize, how: Trsm) -> Vec<T> {
    let mut mat = vec![T::default(); k * k];
    for i in 0..k {
        for j in 0..k {
            let in_triangle = if how.lower { j <= i } else { j >= i };
            if !in_triangle {
                continue;
            }
            let v = if i == j && how.unit_diagonal {
                T::ONE
            } else {
                a[i * k + j]
            };
            let (r, c) = if how.transpose { (j, i) } else { (i, j) };
            mat[r * k + c] = v;
        }
    }
    let mut mat_lower = how.lower ^ how.transpose;
    let (mut x, cols) = if how.left_side {
        (b.to_vec(), n)
    } else {
        mat = transposed(&mat, k);
        mat_lower = !mat_lower;
        let mut bt = vec![T::default(); m * n];
        for i in 0..m {
            for j in 0..n {
                bt[j * m + i] = b[i * n + j];
            }
        }
        (bt, m)
    };
    for step in 0..k {
        let i = if mat_lower { step } else { k - 1 - step };
        let known = if mat_lower { 0..i } else { i + 1..k };
        for c in 0..cols {
            let s = known.clone().fold(T::default(), |acc, j| {
                acc + mat[i * k + j] * x[j * cols + c]
            });
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
    let mut out = vec![T::default(); m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = x[j * m + i];
        }
    }
    out
}
