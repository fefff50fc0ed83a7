//! Layouts never change results: the same program compiled with a forced column-major parameter
//! (`--layout param0={0,1}` on the command line, `forced_parameter_layouts` in the library,
//! or an `entry_computation_layout` in the text) gives the same result and a different
//! buffer plan and dump. The reference result is the interpreter on the module as written.

use std::path::PathBuf;
use std::process::Command;

use xlac::compiler::{CompileOptions, optimize};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::hlo_text::parse_module;
use xlac::io::npz::read_npz;
use xlac::ir::{ArrayLiteral, Layout, Literal, Module};
use xlac::layout::BufferAssignment;
use xlac::layout::buffer_check::check_buffer_assignment;

/// A 3x4 by 4x2 product with an epilogue: `p0` is read by a dot, so a column-major `p0`
/// costs a relayout copy (a new temporary) before it.
const MODEL: &str = "\
HloModule layout_model

ENTRY main {
  p0 = f32[3,4]{1,0} parameter(0)
  p1 = f32[4,2]{1,0} parameter(1)
  d = f32[3,2]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[3,2]{1,0} exponential(d)
  ROOT r = f32[3,2]{1,0} multiply(e, d)
}
";

const COLUMN_MAJOR_HEADER: &str = "HloModule layout_model, entry_computation_layout={(f32[3,4]{0,1}, f32[4,2]{1,0})->f32[3,2]{1,0}}";

fn parse(text: &str) -> Module {
    parse_module(text, "layout_model.hlo")
        .expect("parses")
        .module
}

fn args() -> Vec<Literal> {
    let p0: Vec<f32> = (0..12).map(|i| i as f32 * 0.1 - 0.5).collect();
    let p1: Vec<f32> = (0..8).map(|i| 0.25 - i as f32 * 0.05).collect();
    vec![
        Literal::Array(ArrayLiteral::from_vec(&[3, 4], p0)),
        Literal::Array(ArrayLiteral::from_vec(&[4, 2], p1)),
    ]
}

struct Compiled {
    module: Module,
    result: Literal,
    plan: String,
    temp_bytes: usize,
}

fn compile(module: Module, forced: Vec<(usize, Layout)>) -> Compiled {
    let options = CompileOptions {
        forced_parameter_layouts: forced,
        ..CompileOptions::default()
    };
    let module = optimize(module, &options).expect("optimizes").module;
    let ba = BufferAssignment::run(&module).expect("assigns buffers");
    assert!(check_buffer_assignment(&module, &ba).is_empty());
    let result = evaluate(&module, &args(), &EvalOptions::default()).expect("evaluates");
    Compiled {
        plan: ba.to_text(&module),
        temp_bytes: ba.temp_bytes(),
        result: xlac::eval::to_row_major(&result),
        module,
    }
}

fn column_major() -> Layout {
    Layout {
        minor_to_major: vec![0, 1],
        extra: None,
    }
}

#[test]
fn forced_column_major_parameter_same_result_different_plan() {
    let reference = evaluate(&parse(MODEL), &args(), &EvalOptions::default()).unwrap();
    let default = compile(parse(MODEL), vec![]);
    let forced = compile(parse(MODEL), vec![(0, column_major())]);
    let header = compile(
        parse(&MODEL.replace("HloModule layout_model", COLUMN_MAJOR_HEADER)),
        vec![],
    );
    for c in [&default, &forced, &header] {
        assert_eq!(c.result, reference);
    }
    // The column-major parameter shows in the dump's header and parameter...
    let forced_text = forced.module.to_string();
    assert!(forced_text.contains("entry_computation_layout={(f32[3,4]{0,1}, f32[4,2]{1,0})"));
    assert!(forced_text.contains("f32[3,4]{0,1} parameter(0)"));
    assert_ne!(forced_text, default.module.to_string());
    // ...and the relayout copy is one more 48-byte temporary in the buffer plan.
    assert_ne!(forced.plan, default.plan);
    assert!(forced.plan.contains("f32[3,4]{1,0}"), "{}", forced.plan);
    assert!(forced.temp_bytes > default.temp_bytes);
    // The entry_computation_layout route gives the same plan as the flag.
    assert_eq!(header.plan, forced.plan);
}

fn xlac(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .expect("the xlac binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-layout-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn layout_flag_on_the_command_line() {
    let dir = temp_dir("cli");
    let model = dir.join("model.hlo");
    std::fs::write(&model, MODEL).unwrap();
    let model = model.to_str().unwrap();
    let mut outputs = Vec::new();
    let mut dumps = Vec::new();
    for (k, flags) in [vec![], vec!["--layout", "param0={0,1}"]]
        .iter()
        .enumerate()
    {
        let out = dir.join(format!("out{k}.npz"));
        let dump = dir.join(format!("dump{k}"));
        let mut a = vec![
            "run",
            model,
            "--quiet",
            "--seed",
            "7",
            "--output",
            out.to_str().unwrap(),
            "--dump-to",
            dump.to_str().unwrap(),
        ];
        a.extend(flags.iter().copied());
        let (code, _, stderr) = xlac(&a);
        assert_eq!(code, 0, "{stderr}");
        outputs.push(read_npz(&out).unwrap());
        let after = dump.join("module_0000.layout_model.cpu_after_optimizations.txt");
        dumps.push(std::fs::read_to_string(after).unwrap());
    }
    assert_eq!(outputs[0][0].literal, outputs[1][0].literal);
    assert!(
        dumps[1].contains("f32[3,4]{0,1} parameter(0)"),
        "{}",
        dumps[1]
    );
    assert_ne!(dumps[0], dumps[1]);
}

#[test]
fn bad_layout_flags_are_one_usage_line() {
    let dir = temp_dir("bad");
    let model = dir.join("model.hlo");
    std::fs::write(&model, MODEL).unwrap();
    let model = model.to_str().unwrap();
    for bad in [
        "param0",
        "p0={0,1}",
        "param0={0,x}",
        "param9={0,1}",
        "param0={0,0}",
    ] {
        let (code, _, stderr) = xlac(&["run", model, "--quiet", "--layout", bad]);
        assert_ne!(code, 0, "{bad}");
        assert_eq!(stderr.lines().count(), 1, "{bad}: {stderr}");
        assert!(stderr.starts_with("error: "), "{bad}: {stderr}");
        assert!(stderr.contains("--layout"), "{bad}: {stderr}");
    }
}
