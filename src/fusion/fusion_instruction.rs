//! Building and growing fusion instructions, the mechanics every fusion pass shares:
//! wrap one instruction into a fusion, clone a producer into a fusion, merge two sibling
//! fusions into one with a tuple root. No policy here: the passes decide, this file edits.
//! XLA: `HloFusionInstruction::FuseInstruction` / `CloneAndFuseInternal`,
//! `HloComputation::CreateFusionInstruction` (`xla/hlo/ir/hlo_instructions.cc`,
//! `hlo_computation.cc`), `HloInstruction::MergeFusionInstructionIntoMultiOutput`.
//!
//! Invariants kept: a fusion's operands are distinct (one `param_N` per operand), the
//! fused computation lists its parameters first, and instruction names are unique in the
//! module (XLA's name uniquer), so `param_0.3` reads as in XLA's dumps.

use std::collections::{HashMap, HashSet};

use super::indexing::BodySummary;
use crate::ir::{
    Computation, ComputationId, FusionKind, InstrId, Instruction, Module, Op, Opcode, Shape,
    provenance,
};
use crate::pipeline::PassError;

/// Module-wide instruction names in use, to give new instructions fresh ones.
pub struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// Every instruction name of `module`.
    pub fn new(module: &Module) -> Namer {
        let taken = module
            .order
            .iter()
            .flat_map(|&c| module.computations[c].iter().map(|(_, i)| i.name.clone()))
            .collect();
        Namer { taken }
    }

    /// `base` if free, else `stem.N` with the smallest free N; marks it taken.
    pub fn fresh(&mut self, base: &str) -> String {
        let name = if !self.taken.contains(base) {
            base.to_string()
        } else {
            let stem = match base.rsplit_once('.') {
                Some((stem, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => stem,
                _ => base,
            };
            (1..)
                .map(|n| format!("{stem}.{n}"))
                .find(|n| !self.taken.contains(n))
                .unwrap_or_else(|| base.to_string())
        };
        self.taken.insert(name.clone());
        name
    }

    /// Gives `name` back (its instruction is gone or about to be renamed).
    pub fn release(&mut self, name: &str) {
        self.taken.remove(name);
    }
}

/// Names the parameters of a fused computation `param_N` after their numbers (uniquified
/// in the module, so `param_0.2`), as XLA's fused computations read.
pub fn rename_parameters(fused: &mut Computation, namer: &mut Namer) {
    let params = fused.parameters();
    rename_parameter_list(fused, &params, namer);
}

/// [`rename_parameters`] for a caller that knows the parameters (by number).
fn rename_parameter_list(fused: &mut Computation, params: &[InstrId], namer: &mut Namer) {
    for &p in params {
        let name = fused.instrs[p].name.clone();
        namer.release(&name);
    }
    for (number, &p) in params.iter().enumerate() {
        fused.instrs[p].name = namer.fresh(&format!("param_{number}"));
    }
}

/// The kind a fused computation's root calls for: `kOutput` if it holds a dot (the dot
/// epilogue), `kInput` if its root (or a tuple element of it) is a reduce, else `kLoop`.
pub fn choose_kind(fused: &Computation) -> FusionKind {
    kind_of(fused, fused.contains_opcode(Opcode::Dot))
}

/// [`choose_kind`] for a caller that knows whether the body holds a dot.
fn kind_of(fused: &Computation, has_dot: bool) -> FusionKind {
    if has_dot {
        return FusionKind::Output;
    }
    let root = fused.root_instr();
    let roots: Vec<InstrId> = if root.opcode() == Opcode::Tuple {
        root.operands.clone()
    } else {
        vec![fused.root]
    };
    if roots
        .iter()
        .any(|&r| fused.instr(r).opcode() == Opcode::Reduce)
    {
        FusionKind::Input
    } else {
        FusionKind::Loop
    }
}

/// Replaces `instr` of `comp_id` by a one-instruction fusion named `fusion_name` calling
/// a new computation named `computation_name` (both made unique), and returns the fusion.
/// Its operands are `instr`'s distinct operands, in first-use order.
pub fn wrap_instruction(
    module: &mut Module,
    comp_id: ComputationId,
    instr: InstrId,
    fusion_name: &str,
    computation_name: &str,
    namer: &mut Namer,
) -> InstrId {
    let fusion = build_wrapped(module, comp_id, instr, fusion_name, computation_name, namer);
    let comp = &mut module.computations[comp_id];
    let id = comp.instrs.push(fusion);
    let pos = comp.order.iter().position(|&i| i == instr).unwrap_or(0);
    comp.order.insert(pos, id);
    comp.replace_all_uses(instr, id);
    comp.order.retain(|&i| i != instr);
    id
}

/// What an outer computation looks like to a pass that edits it many times and keeps
/// its own books instead of walking it after every edit: each live instruction's index in
/// `order` (instructions that die stay in `order` until [`OuterBooks::sweep`], so indices
/// stay exact), their distinct users, and whether any control edge exists (control edges
/// are only moved by fusion, never created, so a computation without any needs no scans).
pub struct OuterBooks {
    /// Index in `order` of every instruction that was live when the books were opened, and
    /// of the fusions that replaced some of them.
    pub position: HashMap<InstrId, usize>,
    /// The distinct live users of each instruction.
    pub users: HashMap<InstrId, HashSet<InstrId>>,
    /// Instructions gone from the computation but still in `order`.
    pub dead: HashSet<InstrId>,
    /// True if some instruction has a control predecessor.
    pub control_edges: bool,
}

impl OuterBooks {
    /// The books of `comp` as it is.
    pub fn open(comp: &Computation) -> OuterBooks {
        let mut users: HashMap<InstrId, HashSet<InstrId>> = HashMap::new();
        let mut control_edges = false;
        for (id, instr) in comp.iter() {
            users.entry(id).or_default();
            for &o in &instr.operands {
                users.entry(o).or_default().insert(id);
            }
            control_edges |= !instr.control_predecessors.is_empty();
        }
        OuterBooks {
            position: comp
                .order
                .iter()
                .enumerate()
                .map(|(i, &id)| (id, i))
                .collect(),
            users,
            dead: HashSet::new(),
            control_edges,
        }
    }

    /// True if `id` waits for, or is waited for by, another live instruction through a
    /// control edge.
    pub fn has_control_edges(&self, comp: &Computation, id: InstrId) -> bool {
        self.control_edges
            && (!comp.instr(id).control_predecessors.is_empty()
                || comp.order.iter().any(|&i| {
                    !self.dead.contains(&i) && comp.instr(i).control_predecessors.contains(&id)
                }))
    }

    /// Drops the dead instructions from `order`; the books are closed.
    pub fn sweep(self, comp: &mut Computation) {
        if !self.dead.is_empty() {
            comp.order.retain(|i| !self.dead.contains(i));
        }
    }
}

/// [`wrap_instruction`] for a pass that keeps [`OuterBooks`]: the fusion takes `instr`'s
/// place in `order` and its uses without walking the computation.
pub fn wrap_instruction_booked(
    module: &mut Module,
    comp_id: ComputationId,
    instr: InstrId,
    names: (&str, &str),
    books: &mut OuterBooks,
    namer: &mut Namer,
) -> InstrId {
    let fusion = build_wrapped(module, comp_id, instr, names.0, names.1, namer);
    let operands = fusion.operands.clone();
    let comp = &mut module.computations[comp_id];
    let id = comp.instrs.push(fusion);
    let pos = books.position[&instr];
    // What inserting before `instr` and then dropping it gives.
    comp.order[pos] = id;
    books.position.remove(&instr);
    books.position.insert(id, pos);
    let users = books.users.remove(&instr).unwrap_or_default();
    let mut changed = false;
    for &u in &users {
        for op in comp.instrs[u].operands.iter_mut() {
            if *op == instr {
                *op = id;
                changed = true;
            }
        }
    }
    if books.control_edges {
        for &i in &comp.order {
            if books.dead.contains(&i) {
                continue;
            }
            for c in comp.instrs[i].control_predecessors.iter_mut() {
                if *c == instr {
                    *c = id;
                    changed = true;
                }
            }
        }
    }
    if comp.root == instr {
        comp.root = id;
        changed = true;
    }
    if changed {
        let new = comp.instrs[id].name.clone();
        provenance::record(&comp.name, &comp.instrs[instr].name, || {
            provenance::Change::ReplacedBy { new }
        });
    }
    books.users.insert(id, users);
    for o in operands {
        let u = books.users.entry(o).or_default();
        u.remove(&instr);
        u.insert(id);
    }
    id
}

/// The one-instruction fusion standing for `instr` (not yet in the computation), its
/// fused computation added to the module.
fn build_wrapped(
    module: &mut Module,
    comp_id: ComputationId,
    instr: InstrId,
    fusion_name: &str,
    computation_name: &str,
    namer: &mut Namer,
) -> Instruction {
    let original = module.computations[comp_id].instr(instr).clone();
    let mut operands: Vec<InstrId> = Vec::new();
    for &o in &original.operands {
        if !operands.contains(&o) {
            operands.push(o);
        }
    }
    let mut fused = Computation::new(computation_name);
    let mut param_of: HashMap<InstrId, InstrId> = HashMap::new();
    for (number, &o) in operands.iter().enumerate() {
        let shape = module.computations[comp_id].instr(o).shape.clone();
        let name = namer.fresh(&format!("param_{number}"));
        let p = fused.push(Instruction::new(
            name,
            shape,
            Op::Parameter { number },
            vec![],
        ));
        param_of.insert(o, p);
    }
    let mut clone = original.clone();
    clone.operands = original.operands.iter().map(|o| param_of[o]).collect();
    clone.control_predecessors.clear();
    // The original leaves the computation, so the clone keeps its name (as in XLA's dumps).
    clone.name = original.name.clone();
    fused.root = fused.push(clone);
    let kind = choose_kind(&fused);
    let calls = module.add_computation_before(comp_id, fused);
    let into = &module.computations[calls];
    record_cloned(
        &module.computations[comp_id].name,
        &original.name,
        into,
        into.root,
    );
    let mut fusion = Instruction::new(
        namer.fresh(fusion_name),
        original.shape.clone(),
        Op::Fusion { kind, calls },
        operands,
    );
    fusion.metadata = original.metadata.clone();
    fusion.control_predecessors = original.control_predecessors.clone();
    fusion
}

/// Clones `producer` (an operand of `fusion` in `comp_id`) into the fusion: the parameter
/// that stood for it is replaced by the clone, whose own operands become parameters
/// (reusing ones the fusion already has). Marks `producer` dead in `books` when nothing
/// else uses it, and keeps the books and the fused body's `summary` up to date.
/// Recomputes the fusion's kind.
///
/// Costs the size of the edit, not of either computation, except for one copy of the
/// fused computation's `order`: the result is exactly what re-sorting the grown body with
/// [`normalize_order`] gives (parameters by number, then the old order with the clone
/// right before its first user), without the sort.
pub fn fuse_producer(
    module: &mut Module,
    comp_id: ComputationId,
    fusion: InstrId,
    producer: InstrId,
    books: &mut OuterBooks,
    summary: &mut BodySummary,
    namer: &mut Namer,
) -> Result<(), PassError> {
    let comp = &module.computations[comp_id];
    let Op::Fusion { calls, .. } = comp.instr(fusion).op else {
        return Err(PassError::new(format!(
            "{} is not a fusion",
            comp.instr(fusion).name
        )));
    };
    let producer_instr = comp.instr(producer).clone();
    let comp_name = comp.name.clone();
    let mut fusion_operands = comp.instr(fusion).operands.clone();
    let Some(k) = fusion_operands.iter().position(|&o| o == producer) else {
        return Err(PassError::new(format!(
            "{} is not an operand of {}",
            producer_instr.name,
            comp.instr(fusion).name
        )));
    };
    let stays = books
        .users
        .get(&producer)
        .is_some_and(|u| u.iter().any(|&u| u != fusion))
        || comp.root == producer;
    let operand_shapes: Vec<Shape> = producer_instr
        .operands
        .iter()
        .map(|&o| comp.instr(o).shape.clone())
        .collect();
    let old_operands = fusion_operands.clone();

    let fused = &mut module.computations[calls];
    let mut params = summary.parameters().to_vec();
    let old_param_count = params.len();
    let replaced = params[k];
    // The producer's operands, as parameters of the fused computation.
    let mut new_operands = Vec::new();
    let mut new_params = Vec::new();
    for (o, shape) in producer_instr.operands.iter().zip(operand_shapes) {
        let p = match fusion_operands.iter().position(|x| x == o) {
            Some(i) => params[i],
            None => {
                let number = fusion_operands.len();
                fusion_operands.push(*o);
                let name = namer.fresh(&format!("param_{number}"));
                let p = fused.instrs.push(Instruction::new(
                    name,
                    shape,
                    Op::Parameter { number },
                    vec![],
                ));
                params.push(p);
                new_params.push(p);
                p
            }
        };
        new_operands.push(p);
    }
    let mut clone = producer_instr.clone();
    clone.operands = new_operands;
    clone.control_predecessors.clear();
    clone.name = if stays {
        namer.fresh(&producer_instr.name)
    } else {
        producer_instr.name.clone()
    };
    let clone_id = fused.instrs.push(clone);
    record_cloned(&comp_name, &producer_instr.name, fused, clone_id);
    // Every use of the parameter now uses the clone (fused bodies have no control edges,
    // and a parameter is never their root).
    let replaced_users = summary.users_of(replaced).to_vec();
    for &u in &replaced_users {
        for op in fused.instrs[u].operands.iter_mut() {
            if *op == replaced {
                *op = clone_id;
            }
        }
    }
    if !replaced_users.is_empty() {
        let new = fused.instrs[clone_id].name.clone();
        provenance::record(&fused.name, &fused.instrs[replaced].name, || {
            provenance::Change::ReplacedBy { new }
        });
    }
    // The order `normalize_order` would give: parameters (old ones, then new ones, which
    // have the highest numbers), then the rest with the clone right before its first user.
    let rest = &fused.order[old_param_count..];
    let first_user = rest
        .iter()
        .position(|i| replaced_users.contains(i))
        .unwrap_or(rest.len());
    let mut order = Vec::with_capacity(fused.order.len() + new_params.len() + 1);
    order.extend(
        fused.order[..old_param_count]
            .iter()
            .copied()
            .filter(|&i| i != replaced),
    );
    order.extend(&new_params);
    order.extend(&rest[..first_user]);
    order.push(clone_id);
    order.extend(&rest[first_user..]);
    fused.order = order;
    namer.release(&fused.instrs[replaced].name);
    // Renumber the parameters after k and drop operand k.
    fusion_operands.remove(k);
    params.remove(k);
    for &p in &params {
        if let Op::Parameter { number } = &mut fused.instrs[p].op
            && *number > k
        {
            *number -= 1;
        }
    }
    rename_parameter_list(fused, &params, namer);
    summary.replace_parameter(fused, replaced, clone_id);
    #[cfg(debug_assertions)]
    {
        summary.assert_matches(fused);
        let mut sorted = fused.clone();
        normalize_order(&mut sorted);
        assert_eq!(sorted.order, fused.order, "order of {}", fused.name);
    }
    let kind = kind_of(fused, summary.has_dot());

    let comp = &mut module.computations[comp_id];
    let f = &mut comp.instrs[fusion];
    f.operands = fusion_operands.clone();
    if let Op::Fusion { kind: k, .. } = &mut f.op {
        *k = kind;
    }
    // Move the producer's control predecessors to the fusion so ordering survives.
    for c in producer_instr.control_predecessors {
        if !f.control_predecessors.contains(&c) {
            f.control_predecessors.push(c);
        }
    }
    // The books: the fusion reads the producer's operands instead of the producer.
    if let Some(u) = books.users.get_mut(&producer) {
        u.remove(&fusion);
    }
    for o in fusion_operands.iter().filter(|o| !old_operands.contains(o)) {
        books.users.entry(*o).or_default().insert(fusion);
    }
    if !stays {
        if books.control_edges {
            redirect_control_edges(comp, producer, fusion, &books.dead);
        }
        books.dead.insert(producer);
        for o in &producer_instr.operands {
            if let Some(u) = books.users.get_mut(o) {
                u.remove(&producer);
            }
        }
    }
    Ok(())
}

/// Provenance hook: `name` of `from` now also lives in `into` as `clone`.
fn record_cloned(from: &str, name: &str, into: &Computation, clone: InstrId) {
    provenance::record(from, name, || provenance::Change::Cloned {
        computation: into.name.clone(),
        name: into.instrs[clone].name.clone(),
    });
}

/// `gone` leaves the computation because `into` now computes it: instructions that had to
/// wait for `gone` (control successors) wait for `into` instead, and `into` never waits for
/// itself.
fn redirect_control_edges(
    comp: &mut Computation,
    gone: InstrId,
    into: InstrId,
    dead: &HashSet<InstrId>,
) {
    for &id in &comp.order {
        if dead.contains(&id) {
            continue;
        }
        let preds = &mut comp.instrs[id].control_predecessors;
        if !preds.contains(&gone) {
            continue;
        }
        preds.retain(|&c| c != gone);
        if id != into && !preds.contains(&into) {
            preds.push(into);
        }
    }
    comp.instrs[into]
        .control_predecessors
        .retain(|&c| c != gone && c != into);
}

/// Parameters first (by number), then the other instructions in an order where operands
/// come before users (stable with respect to the current order).
pub fn normalize_order(comp: &mut Computation) {
    let params = comp.parameters();
    let rest: Vec<InstrId> = comp
        .order
        .iter()
        .copied()
        .filter(|&i| !matches!(comp.instrs[i].op, Op::Parameter { .. }))
        .collect();
    let mut order = params;
    order.extend(rest);
    comp.order = order;
    topological_sort(comp);
}

/// Reorders `comp.order` so every operand (and control predecessor) comes before its
/// users, keeping the current relative order wherever it is already valid.
pub fn topological_sort(comp: &mut Computation) {
    let live: HashSet<InstrId> = comp.order.iter().copied().collect();
    let mut placed: HashSet<InstrId> = HashSet::new();
    let mut out = Vec::with_capacity(comp.order.len());
    fn visit(
        comp: &Computation,
        id: InstrId,
        live: &HashSet<InstrId>,
        placed: &mut HashSet<InstrId>,
        out: &mut Vec<InstrId>,
    ) {
        if !live.contains(&id) || placed.contains(&id) {
            return;
        }
        placed.insert(id);
        let instr = &comp.instrs[id];
        for &o in instr.operands.iter().chain(&instr.control_predecessors) {
            visit(comp, o, live, placed, out);
        }
        out.push(id);
    }
    for &id in &comp.order.clone() {
        visit(comp, id, &live, &mut placed, &mut out);
    }
    comp.order = out;
}

/// The outputs of a fusion: the root's tuple elements for a tuple root, else the root.
pub fn fused_outputs(fused: &Computation) -> Vec<InstrId> {
    let root = fused.root_instr();
    if root.opcode() == Opcode::Tuple {
        root.operands.clone()
    } else {
        vec![fused.root]
    }
}

/// Merges fusion `a` into fusion `b` (in `comp_id`; `b` must not depend on `a`, and `a`
/// may read `b`'s outputs only directly, as `b` or `get-tuple-element`s of it: siblings,
/// or a consumer merged into its producer). The merged fusion keeps `b`'s name, calls
/// `b`'s computation grown by `a`'s instructions, and returns a tuple: `b`'s outputs,
/// then `a`'s. Where `a` read an output of `b`, its instructions read the value `b`'s
/// computation computes. Users of both read their values through `get-tuple-element`s.
/// Returns the merged fusion.
pub fn merge_sibling_fusions(
    module: &mut Module,
    comp_id: ComputationId,
    a: InstrId,
    b: InstrId,
    namer: &mut Namer,
) -> Result<InstrId, PassError> {
    let comp = &module.computations[comp_id];
    let (Op::Fusion { calls: ca, .. }, Op::Fusion { calls: cb, .. }) =
        (&comp.instr(a).op, &comp.instr(b).op)
    else {
        return Err(PassError::new("sibling fusion of non-fusions"));
    };
    let (ca, cb) = (*ca, *cb);
    let a_operands = comp.instr(a).operands.clone();
    let mut operands = comp.instr(b).operands.clone();
    let b_was_tuple = comp.instr(b).shape.is_tuple();
    if comp.instr(a).shape.is_tuple() {
        return Err(PassError::new(format!(
            "{} already has several outputs",
            comp.instr(a).name
        )));
    }
    // Which output of `b` each operand of `a` is, if it is one.
    let output_of_b: Vec<Option<usize>> = a_operands
        .iter()
        .map(|&o| match comp.instr(o).op {
            _ if o == b && !b_was_tuple => Some(0),
            Op::GetTupleElement { index } if comp.instr(o).operands[0] == b => Some(index),
            _ => None,
        })
        .collect();
    let a_body = module.computations[ca].clone();
    // `a`'s computation dies here, so its instructions' names are free for the clones.
    for (_, instr) in a_body.iter() {
        namer.release(&instr.name);
    }
    let fused = &mut module.computations[cb];
    let mut params = fused.parameters();
    let b_outputs = fused_outputs(fused);
    let mut map: HashMap<InstrId, InstrId> = HashMap::new();
    for (id, instr) in a_body.iter() {
        if let Op::Parameter { number } = instr.op {
            if let Some(index) = output_of_b[number] {
                map.insert(id, b_outputs[index]);
                continue;
            }
            let outer = a_operands[number];
            let p = match operands.iter().position(|&o| o == outer) {
                Some(i) => params[i],
                None => {
                    let number = operands.len();
                    operands.push(outer);
                    let name = namer.fresh(&format!("param_{number}"));
                    let p = fused.push(Instruction::new(
                        name,
                        instr.shape.clone(),
                        Op::Parameter { number },
                        vec![],
                    ));
                    params.push(p);
                    p
                }
            };
            map.insert(id, p);
            continue;
        }
        let mut clone = instr.clone();
        clone.operands = instr.operands.iter().map(|o| map[o]).collect();
        clone.control_predecessors.clear();
        clone.name = namer.fresh(&instr.name);
        let c = fused.push(clone);
        record_cloned(&a_body.name, &instr.name, fused, c);
        map.insert(id, c);
    }
    let mut outputs = fused_outputs(fused);
    let b_count = outputs.len();
    outputs.push(map[&a_body.root]);
    let shape = Shape::Tuple(
        outputs
            .iter()
            .map(|&o| fused.instr(o).shape.clone())
            .collect(),
    );
    if b_was_tuple {
        let root = fused.root;
        fused.instrs[root].operands = outputs;
        fused.instrs[root].shape = shape.clone();
    } else {
        let name = namer.fresh("tuple");
        fused.root = fused.push(Instruction::new(
            name,
            shape.clone(),
            Op::Plain(Opcode::Tuple),
            outputs,
        ));
    }
    normalize_order(fused);
    rename_parameters(fused, namer);
    let kind = choose_kind(fused);
    module.computations[ca].order.clear();
    module.order.retain(|&c| c != ca);

    let comp = &mut module.computations[comp_id];
    let a_shape = comp.instr(a).shape.clone();
    let b_shape = comp.instr(b).shape.clone();
    let a_control = comp.instr(a).control_predecessors.clone();
    {
        let f = &mut comp.instrs[b];
        f.operands = operands;
        f.shape = shape;
        if let Op::Fusion { kind: k, .. } = &mut f.op {
            *k = kind;
        }
        for c in a_control {
            if !f.control_predecessors.contains(&c) {
                f.control_predecessors.push(c);
            }
        }
    }
    let gte = |comp: &mut Computation, index: usize, shape: Shape, namer: &mut Namer| {
        let name = namer.fresh("get-tuple-element");
        comp.insert_after(
            b,
            Instruction::new(name, shape, Op::GetTupleElement { index }, vec![b]),
        )
    };
    let a_value = gte(comp, b_count, a_shape, namer);
    comp.replace_uses_except(a, a_value, &[]);
    if !b_was_tuple {
        let b_value = gte(comp, 0, b_shape, namer);
        comp.replace_uses_except(b, b_value, &[b_value, a_value]);
    }
    redirect_control_edges(comp, a, b, &HashSet::new());
    comp.order.retain(|&i| i != a);
    topological_sort(comp);
    Ok(b)
}

/// The computations fusion works on: the entry and, recursively, the bodies of while,
/// conditional and call instructions. Not reducers, comparators, map or scatter bodies
/// (embedded scalar code stays flat), nor fused or custom-call computations.
pub fn non_fused_computations(module: &Module) -> Vec<ComputationId> {
    let mut out = Vec::new();
    let mut stack = vec![module.entry];
    let mut seen = HashSet::new();
    while let Some(c) = stack.pop() {
        if !seen.insert(c) {
            continue;
        }
        out.push(c);
        for (_, instr) in module.computations[c].iter() {
            if matches!(
                instr.op,
                Op::While { .. } | Op::Conditional { .. } | Op::Call { .. }
            ) {
                stack.extend(instr.op.called_computations());
            }
        }
    }
    out
}
