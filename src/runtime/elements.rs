//! Element conversions for the library routines: a buffer of any real element type read
//! into `f32`/`f64` compute vectors (keeping the physical order), and written back with
//! XLA's conversions (round-to-nearest-even into f16/bf16, saturating float-to-integer).
//! Dot and convolution compute f16/bf16 in f32, as XLA:CPU does.

use half::{bf16, f16};

use crate::ir::PrimitiveType;

/// The accumulation types of the GEMM-backed routines.
pub trait Compute: Copy + Default + 'static + Send + Sync {
    /// The element type this is.
    const TYPE: PrimitiveType;
    /// From an f64 (exact for every type this is used with but u64/i64 extremes).
    fn from_f64(x: f64) -> Self;
    /// To an f64.
    fn to_f64(self) -> f64;
}

impl Compute for f32 {
    const TYPE: PrimitiveType = PrimitiveType::F32;
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Compute for f64 {
    const TYPE: PrimitiveType = PrimitiveType::F64;
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// True if [`load`] and [`store`] handle `ty` (the real types: pred, integers, floats
/// with a native Rust type).
pub fn convertible(ty: PrimitiveType) -> bool {
    use PrimitiveType::*;
    matches!(
        ty,
        Pred | S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64
    )
}

/// Reads `count` elements of type `ty` at `src` as `T`, in the same (physical) order.
///
/// # Safety
/// `src` must hold `count` elements of `ty`.
pub unsafe fn load<T: Compute>(src: *const u8, ty: PrimitiveType, count: usize) -> Vec<T> {
    use PrimitiveType::*;
    macro_rules! conv {
        ($t:ty, $f:expr) => {{
            // SAFETY: the caller guarantees `count` elements; unaligned reads are allowed.
            (0..count)
                .map(|i| {
                    let x: $t = unsafe { (src as *const $t).add(i).read_unaligned() };
                    T::from_f64($f(x))
                })
                .collect()
        }};
    }
    if ty == T::TYPE {
        let mut out = vec![T::default(); count];
        // SAFETY: same element type, `count` elements.
        unsafe {
            std::ptr::copy_nonoverlapping(src, out.as_mut_ptr() as *mut u8, count * size_of::<T>())
        };
        return out;
    }
    match ty {
        Pred => conv!(u8, |x: u8| (x != 0) as u8 as f64),
        S8 => conv!(i8, |x| x as f64),
        S16 => conv!(i16, |x| x as f64),
        S32 => conv!(i32, |x| x as f64),
        S64 => conv!(i64, |x| x as f64),
        U8 => conv!(u8, |x| x as f64),
        U16 => conv!(u16, |x| x as f64),
        U32 => conv!(u32, |x| x as f64),
        U64 => conv!(u64, |x| x as f64),
        F16 => conv!(f16, |x: f16| x.to_f64()),
        BF16 => conv!(bf16, |x: bf16| x.to_f64()),
        F32 => conv!(f32, |x| x as f64),
        F64 => conv!(f64, |x| x),
        _ => vec![T::default(); count],
    }
}

/// Writes `values` to `dst` as elements of type `ty` (same order). Float-to-integer
/// conversions saturate and map NaN to 0, as XLA's `convert` does.
///
/// # Safety
/// `dst` must have room for `values.len()` elements of `ty`.
pub unsafe fn store<T: Compute>(dst: *mut u8, ty: PrimitiveType, values: &[T]) {
    use PrimitiveType::*;
    macro_rules! conv {
        ($t:ty, $f:expr) => {{
            for (i, &v) in values.iter().enumerate() {
                let x: $t = $f(v.to_f64());
                // SAFETY: the caller guarantees room; unaligned writes are allowed.
                unsafe { (dst as *mut $t).add(i).write_unaligned(x) };
            }
        }};
    }
    if ty == T::TYPE {
        // SAFETY: same element type.
        unsafe {
            std::ptr::copy_nonoverlapping(
                values.as_ptr() as *const u8,
                dst,
                std::mem::size_of_val(values),
            )
        };
        return;
    }
    match ty {
        Pred => conv!(u8, |x: f64| (x != 0.0) as u8),
        S8 => conv!(i8, |x: f64| x as i8),
        S16 => conv!(i16, |x: f64| x as i16),
        S32 => conv!(i32, |x: f64| x as i32),
        S64 => conv!(i64, |x: f64| x as i64),
        U8 => conv!(u8, |x: f64| x as u8),
        U16 => conv!(u16, |x: f64| x as u16),
        U32 => conv!(u32, |x: f64| x as u32),
        U64 => conv!(u64, |x: f64| x as u64),
        // Round once, from the f32 (or f64) accumulator, like XLA's convert.
        F16 if T::TYPE == F32 => conv!(f16, |x: f64| f16::from_f32(x as f32)),
        BF16 if T::TYPE == F32 => conv!(bf16, |x: f64| bf16::from_f32(x as f32)),
        F16 => conv!(f16, f16::from_f64),
        BF16 => conv!(bf16, bf16::from_f64),
        F32 => conv!(f32, |x: f64| x as f32),
        F64 => conv!(f64, |x| x),
        _ => {}
    }
}
