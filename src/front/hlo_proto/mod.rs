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
//!
//! This file writes the module and its computations; one instruction is
//! `instruction.rs`'s, with the messages it embeds in `shape.rs`, `attributes.rs`,
//! `op_sharding.rs` and `literal.rs`. `messages.rs` declares the proto messages.

mod attributes;
mod instruction;
mod literal;
pub mod messages;
mod op_sharding;
mod shape;
#[cfg(test)]
mod tests;

use instruction::instruction;
pub use op_sharding::{op_sharding, op_sharding_bytes};
pub use shape::primitive_type_number;
use shape::shape;

use std::collections::{BTreeMap, HashMap, HashSet};

use prost::Message;

use self::messages::*;
use crate::ir::sharding::HloSharding;
use crate::ir::{ComputationId, InstrId, Instruction, Module, Op, ProgramShape, Shape};

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

fn stack_frames(s: &crate::ir::StackFrameIndex) -> Result<StackFrameIndexProto> {
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

fn unsupported(instr: &Instruction, what: String) -> ProtoError {
    ProtoError::Unsupported {
        instruction: instr.name.clone(),
        opcode: instr.opcode().name(),
        what,
    }
}
