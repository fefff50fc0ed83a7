//! `convolution` as im2col + GEMM, for every attribute XLA has: any dimension labels,
//! strides, padding (negative too), base (lhs) and window (rhs) dilation, window reversal,
//! `feature_group_count` and `batch_group_count`.
//!
//! Per group g, the input patches form a matrix `P[(batch, output position), (window
//! position, input feature)]` (zero where the window falls into padding or a dilation
//! hole), the kernel a matrix `K[(window position, input feature), output feature]`, and
//! `P × K` is the group's slice of the output. Groups, as XLA defines them: with
//! `feature_group_count = G` group g reads input features `[g·C/G, (g+1)·C/G)` and writes
//! output features `[g·O/G, ...)`; with `batch_group_count = G` group g reads input batch
//! `[g·N/G, ...)` and writes output features `[g·O/G, ...)`. f16/bf16 compute in f32.
//! XLA: `xla/backends/cpu/runtime/convolution_thunk.cc` (Eigen's spatial convolution is
//! im2col + GEMM too); semantics as in `src/eval/convolution.rs`.

pub mod direct;
pub mod nhwc;

use gemm::Parallelism;

use crate::ir::{ArrayShape, ConvolutionDimensionNumbers, PrimitiveType, Window};

use crate::runtime::RuntimeError;
use crate::runtime::elements::{Compute, load, store};
use crate::runtime::memory::{BufferRef, Memory};
use crate::runtime::tuning::ConvAlgorithm;

/// A convolution on buffers.
#[derive(Clone, Debug)]
pub struct ConvolutionThunk {
    /// The convolution instruction.
    pub name: String,
    /// Input.
    pub lhs: BufferRef,
    /// Kernel.
    pub rhs: BufferRef,
    /// Result.
    pub out: BufferRef,
    /// Strides, padding, dilations, reversal.
    pub window: Window,
    /// Which dimension is which.
    pub dimension_numbers: ConvolutionDimensionNumbers,
    /// `feature_group_count`.
    pub feature_group_count: usize,
    /// `batch_group_count`.
    pub batch_group_count: usize,
    /// An explicit algorithm chosen by `--autotune` (default: direct for small NHWC
    /// reductions, else NHWC patches where they apply).
    pub algorithm: Option<ConvAlgorithm>,
}

/// Runs a convolution thunk.
pub fn run(c: &ConvolutionThunk, memory: &Memory) -> Result<(), RuntimeError> {
    // NHWC/HWIO f32 with a small reduction runs directly (`direct.rs`).
    let direct = match c.algorithm {
        Some(crate::runtime::tuning::ConvAlgorithm::DirectSmallK) => true,
        None => direct::is_default(c),
        Some(_) => false,
    };
    if direct && direct::try_run(c, memory) {
        return Ok(());
    }
    // NHWC/HWIO f32 runs in place on the buffers (`nhwc.rs`).
    let generic = c.algorithm == Some(crate::runtime::tuning::ConvAlgorithm::GenericIm2col);
    if !generic && nhwc::try_run(c, memory) {
        return Ok(());
    }
    let f64_compute = [&c.lhs, &c.rhs, &c.out]
        .iter()
        .any(|b| b.shape.element_type == PrimitiveType::F64);
    // SAFETY: the slices hold their shapes.
    unsafe {
        if f64_compute {
            convolve::<f64>(c, memory)
        } else {
            convolve::<f32>(c, memory)
        }
    }
    .map_err(|m| RuntimeError::new(format!("{}: {m}", c.name)))
}

/// Row-major decomposition of a linear index over `dims`, into `index`.
fn unravel(mut linear: usize, dims: &[usize], index: &mut [usize]) {
    for d in (0..dims.len()).rev() {
        index[d] = linear % dims[d];
        linear /= dims[d];
    }
}

unsafe fn convolve<T: Compute + GemmT>(
    c: &ConvolutionThunk,
    memory: &Memory,
) -> Result<(), String> {
    let (ls, rs, os) = (&c.lhs.shape, &c.rhs.shape, &c.out.shape);
    let dn = &c.dimension_numbers;
    let nsp = dn.input_spatial_dimensions.len();
    if ls.rank() != nsp + 2
        || rs.rank() != nsp + 2
        || os.rank() != nsp + 2
        || c.window.dimensions.len() != nsp
    {
        return Err("convolution ranks, window and dim_labels do not agree".into());
    }
    let dim = |s: &ArrayShape, d: usize| s.dims[d] as usize;
    let (fgc, bgc) = (c.feature_group_count, c.batch_group_count);
    let groups = fgc * bgc;
    let in_features = dim(ls, dn.input_feature_dimension);
    let cg = dim(rs, dn.kernel_input_feature_dimension);
    let out_features = dim(rs, dn.kernel_output_feature_dimension);
    let nout = dim(os, dn.output_batch_dimension);
    if groups == 0 || !out_features.is_multiple_of(groups) || cg * fgc != in_features {
        return Err("convolution group counts do not divide the feature sizes".into());
    }
    let og = out_features / groups;
    let out_sp: Vec<usize> = dn
        .output_spatial_dimensions
        .iter()
        .map(|&d| dim(os, d))
        .collect();
    let win: Vec<usize> = dn
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| dim(rs, d))
        .collect();
    let s_total: usize = out_sp.iter().product();
    let w_total: usize = win.iter().product();

    // Input coordinate of (spatial dim, output coordinate, window coordinate), if any.
    let mut positions: Vec<Vec<Vec<Option<usize>>>> = Vec::with_capacity(nsp);
    for k in 0..nsp {
        let wd = &c.window.dimensions[k];
        let size = dim(ls, dn.input_spatial_dimensions[k]) as i64;
        let (stride, wdil, bdil) = (
            wd.stride.max(1),
            wd.window_dilation.max(1),
            wd.base_dilation.max(1),
        );
        positions.push(
            (0..out_sp[k] as i64)
                .map(|o| {
                    (0..win[k] as i64)
                        .map(|w| {
                            let undilated = o * stride - wd.padding_low + w * wdil;
                            if undilated < 0 || undilated % bdil != 0 {
                                return None;
                            }
                            let x = undilated / bdil;
                            (x < size).then_some(x as usize)
                        })
                        .collect()
                })
                .collect(),
        );
    }

    // SAFETY: the slices hold their shapes.
    let lhs: Vec<T> = unsafe { load(memory.ptr(c.lhs.slice), ls.element_type, ls.element_count()) };
    let rhs: Vec<T> = unsafe { load(memory.ptr(c.rhs.slice), rs.element_type, rs.element_count()) };
    let (lst, rst, ost) = (
        ls.physical_strides(),
        rs.physical_strides(),
        os.physical_strides(),
    );
    let mut out = vec![T::default(); os.element_count()];

    let rows = nout * s_total;
    let depth = w_total * cg;
    let mut patches = vec![T::default(); rows * depth];
    let mut kernel = vec![T::default(); depth * og];
    let mut result = vec![T::default(); rows * og];
    let mut sidx = vec![0usize; nsp];
    let mut widx = vec![0usize; nsp];
    for g in 0..groups {
        let (batch0, feature0) = if bgc > 1 { (g * nout, 0) } else { (0, g * cg) };
        // Patches: row (b, s), column (w, ci).
        for b in 0..nout {
            let lb = (batch0 + b) * lst[dn.input_batch_dimension];
            for s in 0..s_total {
                unravel(s, &out_sp, &mut sidx);
                let row = &mut patches[(b * s_total + s) * depth..][..depth];
                for w in 0..w_total {
                    unravel(w, &win, &mut widx);
                    let mut off = Some(lb);
                    for k in 0..nsp {
                        off = match (off, positions[k][sidx[k]][widx[k]]) {
                            (Some(o), Some(x)) => Some(o + x * lst[dn.input_spatial_dimensions[k]]),
                            _ => None,
                        };
                    }
                    let cell = &mut row[w * cg..][..cg];
                    match off {
                        Some(o) => {
                            for (ci, v) in cell.iter_mut().enumerate() {
                                *v = lhs[o + (feature0 + ci) * lst[dn.input_feature_dimension]];
                            }
                        }
                        None => cell.fill(T::default()),
                    }
                }
            }
        }
        // Kernel: row (w, ci), column o (reversed window dimensions read backwards).
        for w in 0..w_total {
            unravel(w, &win, &mut widx);
            let mut base = 0;
            for k in 0..nsp {
                let x = if c.window.dimensions[k].window_reversal {
                    win[k] - 1 - widx[k]
                } else {
                    widx[k]
                };
                base += x * rst[dn.kernel_spatial_dimensions[k]];
            }
            for ci in 0..cg {
                for o in 0..og {
                    kernel[(w * cg + ci) * og + o] = rhs[base
                        + ci * rst[dn.kernel_input_feature_dimension]
                        + (g * og + o) * rst[dn.kernel_output_feature_dimension]];
                }
            }
        }
        if rows > 0 && og > 0 {
            if depth == 0 {
                result.fill(T::default());
            } else {
                let parallelism = if rows * og * depth >= 1 << 18 {
                    Parallelism::Rayon(0)
                } else {
                    Parallelism::None
                };
                // SAFETY: row-major matrices of the sizes given.
                unsafe {
                    T::gemm_rm(
                        rows,
                        og,
                        depth,
                        result.as_mut_ptr(),
                        patches.as_ptr(),
                        kernel.as_ptr(),
                        parallelism,
                    )
                };
            }
        }
        // Scatter the group's result into the output.
        for b in 0..nout {
            for s in 0..s_total {
                unravel(s, &out_sp, &mut sidx);
                let mut base = b * ost[dn.output_batch_dimension];
                for k in 0..nsp {
                    base += sidx[k] * ost[dn.output_spatial_dimensions[k]];
                }
                for o in 0..og {
                    out[base + (g * og + o) * ost[dn.output_feature_dimension]] =
                        result[(b * s_total + s) * og + o];
                }
            }
        }
    }
    // SAFETY: the output slice holds its shape.
    unsafe { store(memory.ptr(c.out.slice), os.element_type, &out) };
    Ok(())
}

/// Row-major `dst[m x n] = a[m x k] * b[k x n]` through the `gemm` crate.
pub trait GemmT: Sized {
    /// # Safety
    /// Pointers must hold matrices of the given sizes.
    unsafe fn gemm_rm(
        m: usize,
        n: usize,
        k: usize,
        dst: *mut Self,
        a: *const Self,
        b: *const Self,
        p: Parallelism,
    );
}

macro_rules! impl_gemm_rm {
    ($t:ty) => {
        impl GemmT for $t {
            unsafe fn gemm_rm(
                m: usize,
                n: usize,
                k: usize,
                dst: *mut $t,
                a: *const $t,
                b: *const $t,
                p: Parallelism,
            ) {
                // SAFETY: forwarded. Row-major: column stride 1, row stride = row length.
                unsafe {
                    gemm::gemm(
                        m, n, k, dst, 1, n as isize, false, a, 1, k as isize, b, 1, n as isize,
                        0.0, 1.0, false, false, false, p,
                    )
                }
            }
        }
    };
}
impl_gemm_rm!(f32);
impl_gemm_rm!(f64);
