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
//!
//! This file holds the pass and its fixed-point loop; an instruction's own sharding is
//! `annotation.rs`'s, the forward rules `from_operands.rs`'s, the backward rules
//! `from_users.rs`'s, and while loops and called computations `while_loop.rs`'s.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::decisions::DecisionLog;
use super::tiling::Tiling;
use super::{SpmdOptions, manual};
use crate::ir::sharding::{HloSharding, SdyMesh, parse_frontend_meshes};
use crate::ir::{InstrId, Instruction, Module, Op, Opcode, Shape};
use crate::pipeline::{Pass, PassError};

mod annotation;
mod from_operands;
mod from_users;
mod while_loop;

use annotation::annotation;
use from_operands::infer;
use from_users::{backward, is_variadic_reduce};
use while_loop::{callee_result, loop_state, propagate_into_loops};

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
