//! `layout-assignment`: gives every array a physical layout. Row-major by default; the
//! entry computation layout, layouts forced on the command line and custom-call operand
//! layout constraints win; where two constraints disagree a layout-changing `copy` is
//! inserted. XLA: `xla/service/layout_assignment.cc`, `xla/service/cpu/cpu_layout_assignment.cc`.
//!
//! The rules, in the order they are applied (each a function below):
//!
//! 1. **Entry parameters** take the forced layout (`--layout param0={0,1}`), else the one
//!    in the module's `entry_computation_layout`, else the one written in the text.
//! 2. **Every other array** is row-major (`{rank-1,...,0}`, XLA:CPU's default), except:
//!    custom-call and bitcast results keep the layout written (a library call or a
//!    reinterpretation decides it); forwarding ops (`tuple`, `get-tuple-element`,
//!    `opt-barrier`, `add-dependency`) take their operands' layouts.
//! 3. **Matrix–vector dot with a constant matrix** (XLA:CPU's
//!    `ProfitableToMakeDotOperandColumnMajor`): a rank-2 constant used only by dots whose
//!    result has rank ≤ 1 and whose other operand is a vector of ≥ 32 bytes gets its
//!    contracting dimension minor (`{0,1}` when it contracts dimension 0), so the dot reads
//!    each column contiguously. The literal is re-stored in that layout.
//! 4. **Transpose feeding dots**: a transpose (any rank) used only by dots gets the layout under
//!    which it moves no byte (its operand's bytes, renamed dimensions); the
//!    layout-sensitive simplifier then turns it into a `bitcast` and the dot reads the
//!    operand with swapped strides. That is cheaper than materializing it whenever all its
//!    users are dots: a dot costs the same with either operand layout, and the transpose's
//!    read and write of every element is gone. With another user the row-major copy
//!    would be needed anyway, so the rule does not fire. Batched dots (attention's
//!    `[b,h,s,d]` heads split out of `[b,s,h*d]`) read the renamed bytes through their
//!    batch strides. **Dot feeding a transpose** (the mirror image, attention's heads
//!    merged back): a dot whose only user is a transpose (not itself feeding dots) is
//!    produced in the layout under which that transpose, row-major, moves no byte; the dot
//!    writes its result through strides at the same cost.
//! 5. **Operand constraints**: each operand must have the layout its user reads: the
//!    custom call's `operand_layout_constraints`, the chosen layout for the dot operands of
//!    rules 3–4, any layout for `copy`, `transpose` and forwarding ops, the written layout
//!    for a bitcast, row-major for everything else. Where the producer's layout differs, a
//!    `copy` with the required layout is inserted (XLA's `copy` that changes layout).
//! 6. **Results**: the entry root gets the `entry_computation_layout` result layout (or
//!    row-major), other computations' roots row-major, with copies where needed; the
//!    module's `entry_computation_layout` is rewritten to the final parameter and result
//!    shapes.
//!
//! Results never depend on layouts: the interpreter computes on logical values, and every
//! copy inserted here is a pure relayout.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    ComputationId, InstrId, Instruction, Layout, Literal, Module, Op, Opcode, ProgramShape, Shape,
};
use crate::pipeline::{Pass, PassError};

/// The layout-assignment pass.
#[derive(Clone, Debug, Default)]
pub struct LayoutAssignment {
    /// Entry parameter layouts forced by the user (`--layout param0={0,1}`): parameter
    /// number and layout. They override the module's entry computation layout.
    pub forced_parameter_layouts: Vec<(usize, Layout)>,
}

impl Pass for LayoutAssignment {
    fn name(&self) -> &'static str {
        "layout-assignment"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let before = module.to_string();
        let entry_layout = module.config.entry_computation_layout.clone();
        self.assign_entry_parameters(module, entry_layout.as_ref())?;
        let fused: HashSet<ComputationId> = fused_computations(module);
        for c in module.order.clone() {
            if !fused.contains(&c) {
                assign_computation(module, c, c == module.entry)?;
            }
        }
        for c in module.order.clone() {
            if fused.contains(&c) {
                assign_computation(module, c, false)?;
            }
        }
        let result = entry_layout.map(|l| l.result);
        fix_entry_result(module, result.as_ref());
        let entry = module.entry_computation();
        module.config.entry_computation_layout = Some(ProgramShape {
            parameters: entry.parameter_shapes(),
            result: entry.root_instr().shape.clone(),
        });
        Ok(module.to_string() != before)
    }
}

impl LayoutAssignment {
    /// Rule 1: entry parameter layouts.
    fn assign_entry_parameters(
        &self,
        module: &mut Module,
        entry_layout: Option<&ProgramShape>,
    ) -> Result<(), PassError> {
        let entry = module.entry;
        let params = module.computations[entry].parameters();
        for &(n, ref layout) in &self.forced_parameter_layouts {
            let Some(&p) = params.get(n) else {
                return Err(PassError::new(format!(
                    "--layout param{n}: the entry computation has {} parameters",
                    params.len()
                )));
            };
            let instr = &mut module.computations[entry].instrs[p];
            let name = instr.name.clone();
            let Some(a) = instr.shape.as_array_mut() else {
                return Err(PassError::new(format!(
                    "--layout param{n}: parameter {name} is not an array"
                )));
            };
            if !is_permutation(&layout.minor_to_major, a.rank()) {
                return Err(PassError::new(format!(
                    "--layout param{n}: {{{}}} is not a layout of {name}'s rank {}",
                    join(&layout.minor_to_major),
                    a.rank()
                )));
            }
            a.layout = layout.clone();
        }
        if let Some(program) = entry_layout {
            for (n, &p) in params.iter().enumerate() {
                if self.forced_parameter_layouts.iter().any(|(k, _)| *k == n) {
                    continue;
                }
                if let Some(s) = program.parameters.get(n) {
                    let instr = &mut module.computations[entry].instrs[p];
                    if instr.shape.compatible(s) {
                        instr.shape = s.clone();
                    }
                }
            }
        }
        Ok(())
    }
}

fn is_permutation(m2m: &[usize], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    m2m.len() == rank
        && m2m
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true))
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn fused_computations(module: &Module) -> HashSet<ComputationId> {
    let mut out = HashSet::new();
    for &c in &module.order {
        for (_, instr) in module.computations[c].iter() {
            if let Op::Fusion { calls, .. } = instr.op {
                out.insert(calls);
            }
        }
    }
    out
}

/// Every array leaf of `shape` made row-major.
fn row_major(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            a.layout = Layout {
                minor_to_major: Layout::row_major(a.rank()).minor_to_major,
                extra: a.layout.extra.clone(),
            };
            Shape::Array(a)
        }
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(row_major).collect()),
        other => other.clone(),
    }
}

/// True for ops whose result layout is their operands' (they move no data).
fn forwards_layout(op: &Op) -> bool {
    matches!(op, Op::GetTupleElement { .. })
        || matches!(
            op.opcode(),
            Opcode::Tuple | Opcode::OptimizationBarrier | Opcode::AddDependency
        )
}

/// Rules 2–5 for one computation, in instruction order.
fn assign_computation(
    module: &mut Module,
    c: ComputationId,
    is_entry: bool,
) -> Result<(), PassError> {
    let gemv_constants = gemv_constants(module, c);
    let dot_transposes = dot_transposes(module, c);
    let transposed_dots = transposed_dots(module, c, &dot_transposes);
    let written: HashMap<InstrId, Shape> = module.computations[c]
        .iter()
        .map(|(id, i)| (id, i.shape.clone()))
        .collect();
    for id in module.computations[c].order.clone() {
        let instr = module.computations[c].instrs[id].clone();
        // Rule 5 first: operands get the layout this instruction reads.
        for (j, &x) in instr.operands.iter().enumerate() {
            let have = module.computations[c].instrs[x].shape.clone();
            let reader = Reader {
                instr: &instr,
                is_entry_root: is_entry && id == module.computations[c].root,
                written: &written,
            };
            let Some(want) =
                required_operand_shape(&reader, j, &have, &gemv_constants, &dot_transposes)
            else {
                continue;
            };
            if want != have {
                let copy = relayout_copy(module, c, x, &want, id);
                module.computations[c].instrs[id].operands[j] = copy;
            }
        }
        // Rules 2–4: this instruction's result layout.
        let instr = module.computations[c].instrs[id].clone();
        let comp = &module.computations[c];
        let new_shape = match &instr.op {
            Op::Parameter { .. } if is_entry => continue,
            Op::CustomCall(_) | Op::Plain(Opcode::Bitcast) => continue,
            op if forwards_layout(op) => forwarded_shape(comp, &instr),
            Op::Constant { .. } if gemv_constants.iter().any(|(k, _)| *k == id) => {
                let layout = gemv_constants
                    .iter()
                    .find(|(k, _)| *k == id)
                    .map(|(_, l)| l.clone());
                with_layout(&instr.shape, layout)
            }
            Op::Dot { .. } if transposed_dots.contains_key(&id) => {
                with_layout(&instr.shape, transposed_dots.get(&id).cloned())
            }
            Op::Transpose { dimensions } if dot_transposes.contains(&id) => {
                let operand = &comp.instrs[instr.operands[0]].shape;
                let m2m = operand.as_array().map(|a| {
                    a.layout
                        .minor_to_major
                        .iter()
                        .map(|&d| dimensions.iter().position(|&p| p == d).unwrap_or(d))
                        .collect::<Vec<usize>>()
                });
                with_layout(
                    &instr.shape,
                    m2m.map(|m| Layout {
                        minor_to_major: m,
                        extra: None,
                    }),
                )
            }
            _ => row_major(&instr.shape),
        };
        set_shape(module, c, id, new_shape);
    }
    // Roots of called computations are row-major (callers read them so).
    if !is_entry {
        let comp = &module.computations[c];
        let root = comp.root;
        let have = comp.instrs[root].shape.clone();
        let want = row_major(&have);
        if want != have && have.is_array() {
            relayout_root(module, c, &want);
        }
    }
    Ok(())
}

/// `shape` with `layout` on its (array) shape, or unchanged.
fn with_layout(shape: &Shape, layout: Option<Layout>) -> Shape {
    let mut s = shape.clone();
    if let (Some(a), Some(l)) = (s.as_array_mut(), layout) {
        a.layout = l;
    }
    s
}

/// A forwarding op's shape from its operands' current shapes.
fn forwarded_shape(comp: &crate::ir::Computation, instr: &Instruction) -> Shape {
    let operand = |j: usize| comp.instrs[instr.operands[j]].shape.clone();
    match &instr.op {
        Op::GetTupleElement { index } => operand(0)
            .tuple_elements()
            .and_then(|t| t.get(*index).cloned())
            .unwrap_or_else(|| instr.shape.clone()),
        Op::Plain(Opcode::Tuple) => Shape::Tuple((0..instr.operands.len()).map(operand).collect()),
        _ => operand(0),
    }
}

/// Sets an instruction's shape; a constant's literal is re-stored in the new layout.
fn set_shape(module: &mut Module, c: ComputationId, id: InstrId, shape: Shape) {
    let instr = &mut module.computations[c].instrs[id];
    if instr.shape == shape {
        return;
    }
    if let (
        Op::Constant {
            literal: Literal::Array(lit),
        },
        Some(a),
    ) = (&mut instr.op, shape.as_array())
    {
        *lit = lit.with_layout(&a.layout);
    }
    instr.shape = shape;
}

/// The instruction whose operand layouts are being decided.
struct Reader<'a> {
    instr: &'a Instruction,
    /// It is the entry root (its result layout is fixed by `fix_entry_result`).
    is_entry_root: bool,
    /// The shapes as written before this pass, by instruction.
    written: &'a HashMap<InstrId, Shape>,
}

/// Rule 5: the shape (with layout) the reader reads its operand `j` in, or `None` when
/// any layout will do.
fn required_operand_shape(
    reader: &Reader<'_>,
    j: usize,
    have: &Shape,
    gemv_constants: &[(InstrId, Layout)],
    dot_transposes: &HashSet<InstrId>,
) -> Option<Shape> {
    let instr = reader.instr;
    let x = instr.operands[j];
    match &instr.op {
        Op::CustomCall(cc) => match &cc.operand_layout_constraints {
            Some(shapes) => shapes.get(j).cloned(),
            None => Some(row_major(have)),
        },
        Op::Plain(Opcode::Copy) | Op::Transpose { .. } => None,
        op if forwards_layout(op) && instr.opcode() != Opcode::Tuple => None,
        // The entry root tuple: fixed by `fix_entry_result`.
        Op::Plain(Opcode::Tuple) if reader.is_entry_root => None,
        // A bitcast reinterprets the bytes as they were written.
        Op::Plain(Opcode::Bitcast) => reader.written.get(&x).cloned(),
        Op::Dot { .. }
            if dot_transposes.contains(&x) || gemv_constants.iter().any(|(k, _)| *k == x) =>
        {
            None
        }
        _ => Some(row_major(have)),
    }
}

/// Inserts `copy(x)` with shape `want` before `before` (for tuples: a tuple of per-leaf
/// copies of get-tuple-elements) and returns it.
fn relayout_copy(
    module: &mut Module,
    c: ComputationId,
    x: InstrId,
    want: &Shape,
    before: InstrId,
) -> InstrId {
    let comp = &mut module.computations[c];
    let have = comp.instrs[x].shape.clone();
    match (want, &have) {
        (Shape::Tuple(elements), Shape::Tuple(_)) => {
            let mut parts = Vec::new();
            for (k, e) in elements.iter().enumerate() {
                let gte = Instruction::new(
                    "get-tuple-element",
                    have.subshape(&[k]).cloned().unwrap_or_else(|| e.clone()),
                    Op::GetTupleElement { index: k },
                    vec![x],
                );
                let g = module.computations[c].insert_before(before, gte);
                let part = if module.computations[c].instrs[g].shape == *e {
                    g
                } else {
                    relayout_copy(module, c, g, e, before)
                };
                parts.push(part);
            }
            let t = Instruction::new("tuple", want.clone(), Op::Plain(Opcode::Tuple), parts);
            module.computations[c].insert_before(before, t)
        }
        _ => comp.insert_before(
            before,
            Instruction::new("copy", want.clone(), Op::Plain(Opcode::Copy), vec![x]),
        ),
    }
}

/// Rule 3: rank-2 constants used only by matrix–vector dots, with the layout that makes
/// their contracting dimension minor.
fn gemv_constants(module: &Module, c: ComputationId) -> Vec<(InstrId, Layout)> {
    let comp = &module.computations[c];
    let users = comp.users();
    let mut out = Vec::new();
    for (id, instr) in comp.iter() {
        if !matches!(instr.op, Op::Constant { .. }) || instr.shape.rank() != 2 {
            continue;
        }
        let mut contracting = None;
        let all_gemv = !users[id].is_empty()
            && users[id].iter().all(|&u| {
                let d = &comp.instrs[u];
                let Op::Dot {
                    dimension_numbers, ..
                } = &d.op
                else {
                    return false;
                };
                if d.shape.rank() > 1 || d.operands[0] == d.operands[1] {
                    return false;
                }
                let (k, other, dims) = if d.operands[0] == id {
                    (
                        0,
                        d.operands[1],
                        &dimension_numbers.lhs_contracting_dimensions,
                    )
                } else {
                    (
                        1,
                        d.operands[0],
                        &dimension_numbers.rhs_contracting_dimensions,
                    )
                };
                let _ = k;
                let vector = comp.instrs[other].shape.as_array();
                let is_vector = vector.is_some_and(|v| v.rank() == 1 && v.byte_size() >= 32);
                let dim = dims.first().copied();
                let agrees = contracting.is_none() || contracting == dim;
                contracting = dim;
                is_vector && dims.len() == 1 && agrees
            });
        if let (true, Some(k)) = (all_gemv, contracting) {
            let layout = Layout {
                minor_to_major: vec![k, 1 - k],
                extra: None,
            };
            if !layout.is_row_major() {
                out.push((id, layout));
            }
        }
    }
    out
}

/// Rule 4: transposes whose every user is a dot.
fn dot_transposes(module: &Module, c: ComputationId) -> HashSet<InstrId> {
    let comp = &module.computations[c];
    let users = comp.users();
    comp.iter()
        .filter(|(id, instr)| {
            matches!(instr.op, Op::Transpose { .. })
                && instr.shape.rank() >= 2
                && *id != comp.root
                && !users[*id].is_empty()
                && users[*id]
                    .iter()
                    .all(|&u| comp.instrs[u].opcode() == Opcode::Dot)
        })
        .map(|(id, _)| id)
        .collect()
}

/// Rule 4, mirrored: dots (not the root) whose only user is a transpose that rule 4 leaves
/// row-major, with the layout that makes that transpose a bitcast: the transpose's result
/// dimension `i` is the dot's dimension `dimensions[i]`, so listing the dot's dimensions in
/// the transpose's row-major minor-to-major order renames the same bytes.
fn transposed_dots(
    module: &Module,
    c: ComputationId,
    dot_transposes: &HashSet<InstrId>,
) -> HashMap<InstrId, Layout> {
    let comp = &module.computations[c];
    let users = comp.users();
    let mut out = HashMap::new();
    for (id, instr) in comp.iter() {
        if instr.opcode() != Opcode::Dot || id == comp.root || !instr.shape.is_array() {
            continue;
        }
        let [t] = users[id][..] else { continue };
        let Op::Transpose { dimensions } = &comp.instrs[t].op else {
            continue;
        };
        if dot_transposes.contains(&t) || !is_permutation(dimensions, instr.shape.rank()) {
            continue;
        }
        let minor_to_major: Vec<usize> = dimensions.iter().rev().copied().collect();
        out.insert(
            id,
            Layout {
                minor_to_major,
                extra: None,
            },
        );
    }
    out
}

/// Rule 6: the entry root gets the requested result layout (row-major when none is given).
fn fix_entry_result(module: &mut Module, result: Option<&Shape>) {
    let c = module.entry;
    let root = module.computations[c].root;
    let have = module.computations[c].instrs[root].shape.clone();
    let want = match result {
        Some(r) if r.compatible(&have) => r.clone(),
        _ => row_major(&have),
    };
    if want == have {
        return;
    }
    let root_instr = module.computations[c].instrs[root].clone();
    if root_instr.opcode() != Opcode::Tuple && produce_in_place(module, c, root, &want) {
        return;
    }
    if root_instr.opcode() == Opcode::Tuple {
        // Per leaf: copy the operands whose layout differs.
        let users = module.computations[c].users();
        for (k, &x) in root_instr.operands.iter().enumerate() {
            let (Some(w), h) = (
                want.subshape(&[k]),
                module.computations[c].instrs[x].shape.clone(),
            ) else {
                continue;
            };
            let only_here = users[x].len() == 1;
            if *w != h && !(only_here && produce_in_place(module, c, x, w)) {
                let copy = relayout_copy(module, c, x, w, root);
                module.computations[c].instrs[root].operands[k] = copy;
            }
        }
        let comp = &module.computations[c];
        let shape = forwarded_shape(comp, &comp.instrs[root]);
        module.computations[c].instrs[root].shape = shape;
    } else {
        relayout_root(module, c, &want);
    }
}

/// Makes a relayout of computation `c`'s root its new root. The copy (for a tuple root:
/// its get-tuple-elements, per-leaf copies and the new tuple) reads the old root, so all
/// of it goes after the old root in the order.
fn relayout_root(module: &mut Module, c: ComputationId, want: &Shape) {
    let root = module.computations[c].root;
    let before: HashSet<InstrId> = module.computations[c].order.iter().copied().collect();
    let copy = relayout_copy(module, c, root, want, root);
    let comp = &mut module.computations[c];
    let added: Vec<InstrId> = comp
        .order
        .iter()
        .copied()
        .filter(|i| !before.contains(i))
        .collect();
    comp.order.retain(|i| before.contains(i));
    comp.order.extend(added);
    comp.root = copy;
}

/// A transpose or copy that only feeds the entry result can produce the requested layout
/// itself (it reads its operand in any layout): no copy after it, and a transpose whose
/// requested layout renames its operand's bytes becomes a bitcast later. Returns true if
/// it did.
fn produce_in_place(module: &mut Module, c: ComputationId, x: InstrId, want: &Shape) -> bool {
    let instr = &mut module.computations[c].instrs[x];
    let relayouts = matches!(instr.op, Op::Transpose { .. } | Op::Plain(Opcode::Copy));
    if relayouts && want.is_array() && instr.shape.compatible(want) {
        instr.shape = want.clone();
        return true;
    }
    false
}

#[cfg(test)]
mod tests;
