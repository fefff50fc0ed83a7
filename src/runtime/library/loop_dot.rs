//! `dot`s the GEMM path does not take, as a native loop: every output element is the sum
//! over the contracting indices (row-major over the listed contracting dimensions, from 0)
//! of `lhs * rhs`. Two element families:
//!
//! * **integer results**, with XLA's integer semantics: operands converted to the result
//!   type, products and sums wrapping in two's complement, the result the low bits.
//!   Computed in `i64` with wrapping arithmetic and truncated once at the store: sums and
//!   products modulo 2^64 reduce to the same low bits as the same operations modulo 2^w,
//!   so neither the operands' extension nor the summation order changes the answer (it
//!   equals the interpreter's exactly).
//! * **complex** `c64`/`c128` results, each operand of the result's type or of its real
//!   part's (`f32` for `c64`, `f64` for `c128`; a real operand is converted to complex with
//!   a zero imaginary part, as the interpreter converts it): summed in that type in the
//!   interpreter's order, with `num_complex`'s product, so results agree to the bit.
//!
//! Operands and result are read and written through their physical layouts.
//! XLA: `xla/backends/cpu/runtime/dot_thunk.cc` (integer dots go to Eigen's contraction);
//! semantics of `HandleDotSlowPath` in `xla/hlo/evaluator/hlo_evaluator_typed_visitor.h`.

use super::{for_each_index, offset};
use crate::ir::{DotDimensionNumbers, PrimitiveType};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// A `dot` on buffers, computed by the loop (integer or complex).
#[derive(Clone, Debug)]
pub struct LoopDotThunk {
    /// The dot instruction.
    pub name: String,
    /// Left operand (integer or pred; or complex).
    pub lhs: BufferRef,
    /// Right operand (integer or pred; or complex).
    pub rhs: BufferRef,
    /// Result (`s8`..`s64`, `u8`..`u64`; or the operands' complex type).
    pub out: BufferRef,
    /// Batch and contracting dimensions.
    pub dimension_numbers: DotDimensionNumbers,
}

/// True for element types this routine reads (operands) ...
pub fn integer_operand(t: PrimitiveType) -> bool {
    t == PrimitiveType::Pred || integer_result(t)
}

/// ... and writes (results).
pub fn integer_result(t: PrimitiveType) -> bool {
    use PrimitiveType as P;
    matches!(
        t,
        P::S8 | P::S16 | P::S32 | P::S64 | P::U8 | P::U16 | P::U32 | P::U64
    )
}

/// Element `e` of an integer (or pred) buffer as `i64` bits.
///
/// # Safety
/// `base` must hold an element of type `t` at element offset `e`.
unsafe fn load(base: *const u8, t: PrimitiveType, e: usize) -> i64 {
    use PrimitiveType as P;
    // SAFETY: the caller guarantees the element exists.
    unsafe {
        let p = base.add(e * t.byte_size());
        match t {
            P::S8 => i64::from(p.cast::<i8>().read_unaligned()),
            P::S16 => i64::from(p.cast::<i16>().read_unaligned()),
            P::S32 => i64::from(p.cast::<i32>().read_unaligned()),
            P::U16 => i64::from(p.cast::<u16>().read_unaligned()),
            P::U32 => i64::from(p.cast::<u32>().read_unaligned()),
            P::S64 | P::U64 => p.cast::<i64>().read_unaligned(),
            // pred and u8: one byte, zero-extended.
            _ => i64::from(p.read_unaligned()),
        }
    }
}

/// Stores the low bits of `v` as element `e` of a `t` buffer.
///
/// # Safety
/// `base` must hold an element of type `t` at element offset `e`.
unsafe fn store(base: *mut u8, t: PrimitiveType, e: usize, v: i64) {
    // SAFETY: the caller guarantees the element exists.
    unsafe {
        let p = base.add(e * t.byte_size());
        match t.byte_size() {
            1 => p.write_unaligned(v as u8),
            2 => p.cast::<u16>().write_unaligned(v as u16),
            4 => p.cast::<u32>().write_unaligned(v as u32),
            _ => p.cast::<i64>().write_unaligned(v),
        }
    }
}

/// True when the loop computes a dot of these element types.
pub fn supported(lhs: PrimitiveType, rhs: PrimitiveType, out: PrimitiveType) -> bool {
    (integer_result(out) && integer_operand(lhs) && integer_operand(rhs))
        || (complex_operand(lhs, out) && complex_operand(rhs, out))
}

/// True when a complex result `out` can read an operand of type `t`: the result's own
/// type, or its real part's type (a mixed real/complex dot, whose real operand converts to
/// complex with a zero imaginary part, as the interpreter converts it).
fn complex_operand(t: PrimitiveType, out: PrimitiveType) -> bool {
    use PrimitiveType as P;
    matches!(
        (out, t),
        (P::C64, P::C64 | P::F32) | (P::C128, P::C128 | P::F64)
    )
}

/// How the loop reads, accumulates and writes one element family.
pub(super) trait Accumulator: Copy + Send + Sync {
    fn zero() -> Self;
    /// `self + a * b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// # Safety
    /// `base` holds an element of type `t` at element offset `e`.
    unsafe fn load(base: *const u8, t: PrimitiveType, e: usize) -> Self;
    /// # Safety
    /// As `load`, writable.
    unsafe fn store(self, base: *mut u8, t: PrimitiveType, e: usize);
}

impl Accumulator for i64 {
    fn zero() -> Self {
        0
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
    unsafe fn load(base: *const u8, t: PrimitiveType, e: usize) -> Self {
        // SAFETY: forwarded.
        unsafe { load(base, t, e) }
    }
    unsafe fn store(self, base: *mut u8, t: PrimitiveType, e: usize) {
        // SAFETY: forwarded.
        unsafe { store(base, t, e, self) }
    }
}

macro_rules! complex_accumulator {
    ($t:ty) => {
        impl Accumulator for num_complex::Complex<$t> {
            fn zero() -> Self {
                num_complex::Complex::new(0.0, 0.0)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                self + a * b
            }
            unsafe fn load(base: *const u8, t: PrimitiveType, e: usize) -> Self {
                // SAFETY: the caller guarantees the element (re, im), or the real
                // operand's element, exists.
                unsafe {
                    if t.is_complex() {
                        base.cast::<Self>().add(e).read_unaligned()
                    } else {
                        num_complex::Complex::new(base.cast::<$t>().add(e).read_unaligned(), 0.0)
                    }
                }
            }
            unsafe fn store(self, base: *mut u8, _: PrimitiveType, e: usize) {
                // SAFETY: as above.
                unsafe { base.cast::<Self>().add(e).write_unaligned(self) }
            }
        }
    };
}
complex_accumulator!(f32);
complex_accumulator!(f64);

/// Runs a loop dot.
pub fn run(t: &LoopDotThunk, memory: &Memory) -> Result<(), RuntimeError> {
    match t.out.shape.element_type {
        PrimitiveType::C64 => run_typed::<num_complex::Complex<f32>>(t, memory),
        PrimitiveType::C128 => run_typed::<num_complex::Complex<f64>>(t, memory),
        _ => run_typed::<i64>(t, memory),
    }
}

fn run_typed<A: Accumulator>(t: &LoopDotThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let fail = |m: &str| RuntimeError::new(format!("{}: {m}", t.name));
    let dn = &t.dimension_numbers;
    let dims =
        |b: &BufferRef| -> Vec<usize> { b.shape.dims.iter().map(|&d| d.max(0) as usize).collect() };
    let (ld, rd, od) = (dims(&t.lhs), dims(&t.rhs), dims(&t.out));
    let (lb, lc, rb, rc) = (
        &dn.lhs_batch_dimensions,
        &dn.lhs_contracting_dimensions,
        &dn.rhs_batch_dimensions,
        &dn.rhs_contracting_dimensions,
    );
    let ok = |v: &[usize], rank: usize| v.iter().all(|&d| d < rank);
    if !ok(lb, ld.len()) || !ok(lc, ld.len()) || !ok(rb, rd.len()) || !ok(rc, rd.len()) {
        return Err(fail("dot dimension numbers are out of range"));
    }
    let pairs = |a: &[usize], b: &[usize]| {
        a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| ld[x] == rd[y])
    };
    if !pairs(lb, rb) || !pairs(lc, rc) {
        return Err(fail("dot batch or contracting dimensions do not match"));
    }
    let free = |rank: usize, b: &[usize], c: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|d| !b.contains(d) && !c.contains(d))
            .collect()
    };
    let (lf, rf) = (free(ld.len(), lb, lc), free(rd.len(), rb, rc));
    let expected: Vec<usize> = lb
        .iter()
        .map(|&d| ld[d])
        .chain(lf.iter().map(|&d| ld[d]))
        .chain(rf.iter().map(|&d| rd[d]))
        .collect();
    if od != expected {
        return Err(fail("dot result dims do not match its operands"));
    }
    let (ls, rs, os) = (
        t.lhs.shape.physical_strides(),
        t.rhs.shape.physical_strides(),
        t.out.shape.physical_strides(),
    );
    // (lhs offset, rhs offset) of every contracting position, row-major over lc.
    let csizes: Vec<usize> = lc.iter().map(|&d| ld[d]).collect();
    let mut contracting = Vec::new();
    for_each_index(&csizes, None, &mut |c| {
        let l: usize = lc.iter().zip(c).map(|(&d, &i)| i * ls[d]).sum();
        let r: usize = rc.iter().zip(c).map(|(&d, &i)| i * rs[d]).sum();
        contracting.push((l, r));
    });
    let (lt, rt, ot) = (
        t.lhs.shape.element_type,
        t.rhs.shape.element_type,
        t.out.shape.element_type,
    );
    let (lp, rp, op) = (
        memory.ptr(t.lhs.slice) as *const u8,
        memory.ptr(t.rhs.slice) as *const u8,
        memory.ptr(t.out.slice),
    );
    let (nb, nf) = (lb.len(), lf.len());
    let mut li = vec![0usize; ld.len()];
    let mut ri = vec![0usize; rd.len()];
    for_each_index(&od, None, &mut |o| {
        for (k, (&l, &r)) in lb.iter().zip(rb).enumerate() {
            li[l] = o[k];
            ri[r] = o[k];
        }
        for (k, &l) in lf.iter().enumerate() {
            li[l] = o[nb + k];
        }
        for (k, &r) in rf.iter().enumerate() {
            ri[r] = o[nb + nf + k];
        }
        for &c in lc {
            li[c] = 0;
        }
        for &c in rc {
            ri[c] = 0;
        }
        let (l0, r0) = (offset(&li, &ls), offset(&ri, &rs));
        let mut acc = A::zero();
        for &(l, r) in &contracting {
            // SAFETY: base plus contracting offsets index elements inside both operands.
            let (a, b) = unsafe { (A::load(lp, lt, l0 + l), A::load(rp, rt, r0 + r)) };
            acc = acc.mul_add(a, b);
        }
        // SAFETY: `o` is an index of the result.
        unsafe { acc.store(op, ot, offset(o, &os)) };
    });
    Ok(())
}
