//! What the expander passes share: bringing a computation written as HLO text into a
//! module, and turning an instruction into a `call` of it.
//! XLA: `xla/hlo/transforms/expanders/op_expander_pass.cc`.
//!
//! XLA's expanders (`CholeskyExpander`, `TriangularSolveExpander`,
//! `RngBitGeneratorExpander`) build the expansion with `XlaBuilder`, import it as a new
//! computation and replace the instruction with a `call` to it; `call-inliner` later
//! inlines the call. xlac's expanders write the expansion as HLO text for the exact
//! shapes at hand, parse it, and do the same: the text is what a learner reads in the
//! source, and it is checked by the parser and the verifier like any other HLO.

use std::collections::HashMap;

use super::PassError;
use crate::front::hlo_text::parse_module;
use crate::ir::{ComputationId, InstrId, Module, Op};

/// Parses `text` (a whole `HloModule`) and adds all its computations to `module`, right
/// before `before` in print order, renamed where their names are taken. Returns the id
/// of the text's entry computation.
pub fn import_computations(
    module: &mut Module,
    text: &str,
    before: ComputationId,
) -> Result<ComputationId, PassError> {
    let parsed = parse_module(text, "expansion.hlo")
        .map_err(|e| PassError::new(format!("bad expansion HLO: {e}\n{text}")))?
        .module;
    let mut ids: HashMap<ComputationId, ComputationId> = HashMap::new();
    for &old in &parsed.order {
        let mut comp = parsed.computations[old].clone();
        for id in comp.order.clone() {
            for called in comp.instrs[id].op.called_computations_mut() {
                *called = *ids.get(called).ok_or_else(|| {
                    PassError::new("expansion calls a computation defined after its caller")
                })?;
            }
        }
        ids.insert(old, module.add_computation_before(before, comp));
    }
    ids.get(&parsed.entry)
        .copied()
        .ok_or_else(|| PassError::new("expansion HLO has no entry computation"))
}

/// Makes instruction `id` of computation `c` a `call` of `callee` with the same operands
/// and shape (XLA's `OpExpanderPass` replaces it with `CreateCall`).
pub fn replace_with_call(
    module: &mut Module,
    c: ComputationId,
    id: InstrId,
    callee: ComputationId,
) {
    module.computations[c].instrs[id].op = Op::Call { to_apply: callee };
}

/// Every live instruction of the module for which `matches` holds, as (computation,
/// instruction) pairs, callees' instructions first.
pub fn find_instructions(
    module: &Module,
    matches: impl Fn(&Op) -> bool,
) -> Vec<(ComputationId, InstrId)> {
    module
        .order
        .iter()
        .flat_map(|&c| {
            module.computations[c]
                .iter()
                .filter(|(_, i)| matches(&i.op))
                .map(move |(id, _)| (c, id))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Writes one computation of HLO text line by line, naming each value `v<N>`. The
/// expanders use it to spell out their expansions for concrete shapes.
pub struct HloText {
    lines: Vec<String>,
    next: usize,
}

impl HloText {
    /// An empty computation body.
    pub fn new() -> HloText {
        HloText {
            lines: Vec::new(),
            next: 0,
        }
    }

    /// Adds `name = shape rhs` with a fresh name and returns the name.
    pub fn op(&mut self, shape: &str, rhs: &str) -> String {
        let name = format!("v{}", self.next);
        self.next += 1;
        self.lines.push(format!("  {name} = {shape} {rhs}"));
        name
    }

    /// Adds `parameter(number)` with the given name.
    pub fn parameter(&mut self, name: &str, shape: &str, number: usize) -> String {
        self.lines
            .push(format!("  {name} = {shape} parameter({number})"));
        name.to_string()
    }

    /// Parameter 0, `state`, of the tuple shape of `elements`, and one get-tuple-element
    /// of it per element, returned in order: how a loop body starts.
    pub fn state_parameter<const N: usize>(&mut self, elements: [&str; N]) -> [String; N] {
        self.parameter("state", &tuple_shape(&elements), 0);
        std::array::from_fn(|k| {
            self.op(elements[k], &format!("get-tuple-element(state), index={k}"))
        })
    }

    /// A scalar constant of type `ty` broadcast to `dims` (a scalar if `dims` is empty).
    pub fn splat(&mut self, ty: &str, value: &str, dims: &[i64]) -> String {
        let c = self.op(&format!("{ty}[]"), &format!("constant({value})"));
        if dims.is_empty() {
            return c;
        }
        self.op(
            &array(ty, dims),
            &format!("broadcast({c}), dimensions={{}}"),
        )
    }

    /// An elementwise binary op on two values of shape `shape`.
    pub fn binary(&mut self, shape: &str, opcode: &str, a: &str, b: &str) -> String {
        self.op(shape, &format!("{opcode}({a}, {b})"))
    }

    /// Finishes the computation `name` with `ROOT result = root_shape root`.
    pub fn finish(mut self, name: &str, root_shape: &str, root: &str) -> String {
        self.lines
            .push(format!("  ROOT result = {root_shape} {root}"));
        format!("{name} {{\n{}\n}}\n", self.lines.join("\n"))
    }
}

impl Default for HloText {
    fn default() -> Self {
        HloText::new()
    }
}

/// `(a, b, ...)`: the tuple shape of `elements`.
pub fn tuple_shape(elements: &[&str]) -> String {
    format!("({})", elements.join(", "))
}

/// The condition `cond` of a loop whose state `state` starts with an s32 counter:
/// `counter < limit`.
pub fn counter_below(state: &str, limit: i64) -> String {
    let mut cond = HloText::new();
    cond.parameter("state", state, 0);
    let i = cond.op("s32[]", "get-tuple-element(state), index=0");
    let limit = cond.splat("s32", &limit.to_string(), &[]);
    cond.finish(
        "cond",
        "pred[]",
        &format!("compare({i}, {limit}), direction=LT"),
    )
}

/// `ty[d0,d1,...]` (row-major by default when parsed).
pub fn array(ty: &str, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("{ty}[{}]", dims.join(","))
}
