//! Kernels of a final module, and where an instruction of the input landed among them.
//!
//! A kernel is an entry instruction that launches work: everything but `parameter`,
//! `constant`, `tuple`, `get-tuple-element` and `bitcast` (a fusion, custom call, dot,
//! while or call counts as one, as in `testdata/*/meta.json`'s `xla_kernel_count`). Every
//! instruction of a computation that a kernel calls, transitively, belongs to it.
//!
//! An input instruction is found in a final module by its name or by its metadata: the
//! `op_name` and the source location (the whole stack of frames, resolved through the
//! module's stack-frame table, since XLA renumbers the table between dumps). xlac keeps
//! the input's names, so names are tried first on its side; XLA renames instructions
//! while it optimizes (`add.28` comes out as `add.2`), so metadata is tried first on its
//! side, and a name there only counts with the same opcode. An instruction found neither
//! way is placed through its computation's callers (a reducer's body runs in the kernel
//! of its `reduce`) or, for a `call` that was inlined, through its callee's root; failing
//! that, it is reported as not found (folded, simplified, or rebuilt without metadata).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::front::hlo_text::shape_with_layout;
use crate::ir::{ComputationId, InstrId, Metadata, Module, Op, Opcode};

/// Opcodes of entry instructions that launch nothing.
pub const NOT_KERNELS: [Opcode; 5] = [
    Opcode::Parameter,
    Opcode::Constant,
    Opcode::Tuple,
    Opcode::GetTupleElement,
    Opcode::Bitcast,
];

/// One launching instruction of the entry computation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// `fusion kLoop`, `custom-call TopK`, `dot`, `while`, ...
    pub what: String,
    /// Its result shape with layout.
    pub shape: String,
    /// Instructions in the computations it calls, transitively.
    pub fused_instructions: usize,
}

/// How an input instruction was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum How {
    /// The same name.
    Name,
    /// The same `op_name` and source location.
    Metadata,
    /// The same entry parameter number.
    Parameter,
    /// Its computation is called by this input instruction, which was found.
    Caller(String),
    /// It is an inlined `call`: its callee's root was found.
    Callee,
}

impl std::fmt::Display for How {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            How::Name => f.write_str("name"),
            How::Metadata => f.write_str("metadata"),
            How::Parameter => f.write_str("parameter number"),
            How::Caller(c) => write!(f, "via caller {c}"),
            How::Callee => f.write_str("via callee root"),
        }
    }
}

/// Where an input instruction landed on one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landing {
    /// In these kernels (indices into [`Side::kernels`]; several when it was duplicated).
    Kernels {
        /// Kernel indices, ascending.
        kernels: Vec<usize>,
        /// How it was found.
        how: How,
    },
    /// It is (or became) an entry instruction that launches nothing.
    NotLaunched {
        /// Its opcode there (`parameter`, `constant`, `bitcast`, ...).
        opcode: Opcode,
        /// How it was found.
        how: How,
    },
    /// No instruction of the final module carries it by name or metadata, nor through its
    /// callers or callee: folded, simplified, or rebuilt without its metadata.
    NotFound,
}

impl Landing {
    /// The kernel indices (empty unless [`Landing::Kernels`]).
    pub fn kernels(&self) -> &[usize] {
        match self {
            Landing::Kernels { kernels, .. } => kernels,
            _ => &[],
        }
    }
}

/// A final module's kernels and an index of its instructions.
pub struct Side<'m> {
    /// The final module.
    pub module: &'m Module,
    /// Its kernels, in schedule (text) order.
    pub kernels: Vec<Kernel>,
    /// True when names are tried before metadata (xlac keeps the input's names).
    pub names_first: bool,
    place: HashMap<(ComputationId, InstrId), Place>,
    by_name: HashMap<String, Vec<(ComputationId, InstrId)>>,
    by_key: HashMap<MetaKey, Vec<(ComputationId, InstrId)>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Kernel(usize),
    NotLaunched(Opcode),
}

/// `op_name` and the source frames, innermost first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MetaKey {
    op_name: String,
    frames: Vec<(String, i64, i64)>,
}

/// The metadata key of an instruction of `module`, when it has an `op_name`.
pub fn meta_key(module: &Module, metadata: Option<&Metadata>) -> Option<MetaKey> {
    let m = metadata?;
    let op_name = m.op_name.clone()?;
    let mut frames = Vec::new();
    if let (Some(file), Some(line)) = (&m.source_file, m.source_line) {
        frames.push((file.clone(), line, m.source_column.unwrap_or(0)));
    }
    if let (Some(id), Some(table)) = (m.stack_frame_id, &module.stack_frames) {
        for (file, loc) in table.chain(id) {
            frames.push((file.to_string(), loc.line, loc.column));
        }
    }
    Some(MetaKey { op_name, frames })
}

/// Is this entry instruction a kernel?
pub fn launches(opcode: Opcode) -> bool {
    !NOT_KERNELS.contains(&opcode)
}

impl<'m> Side<'m> {
    /// Indexes the final module `module`.
    pub fn new(module: &'m Module, names_first: bool) -> Side<'m> {
        let mut side = Side {
            module,
            kernels: Vec::new(),
            names_first,
            place: HashMap::new(),
            by_name: HashMap::new(),
            by_key: HashMap::new(),
        };
        let entry = module.entry_computation();
        for &id in &entry.order {
            let instr = entry.instr(id);
            let opcode = instr.opcode();
            if !launches(opcode) {
                side.place
                    .insert((module.entry, id), Place::NotLaunched(opcode));
                continue;
            }
            let k = side.kernels.len();
            side.place.insert((module.entry, id), Place::Kernel(k));
            // Every computation it calls, transitively, runs inside it.
            let mut seen = HashSet::new();
            let mut stack = instr.op.called_computations();
            let mut inside = 0;
            while let Some(c) = stack.pop() {
                if !seen.insert(c) || c == module.entry {
                    continue;
                }
                let comp = &module.computations[c];
                for &i in &comp.order {
                    inside += 1;
                    side.place.entry((c, i)).or_insert(Place::Kernel(k));
                    stack.extend(comp.instr(i).op.called_computations());
                }
            }
            side.kernels.push(Kernel {
                name: instr.name.clone(),
                what: describe(module, &instr.op),
                shape: shape_with_layout(&instr.shape),
                fused_instructions: inside,
            });
        }
        for &c in &module.order {
            let comp = &module.computations[c];
            for &i in &comp.order {
                let instr = comp.instr(i);
                side.by_name
                    .entry(instr.name.clone())
                    .or_default()
                    .push((c, i));
                if let Some(key) = meta_key(module, instr.metadata.as_ref()) {
                    side.by_key.entry(key).or_default().push((c, i));
                }
            }
        }
        side
    }

    /// Where instruction `id` of computation `comp` of `input` landed.
    pub fn locate(&self, input: &Module, comp: ComputationId, id: InstrId) -> Landing {
        self.locate_depth(input, comp, id, 0)
    }

    /// The final instructions that carry `id` of `input` (the ones [`Side::locate`] found
    /// directly, by name or metadata), for reading their shapes.
    pub fn matches(
        &self,
        input: &Module,
        comp: ComputationId,
        id: InstrId,
    ) -> Vec<(ComputationId, InstrId)> {
        let instr = input.computations[comp].instr(id);
        let opcode = instr.opcode();
        let same_op = |v: &Vec<(ComputationId, InstrId)>| -> Vec<(ComputationId, InstrId)> {
            v.iter()
                .copied()
                .filter(|&(c, i)| self.module.computations[c].instr(i).opcode() == opcode)
                .collect()
        };
        let by_name = || {
            self.by_name
                .get(&instr.name)
                .map(same_op)
                .unwrap_or_default()
        };
        let by_key = || {
            meta_key(input, instr.metadata.as_ref())
                .and_then(|k| self.by_key.get(&k))
                .map(same_op)
                .unwrap_or_default()
        };
        let found = if self.names_first {
            by_name()
        } else {
            by_key()
        };
        if !found.is_empty() {
            return found;
        }
        if self.names_first {
            by_key()
        } else {
            by_name()
        }
    }

    fn locate_depth(
        &self,
        input: &Module,
        comp: ComputationId,
        id: InstrId,
        depth: usize,
    ) -> Landing {
        let instr = input.computations[comp].instr(id);
        if let (true, Op::Parameter { number }) = (comp == input.entry, &instr.op) {
            let entry = self.module.entry_computation();
            let found = entry
                .order
                .iter()
                .any(|&i| matches!(entry.instr(i).op, Op::Parameter { number: n } if n == *number));
            if found {
                return Landing::NotLaunched {
                    opcode: Opcode::Parameter,
                    how: How::Parameter,
                };
            }
        }
        let opcode = instr.opcode();
        let key = meta_key(input, instr.metadata.as_ref());
        let names = self.by_name.get(&instr.name);
        let keyed = key.as_ref().and_then(|k| self.by_key.get(k));
        let with_op = |v: Option<&Vec<(ComputationId, InstrId)>>| -> Vec<(ComputationId, InstrId)> {
            v.map(|v| {
                v.iter()
                    .copied()
                    .filter(|&(c, i)| self.module.computations[c].instr(i).opcode() == opcode)
                    .collect()
            })
            .unwrap_or_default()
        };
        let mut attempts: Vec<(Vec<(ComputationId, InstrId)>, How)> = Vec::new();
        let any_name = names.cloned().unwrap_or_default();
        let any_key = keyed.cloned().unwrap_or_default();
        if self.names_first {
            attempts.push((any_name, How::Name));
            attempts.push((with_op(keyed), How::Metadata));
            attempts.push((any_key, How::Metadata));
        } else {
            attempts.push((with_op(keyed), How::Metadata));
            attempts.push((any_key, How::Metadata));
            attempts.push((with_op(names), How::Name));
        }
        for (places, how) in attempts {
            if let Some(landing) = self.landing_of(&places, how) {
                return landing;
            }
        }
        if depth >= 8 {
            return Landing::NotFound;
        }
        // An inlined call: its value is its callee's root.
        if let Op::Call { to_apply: callee } = instr.op {
            let root = input.computations[callee].root;
            match self.locate_depth(input, callee, root, depth + 1) {
                Landing::Kernels { kernels, .. } => {
                    return Landing::Kernels {
                        kernels,
                        how: How::Callee,
                    };
                }
                Landing::NotLaunched { opcode, .. } => {
                    return Landing::NotLaunched {
                        opcode,
                        how: How::Callee,
                    };
                }
                Landing::NotFound => {}
            }
        }
        // A computation's instruction runs where its callers run.
        if comp != input.entry {
            let mut kernels = BTreeSet::new();
            let mut via = None;
            for &c in &input.order {
                for &i in &input.computations[c].order {
                    let caller = input.computations[c].instr(i);
                    if !caller.op.called_computations().contains(&comp) {
                        continue;
                    }
                    let found = self.locate_depth(input, c, i, depth + 1);
                    if !found.kernels().is_empty() && via.is_none() {
                        via = Some(caller.name.clone());
                    }
                    kernels.extend(found.kernels().iter().copied());
                }
            }
            if let Some(via) = via {
                return Landing::Kernels {
                    kernels: kernels.into_iter().collect(),
                    how: How::Caller(via),
                };
            }
        }
        Landing::NotFound
    }

    fn landing_of(&self, places: &[(ComputationId, InstrId)], how: How) -> Option<Landing> {
        let mut kernels = BTreeSet::new();
        let mut not_launched = None;
        for p in places {
            match self.place.get(p) {
                Some(Place::Kernel(k)) => {
                    kernels.insert(*k);
                }
                Some(Place::NotLaunched(op)) => {
                    not_launched.get_or_insert(*op);
                }
                None => {}
            }
        }
        if !kernels.is_empty() {
            return Some(Landing::Kernels {
                kernels: kernels.into_iter().collect(),
                how,
            });
        }
        not_launched.map(|opcode| Landing::NotLaunched { opcode, how })
    }
}

/// `fusion kLoop`, `custom-call TopK`, or the opcode.
fn describe(_module: &Module, op: &Op) -> String {
    match op {
        Op::Fusion { kind, .. } => format!("fusion {kind}"),
        Op::CustomCall(cc) => format!("custom-call {}", cc.target),
        other => other.opcode().to_string(),
    }
}
