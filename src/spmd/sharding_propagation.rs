//! `sharding-propagation`: gives every instruction of the entry a sharding.
//! XLA: `xla/service/sharding_propagation.cc` (GSPMD) and Shardy's propagation; this is
//! the forward half of both: annotated instructions (parameters, results, `Sharding`
//! custom calls, shard_map boundaries) keep their sharding, and every other instruction
//! takes the one its op family's rule derives from its operands: elementwise ops the most
//! split operand's, broadcast/transpose/reshape the moved split, reduce the kept
//! dimensions', dot the local dot's result (batch and free dimensions from the operands),
//! ops without a rule replicated. Results nobody annotated keep what propagation gave
//! them, which is what XLA reports for unspecified `out_shardings`.
//!
//! The Shardy annotations JAX writes into HLO (`xla.sdy.FuncResultSharding`,
//! `xla.sdy.GlobalToLocalShape`, `xla.sdy.LocalToGlobalShape` with their
//! `frontend_attributes`) are converted to `sharding=` here, with the module's
//! `xla.sdy.meshes`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::decisions::DecisionLog;
use super::rules::{dot, elementwise, reduce, shape_ops};
use super::tiling::Tiling;
use super::{SpmdOptions, reshard};
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
#[derive(Clone, Debug)]
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
    if let Some(axes) = frontend_attribute(&fa.value, "xla.sdy.manual_axes") {
        let axes = parse_manual_axes(&axes).map_err(|e| err(instr, e))?;
        if let Some(mesh) = list
            .first()
            .and_then(|s| meshes.iter().find(|m| m.name == s.mesh))
        {
            let all = mesh
                .axes
                .iter()
                .filter(|a| a.1 > 1)
                .all(|a| axes.contains(&a.0));
            if !all {
                return Err(err(
                    instr,
                    "shard_map over some mesh axes only (partially manual) is not supported",
                ));
            }
        }
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
        let comp = &mut module.computations[entry];
        let order = comp.order.clone();
        let mut shs: HashMap<InstrId, Sh> = HashMap::new();
        for id in order {
            let instr = comp.instrs[id].clone();
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
                    && let Some(s) = sdy_attribute(&instr, key, &meshes)?
                {
                    annotated = Some(s);
                }
            }
            if n == 1 {
                // One partition: every split is the whole array.
                annotated = annotated.map(|s| whole(&s));
            }
            let operands: Vec<Sh> = instr.operands.iter().map(|o| shs[o].clone()).collect();
            let (sh, why) = match &annotated {
                Some(s) => {
                    let shape = match (&instr.op, cc_target(&instr)) {
                        // The in-shardings describe the operands (global shapes).
                        (_, Some("xla.sdy.GlobalToLocalShape")) => {
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
                    check(&instr, s, &shape, n)?;
                    let sh = match cc_target(&instr) {
                        Some("xla.sdy.GlobalToLocalShape" | "SPMDFullToShardShape") => Sh::Manual,
                        _ => Sh::of(s, &instr.shape, n),
                    };
                    (sh, "annotated")
                }
                None => infer(&instr, &operands, comp, n),
            };
            let stored = match (&annotated, cc_target(&instr)) {
                (Some(s), Some("xla.sdy.GlobalToLocalShape")) => s.clone(),
                _ => sh.to_sharding(),
            };
            let d = log.entry(&instr.name, instr.opcode().name());
            d.operands = operands
                .iter()
                .map(|s| s.to_sharding().to_string())
                .collect();
            d.sharding = stored.to_string();
            d.propagated_by = why.to_string();
            comp.instrs[id].sharding = Some(stored);
            shs.insert(id, sh);
        }
        Ok(true)
    }
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

/// The forward rule for an unannotated instruction.
fn infer(
    instr: &Instruction,
    operands: &[Sh],
    comp: &crate::ir::Computation,
    n: usize,
) -> (Sh, &'static str) {
    if operands.iter().any(|o| matches!(o, Sh::Manual)) {
        return (Sh::Manual, "inside a manual region");
    }
    let arr = |i: usize| match operands.get(i) {
        Some(Sh::Array(t)) => Some(t),
        _ => None,
    };
    let odims = |i: usize| comp.instrs[instr.operands[i]].shape.dims().to_vec();
    let rep = || Sh::replicated(&instr.shape, n);
    match (&instr.op, instr.opcode().category()) {
        (Op::GetTupleElement { index }, _) => match operands.first() {
            Some(Sh::Tuple(v)) => (
                v.get(*index).cloned().unwrap_or_else(rep),
                "the tuple element's",
            ),
            _ => (rep(), "element of a whole tuple"),
        },
        (Op::Plain(Opcode::Tuple), _) => (Sh::Tuple(operands.to_vec()), "its elements'"),
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
                None => (rep(), "elementwise of whole values"),
            }
        }
        (Op::Plain(Opcode::Copy), _) if instr.shape.is_array() => match arr(0) {
            Some(t) => (Sh::Array(t.clone()), "copy: the operand's"),
            None => (rep(), "copy"),
        },
        (Op::Broadcast { dimensions }, _) => match arr(0) {
            Some(t) => (
                Sh::Array(shape_ops::broadcast_result(
                    t,
                    dimensions,
                    instr.shape.rank(),
                )),
                "broadcast: the operand's split, new dimensions whole",
            ),
            None => (rep(), "broadcast"),
        },
        (Op::Transpose { dimensions }, _) => match arr(0) {
            Some(t) => (
                Sh::Array(shape_ops::transpose_result(t, dimensions)),
                "transpose: the split moves with the dimensions",
            ),
            None => (rep(), "transpose"),
        },
        (Op::Plain(Opcode::Reshape), _) if instr.shape.is_array() => match arr(0) {
            Some(t) => {
                let from = odims(0);
                match shape_ops::reshape_result(&from, instr.shape.dims(), t) {
                    Ok(r) => (Sh::Array(r), "reshape: the split kept"),
                    Err(unsplit) => {
                        let mut t2 = t.clone();
                        for d in unsplit {
                            t2 = t2.without_dim(d);
                        }
                        match shape_ops::reshape_result(&from, instr.shape.dims(), &t2) {
                            Ok(r) => (Sh::Array(r), "reshape: the splits that fit kept"),
                            Err(_) => (rep(), "reshape: no split fits"),
                        }
                    }
                }
            }
            None => (rep(), "reshape"),
        },
        (Op::Reduce { dimensions, .. }, _)
            if instr.operands.len() == 2 && instr.shape.is_array() =>
        {
            match arr(0) {
                Some(t) => (
                    Sh::Array(reduce::result(t, dimensions)),
                    "reduce: the kept dimensions' split",
                ),
                None => (rep(), "reduce"),
            }
        }
        (
            Op::Dot {
                dimension_numbers, ..
            },
            _,
        ) => match (arr(0), arr(1)) {
            (Some(l), Some(r)) => {
                let (ld, rd) = (odims(0), odims(1));
                let od = instr.shape.dims().to_vec();
                let eb = instr
                    .shape
                    .element_type()
                    .map_or(4, |t| t.byte_size().max(1) as i64);
                let d = dot::DotDims::new(dimension_numbers, ld.len(), rd.len());
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
            _ => (rep(), "dot"),
        },
        _ => (rep(), "no rule: replicated"),
    }
}
