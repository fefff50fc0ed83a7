//! The module graph: every instruction of the entry computation in schedule order, each
//! fusion a cluster holding its fused computation's instructions. The page embeds it as
//! JSON and its script draws only the rows in view (clusters start collapsed), so a module
//! of 10,000 instructions costs the browser a screenful of boxes, not 10,000.
//!
//! What it is not: a layered layout. Rows are the schedule, which is also the order the
//! thunks run in; edges are arcs beside the column, as in the kernel graph of XLA's
//! `--xla_dump_hlo_as_html` when it is too big for Graphviz.

use serde_json::{Value, json};

use super::cost::instruction_cost;
use super::graph::Node;
use crate::ir::{InstrId, Module, Op};

/// The graph as the page's script reads it: `{nodes: [{n, op, k, s, in, bytes, flops,
/// buf, fused?: [{n, op, s, in, p?}]}]}`; `k` is `kernel`, `lib` or `input`; `in` indexes
/// `nodes` (or, inside `fused`, the cluster's own list); `p` is a fused parameter's number.
pub fn json(module: &Module, kernel_nodes: &[Node]) -> Value {
    let comp = module.entry_computation();
    let position: std::collections::HashMap<InstrId, usize> = comp
        .order
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let thunks: std::collections::HashMap<&str, &Node> =
        kernel_nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let mut nodes = Vec::with_capacity(comp.order.len());
    for &id in &comp.order {
        let instr = comp.instr(id);
        let thunk = thunks.get(instr.name.as_str()).copied();
        let kind = match thunk {
            Some(n) if n.is_kernel => "kernel",
            Some(n) if n.is_input => "input",
            Some(_) => "lib",
            None => "free",
        };
        let cost = instruction_cost(module, module.entry, id);
        let inputs: Vec<usize> = instr
            .operands
            .iter()
            .filter_map(|o| position.get(o).copied())
            .collect();
        let mut node = json!({
            "n": instr.name,
            "op": instr.opcode().to_string(),
            "k": kind,
            "s": instr.shape.to_string(),
            "in": inputs,
            "bytes": cost.bytes,
            "flops": cost.flops,
            "buf": thunk.map(|n| n.buffers.join(", ")).unwrap_or_default(),
        });
        if let Op::Fusion { calls, kind } = &instr.op {
            let fused = &module.computations[*calls];
            let local: std::collections::HashMap<InstrId, usize> = fused
                .order
                .iter()
                .enumerate()
                .map(|(i, &id)| (id, i))
                .collect();
            let members: Vec<Value> = fused
                .order
                .iter()
                .map(|&f| {
                    let fi = fused.instr(f);
                    let mut m = json!({
                        "n": fi.name,
                        "op": fi.opcode().to_string(),
                        "s": fi.shape.to_string(),
                        "in": fi.operands.iter().filter_map(|o| local.get(o).copied()).collect::<Vec<_>>(),
                    });
                    if let Op::Parameter { number } = fi.op {
                        m["p"] = json!(number);
                    }
                    m
                })
                .collect();
            node["fused"] = Value::Array(members);
            node["fk"] = json!(kind.to_string());
            node["fc"] = json!(fused.name);
        }
        nodes.push(node);
    }
    json!({ "nodes": nodes })
}

/// The graph's place on the page: controls, the scrolling viewport the script fills, the
/// details panel, and the data.
pub fn section(module: &Module, kernel_nodes: &[Node]) -> String {
    format!(
        "<div class=\"graph-controls\"><input id=\"graph-search\" placeholder=\"find an instruction (Enter)\" \
         size=\"32\"> <button id=\"graph-expand\">expand all fusions</button> \
         <button id=\"graph-collapse\">collapse all</button> <span id=\"graph-count\" class=\"muted\"></span></div>\
         <div class=\"graph-wrap\"><div id=\"module-graph\" class=\"graph-viewport\"><div class=\"graph-canvas\"></div></div>\
         <div id=\"graph-details\" class=\"muted\">Click a box: its shape, cost, buffer, operands and users. \
         Click ▸ to open a fusion.</div></div>\
         <script type=\"application/json\" id=\"module-graph-data\">{}</script>",
        super::html::script_json(&json(module, kernel_nodes))
    )
}
