//! Source locations from StableHLO text and bytecode into HLO metadata, checked against
//! XLA: `testdata/locations/` holds jax programs lowered with debug info (`NAME.mlir`), the
//! artifact jax.jit's compile sends (`NAME.mlirbc`) and XLA's own HLO before optimizations
//! (`NAME.xla.txt`), all written by its `generate.py` with jax 0.10.2. Plus diagnostics that
//! name `file:line:col`, and `xlac explain` finding ops by source line.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use xlac::explain::find_instructions;
use xlac::ir::{Metadata, Module, Opcode};

const DIR: &str = "testdata/locations";
const PROGRAMS: [&str; 5] = ["nested", "multi", "loops", "mlp", "cond"];

fn from_text(name: &str) -> Module {
    let path = format!("{DIR}/{name}.mlir");
    let text = std::fs::read_to_string(&path).unwrap();
    xlac::front::stablehlo::parse_module(&text, &path)
        .unwrap()
        .module
}

fn from_bytes(name: &str) -> Module {
    let path = format!("{DIR}/{name}.mlirbc");
    let bytes = std::fs::read(&path).unwrap();
    xlac::front::stablehlo::bytecode::parse_module(&bytes, &path)
        .unwrap()
        .module
}

fn from_xla(name: &str) -> Module {
    let path = format!("{DIR}/{name}.xla.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    xlac::front::hlo_text::parse_module(&text, &path)
        .unwrap()
        .module
}

/// An instruction's metadata with its stack frame resolved to the frames' (file,
/// function, line, column), innermost first: frame ids depend on the order ops are
/// visited, and a shared location's end column on which op was seen first.
fn signature(module: &Module, m: &Metadata) -> String {
    let frames = m
        .stack_frame_id
        .and_then(|id| module.stack_frames.as_ref().map(|s| (s, s.chain(id))))
        .map(|(s, chain)| {
            chain
                .iter()
                .map(|(file, l)| {
                    let function = usize::try_from(l.function_name_id - 1)
                        .ok()
                        .and_then(|i| s.function_names.get(i))
                        .map(String::as_str)
                        .unwrap_or("?");
                    format!("{function}@{file}:{}:{}", l.line, l.column)
                })
                .collect::<Vec<_>>()
                .join(" < ")
        })
        .unwrap_or_default();
    format!(
        "op_name={:?} op_type={:?} source={:?}:{:?}:{:?} frames=[{frames}]",
        m.op_name, m.op_type, m.source_file, m.source_line, m.source_column
    )
}

/// Per opcode, each live instruction's `op_name` and metadata signature, for those with
/// metadata.
fn by_opcode(module: &Module) -> HashMap<Opcode, Vec<(Option<String>, String)>> {
    let mut out: HashMap<Opcode, Vec<(Option<String>, String)>> = HashMap::new();
    for &c in &module.order {
        for (_, i) in module.computations[c].iter() {
            if let Some(m) = &i.metadata {
                out.entry(i.opcode())
                    .or_default()
                    .push((m.op_name.clone(), signature(module, m)));
            }
        }
    }
    out
}

#[test]
fn metadata_equals_xlas_for_every_instruction_both_have() {
    let (mut compared, mut skipped) = (0, 0);
    let mut bad = Vec::new();
    for name in PROGRAMS {
        let xla = by_opcode(&from_xla(name));
        for (reader, module) in [("text", from_text(name)), ("bytecode", from_bytes(name))] {
            let ours = by_opcode(&module);
            for (opcode, theirs) in &xla {
                let mut left: Vec<&(Option<String>, String)> = ours
                    .get(opcode)
                    .map(|v| v.iter().collect())
                    .unwrap_or_default();
                // An instruction both have: same opcode, same op_name. XLA drops the
                // metadata of constants (its MLIR passes fold and hoist them first) and
                // lowers some ops into more instructions than xlac (a broadcast_in_dim
                // into reshape and broadcast): those are not compared.
                for (op_name, sig) in theirs {
                    if let Some(i) = left.iter().position(|(_, s)| s == sig) {
                        left.remove(i);
                        compared += 1;
                    } else if left.iter().any(|(n, _)| n == op_name) {
                        bad.push(format!(
                            "{name} ({reader}) {opcode:?}: XLA has {sig}, xlac has {:?}",
                            left.iter()
                                .filter(|(n, _)| n == op_name)
                                .collect::<Vec<_>>()
                        ));
                    } else {
                        skipped += 1;
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(compared > 100, "only {compared} instructions compared");
    assert!(
        skipped * 10 < compared,
        "{skipped} skipped, {compared} compared"
    );
    eprintln!("{compared} instructions' metadata equal XLA's ({skipped} XLA has and xlac not)");
}

#[test]
fn text_and_bytecode_convert_to_the_same_hlo_with_metadata() {
    for name in PROGRAMS {
        let (t, b) = (from_text(name), from_bytes(name));
        assert!(t.stack_frames.is_some(), "{name}: no stack frames");
        assert_eq!(
            xlac::front::hlo_text::print_module(&t),
            xlac::front::hlo_text::print_module(&b),
            "{name}"
        );
    }
}

#[test]
fn programs_without_debug_info_get_no_metadata() {
    let text = std::fs::read_to_string("testdata/bytecode/programs/softmax.mlir").unwrap();
    let m = xlac::front::stablehlo::parse_module(&text, "softmax.mlir")
        .unwrap()
        .module;
    assert!(m.stack_frames.is_none());
    for &c in &m.order {
        for (_, i) in m.computations[c].iter() {
            assert!(i.metadata.is_none(), "{}", i.name);
        }
    }
}

fn xlac(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .expect("runs xlac");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The line of `generate.py` that holds `needle`.
fn generator_line(needle: &str) -> usize {
    let text = std::fs::read_to_string(format!("{DIR}/generate.py")).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn explain_finds_ops_by_source_line_in_text_and_bytecode() {
    let line = generator_line("return jnp.sin(x) * 2.0");
    let query = format!("generate.py:{line}");
    for module in [from_text("nested"), from_bytes("nested")] {
        let found = find_instructions(&module, &query).unwrap();
        let mut ops: Vec<Opcode> = found
            .iter()
            .map(|f| module.computations[f.computation].instrs[f.instruction].opcode())
            .collect();
        ops.sort_by_key(|o| o.name());
        ops.dedup();
        assert!(
            ops.contains(&Opcode::Sin) && ops.contains(&Opcode::Multiply),
            "{ops:?}"
        );
        assert!(found.iter().all(|f| f.matched_by == "source location"));
    }
    for model in ["nested.mlir", "nested.mlirbc"] {
        let path = format!("{DIR}/{model}");
        let (code, out, err) = xlac(&["explain", &path, &query]);
        assert_eq!(code, 0, "{model}: {err}");
        assert!(out.contains("sine"), "{model}: {out}");
    }
}

#[test]
fn a_conversion_error_names_the_ops_source_location() {
    let dir = std::env::temp_dir().join(format!("xlac-locations-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // An op xlac does not convert, at a jax-style location.
    let text = std::fs::read_to_string(format!("{DIR}/nested.mlir")).unwrap();
    let bad = text.replacen("stablehlo.sine", "stablehlo.cbrt_nope", 1);
    assert_ne!(bad, text);
    let model = dir.join("bad.mlir");
    std::fs::write(&model, &bad).unwrap();
    let (code, _, err) = xlac(&["convert", model.to_str().unwrap(), "--to", "hlo"]);
    assert_ne!(code, 0);
    let line = generator_line("return jnp.sin(x) * 2.0");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with(&format!("error: testdata/locations/generate.py:{line}:")),
        "{err}"
    );
    assert!(lines[0].contains("cbrt_nope"), "{err}");
    assert!(Path::new(&model).exists());
    let _ = std::fs::remove_dir_all(&dir);
}
