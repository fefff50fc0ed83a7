//! Element types and shapes as `ShapeProto` (with layouts; a tiled layout suffix has no
//! proto form and is an error).
//!
//! XLA: `xla/xla_data.proto` (`PrimitiveType`, `ShapeProto`, `LayoutProto`).

use super::messages::*;
use super::{ProtoError, Result, index};
use crate::ir::{PrimitiveType, Shape};

/// XLA's `PrimitiveType` number of an element type.
pub fn primitive_type_number(t: PrimitiveType) -> i32 {
    use PrimitiveType::*;
    match t {
        Pred => 1,
        S1 => 30,
        S2 => 26,
        S4 => 21,
        S8 => 2,
        S16 => 3,
        S32 => 4,
        S64 => 5,
        U1 => 31,
        U2 => 27,
        U4 => 22,
        U8 => 6,
        U16 => 7,
        U32 => 8,
        U64 => 9,
        F16 => 10,
        F32 => 11,
        BF16 => 16,
        F64 => 12,
        F8E5M2 => 19,
        F8E4M3 => 28,
        F8E4M3FN => 20,
        F8E4M3B11FNUZ => 23,
        F8E3M4 => 29,
        F8E5M2FNUZ => 24,
        F8E4M3FNUZ => 25,
        F4E2M1FN => 32,
        F8E8M0FNU => 33,
        F6E3M2FN => 35,
        F6E2M3FN => 36,
        C64 => 15,
        C128 => 18,
    }
}

/// A shape with its layout (arrays only, as XLA's `Shape::FromProto` wants).
pub(super) fn shape(s: &Shape) -> Result<ShapeProto> {
    Ok(match s {
        Shape::Array(a) => {
            if let Some(extra) = &a.layout.extra {
                return Err(ProtoError::Unsupported {
                    instruction: String::from("(a shape)"),
                    opcode: "layout",
                    what: format!("the layout suffix ':{extra}' of {s}"),
                });
            }
            ShapeProto {
                element_type: primitive_type_number(a.element_type),
                dimensions: a.dims.clone(),
                tuple_shapes: Vec::new(),
                layout: Some(LayoutProto {
                    minor_to_major: index(&a.layout.minor_to_major),
                }),
                is_dynamic_dimension: if a.dynamic_dims.iter().any(|&d| d) {
                    a.dynamic_dims.clone()
                } else {
                    Vec::new()
                },
            }
        }
        Shape::Tuple(elements) => ShapeProto {
            element_type: primitive_type::TUPLE,
            tuple_shapes: elements.iter().map(shape).collect::<Result<_>>()?,
            ..ShapeProto::default()
        },
        Shape::Token => ShapeProto {
            element_type: primitive_type::TOKEN,
            ..ShapeProto::default()
        },
        Shape::Opaque => ShapeProto {
            element_type: primitive_type::OPAQUE_TYPE,
            ..ShapeProto::default()
        },
    })
}

pub(super) fn dims(d: &[usize]) -> Vec<i64> {
    index(d)
}
