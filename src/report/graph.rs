//! The kernel graph: the entry computation's schedule as a column of nodes (parameters,
//! constants, kernels, library calls, copies, control flow), each with the buffer it
//! writes, and its data edges drawn as arcs on the right. `tuple`, `get-tuple-element` and
//! `bitcast` move no data; edges go through them to the producer.
//!
//! What it is not: the nested computations of `while`/`conditional` (their thunks run
//! inside the node that owns them), nor a layout engine: order is the schedule.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::cost::{Cost, instruction_cost};
use super::html::{bytes, esc};
use crate::ir::{InstrId, Module, Op, Opcode};
use crate::layout::BufferAssignment;

/// One scheduled entry instruction that the runtime does something for.
#[derive(Clone, Debug)]
pub struct Node {
    /// The instruction's name (also the thunk's and, for fusions, the kernel's).
    pub name: String,
    /// What runs: `kernel (kLoop)`, `dot`, `parameter 0`, `copy`, ...
    pub kind: String,
    /// True for a generated kernel.
    pub is_kernel: bool,
    /// True for parameters and constants (no work at run time).
    pub is_input: bool,
    /// Paper cost.
    pub cost: Cost,
    /// Producers, as node indices.
    pub inputs: Vec<usize>,
    /// Where its result lives: `alloc 6 +0 (1.02 kB)`, one per leaf.
    pub buffers: Vec<String>,
}

/// The nodes of the entry computation, in schedule order.
pub fn nodes(module: &Module, buffers: &BufferAssignment, kernel_names: &[&str]) -> Vec<Node> {
    let entry = module.entry;
    let comp = module.entry_computation();
    let mut index: HashMap<InstrId, Vec<usize>> = HashMap::new();
    let mut out: Vec<Node> = Vec::new();
    for (id, instr) in comp.iter() {
        let producers: Vec<usize> = {
            let mut p: Vec<usize> = Vec::new();
            for o in &instr.operands {
                for &n in index.get(o).map(Vec::as_slice).unwrap_or(&[]) {
                    if !p.contains(&n) {
                        p.push(n);
                    }
                }
            }
            p
        };
        let opcode = instr.opcode();
        if matches!(
            opcode,
            Opcode::Tuple | Opcode::GetTupleElement | Opcode::Bitcast
        ) {
            index.insert(id, producers);
            continue;
        }
        let is_kernel = kernel_names.contains(&instr.name.as_str());
        let kind = match &instr.op {
            Op::Parameter { number } => format!("parameter {number}"),
            Op::Fusion { kind, .. } if is_kernel => format!("kernel ({kind})"),
            Op::Fusion { kind, .. } => format!("fusion ({kind})"),
            _ => opcode.to_string(),
        };
        let mut leaves = Vec::new();
        for a in &buffers.allocations {
            for v in &a.values {
                if v.computation == entry && v.instruction == id {
                    leaves.push(format!(
                        "alloc {} +{} ({})",
                        a.index,
                        v.offset,
                        bytes(v.size as u64)
                    ));
                }
            }
        }
        index.insert(id, vec![out.len()]);
        out.push(Node {
            name: instr.name.clone(),
            kind,
            is_kernel,
            is_input: matches!(opcode, Opcode::Parameter | Opcode::Constant),
            cost: instruction_cost(module, entry, id),
            inputs: producers,
            buffers: leaves,
        });
    }
    out
}

/// The graph as inline SVG: one box per node, arcs from producer to consumer.
pub fn svg(nodes: &[Node]) -> String {
    const ROW: usize = 26;
    const BOX_W: usize = 520;
    let height = nodes.len() * ROW + 20;
    let max_span = nodes
        .iter()
        .enumerate()
        .flat_map(|(j, n)| n.inputs.iter().map(move |&i| j.saturating_sub(i)))
        .max()
        .unwrap_or(1);
    let width = BOX_W + 40 + (max_span * 10).min(400);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg id=\"kernel-graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    );
    let y = |i: usize| 10 + i * ROW + ROW / 2;
    for (j, n) in nodes.iter().enumerate() {
        for &i in &n.inputs {
            let span = j.saturating_sub(i);
            let dx = 14 + (span * 10).min(400);
            let x = BOX_W + 10;
            let _ = write!(
                s,
                "<path d=\"M {x} {} C {} {}, {} {}, {x} {}\" fill=\"none\" stroke=\"#7a8ca5\" \
                 stroke-width=\"1\" marker-end=\"url(#arrow)\"/>",
                y(i),
                x + dx,
                y(i),
                x + dx,
                y(j),
                y(j)
            );
        }
    }
    s.push_str(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" refX=\"6\" refY=\"3\" markerWidth=\"6\" \
         markerHeight=\"6\" orient=\"auto\"><path d=\"M6 0 L0 3 L6 6 z\" fill=\"#7a8ca5\"/></marker></defs>",
    );
    for (i, n) in nodes.iter().enumerate() {
        let fill = if n.is_kernel {
            "#dbeafe"
        } else if n.is_input {
            "#f1f1f1"
        } else {
            "#fde7c8"
        };
        let top = 10 + i * ROW + 2;
        let _ = write!(
            s,
            "<g><title>{}</title><rect x=\"10\" y=\"{top}\" width=\"{BOX_W}\" height=\"{}\" rx=\"4\" \
             fill=\"{fill}\" stroke=\"#999\"/><text x=\"18\" y=\"{}\">{}  [{}]  {}</text></g>",
            esc(&format!("{} — {}", n.name, n.buffers.join(", "))),
            ROW - 4,
            top + ROW / 2 + 2,
            esc(&n.name),
            esc(&n.kind),
            esc(&n.buffers.join(", "))
        );
    }
    s.push_str("</svg>");
    s
}
