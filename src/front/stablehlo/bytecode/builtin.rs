//! The builtin dialect's attribute and type encodings that StableHLO artifacts use:
//! locations (`location.rs`'s values, as the text parser reads them), strings, dictionaries, arrays, integers,
//! floats, units, symbol references, dense arrays and dense elements; integer, index,
//! float, complex, function, tuple and tensor types.
//! MLIR: `mlir/include/mlir/IR/BuiltinDialectBytecode.td` (the kind codes).

use std::rc::Rc;
use std::sync::Arc;

use super::attr_table::{A, Location, T, Tables};
use super::encoding::{BResult, Cursor};
use crate::front::stablehlo::location::FileLineCol;
use crate::ir::PrimitiveType;

/// Decodes a builtin attribute (after its dialect was chosen).
pub fn attr(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<A> {
    let at = c.offset();
    let code = c.varint("a builtin attribute code")?;
    Ok(match code {
        0 => A::Array(t.read_attrs(c, "an array element")?),
        1 => A::Dict(t.read_dictionary(c)?),
        2 => A::Str(t.read_string(c, "a string")?),
        3 => {
            let s = t.read_string(c, "a string")?;
            t.read_type(c, "a string's type")?;
            A::Str(s)
        }
        4 => A::Symbol(symbol_root(t, c)?),
        5 => {
            let mut name = symbol_root(t, c)?;
            let n = c.count("the number of nested references")?;
            for _ in 0..n {
                let at = c.offset();
                let nested = t.read_attr(c, "a nested reference")?;
                match &*nested {
                    A::Symbol(s) => name = s.clone(),
                    _ => return Err(Cursor::err_at(at, "expected a nested symbol reference")),
                }
            }
            A::Symbol(name)
        }
        6 => A::Type(t.read_type(c, "a type")?),
        7 => A::Unit,
        8 => {
            let ty = t.read_type(c, "an integer's type")?;
            let width = ty
                .bit_width()
                .ok_or_else(|| c.err("expected an integer attribute of an integer type"))?;
            let raw = c.apint(width, "an integer value")?;
            A::Int(ty.clone(), extend(raw, width, &ty))
        }
        9 => {
            let ty = t.read_type(c, "a float's type")?;
            let T::Float(p) = &*ty else {
                return Err(c.err("expected a float attribute of a float type"));
            };
            let raw = c.apint(p.bit_width() as u32, "a float value")?;
            A::Float(ty.clone(), float_from_bits(raw, *p))
        }
        10 => {
            let callee = t.read_loc(c, "a call site's callee")?;
            let caller = t.read_loc(c, "a call site's caller")?;
            A::Loc(Arc::new(Location::CallSite(callee, caller)))
        }
        11 => {
            let file = file_name(t, c)?;
            let line = position(c, "a line")?;
            let col = position(c, "a column")?;
            A::Loc(Arc::new(Location::FileLineCol(FileLineCol::point(
                file, line, col,
            ))))
        }
        12 | 13 => {
            let n = c.count("the number of fused locations")?;
            let mut locs = Vec::with_capacity(n);
            for _ in 0..n {
                locs.push(t.read_loc(c, "a fused location")?);
            }
            if code == 13 {
                t.read_attr(c, "fused location metadata")?;
            }
            A::Loc(Arc::new(Location::Fused(locs)))
        }
        14 => {
            let at = c.offset();
            let name = t.read_attr(c, "a location name")?;
            let A::Str(name) = &*name else {
                return Err(Cursor::err_at(
                    at,
                    "expected a location name to be a string",
                ));
            };
            let child = t.read_loc(c, "a named location's child")?;
            A::Loc(Arc::new(Location::Name(name.clone(), child)))
        }
        15 => A::Loc(Arc::new(Location::Unknown)),
        16 => {
            return Err(Cursor::err_at(
                at,
                "dense_resource attributes (blobs in the resource section) are not supported",
            )
            .unsupported());
        }
        17 => {
            let elem = t.read_type(c, "a dense array's element type")?;
            let n = c.varint("a dense array's size")?;
            let blob = c.blob("a dense array's data")?;
            A::DenseArray(elem.clone(), dense_array(&elem, n, blob, at)?)
        }
        18 => {
            let ty = t.read_type(c, "a dense elements type")?;
            let blob = c.blob("dense elements data")?;
            A::Tensor(ty, Rc::new(blob.to_vec()))
        }
        19 => {
            return Err(
                Cursor::err_at(at, "dense string attributes are not supported").unsupported(),
            );
        }
        20 => {
            return Err(
                Cursor::err_at(at, "sparse elements attributes are not supported").unsupported(),
            );
        }
        21 => return Err(Cursor::err_at(at, "distinct attributes are not supported").unsupported()),
        22 => {
            let file = file_name(t, c)?;
            let n = c.count("the number of line/column values")?;
            if n > 4 {
                return Err(Cursor::err_at(
                    at,
                    format!("expected at most 4 line/column values, found {n}"),
                ));
            }
            let mut v = [0u32; 4];
            for slot in v.iter_mut().take(n) {
                *slot = position(c, "a line or column")?;
            }
            // MLIR's `getFileLineColRange`: none, a line, a point, a range on one line
            // (line, column, end column), or line, column, end line, end column.
            let [line, col, third, fourth] = v;
            let (end_line, end_col) = match n {
                0..=2 => (line, col),
                3 => (line, third),
                _ => (third, fourth),
            };
            A::Loc(Arc::new(Location::FileLineCol(FileLineCol {
                file,
                line,
                col,
                end_line,
                end_col,
            })))
        }
        other => {
            return Err(Cursor::err_at(
                at,
                format!("unknown builtin attribute code {other}"),
            ));
        }
    })
}

/// A line or column: a varint that fits 32 bits.
fn position(c: &mut Cursor<'_>, what: &str) -> BResult<u32> {
    let at = c.offset();
    let v = c.varint(what)?;
    u32::try_from(v)
        .map_err(|_| Cursor::err_at(at, format!("expected {what} below 2^32, found {v}")))
}

fn symbol_root(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<String> {
    let at = c.offset();
    let a = t.read_attr(c, "a symbol name")?;
    match &*a {
        A::Str(s) => Ok(s.clone()),
        _ => Err(Cursor::err_at(at, "expected a symbol name to be a string")),
    }
}

fn file_name(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<String> {
    let at = c.offset();
    let a = t.read_attr(c, "a file name")?;
    match &*a {
        A::Str(s) => Ok(s.clone()),
        _ => Err(Cursor::err_at(at, "expected a file name to be a string")),
    }
}

/// Sign-extends `raw` (the low `width` bits) when the type is signed or signless.
pub fn extend(raw: u128, width: u32, ty: &T) -> i128 {
    let unsigned = matches!(ty, T::Int(_, Some(false)) | T::Bool) || width == 1;
    if unsigned || width == 0 || width >= 128 {
        return raw as i128;
    }
    let shift = 128 - width;
    ((raw << shift) as i128) >> shift
}

/// The value of a float given as its bit pattern.
pub fn float_from_bits(raw: u128, p: PrimitiveType) -> f64 {
    use crate::front::hlo_text::minifloat::MiniFloat;
    use PrimitiveType as P;
    match p {
        P::F64 => f64::from_bits(raw as u64),
        P::F32 => f32::from_bits(raw as u32) as f64,
        P::F16 => half::f16::from_bits(raw as u16).to_f64(),
        P::BF16 => half::bf16::from_bits(raw as u16).to_f64(),
        other => MiniFloat::of(other)
            .map(|m| m.decode(raw as u8))
            .unwrap_or(f64::NAN),
    }
}

/// The elements of a `DenseArrayAttr` (`size` elements of the element type, packed
/// little-endian; `i1` one byte each).
fn dense_array(elem: &T, n: u64, blob: &[u8], at: usize) -> BResult<Vec<i64>> {
    let width = elem.bit_width().unwrap_or(0);
    let size = match width {
        1 | 8 => 1,
        16 => 2,
        32 => 4,
        64 => 8,
        _ => {
            return Err(Cursor::err_at(
                at,
                format!("unsupported dense array element type {elem:?}"),
            )
            .unsupported());
        }
    };
    if n.checked_mul(size as u64) != Some(blob.len() as u64) {
        return Err(Cursor::err_at(
            at,
            format!(
                "a dense array of {n} elements of {size} bytes holds {} bytes",
                blob.len()
            ),
        ));
    }
    if matches!(elem, T::Float(_)) {
        return Err(Cursor::err_at(at, "float dense arrays are not supported").unsupported());
    }
    Ok(blob
        .chunks(size)
        .map(|ch| {
            let mut raw = 0u128;
            for (i, b) in ch.iter().enumerate() {
                raw |= (*b as u128) << (8 * i);
            }
            extend(raw, width, elem) as i64
        })
        .collect())
}

/// Decodes a builtin type.
pub fn ty(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<T> {
    let at = c.offset();
    let code = c.varint("a builtin type code")?;
    use PrimitiveType as P;
    Ok(match code {
        0 => {
            let v = c.varint("an integer type's width")?;
            let width = (v >> 2) as u32;
            if width == 0 || width > 128 {
                return Err(Cursor::err_at(
                    at,
                    format!("unsupported integer width {width}"),
                ));
            }
            // Signedness: 0 signless, 1 signed, 2 unsigned.
            let sign = match v & 3 {
                0 => None,
                1 => Some(true),
                2 => Some(false),
                _ => return Err(Cursor::err_at(at, "bad integer signedness 3")),
            };
            T::Int(width, sign)
        }
        1 => T::Index,
        2 => T::Function(
            t.read_types(c, "a function input")?,
            t.read_types(c, "a function result")?,
        ),
        3 => T::Float(P::BF16),
        4 => T::Float(P::F16),
        5 => T::Float(P::F32),
        6 => T::Float(P::F64),
        9 => T::Complex(t.read_type(c, "a complex element type")?),
        12 => T::None,
        13 | 14 => {
            let encoding = if code == 14 {
                Some(t.read_attr(c, "a tensor encoding")?)
            } else {
                None
            };
            let dims = c.svarints("a tensor dimension")?;
            let elem = t.read_type(c, "a tensor element type")?;
            T::Tensor(dims, elem, encoding)
        }
        15 => T::Tuple(t.read_types(c, "a tuple element")?),
        18 => T::Unranked(t.read_type(c, "a tensor element type")?),
        other => {
            return Err(Cursor::err_at(
                at,
                format!("unsupported builtin type code {other}"),
            ));
        }
    })
}
