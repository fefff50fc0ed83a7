//! Host data at the boundary: PJRT's element types and xlac's, checked sizes and ranks,
//! arrays from the framework's bytes (dense or strided) and the bytes of a literal.

use super::*;

/// The largest buffer accepted from the host, in bytes (allocation failures would abort
/// the process, so sizes are bounded and allocations fallible).
pub const MAX_BUFFER_BYTES: usize = 1 << 40;
/// The most dimensions a buffer may have.
pub const MAX_RANK: usize = 64;

/// `PJRT_Buffer_Type_TOKEN`.
pub const PJRT_BUFFER_TYPE_TOKEN: PJRT_Buffer_Type = 23;

/// The element types xlac stores, by `PJRT_Buffer_Type`.
pub fn element_type(t: PJRT_Buffer_Type) -> Result<PrimitiveType> {
    use PrimitiveType as P;
    Ok(match t {
        1 => P::Pred,
        2 => P::S8,
        3 => P::S16,
        4 => P::S32,
        5 => P::S64,
        6 => P::U8,
        7 => P::U16,
        8 => P::U32,
        9 => P::U64,
        10 => P::F16,
        11 => P::F32,
        12 => P::F64,
        13 => P::BF16,
        14 => P::C64,
        15 => P::C128,
        16 => P::F8E5M2,
        17 => P::F8E4M3FN,
        18 => P::F8E4M3B11FNUZ,
        19 => P::F8E5M2FNUZ,
        20 => P::F8E4M3FNUZ,
        21 => P::S4,
        22 => P::U4,
        PJRT_BUFFER_TYPE_TOKEN => {
            return Err(Error::invalid(
                "a token is not a buffer of data (PJRT_Buffer_Type_TOKEN)",
            ));
        }
        24 => P::S2,
        25 => P::U2,
        26 => P::F8E4M3,
        27 => P::F8E3M4,
        28 => P::F8E8M0FNU,
        29 => P::F4E2M1FN,
        30 => P::S1,
        31 => P::U1,
        _ => return Err(Error::invalid(format!("unknown PJRT_Buffer_Type {t}"))),
    })
}

/// The `PJRT_Buffer_Type` of an xlac element type.
pub fn buffer_type(t: PrimitiveType) -> Result<PJRT_Buffer_Type> {
    use PrimitiveType as P;
    Ok(match t {
        P::Pred => 1,
        P::S8 => 2,
        P::S16 => 3,
        P::S32 => 4,
        P::S64 => 5,
        P::U8 => 6,
        P::U16 => 7,
        P::U32 => 8,
        P::U64 => 9,
        P::F16 => 10,
        P::F32 => 11,
        P::F64 => 12,
        P::BF16 => 13,
        P::C64 => 14,
        P::C128 => 15,
        P::F8E5M2 => 16,
        P::F8E4M3FN => 17,
        P::F8E4M3B11FNUZ => 18,
        P::F8E5M2FNUZ => 19,
        P::F8E4M3FNUZ => 20,
        P::S4 => 21,
        P::U4 => 22,
        P::S2 => 24,
        P::U2 => 25,
        P::F8E4M3 => 26,
        P::F8E3M4 => 27,
        P::F8E8M0FNU => 28,
        P::F4E2M1FN => 29,
        P::S1 => 30,
        P::U1 => 31,
        other => {
            return Err(Error::unimplemented(format!(
                "xlac cannot hand out a buffer of type {}",
                other.name()
            )));
        }
    })
}

/// Checked element count and byte size of a shape.
pub fn checked_size(dims: &[i64], ty: PrimitiveType) -> Result<(usize, usize)> {
    if dims.len() > MAX_RANK {
        return Err(Error::invalid(format!(
            "a buffer of rank {}; at most {MAX_RANK} dimensions are accepted",
            dims.len()
        )));
    }
    let mut count: usize = 1;
    for &d in dims {
        let d = usize::try_from(d)
            .map_err(|_| Error::invalid(format!("negative dimension {d} in {dims:?}")))?;
        count = count
            .checked_mul(d)
            .ok_or_else(|| Error::invalid(format!("dimensions {dims:?} overflow")))?;
    }
    let bytes = count
        .checked_mul(ty.byte_size())
        .filter(|&b| b <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            Error::new(
                Code::ResourceExhausted,
                format!(
                    "a {} buffer {dims:?} is over the {MAX_BUFFER_BYTES}-byte limit",
                    ty.name()
                ),
            )
        })?;
    Ok((count, bytes))
}

fn typed_from_bytes<T: NativeType>(bytes: &[u8]) -> Result<ArrayData> {
    let n = bytes.len() / std::mem::size_of::<T>();
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        Error::new(
            Code::ResourceExhausted,
            format!("cannot allocate {} bytes", bytes.len()),
        )
    })?;
    // SAFETY: T is plain data with no invalid bit patterns (bool is handled apart), the
    // vector has room for `n` elements, and `bytes` holds exactly `n` of them.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            v.as_mut_ptr().cast::<u8>(),
            n * std::mem::size_of::<T>(),
        );
        v.set_len(n);
    }
    Ok(T::wrap(v))
}

/// Builds typed element storage from dense row-major bytes.
pub fn array_data_from_bytes(ty: PrimitiveType, bytes: &[u8]) -> Result<ArrayData> {
    use PrimitiveType as P;
    match ty {
        P::Pred => {
            let mut v = Vec::new();
            v.try_reserve_exact(bytes.len()).map_err(|_| {
                Error::new(
                    Code::ResourceExhausted,
                    format!("cannot allocate {} bytes", bytes.len()),
                )
            })?;
            v.extend(bytes.iter().map(|&b| b != 0));
            Ok(ArrayData::Pred(v))
        }
        P::S8 => typed_from_bytes::<i8>(bytes),
        P::S16 => typed_from_bytes::<i16>(bytes),
        P::S32 => typed_from_bytes::<i32>(bytes),
        P::S64 => typed_from_bytes::<i64>(bytes),
        P::U8 => typed_from_bytes::<u8>(bytes),
        P::U16 => typed_from_bytes::<u16>(bytes),
        P::U32 => typed_from_bytes::<u32>(bytes),
        P::U64 => typed_from_bytes::<u64>(bytes),
        P::F16 => typed_from_bytes::<f16>(bytes),
        P::BF16 => typed_from_bytes::<bf16>(bytes),
        P::F32 => typed_from_bytes::<f32>(bytes),
        P::F64 => typed_from_bytes::<f64>(bytes),
        P::C64 => typed_from_bytes::<Complex<f32>>(bytes),
        P::C128 => typed_from_bytes::<Complex<f64>>(bytes),
        // The narrow formats: one byte per element holding the bit pattern, as jax's host
        // arrays (ml_dtypes) hold them and xlac's literals store them.
        _ => {
            let mut v = Vec::new();
            v.try_reserve_exact(bytes.len()).map_err(|_| {
                Error::new(
                    Code::ResourceExhausted,
                    format!("cannot allocate {} bytes", bytes.len()),
                )
            })?;
            v.extend_from_slice(bytes);
            Ok(ArrayData::Raw(v))
        }
    }
}

/// The bytes of a literal's elements, in its storage order.
pub fn literal_bytes(a: &ArrayLiteral) -> &[u8] {
    xlac::runtime::buffers::literal_bytes(a)
}

/// Copies a strided host array (`byte_strides` per dimension, any sign of order) into dense
/// row-major bytes.
///
/// # Safety
/// Every element the strides reach from `data` must be readable.
pub(super) unsafe fn gather_strided(
    data: *const u8,
    dims: &[usize],
    strides: &[i64],
    element: usize,
    total: usize,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| {
        Error::new(
            Code::ResourceExhausted,
            format!("cannot allocate {total} bytes"),
        )
    })?;
    if total == 0 {
        return Ok(out);
    }
    let rank = dims.len();
    let mut index = vec![0usize; rank];
    loop {
        let offset: i64 = index.iter().zip(strides).map(|(&i, &s)| i as i64 * s).sum();
        // SAFETY: the caller guarantees the strided element is readable.
        let src = unsafe { std::slice::from_raw_parts(data.offset(offset as isize), element) };
        out.extend_from_slice(src);
        let mut k = rank;
        loop {
            if k == 0 {
                return Ok(out);
            }
            k -= 1;
            index[k] += 1;
            if index[k] < dims[k] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// Dense row-major byte strides of `dims`.
pub fn row_major_strides(dims: &[i64], element: usize) -> Vec<i64> {
    let mut strides = vec![0i64; dims.len()];
    let mut s = element as i64;
    for (i, &d) in dims.iter().enumerate().rev() {
        strides[i] = s;
        s = s.saturating_mul(d.max(1));
    }
    strides
}
