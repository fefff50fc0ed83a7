//! The fast path of `convolution` for the layout JAX and XLA:CPU's Eigen path use: f32,
//! input `b01f` (NHWC), kernel `01io` (HWIO), output `b01f`, all row-major, two spatial
//! dimensions, no groups, no base dilation, no window reversal (strides, padding and window
//! dilation are free).
//!
//! In that layout the kernel buffer already IS the GEMM's right matrix
//! `K[(kh, kw, ci), o]` and the output buffer IS the result matrix `Out[(b, oh, ow), o]`, so
//! the only work besides the GEMM is the patch matrix `P[(b, oh, ow), (kh, kw, ci)]`, built
//! in parallel straight from the input buffer: for every output position and window row,
//! the input pixels the window row covers are one contiguous run of `kw × ci` floats
//! (stride-1 window) copied at once. The general path (`mod.rs`) copies every
//! operand into vectors, builds patches element by element on one thread and scatters the
//! result back; here nothing is copied but the patches.
//! XLA: `xla/backends/cpu/runtime/convolution_thunk.cc` → Eigen's `SpatialConvolution`
//! (also im2col-style packing + GEMM) for exactly this layout.

use gemm::Parallelism;
use rayon::prelude::*;

use crate::ir::{ArrayShape, PrimitiveType};

use super::{ConvolutionThunk, GemmT};
use crate::runtime::memory::Memory;

/// Patch rows per parallel task.
const ROWS_PER_TASK: usize = 256;

/// Runs `c` on the fast path if it qualifies; `false` when the general path must run.
/// True if the NHWC fast path handles this convolution.
pub fn applies(c: &ConvolutionThunk) -> bool {
    Geometry::of(c).is_some()
}

/// Runs the convolution if the fast path handles it; false otherwise.
pub fn try_run(c: &ConvolutionThunk, memory: &Memory) -> bool {
    let Some(g) = Geometry::of(c) else {
        return false;
    };
    let lhs = memory.ptr(c.lhs.slice) as *const f32;
    let rhs = memory.ptr(c.rhs.slice) as *const f32;
    let out = memory.ptr(c.out.slice) as *mut f32;
    // SAFETY: the slices hold their shapes (checked row-major f32 in `Geometry::of`), and a
    // convolution's result never shares a buffer with its operands.
    unsafe { g.run(lhs, rhs, out) };
    true
}

/// The sizes of a convolution with NHWC input, HWIO kernel and NHWC output, all row-major
/// f32, without groups, base dilation or reversal: the convolutions the NHWC paths (this
/// file's patches and `direct.rs`) handle.
#[derive(Clone, Debug)]
pub(super) struct Geometry {
    pub(super) batch: usize,
    pub(super) in_hw: [usize; 2],
    pub(super) channels: usize,
    pub(super) window: [usize; 2],
    pub(super) stride: [usize; 2],
    pub(super) pad_low: [i64; 2],
    pub(super) dilation: [usize; 2],
    pub(super) out_hw: [usize; 2],
    pub(super) out_features: usize,
}

fn row_major(s: &ArrayShape) -> bool {
    s.element_type == PrimitiveType::F32
        && s.layout
            .minor_to_major
            .iter()
            .rev()
            .copied()
            .eq(0..s.rank())
}

impl Geometry {
    /// The geometry of `c`, if it is such a convolution.
    pub(super) fn of(c: &ConvolutionThunk) -> Option<Geometry> {
        let (ls, rs, os) = (&c.lhs.shape, &c.rhs.shape, &c.out.shape);
        let dn = &c.dimension_numbers;
        let nhwc = dn.input_batch_dimension == 0
            && dn.input_spatial_dimensions == [1, 2]
            && dn.input_feature_dimension == 3
            && dn.kernel_spatial_dimensions == [0, 1]
            && dn.kernel_input_feature_dimension == 2
            && dn.kernel_output_feature_dimension == 3
            && dn.output_batch_dimension == 0
            && dn.output_spatial_dimensions == [1, 2]
            && dn.output_feature_dimension == 3;
        if !nhwc
            || c.feature_group_count != 1
            || c.batch_group_count != 1
            || ls.rank() != 4
            || rs.rank() != 4
            || os.rank() != 4
            || c.window.dimensions.len() != 2
            || !row_major(ls)
            || !row_major(rs)
            || !row_major(os)
        {
            return None;
        }
        let w = &c.window.dimensions;
        if w.iter()
            .any(|d| d.base_dilation != 1 || d.window_reversal || d.stride < 1)
            || w.iter().any(|d| d.window_dilation < 1)
        {
            return None;
        }
        let u = |x: i64| x as usize;
        let g = Geometry {
            batch: u(ls.dims[0]),
            in_hw: [u(ls.dims[1]), u(ls.dims[2])],
            channels: u(ls.dims[3]),
            window: [u(rs.dims[0]), u(rs.dims[1])],
            stride: [u(w[0].stride), u(w[1].stride)],
            pad_low: [w[0].padding_low, w[1].padding_low],
            dilation: [u(w[0].window_dilation), u(w[1].window_dilation)],
            out_hw: [u(os.dims[1]), u(os.dims[2])],
            out_features: u(os.dims[3]),
        };
        let consistent = w[0].size == rs.dims[0]
            && w[1].size == rs.dims[1]
            && rs.dims[2] as usize == g.channels
            && rs.dims[3] as usize == g.out_features
            && os.dims[0] as usize == g.batch;
        consistent.then_some(g)
    }

    /// The reduction depth: multiply-adds per output element.
    pub(super) fn depth(&self) -> usize {
        self.window[0] * self.window[1] * self.channels
    }

    /// The input coordinate of output coordinate `o` and window coordinate `k` along
    /// spatial dimension `d`, if it is inside the input.
    pub(super) fn input_at(&self, d: usize, o: usize, k: usize) -> Option<usize> {
        let x = (o * self.stride[d]) as i64 - self.pad_low[d] + (k * self.dilation[d]) as i64;
        (x >= 0 && (x as usize) < self.in_hw[d]).then_some(x as usize)
    }

    /// # Safety
    /// `lhs`, `rhs`, `out` hold the row-major input, kernel and output.
    unsafe fn run(&self, lhs: *const f32, rhs: *const f32, out: *mut f32) {
        let rows = self.batch * self.out_hw[0] * self.out_hw[1];
        let depth = self.depth();
        let n = self.out_features;
        if rows == 0 || n == 0 {
            return;
        }
        // SAFETY: the output holds rows × n floats.
        let out_slice = unsafe { std::slice::from_raw_parts_mut(out, rows * n) };
        if depth == 0 {
            out_slice.fill(0.0);
            return;
        }
        let input_len = self.batch * self.in_hw[0] * self.in_hw[1] * self.channels;
        // SAFETY: the input holds that many floats.
        let input = unsafe { std::slice::from_raw_parts(lhs, input_len) };
        // Zeroed: positions in the padding stay 0.
        let mut patches = vec![0f32; rows * depth];
        patches
            .par_chunks_mut(ROWS_PER_TASK * depth)
            .enumerate()
            .for_each(|(task, chunk)| {
                for (i, row) in chunk.chunks_mut(depth).enumerate() {
                    self.fill_patch_row(input, task * ROWS_PER_TASK + i, row);
                }
            });
        let parallelism = if rows * n * depth >= 1 << 18 {
            Parallelism::Rayon(0)
        } else {
            Parallelism::None
        };
        // SAFETY: row-major matrices of the sizes given; the kernel buffer is K.
        unsafe { f32::gemm_rm(rows, n, depth, out, patches.as_ptr(), rhs, parallelism) };
    }

    /// Patch row `r` = output position (b, oh, ow): for each window row, the covered input
    /// pixels' channels.
    fn fill_patch_row(&self, input: &[f32], r: usize, row: &mut [f32]) {
        let [oh_n, ow_n] = self.out_hw;
        let (b, rest) = (r / (oh_n * ow_n), r % (oh_n * ow_n));
        let (oh, ow) = (rest / ow_n, rest % ow_n);
        let c = self.channels;
        let [kh_n, kw_n] = self.window;
        for kh in 0..kh_n {
            let Some(ih) = self.input_at(0, oh, kh) else {
                continue;
            };
            let pixel_row = (b * self.in_hw[0] + ih) * self.in_hw[1];
            let dst = &mut row[kh * kw_n * c..][..kw_n * c];
            if self.dilation[1] == 1 {
                // The valid window columns are one contiguous run of input pixels.
                let lo = (0..kw_n).find(|&kw| self.input_at(1, ow, kw).is_some());
                let Some(lo) = lo else { continue };
                let hi = (lo..kw_n)
                    .take_while(|&kw| self.input_at(1, ow, kw).is_some())
                    .last()
                    .unwrap_or(lo);
                let iw = self.input_at(1, ow, lo).unwrap_or(0);
                let len = (hi + 1 - lo) * c;
                let src = &input[(pixel_row + iw) * c..][..len];
                dst[lo * c..][..len].copy_from_slice(src);
            } else {
                for kw in 0..kw_n {
                    if let Some(iw) = self.input_at(1, ow, kw) {
                        let src = &input[(pixel_row + iw) * c..][..c];
                        dst[kw * c..][..c].copy_from_slice(src);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::compare::Tolerance;
    use crate::front::hlo_text::parse_module;
    use crate::ir::PrimitiveType::F32;
    use crate::runtime::tests::{assert_matches_interpreter, build, random_args};

    /// One NHWC f32 convolution (the fast path's layout), run by the runtime and by the
    /// interpreter on random inputs, twice (buffers are reused across runs).
    fn check(x: &str, k: &str, out: &str, window: &str) {
        let hlo = format!(
            "HloModule m\nENTRY main {{\n  x = f32{x}{{3,2,1,0}} parameter(0)\n  k = f32{k}{{3,2,1,0}} parameter(1)\n  ROOT c = f32{out}{{3,2,1,0}} convolution(x, k), window={{{window}}}, dim_labels=b01f_01io->b01f\n}}\n"
        );
        let (module, mut exe) = build(&hlo);
        let args = random_args(&module, 11);
        assert_matches_interpreter(&module, &mut exe, &args, Tolerance::for_type(F32));
    }

    #[test]
    fn nhwc_convolutions_match_the_interpreter() {
        // The CNN benchmark's first layer shape (smaller batch), 3 input channels.
        check(
            "[2,9,11,3]",
            "[3,3,3,5]",
            "[2,9,11,5]",
            "size=3x3 pad=1_1x1_1",
        );
        // Strides, uneven padding, window dilation.
        check(
            "[1,10,7,4]",
            "[3,2,4,3]",
            "[1,6,4,3]",
            "size=3x2 stride=2x2 pad=1_2x0_1",
        );
        check(
            "[2,8,9,2]",
            "[2,3,2,4]",
            "[2,6,5,4]",
            "size=2x3 pad=0_0x0_0 rhs_dilate=2x2",
        );
        // 1x1 kernel, one channel, negative padding, a window wider than the input.
        check("[1,5,5,6]", "[1,1,6,7]", "[1,5,5,7]", "size=1x1");
        check(
            "[1,6,6,1]",
            "[3,3,1,2]",
            "[1,3,3,2]",
            "size=3x3 pad=-1_0x-1_0",
        );
        check(
            "[1,2,3,2]",
            "[3,5,2,2]",
            "[1,2,1,2]",
            "size=3x5 pad=1_1x1_1",
        );
        // Nothing to reduce over, and an empty batch.
        check("[1,3,3,0]", "[2,2,0,3]", "[1,2,2,3]", "size=2x2");
        check("[0,3,3,2]", "[2,2,2,3]", "[0,2,2,3]", "size=2x2");
    }

    #[test]
    fn only_nhwc_f32_without_groups_takes_the_fast_path() {
        use super::Geometry;
        let text = "HloModule m\nENTRY main {\n  x = f32[1,4,4,2]{3,2,1,0} parameter(0)\n  k = f32[3,3,2,3]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,4,4,3]{3,2,1,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n}\n";
        let thunk = |text: &str| {
            let module = parse_module(text, "t").unwrap().module;
            let e = module.entry_computation();
            let root = e.root_instr();
            let shape = |id| e.instr(id).shape.as_array().unwrap().clone();
            let crate::ir::Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } = &root.op
            else {
                panic!("not a convolution")
            };
            let slice = crate::layout::Slice {
                allocation: 0,
                offset: 0,
                size: 0,
            };
            let r = |s| crate::runtime::memory::BufferRef { slice, shape: s };
            super::ConvolutionThunk {
                name: "c".into(),
                lhs: r(shape(root.operands[0])),
                rhs: r(shape(root.operands[1])),
                out: r(root.shape.as_array().unwrap().clone()),
                window: window.clone(),
                dimension_numbers: dimension_numbers.clone(),
                feature_group_count: *feature_group_count as usize,
                batch_group_count: *batch_group_count as usize,
                algorithm: None,
            }
        };
        assert!(Geometry::of(&thunk(text)).is_some());
        let column_major = text.replace("f32[1,4,4,2]{3,2,1,0}", "f32[1,4,4,2]{0,1,2,3}");
        assert!(Geometry::of(&thunk(&column_major)).is_none());
        let f64_text = text.replace("f32", "f64");
        assert!(Geometry::of(&thunk(&f64_text)).is_none());
    }
}
