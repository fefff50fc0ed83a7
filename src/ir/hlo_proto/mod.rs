//! HLO modules as XLA's protobuf: `HloModuleProto`, wrapped with its config as
//! `HloModuleProtoWithConfig` (what the PJRT plugin hands JAX as the optimized program, so
//! `jax.jit(f).lower(x).compile().as_text()` shows xlac's HLO).
//! XLA: `xla/service/hlo.proto`, `HloInstruction::CreateFromProto` (the per-opcode fields
//! read below), `HloModule::CreateFromProtoWithConfig`.
//!
//! Writing only: every instruction becomes one `HloInstructionProto` with a module-unique
//! id (`computation << 32 | position`, as XLA forms unique ids), operands by id, called
//! computations by id (callees come first), shapes with their layouts. What XLA's reader
//! could not rebuild (an attribute xlac keeps only as text, a tiled layout suffix) is an
//! error naming the instruction, never a silently different proto.

pub mod messages;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};

use prost::Message;

use self::messages::*;
use super::attributes::{
    BackendConfig, ComparisonDirection, ComparisonType, ConvolutionDimensionNumbers as Conv,
    CustomCallApiVersion, FftType, FusionKind, Metadata, Precision, RandomAlgorithm,
    RandomDistribution, TriangularTranspose, Window as IrWindow,
};
use super::sharding::{HloSharding, SubgroupKind};
use super::{
    ArrayData, ComputationId, InstrId, Instruction, Literal, Module, Op, PrimitiveType,
    ProgramShape, Shape,
};

/// Why a module cannot be written as a proto.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtoError {
    /// An instruction carries something `HloInstructionProto` cannot say.
    #[error("%{instruction} ({opcode}): {what} has no HloInstructionProto form")]
    Unsupported {
        /// The instruction's name.
        instruction: String,
        /// Its opcode.
        opcode: &'static str,
        /// What cannot be written.
        what: String,
    },
    /// A value does not fit the proto field's width.
    #[error("%{instruction}: {field} = {value} does not fit the proto's 32-bit field")]
    OutOfRange {
        /// The instruction's name.
        instruction: String,
        /// The field.
        field: &'static str,
        /// The value.
        value: i64,
    },
    /// The module refers to an instruction or computation that is not live.
    #[error("{0}")]
    Dangling(String),
}

type Result<T> = std::result::Result<T, ProtoError>;

/// `module` as an `HloModuleProtoWithConfig`. `entry_computation_layout` is the layout
/// callers pass and receive (the module's own `entry_computation_layout`, else the entry
/// computation's shapes, when `None`); it must be compatible with the entry's shapes.
pub fn module_with_config(
    module: &Module,
    entry_computation_layout: Option<&ProgramShape>,
) -> Result<HloModuleProtoWithConfig> {
    let hlo = module_proto(module)?;
    let host = hlo.host_program_shape.clone().unwrap_or_default();
    // XLA wants one name per parameter: the entry's own.
    let layout = match entry_computation_layout.or(module.config.entry_computation_layout.as_ref())
    {
        Some(p) => program_shape(&p.parameters, &p.result, &host.parameter_names)?,
        None => host,
    };
    Ok(HloModuleProtoWithConfig {
        hlo_module: Some(hlo),
        config: Some(HloModuleConfigProto {
            entry_computation_layout: Some(layout),
            replica_count: module.config.replica_count.unwrap_or(1),
            num_partitions: module.config.num_partitions.unwrap_or(1),
        }),
    })
}

/// The serialized bytes of [`module_with_config`].
pub fn serialize_with_config(
    module: &Module,
    entry_computation_layout: Option<&ProgramShape>,
) -> Result<Vec<u8>> {
    Ok(module_with_config(module, entry_computation_layout)?.encode_to_vec())
}

/// As [`serialize_with_config`], for a partitioned (per-device) module: the entry's
/// parameter shardings and the result's sharding go into `spmd_parameters_shardings` and
/// `spmd_output_sharding`, where a PJRT client reads them.
pub fn serialize_partitioned(
    module: &Module,
    entry_computation_layout: &ProgramShape,
    parameters: &[HloSharding],
    output: &HloSharding,
) -> Result<Vec<u8>> {
    let mut proto = module_with_config(module, Some(entry_computation_layout))?;
    if let Some(hlo) = proto.hlo_module.as_mut() {
        hlo.spmd_parameters_shardings = parameters.iter().map(op_sharding).collect();
        hlo.spmd_output_sharding = Some(op_sharding(output));
    }
    Ok(proto.encode_to_vec())
}

/// The proto id of computation number `index` in print order.
fn computation_id(index: usize) -> i64 {
    index as i64
}

/// XLA's unique instruction id: the computation's id in the high 32 bits, the
/// instruction's position in the low ones.
fn instruction_id(computation: i64, position: usize) -> i64 {
    (computation << 32) | position as i64
}

/// `module` as an `HloModuleProto`.
pub fn module_proto(module: &Module) -> Result<HloModuleProto> {
    let order = callees_first(module);
    let comp_ids: HashMap<ComputationId, i64> = order
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, computation_id(i)))
        .collect();
    let fused: HashSet<ComputationId> = module
        .order
        .iter()
        .flat_map(|&c| module.computations[c].iter())
        .filter_map(|(_, i)| match i.op {
            Op::Fusion { calls, .. } => Some(calls),
            _ => None,
        })
        .collect();
    let names = unique_names(module);
    let mut computations = Vec::with_capacity(order.len());
    let mut sequences = BTreeMap::new();
    for &c in &order {
        let comp = computation(
            module,
            c,
            comp_ids[&c],
            &comp_ids,
            fused.contains(&c),
            &names,
        )?;
        if !comp.is_fusion_computation {
            let ids = comp.instructions.iter().map(|i| i.id).collect();
            sequences.insert(
                comp.id,
                InstructionSequence {
                    instruction_ids: ids,
                },
            );
        }
        computations.push(comp);
    }
    let entry = module.entry_computation();
    let entry_id = *comp_ids
        .get(&module.entry)
        .ok_or_else(|| ProtoError::Dangling("the entry computation is not live".into()))?;
    let host_program_shape = computations
        .iter()
        .find(|c| c.id == entry_id)
        .and_then(|c| c.program_shape.clone());
    let input_output_alias =
        (!module.config.input_output_alias.is_empty()).then(|| HloInputOutputAliasProto {
            entries: module
                .config
                .input_output_alias
                .iter()
                .map(|a| AliasEntryProto {
                    output_shape_index: index(&a.output_index),
                    parameter_number: a.parameter as i64,
                    parameter_shape_index: index(&a.parameter_index),
                    kind: if a.must_alias { 2 } else { 1 },
                })
                .collect(),
        });
    Ok(HloModuleProto {
        name: module.name.clone(),
        entry_computation_name: entry.name.clone(),
        computations,
        host_program_shape,
        id: 0,
        entry_computation_id: entry_id,
        schedule: module
            .config
            .is_scheduled
            .then_some(HloScheduleProto { sequences }),
        input_output_alias,
        spmd_output_sharding: None,
        spmd_parameters_shardings: Vec::new(),
        stack_frame_index: module.stack_frames.as_ref().map(stack_frames).transpose()?,
    })
}

/// The module's computations with every one after the computations it calls: XLA's reader
/// resolves an instruction's `called_computation_ids` against the computations read before
/// it. `module.order` is usually that order already, but passes append computations they
/// make (the partitioner's reducers) after their callers. Callers keep their relative order.
fn callees_first(module: &Module) -> Vec<ComputationId> {
    let live: HashSet<ComputationId> = module.order.iter().copied().collect();
    let mut placed: HashSet<ComputationId> = HashSet::with_capacity(live.len());
    let mut out = Vec::with_capacity(live.len());
    for &root in &module.order {
        // Depth first without recursion: (computation, its callees pushed yet).
        let mut stack = vec![(root, false)];
        while let Some((c, expanded)) = stack.pop() {
            if placed.contains(&c) {
                continue;
            }
            if expanded {
                placed.insert(c);
                out.push(c);
                continue;
            }
            stack.push((c, true));
            for (_, instr) in module.computations[c].iter() {
                for callee in instr.op.called_computations().into_iter().rev() {
                    // A call cycle is not a module XLA could read either; the callee is
                    // placed where it falls and `called_ids` still names it.
                    if live.contains(&callee)
                        && !placed.contains(&callee)
                        && !stack.contains(&(callee, true))
                    {
                        stack.push((callee, false));
                    }
                }
            }
        }
    }
    out
}

/// Instruction names made unique across the module, as XLA's reader requires (xlac's
/// names are unique per computation only): the first use keeps its name, a later one gets
/// the first free `name.N`.
fn unique_names(module: &Module) -> HashMap<(ComputationId, InstrId), String> {
    let mut taken: HashSet<&str> = HashSet::new();
    let mut repeated = Vec::new();
    for &c in &module.order {
        for (i, instr) in module.computations[c].iter() {
            if !taken.insert(instr.name.as_str()) {
                repeated.push((c, i));
            }
        }
    }
    let mut taken: HashSet<String> = taken.into_iter().map(str::to_string).collect();
    let mut renamed = HashMap::new();
    for (c, i) in repeated {
        let base = &module.computations[c].instrs[i].name;
        let name = (1..)
            .map(|n| format!("{base}.{n}"))
            .find(|n| !taken.contains(n))
            .expect("a free suffix");
        taken.insert(name.clone());
        renamed.insert((c, i), name);
    }
    renamed
}

fn index(i: &[usize]) -> Vec<i64> {
    i.iter().map(|&d| d as i64).collect()
}

fn int32(instruction: &str, field: &'static str, value: i64) -> Result<i32> {
    i32::try_from(value).map_err(|_| ProtoError::OutOfRange {
        instruction: instruction.to_string(),
        field,
        value,
    })
}

fn stack_frames(s: &super::StackFrameIndex) -> Result<StackFrameIndexProto> {
    let i = |f: &'static str, v: i64| int32("stack frames", f, v);
    Ok(StackFrameIndexProto {
        file_names: s.file_names.clone(),
        function_names: s.function_names.clone(),
        file_locations: s
            .file_locations
            .iter()
            .map(|l| {
                Ok(FileLocationProto {
                    file_name_id: i("file_name_id", l.file_name_id)?,
                    function_name_id: i("function_name_id", l.function_name_id)?,
                    line: i("line", l.line)?,
                    column: i("column", l.column)?,
                    end_line: i("end_line", l.end_line)?,
                    end_column: i("end_column", l.end_column)?,
                })
            })
            .collect::<Result<_>>()?,
        stack_frames: s
            .stack_frames
            .iter()
            .map(|f| {
                Ok(StackFrameProto {
                    file_location_id: i("file_location_id", f.file_location_id)?,
                    // The text form prints the caller's id plus one; the proto holds
                    // the id itself, 0 meaning no caller (a root frame that named itself
                    // made XLA report "Cycle detected in stack_frame_id").
                    parent_frame_id: i("parent_frame_id", (f.parent_frame_id - 1).max(0))?,
                })
            })
            .collect::<Result<_>>()?,
    })
}

fn program_shape(
    parameters: &[Shape],
    result: &Shape,
    names: &[String],
) -> Result<ProgramShapeProto> {
    Ok(ProgramShapeProto {
        parameters: parameters.iter().map(shape).collect::<Result<_>>()?,
        result: Some(shape(result)?),
        parameter_names: names.to_vec(),
    })
}

fn computation(
    module: &Module,
    c: ComputationId,
    id: i64,
    comp_ids: &HashMap<ComputationId, i64>,
    is_fusion: bool,
    renamed: &HashMap<(ComputationId, InstrId), String>,
) -> Result<HloComputationProto> {
    let comp = &module.computations[c];
    let ids: HashMap<InstrId, i64> = comp
        .order
        .iter()
        .enumerate()
        .map(|(p, &i)| (i, instruction_id(id, p)))
        .collect();
    let lookup = |i: InstrId, what: &str| {
        ids.get(&i).copied().ok_or_else(|| {
            ProtoError::Dangling(format!("{}: {what} is not a live instruction", comp.name))
        })
    };
    let mut instructions = Vec::with_capacity(comp.order.len());
    for &i in &comp.order {
        let instr = &comp.instrs[i];
        let mut p = instruction(instr, comp_ids)?;
        if let Some(name) = renamed.get(&(c, i)) {
            p.name = name.clone();
        }
        p.id = ids[&i];
        p.operand_ids = instr
            .operands
            .iter()
            .map(|&o| lookup(o, &format!("an operand of %{}", instr.name)))
            .collect::<Result<_>>()?;
        p.control_predecessor_ids = instr
            .control_predecessors
            .iter()
            .map(|&o| lookup(o, &format!("a control predecessor of %{}", instr.name)))
            .collect::<Result<_>>()?;
        instructions.push(p);
    }
    let params = comp.parameters();
    let names: Vec<String> = params
        .iter()
        .map(|&p| renamed.get(&(c, p)).unwrap_or(&comp.instrs[p].name).clone())
        .collect();
    let param_shapes: Vec<Shape> = params
        .iter()
        .map(|&p| comp.instrs[p].shape.clone())
        .collect();
    Ok(HloComputationProto {
        name: comp.name.clone(),
        instructions,
        program_shape: Some(program_shape(
            &param_shapes,
            &comp.root_instr().shape,
            &names,
        )?),
        id,
        root_id: lookup(comp.root, "the root")?,
        is_fusion_computation: is_fusion,
        execution_thread: comp.execution_thread.clone().unwrap_or_default(),
    })
}

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
fn shape(s: &Shape) -> Result<ShapeProto> {
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

fn dims(d: &[usize]) -> Vec<i64> {
    index(d)
}

fn window(w: &IrWindow) -> Window {
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

fn gather_dims(g: &super::GatherDimensionNumbers) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: dims(&g.offset_dims),
        collapsed_slice_dims: dims(&g.collapsed_slice_dims),
        start_index_map: dims(&g.start_index_map),
        index_vector_dim: g.index_vector_dim as i64,
        operand_batching_dims: dims(&g.operand_batching_dims),
        start_indices_batching_dims: dims(&g.start_indices_batching_dims),
    }
}

fn scatter_dims(s: &super::ScatterDimensionNumbers) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: dims(&s.update_window_dims),
        inserted_window_dims: dims(&s.inserted_window_dims),
        scatter_dims_to_operand_dims: dims(&s.scatter_dims_to_operand_dims),
        index_vector_dim: s.index_vector_dim as i64,
        input_batching_dims: dims(&s.input_batching_dims),
        scatter_indices_batching_dims: dims(&s.scatter_indices_batching_dims),
    }
}

fn conv_dims(c: &Conv) -> ConvolutionDimensionNumbers {
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
fn precision_config(
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

fn unsupported(instr: &Instruction, what: String) -> ProtoError {
    ProtoError::Unsupported {
        instruction: instr.name.clone(),
        opcode: instr.opcode().name(),
        what,
    }
}

fn metadata(instr: &Instruction, m: &Metadata) -> Result<OpMetadata> {
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

/// `OpSharding.Type` numbers.
const SHARDING_REPLICATED: i32 = 0;
const SHARDING_MAXIMAL: i32 = 1;
const SHARDING_TUPLE: i32 = 2;
const SHARDING_OTHER: i32 = 3;
const SHARDING_MANUAL: i32 = 4;
const SHARDING_UNKNOWN: i32 = 5;
const SHARDING_UNREDUCED: i32 = 6;

/// `s` as a serialized `xla.OpSharding` (what PJRT's Shardings extension hands out).
pub fn op_sharding_bytes(s: &HloSharding) -> Vec<u8> {
    op_sharding(s).encode_to_vec()
}

/// `s` as an `xla.OpSharding`.
pub fn op_sharding(s: &HloSharding) -> OpSharding {
    let of_type = |t| OpSharding {
        r#type: t,
        ..OpSharding::default()
    };
    match s {
        HloSharding::Replicated => of_type(SHARDING_REPLICATED),
        HloSharding::Manual => of_type(SHARDING_MANUAL),
        HloSharding::Unknown => of_type(SHARDING_UNKNOWN),
        HloSharding::Unreduced => of_type(SHARDING_UNREDUCED),
        HloSharding::Maximal { device } => OpSharding {
            r#type: SHARDING_MAXIMAL,
            tile_assignment_dimensions: vec![1],
            tile_assignment_devices: vec![*device],
            ..OpSharding::default()
        },
        HloSharding::Tiled(t) => OpSharding {
            r#type: SHARDING_OTHER,
            tile_assignment_dimensions: t.tiles.dims().to_vec(),
            tile_assignment_devices: t.tiles.devices(),
            replicate_on_last_tile_dim: t.last_tile_dim_replicate,
            last_tile_dims: t
                .last_tile_dims
                .iter()
                .map(|k| match k {
                    SubgroupKind::Manual => SHARDING_MANUAL,
                    SubgroupKind::Replicated => SHARDING_REPLICATED,
                    SubgroupKind::Maximal => SHARDING_MAXIMAL,
                    SubgroupKind::Unreduced => SHARDING_UNREDUCED,
                })
                .collect(),
            ..OpSharding::default()
        },
        HloSharding::Tuple(elements) => OpSharding {
            r#type: SHARDING_TUPLE,
            tuple_shardings: elements.iter().map(op_sharding).collect(),
            ..OpSharding::default()
        },
    }
}

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
    use super::replica_groups::{parse_groups, parse_list, parse_nested};
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
fn instruction(
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
            use super::Opcode::*;
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

fn le_bytes<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(f).collect()
}

/// A literal with its elements in physical (layout) order, as `LiteralProto` stores them.
fn literal(instr: &Instruction, l: &Literal) -> Result<LiteralProto> {
    let a = match l {
        Literal::Tuple(elements) => {
            return Ok(LiteralProto {
                shape: Some(
                    shape(&l.shape())
                        .map_err(|_| unsupported(instr, "a literal's layout".into()))?,
                ),
                tuple_literals: elements
                    .iter()
                    .map(|e| literal(instr, e))
                    .collect::<Result<_>>()?,
                ..LiteralProto::default()
            });
        }
        Literal::Array(a) => a,
        Literal::Token => return Err(unsupported(instr, "a token literal".into())),
    };
    let mut p = LiteralProto {
        shape: Some(
            shape(&Shape::Array(a.shape.clone()))
                .map_err(|_| unsupported(instr, "a literal's layout".into()))?,
        ),
        ..LiteralProto::default()
    };
    use PrimitiveType as T;
    match &a.data {
        ArrayData::Pred(v) => p.preds = v.clone(),
        ArrayData::S8(v) => p.s8s = v.iter().map(|&x| x as u8).collect(),
        ArrayData::S16(v) => p.s16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::S32(v) => p.s32s = v.clone(),
        ArrayData::S64(v) => p.s64s = v.clone(),
        ArrayData::U8(v) => p.u8s = v.clone(),
        ArrayData::U16(v) => p.u16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::U32(v) => p.u32s = v.clone(),
        ArrayData::U64(v) => p.u64s = v.clone(),
        ArrayData::F16(v) => p.f16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::BF16(v) => p.bf16s = le_bytes(v, |x| x.to_le_bytes()),
        ArrayData::F32(v) => p.f32s = v.clone(),
        ArrayData::F64(v) => p.f64s = v.clone(),
        ArrayData::C64(v) => p.c64s = v.iter().flat_map(|c| [c.re, c.im]).collect(),
        ArrayData::C128(v) => p.c128s = v.iter().flat_map(|c| [c.re, c.im]).collect(),
        ArrayData::Raw(v) => {
            let field = match a.shape.element_type {
                T::S1 => &mut p.s1s,
                T::S2 => &mut p.s2s,
                T::S4 => &mut p.s4s,
                T::U1 => &mut p.u1s,
                T::U2 => &mut p.u2s,
                T::U4 => &mut p.u4s,
                T::F8E5M2 => &mut p.f8e5m2s,
                T::F8E4M3 => &mut p.f8e4m3s,
                T::F8E4M3FN => &mut p.f8e4m3fns,
                T::F8E4M3B11FNUZ => &mut p.f8e4m3b11fnuzs,
                T::F8E3M4 => &mut p.f8e3m4s,
                T::F8E5M2FNUZ => &mut p.f8e5m2fnuzs,
                T::F8E4M3FNUZ => &mut p.f8e4m3fnuzs,
                T::F8E8M0FNU => &mut p.f8e8m0fnus,
                T::F6E3M2FN => &mut p.f6e3m2fns,
                T::F6E2M3FN => &mut p.f6e2m3fns,
                T::F4E2M1FN => &mut p.f4e2m1fns,
                other => return Err(unsupported(instr, format!("raw {other} literal data"))),
            };
            *field = v.clone();
        }
    }
    Ok(p)
}
