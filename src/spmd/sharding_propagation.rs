//! `sharding-propagation`: gives every instruction of the entry a sharding.
//! XLA: `xla/service/sharding_propagation.cc` (GSPMD) and Shardy's propagation, forward and
//! backward to a fixed point. Annotated instructions (parameters, results, `Sharding`
//! custom calls, shard_map boundaries) keep their sharding. Forward, every other
//! instruction takes the one its op family's rule derives from its operands: elementwise
//! ops the most split operand's, broadcast/transpose/reshape the moved split, reduce the
//! kept dimensions', dot the local dot's result (batch and free dimensions from the
//! operands; with one operand decided, that operand's batch and free splits). Backward, a
//! value its operands do not decide (an unannotated parameter and what is computed only
//! from such values) takes the split its users imply: an elementwise user's or a sharding
//! annotation's, a broadcast's, transpose's or reshape's split moved back, a reduce's kept
//! dimensions, a dot's result and other operand (so the local dot needs no reshard). What
//! nothing decides is replicated; ops without a rule are replicated. Results nobody
//! annotated keep what propagation gave them, which is what XLA reports for unspecified
//! `out_shardings`, and so do parameters for unspecified `in_shardings`.
//!
//! The Shardy annotations JAX writes into HLO (`xla.sdy.FuncResultSharding`,
//! `xla.sdy.GlobalToLocalShape`, `xla.sdy.LocalToGlobalShape` with their
//! `frontend_attributes`) are converted to `sharding=` here, with the module's
//! `xla.sdy.meshes`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::decisions::DecisionLog;
use super::rules::{convolution, dot, elementwise, gather_scatter, reduce, shape_ops};
use super::tiling::Tiling;
use super::{SpmdOptions, manual, reshard};
use crate::ir::sharding::{
    HloSharding, SdyMesh, SdySharding, frontend_attribute, parse_frontend_meshes, parse_manual_axes,
};
use crate::ir::{InstrId, Instruction, Module, Op, OpCategory, Opcode, Shape};
use crate::pipeline::{Pass, PassError};

/// The `sharding-propagation` pass.
pub struct ShardingPropagation {
    options: SpmdOptions,
    log: Rc<RefCell<DecisionLog>>,
}

impl ShardingPropagation {
    /// The pass for `options`' partitions, recording into `log`.
    pub fn new(options: SpmdOptions, log: Rc<RefCell<DecisionLog>>) -> ShardingPropagation {
        ShardingPropagation { options, log }
    }
}

/// What propagation knows about a value.
#[derive(Clone, Debug, PartialEq)]
enum Sh {
    Array(Tiling),
    Tuple(Vec<Sh>),
    Manual,
}

impl Sh {
    fn of(s: &HloSharding, shape: &Shape, n: usize) -> Sh {
        if s.is_manual() {
            return Sh::Manual;
        }
        match shape {
            Shape::Tuple(elems) => Sh::Tuple(
                elems
                    .iter()
                    .enumerate()
                    .map(|(i, e)| Sh::of(s.element(i).unwrap_or(&HloSharding::Replicated), e, n))
                    .collect(),
            ),
            _ => Sh::Array(Tiling::of(s, shape.rank(), n)),
        }
    }

    fn replicated(shape: &Shape, n: usize) -> Sh {
        Sh::of(&HloSharding::Replicated, shape, n)
    }

    fn to_sharding(&self) -> HloSharding {
        match self {
            Sh::Array(t) => t.to_sharding(),
            Sh::Tuple(v) => HloSharding::Tuple(v.iter().map(Sh::to_sharding).collect()),
            Sh::Manual => HloSharding::Manual,
        }
    }

    /// The same split with complete values: what the rules see of an unreduced annotation,
    /// so that propagation never makes a value unreduced that no annotation made so.
    fn reduced(&self) -> Sh {
        match self {
            Sh::Array(t) => Sh::Array(t.reduced()),
            Sh::Tuple(v) => Sh::Tuple(v.iter().map(Sh::reduced).collect()),
            Sh::Manual => Sh::Manual,
        }
    }
}

fn err(instr: &Instruction, msg: impl std::fmt::Display) -> PassError {
    PassError::new(format!("sharding-propagation: `{}`: {msg}", instr.name))
}

/// Checks a sharding against the instruction's shape and the partition count.
fn check(instr: &Instruction, s: &HloSharding, shape: &Shape, n: usize) -> Result<(), PassError> {
    match (s, shape) {
        (HloSharding::Tuple(v), Shape::Tuple(elems)) => {
            if v.len() != elems.len() {
                return Err(err(
                    instr,
                    format!("{} shardings for a tuple of {}", v.len(), elems.len()),
                ));
            }
            for (s, e) in v.iter().zip(elems) {
                check(instr, s, e, n)?;
            }
            Ok(())
        }
        (HloSharding::Tuple(v), s) if v.len() == 1 => check(instr, &v[0], s, n),
        (HloSharding::Tuple(_), _) => Err(err(instr, "a tuple sharding on an array")),
        (s, Shape::Tuple(elems)) => {
            for e in elems {
                check(instr, s, e, n)?;
            }
            Ok(())
        }
        (s, shape) => s
            .validate(shape.rank(), n as i64)
            .map_err(|e| err(instr, e)),
    }
}

/// The sdy sharding(s) in `instr`'s frontend attribute `key`, as one HLO sharding.
fn sdy_attribute(
    instr: &Instruction,
    key: &str,
    meshes: &[SdyMesh],
) -> Result<Option<HloSharding>, PassError> {
    let Some(fa) = instr
        .raw_attributes
        .iter()
        .find(|a| a.name == "frontend_attributes")
    else {
        return Ok(None);
    };
    let Some(text) = frontend_attribute(&fa.value, key) else {
        return Ok(None);
    };
    let list = SdySharding::parse_per_value(&text).map_err(|e| err(instr, e))?;
    let mut out = Vec::new();
    for s in &list {
        let mesh = meshes
            .iter()
            .find(|m| m.name == s.mesh)
            .ok_or_else(|| err(instr, format!("no mesh @{} in xla.sdy.meshes", s.mesh)))?;
        out.push(s.to_hlo(mesh).map_err(|e| err(instr, e))?);
    }
    // A shard_map over some mesh axes only keeps its in- and out-shardings (global, along
    // the manual axes); `manual::regions` finds its groups.
    if let Some(axes) = frontend_attribute(&fa.value, "xla.sdy.manual_axes") {
        parse_manual_axes(&axes).map_err(|e| err(instr, e))?;
    }
    Ok(Some(match out.len() {
        1 => out.pop().unwrap(),
        _ => HloSharding::Tuple(out),
    }))
}

impl Pass for ShardingPropagation {
    fn name(&self) -> &'static str {
        "sharding-propagation"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let n = self.options.num_partitions;
        let meshes = module
            .config
            .raw_attributes
            .iter()
            .find(|a| a.name == "frontend_attributes")
            .map(|a| parse_frontend_meshes(&a.value))
            .transpose()
            .map_err(|e| PassError::new(format!("sharding-propagation: xla.sdy.meshes: {e}")))?
            .unwrap_or_default();
        let entry = module.entry;
        let mut log = self.log.borrow_mut();
        log.num_partitions = n;
        // shard_map bodies over some mesh axes only: each its own program over the
        // partitions of one manual group, its values split along the free axes.
        let regions = manual::regions(module, entry, &meshes, n)
            .map_err(|e| e.in_pass("sharding-propagation"))?;
        for r in &regions {
            manual::prepare_body(module, r).map_err(|e| e.in_pass("sharding-propagation"))?;
            let mut body = module.computations[r.body].clone();
            let scope = Scope {
                module,
                n: r.groups.local_partitions(),
                meshes: &[],
                program: false,
            };
            propagate(&mut body, &scope, &mut log)?;
            module.computations[r.body] = body;
        }
        let mut comp = module.computations[entry].clone();
        let scope = Scope {
            module,
            n,
            meshes: &meshes,
            program: true,
        };
        propagate(&mut comp, &scope, &mut log)?;
        module.computations[entry] = comp;
        propagate_into_loops(module, entry, n, &meshes, &mut log)?;
        Ok(true)
    }
}

/// What a computation's propagation sees around it.
struct Scope<'a> {
    /// The module, for the computations loops and conditionals call.
    module: &'a Module,
    /// Partitions the computation runs on.
    n: usize,
    /// The module's Shardy meshes.
    meshes: &'a [SdyMesh],
    /// The computation is the program itself (the entry), whose unannotated results
    /// become the program's output shardings.
    program: bool,
}

/// Propagation over one computation whose instructions run on `scope.n` partitions.
fn propagate(
    comp: &mut crate::ir::Computation,
    scope: &Scope,
    log: &mut DecisionLog,
) -> Result<(), PassError> {
    let (n, meshes) = (scope.n, scope.meshes);
    let order = comp.order.clone();
    let users = comp.users();
    // The annotated instructions: closed, their shardings checked once.
    let mut fixed: HashMap<InstrId, (Sh, HloSharding)> = HashMap::new();
    for &id in &order {
        let instr = &comp.instrs[id];
        if let Some((sh, stored)) = annotation(instr, comp, meshes, n)? {
            fixed.insert(id, (sh, stored));
        }
    }
    // Forward then backward sweeps to a fixed point. `None` is a value nothing has
    // decided yet (an unannotated parameter, or ops computed only from such values);
    // operands decide first, users fill what is still open.
    let mut shs: HashMap<InstrId, Option<Sh>> = HashMap::new();
    let mut why: HashMap<InstrId, &'static str> = HashMap::new();
    for (&id, (sh, _)) in &fixed {
        shs.insert(id, Some(sh.clone()));
        why.insert(id, "annotated");
    }
    let get = |shs: &HashMap<InstrId, Option<Sh>>, o: &InstrId| {
        shs.get(o).cloned().flatten().map(|s| s.reduced())
    };
    // Tuples and their elements pass an annotated unreduced value on as it is (they
    // compute nothing); every other rule sees it reduced.
    let operand_of = |shs: &HashMap<InstrId, Option<Sh>>, instr: &Instruction, o: &InstrId| {
        if matches!(
            instr.op,
            Op::Plain(Opcode::Tuple) | Op::GetTupleElement { .. }
        ) {
            shs.get(o).cloned().flatten()
        } else {
            get(shs, o)
        }
    };
    for _round in 0..MAX_ROUNDS {
        let mut changed = false;
        for &id in &order {
            if fixed.contains_key(&id) {
                continue;
            }
            let instr = &comp.instrs[id];
            let operands: Vec<Option<Sh>> = instr
                .operands
                .iter()
                .map(|o| operand_of(&shs, instr, o))
                .collect();
            if let Some((sh, w)) = infer(instr, &operands, comp, scope) {
                // A split its users added stays while the operands' split agrees.
                if get(&shs, &id).is_some_and(|cur| refines(&cur, &sh)) {
                    continue;
                }
                if shs.get(&id).cloned().flatten().as_ref() != Some(&sh) {
                    changed = true;
                    shs.insert(id, Some(sh));
                }
                why.insert(id, w);
            }
        }
        for &id in order.iter().rev() {
            if fixed.contains_key(&id) {
                continue;
            }
            let instr = &comp.instrs[id];
            let cur = get(&shs, &id);
            if let Shape::Tuple(elems) = &instr.shape {
                // A tuple: each element from its get-tuple-elements, or from the while
                // loop it starts (all of them for an undecided tuple; a partly replicated
                // element may take more splits).
                let from_gte: Vec<Option<Sh>> = (0..elems.len())
                    .map(|i| {
                        users[id]
                            .iter()
                            .find_map(|&u| match (&comp.instrs[u].op, get(&shs, &u)) {
                                (Op::GetTupleElement { index }, Some(s)) if *index == i => Some(s),
                                (Op::While { .. }, Some(Sh::Tuple(v))) => v.get(i).cloned(),
                                _ => None,
                            })
                    })
                    .collect();
                let next = match cur {
                    None => from_gte.into_iter().collect::<Option<Vec<Sh>>>(),
                    // A while loop's state too: its users may split what the initial
                    // state left replicated (an iota built whole before the loop).
                    Some(Sh::Tuple(v))
                        if matches!(
                            instr.op,
                            Op::Plain(Opcode::Tuple) | Op::Sort { .. } | Op::While { .. }
                        ) =>
                    {
                        Some(
                            v.iter()
                                .zip(from_gte)
                                .map(|(c, g)| match (c, g) {
                                    (Sh::Array(c), Some(Sh::Array(g))) => {
                                        c.merge(&g).map_or(Sh::Array(c.clone()), Sh::Array)
                                    }
                                    (c, _) => c.clone(),
                                })
                                .collect(),
                        )
                    }
                    Some(_) => None,
                };
                if let Some(v) = next
                    && get(&shs, &id) != Some(Sh::Tuple(v.clone()))
                {
                    shs.insert(id, Some(Sh::Tuple(v)));
                    let starts_loop = users[id]
                        .iter()
                        .any(|&u| matches!(comp.instrs[u].op, Op::While { .. }));
                    why.insert(
                        id,
                        if starts_loop {
                            "from its while loop's state"
                        } else {
                            "from its get-tuple-elements"
                        },
                    );
                    changed = true;
                }
                continue;
            }
            let cur = match cur {
                None => None,
                // A partly replicated value may take more splits from its users.
                Some(Sh::Array(t)) if t.counts.iter().product::<i64>() < n as i64 => Some(t),
                Some(_) => continue,
            };
            let mut found: Vec<(Tiling, &'static str)> = Vec::new();
            for &u in &users[id] {
                let user = &comp.instrs[u];
                let ut = match (&user.op, get(&shs, &u)) {
                    (Op::Plain(Opcode::Tuple), Some(Sh::Tuple(v))) => {
                        for (k, o) in user.operands.iter().enumerate() {
                            if *o == id
                                && let Some(Sh::Array(t)) = v.get(k)
                            {
                                found.push((t.clone(), "from its tuple's sharding"));
                            }
                        }
                        continue;
                    }
                    // A sort of several operands: each operand takes its result's
                    // split (they are sorted together, so alike).
                    (Op::Sort { .. }, Some(Sh::Tuple(v))) => {
                        for (k, o) in user.operands.iter().enumerate() {
                            if *o == id
                                && let Some(Sh::Array(t)) = v.get(k)
                            {
                                found.push((t.clone(), "from its sort: the result's split"));
                            }
                        }
                        continue;
                    }
                    // An input of a variadic reduce: its sibling inputs' split (they
                    // reduce together; an index iota takes its values' split).
                    (Op::Reduce { .. }, _) if is_variadic_reduce(user) => {
                        let inputs = user.operands.len() / 2;
                        if user.operands[..inputs].contains(&id) {
                            for o in &user.operands[..inputs] {
                                if *o != id
                                    && let Some(Sh::Array(t)) = get(&shs, o)
                                {
                                    found.push((t, "from its variadic reduce's other inputs"));
                                }
                            }
                        }
                        continue;
                    }
                    (_, Some(Sh::Array(t))) => t,
                    _ => continue,
                };
                let operands: Vec<Option<Sh>> =
                    user.operands.iter().map(|o| get(&shs, o)).collect();
                for (k, _) in user.operands.iter().enumerate().filter(|(_, o)| **o == id) {
                    if let Some(f) = backward(user, k, &ut, &operands, comp) {
                        found.push(f);
                    }
                }
            }
            // The most split suggestion first.
            found.sort_by_key(|f| std::cmp::Reverse(f.0.counts.iter().product::<i64>()));
            match cur {
                None => {
                    if let Some((t, w)) = found.into_iter().next() {
                        shs.insert(id, Some(Sh::Array(t)));
                        why.insert(id, w);
                        changed = true;
                    }
                }
                Some(cur) => {
                    if let Some(m) = found.iter().find_map(|f| cur.merge(&f.0)) {
                        shs.insert(id, Some(Sh::Array(m)));
                        why.insert(id, "its operands' split, refined by its users'");
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // What nothing decided is replicated; the rest follows forward.
    for &id in &order {
        if get(&shs, &id).is_some() {
            continue;
        }
        let instr = &comp.instrs[id];
        let operands: Vec<Option<Sh>> = instr
            .operands
            .iter()
            .map(|o| {
                Some(
                    operand_of(&shs, instr, o)
                        .unwrap_or_else(|| Sh::replicated(&comp.instrs[*o].shape, n)),
                )
            })
            .collect();
        let (sh, w) = infer(instr, &operands, comp, scope).unwrap_or_else(|| {
            (
                Sh::replicated(&instr.shape, n),
                "nothing decides it: replicated",
            )
        });
        shs.insert(id, Some(sh));
        why.insert(id, w);
    }
    // The program's results nobody annotated: a split that does not divide its dimension
    // evenly is dropped (XLA gives such outputs that dimension whole).
    if scope.program && !fixed.contains_key(&comp.root) {
        let root = &comp.instrs[comp.root];
        if let Some(sh) = get(&shs, &comp.root) {
            let even = even_splits(&sh, &root.shape);
            if even != sh {
                shs.insert(comp.root, Some(even));
                why.insert(
                    comp.root,
                    "program result: uneven splits dropped, as XLA's outputs",
                );
            }
        }
    }
    for &id in &order {
        let instr = &comp.instrs[id];
        let sh = shs
            .get(&id)
            .cloned()
            .flatten()
            .expect("every instruction decided");
        let stored = match (fixed.get(&id), cc_target(instr)) {
            // The shard_map entry keeps its annotation (a partially manual one names
            // its manual groups for the partitioner).
            (Some((_, s)), Some("xla.sdy.GlobalToLocalShape" | "SPMDFullToShardShape")) => {
                s.clone()
            }
            // An annotation keeps its unreduced part (the rules saw it reduced).
            (Some((s, _)), _) => s.to_sharding(),
            _ => sh.to_sharding(),
        };
        let d = log.entry(&instr.name, instr.opcode().name());
        d.operands = instr
            .operands
            .iter()
            .map(|o| get(&shs, o).expect("decided").to_sharding().to_string())
            .collect();
        d.sharding = stored.to_string();
        d.propagated_by = why[&id].to_string();
        comp.instrs[id].sharding = Some(stored);
    }
    Ok(())
}

/// True if `cur` splits everything `f` splits, the same way (a split users added).
fn refines(cur: &Sh, f: &Sh) -> bool {
    match (cur, f) {
        (Sh::Array(a), Sh::Array(b)) => a.refines(b),
        (Sh::Tuple(a), Sh::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| refines(x, y))
        }
        (a, b) => a == b,
    }
}

/// Sweeps before propagation stops (each sweep decides at least one value, so this bounds
/// only pathological chains).
const MAX_ROUNDS: usize = 64;

/// An instruction's own sharding (closed to propagation), checked against its shape and
/// the partition count, and how it is stored back.
fn annotation(
    instr: &Instruction,
    comp: &crate::ir::Computation,
    meshes: &[SdyMesh],
    n: usize,
) -> Result<Option<(Sh, HloSharding)>, PassError> {
    // Shardy's custom calls carry their sharding in frontend attributes.
    let mut annotated = instr.sharding.clone();
    if let Op::CustomCall(cc) = &instr.op {
        let key = match cc.target.as_str() {
            "xla.sdy.FuncResultSharding" => Some("xla.sdy.sharding"),
            "xla.sdy.GlobalToLocalShape" => Some("xla.sdy.in_shardings"),
            "xla.sdy.LocalToGlobalShape" => Some("xla.sdy.out_shardings"),
            _ => None,
        };
        if let Some(key) = key
            && let Some(s) = sdy_attribute(instr, key, meshes)?
        {
            annotated = Some(s);
        }
    }
    if n == 1 {
        // One partition: every split is the whole array.
        annotated = annotated.map(|s| whole(&s));
    }
    let Some(s) = annotated else {
        return Ok(None);
    };
    let shape = match cc_target(instr) {
        // The in-shardings describe the operands (global shapes).
        Some("xla.sdy.GlobalToLocalShape") => {
            let ops: Vec<Shape> = instr
                .operands
                .iter()
                .map(|o| comp.instrs[*o].shape.clone())
                .collect();
            if ops.len() == 1 {
                ops[0].clone()
            } else {
                Shape::Tuple(ops)
            }
        }
        _ => instr.shape.clone(),
    };
    check(instr, &s, &shape, n)?;
    let sh = match cc_target(instr) {
        Some("xla.sdy.GlobalToLocalShape" | "SPMDFullToShardShape") => Sh::Manual,
        _ => Sh::of(&s, &instr.shape, n),
    };
    Ok(Some((sh, s)))
}

/// The sharding with every tiled part replicated (manual parts kept).
fn whole(s: &HloSharding) -> HloSharding {
    match s {
        HloSharding::Tuple(v) => HloSharding::Tuple(v.iter().map(whole).collect()),
        s if s.is_manual() => s.clone(),
        _ => HloSharding::Replicated,
    }
}

fn cc_target(instr: &Instruction) -> Option<&str> {
    match &instr.op {
        Op::CustomCall(cc) => Some(cc.target.as_str()),
        _ => None,
    }
}

/// The forward rule for an unannotated instruction; `None` while the operands it depends
/// on are undecided (and always for an unannotated parameter: its users decide).
fn infer(
    instr: &Instruction,
    operands: &[Option<Sh>],
    comp: &crate::ir::Computation,
    scope: &Scope,
) -> Option<(Sh, &'static str)> {
    let n = scope.n;
    if operands.iter().any(|o| matches!(o, Some(Sh::Manual))) {
        return Some((Sh::Manual, "inside a manual region"));
    }
    let arr = |i: usize| match operands.get(i) {
        Some(Some(Sh::Array(t))) => Some(t),
        _ => None,
    };
    let open = |i: usize| matches!(operands.get(i), Some(None));
    let odims = |i: usize| comp.instrs[instr.operands[i]].shape.dims().to_vec();
    let rep = || Sh::replicated(&instr.shape, n);
    // A one-operand rule: waits for the operand, else its result or replicated.
    let unary = |r: Option<(Sh, &'static str)>, none: &'static str| {
        if open(0) {
            None
        } else {
            Some(r.unwrap_or_else(|| (rep(), none)))
        }
    };
    Some(match (&instr.op, instr.opcode().category()) {
        (Op::Parameter { .. }, _) => return None,
        (Op::GetTupleElement { index }, _) => match operands.first() {
            Some(Some(Sh::Tuple(v))) => (
                v.get(*index).cloned().unwrap_or_else(rep),
                "the tuple element's",
            ),
            Some(None) => return None,
            _ => (rep(), "element of a whole tuple"),
        },
        (Op::Plain(Opcode::Tuple), _) => (
            Sh::Tuple(operands.iter().cloned().collect::<Option<Vec<Sh>>>()?),
            "its elements'",
        ),
        (
            _,
            OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary,
        ) if instr.shape.is_array()
            && instr
                .operands
                .iter()
                .all(|o| comp.instrs[*o].shape.dims() == instr.shape.dims()) =>
        {
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            match elementwise::choose(&ts) {
                Some(t) => (Sh::Array(t), "elementwise: the most split operand"),
                None if (0..operands.len()).any(open) => return None,
                None => (rep(), "elementwise of whole values"),
            }
        }
        (Op::Plain(Opcode::Copy), _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| (Sh::Array(t.clone()), "copy: the operand's")),
                "copy",
            );
        }
        (Op::Broadcast { dimensions }, _) => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(shape_ops::broadcast_result(
                            t,
                            dimensions,
                            instr.shape.rank(),
                        )),
                        "broadcast: the operand's split, new dimensions whole",
                    )
                }),
                "broadcast",
            );
        }
        (Op::Transpose { dimensions }, _) => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(shape_ops::transpose_result(t, dimensions)),
                        "transpose: the split moves with the dimensions",
                    )
                }),
                "transpose",
            );
        }
        (Op::Plain(Opcode::Reshape), _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(
                    |t| match shape_ops::reshape_keep(&odims(0), instr.shape.dims(), t) {
                        (Some(r), true) => (Sh::Array(r), "reshape: the split kept"),
                        (Some(r), false) => (Sh::Array(r), "reshape: the splits that fit kept"),
                        (None, _) => (rep(), "reshape: no split fits"),
                    },
                ),
                "reshape",
            );
        }
        (Op::Reduce { dimensions, .. }, _)
            if instr.operands.len() == 2 && instr.shape.is_array() =>
        {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(reduce::result(t, dimensions)),
                        "reduce: the kept dimensions' split",
                    )
                }),
                "reduce",
            );
        }
        (Op::Reduce { dimensions, .. }, _) if is_variadic_reduce(instr) => {
            // The inputs reduce together: the most split input's kept dimensions.
            let inputs = operands.len() / 2;
            let ts: Vec<&Tiling> = (0..inputs).filter_map(arr).collect();
            let t = match elementwise::choose(&ts) {
                Some(t) => reduce::result(&t, dimensions),
                None if (0..inputs).any(open) => return None,
                None => Tiling::replicated(instr.shape.tuple_elements()?[0].rank(), n),
            };
            let elems = (0..inputs).map(|_| Sh::Array(t.clone())).collect();
            (
                Sh::Tuple(elems),
                "variadic reduce: the kept dimensions' split",
            )
        }
        (
            Op::Dot {
                dimension_numbers, ..
            },
            _,
        ) => {
            let (ld, rd) = (odims(0), odims(1));
            let d = dot::DotDims::new(dimension_numbers, ld.len(), rd.len());
            match (arr(0), arr(1)) {
                (Some(l), Some(r)) => {
                    let od = instr.shape.dims().to_vec();
                    let eb = instr
                        .shape
                        .element_type()
                        .map_or(4, |t| t.byte_size().max(1) as i64);
                    let plan = dot::plan(
                        &d,
                        l,
                        r,
                        None,
                        &|which, from, to| {
                            let dims = if which == 0 { &ld } else { &rd };
                            reshard::cost(dims, eb, from, to)
                        },
                        &|out| out.shard_dims(&od).iter().product::<i64>() * eb,
                    );
                    (Sh::Array(plan.out), "dot: the local dot's result")
                }
                (Some(t), None) | (None, Some(t)) if open(0) || open(1) => {
                    let which = usize::from(open(0));
                    match dot::result_from_operand(&d, which, t) {
                        Some(out) => (Sh::Array(out), "dot: the sharded operand's split"),
                        None => (rep(), "dot"),
                    }
                }
                _ if open(0) && open(1) => return None,
                _ => (rep(), "dot"),
            }
        }
        (Op::Sort { .. }, _) => {
            if (0..operands.len()).any(open) {
                return None;
            }
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            let t =
                elementwise::choose(&ts).unwrap_or_else(|| Tiling::replicated(odims(0).len(), n));
            let sh = match &instr.shape {
                Shape::Tuple(elems) => {
                    Sh::Tuple(elems.iter().map(|_| Sh::Array(t.clone())).collect())
                }
                _ => Sh::Array(t),
            };
            (sh, "sort: the most split operand's")
        }
        (
            Op::Convolution {
                dimension_numbers,
                feature_group_count: 1,
                batch_group_count: 1,
                ..
            },
            _,
        ) => match (arr(0), arr(1)) {
            (Some(l), Some(r)) => (
                Sh::Array(convolution::result(
                    dimension_numbers,
                    l,
                    r,
                    instr.shape.rank(),
                )),
                "convolution: batch from the input, features from the kernel",
            ),
            _ if open(0) || open(1) => return None,
            _ => (rep(), "convolution"),
        },
        (
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            },
            _,
        ) => {
            if open(0) {
                return None;
            }
            let pairs =
                gather_scatter::gather_passthrough(dimension_numbers, slice_sizes, &odims(0));
            match arr(0).and_then(|t| gather_scatter::along(t, &pairs, instr.shape.rank(), false)) {
                Some(t) => (Sh::Array(t), "gather: the passthrough dimensions' split"),
                None => (rep(), "gather"),
            }
        }
        (
            Op::Scatter {
                dimension_numbers, ..
            },
            _,
        ) if instr.operands.len() == 3 && instr.shape.is_array() => {
            if open(0) {
                return None;
            }
            let pairs =
                gather_scatter::scatter_passthrough(dimension_numbers, &odims(0), &odims(2));
            let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.0)).collect();
            match arr(0).and_then(|t| gather_scatter::along(t, &same, instr.shape.rank(), false)) {
                Some(t) => (Sh::Array(t), "scatter: the passthrough dimensions' split"),
                None => (rep(), "scatter"),
            }
        }
        // Data movement that keeps every dimension: the operand's split, even where the
        // sizes change (Shardy's factors run through slice, pad and reverse; the partitioner
        // pads an uneven result).
        (Op::Slice { .. } | Op::Pad { .. } | Op::Reverse { .. }, _) if instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(t.clone()),
                        "slice/pad/reverse: the operand's split",
                    )
                }),
                "slice/pad/reverse",
            );
        }
        (Op::Concatenate { .. }, _) if instr.shape.is_array() => {
            let ts: Vec<&Tiling> = (0..operands.len()).filter_map(arr).collect();
            match elementwise::choose(&ts) {
                Some(t) => (Sh::Array(t), "concatenate: the most split operand"),
                None if (0..operands.len()).any(open) => return None,
                None => (rep(), "concatenate of whole values"),
            }
        }
        (Op::ReduceWindow { .. }, _) if instr.operands.len() == 2 && instr.shape.is_array() => {
            return unary(
                arr(0).map(|t| (Sh::Array(t.clone()), "reduce-window: the operand's split")),
                "reduce-window",
            );
        }
        (Op::DynamicSlice { sizes }, _) if instr.shape.is_array() => {
            let full = full_dims(&odims(0), sizes);
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(keep_dims(t, &full)),
                        "dynamic-slice: the split of the dimensions it takes whole",
                    )
                }),
                "dynamic-slice",
            );
        }
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if instr.shape.is_array() => {
            if open(0) {
                return None;
            }
            let base = arr(0)
                .cloned()
                .unwrap_or_else(|| Tiling::replicated(instr.shape.rank(), n));
            let full = full_dims(&odims(0), &odims(1));
            match arr(1).and_then(|u| base.merge(&keep_dims(u, &full))) {
                Some(t) => (
                    Sh::Array(t),
                    "dynamic-update-slice: the operand's split and the update's whole dimensions'",
                ),
                None => (Sh::Array(base), "dynamic-update-slice: the operand's split"),
            }
        }
        // top-k along the last dimension: rows stay where they are.
        (Op::TopK { .. }, _) => {
            let rank = odims(0).len();
            return unary(
                arr(0).map(|t| {
                    let rows = t.without_dim(rank - 1);
                    let elems = instr.shape.tuple_elements().map_or(1, <[Shape]>::len);
                    (
                        Sh::Tuple(vec![Sh::Array(rows); elems]),
                        "topk: the operand's split, the last dimension whole",
                    )
                }),
                "topk",
            );
        }
        (Op::While { body, .. }, _) => {
            let init = match operands.first() {
                Some(Some(s)) => s.clone(),
                Some(None) => return None,
                None => rep(),
            };
            (
                loop_state(scope, *body, init),
                "while: the loop state's, as the body keeps it",
            )
        }
        (
            Op::Conditional {
                branch_computations,
            },
            _,
        ) => {
            if (1..operands.len()).any(open) {
                return None;
            }
            let mut result: Option<Sh> = None;
            for (i, &branch) in branch_computations.iter().enumerate() {
                let arg = operands.get(i + 1).cloned().flatten().unwrap_or_else(|| {
                    Sh::replicated(&comp.instrs[instr.operands[i + 1]].shape, n)
                });
                if let Some(r) = callee_result(scope, branch, &[arg]) {
                    result = Some(match result {
                        None => r,
                        Some(prev) => merge_sh(&prev, &r),
                    });
                }
            }
            (
                result.unwrap_or_else(rep),
                "conditional: the branches' results",
            )
        }
        // A shard_map's own all-reduce or collective-permute inside a partially manual
        // body (its groups along the manual axes): shard by shard, like elementwise.
        (_, OpCategory::Collective)
            if is_manual_collective(instr)
                && instr.shape.is_array()
                && odims(0) == instr.shape.dims() =>
        {
            return unary(
                arr(0).map(|t| {
                    (
                        Sh::Array(t.clone()),
                        "manual collective: the operand's split",
                    )
                }),
                "manual collective",
            );
        }
        _ => (rep(), "no rule: replicated"),
    })
}

/// Gives the bodies and conditions of `c`'s sharded while loops their shardings: the
/// parameter (and the body's result) in the loop state's sharding, the rest propagated,
/// so that the partitioner runs the loop on shards. Loops inside them follow.
fn propagate_into_loops(
    module: &mut Module,
    c: crate::ir::ComputationId,
    n: usize,
    meshes: &[SdyMesh],
    log: &mut DecisionLog,
) -> Result<(), PassError> {
    let loops: Vec<(
        HloSharding,
        crate::ir::ComputationId,
        crate::ir::ComputationId,
    )> = module.computations[c]
        .iter()
        .filter_map(|(_, i)| match (&i.op, &i.sharding) {
            (Op::While { condition, body }, Some(s))
                if !s.is_manual()
                    && !matches!(s, HloSharding::Tuple(v) if v.iter().any(HloSharding::is_manual))
                    && condition != body =>
            {
                Some((s.clone(), *condition, *body))
            }
            _ => None,
        })
        .collect();
    // Conditionals: each branch's parameter in its argument's sharding, its result in
    // the conditional's.
    let branches: Vec<(HloSharding, Vec<(crate::ir::ComputationId, HloSharding)>)> = {
        let comp = &module.computations[c];
        comp.iter()
            .filter_map(|(_, i)| match (&i.op, &i.sharding) {
                (
                    Op::Conditional {
                        branch_computations,
                    },
                    Some(s),
                ) if !s.is_manual() && i.operands.len() == branch_computations.len() + 1 => {
                    let args: Option<Vec<_>> = branch_computations
                        .iter()
                        .zip(&i.operands[1..])
                        .map(|(&b, &o)| Some((b, comp.instrs[o].sharding.clone()?)))
                        .collect();
                    Some((s.clone(), args?))
                }
                _ => None,
            })
            .collect()
    };
    for (result, args) in branches {
        for (branch, arg) in args {
            let mut comp = module.computations[branch].clone();
            let params = comp.parameters();
            if params.len() != 1 {
                continue;
            }
            comp.instrs[params[0]].sharding = Some(arg);
            let root = comp.root;
            comp.instrs[root].sharding = Some(result.clone());
            let scope = Scope {
                module,
                n,
                meshes,
                program: false,
            };
            propagate(&mut comp, &scope, log)?;
            module.computations[branch] = comp;
            propagate_into_loops(module, branch, n, meshes, log)?;
        }
    }
    for (state, condition, body) in loops {
        for (callee, is_body) in [(body, true), (condition, false)] {
            let mut comp = module.computations[callee].clone();
            for p in comp.parameters() {
                comp.instrs[p].sharding = Some(state.clone());
            }
            if is_body
                && (comp.root_instr().shape.is_array()
                    || matches!(comp.root_instr().op, Op::Plain(Opcode::Tuple)))
            {
                let root = comp.root;
                comp.instrs[root].sharding = Some(state.clone());
            }
            let scope = Scope {
                module,
                n,
                meshes,
                program: false,
            };
            propagate(&mut comp, &scope, log)?;
            module.computations[callee] = comp;
            propagate_into_loops(module, callee, n, meshes, log)?;
        }
    }
    Ok(())
}

/// Sweeps of a loop body before its state's sharding is taken as settled.
const LOOP_ROUNDS: usize = 3;

/// The sharding of a while loop's state: the initial value's, with the splits the body
/// gives its result added (a buffer the body fills with split values becomes split),
/// until the body keeps what it is given.
fn loop_state(scope: &Scope, body: crate::ir::ComputationId, init: Sh) -> Sh {
    let mut state = init;
    for _ in 0..LOOP_ROUNDS {
        let Some(result) = callee_result(scope, body, std::slice::from_ref(&state)) else {
            break;
        };
        let next = merge_sh(&state, &result);
        if next == state {
            break;
        }
        state = next;
    }
    state
}

/// The sharding propagation gives a called computation's result when its parameters
/// have `params`' shardings (on a copy: the callee itself is not annotated), or `None`
/// when it cannot tell.
fn callee_result(scope: &Scope, callee: crate::ir::ComputationId, params: &[Sh]) -> Option<Sh> {
    let mut comp = scope.module.computations[callee].clone();
    for p in comp.parameters() {
        let Op::Parameter { number } = comp.instrs[p].op else {
            continue;
        };
        comp.instrs[p].sharding = Some(params.get(number)?.to_sharding());
    }
    let inner = Scope {
        module: scope.module,
        n: scope.n,
        meshes: scope.meshes,
        program: false,
    };
    propagate(&mut comp, &inner, &mut DecisionLog::default()).ok()?;
    let root = &comp.instrs[comp.root];
    Some(Sh::of(root.sharding.as_ref()?, &root.shape, scope.n))
}

/// `a` with the splits of `b` added where `a` leaves a dimension whole and the two fit
/// one device grid (element by element for tuples).
fn merge_sh(a: &Sh, b: &Sh) -> Sh {
    match (a, b) {
        (Sh::Array(x), Sh::Array(y)) => Sh::Array(x.merge(y).unwrap_or_else(|| x.clone())),
        (Sh::Tuple(xs), Sh::Tuple(ys)) if xs.len() == ys.len() => {
            Sh::Tuple(xs.iter().zip(ys).map(|(x, y)| merge_sh(x, y)).collect())
        }
        (a, _) => a.clone(),
    }
}

/// `sh` with every split that does not divide its dimension evenly dropped.
fn even_splits(sh: &Sh, shape: &Shape) -> Sh {
    match (sh, shape) {
        (Sh::Array(t), Shape::Array(a)) => {
            let mut t = t.clone();
            for d in 0..t.rank() {
                if t.is_uneven(&a.dims, d) {
                    t = t.without_dim(d);
                }
            }
            Sh::Array(t)
        }
        (Sh::Tuple(v), Shape::Tuple(elems)) if v.len() == elems.len() => Sh::Tuple(
            v.iter()
                .zip(elems)
                .map(|(s, e)| even_splits(s, e))
                .collect(),
        ),
        (sh, _) => sh.clone(),
    }
}

/// The dimensions a slice or update of `part` dims takes whole from an array of `whole`.
fn full_dims(whole: &[i64], part: &[i64]) -> Vec<bool> {
    whole.iter().zip(part).map(|(w, p)| w == p).collect()
}

/// `t` with the dimensions not marked in `keep` unsplit.
fn keep_dims(t: &Tiling, keep: &[bool]) -> Tiling {
    let mut t = t.clone();
    for (d, &k) in keep.iter().enumerate() {
        if !k && d < t.rank() {
            t = t.without_dim(d);
        }
    }
    t
}

/// An all-reduce or collective-permute of one operand (a shard_map's own collective).
fn is_manual_collective(instr: &Instruction) -> bool {
    matches!(
        instr.opcode(),
        Opcode::AllReduce | Opcode::CollectivePermute
    ) && instr.operands.len() == 1
}

/// The backward rules: the tiling operand `k` of `user` takes from the user's tiling `out`
/// (and the user's other operands), with the reason. XLA: `GetShardingFromUser`
/// (`InferShardingFromUsers`) for pass-through ops, dot and reduce.
fn backward(
    user: &Instruction,
    k: usize,
    out: &Tiling,
    operands: &[Option<Sh>],
    comp: &crate::ir::Computation,
) -> Option<(Tiling, &'static str)> {
    let odims = |i: usize| comp.instrs[user.operands[i]].shape.dims().to_vec();
    let same_dims = user
        .operands
        .iter()
        .all(|o| comp.instrs[*o].shape.dims() == user.shape.dims());
    match (&user.op, user.opcode().category()) {
        (
            _,
            OpCategory::ElementwiseUnary
            | OpCategory::ElementwiseBinary
            | OpCategory::ElementwiseTernary,
        ) if same_dims => Some((out.clone(), "from its elementwise user")),
        (Op::Plain(Opcode::Copy), _) if same_dims => Some((out.clone(), "from its copy")),
        (_, OpCategory::Collective) if same_dims && is_manual_collective(user) => {
            Some((out.clone(), "from its manual collective"))
        }
        (Op::CustomCall(cc), _)
            if same_dims
                && matches!(
                    cc.target.as_str(),
                    "Sharding" | "xla.sdy.FuncResultSharding"
                ) =>
        {
            Some((out.clone(), "from its sharding annotation"))
        }
        (Op::Broadcast { dimensions }, _) => Some((
            shape_ops::broadcast_operand(out, dimensions),
            "from its broadcast: the kept dimensions' split",
        )),
        (Op::Transpose { dimensions }, _) => {
            let map: Vec<Option<usize>> = (0..dimensions.len())
                .map(|j| dimensions.iter().position(|&d| d == j))
                .collect();
            Some((out.project(&map), "from its transpose"))
        }
        (Op::Plain(Opcode::Reshape), _) => {
            match shape_ops::reshape_keep(user.shape.dims(), &odims(0), out) {
                (Some(t), _) => Some((t, "from its reshape")),
                (None, _) => None,
            }
        }
        (Op::Reduce { dimensions, .. }, _) if user.operands.len() == 2 && k == 0 => {
            let rank = odims(0).len();
            let mut next = 0;
            let map: Vec<Option<usize>> = (0..rank)
                .map(|d| {
                    if dimensions.contains(&d) {
                        None
                    } else {
                        next += 1;
                        Some(next - 1)
                    }
                })
                .collect();
            Some((
                out.project(&map),
                "from its reduce: the kept dimensions' split",
            ))
        }
        (Op::Sort { .. }, _) if same_dims => {
            Some((out.clone(), "from its sort: the result's split"))
        }
        (Op::Slice { .. } | Op::Pad { .. } | Op::Reverse { .. } | Op::ReduceWindow { .. }, _)
            if k == 0 && odims(0).len() == out.rank() =>
        {
            Some((
                out.clone(),
                "from its slice/pad/reverse/reduce-window: the result's split",
            ))
        }
        (Op::Concatenate { .. }, _) if odims(k).len() == out.rank() => {
            Some((out.clone(), "from its concatenate: the result's split"))
        }
        (Op::DynamicSlice { sizes }, _) if k == 0 => Some((
            keep_dims(out, &full_dims(&odims(0), sizes)),
            "from its dynamic-slice: the split of the dimensions it takes whole",
        )),
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if k == 0 => Some((
            out.clone(),
            "from its dynamic-update-slice: the result's split",
        )),
        (Op::Plain(Opcode::DynamicUpdateSlice), _) if k == 1 => Some((
            keep_dims(out, &full_dims(user.shape.dims(), &odims(1))),
            "from its dynamic-update-slice: the result's split of the whole dimensions",
        )),
        (
            Op::Convolution {
                dimension_numbers,
                feature_group_count: 1,
                batch_group_count: 1,
                ..
            },
            _,
        ) if k < 2 => {
            let other = match operands.get(1 - k) {
                Some(Some(Sh::Array(t))) => Some(t),
                _ => None,
            };
            convolution::operand_from_users(dimension_numbers, k, other, out, odims(k).len()).map(
                |t| {
                    (
                        t,
                        if k == 0 {
                            "from its convolution: the result's batch split"
                        } else {
                            "from its convolution: the result's feature split"
                        },
                    )
                },
            )
        }
        (
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            },
            _,
        ) if k == 0 => {
            let pairs =
                gather_scatter::gather_passthrough(dimension_numbers, slice_sizes, &odims(0));
            gather_scatter::along(out, &pairs, odims(0).len(), true)
                .map(|t| (t, "from its gather: the passthrough dimensions' split"))
        }
        (
            Op::Scatter {
                dimension_numbers, ..
            },
            _,
        ) if user.operands.len() == 3 && (k == 0 || k == 2) => {
            let (od, ud) = (odims(0), odims(2));
            let pairs = gather_scatter::scatter_passthrough(dimension_numbers, &od, &ud);
            if k == 0 {
                let same: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.0)).collect();
                gather_scatter::along(out, &same, od.len(), false)
                    .map(|t| (t, "from its scatter: the passthrough dimensions' split"))
            } else {
                gather_scatter::along(out, &pairs, ud.len(), false)
                    .map(|t| (t, "from its scatter: the updates' passthrough split"))
            }
        }
        (
            Op::Dot {
                dimension_numbers, ..
            },
            _,
        ) if k < 2 => {
            let (ld, rd) = (odims(0), odims(1));
            let d = dot::DotDims::new(dimension_numbers, ld.len(), rd.len());
            let other = match operands.get(1 - k) {
                Some(Some(Sh::Array(t))) => Some(t),
                _ => None,
            };
            let rank = if k == 0 { ld.len() } else { rd.len() };
            dot::operand_from_users(&d, k, other, out, rank).map(|t| {
                (
                    t,
                    "from its dot: the result's and the other operand's split",
                )
            })
        }
        _ => None,
    }
}

/// A reduce of several inputs: a tuple of arrays, one per input.
fn is_variadic_reduce(instr: &Instruction) -> bool {
    matches!(instr.op, Op::Reduce { .. })
        && matches!(&instr.shape, Shape::Tuple(e)
            if !e.is_empty() && e.len() * 2 == instr.operands.len() && e.iter().all(Shape::is_array))
}
