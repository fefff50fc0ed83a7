//! The compiled module in the JSON graph format of Google's Model Explorer
//! (`ai-edge-model-explorer` on PyPI; `model_explorer/graph_builder.py` defines it): a file
//! `{"graphs": [...]}` that its "upload" button opens, plus a node data file (per-node
//! values that color the graph) for the same graph.
//!
//! One graph per computation that runs as a thunk sequence: the entry, and the bodies of
//! `while`, `conditional` and `call` (reached from their caller through `subgraphIds`).
//! A fusion is a namespace: its fused computation's instructions are nodes inside a
//! collapsible layer named after the fusion instruction; its parameters take their edges
//! from the fusion's operands and its users read its root, so data flows through the layer.
//! Nodes carry HLO's facts as attributes: opcode, shape, bytes moved and flops (the report's
//! cost), and the buffer the result lives in.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::cost::instruction_cost;
use super::graph::Node;
use crate::ir::{ComputationId, InstrId, Module, Op};

/// The graph file and the node data file (bytes moved per node, keyed by graph id).
pub fn export(module: &Module, nodes: &[Node]) -> (Value, Value) {
    let mut graphs = Vec::new();
    let mut node_data = serde_json::Map::new();
    let mut todo = vec![module.entry];
    let mut done: Vec<ComputationId> = Vec::new();
    while let Some(c) = todo.pop() {
        if done.contains(&c) {
            continue;
        }
        done.push(c);
        let (graph, results, callees) = computation_graph(module, c, nodes);
        node_data.insert(
            graph["id"].as_str().unwrap_or_default().to_string(),
            json!({
                "results": results,
                "gradient": [
                    {"stop": 0, "bgColor": "#f1f5f9"},
                    {"stop": 1, "bgColor": "#f87171"},
                ],
            }),
        );
        graphs.push(graph);
        todo.extend(callees.into_iter().rev());
    }
    (json!({ "graphs": graphs }), Value::Object(node_data))
}

/// Node id of an instruction as an operand: a fusion is read through its fused root.
fn source_id(module: &Module, c: ComputationId, id: InstrId) -> String {
    let instr = module.computations[c].instr(id);
    match &instr.op {
        Op::Fusion { calls, .. } => {
            let fused = &module.computations[*calls];
            format!("{}/{}", instr.name, fused.instr(fused.root).name)
        }
        _ => instr.name.clone(),
    }
}

fn kv(key: &str, value: impl Into<String>) -> Value {
    json!({"key": key, "value": value.into()})
}

/// One computation's graph, its node data results, and the computations it calls that get
/// graphs of their own.
fn computation_graph(
    module: &Module,
    c: ComputationId,
    nodes: &[Node],
) -> (Value, serde_json::Map<String, Value>, Vec<ComputationId>) {
    let comp = &module.computations[c];
    let thunk_of: HashMap<&str, &Node> = if c == module.entry {
        nodes.iter().map(|n| (n.name.as_str(), n)).collect()
    } else {
        HashMap::new()
    };
    let mut out = Vec::new();
    let mut results = serde_json::Map::new();
    let mut callees = Vec::new();
    let mut group_attrs = serde_json::Map::new();
    for &id in &comp.order {
        let instr = comp.instr(id);
        let cost = instruction_cost(module, c, id);
        let buffer = thunk_of
            .get(instr.name.as_str())
            .map(|n| n.buffers.join(", "))
            .unwrap_or_default();
        let edges = |operands: &[InstrId]| -> Vec<Value> {
            operands
                .iter()
                .enumerate()
                .map(|(k, &o)| {
                    json!({
                        "sourceNodeId": source_id(module, c, o),
                        "sourceNodeOutputId": "0",
                        "targetNodeInputId": k.to_string(),
                    })
                })
                .collect()
        };
        if let Op::Fusion { calls, kind } = &instr.op {
            let fused = &module.computations[*calls];
            let mut attrs = serde_json::Map::new();
            attrs.insert("fusion kind".into(), json!(kind.to_string()));
            attrs.insert("fused computation".into(), json!(fused.name));
            attrs.insert("shape".into(), json!(instr.shape.to_string()));
            attrs.insert("bytes moved".into(), json!(cost.bytes.to_string()));
            attrs.insert("flops".into(), json!(cost.flops.to_string()));
            if !buffer.is_empty() {
                attrs.insert("buffer".into(), json!(buffer));
            }
            group_attrs.insert(instr.name.clone(), Value::Object(attrs));
            for &f in &fused.order {
                let fi = fused.instr(f);
                let node_id = format!("{}/{}", instr.name, fi.name);
                let incoming = match fi.op {
                    Op::Parameter { number } => instr
                        .operands
                        .get(number)
                        .map(|&o| {
                            vec![json!({
                                "sourceNodeId": source_id(module, c, o),
                                "sourceNodeOutputId": "0",
                                "targetNodeInputId": "0",
                            })]
                        })
                        .unwrap_or_default(),
                    _ => fi
                        .operands
                        .iter()
                        .enumerate()
                        .map(|(k, &o)| {
                            json!({
                                "sourceNodeId": format!("{}/{}", instr.name, fused.instr(o).name),
                                "sourceNodeOutputId": "0",
                                "targetNodeInputId": k.to_string(),
                            })
                        })
                        .collect(),
                };
                let mut attrs = vec![
                    kv("opcode", fi.opcode().to_string()),
                    kv("shape", fi.shape.to_string()),
                ];
                if f == fused.root {
                    attrs.push(kv("bytes moved (fusion)", cost.bytes.to_string()));
                    attrs.push(kv("flops (fusion)", cost.flops.to_string()));
                    if !buffer.is_empty() {
                        attrs.push(kv("buffer", buffer.clone()));
                    }
                    results.insert(node_id.clone(), json!({"value": cost.bytes}));
                }
                out.push(json!({
                    "id": node_id,
                    "label": fi.opcode().to_string(),
                    "namespace": instr.name,
                    "attrs": attrs,
                    "incomingEdges": incoming,
                    "outputsMetadata": [{"id": "0", "attrs": [kv("shape", fi.shape.to_string()), kv("__tensor_tag", fi.name.clone())]}],
                }));
            }
            continue;
        }
        let mut attrs = vec![
            kv("name", instr.name.clone()),
            kv("opcode", instr.opcode().to_string()),
            kv("shape", instr.shape.to_string()),
            kv("bytes moved", cost.bytes.to_string()),
            kv("flops", cost.flops.to_string()),
        ];
        if !buffer.is_empty() {
            attrs.push(kv("buffer", buffer));
        }
        let called: Vec<ComputationId> = instr.op.called_computations();
        let subgraphs: Vec<String> = called
            .iter()
            .map(|&k| module.computations[k].name.clone())
            .collect();
        callees.extend(called);
        results.insert(instr.name.clone(), json!({"value": cost.bytes}));
        let mut node = json!({
            "id": instr.name,
            "label": instr.opcode().to_string(),
            "namespace": "",
            "attrs": attrs,
            "incomingEdges": edges(&instr.operands),
            "outputsMetadata": [{"id": "0", "attrs": [kv("shape", instr.shape.to_string())]}],
        });
        if !subgraphs.is_empty() {
            node["subgraphIds"] = json!(subgraphs);
        }
        out.push(node);
    }
    (
        json!({
            "id": comp.name,
            "nodes": out,
            "groupNodeAttributes": group_attrs,
        }),
        results,
        callees,
    )
}
