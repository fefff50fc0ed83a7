//! The dump's Model Explorer export (`module_0000.NAME.model-explorer.json` and
//! `.model-explorer.node-data.json`): checked against the final HLO the same dump holds,
//! not against the exporter's own code. Every edge names a node of its graph; every fusion
//! of the final module is a namespace (a collapsible layer) holding its fused computation's
//! instructions, and no node stands for the fusion itself; every other instruction of the
//! entry is one node with its cost and buffer attributes; subgraph ids name graphs of the
//! file; the node data gives a value to nodes that exist.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn dump_of(model: &str, test: &str) -> PathBuf {
    let dump = std::env::temp_dir().join(format!("xlac-me-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dump);
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(["compile", model, "--dump-to"])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dump
}

fn dump_file(dump: &Path, suffix: &str) -> String {
    let path = std::fs::read_dir(dump)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no *{suffix} in the dump"));
    std::fs::read_to_string(path).unwrap()
}

/// A computation of the final HLO: whether it is the entry, and its instructions as
/// `(name, opcode)`.
type Computation = (bool, Vec<(String, String)>);

/// The final HLO's computations by name.
fn computations(hlo: &str) -> HashMap<String, Computation> {
    let mut out = HashMap::new();
    let mut current: Option<(String, Computation)> = None;
    for line in hlo.lines() {
        if line.starts_with('}') {
            if let Some((name, computation)) = current.take() {
                out.insert(name, computation);
            }
            continue;
        }
        if line.trim_end().ends_with('{') && !line.starts_with(' ') {
            let entry = line.starts_with("ENTRY ");
            let head = line.trim_start_matches("ENTRY ").trim_start_matches('%');
            let name = head.split([' ', '(']).next().unwrap().to_string();
            current = Some((name, (entry, Vec::new())));
            continue;
        }
        if let Some((_, (_, instrs))) = current.as_mut() {
            let t = line.trim_start();
            let t = t.strip_prefix("ROOT ").unwrap_or(t);
            let Some((name, rest)) = t.trim_start_matches('%').split_once(" = ") else {
                continue;
            };
            // `f32[8]{0} add(...)`, `(f32[2], s32[]) tuple(...)`: the opcode is the word before
            // the first `(` after the shape.
            let after_shape = match rest.strip_prefix('(') {
                Some(tuple) => tuple.split_once(") ").map_or(rest, |(_, r)| r),
                None => rest.split_once(' ').map_or(rest, |(_, r)| r),
            };
            let opcode = after_shape.split('(').next().unwrap().trim().to_string();
            instrs.push((name.to_string(), opcode));
        }
    }
    out
}

fn check(model: &str, test: &str) -> (Value, Value) {
    let dump = dump_of(model, test);
    let graph: Value = serde_json::from_str(&dump_file(&dump, ".model-explorer.json")).unwrap();
    let data: Value =
        serde_json::from_str(&dump_file(&dump, ".model-explorer.node-data.json")).unwrap();
    let hlo = computations(&dump_file(&dump, ".cpu_after_optimizations.txt"));
    let index = std::fs::read_to_string(dump.join("index.txt")).unwrap();
    assert!(index.contains(".model-explorer.json\t"));
    let graphs = graph["graphs"].as_array().expect("a graphs list");
    let graph_ids: HashSet<&str> = graphs.iter().map(|g| g["id"].as_str().unwrap()).collect();
    let (entry_name, _) = hlo.iter().find(|(_, (e, _))| *e).expect("an entry");
    assert!(
        graph_ids.contains(entry_name.as_str()),
        "no graph for the entry"
    );
    for g in graphs {
        let gid = g["id"].as_str().unwrap();
        let nodes = g["nodes"].as_array().unwrap();
        let ids: HashSet<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), nodes.len(), "{gid}: node ids repeat");
        let namespaces: HashSet<&str> = nodes
            .iter()
            .map(|n| n["namespace"].as_str().unwrap())
            .collect();
        for n in nodes {
            for e in n["incomingEdges"].as_array().unwrap() {
                let src = e["sourceNodeId"].as_str().unwrap();
                assert!(ids.contains(src), "{gid}: edge from {src}, not a node");
            }
            for s in n["subgraphIds"].as_array().into_iter().flatten() {
                assert!(graph_ids.contains(s.as_str().unwrap()), "subgraph {s}");
            }
            assert!(
                n["attrs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|a| a["key"] == "shape")
            );
        }
        let (_, instrs) = &hlo[gid];
        for (name, opcode) in instrs {
            if opcode == "fusion" {
                assert!(
                    namespaces.contains(name.as_str()),
                    "{gid}: fusion {name} is no namespace"
                );
                assert!(
                    !ids.contains(name.as_str()),
                    "{gid}: fusion {name} is also a node"
                );
                assert!(g["groupNodeAttributes"][name.as_str()]["bytes moved"].is_string());
            } else {
                let node = nodes
                    .iter()
                    .find(|n| n["id"] == name.as_str())
                    .unwrap_or_else(|| panic!("{gid}: no node for {name}"));
                assert_eq!(node["label"], opcode.as_str());
                let keys: Vec<&str> = node["attrs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a["key"].as_str().unwrap())
                    .collect();
                assert!(
                    keys.contains(&"bytes moved") && keys.contains(&"flops"),
                    "{keys:?}"
                );
            }
        }
        for key in data[gid]["results"].as_object().unwrap().keys() {
            assert!(
                ids.contains(key.as_str()),
                "node data for {key}, not a node"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dump);
    (graph, data)
}

#[test]
fn fusions_are_namespaces_and_edges_name_nodes() {
    let (graph, _) = check("testdata/bench/transformer_block/model.hlo", "transformer");
    let entry = &graph["graphs"][0];
    // The entry's kernels hold their buffers: some node carries the buffer attribute.
    let text = entry.to_string();
    assert!(text.contains("\"key\":\"buffer\""));
}

#[test]
fn while_bodies_are_subgraphs() {
    let (graph, _) = check("testdata/fori_loop/model.hlo", "fori");
    let graphs = graph["graphs"].as_array().unwrap();
    assert!(graphs.len() > 1, "the while loop's computations are graphs");
    assert!(graph.to_string().contains("\"subgraphIds\""));
}
