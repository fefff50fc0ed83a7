//! Keeps the generated tables of `docs/` honest: the op coverage table (`docs/op-coverage.md`)
//! is rebuilt from `eval::interprets` and the opcodes the testdata programs use, and the
//! pipeline's instruction counts (`docs/pipeline.md`) from running it; both must match.
//! `XLAC_BLESS=1 cargo test --test doc_tables` rewrites them. The interpreter claims are probed for every elementwise
//! opcode, so the table cannot say "yes" for an op that errors.

use std::collections::BTreeMap;
use std::path::Path;

use xlac::compiler::{CompileOptions, optimize};
use xlac::eval::{EvalOptions, evaluate, interprets};
use xlac::front::hlo_text::parse_module;
use xlac::ir::{
    ArrayLiteral, ComputationBuilder, Literal, Module, OpCategory, Opcode, PrimitiveType, Shape,
};

const BEGIN: &str = "<!-- coverage -->";
const END: &str = "<!-- /coverage -->";
const PIPELINE_BEGIN: &str = "<!-- pipeline -->";
const PIPELINE_END: &str = "<!-- /pipeline -->";

/// Opcode → number of testdata programs whose `model.hlo` or `xla_opt.hlo` uses it.
fn testdata_usage() -> BTreeMap<Opcode, usize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut usage = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let dir = entry.unwrap().path();
        let mut used = std::collections::BTreeSet::new();
        for file in ["model.hlo", "xla_opt.hlo"] {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                continue;
            };
            let module = parse_module(&text, file).unwrap().module;
            for &c in &module.order {
                used.extend(module.computations[c].iter().map(|(_, i)| i.opcode()));
            }
        }
        for op in used {
            *usage.entry(op).or_insert(0) += 1;
        }
    }
    usage
}

fn coverage_table() -> String {
    let usage = testdata_usage();
    let mut rows = vec![
        "| opcode | interpreter | compiled | testdata programs |".to_string(),
        "|---|---|---|---|".to_string(),
    ];
    let mut opcodes: Vec<Opcode> = Opcode::ALL.to_vec();
    opcodes.sort_by_key(|o| o.name());
    for op in opcodes {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let used = usage.get(&op).map_or(String::new(), |n| n.to_string());
        rows.push(format!(
            "| `{}` | {} | {} | {} |",
            op.name(),
            yes_no(interprets(op)),
            xlac::compiler::coverage::compiled_route(op),
            used
        ));
    }
    rows.join("\n")
}

/// Replaces the text between `begin` and `end` in the page `doc` (under the repository root)
/// with `table`, or, without `XLAC_BLESS`, fails if it differs.
fn check_doc_section(doc: &str, begin: &str, end: &str, table: &str, what: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(begin)
        .unwrap_or_else(|| panic!("{doc} lacks {begin}"))
        + begin.len();
    let stop = readme
        .find(end)
        .unwrap_or_else(|| panic!("{doc} lacks {end}"));
    let table = format!("\n{table}\n");
    if readme[start..stop] != table {
        if std::env::var_os("XLAC_BLESS").is_some() {
            std::fs::write(
                &path,
                format!("{}{}{}", &readme[..start], table, &readme[stop..]),
            )
            .unwrap();
        } else {
            panic!("{doc}'s {what} is stale; rerun with XLAC_BLESS=1");
        }
    }
}

#[test]
fn coverage_table_is_current() {
    check_doc_section(
        "docs/op-coverage.md",
        BEGIN,
        END,
        &coverage_table(),
        "op coverage table",
    );
}

/// Live instructions: in the entry computation, and in every computation of the module.
fn instruction_counts(module: &Module) -> (usize, usize) {
    let entry = module.entry_computation().order.len();
    let total = module
        .order
        .iter()
        .map(|&c| module.computations[c].order.len())
        .sum();
    (entry, total)
}

/// Per testdata model: instruction counts before and after xlac's CPU pipeline.
fn pipeline_table() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let mut rows = vec![
        "| model | entry before | entry after | all computations before | after |".to_string(),
        "|---|---|---|---|---|".to_string(),
    ];
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join("model.hlo")) else {
            continue;
        };
        let module = parse_module(&text, "model.hlo").unwrap().module;
        let before = instruction_counts(&module);
        let after =
            instruction_counts(&optimize(module, &CompileOptions::default()).unwrap().module);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        rows.push(format!(
            "| {name} | {} | {} | {} | {} |",
            before.0, after.0, before.1, after.1
        ));
    }
    rows.join("\n")
}

#[test]
fn pipeline_table_is_current() {
    check_doc_section(
        "docs/pipeline.md",
        PIPELINE_BEGIN,
        PIPELINE_END,
        &pipeline_table(),
        "pipeline table",
    );
}

/// A module that applies `opcode` elementwise to parameters of type `ty`.
fn elementwise_module(opcode: Opcode, ty: PrimitiveType) -> Module {
    let mut b = ComputationBuilder::new("main");
    let shape = Shape::array(ty, &[3]);
    let arity = match opcode.category() {
        OpCategory::ElementwiseUnary => 1,
        OpCategory::ElementwiseBinary => 2,
        _ => 3,
    };
    let params: Vec<_> = (0..arity).map(|n| b.parameter(n, shape.clone())).collect();
    let root = match (opcode, arity) {
        (Opcode::Compare, _) => b.compare(xlac::ir::ComparisonDirection::Lt, params[0], params[1]),
        (Opcode::Complex, _) => {
            let out = Shape::array(PrimitiveType::C64, &[3]);
            b.instr(out, xlac::ir::Op::Plain(opcode), &params)
        }
        (Opcode::Real | Opcode::Imag, _) => {
            let out = Shape::array(PrimitiveType::F32, &[3]);
            b.instr(out, xlac::ir::Op::Plain(opcode), &params)
        }
        (_, 1) => b.unary(opcode, params[0]),
        (_, 2) => b.binary(opcode, params[0], params[1]),
        _ => b.instr(shape.clone(), xlac::ir::Op::Plain(opcode), &params),
    };
    Module::new("probe", b.build(root))
}

/// The element type an elementwise opcode is probed with.
fn probe_type(opcode: Opcode) -> PrimitiveType {
    use Opcode::*;
    match opcode {
        And | Or | Xor | Not | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical
        | PopulationCount | Clz | MulHi => PrimitiveType::S32,
        Real | Imag => PrimitiveType::C64,
        Select => PrimitiveType::Pred,
        _ => PrimitiveType::F32,
    }
}

fn literal_of(ty: PrimitiveType) -> Literal {
    let zeros = ArrayLiteral::zeros(xlac::ir::ArrayShape::new(ty, &[3]));
    Literal::Array(zeros)
}

#[test]
fn interpreter_claims_hold_for_elementwise_opcodes() {
    for &op in Opcode::ALL {
        // convert, bitcast-convert and reduce-precision need a second type or attributes;
        // the golden tests cover them.
        if !op.is_elementwise()
            || matches!(
                op,
                Opcode::Convert | Opcode::BitcastConvert | Opcode::ReducePrecision
            )
        {
            continue;
        }
        let ty = probe_type(op);
        let module = elementwise_module(op, ty);
        let arity = module.entry_computation().parameters().len();
        let args: Vec<Literal> = (0..arity).map(|_| literal_of(ty)).collect();
        let args = if op == Opcode::Select {
            let f = literal_of(PrimitiveType::F32);
            vec![literal_of(ty), f.clone(), f]
        } else {
            args
        };
        let result = evaluate(&fix_select(module, op), &args, &EvalOptions::default());
        assert_eq!(
            result.is_ok(),
            interprets(op),
            "{op}: interprets() says {} but eval gave {result:?}",
            interprets(op)
        );
    }
}

/// `select` takes a pred and two values: retype its value parameters and result to f32.
fn fix_select(mut module: Module, op: Opcode) -> Module {
    if op == Opcode::Select {
        let entry = module.entry;
        let comp = &mut module.computations[entry];
        let ids: Vec<_> = comp.order.clone();
        for id in ids.into_iter().skip(1) {
            comp.instrs[id].shape = Shape::array(PrimitiveType::F32, &[3]);
        }
    }
    module
}
