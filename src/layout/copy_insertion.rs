//! `copy-insertion`: adds a `copy` only where two values would otherwise share a buffer
//! wrongly. Buffer assignment makes values share bytes by rule (a while's state is one
//! buffer per leaf; a conditional's branch roots and its result are one buffer; an entry
//! result leaf is an allocation of its own), so where a rule would make a buffer hold two
//! values that are live at once, a copy gives one of them bytes of its own.
//! XLA: `xla/service/copy_insertion.cc` (`AddCopiesForWhile`, `AddCopiesForConditional`,
//! `AddSpecialCaseCopies`), with its analysis simplified to these rules:
//!
//! 1. **While init**: each leaf of the init tuple is copied when it is a parameter or a
//!    constant (the loop would overwrite the caller's input or the constant's bytes), when
//!    it only forwards another buffer (get-tuple-element, bitcast: the forwarded buffer may
//!    be live elsewhere), when the same value fills two leaves, or when it has users other
//!    than the init tuple (it is still read after the loop started changing it). Except:
//!    an entry parameter (not donated, read by this loop alone) in a leaf that the body
//!    passes through unchanged and that nobody reads from the while's result stays where
//!    it is, and the loop reads it in place (the weights and inputs of an RNN's scan).
//! 2. **While body root**: leaf `k` of the root is left alone when it is the body
//!    parameter's own leaf `k` (passed through unchanged). It is copied when it is not
//!    computed fresh in the body (a parameter leaf moved to another index, a constant, a
//!    forwarder), when the same value fills two leaves, and when the instruction computing
//!    it reads the old leaf `k` other than through one operand that it may overwrite: the
//!    in-place operand of a dynamic-update-slice (or its fusion), or an operand read
//!    elementwise at the index written (`CanShareOperandBufferWithUser`). A leaf moved from index `m` gets two copies
//!    (into a temporary, then into the state), so rotations of the state cannot deadlock.
//!    Then every instruction that still reads old leaf `k` is made a control predecessor
//!    of the instruction writing new leaf `k`, so the schedule reads before it
//!    overwrites; where that edge would close a cycle, the leaf is copied instead.
//! 3. **Conditional branches**: root leaves that are a branch parameter, a constant or a
//!    forwarder are copied (the result buffer must not be the operand's), and duplicates.
//! 4. **Entry result**: leaves that are parameters or constants are copied (the result
//!    gets buffers of its own) unless `input_output_alias` pairs that output with that very
//!    parameter; a value filling two result leaves is copied for the second.
//! 5. **dynamic-update-slice / scatter**: no copy. Buffer assignment updates operand 0 in
//!    place only when operand 0 dies at the update; otherwise the update gets a buffer of
//!    its own (the runtime copies operand 0 into it first).
//! 6. **Aliased outputs** (`input_output_alias`): the output is to be written into its
//!    parameter's buffer, so every other reader of the parameter is made a control
//!    predecessor of the instruction writing the output (the schedule reads before it
//!    overwrites). Where that edge would close a cycle (a reader needs the output), or the
//!    writer reads the parameter other than as an operand it may overwrite
//!    (`CanShareOperandBufferWithUser`: elementwise, at the index it writes), the output
//!    is copied at the end, after every reader, and the copy writes into the buffer.
//!    XLA: `AddCopiesForAliasedInputOutputs`.

use std::collections::HashSet;

use super::buffer_assignment::{can_share_operand_buffer_with_user, in_place_operand};
use crate::ir::{ComputationId, InstrId, Instruction, Module, Op, Opcode, Shape};
use crate::pipeline::{Pass, PassError};

/// The copy-insertion pass.
#[derive(Clone, Debug, Default)]
pub struct CopyInsertion;

impl Pass for CopyInsertion {
    fn name(&self) -> &'static str {
        "copy-insertion"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        let globals: Vec<ComputationId> = super::alias_analysis::global_computations(module)
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        for &c in &globals {
            let ids: Vec<InstrId> = module.computations[c].order.clone();
            for id in ids {
                match module.computations[c].instrs[id].op.clone() {
                    Op::While { body, .. } => {
                        changed |= copy_while_init(module, c, id);
                        changed |= copy_while_body_root(module, body);
                    }
                    Op::Conditional {
                        branch_computations,
                    } => {
                        for b in branch_computations {
                            changed |= copy_branch_root(module, b);
                        }
                    }
                    _ => {}
                }
            }
        }
        changed |= copy_entry_root(module);
        changed |= order_aliased_outputs(module);
        if changed {
            for &c in &globals {
                topological_order(&mut module.computations[c]);
            }
        }
        Ok(changed)
    }
}

/// Reorders `comp.order` so operands and control predecessors come first, keeping the
/// existing order wherever it is already valid (new control edges may point forward).
fn topological_order(comp: &mut crate::ir::Computation) {
    let position: std::collections::HashMap<InstrId, usize> = comp
        .order
        .iter()
        .enumerate()
        .map(|(k, &i)| (i, k))
        .collect();
    let mut done: HashSet<InstrId> = HashSet::new();
    let mut out = Vec::with_capacity(comp.order.len());
    fn visit(
        comp: &crate::ir::Computation,
        id: InstrId,
        position: &std::collections::HashMap<InstrId, usize>,
        done: &mut HashSet<InstrId>,
        out: &mut Vec<InstrId>,
    ) {
        if !position.contains_key(&id) || !done.insert(id) {
            return;
        }
        let instr = &comp.instrs[id];
        let mut preds: Vec<InstrId> = instr
            .operands
            .iter()
            .chain(&instr.control_predecessors)
            .copied()
            .collect();
        preds.sort_by_key(|p| position.get(p).copied().unwrap_or(0));
        for p in preds {
            visit(comp, p, position, done, out);
        }
        out.push(id);
    }
    for id in comp.order.clone() {
        visit(comp, id, &position, &mut done, &mut out);
    }
    comp.order = out;
}

/// What a value is once bitcasts and get-tuple-elements of tuple instructions are looked
/// through: the instruction that really holds its bytes.
fn source(module: &Module, c: ComputationId, mut id: InstrId) -> InstrId {
    let comp = &module.computations[c];
    loop {
        let instr = &comp.instrs[id];
        match &instr.op {
            Op::Plain(Opcode::Bitcast) => id = instr.operands[0],
            Op::GetTupleElement { index } => {
                let t = &comp.instrs[instr.operands[0]];
                if t.opcode() == Opcode::Tuple {
                    id = t.operands[*index];
                } else {
                    return id;
                }
            }
            _ => return id,
        }
    }
}

/// True for ops that produce no bytes of their own.
fn is_forwarder(instr: &Instruction) -> bool {
    matches!(
        instr.op,
        Op::GetTupleElement { .. } | Op::Parameter { .. } | Op::Constant { .. }
    ) || matches!(
        instr.opcode(),
        Opcode::Bitcast | Opcode::Tuple | Opcode::OptimizationBarrier | Opcode::AddDependency
    ) || matches!(
        instr.op,
        Op::While { .. } | Op::Conditional { .. } | Op::Call { .. }
    )
}

/// Adds `copy(x)` right before `before` and returns it.
fn add_copy(module: &mut Module, c: ComputationId, x: InstrId, before: InstrId) -> InstrId {
    let comp = &mut module.computations[c];
    let shape = comp.instrs[x].shape.clone();
    let name = format!("copy.{}", comp.instrs[x].name);
    comp.insert_before(
        before,
        Instruction::new(name, shape, Op::Plain(Opcode::Copy), vec![x]),
    )
}

/// The elements of a tuple-shaped value as instructions: a tuple instruction's operands,
/// or new get-tuple-elements inserted before `before`.
fn tuple_elements(
    module: &mut Module,
    c: ComputationId,
    t: InstrId,
    before: InstrId,
) -> Vec<InstrId> {
    let comp = &mut module.computations[c];
    let instr = comp.instrs[t].clone();
    if instr.opcode() == Opcode::Tuple {
        return instr.operands;
    }
    let Shape::Tuple(elements) = &instr.shape else {
        return Vec::new();
    };
    elements
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let gte = Instruction::new(
                format!("get-tuple-element.{}", instr.name),
                s.clone(),
                Op::GetTupleElement { index: k },
                vec![t],
            );
            comp.insert_before(before, gte)
        })
        .collect()
}

/// Rule 1: copies the init leaves a loop must not overwrite; returns true if it changed.
fn copy_while_init(module: &mut Module, c: ComputationId, w: InstrId) -> bool {
    let init = module.computations[c].instrs[w].operands[0];
    let users = module.computations[c].users();
    let init_shape = module.computations[c].instrs[init].shape.clone();
    let read_only = read_only_leaves(module, c, w);
    let needs = |module: &Module, x: InstrId, seen: &HashSet<InstrId>, only_user: InstrId| {
        let comp = &module.computations[c];
        let src = source(module, c, x);
        is_forwarder(&comp.instrs[x])
            || is_forwarder(&comp.instrs[src])
            || seen.contains(&x)
            || users[x].iter().any(|&u| u != only_user)
    };
    // A leaf the loop only reads may stay in an entry parameter's bytes (XLA's while
    // reads such inputs in place: no copy of the weights before an RNN's loop). Only a
    // parameter this loop alone reads: the plan then has one value in those bytes.
    let in_place = |module: &Module, k: usize, x: InstrId, seen: &HashSet<InstrId>| {
        let comp = &module.computations[c];
        c == module.entry
            && read_only.contains(&k)
            && !seen.contains(&x)
            && users[x].iter().all(|&u| u == init || u == w)
            && match comp.instrs[x].op {
                // A donated parameter's bytes get overwritten by its output.
                Op::Parameter { number } => !module
                    .config
                    .input_output_alias
                    .iter()
                    .any(|a| a.parameter == number),
                _ => false,
            }
    };
    if !init_shape.is_tuple() {
        if needs(module, init, &HashSet::new(), w) {
            let copy = add_copy(module, c, init, w);
            module.computations[c].instrs[w].operands[0] = copy;
            return true;
        }
        return false;
    }
    let init_is_private_tuple = module.computations[c].instrs[init].opcode() == Opcode::Tuple
        && users[init].iter().all(|&u| u == w);
    let owner = if init_is_private_tuple { init } else { w };
    let elements = tuple_elements(module, c, init, w);
    let mut seen = HashSet::new();
    let mut new_elements = Vec::new();
    let mut changed = !init_is_private_tuple;
    for (k, &x) in elements.iter().enumerate() {
        let leaf = init_shape.subshape(&[k]).is_some_and(Shape::is_array);
        let copy_it = leaf
            && !in_place(module, k, x, &seen)
            && (!init_is_private_tuple || needs(module, x, &seen, owner));
        seen.insert(x);
        if copy_it {
            new_elements.push(add_copy(module, c, x, w));
            changed = true;
        } else {
            new_elements.push(x);
        }
    }
    if !changed {
        return false;
    }
    if init_is_private_tuple {
        module.computations[c].instrs[init].operands = new_elements;
    } else {
        let tuple = Instruction::new(
            "tuple.init",
            init_shape,
            Op::Plain(Opcode::Tuple),
            new_elements,
        );
        let t = module.computations[c].insert_before(w, tuple);
        module.computations[c].instrs[w].operands[0] = t;
    }
    true
}

/// The state leaves of while `w` (in computation `c`) that the loop never writes and its
/// caller never reads from the result: the body passes them through unchanged, and no
/// get-tuple-element of the while takes them (the while's result is read leaf by leaf).
fn read_only_leaves(module: &Module, c: ComputationId, w: InstrId) -> HashSet<usize> {
    let comp = &module.computations[c];
    let Op::While { body, .. } = comp.instrs[w].op else {
        return HashSet::new();
    };
    let b = &module.computations[body];
    let root = b.root_instr();
    let Some(&param) = b.parameters().first() else {
        return HashSet::new();
    };
    if root.opcode() != Opcode::Tuple {
        return HashSet::new();
    }
    let mut read_after = HashSet::new();
    for &u in &comp.users()[w] {
        match comp.instrs[u].op {
            Op::GetTupleElement { index } => {
                read_after.insert(index);
            }
            // The whole result goes on (a tuple, the root): every leaf is read.
            _ => return HashSet::new(),
        }
    }
    (0..root.operands.len())
        .filter(|&k| {
            !read_after.contains(&k)
                && state_leaf(module, body, root.operands[k], param) == Some(k)
                && root
                    .operands
                    .iter()
                    .filter(|&&o| o == root.operands[k])
                    .count()
                    == 1
        })
        .collect()
}

/// Which old state leaf an operand reads: `Some(k)` for get-tuple-element `k` of the body
/// parameter (through bitcasts), `None` for anything else. `Some(usize::MAX)` means the
/// whole parameter (every leaf).
fn state_leaf(module: &Module, body: ComputationId, x: InstrId, param: InstrId) -> Option<usize> {
    let comp = &module.computations[body];
    let mut id = x;
    loop {
        let instr = &comp.instrs[id];
        if id == param {
            return Some(usize::MAX);
        }
        match &instr.op {
            Op::Plain(Opcode::Bitcast) => id = instr.operands[0],
            Op::GetTupleElement { index } if instr.operands[0] == param => return Some(*index),
            _ => return None,
        }
    }
}

/// Rule 2: copies and control edges that let the body write its new state over the old.
fn copy_while_body_root(module: &mut Module, body: ComputationId) -> bool {
    let comp = &module.computations[body];
    let Some(&param) = comp.parameters().first() else {
        return false;
    };
    let root = comp.root;
    if comp.instrs[root].opcode() != Opcode::Tuple {
        // A non-tuple state: copy anything but a fresh value.
        let r = &comp.instrs[root];
        if root == param || is_forwarder(r) {
            let copy = add_copy(module, body, root, root);
            module.computations[body].root = copy;
            return true;
        }
        return false;
    }
    let mut changed = false;
    let n = comp.instrs[root].operands.len();
    let mut seen: HashSet<InstrId> = HashSet::new();
    for k in 0..n {
        let comp = &module.computations[body];
        let v = comp.instrs[root].operands[k];
        if !comp.instrs[v].shape.is_array() {
            continue;
        }
        let leaf = state_leaf(module, body, v, param);
        let duplicate = !seen.insert(v);
        let new_v = if leaf == Some(k) && !duplicate {
            continue; // passed through unchanged
        } else if leaf.is_some() {
            // Moved from another index: into a temporary first, then into the state.
            let tmp = add_copy(module, body, v, root);
            add_copy(module, body, tmp, root)
        } else if duplicate
            || is_forwarder(&comp.instrs[v])
            || !in_place_safe(module, body, v, param, k)
        {
            add_copy(module, body, v, root)
        } else {
            v
        };
        if new_v != v {
            module.computations[body].instrs[root].operands[k] = new_v;
            changed = true;
        }
    }
    // Readers of old leaf k run before the writer of new leaf k.
    for k in 0..n {
        let comp = &module.computations[body];
        let writer = comp.instrs[root].operands[k];
        if state_leaf(module, body, writer, param) == Some(k)
            || !comp.instrs[writer].shape.is_array()
        {
            continue;
        }
        let holders = old_leaf_holders(module, body, param, k);
        let readers: Vec<InstrId> = comp
            .order
            .iter()
            .copied()
            .filter(|&r| r != writer && r != root && !holders.contains(&r))
            // Another leaf's get-tuple-element forwards bytes; it reads none.
            .filter(|&r| {
                !matches!(comp.instrs[r].op, Op::GetTupleElement { .. })
                    || comp.instrs[r].operands[0] != param
            })
            .filter(|&r| comp.instrs[r].operands.iter().any(|o| holders.contains(o)))
            .collect();
        let mut writer = writer;
        for r in readers {
            if depends_on(module, body, r, writer) {
                // The edge would close a cycle: give the new value a copy as writer.
                let comp = &module.computations[body];
                let v = comp.instrs[root].operands[k];
                writer = add_copy(module, body, v, root);
                module.computations[body].instrs[root].operands[k] = writer;
                changed = true;
            }
            if depends_on(module, body, writer, r) {
                continue; // already ordered
            }
            let preds = &mut module.computations[body].instrs[writer].control_predecessors;
            if !preds.contains(&r) {
                preds.push(r);
                changed = true;
            }
        }
    }
    changed
}

/// The instructions that hold old state leaf `k` without reading it: the body parameter,
/// its get-tuple-element `k`, and bitcasts, tuples, get-tuple-elements and opt-barriers
/// of those (their users read the old leaf).
fn old_leaf_holders(
    module: &Module,
    body: ComputationId,
    param: InstrId,
    k: usize,
) -> HashSet<InstrId> {
    let comp = &module.computations[body];
    let mut holders: HashSet<InstrId> = HashSet::from([param]);
    for &id in &comp.order {
        let instr = &comp.instrs[id];
        if id == comp.root {
            continue;
        }
        let holds = match &instr.op {
            Op::GetTupleElement { index } if instr.operands[0] == param => *index == k,
            Op::GetTupleElement { .. } => holders.contains(&instr.operands[0]),
            Op::Plain(Opcode::Bitcast | Opcode::Tuple | Opcode::OptimizationBarrier) => {
                instr.operands.iter().any(|o| holders.contains(o))
            }
            _ => false,
        };
        if holds {
            holders.insert(id);
        }
    }
    holders
}

/// True if `v` may be written straight into state leaf `k`: it reads old leaf `k` not at
/// all, or through one operand only, which is the in-place operand of a
/// dynamic-update-slice (or such a fusion) or one it reads elementwise at the index it
/// writes (`CanShareOperandBufferWithUser`: an LSTM's `c = f*c + i*g` updates `c` in
/// place).
fn in_place_safe(
    module: &Module,
    body: ComputationId,
    v: InstrId,
    param: InstrId,
    k: usize,
) -> bool {
    let instr = &module.computations[body].instrs[v];
    let in_place = in_place_operand(module, body, v);
    let reads = instr
        .operands
        .iter()
        .filter(|&&o| state_leaf(module, body, o, param).is_some_and(|l| l == k || l == usize::MAX))
        .count();
    instr
        .operands
        .iter()
        .enumerate()
        .all(|(j, &o)| match state_leaf(module, body, o, param) {
            Some(leaf) if leaf == k || leaf == usize::MAX => {
                leaf == k
                    && (Some(j) == in_place
                        || (reads == 1
                            && can_share_operand_buffer_with_user(module, body, v, j, &[])))
            }
            _ => true,
        })
}

/// True if `a` depends on `b` through operands and control predecessors.
fn depends_on(module: &Module, c: ComputationId, a: InstrId, b: InstrId) -> bool {
    let comp = &module.computations[c];
    let mut stack = vec![a];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        if seen.insert(x) {
            let i = &comp.instrs[x];
            stack.extend(i.operands.iter().chain(&i.control_predecessors).copied());
        }
    }
    false
}

/// Rule 3: a branch result must have bytes of its own.
fn copy_branch_root(module: &mut Module, b: ComputationId) -> bool {
    // A root that is a tuple but not a `tuple` instruction (the branch's parameter passed
    // through, a nested conditional's result) is taken apart first, so its leaves can be copied: the
    // branches of one conditional may pass the same operands in different orders, and
    // then the result cannot share bytes with any of them.
    let split = split_tuple_root(module, b);
    split
        | copy_root_leaves(module, b, |module, c, _k, x| {
            let comp = &module.computations[c];
            is_forwarder(&comp.instrs[x]) || is_forwarder(&comp.instrs[source(module, c, x)])
        })
}

/// Makes a tuple-shaped root that is not a `tuple` instruction into
/// `tuple(get-tuple-element(root, 0), ...)`. Returns true if it did.
fn split_tuple_root(module: &mut Module, c: ComputationId) -> bool {
    let comp = &mut module.computations[c];
    let root = comp.root;
    let instr = &comp.instrs[root];
    let Shape::Tuple(elements) = instr.shape.clone() else {
        return false;
    };
    // A root that makes its own bytes (a multi-output fusion, a custom call) may be the
    // result's buffer; only one that may forward another buffer is split.
    if instr.opcode() == Opcode::Tuple || !is_forwarder(instr) {
        return false;
    }
    let mut last = root;
    let mut parts = Vec::with_capacity(elements.len());
    for (k, e) in elements.iter().enumerate() {
        let gte = Instruction::new(
            "get-tuple-element",
            e.clone(),
            Op::GetTupleElement { index: k },
            vec![root],
        );
        last = comp.insert_after(last, gte);
        parts.push(last);
    }
    let shape = comp.instrs[root].shape.clone();
    let tuple = Instruction::new("tuple", shape, Op::Plain(Opcode::Tuple), parts);
    comp.root = comp.insert_after(last, tuple);
    true
}

/// Rule 4: entry result leaves that are parameters or constants get copies, unless aliased.
fn copy_entry_root(module: &mut Module) -> bool {
    let entry = module.entry;
    let aliases = module.config.input_output_alias.clone();
    copy_root_leaves(module, entry, move |module, c, k, x| {
        let comp = &module.computations[c];
        let src = &comp.instrs[source(module, c, x)];
        match src.op {
            Op::Constant { .. } => true,
            Op::Parameter { number } => !aliases.iter().any(|a| {
                a.parameter == number
                    && a.parameter_index.is_empty()
                    && k.map_or(a.output_index.is_empty(), |k| a.output_index == [k])
            }),
            _ => false,
        }
    })
}

/// Rule 6: the readers of an aliased parameter run before the writer of its output, or
/// the output is copied after them.
fn order_aliased_outputs(module: &mut Module) -> bool {
    let entry = module.entry;
    let mut changed = false;
    for a in module.config.input_output_alias.clone() {
        let comp = &module.computations[entry];
        let (root, root_instr) = (comp.root, &comp.instrs[comp.root]);
        let Some(&param) = comp.parameters().get(a.parameter) else {
            continue;
        };
        if !a.parameter_index.is_empty() || !comp.instrs[param].shape.is_array() {
            continue;
        }
        let leaf = match a.output_index.as_slice() {
            [] if root_instr.shape.is_array() => root,
            [k] if root_instr.opcode() == Opcode::Tuple => match root_instr.operands.get(*k) {
                Some(&x) => x,
                None => continue,
            },
            _ => continue,
        };
        let v = source(module, entry, leaf);
        let (writer, user_index) = match &comp.instrs[v].op {
            Op::GetTupleElement { index } => (comp.instrs[v].operands[0], vec![*index]),
            _ => (v, Vec::new()),
        };
        // The parameter itself (passed through), a constant or a loop result: their
        // bytes are decided elsewhere.
        if is_forwarder(&comp.instrs[writer]) {
            continue;
        }
        // Who reads the parameter's bytes: its users, through bitcasts.
        let mut holders = vec![param];
        let mut readers: Vec<InstrId> = Vec::new();
        for &id in &comp.order {
            let instr = &comp.instrs[id];
            // The root tuple forwards values; it reads nothing.
            let forwards = id == root && instr.opcode() == Opcode::Tuple;
            if forwards || !instr.operands.iter().any(|o| holders.contains(o)) {
                continue;
            }
            if instr.opcode() == Opcode::Bitcast {
                holders.push(id);
            } else {
                readers.push(id);
            }
        }
        let writer_ok = !readers.contains(&writer) || {
            let w = &comp.instrs[writer];
            let ks: Vec<usize> = (0..w.operands.len())
                .filter(|&k| holders.contains(&w.operands[k]))
                .collect();
            matches!(ks.as_slice(), [k] if w.operands[*k] == param
                && can_share_operand_buffer_with_user(module, entry, writer, *k, &user_index))
        };
        let others: Vec<InstrId> = readers.into_iter().filter(|&r| r != writer).collect();
        let cycle = others.iter().any(|&r| depends_on(module, entry, r, writer));
        let writer = if writer_ok && !cycle {
            writer
        } else {
            // The output goes through a copy of its own, after every reader.
            let copy = add_copy(module, entry, leaf, root);
            let comp = &mut module.computations[entry];
            if a.output_index.is_empty() {
                comp.order.retain(|&i| i != copy);
                comp.order.push(copy);
                comp.root = copy;
            } else {
                comp.instrs[root].operands[a.output_index[0]] = copy;
            }
            changed = true;
            copy
        };
        for r in others {
            if r == writer || depends_on(module, entry, writer, r) {
                continue;
            }
            module.computations[entry].instrs[writer]
                .control_predecessors
                .push(r);
            changed = true;
        }
    }
    changed
}

/// Copies the root leaves of `c` for which `needs(module, c, leaf number, value)` holds,
/// and values that fill two leaves. Handles an array root and a flat tuple root.
fn copy_root_leaves(
    module: &mut Module,
    c: ComputationId,
    needs: impl Fn(&Module, ComputationId, Option<usize>, InstrId) -> bool,
) -> bool {
    let root = module.computations[c].root;
    let root_instr = module.computations[c].instrs[root].clone();
    if root_instr.shape.is_array() {
        if needs(module, c, None, root) {
            let copy = add_copy(module, c, root, root);
            // The copy goes after the old root in order: move it to the end.
            let comp = &mut module.computations[c];
            comp.order.retain(|&i| i != copy);
            comp.order.push(copy);
            comp.root = copy;
            return true;
        }
        return false;
    }
    if root_instr.opcode() != Opcode::Tuple {
        return false;
    }
    let mut changed = false;
    let mut seen = HashSet::new();
    for (k, &x) in root_instr.operands.iter().enumerate() {
        if !module.computations[c].instrs[x].shape.is_array() {
            continue;
        }
        let duplicate = !seen.insert(x);
        if duplicate || needs(module, c, Some(k), x) {
            let copy = add_copy(module, c, x, root);
            module.computations[c].instrs[root].operands[k] = copy;
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests;
