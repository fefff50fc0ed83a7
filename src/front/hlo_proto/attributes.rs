//! The attribute messages an instruction proto embeds: windows, gather/scatter/convolution
//! dimension numbers, the precision config (with the dot algorithm's number) and metadata.
//!
//! XLA: `xla/xla_data.proto`.

use super::messages::*;
use super::shape::dims;
use super::{Result, int32, unsupported};
use crate::ir::Instruction;
use crate::ir::{ConvolutionDimensionNumbers as Conv, Metadata, Precision, Window as IrWindow};

pub(super) fn window(w: &IrWindow) -> Window {
    Window {
        dimensions: w
            .dimensions
            .iter()
            .map(|d| WindowDimension {
                size: d.size,
                stride: d.stride,
                padding_low: d.padding_low,
                padding_high: d.padding_high,
                window_dilation: d.window_dilation,
                base_dilation: d.base_dilation,
                window_reversal: d.window_reversal,
            })
            .collect(),
    }
}

pub(super) fn gather_dims(g: &crate::ir::GatherDimensionNumbers) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: dims(&g.offset_dims),
        collapsed_slice_dims: dims(&g.collapsed_slice_dims),
        start_index_map: dims(&g.start_index_map),
        index_vector_dim: g.index_vector_dim as i64,
        operand_batching_dims: dims(&g.operand_batching_dims),
        start_indices_batching_dims: dims(&g.start_indices_batching_dims),
    }
}

pub(super) fn scatter_dims(s: &crate::ir::ScatterDimensionNumbers) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: dims(&s.update_window_dims),
        inserted_window_dims: dims(&s.inserted_window_dims),
        scatter_dims_to_operand_dims: dims(&s.scatter_dims_to_operand_dims),
        index_vector_dim: s.index_vector_dim as i64,
        input_batching_dims: dims(&s.input_batching_dims),
        scatter_indices_batching_dims: dims(&s.scatter_indices_batching_dims),
    }
}

pub(super) fn conv_dims(c: &Conv) -> ConvolutionDimensionNumbers {
    ConvolutionDimensionNumbers {
        input_batch_dimension: c.input_batch_dimension as i64,
        input_feature_dimension: c.input_feature_dimension as i64,
        input_spatial_dimensions: dims(&c.input_spatial_dimensions),
        kernel_input_feature_dimension: c.kernel_input_feature_dimension as i64,
        kernel_output_feature_dimension: c.kernel_output_feature_dimension as i64,
        kernel_spatial_dimensions: dims(&c.kernel_spatial_dimensions),
        output_batch_dimension: c.output_batch_dimension as i64,
        output_feature_dimension: c.output_feature_dimension as i64,
        output_spatial_dimensions: dims(&c.output_spatial_dimensions),
    }
}

/// `PrecisionConfig.Algorithm` numbers, by the text spelling (`dot_f32_f32_f32`).
const DOT_ALGORITHMS: [(&str, i32); 13] = [
    ("dot_any_f8_any_f8_f32", 1),
    ("dot_any_f8_any_f8_f32_fast_accum", 2),
    ("dot_f16_f16_f16", 3),
    ("dot_f16_f16_f32", 4),
    ("dot_bf16_bf16_bf16", 5),
    ("dot_bf16_bf16_f32", 6),
    ("dot_bf16_bf16_f32_x3", 7),
    ("dot_bf16_bf16_f32_x6", 8),
    ("dot_tf32_tf32_f32", 9),
    ("dot_tf32_tf32_f32_x3", 10),
    ("dot_f32_f32_f32", 11),
    ("dot_f64_f64_f64", 12),
    ("dot_bf16_bf16_f32_x9", 13),
];

/// A `PrecisionConfig` with one entry per operand (DEFAULT where xlac printed none).
pub(super) fn precision_config(
    instr: &Instruction,
    precision: &[Precision],
    algorithm: Option<&str>,
) -> Result<PrecisionConfig> {
    let mut operand_precision = Vec::with_capacity(instr.operands.len());
    for p in precision {
        operand_precision.push(match p {
            Precision::Default => 0,
            Precision::High => 1,
            Precision::Highest => 2,
            Precision::PackedNibble => {
                return Err(unsupported(instr, "operand_precision=packed_nibble".into()));
            }
        });
    }
    operand_precision.resize(instr.operands.len().max(operand_precision.len()), 0);
    let algorithm = match algorithm {
        None => 0,
        Some(a) => DOT_ALGORITHMS
            .iter()
            .find(|(name, _)| a.eq_ignore_ascii_case(name))
            .map(|&(_, n)| n)
            .ok_or_else(|| unsupported(instr, format!("algorithm={a}")))?,
    };
    Ok(PrecisionConfig {
        operand_precision,
        algorithm,
    })
}
pub(super) fn metadata(instr: &Instruction, m: &Metadata) -> Result<OpMetadata> {
    let i = |f: &'static str, v: Option<i64>| int32(&instr.name, f, v.unwrap_or(0));
    Ok(OpMetadata {
        op_type: m.op_type.clone().unwrap_or_default(),
        op_name: m.op_name.clone().unwrap_or_default(),
        source_file: m.source_file.clone().unwrap_or_default(),
        source_line: i("source_line", m.source_line)?,
        stack_frame_id: i("stack_frame_id", m.stack_frame_id)?,
        source_end_line: i("source_end_line", m.source_end_line)?,
        source_column: i("source_column", m.source_column)?,
        source_end_column: i("source_end_column", m.source_end_column)?,
    })
}
