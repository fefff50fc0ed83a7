//! Context-free attributes (the ones any op or function may carry: arrays, dictionaries,
//! dense elements, enums, Shardy's) as the text parser reads their printed form.

use super::{attr_text, ty, type_text};
use crate::front::stablehlo::attributes;
use crate::front::stablehlo::attributes::{Attr, DenseAttr};
use crate::front::stablehlo::bytecode::attr_table::{A, T};
use crate::front::stablehlo::bytecode::encoding::BResult;
use crate::front::stablehlo::bytecode::ir::{Props, RawOp};
use crate::front::stablehlo::bytecode::vhlo::enum_name;
use crate::front::stablehlo::dense::DenseValue;
use crate::front::stablehlo::lexer::Cursor as TextCursor;
use crate::front::stablehlo::types::{ElemType, TensorType, Type};

/// A context-free attribute, as the text parser reads its printed form.
pub fn generic(a: &A, at: usize) -> BResult<Attr> {
    Ok(match a {
        A::Array(items) => Attr::Array(
            items
                .iter()
                .map(|i| generic(i, at))
                .collect::<BResult<_>>()?,
        ),
        A::Dict(entries) => {
            let mut e = Vec::new();
            for (k, v) in entries {
                e.push((k.clone(), generic(v, at)?));
            }
            Attr::Dict(e, attr_text(a))
        }
        A::Str(s) => Attr::Str(s.clone()),
        A::Symbol(s) => Attr::Symbol(s.clone()),
        A::Type(t) => {
            let dummy = RawOp {
                name: "attribute".into(),
                loc: Default::default(),
                attrs: Vec::new(),
                props: Props::None,
                results: Vec::new(),
                operands: Vec::new(),
                regions: Vec::new(),
                offset: at,
            };
            match ty(t, &dummy) {
                Ok(t) => Attr::Type(t),
                Err(_) => Attr::Opaque(type_text(t)),
            }
        }
        A::Unit => Attr::Unit,
        A::Bool(b) => Attr::Bool(*b),
        A::Int(t, v) => {
            if t.bit_width() == Some(1) {
                Attr::Bool(*v != 0)
            } else {
                Attr::Int(*v)
            }
        }
        A::Float(_, v) => Attr::Float(*v),
        A::DenseArray(_, v) => Attr::Ints(v.clone()),
        A::Tensor(t, data) => {
            let dummy_ty = match &**t {
                T::Tensor(dims, elem, _) => {
                    let elem = match &**elem {
                        T::Quant { .. } => return Ok(Attr::Opaque(attr_text(a))),
                        e => e.prim().map(ElemType::Prim),
                    };
                    match elem {
                        Some(elem) if dims.iter().all(|&d| d >= 0) => Type::Tensor(TensorType {
                            dims: dims.clone(),
                            elem,
                        }),
                        _ => return Ok(Attr::Opaque(attr_text(a))),
                    }
                }
                _ => return Ok(Attr::Opaque(attr_text(a))),
            };
            Attr::Dense(Box::new(DenseAttr {
                value: DenseValue::Blob((**data).clone()),
                ty: dummy_ty,
            }))
        }
        A::Enum(k, v) => Attr::Enum(enum_name(*k, *v).unwrap_or("?").to_string()),
        A::TypeExtensions(b) => Attr::Struct(
            "stablehlo.type_extensions".into(),
            vec![(
                "bounds".into(),
                Attr::Array(b.iter().map(|&x| Attr::Int(x as i128)).collect()),
            )],
        ),
        A::OutputOperandAlias {
            output,
            operand,
            operand_tuple,
        } => {
            let list = |v: &[i64]| Attr::Array(v.iter().map(|&x| Attr::Int(x as i128)).collect());
            let mut f = Vec::new();
            if !output.is_empty() {
                f.push(("output_tuple_indices".into(), list(output)));
            }
            f.push(("operand_index".into(), Attr::Int(*operand as i128)));
            if !operand_tuple.is_empty() {
                f.push(("operand_tuple_indices".into(), list(operand_tuple)));
            }
            Attr::Struct("stablehlo.output_operand_alias".into(), f)
        }
        A::ResultAccuracy {
            atol,
            rtol,
            ulps,
            mode,
        } => Attr::Struct(
            "stablehlo.result_accuracy".into(),
            vec![
                ("atol".into(), Attr::Float(*atol)),
                ("rtol".into(), Attr::Float(*rtol)),
                ("ulps".into(), Attr::Int(*ulps as i128)),
                ("mode".into(), generic(mode, at)?),
            ],
        ),
        A::Loc(_) => Attr::Opaque("loc(...)".into()),
        A::Sdy(s) => Attr::Opaque(s.text()),
        A::Text(s) => {
            let mut c = TextCursor::new(s, "<bytecode>", 0);
            match attributes::parse_attr(&mut c) {
                Ok(a) if c.at_end() => a,
                _ => Attr::Opaque(s.clone()),
            }
        }
    })
}
