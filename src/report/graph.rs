//! The thunk nodes: the entry computation's schedule as the runtime sees it (parameters,
//! constants, kernels, library calls, copies, control flow), each with its paper cost and
//! the buffer it writes. `tuple`, `get-tuple-element` and `bitcast` move no data; inputs go
//! through them to the producer. The cost table, the kernel sections and the module graph
//! read these.
//!
//! What it is not: the nested computations of `while`/`conditional` (their thunks run
//! inside the node that owns them), nor a layout engine: order is the schedule.

use std::collections::HashMap;

use super::cost::{Cost, instruction_cost};
use super::html::bytes;
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
    // Each entry value's places, gathered once (the plan lists values per allocation).
    let mut places: HashMap<InstrId, Vec<String>> = HashMap::new();
    for a in &buffers.allocations {
        for v in a.values.iter().filter(|v| v.computation == entry) {
            places.entry(v.instruction).or_default().push(format!(
                "alloc {} +{} ({})",
                a.index,
                v.offset,
                bytes(v.size as u64)
            ));
        }
    }
    let kernels: std::collections::HashSet<&str> = kernel_names.iter().copied().collect();
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
        let is_kernel = kernels.contains(instr.name.as_str());
        let kind = match &instr.op {
            Op::Parameter { number } => format!("parameter {number}"),
            Op::Fusion { kind, .. } if is_kernel => format!("kernel ({kind})"),
            Op::Fusion { kind, .. } => format!("fusion ({kind})"),
            _ => opcode.to_string(),
        };
        let leaves = places.remove(&id).unwrap_or_default();
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
