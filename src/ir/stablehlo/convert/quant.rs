//! Ops on quantized types (`!quant.uniform`), lowered to plain HLO on the storage integers.
//!
//! A quantized tensor becomes its storage tensor (`s8`, `s32`, ...). The lowering follows
//! the StableHLO spec's definitions:
//! - `uniform_quantize` (float to quantized):
//!   `convert(clamp(storage_min, round_nearest_even(x / scale + zero_point), storage_max))`,
//!   computed in the expressed type;
//! - `uniform_dequantize` (quantized to float): `(convert(q) - zero_point) * scale`;
//! - `uniform_quantize` from quantized to quantized (requantize): dequantize, then quantize;
//! - `bitcast_convert` to or from a quantized type: acts on the storage;
//! - every other op: dequantize the quantized operands, run the op in the expressed type,
//!   quantize the results ("dequantize, op, quantize", as the spec defines quantized
//!   element-wise ops, `dot_general` and `convolution`).
//!
//! Per-axis types (`!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>`) broadcast their scale and
//! zero point vectors along the quantized dimension.
//!
//! What it is not: an integer-only lowering (XLA's `convert-mhlo-quant-to-int` keeps the
//! arithmetic in integers); ops whose regions take quantized block arguments are refused.
//! StableHLO: `stablehlo/reference/Ops.cpp` (`uniformQuantizeOp`, `uniformDequantizeOp`,
//! `dequantizeOp`/`quantizeOp` around the float evaluation).

use super::{Converter, Val};
use crate::ir::hlo_text::ParseError;
use crate::ir::stablehlo::ast::{Operation, ValueRef};
use crate::ir::stablehlo::lexer::Loc;
use crate::ir::stablehlo::types::{ElemType, QuantType, TensorType, Type};
use crate::ir::{ArrayLiteral, InstrId, Literal, Op, Opcode, PrimitiveType, Shape};

impl<'a> Converter<'a> {
    /// Converts an op with a quantized operand or result.
    pub(crate) fn convert_quantized(&mut self, op: &Operation) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let short = op.name.strip_prefix("stablehlo.").unwrap_or(&op.name);
        match short {
            "uniform_quantize" => {
                let [v] = self.quant_operands::<1>(op)?;
                let rt = self.quant_result(op)?;
                let x = match v.ty.quant() {
                    Some(_) => self.dequantize(&v, loc)?,
                    None => v.id,
                };
                Ok(vec![self.quantize(x, &rt, loc)?])
            }
            "uniform_dequantize" => {
                let [v] = self.quant_operands::<1>(op)?;
                Ok(vec![self.dequantize(&v, loc)?])
            }
            "bitcast_convert" => {
                let [v] = self.quant_operands::<1>(op)?;
                let shape = self.result_shape(op, 0);
                if self.shape(v.id).compatible(&shape) {
                    // Same storage type: the bits are the storage.
                    return Ok(vec![v.id]);
                }
                Ok(vec![self.add(
                    shape,
                    Op::Plain(Opcode::BitcastConvert),
                    vec![v.id],
                    loc,
                )])
            }
            _ => self.convert_in_expressed(op),
        }
    }

    /// Dequantizes the quantized operands, converts `op` in the expressed type, and
    /// quantizes the results that have quantized types.
    fn convert_in_expressed(&mut self, op: &Operation) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        if !op.regions.is_empty() {
            return Err(self.err(
                loc,
                format!(
                    "'{}' with regions on quantized types is not supported",
                    op.name
                ),
            ));
        }
        let vals = self.operands(op)?;
        let mut new_op = op.clone();
        for (i, v) in vals.iter().enumerate() {
            let Some(q) = v.ty.quant() else { continue };
            let expressed = q.expressed;
            let f = self.dequantize(v, loc)?;
            self.counter += 1;
            let name = format!("__dequantized.{}", self.counter);
            let ty = with_elem(&v.ty, expressed);
            self.bind(
                &name,
                vec![Val {
                    id: f,
                    ty: ty.clone(),
                }],
            );
            new_op.operands[i] = ValueRef {
                name,
                index: 0,
                loc: op.operands[i].loc,
            };
            new_op.operand_types[i] = ty;
        }
        for t in &mut new_op.result_types {
            if let Some(q) = t.quant() {
                *t = with_elem(t, q.expressed);
            }
        }
        // Ops with regions never get here, so the region-free converters suffice.
        let Some(ids) = self.convert_basic(&new_op)? else {
            return Err(self.err(
                loc,
                format!("'{}' on quantized types is not supported", op.name),
            ));
        };
        let mut out = Vec::with_capacity(ids.len());
        for (id, t) in ids.into_iter().zip(&op.result_types) {
            match t.as_tensor() {
                Some(tt) if t.quant().is_some() => out.push(self.quantize(id, tt, loc)?),
                _ => out.push(id),
            }
        }
        Ok(out)
    }

    /// The operands of `op`, exactly `N` of them.
    fn quant_operands<const N: usize>(&mut self, op: &Operation) -> Result<[Val; N], ParseError> {
        let vals = self.operands(op)?;
        let n = vals.len();
        vals.try_into().map_err(|_| {
            self.err(
                op.loc,
                format!("'{}' takes {N} operand(s), got {n}", op.name),
            )
        })
    }

    /// The single result type of `op`, which must be a quantized tensor.
    fn quant_result(&self, op: &Operation) -> Result<TensorType, ParseError> {
        match op.result_types.as_slice() {
            [t] if t.quant().is_some() => Ok(t.as_tensor().cloned().unwrap_or(TensorType {
                dims: vec![],
                elem: ElemType::Prim(PrimitiveType::F32),
            })),
            _ => Err(self.err(
                op.loc,
                format!("'{}' must have one quantized tensor result", op.name),
            )),
        }
    }

    /// Scale and zero point of `q`, as tensors of the expressed type shaped `dims`
    /// (broadcast along the quantized dimension for per-axis types).
    fn quant_params(
        &mut self,
        q: &QuantType,
        dims: &[i64],
        loc: Loc,
    ) -> Result<(InstrId, InstrId), ParseError> {
        let n = q.scales.len();
        if n != q.zero_points.len() || n == 0 {
            return Err(self.err(loc, "a quantized type needs one zero point per scale"));
        }
        let (bdims, vdims) = match q.axis {
            None if n == 1 => (vec![], vec![]),
            Some(a) if a < dims.len() && (dims[a] == n as i64 || n == 1) => {
                (vec![a], vec![n as i64])
            }
            _ => {
                return Err(self.err(
                    loc,
                    format!(
                        "quantization parameters ({n} scales, axis {:?}) do not fit dimensions {dims:?}",
                        q.axis
                    ),
                ));
            }
        };
        let zps: Vec<f64> = q.zero_points.iter().map(|&z| z as f64).collect();
        let scale = self.expressed_const(&q.scales, &vdims, &bdims, q.expressed, dims, loc);
        let zp = self.expressed_const(&zps, &vdims, &bdims, q.expressed, dims, loc);
        Ok((scale, zp))
    }

    /// `values` (shaped `vdims`) converted to `ty` and broadcast to `dims` along `bdims`.
    fn expressed_const(
        &mut self,
        values: &[f64],
        vdims: &[i64],
        bdims: &[usize],
        ty: PrimitiveType,
        dims: &[i64],
        loc: Loc,
    ) -> InstrId {
        let mut values = values.to_vec();
        let vdims = if vdims.first().is_some_and(|&d| d as usize != values.len()) {
            // One parameter for a per-axis dimension of another size: repeat it.
            values = vec![values[0]; vdims[0] as usize];
            vdims.to_vec()
        } else {
            vdims.to_vec()
        };
        let literal: Literal = ArrayLiteral::from_vec(&vdims, values).into();
        let c = self.add(
            Shape::array(PrimitiveType::F64, &vdims),
            Op::Constant { literal },
            vec![],
            loc,
        );
        let c = self.add(
            Shape::array(ty, &vdims),
            Op::Plain(Opcode::Convert),
            vec![c],
            loc,
        );
        self.add(
            Shape::array(ty, dims),
            Op::Broadcast {
                dimensions: bdims.to_vec(),
            },
            vec![c],
            loc,
        )
    }

    /// A float value `x` quantized to the quantized tensor type `rt`: its storage.
    fn quantize(&mut self, x: InstrId, rt: &TensorType, loc: Loc) -> Result<InstrId, ParseError> {
        let ElemType::Quant(q) = &rt.elem else {
            return Err(self.err(loc, "internal: quantize to a non-quantized type"));
        };
        let dims = rt.dims.clone();
        let fshape = Shape::array(q.expressed, &dims);
        let x = match self.shape(x).element_type() {
            Some(t) if t == q.expressed => x,
            _ => self.add(fshape.clone(), Op::Plain(Opcode::Convert), vec![x], loc),
        };
        let (scale, zp) = self.quant_params(q, &dims, loc)?;
        let bin = |s: &mut Self, opc: Opcode, a: InstrId, b: InstrId| {
            s.add(fshape.clone(), Op::Plain(opc), vec![a, b], loc)
        };
        let div = bin(self, Opcode::Divide, x, scale);
        let shifted = bin(self, Opcode::Add, div, zp);
        let rounded = self.add(
            fshape.clone(),
            Op::Plain(Opcode::RoundNearestEven),
            vec![shifted],
            loc,
        );
        let lo = self.expressed_const(&[q.storage_min as f64], &[], &[], q.expressed, &dims, loc);
        let hi = self.expressed_const(&[q.storage_max as f64], &[], &[], q.expressed, &dims, loc);
        let clamped = self.add(
            fshape.clone(),
            Op::Plain(Opcode::Clamp),
            vec![lo, rounded, hi],
            loc,
        );
        Ok(self.add(
            Shape::array(q.storage, &dims),
            Op::Plain(Opcode::Convert),
            vec![clamped],
            loc,
        ))
    }

    /// The quantized value `v` as a tensor of its expressed type.
    fn dequantize(&mut self, v: &Val, loc: Loc) -> Result<InstrId, ParseError> {
        let (Some(q), Some(t)) = (v.ty.quant(), v.ty.as_tensor()) else {
            return Err(self.err(loc, format!("internal: dequantize of {}", v.ty)));
        };
        let q = q.clone();
        let dims = t.dims.clone();
        let fshape = Shape::array(q.expressed, &dims);
        let (scale, zp) = self.quant_params(&q, &dims, loc)?;
        let f = self.add(fshape.clone(), Op::Plain(Opcode::Convert), vec![v.id], loc);
        let sub = self.add(
            fshape.clone(),
            Op::Plain(Opcode::Subtract),
            vec![f, zp],
            loc,
        );
        Ok(self.add(fshape, Op::Plain(Opcode::Multiply), vec![sub, scale], loc))
    }
}

/// `t` with its element type replaced by `elem` (same dimensions).
fn with_elem(t: &Type, elem: PrimitiveType) -> Type {
    match t {
        Type::Tensor(tt) => Type::Tensor(TensorType {
            dims: tt.dims.clone(),
            elem: ElemType::Prim(elem),
        }),
        other => other.clone(),
    }
}
