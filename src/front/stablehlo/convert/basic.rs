//! Ops without regions: element-wise arithmetic, constants, iota, broadcast, reshape,
//! slicing, padding, concatenation, gather, dot, convolution, fft, rng, linear algebra.
//! XLA: `mlir_hlo_to_hlo.cc` (`ExportXlaOp` for each op), `xla/hlo/builder/xla_builder.cc`.

use super::Converter;
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::Operation;
use crate::front::stablehlo::attributes::Attr;
use crate::front::stablehlo::dense::to_literal;
use crate::ir::{
    DotDimensionNumbers, FftType, InstrId, Op, Opcode, PaddingDimension, RandomAlgorithm,
    RandomDistribution, Shape, SliceDimension, TriangularSolveOptions, TriangularTranspose,
};

/// StableHLO ops that are one HLO opcode without attributes.
fn plain_opcode(name: &str) -> Option<Opcode> {
    use Opcode::*;
    Some(match name {
        "abs" => Abs,
        "add" => Add,
        "and" => And,
        "atan2" => Atan2,
        "cbrt" => Cbrt,
        "ceil" => Ceil,
        "clamp" => Clamp,
        "complex" => Complex,
        "convert" => Convert,
        "cosine" => Cos,
        "count_leading_zeros" => Clz,
        "divide" => Divide,
        "exponential" => Exp,
        "exponential_minus_one" => Expm1,
        "floor" => Floor,
        "imag" => Imag,
        "is_finite" => IsFinite,
        "log" => Log,
        "log_plus_one" => Log1p,
        "logistic" => Logistic,
        "maximum" => Maximum,
        "minimum" => Minimum,
        "multiply" => Multiply,
        "negate" => Negate,
        "not" => Not,
        "or" => Or,
        "popcnt" => PopulationCount,
        "power" => Power,
        "real" => Real,
        "remainder" => Remainder,
        "round_nearest_afz" => RoundNearestAfz,
        "round_nearest_even" => RoundNearestEven,
        "rsqrt" => Rsqrt,
        "select" => Select,
        "shift_left" => ShiftLeft,
        "shift_right_arithmetic" => ShiftRightArithmetic,
        "shift_right_logical" => ShiftRightLogical,
        "sign" => Sign,
        "sine" => Sin,
        "sqrt" => Sqrt,
        "subtract" => Subtract,
        "tan" => Tan,
        "tanh" => Tanh,
        "xor" => Xor,
        "bitcast_convert" => BitcastConvert,
        "reshape" | "dynamic_reshape" => Reshape,
        "dynamic_update_slice" => DynamicUpdateSlice,
        "replica_id" => ReplicaId,
        "partition_id" => PartitionId,
        "after_all" => AfterAll,
        // The deprecated spelling of `after_all()` that `jax.lax.create_token` still emits.
        "create_token" => AfterAll,
        _ => return None,
    })
}

impl<'a> Converter<'a> {
    /// Converts the ops of this file; `None` if `op` is not one of them.
    pub(crate) fn convert_basic(
        &mut self,
        op: &Operation,
    ) -> Result<Option<Vec<InstrId>>, ParseError> {
        let Some(short) = op.name.strip_prefix("stablehlo.") else {
            return Ok(None);
        };
        let loc = op.loc;
        if let Some(opcode) = plain_opcode(short) {
            let mut args: Vec<InstrId> = self.operands(op)?.iter().map(|v| v.id).collect();
            if short == "dynamic_reshape" {
                args.truncate(1);
            }
            if short == "select"
                && args.len() == 3
                && self.shape(args[0]).rank() == 0
                && self.shape(args[1]).rank() > 0
            {
                // HLO's select needs a predicate of the result's dimensions.
                let dims = self.shape(args[1]).dims().to_vec();
                let pred = Shape::array(crate::ir::PrimitiveType::Pred, &dims);
                args[0] = self.add(
                    pred,
                    Op::Broadcast { dimensions: vec![] },
                    vec![args[0]],
                    loc,
                );
            }
            let id = self.add(self.result_shape(op, 0), Op::Plain(opcode), args, loc);
            return Ok(Some(vec![id]));
        }
        let args: Vec<InstrId> = match short {
            // Ops whose operands are converted below in their own way.
            "constant" | "iota" => Vec::new(),
            _ => self.operands(op)?.iter().map(|v| v.id).collect(),
        };
        let shape = self.result_shape(op, 0);
        let op1 =
            |s: &mut Self, o: Op, a: Vec<InstrId>| -> Result<Option<Vec<InstrId>>, ParseError> {
                Ok(Some(vec![s.add(shape.clone(), o, a, loc)]))
            };
        match short {
            "constant" => {
                let Some(Attr::Dense(d)) = op.attr("value") else {
                    return Err(self.err(loc, "stablehlo.constant needs a dense<...> value"));
                };
                if !d.ty.to_shape().compatible(&shape) {
                    return Err(self.err(
                        loc,
                        format!(
                            "type mismatch: the literal has type {} but the constant is {}",
                            d.ty, op.result_types[0]
                        ),
                    ));
                }
                let literal = to_literal(&d.value, &d.ty).map_err(|e| self.refused(loc, e))?;
                op1(self, Op::Constant { literal }, vec![])
            }
            "iota" | "dynamic_iota" => {
                let d = self.int_attr(op, "iota_dimension")?;
                let dimension = self.dims(op, vec![d], "iota_dimension")?[0];
                op1(self, Op::Iota { dimension }, vec![])
            }
            "broadcast_in_dim" | "dynamic_broadcast_in_dim" => {
                let dims = self.dims_attr(op, "broadcast_dimensions")?;
                let id = self.broadcast_in_dim(op, args[0], dims)?;
                Ok(Some(vec![id]))
            }
            "broadcast" => {
                // `broadcast_sizes` prepends dimensions.
                let sizes = self.ints_attr(op, "broadcast_sizes")?;
                let rank = self.shape(args[0]).rank();
                let dimensions = (sizes.len()..sizes.len() + rank).collect();
                op1(self, Op::Broadcast { dimensions }, vec![args[0]])
            }
            "transpose" => {
                let dimensions = self.dims_attr(op, "permutation")?;
                op1(self, Op::Transpose { dimensions }, args)
            }
            "reverse" => {
                let dimensions = self.dims_attr(op, "dimensions")?;
                op1(self, Op::Reverse { dimensions }, args)
            }
            "concatenate" => {
                let d = self.int_attr(op, "dimension")?;
                let dimension = self.dims(op, vec![d], "dimension")?[0];
                op1(self, Op::Concatenate { dimension }, args)
            }
            "slice" => {
                let start = self.ints_attr(op, "start_indices")?;
                let limit = self.ints_attr(op, "limit_indices")?;
                let strides = self
                    .opt_ints(op, "strides")?
                    .unwrap_or_else(|| vec![1; start.len()]);
                if start.len() != limit.len() || start.len() != strides.len() {
                    return Err(
                        self.err(loc, "slice start, limit and stride lists differ in length")
                    );
                }
                let slice = (0..start.len())
                    .map(|i| SliceDimension {
                        start: start[i],
                        limit: limit[i],
                        stride: strides[i],
                    })
                    .collect();
                op1(self, Op::Slice { slice }, args)
            }
            "dynamic_slice" => {
                let sizes = self.ints_attr(op, "slice_sizes")?;
                op1(self, Op::DynamicSlice { sizes }, args)
            }
            "pad" => {
                let low = self.ints_attr(op, "edge_padding_low")?;
                let high = self.ints_attr(op, "edge_padding_high")?;
                let interior = self.ints_attr(op, "interior_padding")?;
                op1(
                    self,
                    Op::Pad {
                        padding: padding(&low, &high, &interior),
                    },
                    args,
                )
            }
            "dynamic_pad" => {
                let low = self.constant_ints(op, args[2])?;
                let high = self.constant_ints(op, args[3])?;
                let interior = self.constant_ints(op, args[4])?;
                op1(
                    self,
                    Op::Pad {
                        padding: padding(&low, &high, &interior),
                    },
                    args[..2].to_vec(),
                )
            }
            "compare" => {
                let (direction, comparison_type) = self.comparison(op)?;
                op1(
                    self,
                    Op::Compare {
                        direction,
                        comparison_type,
                    },
                    args,
                )
            }
            "get_tuple_element" => {
                let index = self.int_attr(op, "index")?;
                let index = self.dims(op, vec![index], "index")?[0];
                op1(self, Op::GetTupleElement { index }, args)
            }
            "tuple" => op1(self, Op::Plain(Opcode::Tuple), args),
            "optimization_barrier" => {
                let t = self.tuple(&args, loc);
                let shape = self.shape(t).clone();
                let b = self.add(shape, Op::Plain(Opcode::OptimizationBarrier), vec![t], loc);
                Ok(Some(self.unpack(b, args.len(), loc)))
            }
            "reduce_precision" => {
                let e = self.int_attr(op, "exponent_bits")?;
                let m = self.int_attr(op, "mantissa_bits")?;
                let (Ok(exponent_bits), Ok(mantissa_bits)) = (u32::try_from(e), u32::try_from(m))
                else {
                    return Err(self.err(loc, "reduce_precision bit counts must be non-negative"));
                };
                op1(
                    self,
                    Op::ReducePrecision {
                        exponent_bits,
                        mantissa_bits,
                    },
                    args,
                )
            }
            "get_dimension_size" => {
                let d = self.int_attr(op, "dimension")?;
                let dimension = self.dims(op, vec![d], "dimension")?[0];
                op1(
                    self,
                    Op::DimensionSize {
                        opcode: Opcode::GetDimensionSize,
                        dimension,
                    },
                    args,
                )
            }
            "dot_general" => {
                let dn = self.attr(op, "dot_dimension_numbers")?;
                let dimension_numbers = DotDimensionNumbers {
                    lhs_batch_dimensions: self.field_dims(op, dn, "lhs_batching_dimensions")?,
                    rhs_batch_dimensions: self.field_dims(op, dn, "rhs_batching_dimensions")?,
                    lhs_contracting_dimensions: self.field_dims(
                        op,
                        dn,
                        "lhs_contracting_dimensions",
                    )?,
                    rhs_contracting_dimensions: self.field_dims(
                        op,
                        dn,
                        "rhs_contracting_dimensions",
                    )?,
                };
                let precision = self.precision(op)?;
                let algorithm = op.attr("algorithm").map(dot_algorithm_name);
                op1(
                    self,
                    Op::Dot {
                        dimension_numbers,
                        precision,
                        algorithm,
                    },
                    args,
                )
            }
            "dot" => {
                let rank = self.shape(args[0]).rank();
                let dimension_numbers = DotDimensionNumbers {
                    lhs_contracting_dimensions: vec![rank.saturating_sub(1)],
                    rhs_contracting_dimensions: vec![0],
                    ..Default::default()
                };
                let precision = self.precision(op)?;
                op1(
                    self,
                    Op::Dot {
                        dimension_numbers,
                        precision,
                        algorithm: None,
                    },
                    args,
                )
            }
            "convolution" | "dynamic_conv" => self.convolution(op, args).map(Some),
            "gather" | "dynamic_gather" => {
                let dimension_numbers =
                    self.gather_dims(op, self.attr(op, "dimension_numbers")?)?;
                let slice_sizes = if short == "gather" {
                    self.ints_attr(op, "slice_sizes")?
                } else {
                    self.constant_ints(op, args[2])?
                };
                let indices_are_sorted = self.bool_attr(op, "indices_are_sorted")?;
                op1(
                    self,
                    Op::Gather {
                        dimension_numbers,
                        slice_sizes,
                        indices_are_sorted,
                    },
                    args[..2].to_vec(),
                )
            }
            "fft" => {
                let t = self.str_attr(op, "fft_type")?;
                let fft_type: FftType = t
                    .parse()
                    .map_err(|_| self.err(loc, format!("bad fft type '{t}'")))?;
                let fft_length = self.ints_attr(op, "fft_length")?;
                op1(
                    self,
                    Op::Fft {
                        fft_type,
                        fft_length,
                    },
                    args,
                )
            }
            "rng_bit_generator" => {
                let a = op
                    .attr("rng_algorithm")
                    .and_then(Attr::as_str)
                    .unwrap_or("DEFAULT");
                let algorithm = match a {
                    "DEFAULT" => RandomAlgorithm::Default,
                    "THREE_FRY" => RandomAlgorithm::ThreeFry,
                    "PHILOX" => RandomAlgorithm::Philox,
                    other => return Err(self.err(loc, format!("bad rng algorithm '{other}'"))),
                };
                let shape = self.results_tuple_shape(op);
                let id = self.add(shape, Op::RngBitGenerator { algorithm }, args, loc);
                Ok(Some(self.unpack(id, 2, loc)))
            }
            // `rng(a, b, shape)`: HLO's rng takes the static result shape from the result
            // type, so the shape operand (a constant of that shape) is dropped.
            "rng" => {
                let d = self.str_attr(op, "rng_distribution")?;
                let distribution = match d {
                    "UNIFORM" => RandomDistribution::Uniform,
                    "NORMAL" => RandomDistribution::Normal,
                    other => return Err(self.err(loc, format!("bad rng distribution '{other}'"))),
                };
                if args.len() != 3 {
                    return Err(self.err(loc, "stablehlo.rng takes a, b and a shape"));
                }
                op1(self, Op::Rng { distribution }, args[..2].to_vec())
            }
            "cholesky" => {
                let lower = self.bool_attr(op, "lower")?;
                op1(self, Op::Cholesky { lower }, args)
            }
            "triangular_solve" => {
                let t = op
                    .attr("transpose_a")
                    .and_then(Attr::as_str)
                    .unwrap_or("NO_TRANSPOSE");
                let transpose_a: TriangularTranspose = t
                    .parse()
                    .map_err(|_| self.err(loc, format!("bad transpose_a '{t}'")))?;
                let options = TriangularSolveOptions {
                    left_side: self.bool_attr(op, "left_side")?,
                    lower: self.bool_attr(op, "lower")?,
                    unit_diagonal: self.bool_attr(op, "unit_diagonal")?,
                    transpose_a,
                };
                op1(self, Op::TriangularSolve(options), args)
            }
            _ => Ok(None),
        }
    }

    /// `broadcast_in_dim`: HLO's broadcast cannot stretch a size-1 dimension, so such
    /// dimensions are first reshaped away (as XLA's builder does).
    fn broadcast_in_dim(
        &mut self,
        op: &Operation,
        x: InstrId,
        dims: Vec<usize>,
    ) -> Result<InstrId, ParseError> {
        let out = self.result_shape(op, 0);
        let in_shape = self.shape(x).clone();
        let (Some(a), Some(o)) = (in_shape.as_array(), out.as_array()) else {
            return Err(self.err(op.loc, "broadcast_in_dim needs tensors"));
        };
        if dims.len() != a.rank() || dims.iter().any(|&d| d >= o.rank()) {
            return Err(self.err(
                op.loc,
                format!(
                    "broadcast_dimensions {dims:?} do not fit operand rank {} and result rank {}",
                    a.rank(),
                    o.rank()
                ),
            ));
        }
        let stretched: Vec<usize> = (0..a.rank())
            .filter(|&i| a.dims[i] == 1 && o.dims[dims[i]] != 1)
            .collect();
        let (operand, kept) = if stretched.is_empty() {
            (x, dims)
        } else {
            let kept_in: Vec<usize> = (0..a.rank()).filter(|i| !stretched.contains(i)).collect();
            let new_dims: Vec<i64> = kept_in.iter().map(|&i| a.dims[i]).collect();
            let reshaped = self.add(
                Shape::array(a.element_type, &new_dims),
                Op::Plain(Opcode::Reshape),
                vec![x],
                op.loc,
            );
            (reshaped, kept_in.iter().map(|&i| dims[i]).collect())
        };
        Ok(self.add(
            out,
            Op::Broadcast { dimensions: kept },
            vec![operand],
            op.loc,
        ))
    }

    /// The values of a constant integer operand (shapes and paddings of the `dynamic_*` ops).
    pub(crate) fn constant_ints(
        &self,
        op: &Operation,
        id: InstrId,
    ) -> Result<Vec<i64>, ParseError> {
        let instr = &self.module.computations[self.comp()].instrs[id];
        if let Op::Constant { literal } = &instr.op
            && let Some(a) = literal.as_array()
        {
            let v: Option<Vec<i64>> = match &a.data {
                crate::ir::ArrayData::S64(v) => Some(v.clone()),
                crate::ir::ArrayData::S32(v) => Some(v.iter().map(|&x| x as i64).collect()),
                _ => None,
            };
            if let Some(v) = v {
                return Ok(v);
            }
        }
        Err(self.err(
            op.loc,
            format!(
                "'{}' needs constant integer shape operands (xlac has static shapes only)",
                op.name
            ),
        ))
    }

    /// `convolution` (and `dynamic_conv`, whose padding is a constant operand).
    fn convolution(
        &mut self,
        op: &Operation,
        args: Vec<InstrId>,
    ) -> Result<Vec<InstrId>, ParseError> {
        let Some(Attr::Conv(dn)) = op.attr("dimension_numbers") else {
            return Err(self.err(op.loc, "convolution needs dimension_numbers"));
        };
        let dn = dn.clone();
        let rank = dn.kernel_spatial_dimensions.len();
        let kernel = self.shape(args[1]).clone();
        let sizes: Vec<i64> = dn
            .kernel_spatial_dimensions
            .iter()
            .map(|&d| kernel.dims().get(d).copied().unwrap_or(0))
            .collect();
        let mut window = self.window(
            op,
            rank,
            Some(sizes),
            [
                "window_strides",
                "lhs_dilation",
                "rhs_dilation",
                "window_reversal",
            ],
        )?;
        if op.name.ends_with("dynamic_conv") {
            let pad = self.constant_ints(op, args[2])?;
            for (i, w) in window.dimensions.iter_mut().enumerate() {
                w.padding_low = pad.get(2 * i).copied().unwrap_or(0);
                w.padding_high = pad.get(2 * i + 1).copied().unwrap_or(0);
            }
        }
        let feature_group_count = self.opt_int(op, "feature_group_count")?.unwrap_or(1);
        let batch_group_count = self.opt_int(op, "batch_group_count")?.unwrap_or(1);
        let precision = self.precision(op)?;
        let conv = Op::Convolution {
            window,
            dimension_numbers: dn,
            feature_group_count,
            batch_group_count,
            precision,
        };
        Ok(vec![self.add(
            self.result_shape(op, 0),
            conv,
            args[..2].to_vec(),
            op.loc,
        )])
    }
}

/// Padding per dimension.
fn padding(low: &[i64], high: &[i64], interior: &[i64]) -> Vec<PaddingDimension> {
    (0..low.len())
        .map(|i| PaddingDimension {
            low: low[i],
            high: high.get(i).copied().unwrap_or(0),
            interior: interior.get(i).copied().unwrap_or(0),
        })
        .collect()
}

/// XLA's name for a dot algorithm (`dot_bf16_bf16_f32`, `dot_tf32_tf32_f32_x3`).
fn dot_algorithm_name(a: &Attr) -> String {
    let t = |f: &str| {
        a.field(f)
            .and_then(Attr::as_str)
            .unwrap_or("any")
            .to_string()
    };
    let n = a
        .field("num_primitive_operations")
        .and_then(Attr::as_int)
        .unwrap_or(1);
    let base = format!(
        "dot_{}_{}_{}",
        t("lhs_precision_type"),
        t("rhs_precision_type"),
        t("accumulation_type")
    );
    if n > 1 { format!("{base}_x{n}") } else { base }
}
