//! `xlac check-collectives`: before anything runs, walks every device's control flow and
//! lists the collectives it would issue, in order; then compares, group by group, what the
//! members would issue. A `conditional` whose predicate is computed from `partition-id` /
//! `replica-id` and constants is evaluated per device (the branch each device takes); one
//! that depends on data must run the same collectives in every branch. A `while` whose
//! body (or condition) runs collectives must have a trip count that cannot depend on the
//! device. Findings are one line each, naming the ops and the devices.

use std::collections::HashMap;

use cranelift_entity::EntityRef;
use std::fmt::Write as _;

use crate::eval::{DeviceContext, EvalOptions, Evaluator, ProcessGrid, ProcessId};
use crate::ir::{ComputationId, InstrId, Literal, Module, Op, Opcode};
use crate::runtime::collectives::op::{CollectiveKind, CollectiveOp, format_group};
use crate::runtime::collectives::{DeviceGrid, DeviceId};

/// One collective a device issues.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// `all-reduce %psum.5`.
    pub label: String,
    /// Its kind.
    pub kind: CollectiveKind,
    /// `channel_id`.
    pub channel: Option<i64>,
    /// The device's group.
    pub group: Vec<DeviceId>,
    /// Inside a while loop (`%name`): issued once per trip.
    pub in_loop: Option<String>,
}

/// How sure a finding is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The devices do diverge (or the op is malformed).
    Diverges,
    /// They diverge if the data differs across devices.
    MayDiverge,
}

/// One problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// How sure.
    pub severity: Severity,
    /// One line.
    pub message: String,
}

/// The result of a check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The grid.
    pub grid: DeviceGrid,
    /// Per device, its collectives in order.
    pub sequences: Vec<Vec<Step>>,
    /// What can go wrong.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// True when some devices diverge for sure.
    pub fn diverges(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Diverges)
    }

    /// The printed report: per device its sequence, then the findings.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "collectives per device ({} replica{} x {} partition{}):",
            self.grid.replicas,
            if self.grid.replicas == 1 { "" } else { "s" },
            self.grid.partitions,
            if self.grid.partitions == 1 { "" } else { "s" }
        );
        for (d, seq) in self.sequences.iter().enumerate() {
            let steps: Vec<String> = seq
                .iter()
                .map(|s| {
                    let mut t = format!("{} {}", s.label, format_group(&s.group));
                    if let Some(w) = &s.in_loop {
                        let _ = write!(t, " (in while %{w})");
                    }
                    t
                })
                .collect();
            let _ = writeln!(
                out,
                "  device {d}: {}",
                if steps.is_empty() {
                    "none".to_string()
                } else {
                    steps.join(", ")
                }
            );
        }
        if self.findings.is_empty() {
            let _ = writeln!(
                out,
                "ok: every group's members issue the same collectives in the same order"
            );
        }
        for f in &self.findings {
            let tag = match f.severity {
                Severity::Diverges => "diverges",
                Severity::MayDiverge => "may diverge",
            };
            let _ = writeln!(out, "{tag}: {}", f.message);
        }
        out
    }
}

/// What a value depends on.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Deps {
    device: bool,
    data: bool,
}

impl Deps {
    fn or(self, o: Deps) -> Deps {
        Deps {
            device: self.device || o.device,
            data: self.data || o.data,
        }
    }
}

fn merge(v: &[Deps]) -> Deps {
    v.iter().fold(Deps::default(), |a, &b| a.or(b))
}

struct Walker<'m> {
    module: &'m Module,
    grid: DeviceGrid,
    findings: Vec<Finding>,
}

impl Walker<'_> {
    fn find(&mut self, severity: Severity, message: String) {
        if !self.findings.iter().any(|f| f.message == message) {
            self.findings.push(Finding { severity, message });
        }
    }

    /// Per top-level tuple element, what each instruction of `comp` depends on, given its
    /// parameters' dependencies.
    fn deps(&self, comp: ComputationId, params: &[Vec<Deps>]) -> HashMap<InstrId, Vec<Deps>> {
        let c = &self.module.computations[comp];
        let mut out: HashMap<InstrId, Vec<Deps>> = HashMap::new();
        for &id in &c.order {
            let i = &c.instrs[id];
            let operand = |k: usize| -> Vec<Deps> {
                i.operands
                    .get(k)
                    .and_then(|o| out.get(o).cloned())
                    .unwrap_or_default()
            };
            let all = || {
                merge(
                    &i.operands
                        .iter()
                        .flat_map(|o| out.get(o).cloned().unwrap_or_default())
                        .collect::<Vec<_>>(),
                )
            };
            let v = match &i.op {
                Op::Parameter { number } => params.get(*number).cloned().unwrap_or_else(|| {
                    vec![Deps {
                        device: false,
                        data: true,
                    }]
                }),
                Op::Constant { .. } => vec![Deps::default()],
                Op::Plain(Opcode::PartitionId | Opcode::ReplicaId) => vec![Deps {
                    device: true,
                    data: false,
                }],
                Op::Plain(Opcode::Tuple) => i
                    .operands
                    .iter()
                    .map(|o| merge(out.get(o).map(Vec::as_slice).unwrap_or_default()))
                    .collect(),
                Op::GetTupleElement { index } => {
                    let v = operand(0);
                    vec![v.get(*index).copied().unwrap_or_else(|| merge(&v))]
                }
                Op::While { body, .. } => {
                    let mut state = operand(0);
                    for _ in 0..8 {
                        let b = self.deps(*body, std::slice::from_ref(&state));
                        let root = self.module.computations[*body].root;
                        let next = b.get(&root).cloned().unwrap_or_default();
                        let joined: Vec<Deps> = if next.len() == state.len() {
                            state.iter().zip(&next).map(|(a, b)| a.or(*b)).collect()
                        } else {
                            vec![merge(&state).or(merge(&next))]
                        };
                        if joined == state {
                            break;
                        }
                        state = joined;
                    }
                    state
                }
                _ => vec![all()],
            };
            out.insert(id, v);
        }
        out
    }

    /// The collectives device `d` issues running `comp`.
    fn walk(
        &mut self,
        comp: ComputationId,
        d: DeviceId,
        params: &[Vec<Deps>],
        in_loop: Option<&str>,
        out: &mut Vec<Step>,
    ) {
        let module = self.module;
        let c = &module.computations[comp];
        let deps = self.deps(comp, params);
        for &id in &c.order {
            let i = &c.instrs[id];
            if let Some(kind) = CollectiveKind::of(i.opcode()) {
                match CollectiveOp::from_instruction(module, i, &self.grid, None) {
                    Ok(op) => {
                        if let Some((group, _)) = op.group_of(d) {
                            out.push(Step {
                                label: op.label(),
                                kind,
                                channel: op.channel_id,
                                group: group.to_vec(),
                                in_loop: in_loop.map(str::to_string),
                            });
                        }
                    }
                    Err(e) => self.find(Severity::Diverges, e.headline()),
                }
                continue;
            }
            let operand_deps = |k: usize| -> Vec<Deps> {
                i.operands
                    .get(k)
                    .and_then(|o| deps.get(o).cloned())
                    .unwrap_or_default()
            };
            match &i.op {
                Op::While { condition, body } => {
                    let state = deps.get(&id).cloned().unwrap_or_default();
                    let mut inner = Vec::new();
                    self.walk(
                        *condition,
                        d,
                        std::slice::from_ref(&state),
                        Some(&i.name),
                        &mut inner,
                    );
                    self.walk(
                        *body,
                        d,
                        std::slice::from_ref(&state),
                        Some(&i.name),
                        &mut inner,
                    );
                    if inner.is_empty() {
                        continue;
                    }
                    let cond = self.deps(*condition, std::slice::from_ref(&state));
                    let root = module.computations[*condition].root;
                    let trip = merge(cond.get(&root).map(Vec::as_slice).unwrap_or_default());
                    let ops: Vec<&str> = inner.iter().map(|s| s.label.as_str()).collect();
                    if trip.device {
                        self.find(
                            Severity::Diverges,
                            format!(
                                "while %{}: its trip count depends on the device (partition-id/replica-id) and every trip runs {}: devices run them different numbers of times",
                                i.name,
                                ops.join(", ")
                            ),
                        );
                    } else if trip.data {
                        self.find(
                            Severity::MayDiverge,
                            format!(
                                "while %{}: its trip count depends on parameter data and every trip runs {}",
                                i.name,
                                ops.join(", ")
                            ),
                        );
                    }
                    out.extend(inner);
                }
                Op::Conditional {
                    branch_computations,
                } => {
                    let predicate = operand_deps(0);
                    let branch_params = |k: usize| vec![operand_deps(k + 1)];
                    if let Some(taken) =
                        self.branch_taken(comp, i.operands[0], d, branch_computations.len())
                    {
                        let b = branch_computations[taken];
                        self.walk(b, d, &branch_params(taken), in_loop, out);
                        continue;
                    }
                    let mut per_branch = Vec::new();
                    for (k, &b) in branch_computations.iter().enumerate() {
                        let mut s = Vec::new();
                        self.walk(b, d, &branch_params(k), in_loop, &mut s);
                        per_branch.push(s);
                    }
                    let sig = |s: &[Step]| {
                        s.iter()
                            .map(|x| (x.kind, x.channel, x.group.clone()))
                            .collect::<Vec<_>>()
                    };
                    if per_branch.iter().any(|s| sig(s) != sig(&per_branch[0])) {
                        let text: Vec<String> = per_branch
                            .iter()
                            .enumerate()
                            .map(|(k, s)| {
                                let ops: Vec<&str> = s.iter().map(|x| x.label.as_str()).collect();
                                format!(
                                    "branch {k}: {}",
                                    if ops.is_empty() {
                                        "none".into()
                                    } else {
                                        ops.join(", ")
                                    }
                                )
                            })
                            .collect();
                        let severity = if merge(&predicate).device {
                            Severity::Diverges
                        } else {
                            Severity::MayDiverge
                        };
                        self.find(
                            severity,
                            format!(
                                "conditional %{}: its branches run different collectives ({}) and its predicate depends on {}",
                                i.name,
                                text.join("; "),
                                if merge(&predicate).device { "the device" } else { "parameter data" }
                            ),
                        );
                    }
                    out.extend(per_branch.into_iter().next().unwrap_or_default());
                }
                Op::Call { to_apply } => {
                    let ps: Vec<Vec<Deps>> = (0..i.operands.len()).map(operand_deps).collect();
                    self.walk(*to_apply, d, &ps, in_loop, out);
                }
                _ => {}
            }
        }
    }

    /// The branch device `d` takes, when the selector is computed from constants and the
    /// device ids alone.
    fn branch_taken(
        &self,
        comp: ComputationId,
        selector: InstrId,
        d: DeviceId,
        branches: usize,
    ) -> Option<usize> {
        let c = &self.module.computations[comp];
        // The selector's cone, in order; any parameter (data) or nested control flow: no.
        let mut needed = vec![false; c.instrs.len()];
        needed[selector.index()] = true;
        for &id in c.order.iter().rev() {
            if !needed[id.index()] {
                continue;
            }
            let i = &c.instrs[id];
            if matches!(
                i.op,
                Op::Parameter { .. }
                    | Op::While { .. }
                    | Op::Conditional { .. }
                    | Op::CustomCall(_)
            ) || CollectiveKind::of(i.opcode()).is_some()
            {
                return None;
            }
            for &o in &i.operands {
                needed[o.index()] = true;
            }
        }
        let mut ev = Evaluator::new(self.module, EvalOptions::default());
        let process = ProcessId::new(self.grid.replica(d), self.grid.partition(d));
        ev.device = DeviceContext::new(
            std::sync::Arc::new(ProcessGrid::new(self.grid.replicas, self.grid.partitions)),
            process,
        );
        let mut values: HashMap<InstrId, Literal> = HashMap::new();
        for &id in &c.order {
            if !needed[id.index()] {
                continue;
            }
            let operands: Vec<Literal> = c.instrs[id]
                .operands
                .iter()
                .map(|o| values.get(o).cloned())
                .collect::<Option<_>>()?;
            let v = ev.evaluate_instruction(comp, id, &operands).ok()?;
            values.insert(id, v);
        }
        let v = values.get(&selector)?.as_array()?;
        let x = crate::eval::index::integer_at(v, 0).ok()?;
        Some(if v.element_type() == crate::ir::PrimitiveType::Pred {
            // true selects branch 0.
            if x != 0 { 0 } else { 1 }
        } else if x < 0 || x as usize >= branches {
            branches - 1
        } else {
            x as usize
        })
    }
}

/// Checks `module`'s entry as run by every device of `grid`.
pub fn check_collectives(module: &Module, grid: &DeviceGrid) -> CheckReport {
    let mut w = Walker {
        module,
        grid: grid.clone(),
        findings: Vec::new(),
    };
    let params: Vec<Vec<Deps>> = module
        .entry_computation()
        .parameters()
        .iter()
        .map(|_| {
            vec![Deps {
                device: false,
                data: true,
            }]
        })
        .collect();
    let mut sequences = Vec::new();
    for d in 0..grid.count() {
        let mut s = Vec::new();
        w.walk(module.entry, d, &params, None, &mut s);
        sequences.push(s);
    }
    // Group by group, the members' collectives must agree in kind and channel, in order.
    let mut groups: Vec<Vec<DeviceId>> = sequences
        .iter()
        .flatten()
        .map(|s| s.group.clone())
        .collect();
    groups.sort();
    groups.dedup();
    for g in &groups {
        let of =
            |d: DeviceId| -> Vec<&Step> { sequences[d].iter().filter(|s| &s.group == g).collect() };
        let Some(&first) = g.first() else { continue };
        let a = of(first);
        for &m in &g[1..] {
            let b = of(m);
            let at = (0..a.len().max(b.len())).find(|&k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => x.kind != y.kind || x.channel != y.channel,
                _ => true,
            });
            if let Some(k) = at {
                let name = |s: Option<&&Step>| {
                    s.map_or("nothing (its sequence ends)".to_string(), |s| {
                        s.label.clone()
                    })
                };
                w.find(
                    Severity::Diverges,
                    format!(
                        "devices {first} and {m} diverge at collective #{k} of group {}: device {first} runs {}, device {m} runs {}",
                        format_group(g),
                        name(a.get(k)),
                        name(b.get(k))
                    ),
                );
                break;
            }
        }
    }
    CheckReport {
        grid: grid.clone(),
        sequences,
        findings: w.findings,
    }
}
