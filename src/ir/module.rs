//! Computations and modules, as arenas of typed ids.
//! XLA: `xla/hlo/ir/hlo_computation.h`, `hlo_module.h`, `hlo_module_config.h`.

use cranelift_entity::{PrimaryMap, SecondaryMap, entity_impl};

use super::{Instruction, Op, Opcode, RawAttribute, Shape, ShapeIndex};

/// An instruction of one computation: an index, not a pointer. Messages show its HLO name.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrId(u32);
entity_impl!(InstrId, "instr");

/// A computation of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComputationId(u32);
entity_impl!(ComputationId, "comp");

/// A position in the text an instruction was parsed from (1-based line and column).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// 1-based line; 0 for IR built in code.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// One HLO computation: `ENTRY main`, `fused_computation.2`, a reducer.
#[derive(Clone, Debug)]
pub struct Computation {
    /// The name without `%`.
    pub name: String,
    /// What each instruction is. Ids that are not in `order` are dead and ignored.
    pub instrs: PrimaryMap<InstrId, Instruction>,
    /// The live instructions, operands before users; the printer walks this.
    pub order: Vec<InstrId>,
    /// The instruction whose value the computation returns.
    pub root: InstrId,
    /// Where each instruction was written, for error messages.
    pub spans: SecondaryMap<InstrId, Span>,
    /// `execution_thread="..."` when printed.
    pub execution_thread: Option<String>,
}

impl Computation {
    /// An empty computation; `root` must be set once instructions exist.
    pub fn new(name: impl Into<String>) -> Computation {
        Computation {
            name: name.into(),
            instrs: PrimaryMap::new(),
            order: Vec::new(),
            root: InstrId::from_u32(0),
            spans: SecondaryMap::new(),
            execution_thread: None,
        }
    }

    /// Appends an instruction at the end of `order` and returns its id.
    pub fn push(&mut self, instr: Instruction) -> InstrId {
        let id = self.instrs.push(instr);
        self.order.push(id);
        id
    }

    /// The instruction with this id.
    pub fn instr(&self, id: InstrId) -> &Instruction {
        &self.instrs[id]
    }

    /// The root instruction.
    pub fn root_instr(&self) -> &Instruction {
        &self.instrs[self.root]
    }

    /// Parameters by parameter number (`parameter(0)` first).
    pub fn parameters(&self) -> Vec<InstrId> {
        let mut params: Vec<(usize, InstrId)> = self
            .order
            .iter()
            .filter_map(|&id| match self.instrs[id].op {
                Op::Parameter { number } => Some((number, id)),
                _ => None,
            })
            .collect();
        params.sort();
        params.into_iter().map(|(_, id)| id).collect()
    }

    /// The shapes of the parameters, by number.
    pub fn parameter_shapes(&self) -> Vec<Shape> {
        self.parameters()
            .iter()
            .map(|&id| self.instrs[id].shape.clone())
            .collect()
    }

    /// The live instructions in order, with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (InstrId, &Instruction)> {
        self.order.iter().map(move |&id| (id, &self.instrs[id]))
    }

    /// The live instruction with this name, if any.
    pub fn find(&self, name: &str) -> Option<InstrId> {
        self.order
            .iter()
            .copied()
            .find(|&id| self.instrs[id].name == name)
    }

    /// True if any live instruction has this opcode.
    pub fn contains_opcode(&self, opcode: Opcode) -> bool {
        self.iter().any(|(_, i)| i.opcode() == opcode)
    }
}

/// `input_output_alias={ {0}: (1, {}, may-alias) }`: an output that may reuse a parameter buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InputOutputAlias {
    /// Index into the entry result.
    pub output_index: ShapeIndex,
    /// Entry parameter number.
    pub parameter: usize,
    /// Index into that parameter.
    pub parameter_index: ShapeIndex,
    /// `must-alias` (true) or `may-alias` (false, the default).
    pub must_alias: bool,
}

/// `buffer_donor={ (1, {}) }`: a parameter leaf whose buffer the caller gives up, for the
/// compiler to reuse for any output (XLA's `HloBufferDonorConfig`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BufferDonor {
    /// Entry parameter number.
    pub parameter: usize,
    /// Index into that parameter.
    pub parameter_index: ShapeIndex,
}

/// `entry_computation_layout={(p0, p1)->result}`: parameter and result shapes with layouts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProgramShape {
    /// Parameter shapes in order.
    pub parameters: Vec<Shape>,
    /// Result shape.
    pub result: Shape,
}

/// One `FileLocations` entry of the stack-frame tables.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct FileLocation {
    /// 1-based index into `file_names`.
    pub file_name_id: i64,
    /// 1-based index into `function_names`.
    pub function_name_id: i64,
    /// First line.
    pub line: i64,
    /// Last line.
    pub end_line: i64,
    /// First column.
    pub column: i64,
    /// Last column.
    pub end_column: i64,
}

/// One `StackFrames` entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StackFrame {
    /// 1-based index into `file_locations`.
    pub file_location_id: i64,
    /// The calling frame, exactly as XLA prints it. In XLA's dumps the value reads as the
    /// caller's 1-based id plus one, with 1 (or 0) meaning "no caller"; xlac keeps it
    /// verbatim so that printing gives back the same text.
    pub parent_frame_id: i64,
}

/// The `FileNames`/`FunctionNames`/`FileLocations`/`StackFrames` tables that JAX emits
/// before the first computation; instructions point into them with `stack_frame_id`.
/// Entries are stored in order, entry `k` having id `k + 1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StackFrameIndex {
    /// Source files.
    pub file_names: Vec<String>,
    /// Function names.
    pub function_names: Vec<String>,
    /// Source ranges.
    pub file_locations: Vec<FileLocation>,
    /// Frames, each a location and its caller.
    pub stack_frames: Vec<StackFrame>,
}

impl StackFrameIndex {
    /// The source locations of frame `id` (1-based, as `stack_frame_id=` says) and of its
    /// callers, innermost first, each with its file name. Stops at a missing entry, and
    /// after 64 frames so a malformed table cannot loop.
    pub fn chain(&self, id: i64) -> Vec<(&str, &FileLocation)> {
        let mut out = Vec::new();
        let mut id = id;
        for _ in 0..64 {
            let Some(frame) = usize::try_from(id - 1)
                .ok()
                .and_then(|i| self.stack_frames.get(i))
            else {
                break;
            };
            if let Some(loc) = usize::try_from(frame.file_location_id - 1)
                .ok()
                .and_then(|i| self.file_locations.get(i))
            {
                let file = usize::try_from(loc.file_name_id - 1)
                    .ok()
                    .and_then(|i| self.file_names.get(i))
                    .map(String::as_str)
                    .unwrap_or("");
                out.push((file, loc));
            }
            // The caller is printed as its id plus one; 1 (or 0) means none.
            if frame.parent_frame_id <= 1 {
                break;
            }
            id = frame.parent_frame_id - 1;
        }
        out
    }
}

/// Module-level settings from the `HloModule` header line.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModuleConfig {
    /// `is_scheduled=true`: instruction order is the schedule.
    pub is_scheduled: bool,
    /// `entry_computation_layout=`.
    pub entry_computation_layout: Option<ProgramShape>,
    /// `input_output_alias=`.
    pub input_output_alias: Vec<InputOutputAlias>,
    /// `buffer_donor=`.
    pub buffer_donor: Vec<BufferDonor>,
    /// `replica_count=` when printed.
    pub replica_count: Option<i64>,
    /// `num_partitions=` when printed.
    pub num_partitions: Option<i64>,
    /// Other header attributes (`frontend_attributes`,
    /// `allow_spmd_sharding_propagation_to_output`, ...), verbatim, in order.
    pub raw_attributes: Vec<RawAttribute>,
}

/// An HLO module: computations (callees before callers) and one entry.
#[derive(Clone, Debug)]
pub struct Module {
    /// `HloModule NAME`.
    pub name: String,
    /// Every computation.
    pub computations: PrimaryMap<ComputationId, Computation>,
    /// Live computations in print order: callees before callers, entry last.
    pub order: Vec<ComputationId>,
    /// The entry computation.
    pub entry: ComputationId,
    /// Header settings.
    pub config: ModuleConfig,
    /// Stack-frame tables, when present.
    pub stack_frames: Option<StackFrameIndex>,
}

impl Module {
    /// True if computation `c`, or anything it calls, has a side-effecting instruction.
    pub fn calls_side_effect(&self, c: ComputationId) -> bool {
        self.computations[c]
            .iter()
            .any(|(_, i)| self.has_side_effect(&i.op))
    }

    /// True if `op` has a side effect or calls a computation that has one: a `while`
    /// whose body prints must stay even when nothing reads its result (XLA's
    /// `HloInstruction::HasSideEffect` through called computations).
    pub fn has_side_effect(&self, op: &Op) -> bool {
        op.has_side_effect()
            || op
                .called_computations()
                .into_iter()
                .any(|c| self.calls_side_effect(c))
    }

    /// A module with one computation, which is its entry.
    pub fn new(name: impl Into<String>, entry: Computation) -> Module {
        let mut computations = PrimaryMap::new();
        let id = computations.push(entry);
        Module {
            name: name.into(),
            computations,
            order: vec![id],
            entry: id,
            config: ModuleConfig::default(),
            stack_frames: None,
        }
    }

    /// Adds a computation before the entry in print order (callees come first) and returns its id.
    pub fn add_computation(&mut self, comp: Computation) -> ComputationId {
        let id = self.computations.push(comp);
        let pos = self
            .order
            .iter()
            .position(|&c| c == self.entry)
            .unwrap_or(self.order.len());
        self.order.insert(pos, id);
        id
    }

    /// The entry computation.
    pub fn entry_computation(&self) -> &Computation {
        &self.computations[self.entry]
    }

    /// The computation with this id.
    pub fn computation(&self, id: ComputationId) -> &Computation {
        &self.computations[id]
    }

    /// The live computation with this name, if any.
    pub fn find_computation(&self, name: &str) -> Option<ComputationId> {
        self.order
            .iter()
            .copied()
            .find(|&c| self.computations[c].name == name)
    }

    /// The entry computation's parameter shapes, by number.
    pub fn entry_parameter_shapes(&self) -> Vec<Shape> {
        self.entry_computation().parameter_shapes()
    }

    /// The entry computation's result shape.
    pub fn result_shape(&self) -> &Shape {
        &self.entry_computation().root_instr().shape
    }
}
