//! `xlac run MODEL`: load, bind inputs, evaluate, print and save the result.
//! XLA counterpart: `xla/tools/run_hlo_module.cc` (`RunAndCompare`), without the reference run.

use std::io::Write;
use std::path::PathBuf;

use super::compile::{compile_options, optimize_loaded};
use super::{Backend, Failure, RunArgs, model};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{bind_arguments, entry_parameters};
use crate::io::npz::{NamedArray, read_arrays, write_npz};
use crate::pipeline::bisect::bisect;

/// Runs `xlac run`.
pub fn run(args: &RunArgs) -> Result<(), Failure> {
    if args.backend == Backend::Compiled {
        return Err(Failure::usage(
            "the compiled backend is not built yet; use --backend interpreter (the default)",
        ));
    }
    if args.compare_to.is_some() {
        return Err(Failure::usage(
            "--compare-to is not available yet: it checks the compiled backend against the interpreter, \
             and the compiled backend is not built yet",
        ));
    }
    let loaded = model::load(&args.model, args.quiet)?;
    execute(loaded, args)
}

/// Runs a loaded module as `args` say: optimize (and dump), bind inputs, evaluate, print,
/// save. The interpreter runs the optimized module, as the compiled backend will.
fn execute(loaded: model::LoadedModel, args: &RunArgs) -> Result<(), Failure> {
    let file = loaded.file.clone();
    let original = args.bisect.then(|| loaded.module.clone());
    let options = compile_options(&args.passes, args.dump_to.clone(), args.bisect)?;
    let optimized = optimize_loaded(loaded, &options)?;
    let module = &optimized.module;

    let params = entry_parameters(module);
    let inputs = read_inputs(&args.inputs)?;
    let given = inputs.len();
    let arguments = bind_arguments(&params, inputs, args.seed)?;
    if given > 0 && !arguments.randomized.is_empty() && !args.quiet {
        let names: Vec<String> = arguments
            .randomized
            .iter()
            .map(|&n| format!("{n} ({})", params[n].name))
            .collect();
        eprintln!(
            "warning: {} input(s) for {} parameters; parameter(s) {} get random values from --seed {}",
            given,
            params.len(),
            names.join(", "),
            args.seed
        );
    }

    let options = EvalOptions {
        seed: args.seed,
        ..EvalOptions::default()
    };
    if let Some(original) = &original {
        let report = bisect(
            original,
            &optimized.snapshots,
            &arguments.literals,
            &options,
        )
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
        eprintln!("{report}");
    }
    let result = evaluate(module, &arguments.literals, &options)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;

    if !args.quiet {
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = writeln!(stdout, "{result}").and_then(|_| stdout.flush()) {
            // A closed pipe (`xlac run m.hlo | head`) is the reader's choice, not an error.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                return Err(Failure::error(format!("cannot print the result: {e}")));
            }
        }
    }
    if let Some(out) = &args.output {
        write_npz(out, &result.leaves())?;
    }
    Ok(())
}

/// Reads `--input` files: one `.npz` (or `.npy`) alone, or several files of one array each.
fn read_inputs(paths: &[PathBuf]) -> Result<Vec<NamedArray>, Failure> {
    if let [single] = paths {
        return Ok(read_arrays(single)?);
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let mut arrays = read_arrays(path)?;
        if arrays.len() != 1 {
            return Err(Failure::error(format!(
                "{} holds {} arrays; give one .npz alone, or one array per --input",
                path.display(),
                arrays.len()
            )));
        }
        out.append(&mut arrays);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::io::npz::read_npz;
    use crate::ir::{ArrayLiteral, ComputationBuilder, Module, Opcode, PrimitiveType, Shape};

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    fn args(inputs: &[PathBuf], output: Option<PathBuf>) -> RunArgs {
        RunArgs {
            model: "m.hlo".into(),
            inputs: inputs.to_vec(),
            output,
            dump_to: None,
            backend: Backend::Interpreter,
            seed: 0,
            quiet: true,
            compare_to: None,
            passes: Default::default(),
            bisect: false,
            rtol: None,
            atol: None,
        }
    }

    /// `ROOT t = (f32[2,3], (f32[3], s32[])) tuple(x, tuple(y, c))` with `c = 7`: the run
    /// pipeline without the parser, checking binding and the depth-first output order.
    fn tuple_model() -> model::LoadedModel {
        let mut b = ComputationBuilder::new("main");
        let x = b.parameter(0, Shape::array(PrimitiveType::F32, &[2, 3]));
        let y = b.parameter(1, Shape::array(PrimitiveType::F32, &[3]));
        let c = b.constant(ArrayLiteral::scalar(7i32));
        let inner_shape = Shape::Tuple(vec![b.shape_of(y).clone(), b.shape_of(c).clone()]);
        let inner = b.instr(
            inner_shape.clone(),
            crate::ir::Op::Plain(Opcode::Tuple),
            &[y, c],
        );
        let outer_shape = Shape::Tuple(vec![b.shape_of(x).clone(), inner_shape]);
        let root = b.instr(
            outer_shape,
            crate::ir::Op::Plain(Opcode::Tuple),
            &[x, inner],
        );
        let module = Module::new("jit_f", b.build(root));
        model::LoadedModel {
            module,
            file: "m.hlo".into(),
            stablehlo: None,
        }
    }

    #[test]
    fn npy_inputs_to_npz_output() {
        let out = std::env::temp_dir().join(format!("xlac-run-test-{}.npz", std::process::id()));
        let inputs = [fixture("f32_2x3.npy"), fixture("f32_3.npy")];
        execute(tuple_model(), &args(&inputs, Some(out.clone()))).unwrap();
        let leaves = read_npz(&out).unwrap();
        std::fs::remove_file(&out).ok();
        let names: Vec<&str> = leaves.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["arr_0", "arr_1", "arr_2"]);
        // The fixtures hold arange(6).reshape(2, 3) and [1, 2, 3] (make_fixtures.py).
        assert_eq!(
            leaves[0].literal.values::<f32>().unwrap(),
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert_eq!(leaves[1].literal.values::<f32>().unwrap(), &[1.0, 2.0, 3.0]);
        assert_eq!(leaves[2].literal.values::<i32>().unwrap(), &[7]);
    }

    #[test]
    fn input_errors_are_single_failures() {
        let swapped = [fixture("f32_3.npy"), fixture("f32_2x3.npy")];
        let e = execute(tuple_model(), &args(&swapped, None)).unwrap_err();
        assert_eq!(e.code, 1);
        assert_eq!(e.lines.len(), 1);
        assert!(
            e.lines[0]
                .starts_with("parameter 0 (parameter.0) expects f32[2,3] but the input has f32[3]"),
            "{e:?}"
        );
        let mixed = fixture("mixed.npz");
        let e = execute(tuple_model(), &args(&[mixed.clone(), mixed], None)).unwrap_err();
        assert!(
            e.lines[0].ends_with("holds 8 arrays; give one .npz alone, or one array per --input"),
            "{e:?}"
        );
    }

    #[test]
    fn dump_folder_holds_the_module() {
        let dir = std::env::temp_dir().join(format!("xlac-dump-test-{}", std::process::id()));
        let mut a = args(&[], None);
        a.dump_to = Some(dir.clone());
        execute(tuple_model(), &a).unwrap();
        let text = std::fs::read_to_string(dir.join("module_0000.jit_f.before_optimizations.txt"));
        let index = std::fs::read_to_string(dir.join("index.txt"));
        std::fs::remove_dir_all(&dir).ok();
        assert!(text.unwrap().starts_with("HloModule jit_f"));
        assert!(
            index
                .unwrap()
                .starts_with("module_0000.jit_f.before_optimizations.txt")
        );
    }
}
