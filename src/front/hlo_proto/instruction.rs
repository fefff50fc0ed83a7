//! One instruction as an `HloInstructionProto`: the per-opcode fields XLA's
//! `HloInstruction::CreateFromProto` reads, the called computations by id, collective
//! attributes, and the text-only attributes that are dropped or refused.
//!
//! XLA: `xla/service/hlo.proto` (`HloInstructionProto`).

use std::collections::HashMap;

use super::attributes::{conv_dims, gather_dims, metadata, precision_config, scatter_dims, window};
use super::literal::literal;
use super::messages::*;
use super::op_sharding::op_sharding;
use super::shape::{dims, shape};
use super::{ProtoError, Result, index, int32, unsupported};
use crate::ir::{
    BackendConfig, ComparisonDirection, ComparisonType, CustomCallApiVersion, FftType, FusionKind,
    RandomAlgorithm, RandomDistribution, TriangularTranspose,
};
use crate::ir::{ComputationId, Instruction, Op};

/// Instruction attributes xlac keeps as text that carry no meaning XLA's reader needs
/// (annotations for humans and profilers); they are left out of the proto.
const DROPPED_RAW_ATTRIBUTES: [&str; 3] = ["frontend_attributes", "statistics_viz", "origin"];

/// The raw attributes of collectives that have proto fields, or none because the proto
/// implies them: StableHLO's `split_count` of an all-to-all is its replica groups' size.
const COLLECTIVE_RAW_ATTRIBUTES: [&str; 6] = [
    "channel_id",
    "replica_groups",
    "use_global_device_ids",
    "dimensions",
    "source_target_pairs",
    "split_count",
];

/// A collective's raw attributes into their proto fields.
fn collective_attributes(instr: &Instruction, p: &mut HloInstructionProto) -> Result<()> {
    use crate::ir::replica_groups::{parse_groups, parse_list, parse_nested};
    for raw in &instr.raw_attributes {
        let v = raw.value.trim();
        let bad = || unsupported(instr, format!("attribute {}={}", raw.name, raw.value));
        match raw.name.as_str() {
            "channel_id" => p.channel_id = v.parse().map_err(|_| bad())?,
            "use_global_device_ids" => p.use_global_device_ids = v == "true",
            "replica_groups" => {
                p.replica_groups = parse_groups(v)
                    .ok_or_else(bad)?
                    .into_iter()
                    .map(|replica_ids| ReplicaGroup { replica_ids })
                    .collect()
            }
            "dimensions" => {
                p.dimensions = v
                    .strip_prefix('{')
                    .and_then(|v| v.strip_suffix('}'))
                    .and_then(parse_list)
                    .ok_or_else(bad)?
            }
            "source_target_pairs" => {
                p.source_target_pairs = parse_nested(v)
                    .ok_or_else(bad)?
                    .into_iter()
                    .map(|pair| match pair.as_slice() {
                        [source, target] => Ok(SourceTarget {
                            source: *source,
                            target: *target,
                        }),
                        _ => Err(bad()),
                    })
                    .collect::<Result<_>>()?
            }
            _ => {}
        }
    }
    Ok(())
}

fn called_ids(
    instr: &Instruction,
    calls: &[ComputationId],
    comp_ids: &HashMap<ComputationId, i64>,
) -> Result<Vec<i64>> {
    calls
        .iter()
        .map(|c| {
            comp_ids.get(c).copied().ok_or_else(|| {
                ProtoError::Dangling(format!(
                    "%{} calls a computation that is not live",
                    instr.name
                ))
            })
        })
        .collect()
}

/// One instruction's proto, without its ids (the caller numbers them).
pub(super) fn instruction(
    instr: &Instruction,
    comp_ids: &HashMap<ComputationId, i64>,
) -> Result<HloInstructionProto> {
    let collective = instr.opcode().category() == crate::ir::OpCategory::Collective;
    if let Some(raw) = instr.raw_attributes.iter().find(|r| {
        !DROPPED_RAW_ATTRIBUTES.contains(&r.name.as_str())
            && (!collective || !COLLECTIVE_RAW_ATTRIBUTES.contains(&r.name.as_str()))
    }) {
        return Err(unsupported(
            instr,
            format!("attribute {}={}", raw.name, raw.value),
        ));
    }
    let mut p = HloInstructionProto {
        name: instr.name.clone(),
        opcode: instr.opcode().name().to_string(),
        shape: Some(shape(&instr.shape).map_err(|e| match e {
            ProtoError::Unsupported { what, .. } => unsupported(instr, what),
            e => e,
        })?),
        metadata: instr
            .metadata
            .as_ref()
            .map(|m| metadata(instr, m))
            .transpose()?,
        sharding: instr.sharding.as_ref().map(op_sharding),
        backend_config: match &instr.backend_config {
            Some(BackendConfig::Json(text)) | Some(BackendConfig::Quoted(text)) => {
                text.clone().into_bytes()
            }
            None => Vec::new(),
        },
        called_computation_ids: called_ids(instr, &instr.op.called_computations(), comp_ids)?,
        ..HloInstructionProto::default()
    };
    if collective {
        collective_attributes(instr, &mut p)?;
    }
    // While: XLA keeps the body first, then the condition.
    if let Op::While { condition, body } = instr.op {
        p.called_computation_ids = called_ids(instr, &[body, condition], comp_ids)?;
    }
    match &instr.op {
        Op::Plain(_) | Op::While { .. } | Op::Conditional { .. } | Op::Call { .. } => {}
        Op::Parameter { number } => p.parameter_number = *number as i64,
        Op::Constant { literal: l } => p.literal = Some(literal(instr, l)?),
        Op::Iota { dimension } => p.dimensions = vec![*dimension as i64],
        Op::Broadcast { dimensions }
        | Op::Transpose { dimensions }
        | Op::Reverse { dimensions }
        | Op::Reduce { dimensions, .. }
        | Op::Map { dimensions, .. } => p.dimensions = dims(dimensions),
        Op::Concatenate { dimension } => p.dimensions = vec![*dimension as i64],
        Op::Slice { slice } => {
            p.slice_dimensions = slice
                .iter()
                .map(|s| SliceDimensions {
                    start: s.start,
                    limit: s.limit,
                    stride: s.stride,
                })
                .collect()
        }
        Op::DynamicSlice { sizes } => p.dynamic_slice_sizes = sizes.clone(),
        Op::Pad { padding } => {
            p.padding_config = Some(PaddingConfig {
                dimensions: padding
                    .iter()
                    .map(|d| PaddingConfigDimension {
                        edge_padding_low: d.low,
                        edge_padding_high: d.high,
                        interior_padding: d.interior,
                    })
                    .collect(),
            })
        }
        Op::Compare {
            direction,
            comparison_type,
        } => {
            p.comparison_direction = comparison_direction(*direction).to_string();
            if let Some(t) = comparison_type {
                p.comparison_type = match t {
                    ComparisonType::Float => "FLOAT",
                    ComparisonType::TotalOrder => "TOTALORDER",
                    ComparisonType::Signed => "SIGNED",
                    ComparisonType::Unsigned => "UNSIGNED",
                }
                .to_string();
            }
        }
        Op::GetTupleElement { index } => p.tuple_index = *index as i64,
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            p.exponent_bits = int32(&instr.name, "exponent_bits", i64::from(*exponent_bits))?;
            p.mantissa_bits = int32(&instr.name, "mantissa_bits", i64::from(*mantissa_bits))?;
        }
        Op::ReduceWindow { window: w, .. } | Op::SelectAndScatter { window: w, .. } => {
            p.window = Some(window(w))
        }
        Op::Dot {
            dimension_numbers: d,
            precision,
            algorithm,
        } => {
            p.dot_dimension_numbers = Some(DotDimensionNumbers {
                lhs_contracting_dimensions: dims(&d.lhs_contracting_dimensions),
                rhs_contracting_dimensions: dims(&d.rhs_contracting_dimensions),
                lhs_batch_dimensions: dims(&d.lhs_batch_dimensions),
                rhs_batch_dimensions: dims(&d.rhs_batch_dimensions),
            });
            p.precision_config = Some(precision_config(instr, precision, algorithm.as_deref())?);
        }
        Op::Convolution {
            window: w,
            dimension_numbers,
            feature_group_count,
            batch_group_count,
            precision,
        } => {
            p.window = Some(window(w));
            p.convolution_dimension_numbers = Some(conv_dims(dimension_numbers));
            p.feature_group_count = *feature_group_count;
            p.batch_group_count = *batch_group_count;
            p.precision_config = Some(precision_config(instr, precision, None)?);
        }
        Op::Gather {
            dimension_numbers: g,
            slice_sizes,
            indices_are_sorted,
        } => {
            p.gather_dimension_numbers = Some(gather_dims(g));
            p.gather_slice_sizes = slice_sizes.clone();
            p.indices_are_sorted = *indices_are_sorted;
        }
        Op::Scatter {
            dimension_numbers: s,
            indices_are_sorted,
            unique_indices,
            ..
        } => {
            p.scatter_dimension_numbers = Some(scatter_dims(s));
            p.indices_are_sorted = *indices_are_sorted;
            p.unique_indices = *unique_indices;
        }
        Op::Sort {
            dimension,
            is_stable,
            ..
        } => {
            p.dimensions = vec![*dimension as i64];
            p.is_stable = *is_stable;
        }
        Op::TopK { k, largest } => {
            p.k = *k;
            p.largest = *largest;
        }
        Op::Fusion { kind, .. } => {
            p.fusion_kind = match kind {
                FusionKind::Loop => "kLoop",
                FusionKind::Input => "kInput",
                FusionKind::Output => "kOutput",
                FusionKind::Custom => "kCustom",
            }
            .to_string()
        }
        Op::RngBitGenerator { algorithm } => {
            p.rng_algorithm = match algorithm {
                RandomAlgorithm::Default => 0,
                RandomAlgorithm::ThreeFry => 1,
                RandomAlgorithm::Philox => 2,
            }
        }
        Op::Rng { distribution } => {
            p.distribution = match distribution {
                RandomDistribution::Uniform => 1,
                RandomDistribution::Normal => 2,
            }
        }
        Op::Cholesky { lower } => p.cholesky_options = Some(CholeskyOptions { lower: *lower }),
        Op::TriangularSolve(o) => {
            p.triangular_solve_options = Some(TriangularSolveOptions {
                left_side: o.left_side,
                lower: o.lower,
                unit_diagonal: o.unit_diagonal,
                transpose_a: match o.transpose_a {
                    TriangularTranspose::NoTranspose => 1,
                    TriangularTranspose::Transpose => 2,
                    TriangularTranspose::Adjoint => 3,
                },
            })
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => {
            p.fft_type = match fft_type {
                FftType::Fft => 0,
                FftType::Ifft => 1,
                FftType::Rfft => 2,
                FftType::Irfft => 3,
            };
            p.fft_length = fft_length.clone();
        }
        Op::BatchNorm {
            epsilon,
            feature_index,
            ..
        } => {
            p.epsilon = *epsilon;
            p.feature_index = *feature_index as i64;
        }
        Op::DimensionSize { dimension, .. } => p.dimensions = vec![*dimension as i64],
        Op::CustomCall(cc) => {
            p.custom_call_target = cc.target.clone();
            p.custom_call_has_side_effect = cc.has_side_effect;
            p.custom_call_api_version = match cc.api_version {
                None | Some(CustomCallApiVersion::Original) => 1,
                Some(CustomCallApiVersion::StatusReturning) => 2,
                Some(CustomCallApiVersion::StatusReturningUnified) => 3,
                Some(CustomCallApiVersion::TypedFfi) => 4,
            };
            if let Some(shapes) = &cc.operand_layout_constraints {
                p.constrain_layout = true;
                p.operand_shapes_with_layout = shapes
                    .iter()
                    .map(|s| {
                        shape(s).map_err(|_| unsupported(instr, format!("operand layout {s}")))
                    })
                    .collect::<Result<_>>()?;
            }
            p.output_operand_aliasing = cc
                .output_to_operand_aliasing
                .iter()
                .map(|a| OutputOperandAliasing {
                    output_shape_index: index(&a.output),
                    operand_index: a.operand as i64,
                    operand_shape_index: index(&a.operand_index),
                })
                .collect();
            p.window = cc.window.as_ref().map(window);
            p.convolution_dimension_numbers = cc.dimension_numbers.as_ref().map(conv_dims);
            p.feature_group_count = cc.feature_group_count.unwrap_or(1);
            p.batch_group_count = cc.batch_group_count.unwrap_or(1);
            if !cc.precision.is_empty() {
                p.precision_config = Some(precision_config(instr, &cc.precision, None)?);
            }
            p.custom_call_schedule = match cc.schedule.as_deref() {
                None | Some("SCHEDULE_NONE") => 0,
                Some("SCHEDULE_LATEST") => 1,
                Some("SCHEDULE_EARLIEST") => 2,
                Some(other) => return Err(unsupported(instr, format!("schedule={other}"))),
            };
            p.literal = cc.literal.as_ref().map(|l| literal(instr, l)).transpose()?;
        }
        Op::Unmodeled { opcode, .. } => {
            // Without their (textual) attributes, only a few unmodeled opcodes mean what
            // they meant; the rest would read back as a different instruction.
            use crate::ir::Opcode::*;
            // Collectives keep theirs in proto fields (`collective_attributes`).
            if !collective
                && !matches!(
                    opcode,
                    AfterAll | AddDependency | OptimizationBarrier | ReplicaId | PartitionId
                )
            {
                return Err(unsupported(instr, "an opcode xlac keeps as text".into()));
            }
        }
    }
    Ok(p)
}

fn comparison_direction(d: ComparisonDirection) -> &'static str {
    match d {
        ComparisonDirection::Eq => "EQ",
        ComparisonDirection::Ne => "NE",
        ComparisonDirection::Lt => "LT",
        ComparisonDirection::Le => "LE",
        ComparisonDirection::Gt => "GT",
        ComparisonDirection::Ge => "GE",
    }
}
