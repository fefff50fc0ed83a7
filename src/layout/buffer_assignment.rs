//! Buffer assignment: which allocation, at which offset, every array value lives in.
//! Parameters, constants and entry outputs get allocations of their own; temporaries are
//! packed into one `preallocated-temp` arena by liveness over the schedule (best fit), so
//! values whose lifetimes do not overlap share bytes; values that must share storage
//! (bitcasts, tuple forwarding, while-loop state, in-place updates, aliased outputs) share
//! one buffer. XLA: `xla/service/buffer_assignment.cc`, `heap_simulator/`, `hlo_dataflow_analysis.cc`.
//!
//! The module must be scheduled (`HloMemoryScheduler`): each computation's `order` is the
//! sequence the runtime executes, and liveness is read from it.
//!
//! The steps, in order: [`AliasAnalysis`] merges positions that share bytes by
//! construction; live ranges come from the flattened schedule ([`FlatSchedule`]);
//! `input_output_alias` pairs and in-place updates (a dynamic-update-slice, a single-operand
//! scatter, or a kLoop fusion whose root is a dynamic-update-slice, writing into operand 0
//! when operand 0 dies there) are merged where liveness allows; then every buffer gets an
//! allocation: entry parameters and constants their own, buffers live out of the entry and
//! while-loop state their own, and the rest one best-fit packed arena
//! ([`best_fit_heap`]). The dump texts are in `buffer_assignment_text.rs`.

use std::collections::{BTreeMap, HashMap};

use super::alias_analysis::{AliasAnalysis, array_leaves};
use super::heap_simulator::{HeapBuffer, best_fit_heap};
use super::live_range::{FlatSchedule, LiveRange, position_live_ranges};
use crate::ir::{ComputationId, ErrorKind, FusionKind, InstrId, Module, Op, Opcode, ShapeIndex};

/// Every allocation starts at, and every temp offset is a multiple of, this many bytes.
pub const ALIGNMENT: usize = 64;

/// A byte range of one allocation: what a kernel argument or a library call operand is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// Index into [`BufferAssignment::allocations`].
    pub allocation: usize,
    /// Byte offset inside the allocation.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
}

/// Why an allocation exists; printed with XLA's labels in `-buffer-assignment.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationKind {
    /// `parameter N, shape |...| at ShapeIndex {...}`: an entry parameter leaf, supplied by
    /// the caller at run time.
    Parameter {
        /// Entry parameter number.
        number: usize,
        /// Which leaf of a tuple parameter (`{}` for an array parameter).
        shape_index: ShapeIndex,
    },
    /// `constant`: a constant's bytes, filled once when the executable is built.
    Constant,
    /// `preallocated-temp`: the arena that holds the packed temporaries.
    PreallocatedTemp,
    /// A value of its own that is neither of the above (an entry output, a value live
    /// across a while loop, ...); `maybe_live_out` says whether the caller sees it.
    Temp,
}

/// One value placed in an allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssignedValue {
    /// The computation the defining instruction lives in.
    pub computation: ComputationId,
    /// The defining instruction.
    pub instruction: InstrId,
    /// Which leaf of its shape.
    pub shape_index: ShapeIndex,
    /// Byte offset in the allocation.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
}

/// One allocation: a contiguous block of memory the runtime creates once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferAllocation {
    /// Its number (`allocation N`).
    pub index: usize,
    /// Bytes.
    pub size: usize,
    /// Why it exists.
    pub kind: AllocationKind,
    /// Holds (part of) the entry computation's result.
    pub maybe_live_out: bool,
    /// The values assigned to it.
    pub values: Vec<AssignedValue>,
}

/// The buffer plan of a scheduled module.
#[derive(Clone, Debug, Default)]
pub struct BufferAssignment {
    /// Every allocation, by index.
    pub allocations: Vec<BufferAllocation>,
    /// Where each array leaf of each instruction of a non-fused computation (the entry and
    /// the while/conditional/call computations) lives. Fused computations and embedded
    /// scalar computations (reducers, comparators) have no buffers.
    slices: HashMap<(ComputationId, InstrId, ShapeIndex), Slice>,
    /// The flattened schedule liveness was read from (for `-live-range.txt`).
    pub(crate) sequence: Vec<(ComputationId, InstrId)>,
    /// Every assigned value with its number, buffer live range and allocation (for the dumps).
    pub(crate) values: Vec<ValueInfo>,
}

/// One value as the dumps show it.
#[derive(Clone, Debug)]
pub(crate) struct ValueInfo {
    /// XLA's value id (`<7 add.3>`).
    pub id: usize,
    /// Where it is defined.
    pub computation: ComputationId,
    /// Its defining instruction.
    pub instruction: InstrId,
    /// Its leaf.
    pub shape_index: ShapeIndex,
    /// Bytes.
    pub size: usize,
    /// The live range of its buffer.
    pub live: LiveRange,
    /// Its allocation and offset.
    pub slice: Slice,
}

/// What a buffer holds, which decides its allocation.
#[derive(Clone, Debug, Default)]
struct BufferFacts {
    /// Entry parameter positions: (number, leaf).
    parameters: Vec<(usize, ShapeIndex)>,
    /// Holds a constant.
    constant: bool,
    /// Holds (part of) the entry result.
    live_out: bool,
    /// Holds a while loop's state.
    while_state: bool,
    /// Spans more than one computation.
    crosses_computations: bool,
}

impl BufferFacts {
    /// True for a buffer that the packed arena may hold.
    fn is_plain_temp(&self) -> bool {
        self.parameters.is_empty() && !self.constant && !self.live_out && !self.while_state
    }
}

/// Why buffer assignment refused a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferAssignmentError {
    /// Two entry parameter leaves (number, index) would share one buffer: the module's
    /// aliasing (`input_output_alias`, a while loop) ties them together.
    SharedParameters {
        /// The first parameter leaf.
        first: (usize, ShapeIndex),
        /// The second.
        second: (usize, ShapeIndex),
    },
    /// `input_output_alias` names a parameter the entry does not have.
    MissingAliasedParameter {
        /// The parameter it names.
        parameter: usize,
        /// How many the entry has.
        parameters: usize,
    },
    /// Alias analysis met a value whose leaves do not match the place it is forwarded
    /// to (the verifier checks shapes first, so this is a bug of xlac's).
    Mismatch {
        /// The instruction.
        instruction: String,
        /// Its leaf, or the index below which it has no element.
        index: Vec<usize>,
        /// The instruction its leaf has no counterpart in (`None`: the index itself is
        /// not in the instruction's shape).
        counterpart: Option<String>,
    },
}

impl BufferAssignmentError {
    /// Whether the module is wrong or xlac has a bug.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BufferAssignmentError::SharedParameters { .. }
            | BufferAssignmentError::MissingAliasedParameter { .. } => ErrorKind::Invalid,
            BufferAssignmentError::Mismatch { .. } => ErrorKind::Internal,
        }
    }
}

impl std::fmt::Display for BufferAssignmentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use super::alias_analysis::index_string;
        match self {
            BufferAssignmentError::SharedParameters { first, second } => write!(
                f,
                "entry parameters {} {} and {} {} would share one buffer",
                first.0,
                index_string(&first.1),
                second.0,
                index_string(&second.1)
            ),
            BufferAssignmentError::MissingAliasedParameter {
                parameter,
                parameters,
            } => write!(
                f,
                "input_output_alias names parameter {parameter} but the entry has {parameters}"
            ),
            BufferAssignmentError::Mismatch {
                instruction,
                index,
                counterpart: None,
            } => write!(f, "{instruction}: no element at {index:?}"),
            BufferAssignmentError::Mismatch {
                instruction,
                index,
                counterpart: Some(other),
            } => write!(
                f,
                "{instruction}: its leaf {index:?} has no counterpart in {other}"
            ),
        }
    }
}

impl std::error::Error for BufferAssignmentError {}

impl BufferAssignment {
    /// Plans the buffers of a scheduled module.
    pub fn run(module: &Module) -> Result<BufferAssignment, BufferAssignmentError> {
        let mut alias = AliasAnalysis::run(module)?;
        let schedule = FlatSchedule::new(module, &alias);
        let position_ranges = position_live_ranges(module, &alias, &schedule);
        let mut ranges = buffer_ranges(&alias, &position_ranges);
        merge_input_output_aliases(module, &mut alias, &schedule, &mut ranges)?;
        merge_in_place_updates(module, &mut alias, &schedule, &mut ranges);

        // The buffers, in order of their first position.
        let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for p in 0..alias.positions.len() {
            members.entry(alias.buffer_of(p)).or_default().push(p);
        }
        let facts: BTreeMap<usize, BufferFacts> = members
            .iter()
            .map(|(&b, ps)| (b, buffer_facts(module, &alias, ps)))
            .collect();
        let size_of = |b: usize| {
            members[&b]
                .iter()
                .map(|&p| alias.positions[p].size)
                .max()
                .unwrap_or(0)
        };

        let mut ba = BufferAssignment {
            sequence: schedule.sequence.clone(),
            ..BufferAssignment::default()
        };
        let mut buffer_slice: HashMap<usize, Slice> = HashMap::new();
        let new_allocation = |ba: &mut BufferAssignment, size, kind, live_out| {
            let index = ba.allocations.len();
            ba.allocations.push(BufferAllocation {
                index,
                size,
                kind,
                maybe_live_out: live_out,
                values: Vec::new(),
            });
            index
        };

        // 1. Entry parameters, by number and leaf.
        let mut params: Vec<(usize, ShapeIndex, usize)> = Vec::new();
        for (&b, f) in &facts {
            match f.parameters.as_slice() {
                [] => {}
                [(n, index)] => params.push((*n, index.clone(), b)),
                [first, second, ..] => {
                    return Err(BufferAssignmentError::SharedParameters {
                        first: first.clone(),
                        second: second.clone(),
                    });
                }
            }
        }
        params.sort();
        for (number, shape_index, b) in params {
            let kind = AllocationKind::Parameter {
                number,
                shape_index,
            };
            let a = new_allocation(&mut ba, size_of(b), kind, facts[&b].live_out);
            buffer_slice.insert(b, whole(a, size_of(b)));
        }
        // 2. Constants, 3. entry results and while-loop state: one allocation each.
        for (&b, f) in &facts {
            if f.parameters.is_empty() && f.constant {
                let a = new_allocation(&mut ba, size_of(b), AllocationKind::Constant, f.live_out);
                buffer_slice.insert(b, whole(a, size_of(b)));
            }
        }
        for (&b, f) in &facts {
            if f.parameters.is_empty() && !f.constant && (f.live_out || f.while_state) {
                let a = new_allocation(&mut ba, size_of(b), AllocationKind::Temp, f.live_out);
                buffer_slice.insert(b, whole(a, size_of(b)));
            }
        }
        // 4. Everything else: packed by liveness into one arena.
        let temps: Vec<usize> = facts
            .iter()
            .filter(|(_, f)| f.is_plain_temp())
            .map(|(&b, _)| b)
            .collect();
        if !temps.is_empty() {
            let heap: Vec<HeapBuffer> = temps
                .iter()
                .map(|&b| HeapBuffer {
                    size: size_of(b),
                    live: ranges[&b],
                })
                .collect();
            let placed = best_fit_heap(&heap, ALIGNMENT);
            let a = new_allocation(
                &mut ba,
                placed.heap_size,
                AllocationKind::PreallocatedTemp,
                false,
            );
            for (k, &b) in temps.iter().enumerate() {
                let slice = Slice {
                    allocation: a,
                    offset: placed.offsets[k],
                    size: size_of(b),
                };
                buffer_slice.insert(b, slice);
            }
        }

        // Every position gets its buffer's slice; defining positions become values.
        for (p, pos) in alias.positions.iter().enumerate() {
            let b = alias.buffer_of(p);
            let buffer = buffer_slice[&b];
            let slice = Slice {
                size: pos.size,
                ..buffer
            };
            ba.slices
                .insert((pos.computation, pos.instruction, pos.index.clone()), slice);
            if defines_value(module, pos.computation, pos.instruction) {
                let id = ba.values.len();
                ba.values.push(ValueInfo {
                    id,
                    computation: pos.computation,
                    instruction: pos.instruction,
                    shape_index: pos.index.clone(),
                    size: pos.size,
                    live: ranges[&b],
                    slice,
                });
                ba.allocations[slice.allocation].values.push(AssignedValue {
                    computation: pos.computation,
                    instruction: pos.instruction,
                    shape_index: pos.index.clone(),
                    offset: slice.offset,
                    size: pos.size,
                });
            }
        }
        Ok(ba)
    }

    /// Where leaf `index` of `instr`'s value lives; `None` for positions with no buffer
    /// (tuple-shaped positions, tokens, fused or embedded computations).
    pub fn slice(
        &self,
        computation: ComputationId,
        instr: InstrId,
        index: &[usize],
    ) -> Option<Slice> {
        self.slices
            .get(&(computation, instr, index.to_vec()))
            .copied()
    }

    /// Overrides one slice (tests of the checker only).
    #[cfg(test)]
    pub(crate) fn set_slice_for_test(
        &mut self,
        c: ComputationId,
        i: InstrId,
        index: &[usize],
        slice: Slice,
    ) {
        self.slices.insert((c, i, index.to_vec()), slice);
    }

    /// Bytes of the `preallocated-temp` allocation (0 when there is none).
    pub fn temp_bytes(&self) -> usize {
        self.allocations
            .iter()
            .filter(|a| a.kind == AllocationKind::PreallocatedTemp)
            .map(|a| a.size)
            .sum()
    }
}

fn whole(allocation: usize, size: usize) -> Slice {
    Slice {
        allocation,
        offset: 0,
        size,
    }
}

/// The live range of each buffer: the join of its positions' ranges.
fn buffer_ranges(
    alias: &AliasAnalysis,
    position_ranges: &[LiveRange],
) -> HashMap<usize, LiveRange> {
    let mut ranges: HashMap<usize, LiveRange> = HashMap::new();
    for (p, r) in position_ranges.iter().enumerate() {
        let b = alias.buffer_of(p);
        let joined = ranges.get(&b).map_or(*r, |x| x.join(r));
        ranges.insert(b, joined);
    }
    ranges
}

/// Merges two buffers and their live ranges.
fn union_buffers(
    alias: &mut AliasAnalysis,
    ranges: &mut HashMap<usize, LiveRange>,
    a: usize,
    b: usize,
) {
    let (ra, rb) = (alias.buffer_of(a), alias.buffer_of(b));
    if ra == rb {
        return;
    }
    let joined = ranges[&ra].join(&ranges[&rb]);
    let r = alias.union(ra, rb);
    ranges.remove(&ra);
    ranges.remove(&rb);
    ranges.insert(r, joined);
}

/// True if this instruction's positions define values rather than forward their
/// operand's (forwarders: bitcast, get-tuple-element, tuple, opt-barrier, add-dependency,
/// while/conditional/call results, and the parameters of called computations).
fn defines_value(module: &Module, c: ComputationId, i: InstrId) -> bool {
    let instr = &module.computations[c].instrs[i];
    match &instr.op {
        Op::Parameter { .. } => c == module.entry,
        Op::GetTupleElement { .. }
        | Op::While { .. }
        | Op::Conditional { .. }
        | Op::Call { .. } => false,
        Op::Plain(op) => !matches!(
            op,
            Opcode::Bitcast | Opcode::Tuple | Opcode::OptimizationBarrier | Opcode::AddDependency
        ),
        _ => true,
    }
}

fn buffer_facts(module: &Module, alias: &AliasAnalysis, positions: &[usize]) -> BufferFacts {
    let mut f = BufferFacts::default();
    let entry = module.entry_computation();
    let first_comp = alias.positions[positions[0]].computation;
    for &p in positions {
        let pos = &alias.positions[p];
        let instr = &module.computations[pos.computation].instrs[pos.instruction];
        if pos.computation != first_comp {
            f.crosses_computations = true;
        }
        match &instr.op {
            Op::Parameter { number } if pos.computation == module.entry => {
                f.parameters.push((*number, pos.index.clone()));
            }
            Op::Constant { .. } => f.constant = true,
            Op::While { .. } => f.while_state = true,
            _ => {}
        }
        if pos.computation == module.entry && pos.instruction == entry.root {
            f.live_out = true;
        }
    }
    f
}

/// `input_output_alias`: the entry output leaf shares the parameter's buffer when the
/// parameter is no longer read once the output is written: the parameter's last use is
/// before the output's definition, or is the instruction defining it, which may then
/// write over that operand ([`can_share_operand_buffer_with_user`]: an in-place update,
/// or an elementwise op or loop fusion, one element of a multi-output fusion's tuple
/// included, reading the operand at the index it writes) and reads the parameter's
/// buffer through no other operand. Otherwise the output keeps a buffer of its own.
fn merge_input_output_aliases(
    module: &Module,
    alias: &mut AliasAnalysis,
    schedule: &FlatSchedule,
    ranges: &mut HashMap<usize, LiveRange>,
) -> Result<(), BufferAssignmentError> {
    let entry = module.entry_computation();
    let params = entry.parameters();
    for io in &module.config.input_output_alias {
        let Some(&param) = params.get(io.parameter) else {
            return Err(BufferAssignmentError::MissingAliasedParameter {
                parameter: io.parameter,
                parameters: params.len(),
            });
        };
        let (Some(p), Some(o)) = (
            alias.position(module.entry, param, &io.parameter_index),
            alias.position(module.entry, entry.root, &io.output_index),
        ) else {
            continue;
        };
        if alias.positions[p].size != alias.positions[o].size {
            continue;
        }
        let (bp, bo) = (alias.buffer_of(p), alias.buffer_of(o));
        if bp == bo {
            continue;
        }
        // The instruction that writes the output leaf: the first position of its buffer
        // in schedule order.
        let out_def = ranges[&bo].start;
        let param_end = ranges[&bp].end;
        let overwrites_param = || {
            let Some(&(c, w)) = schedule.sequence.get(out_def) else {
                return false;
            };
            if c != module.entry {
                return false;
            }
            let comp = &module.computations[c];
            let writer = &comp.instrs[w];
            // Which leaf of the writer the output is.
            let Some(user_index) = array_leaves(&writer.shape)
                .into_iter()
                .map(|(index, _)| index)
                .find(|index| {
                    alias
                        .position(c, w, index)
                        .is_some_and(|q| alias.buffer_of(q) == bo)
                })
            else {
                return false;
            };
            let reads_param = |k: usize| {
                let x = writer.operands[k];
                array_leaves(&comp.instrs[x].shape)
                    .iter()
                    .filter_map(|(index, _)| alias.position(c, x, index))
                    .any(|q| alias.buffer_of(q) == bp)
            };
            let readers: Vec<usize> = (0..writer.operands.len())
                .filter(|&k| reads_param(k))
                .collect();
            matches!(readers.as_slice(), [k]
                if alias.position(c, writer.operands[*k], &[])
                    .is_some_and(|q| alias.buffer_of(q) == bp)
                && can_share_operand_buffer_with_user(module, c, w, *k, &user_index))
        };
        if param_end < out_def || (param_end == out_def && overwrites_param()) {
            union_buffers(alias, ranges, p, o);
        }
    }
    Ok(())
}

/// True if `user` may write leaf `user_index` of its result over the bytes of its array
/// operand `k` (XLA's `HloDataflowAnalysis::CanShareOperandBufferWithUser`): operand and
/// leaf have one shape (type, dimensions, layout), and either `k` is the operand the user
/// updates in place ([`in_place_operand`]), or every element of the leaf is computed from
/// the operand's element at the same index, read before it is written: an elementwise op
/// (not `copy`, nor one with side effects), or a kLoop fusion whose fused parameter `k`
/// reaches the root only through elementwise ops of its dimensions and the root tuple of
/// a multi-output fusion (`AreTransitiveUsesElementwiseOrTuple`). A multi-output kernel
/// computes every output at an index before it stores any.
pub fn can_share_operand_buffer_with_user(
    module: &Module,
    c: ComputationId,
    user: InstrId,
    k: usize,
    user_index: &[usize],
) -> bool {
    let comp = &module.computations[c];
    let instr = &comp.instrs[user];
    let Some(&operand) = instr.operands.get(k) else {
        return false;
    };
    let operand_shape = &comp.instrs[operand].shape;
    if !operand_shape.is_array() || instr.shape.subshape(user_index) != Some(operand_shape) {
        return false;
    }
    if matches!(comp.instrs[operand].op, Op::Constant { .. }) {
        return false;
    }
    if in_place_operand(module, c, user) == Some(k) {
        return user_index.is_empty();
    }
    match &instr.op {
        Op::Plain(Opcode::Copy) => false,
        Op::Fusion {
            kind: FusionKind::Loop,
            calls,
        } => {
            let fused = &module.computations[*calls];
            let root = fused.root_instr();
            let leaf_ok = if root.opcode() == Opcode::Tuple {
                user_index.len() == 1
            } else {
                user_index.is_empty()
            };
            leaf_ok
                && fused
                    .parameters()
                    .get(k)
                    .is_some_and(|&p| uses_are_elementwise_or_root_tuple(fused, p))
        }
        op => user_index.is_empty() && op.opcode().is_elementwise() && !op.has_side_effect(),
    }
}

/// True if every transitive user of fused parameter `p` is an elementwise op of its
/// dimensions without side effects, or the fusion's root tuple.
fn uses_are_elementwise_or_root_tuple(fused: &crate::ir::Computation, p: InstrId) -> bool {
    let users = fused.users();
    let dims = fused.instrs[p].shape.dims().to_vec();
    let mut stack = vec![p];
    let mut seen = std::collections::HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        for &u in &users[x] {
            let ui = &fused.instrs[u];
            if u == fused.root && ui.opcode() == Opcode::Tuple {
                continue;
            }
            if !ui.opcode().is_elementwise()
                || ui.op.has_side_effect()
                || ui.shape.dims() != dims.as_slice()
            {
                return false;
            }
            stack.push(u);
        }
    }
    true
}

/// In-place updates: a dynamic-update-slice (or single-operand scatter, or a kLoop fusion
/// whose root is a dynamic-update-slice of a fused parameter read nowhere else) writes
/// into operand 0's buffer when that buffer dies at the update; an elementwise op (or a
/// kLoop fusion that reads a parameter only elementwise) writes into an operand of the
/// same shape that dies there (XLA's `CanShareOperandBufferWithUser`: element `i` is read
/// before element `i` is written, and by nobody else). Both buffers must be ordinary
/// temporaries or entry results (never a parameter, constant or while state, whose bytes
/// others still own).
fn merge_in_place_updates(
    module: &Module,
    alias: &mut AliasAnalysis,
    schedule: &FlatSchedule,
    ranges: &mut HashMap<usize, LiveRange>,
) {
    for (t, &(c, id)) in schedule.sequence.iter().enumerate() {
        let instr = &module.computations[c].instrs[id];
        let candidates: Vec<usize> = match in_place_operand(module, c, id) {
            Some(k) => vec![k],
            None => elementwise_shareable_operands(module, c, id),
        };
        for k in candidates {
            let x = instr.operands[k];
            let (Some(p0), Some(pr)) = (alias.position(c, x, &[]), alias.position(c, id, &[]))
            else {
                continue;
            };
            if alias.positions[p0].size != alias.positions[pr].size {
                continue;
            }
            let (b0, br) = (alias.buffer_of(p0), alias.buffer_of(pr));
            if b0 == br || ranges[&b0].end != t {
                continue;
            }
            // No other operand may read the buffer being overwritten.
            let read_elsewhere = instr.operands.iter().enumerate().any(|(j, &o)| {
                j != k
                    && array_leaves(&module.computations[c].instrs[o].shape)
                        .iter()
                        .filter_map(|(index, _)| alias.position(c, o, index))
                        .any(|q| alias.buffer_of(q) == b0)
            });
            if read_elsewhere {
                continue;
            }
            let ordinary = |b: usize| {
                let ps: Vec<usize> = (0..alias.positions.len())
                    .filter(|&q| alias.buffer_of(q) == b)
                    .collect();
                let f = buffer_facts(module, alias, &ps);
                f.parameters.is_empty() && !f.constant && !f.while_state && !f.crosses_computations
            };
            if ordinary(b0) && ordinary(br) {
                union_buffers(alias, ranges, p0, pr);
                break;
            }
        }
    }
}

/// Operands an elementwise instruction may overwrite with its result: those with exactly
/// its shape (type, dimensions, layout). For a kLoop fusion with an array result: the
/// operands whose fused parameter reaches the root only through elementwise ops of the
/// same dimensions. Not `copy` (copy insertion wants distinct bytes) nor ops with
/// side effects.
pub fn elementwise_shareable_operands(
    module: &Module,
    c: ComputationId,
    id: InstrId,
) -> Vec<usize> {
    let comp = &module.computations[c];
    let instr = &comp.instrs[id];
    let same_shape = |x: InstrId| comp.instrs[x].shape == instr.shape;
    match &instr.op {
        Op::Plain(Opcode::Copy) => Vec::new(),
        Op::Fusion {
            kind: FusionKind::Loop,
            calls,
        } if instr.shape.is_array() => {
            let fused = &module.computations[*calls];
            let params = fused.parameters();
            (0..instr.operands.len())
                .filter(|&k| same_shape(instr.operands[k]))
                .filter(|&k| {
                    params
                        .get(k)
                        .is_some_and(|&p| uses_are_elementwise_or_root_tuple(fused, p))
                })
                .collect()
        }
        op if op.opcode().is_elementwise() && !op.has_side_effect() => (0..instr.operands.len())
            .filter(|&k| same_shape(instr.operands[k]))
            .collect(),
        _ => Vec::new(),
    }
}

/// The operand an instruction may update in place: operand 0 of a dynamic-update-slice
/// or of a single-operand scatter; for a kLoop fusion whose root is a dynamic-update-slice
/// of fused parameter N that nothing else in the fusion reads, operand N.
pub fn in_place_operand(module: &Module, c: ComputationId, id: InstrId) -> Option<usize> {
    let instr = &module.computations[c].instrs[id];
    match &instr.op {
        Op::Plain(Opcode::DynamicUpdateSlice) => Some(0),
        Op::Scatter { .. } if instr.operands.len() == 3 => Some(0),
        Op::Fusion {
            kind: FusionKind::Loop,
            calls,
        } => {
            let fused = &module.computations[*calls];
            let root = fused.root_instr();
            if root.opcode() != Opcode::DynamicUpdateSlice {
                return None;
            }
            let target = *root.operands.first()?;
            let Op::Parameter { number } = fused.instrs[target].op else {
                return None;
            };
            let uses = fused
                .iter()
                .flat_map(|(_, i)| i.operands.iter())
                .filter(|&&o| o == target)
                .count();
            (uses == 1).then_some(number)
        }
        _ => None,
    }
}
