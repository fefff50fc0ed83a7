//! VHLO types as the text parser's types (`tensor<2x3xf32>`, quantized and builtin element
//! types).

use super::{err, type_text};
use crate::front::stablehlo::bytecode::attr_table::T;
use crate::front::stablehlo::bytecode::encoding::BResult;
use crate::front::stablehlo::bytecode::ir::RawOp;
use crate::front::stablehlo::lexer::Cursor as TextCursor;
use crate::front::stablehlo::types;
use crate::front::stablehlo::types::{ElemType, QuantType, TensorType, Type};

/// A type as the text parser reads it.
pub(super) fn ty(t: &T, op: &RawOp) -> BResult<Type> {
    match t {
        T::Tensor(dims, elem, _) => {
            if dims.iter().any(|&d| d < 0) {
                return Err(err(op, "dynamic shapes are not supported").unsupported());
            }
            Ok(Type::Tensor(TensorType {
                dims: dims.clone(),
                elem: elem_ty(elem, op)?,
            }))
        }
        T::Token => Ok(Type::Token),
        T::Tuple(ts) => Ok(Type::Tuple(
            ts.iter().map(|t| ty(t, op)).collect::<BResult<_>>()?,
        )),
        T::Text(s) => {
            let mut c = TextCursor::new(s, "<bytecode>", 0);
            types::parse_type(&mut c).map_err(|e| err(op, format!("type '{s}': {}", e.message)))
        }
        T::Unranked(_) => Err(err(op, "unranked tensors are not supported").unsupported()),
        other => Err(err(op, format!("unsupported value type {}", type_text(other))).unsupported()),
    }
}

fn elem_ty(t: &T, op: &RawOp) -> BResult<ElemType> {
    if let T::Quant {
        flags,
        storage,
        expressed,
        axis,
        scales,
        zero_points,
        storage_min,
        storage_max,
        ..
    } = t
    {
        // Bit 0 of the flags says the storage is signed; the storage type is signless.
        let storage = match (&**storage, flags & 1) {
            (T::Int(w, _), 0) => T::Int(*w, Some(false)),
            (other, _) => other.clone(),
        };
        let (Some(s), Some(e)) = (storage.prim(), expressed.prim()) else {
            return Err(err(op, "bad quantized element type"));
        };
        return Ok(ElemType::Quant(Box::new(QuantType {
            storage: s,
            storage_min: *storage_min,
            storage_max: *storage_max,
            expressed: e,
            axis: axis.map(|a| a as usize),
            scales: scales.clone(),
            zero_points: zero_points.clone(),
        })));
    }
    t.prim()
        .map(ElemType::Prim)
        .ok_or_else(|| err(op, format!("unsupported element type {}", type_text(t))).unsupported())
}
