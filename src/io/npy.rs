//! One array in NumPy's `.npy` format, to and from an [`ArrayLiteral`].
//!
//! A `.npy` file is a magic string, a version, a Python-literal header such as
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (8, 16), }` and then the raw elements.
//! The format is specified in NumPy's `numpy/lib/format.py`.
//!
//! The element codec is `ndarray-npy`'s, except for `float16` (`<f2`), which `ndarray-npy`
//! does not know and which is decoded here. `ndarray-npy` does not expose the header, and we
//! must read the header before we know which Rust element type to ask for, so the header is
//! parsed here too (with `py_literal`, the crate `ndarray-npy` itself uses).
//!
//! Literals produced here are row-major; a Fortran-order file is reordered on reading.
//! Not handled: structured dtypes, strings, objects, and numpy's extension dtypes (such as
//! `ml_dtypes.bfloat16`, which numpy stores as opaque `<V2`: the error says to save such
//! arrays as float32, which binding converts to a bf16 parameter).

use std::io::{Cursor, Read};

use half::f16;
use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndarray_npy::{ReadNpyExt, ReadableElement, WritableElement, WriteNpyExt};
use num_complex::Complex;
use py_literal::Value;

use crate::ir::{ArrayData, ArrayLiteral, NativeType, PrimitiveType};

/// The first bytes of every `.npy` file.
pub const MAGIC: &[u8] = b"\x93NUMPY";

/// What the header of a `.npy` file says.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyHeader {
    /// The dtype string, such as `<f4` or `|b1`.
    pub descr: String,
    /// True if the elements are stored column-major.
    pub fortran_order: bool,
    /// The array dimensions.
    pub shape: Vec<usize>,
    /// Byte offset of the first element.
    pub data_offset: usize,
}

impl NpyHeader {
    /// The XLA element type of this dtype, if xlac can hold it.
    pub fn element_type(&self) -> Option<PrimitiveType> {
        element_type_of_descr(&self.descr)
    }
}

/// Maps a numpy dtype string (`<f4`, `|b1`, `>i8`) to an XLA element type.
pub fn element_type_of_descr(descr: &str) -> Option<PrimitiveType> {
    use PrimitiveType as P;
    // `<` little-endian, `>` big-endian, `|` not applicable (one byte), `=` native.
    let code = descr.strip_prefix(['<', '>', '|', '=']).unwrap_or(descr);
    Some(match code {
        "b1" => P::Pred,
        "i1" => P::S8,
        "i2" => P::S16,
        "i4" => P::S32,
        "i8" => P::S64,
        "u1" => P::U8,
        "u2" => P::U16,
        "u4" => P::U32,
        "u8" => P::U64,
        "f2" => P::F16,
        "f4" => P::F32,
        "f8" => P::F64,
        "c8" => P::C64,
        "c16" => P::C128,
        _ => return None,
    })
}

/// Parses the header of a `.npy` file held in `bytes`.
pub fn parse_header(bytes: &[u8]) -> Result<NpyHeader, String> {
    if !bytes.starts_with(MAGIC) {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let truncated = || "truncated .npy header".to_string();
    let major = *bytes.get(6).ok_or_else(truncated)?;
    // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4 bytes.
    let (len, start) = match major {
        1 => {
            let b = bytes.get(8..10).ok_or_else(truncated)?;
            (u16::from_le_bytes([b[0], b[1]]) as usize, 10)
        }
        2 | 3 => {
            let b = bytes.get(8..12).ok_or_else(truncated)?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let text = bytes.get(start..start + len).ok_or_else(truncated)?;
    let text = std::str::from_utf8(text).map_err(|_| "the .npy header is not text".to_string())?;
    let value: Value = text
        .trim_end()
        .parse()
        .map_err(|e| format!("bad .npy header: {e}"))?;
    let dict = value.as_dict().ok_or("bad .npy header: not a dictionary")?;
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, value) in dict {
        match key.as_string().map(String::as_str) {
            Some("descr") => {
                // Structured dtypes are lists of fields; they name no single element type.
                let d = value
                    .as_string()
                    .ok_or("structured dtypes are not supported")?;
                descr = Some(d.clone());
            }
            Some("fortran_order") => fortran_order = value.as_boolean(),
            Some("shape") => {
                let dims = value
                    .as_tuple()
                    .ok_or("bad .npy header: shape is not a tuple")?;
                let dims: Option<Vec<usize>> = dims
                    .iter()
                    .map(|d| d.as_integer().and_then(|i| usize::try_from(i).ok()))
                    .collect();
                shape = Some(dims.ok_or("bad .npy header: shape has a non-integer")?);
            }
            _ => {}
        }
    }
    match (descr, fortran_order, shape) {
        (Some(descr), Some(fortran_order), Some(shape)) => Ok(NpyHeader {
            descr,
            fortran_order,
            shape,
            data_offset: start + len,
        }),
        _ => Err("bad .npy header: needs 'descr', 'fortran_order' and 'shape'".into()),
    }
}

/// Decodes a whole `.npy` file into a row-major literal.
pub fn read_npy_bytes(bytes: &[u8]) -> Result<ArrayLiteral, String> {
    read_npy(Cursor::new(bytes), bytes.len() as u64)
}

/// Decodes a `.npy` file of `total` bytes from `reader` (an `.npz` entry) into a row-major
/// literal. The elements go straight from the reader into the literal's storage: an array
/// is never held twice (GPT-2's 147 MiB embedding table read from an `.npz` once was).
pub fn read_npy<R: Read>(mut reader: R, total: u64) -> Result<ArrayLiteral, String> {
    // The header: magic, version, its length (2 or 4 bytes), then its text.
    let mut head = Vec::with_capacity(10);
    let short = |e: std::io::Error| format!("truncated .npy header ({e})");
    reader
        .by_ref()
        .take(10)
        .read_to_end(&mut head)
        .map_err(short)?;
    if !head.starts_with(MAGIC) {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    if head.len() < 10 {
        return Err("truncated .npy header".into());
    }
    let len = match head[6] {
        1 => u16::from_le_bytes([head[8], head[9]]) as usize,
        2 | 3 => {
            let mut more = [0u8; 2];
            reader.read_exact(&mut more).map_err(short)?;
            head.extend_from_slice(&more);
            u32::from_le_bytes([head[8], head[9], more[0], more[1]]) as usize
        }
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    if len as u64 > total {
        return Err("truncated .npy header".into());
    }
    let start = head.len();
    head.resize(start + len, 0);
    reader.read_exact(&mut head[start..]).map_err(short)?;
    let header = parse_header(&head)?;
    let Some(ty) = header.element_type() else {
        // numpy writes an extension dtype it cannot name (ml_dtypes' bfloat16, jax's bf16
        // arrays) as opaque bytes: the file does not say what they are.
        if matches!(header.descr.as_str(), "<V2" | "|V2" | "V2") {
            return Err(format!(
                "unsupported dtype '{}' (numpy's opaque 2-byte type: how it saves \
                 bfloat16 arrays); save them as float32 (a.astype(np.float32)), \
                 which xlac converts to a bf16 parameter",
                header.descr
            ));
        }
        return Err(format!("unsupported dtype '{}'", header.descr));
    };
    let dims: Vec<i64> = header
        .shape
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| format!("dimension {d} is too large")))
        .collect::<Result<_, _>>()?;
    let count = header
        .shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or("the array shape is too large")?;
    // The header is checked against the payload before anything is decoded: a 200-byte
    // file may claim 10^12 elements, and the decoder would try to allocate them.
    let shape = crate::ir::ArrayShape::new(ty, &dims);
    crate::ir::size::check_array(&shape).map_err(|e| e.to_string())?;
    let need = count.checked_mul(ty.byte_size());
    let have = (total as usize).saturating_sub(header.data_offset);
    if need.is_none_or(|need| have < need) {
        return Err(format!(
            "the file holds {have} bytes of data, but its shape {} needs {}",
            crate::ir::Shape::Array(shape),
            need.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string())
        ));
    }
    use PrimitiveType as P;
    // The decoder reads the header again, then the elements from the rest of the stream.
    let mut r = Cursor::new(head).chain(reader);
    let data = match ty {
        P::Pred => ArrayData::Pred(decode::<bool>(&mut r)?),
        P::S8 => ArrayData::S8(decode::<i8>(&mut r)?),
        P::S16 => ArrayData::S16(decode::<i16>(&mut r)?),
        P::S32 => ArrayData::S32(decode::<i32>(&mut r)?),
        P::S64 => ArrayData::S64(decode::<i64>(&mut r)?),
        P::U8 => ArrayData::U8(decode::<u8>(&mut r)?),
        P::U16 => ArrayData::U16(decode::<u16>(&mut r)?),
        P::U32 => ArrayData::U32(decode::<u32>(&mut r)?),
        P::U64 => ArrayData::U64(decode::<u64>(&mut r)?),
        P::F32 => ArrayData::F32(decode::<f32>(&mut r)?),
        P::F64 => ArrayData::F64(decode::<f64>(&mut r)?),
        P::C64 => ArrayData::C64(decode::<Complex<f32>>(&mut r)?),
        P::C128 => ArrayData::C128(decode::<Complex<f64>>(&mut r)?),
        P::F16 => {
            let mut bytes = Vec::with_capacity(header.data_offset + count * 2);
            r.read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read the elements: {e}"))?;
            ArrayData::F16(decode_f16(&bytes, &header, count)?)
        }
        _ => return Err(format!("unsupported dtype '{}'", header.descr)),
    };
    if data.len() != count {
        return Err(format!(
            "the file holds {} elements, its shape says {count}",
            data.len()
        ));
    }
    let shape = crate::ir::ArrayShape::new(ty, &dims);
    Ok(ArrayLiteral { shape, data })
}

/// Decodes the elements with `ndarray-npy`, in logical (row-major) order whatever the
/// file's order: iterating an `ndarray` array always walks the logical order. A C-order
/// array's storage is already that order and is returned as it is (a model's parameters
/// are not held twice while they are read).
fn decode<T: ReadableElement + Copy>(reader: impl Read) -> Result<Vec<T>, String> {
    let array = ArrayD::<T>::read_npy(reader).map_err(|e| e.to_string())?;
    if !array.is_standard_layout() {
        return Ok(array.iter().copied().collect());
    }
    let len = array.len();
    match array.into_raw_vec_and_offset() {
        (data, None | Some(0)) if data.len() == len => Ok(data),
        _ => Err("the decoder's array does not hold exactly its elements in order".into()),
    }
}

/// Decodes `float16` elements, which `ndarray-npy` does not support.
fn decode_f16(bytes: &[u8], header: &NpyHeader, count: usize) -> Result<Vec<f16>, String> {
    let end = count
        .checked_mul(2)
        .and_then(|n| n.checked_add(header.data_offset));
    let payload = end
        .and_then(|end| bytes.get(header.data_offset..end))
        .ok_or("the file is shorter than its shape says")?;
    let big_endian = header.descr.starts_with('>');
    let values: Vec<f16> = payload
        .chunks_exact(2)
        .map(|b| {
            let bits = if big_endian {
                u16::from_be_bytes([b[0], b[1]])
            } else {
                u16::from_le_bytes([b[0], b[1]])
            };
            f16::from_bits(bits)
        })
        .collect();
    if !header.fortran_order {
        return Ok(values);
    }
    let array =
        ArrayD::from_shape_vec(IxDyn(&header.shape).f(), values).map_err(|e| e.to_string())?;
    Ok(array.iter().copied().collect())
}

/// Encodes a literal as a `.npy` file. `bf16` is widened to `float32` (numpy has no bf16);
/// `f16` is written as `float16`. Other non-numpy types (f8, s4, ...) are an error.
pub fn write_npy_bytes(literal: &ArrayLiteral) -> Result<Vec<u8>, String> {
    let literal = literal.to_row_major();
    let dims: Vec<usize> = literal
        .shape
        .dims
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    match &literal.data {
        ArrayData::Pred(v) => encode(&dims, v),
        ArrayData::S8(v) => encode(&dims, v),
        ArrayData::S16(v) => encode(&dims, v),
        ArrayData::S32(v) => encode(&dims, v),
        ArrayData::S64(v) => encode(&dims, v),
        ArrayData::U8(v) => encode(&dims, v),
        ArrayData::U16(v) => encode(&dims, v),
        ArrayData::U32(v) => encode(&dims, v),
        ArrayData::U64(v) => encode(&dims, v),
        ArrayData::F32(v) => encode(&dims, v),
        ArrayData::F64(v) => encode(&dims, v),
        ArrayData::C64(v) => encode(&dims, v),
        ArrayData::C128(v) => encode(&dims, v),
        ArrayData::BF16(v) => encode(&dims, &v.iter().map(|x| x.to_f32()).collect::<Vec<_>>()),
        ArrayData::F16(v) => Ok(encode_f16(&dims, v)),
        ArrayData::Raw(_) => Err(format!(
            "{} arrays cannot be written to .npy",
            literal.element_type()
        )),
    }
}

/// Encodes with `ndarray-npy`.
fn encode<T: WritableElement + NativeType>(
    dims: &[usize],
    values: &[T],
) -> Result<Vec<u8>, String> {
    let array = ArrayD::from_shape_vec(IxDyn(dims), values.to_vec()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    array.write_npy(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Encodes `float16` by hand: a version 1.0 header padded to a multiple of 64 bytes
/// (numpy's alignment) and little-endian elements.
fn encode_f16(dims: &[usize], values: &[f16]) -> Vec<u8> {
    let shape = match dims {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '<f2', 'fortran_order': False, 'shape': {shape}, }}");
    // magic (6) + version (2) + length (2) + header + '\n' must be a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 2 * values.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.npy` file in numpy's layout, header text and padding spelled out by hand (numpy
    /// itself also adds 21 spaces of room for the shape to grow; readers must not care).
    fn npy_file(descr: &str, fortran: bool, shape: &str, payload: &[u8]) -> Vec<u8> {
        let order = if fortran { "True" } else { "False" };
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// `np.save(f, np.array([[1, 2, 3], [4, 5, 6]], np.int32))`, optionally in Fortran order.
    fn numpy_i32_2x3(fortran: bool) -> Vec<u8> {
        // Row-major [[1,2,3],[4,5,6]] is 1 2 3 4 5 6; column-major is 1 4 2 5 3 6.
        let elems: [i32; 6] = if fortran {
            [1, 4, 2, 5, 3, 6]
        } else {
            [1, 2, 3, 4, 5, 6]
        };
        let payload: Vec<u8> = elems.iter().flat_map(|e| e.to_le_bytes()).collect();
        npy_file("<i4", fortran, "(2, 3)", &payload)
    }

    #[test]
    fn reads_c_and_fortran_order() {
        for fortran in [false, true] {
            let lit = read_npy_bytes(&numpy_i32_2x3(fortran)).unwrap();
            assert_eq!(lit.shape.dims, vec![2, 3]);
            assert_eq!(lit.element_type(), PrimitiveType::S32);
            assert_eq!(
                lit.values::<i32>().unwrap(),
                &[1, 2, 3, 4, 5, 6],
                "fortran={fortran}"
            );
        }
    }

    #[test]
    fn header_fields() {
        let h = parse_header(&numpy_i32_2x3(false)).unwrap();
        assert_eq!(h.descr, "<i4");
        assert_eq!(h.shape, vec![2, 3]);
        // 10 bytes of magic, version and length, then 61 header bytes and '\n', padded to 128.
        assert_eq!(h.data_offset, 128);
        assert!(!h.fortran_order);
    }

    #[test]
    fn f16_round_trip_and_layout() {
        let values: Vec<f16> = [1.0f32, -2.5, 0.0, 65504.0]
            .iter()
            .map(|&x| f16::from_f32(x))
            .collect();
        let lit = ArrayLiteral::from_vec(&[2, 2], values.clone());
        let bytes = write_npy_bytes(&lit).unwrap();
        assert_eq!(
            bytes.len(),
            128 + 8,
            "header padded to a multiple of 64 bytes, then 4 halves"
        );
        // 1.0 in binary16 is 0x3c00, stored little-endian.
        assert_eq!(&bytes[128..130], &[0x00, 0x3c]);
        let back = read_npy_bytes(&bytes).unwrap();
        assert_eq!(back, lit);
    }

    #[test]
    fn f16_fortran_and_big_endian() {
        // [[1, 2], [3, 4]] as float16: 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 4.0 = 0x4400.
        let col_major_le: Vec<u8> = [0x3c00u16, 0x4200, 0x4000, 0x4400]
            .iter()
            .flat_map(|b| b.to_le_bytes())
            .collect();
        let lit = read_npy_bytes(&npy_file("<f2", true, "(2, 2)", &col_major_le)).unwrap();
        let want: Vec<f16> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .map(|&x| f16::from_f32(x))
            .collect();
        assert_eq!(lit.values::<f16>().unwrap(), &want[..]);
        let row_major_be: Vec<u8> = [0x3c00u16, 0x4000, 0x4200, 0x4400]
            .iter()
            .flat_map(|b| b.to_be_bytes())
            .collect();
        let lit = read_npy_bytes(&npy_file(">f2", false, "(2, 2)", &row_major_be)).unwrap();
        assert_eq!(lit.values::<f16>().unwrap(), &want[..]);
    }

    #[test]
    fn bf16_is_written_as_f32() {
        let lit = ArrayLiteral::from_vec(
            &[2],
            vec![half::bf16::from_f32(1.5), half::bf16::from_f32(-3.0)],
        );
        let back = read_npy_bytes(&write_npy_bytes(&lit).unwrap()).unwrap();
        assert_eq!(back.element_type(), PrimitiveType::F32);
        assert_eq!(back.values::<f32>().unwrap(), &[1.5, -3.0]);
    }

    #[test]
    fn scalar_and_bool_round_trip() {
        let s = ArrayLiteral::scalar(7.25f64);
        assert_eq!(read_npy_bytes(&write_npy_bytes(&s).unwrap()).unwrap(), s);
        let b = ArrayLiteral::from_vec(&[3], vec![true, false, true]);
        assert_eq!(read_npy_bytes(&write_npy_bytes(&b).unwrap()).unwrap(), b);
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(read_npy_bytes(b"hello").is_err());
        assert!(read_npy_bytes(b"\x93NUMPY\x01").is_err());
        let mut short = numpy_i32_2x3(false);
        short.truncate(70);
        assert!(read_npy_bytes(&short).is_err());
        let bf16 = npy_file("<V2", false, "(2,)", &[0; 4]);
        assert!(
            read_npy_bytes(&bf16)
                .unwrap_err()
                .contains("save them as float32")
        );
        let unicode = npy_file("<U1", false, "(2,)", &[0; 8]);
        assert!(
            read_npy_bytes(&unicode)
                .unwrap_err()
                .contains("unsupported dtype '<U1'")
        );
    }
}
