//! Direct convolution for NHWC input / HWIO kernel / NHWC output, f32, no groups, no base
//! dilation, no window reversal (any padding, stride and window dilation): the algorithm
//! the runtime picks by default when the reduction `K = KH·KW·C_in` is small.
//!
//! Why: im2col + GEMM (`nhwc.rs`) copies every input pixel `KH·KW` times into
//! a patch matrix and then runs a GEMM whose depth `K` is small (27 for the first layer of
//! an RGB CNN), so building patches and the GEMM's packing and edges dominate. Measured on
//! the `cnn` benchmark (2 shared cores, `examples/thunk_times`, noisy): first conv
//! (f32[16,64,64,3] * 3x3x3x16, K = 27) patches 1.9–2.8 ms, direct 0.7–1.2 ms; second conv
//! (f32[16,32,32,16] * 3x3x16x32, K = 144) patches 1.4–1.6 ms, direct 0.8–0.9 ms. Hence
//! the default up to [`MAX_DEFAULT_DEPTH`]; above it the algorithm is an autotune candidate.
//!
//! How: parallel over output rows `(batch, oh)`; output channels in blocks of 16 (one
//! AVX-512 vector) with the kernel repacked once per call into `[block][kh][kw][ci][16]`
//! (zero-padded past `C_out`), so each tap reads one contiguous 16-float weight vector.
//! Interior output pixels (every window column inside the input) go several at a time with
//! one accumulator vector per pixel and block in registers: for each in-bounds tap
//! `(kh, kw, ci)` each pixel's input scalar is broadcast and multiplied into the weight
//! vector(s). With AVX-512: pairs of full blocks go 6 pixels at a time (12 accumulators,
//! each broadcast feeds two FMAs), single blocks 8 pixels at a time. Window rows in the
//! padding are skipped per output row; border pixels (some window column in the padding)
//! go one at a time with a per-column check. The summation order differs from the
//! interpreter's (fused multiply-adds, tap order), within the f32 tolerances.
//! The AVX-512 interiors use `std::arch` intrinsics (LLVM did not keep `[f32; 16]` array
//! accumulators in registers); everything else is generic code compiled for AVX-512F+FMA,
//! AVX2+FMA (picked at run time with `is_x86_feature_detected!`) and portably.
//!
//! XLA: XLA:CPU runs these convolutions through `xla/backends/cpu/runtime/
//! convolution_thunk.cc`, i.e. Eigen's `SpatialConvolution` (tensor contraction over
//! image patches; oneDNN or XNNPACK when enabled, which have direct kernels for small
//! channel counts like this one).

use rayon::prelude::*;

use super::ConvolutionThunk;
use super::nhwc::Geometry;
use crate::runtime::memory::Memory;

/// Output channels per block: one AVX-512 f32 vector.
const LANES: usize = 16;

/// The largest reduction depth `KH·KW·C_in` for which this algorithm is the default.
/// Measured on the `cnn` benchmark, it wins at 27 (3x3x3 → 16) and at 144 (3x3x16 → 32);
/// the bound keeps a pair of packed 16-channel weight blocks (`2·K·16` floats, 32 KiB at
/// 256) inside L1, beyond which the GEMM's cache blocking should win. Above it, it is still
/// an autotune candidate.
pub const MAX_DEFAULT_DEPTH: usize = 256;

/// True if the direct algorithm handles this convolution (any depth).
pub fn applies(c: &ConvolutionThunk) -> bool {
    Geometry::of(c).is_some()
}

/// True if the direct algorithm is the default for this convolution: it applies and the
/// reduction depth is at most [`MAX_DEFAULT_DEPTH`].
pub fn is_default(c: &ConvolutionThunk) -> bool {
    Geometry::of(c).is_some_and(|g| g.depth() <= MAX_DEFAULT_DEPTH)
}

/// Runs the convolution if the direct algorithm handles it; false otherwise.
pub fn try_run(c: &ConvolutionThunk, memory: &Memory) -> bool {
    let Some(g) = Geometry::of(c) else {
        return false;
    };
    let lhs = memory.ptr(c.lhs.slice) as *const f32;
    let rhs = memory.ptr(c.rhs.slice) as *const f32;
    let out = memory.ptr(c.out.slice) as *mut f32;
    // SAFETY: the slices hold their shapes (checked row-major f32 in `Geometry::of`), and a
    // convolution's result never shares a buffer with its operands.
    unsafe { g.run_direct(lhs, rhs, out) };
    true
}

/// Which compiled copy of the row loop runs.
#[derive(Clone, Copy)]
enum Isa {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Isa {
    fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }
}

/// Per-call facts shared by every output row.
struct Setup<'a> {
    g: &'a Geometry,
    input: &'a [f32],
    /// The kernel as `[block][kh][kw][ci][LANES]`, zero past `out_features`.
    packed: &'a [f32],
    /// `KH·KW·C_in`.
    depth: usize,
    /// Output columns `[lo, hi)` whose whole window row lies inside the input.
    interior: (usize, usize),
}

impl Geometry {
    /// # Safety
    /// `lhs`, `rhs`, `out` hold the row-major input, kernel and output.
    unsafe fn run_direct(&self, lhs: *const f32, rhs: *const f32, out: *mut f32) {
        let [oh_n, ow_n] = self.out_hw;
        let o = self.out_features;
        let rows = self.batch * oh_n;
        if rows == 0 || ow_n == 0 || o == 0 {
            return;
        }
        // SAFETY: the output holds rows × ow_n × o floats.
        let out = unsafe { std::slice::from_raw_parts_mut(out, rows * ow_n * o) };
        let depth = self.depth();
        if depth == 0 {
            out.fill(0.0);
            return;
        }
        let input_len = self.batch * self.in_hw[0] * self.in_hw[1] * self.channels;
        // SAFETY: the input and kernel hold that many floats.
        let input = unsafe { std::slice::from_raw_parts(lhs, input_len) };
        let kernel = unsafe { std::slice::from_raw_parts(rhs, depth * o) };
        let blocks = o.div_ceil(LANES);
        let mut packed = vec![0f32; blocks * depth * LANES];
        for t in 0..depth {
            for co in 0..o {
                packed[(co / LANES) * depth * LANES + t * LANES + co % LANES] = kernel[t * o + co];
            }
        }
        // Interior columns form one range: the first window column's input coordinate
        // grows with `ow`, and so does the last's.
        let kw_last = self.window[1] - 1;
        let inside = |ow: usize| {
            self.input_at(1, ow, 0).is_some() && self.input_at(1, ow, kw_last).is_some()
        };
        let lo = (0..ow_n).find(|&ow| inside(ow)).unwrap_or(ow_n);
        let hi = (lo..ow_n).find(|&ow| !inside(ow)).unwrap_or(ow_n);
        let s = Setup {
            g: self,
            input,
            packed: &packed,
            depth,
            interior: (lo, hi),
        };
        let isa = Isa::detect();
        out.par_chunks_mut(ow_n * o)
            .enumerate()
            .for_each(|(r, orow)| match isa {
                // SAFETY: the features were detected at run time.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { row_avx512(&s, r, orow) },
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { row_avx2(&s, r, orow) },
                Isa::Portable => row::<false, false, 4>(&s, r, orow),
            });
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn row_avx512(s: &Setup, r: usize, orow: &mut [f32]) {
    // 8 pixels × one 16-lane vector = 8 independent accumulator chains.
    row::<true, true, 8>(s, r, orow)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn row_avx2(s: &Setup, r: usize, orow: &mut [f32]) {
    // 4 pixels × two 8-lane vectors: 8 of the 16 ymm registers.
    row::<true, false, 4>(s, r, orow)
}

/// `a·b + c`, fused where the compiled copy has FMA (a libm call otherwise, so not used).
#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// Output row `r = (b, oh)`: every output channel block, interior pixels `P` at a time.
#[inline(always)]
fn row<const FMA: bool, const ZMM: bool, const P: usize>(s: &Setup, r: usize, orow: &mut [f32]) {
    let g = s.g;
    let [oh_n, ow_n] = g.out_hw;
    let (b, oh) = (r / oh_n, r % oh_n);
    let (c, o) = (g.channels, g.out_features);
    let [kh_n, kw_n] = g.window;
    let in_w = g.in_hw[1];
    // The window rows inside the input, with the offset of their input row.
    let taps: Vec<(usize, usize)> = (0..kh_n)
        .filter_map(|kh| {
            let ih = g.input_at(0, oh, kh)?;
            Some((kh, (b * g.in_hw[0] + ih) * in_w * c))
        })
        .collect();
    let (lo, hi) = s.interior;
    let sw = g.stride[1];
    let block_len = s.depth * LANES;
    // With AVX-512, pairs of full 16-channel blocks go two at a time through the interior
    // groups of 6 pixels (12 accumulators); the loop below then does their borders.
    let paired = if ZMM { (o / LANES) & !1 } else { 0 };
    #[cfg(target_arch = "x86_64")]
    if ZMM {
        const Q: usize = 6;
        for pair in (0..paired).step_by(2) {
            let wpair = &s.packed[pair * block_len..][..2 * block_len];
            let co0 = pair * LANES;
            let mut ow = lo;
            while ow + Q <= hi {
                let mut acc = [[[0f32; LANES]; Q]; 2];
                let iw0 = ((ow * sw) as i64 - g.pad_low[1]) as usize;
                // SAFETY: only `row_avx512` instantiates ZMM = true; two blocks.
                unsafe { interior_zmm2::<Q>(s, &taps, wpair, iw0, &mut acc) };
                for (h, half) in acc.iter().enumerate() {
                    for (p, a) in half.iter().enumerate() {
                        orow[(ow + p) * o + co0 + h * LANES..][..LANES].copy_from_slice(a);
                    }
                }
                ow += Q;
            }
        }
    }
    for (block, wblock) in s.packed.chunks_exact(block_len).enumerate() {
        let co0 = block * LANES;
        let n = LANES.min(o - co0);
        // Interior groups of paired blocks are done (all but the last few pixels).
        let done = if block < paired {
            let q = 6;
            let groups = hi.saturating_sub(lo) / q;
            Some((lo, lo + groups * q))
        } else {
            None
        };
        let mut ow = 0;
        while ow < ow_n {
            if let Some((a, b)) = done
                && ow >= a
                && ow < b
            {
                ow = b;
                continue;
            }
            if ow >= lo && ow + P <= hi {
                let mut acc = [[0f32; LANES]; P];
                // Input coordinate of the first pixel's first window column (>= 0: the
                // pixel is interior).
                let iw0 = ((ow * sw) as i64 - g.pad_low[1]) as usize;
                #[cfg(target_arch = "x86_64")]
                if ZMM {
                    // SAFETY: only `row_avx512` instantiates ZMM = true.
                    unsafe { interior_zmm::<P>(s, &taps, wblock, iw0, &mut acc) };
                } else {
                    interior::<FMA, P>(s, &taps, wblock, iw0, &mut acc);
                }
                #[cfg(not(target_arch = "x86_64"))]
                interior::<FMA, P>(s, &taps, wblock, iw0, &mut acc);
                for (p, a) in acc.iter().enumerate() {
                    orow[(ow + p) * o + co0..][..n].copy_from_slice(&a[..n]);
                }
                ow += P;
            } else if ZMM && ow >= lo && ow < hi {
                // One of the last few interior pixels.
                let mut acc = [[0f32; LANES]; 1];
                let iw0 = ((ow * sw) as i64 - g.pad_low[1]) as usize;
                #[cfg(target_arch = "x86_64")]
                // SAFETY: only `row_avx512` instantiates ZMM = true.
                unsafe {
                    interior_zmm::<1>(s, &taps, wblock, iw0, &mut acc)
                };
                orow[ow * o + co0..][..n].copy_from_slice(&acc[0][..n]);
                ow += 1;
            } else {
                // A border pixel (or the last few interior ones): check each column.
                let mut acc = [0f32; LANES];
                for &(kh, row_at) in &taps {
                    for kw in 0..kw_n {
                        let Some(iw) = g.input_at(1, ow, kw) else {
                            continue;
                        };
                        let wtap = &wblock[(kh * kw_n + kw) * c * LANES..][..c * LANES];
                        let xs = &s.input[row_at + iw * c..][..c];
                        for (ci, &x) in xs.iter().enumerate() {
                            let w = &wtap[ci * LANES..][..LANES];
                            for l in 0..LANES {
                                acc[l] = madd::<FMA>(x, w[l], acc[l]);
                            }
                        }
                    }
                }
                orow[ow * o + co0..][..n].copy_from_slice(&acc[..n]);
                ow += 1;
            }
        }
    }
}

/// `P` interior pixels starting at input column `iw0`, one 16-channel block (`wblock`):
/// accumulates every in-bounds tap into `acc`. Portable: the compiler vectorizes the lanes.
#[inline(always)]
fn interior<const FMA: bool, const P: usize>(
    s: &Setup,
    taps: &[(usize, usize)],
    wblock: &[f32],
    iw0: usize,
    acc: &mut [[f32; LANES]; P],
) {
    let g = s.g;
    let c = g.channels;
    let kw_n = g.window[1];
    let (sw, dw) = (g.stride[1], g.dilation[1]);
    for &(kh, row_at) in taps {
        for kw in 0..kw_n {
            let wtap = &wblock[(kh * kw_n + kw) * c * LANES..][..c * LANES];
            let x0 = row_at + (iw0 + kw * dw) * c;
            // Every pixel of the group is interior: its columns are in the row.
            let xs = &s.input[x0..][..((P - 1) * sw) * c + c];
            for ci in 0..c {
                let w: &[f32; LANES] = wtap[ci * LANES..][..LANES].try_into().unwrap();
                for (p, a) in acc.iter_mut().enumerate() {
                    let x = xs[p * sw * c + ci];
                    for l in 0..LANES {
                        a[l] = madd::<FMA>(x, w[l], a[l]);
                    }
                }
            }
        }
    }
}

/// [`interior`] with AVX-512 intrinsics: `P` zmm accumulators stay in registers, each
/// weight vector is loaded once and used by `P` broadcast fused multiply-adds.
///
/// # Safety
/// The CPU supports AVX-512F and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
#[inline]
unsafe fn interior_zmm<const P: usize>(
    s: &Setup,
    taps: &[(usize, usize)],
    wblock: &[f32],
    iw0: usize,
    out: &mut [[f32; LANES]; P],
) {
    use std::arch::x86_64::*;
    let g = s.g;
    let c = g.channels;
    let kw_n = g.window[1];
    let (sw, dw) = (g.stride[1], g.dilation[1]);
    let mut acc = [_mm512_setzero_ps(); P];
    for &(kh, row_at) in taps {
        for kw in 0..kw_n {
            let wtap = &wblock[(kh * kw_n + kw) * c * LANES..][..c * LANES];
            let x0 = row_at + (iw0 + kw * dw) * c;
            // Every pixel of the group is interior: its columns are in the row.
            let xs = &s.input[x0..][..((P - 1) * sw) * c + c];
            for ci in 0..c {
                // SAFETY: ci·LANES + LANES <= wtap.len(); p·sw·c + ci < xs.len().
                unsafe {
                    let w = _mm512_loadu_ps(wtap.as_ptr().add(ci * LANES));
                    for (p, a) in acc.iter_mut().enumerate() {
                        let x = _mm512_set1_ps(*xs.get_unchecked(p * sw * c + ci));
                        *a = _mm512_fmadd_ps(x, w, *a);
                    }
                }
            }
        }
    }
    for (o, a) in out.iter_mut().zip(acc) {
        // SAFETY: `o` holds LANES floats.
        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), a) };
    }
}

/// [`interior_zmm`] for two 16-channel blocks at once (`wblock` and the next block,
/// `block_len` floats later): each input broadcast feeds two fused multiply-adds, so
/// there are fewer loads per multiply-add than with one block.
///
/// # Safety
/// The CPU supports AVX-512F and FMA; `wblock` holds two blocks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
#[inline]
unsafe fn interior_zmm2<const P: usize>(
    s: &Setup,
    taps: &[(usize, usize)],
    wblock: &[f32],
    iw0: usize,
    out: &mut [[[f32; LANES]; P]; 2],
) {
    use std::arch::x86_64::*;
    let g = s.g;
    let c = g.channels;
    let kw_n = g.window[1];
    let (sw, dw) = (g.stride[1], g.dilation[1]);
    let block_len = s.depth * LANES;
    let mut acc0 = [_mm512_setzero_ps(); P];
    let mut acc1 = [_mm512_setzero_ps(); P];
    for &(kh, row_at) in taps {
        for kw in 0..kw_n {
            let at = (kh * kw_n + kw) * c * LANES;
            let w0tap = &wblock[at..][..c * LANES];
            let w1tap = &wblock[block_len + at..][..c * LANES];
            let x0 = row_at + (iw0 + kw * dw) * c;
            // Every pixel of the group is interior: its columns are in the row.
            let xs = &s.input[x0..][..((P - 1) * sw) * c + c];
            for ci in 0..c {
                // SAFETY: ci·LANES + LANES <= wNtap.len(); p·sw·c + ci < xs.len().
                unsafe {
                    let w0 = _mm512_loadu_ps(w0tap.as_ptr().add(ci * LANES));
                    let w1 = _mm512_loadu_ps(w1tap.as_ptr().add(ci * LANES));
                    for p in 0..P {
                        let x = _mm512_set1_ps(*xs.get_unchecked(p * sw * c + ci));
                        acc0[p] = _mm512_fmadd_ps(x, w0, acc0[p]);
                        acc1[p] = _mm512_fmadd_ps(x, w1, acc1[p]);
                    }
                }
            }
        }
    }
    for p in 0..P {
        // SAFETY: each row holds LANES floats.
        unsafe {
            _mm512_storeu_ps(out[0][p].as_mut_ptr(), acc0[p]);
            _mm512_storeu_ps(out[1][p].as_mut_ptr(), acc1[p]);
        }
    }
}

#[cfg(test)]
mod tests;
