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
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::{Operation, ValueRef};
use crate::front::stablehlo::lexer::Loc;
use crate::front::stablehlo::types::{ElemType, QuantType, TensorType, Type};
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
            return Err(self
                .err(
                    loc,
                    format!(
                        "'{}' with regions on quantized types is not supported",
                        op.name
                    ),
                )
                .unsupported());
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
            return Err(self
                .err(
                    loc,
                    format!("'{}' on quantized types is not supported", op.name),
                )
                .unsupported());
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
            [Type::Tensor(t)] if matches!(t.elem, ElemType::Quant(_)) => Ok(t.clone()),
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

#[cfg(test)]
mod tests {
    //! Expected values are worked out by hand from the StableHLO spec's formulas.

    use crate::eval::{EvalOptions, evaluate};
    use crate::front::stablehlo::parse_chunk;
    use crate::ir::Literal;
    use crate::ir::verifier::verify;

    fn run(text: &str) -> Literal {
        let m = parse_chunk(text, "t.mlir", 0).unwrap_or_else(|e| panic!("{e}"));
        if let Err(errors) = verify(&m) {
            panic!(
                "verify: {:?}\n{m}",
                errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()
            );
        }
        evaluate(&m, &[], &EvalOptions::default()).unwrap_or_else(|e| panic!("{e}\n{m}"))
    }

    fn i8s(l: &Literal) -> Vec<i8> {
        l.as_array()
            .and_then(|a| a.values::<i8>())
            .map(<[i8]>::to_vec)
            .unwrap_or_default()
    }

    fn f32s(l: &Literal) -> Vec<f32> {
        l.as_array()
            .and_then(|a| a.values::<f32>())
            .map(<[f32]>::to_vec)
            .unwrap_or_default()
    }

    #[test]
    fn quantize_rounds_half_to_even_then_clamps() {
        // x / 0.5 + 1 = [1.5, 2.5, 201, -199, 3.5] -> even [2, 2, 201, -199, 4]
        // -> clamp to [-128, 127].
        let text = "func.func @main() -> tensor<5xi8> {
          %x = stablehlo.constant dense<[0.25, 0.75, 100.0, -100.0, 1.25]> : tensor<5xf32>
          %q = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 0.5:1>>
          %b = stablehlo.bitcast_convert %q : (tensor<5x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<5xi8>
          return %b : tensor<5xi8>
        }";
        assert_eq!(i8s(&run(text)), vec![2, 2, 127, -128, 4]);
    }

    #[test]
    fn quantize_clamps_to_a_narrowed_storage_range() {
        let text = "func.func @main() -> tensor<2xi8> {
          %x = stablehlo.constant dense<[-100.0, -200.0]> : tensor<2xf32>
          %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8<-127:127>:f32, 1.0>>
          %b = stablehlo.bitcast_convert %q : (tensor<2x!quant.uniform<i8<-127:127>:f32, 1.0>>) -> tensor<2xi8>
          return %b : tensor<2xi8>
        }";
        assert_eq!(i8s(&run(text)), vec![-100, -127]);
    }

    #[test]
    fn dequantize_per_axis() {
        // (10 - -30) * 0.1 = 4, (10 - -20) * 0.5 = 15.
        let text = "func.func @main() -> tensor<2xf32> {
          %s = stablehlo.constant dense<[10, 10]> : tensor<2xi8>
          %q = stablehlo.bitcast_convert %s : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
          %f = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xf32>
          return %f : tensor<2xf32>
        }";
        let got = f32s(&run(text));
        assert!(
            (got[0] - 4.0).abs() < 1e-5 && (got[1] - 15.0).abs() < 1e-5,
            "{got:?}"
        );
    }

    #[test]
    fn per_axis_quantize_broadcasts_along_the_axis() {
        // Axis 1 of a 2x2 tensor: column 0 uses 1.0:0, column 1 uses 2.0:10.
        // [[1, 4], [-3, 8]] -> [[1, 4/2+10], [-3, 8/2+10]] = [[1, 12], [-3, 14]].
        let text = "func.func @main() -> tensor<2x2xi8> {
          %x = stablehlo.constant dense<[[1.0, 4.0], [-3.0, 8.0]]> : tensor<2x2xf32>
          %q = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {1.0:0,2.0:10}>>
          %b = stablehlo.bitcast_convert %q : (tensor<2x2x!quant.uniform<i8:f32:1, {1.0:0,2.0:10}>>) -> tensor<2x2xi8>
          return %b : tensor<2x2xi8>
        }";
        assert_eq!(i8s(&run(text)), vec![1, 12, -3, 14]);
    }

    #[test]
    fn requantize_goes_through_the_expressed_value() {
        // Values 4 and 15 (see dequantize_per_axis) -> 4 / 0.1 - 20 = 20, 15 / 0.2 - 30 = 45.
        let text = "func.func @main() -> tensor<2xi8> {
          %s = stablehlo.constant dense<[10, 10]> : tensor<2xi8>
          %q = stablehlo.bitcast_convert %s : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
          %r = stablehlo.uniform_quantize %q : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>
          %b = stablehlo.bitcast_convert %r : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>>) -> tensor<2xi8>
          return %b : tensor<2xi8>
        }";
        assert_eq!(i8s(&run(text)), vec![20, 45]);
    }

    #[test]
    fn add_dequantizes_adds_and_quantizes() {
        // Operands hold [1, 2] and [3, 4]; the sum [4, 6] at 0.5:-20 is [-12, -8].
        let text = "func.func @main() -> tensor<2xi8> {
          %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
          %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
          %qa = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
          %qb = stablehlo.uniform_quantize %b : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
          %s = stablehlo.add %qa, %qb : (tensor<2x!quant.uniform<i8:f32, 0.1:-30>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
          %r = stablehlo.bitcast_convert %s : (tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2xi8>
          return %r : tensor<2xi8>
        }";
        assert_eq!(i8s(&run(text)), vec![-12, -8]);
    }

    #[test]
    fn ops_with_regions_on_quantized_values_are_refused() {
        let text = "func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>> {
          %r = \"stablehlo.sort\"(%x) ({
          ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5>>, %b: tensor<!quant.uniform<i8:f32, 0.5>>):
            %c = stablehlo.compare LT, %a, %b : (tensor<!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<i1>
            stablehlo.return %c : tensor<i1>
          }) {dimension = 0 : i64} : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
          return %r : tensor<2x!quant.uniform<i8:f32, 0.5>>
        }";
        let err = parse_chunk(text, "t.mlir", 0)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("not supported"), "{err}");
    }
}
