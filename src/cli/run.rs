//! `xlac run MODEL`: load, bind inputs, run on the compiled backend (default) or the
//! interpreter, print and save the result; with `--compare-to interpreter`, also run the
//! interpreter on the module as loaded and report, per output leaf, the largest absolute
//! and relative error and whether it is within `--rtol`/`--atol`.
//! XLA counterpart: `xla/tools/run_hlo_module.cc` (`RunAndCompare`).

use super::outcome::{DEFAULT_TOLERANCE, compare_with_file, comparison_report, print_and_save};
use super::prepare::{bind_inputs, compile_loaded, compile_options, optimize_loaded};
use super::{Backend, Failure, RunArgs, model};
use crate::eval::compare::Tolerance;
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::entry_parameters;
use crate::ir::Literal;
use crate::pipeline::bisect::bisect;

/// Warm runs `run --dump-to` times per thunk when `--profile-runs` is not given.
pub const DEFAULT_PROFILE_RUNS: u64 = 5;

/// Runs `xlac run`.
pub fn run(args: &RunArgs) -> Result<(), Failure> {
    // Under a launcher every rank loads the model; warnings come from rank 0 only.
    let quiet = args.quiet
        || (args.distributed.is_some()
            && super::distributed::launcher_rank().is_some_and(|r| r != 0));
    let loaded = model::load(&args.model, quiet)?;
    let grid = super::devices::grid(&loaded.module, &args.devices, &loaded.file)?;
    super::refusals::check_run(
        args,
        super::refusals::RunMode {
            backend: args.backend,
            multi_device: grid.is_some(),
        },
    )?;
    if let Some(grid) = grid {
        return super::devices::run(loaded, args, grid);
    }
    if args.distributed.is_some() {
        return Err(Failure::usage(format!(
            "{}: --distributed runs one device per rank, and this module runs on one device (give --partitions N)",
            loaded.file
        )));
    }
    // --bisect is about the pass pipeline: it runs the interpreter over every snapshot.
    if args.backend == Backend::Interpreter || args.bisect {
        return execute(loaded, args);
    }
    execute_compiled(loaded, args)
}

/// The compiled backend: compile (and dump), bind, execute, optionally compare.
fn execute_compiled(loaded: model::LoadedModel, args: &RunArgs) -> Result<(), Failure> {
    let file = loaded.file.clone();
    let reference = args.compare_to.map(|_| loaded.module.clone());
    // Inputs are checked before compiling: the pipeline keeps the entry signature.
    let params = entry_parameters(&loaded.module);
    let arguments = bind_inputs(&params, &args.inputs, args.seed, args.quiet)?;
    let mut options = compile_options(&args.passes, args.dump_to.clone(), false)?;
    options.spmd = super::devices::one_device_spmd(&loaded.module);
    let mut compiled = compile_loaded(loaded, &options)?;
    let exe = &mut compiled.executable;
    exe.seed = args.seed.unwrap_or(0);
    exe.limits = args.limits.run_limits();
    // With a dump, thunks are timed for report.html: over warm runs after the real one, or,
    // with --profile-runs 0, on the real (cold) run itself.
    let profile_runs = args.profile_runs.unwrap_or(DEFAULT_PROFILE_RUNS);
    let cold = args
        .dump_to
        .as_ref()
        .filter(|_| profile_runs == 0)
        .map(|_| crate::runtime::profile::Profiling::start());
    let result = exe
        .execute(&arguments.literals)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
    if let Some(dir) = &args.dump_to {
        let (times, runs, is_cold) = match cold {
            Some(p) => (p.finish(), 1, true),
            None => {
                let p = crate::runtime::profile::Profiling::start();
                for _ in 0..profile_runs {
                    exe.run(&arguments.literals)
                        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
                }
                (p.finish(), profile_runs as usize, false)
            }
        };
        super::outcome::write_measured_report_as(
            dir,
            &compiled,
            &times,
            runs,
            is_cold,
            args.triad_gbs,
        )?;
    }
    print_and_save(&result, args)?;
    if let Some(module) = &reference {
        compare_with_interpreter(&result, module, &arguments.literals, args, &file)?;
    }
    if let Some(expected) = &args.expected {
        compare_with_file(&result, expected, args, &file)?;
    }
    Ok(())
}

/// `--compare-to interpreter`: runs the interpreter on `reference` (the module as loaded),
/// prints the per-leaf report (unless `--quiet`) and fails when a leaf is out of bounds.
fn compare_with_interpreter(
    result: &Literal,
    reference: &crate::ir::Module,
    arguments: &[Literal],
    args: &RunArgs,
    file: &str,
) -> Result<(), Failure> {
    let options = EvalOptions {
        seed: args.seed.unwrap_or(0),
        limits: args.limits.run_limits(),
        ..EvalOptions::default()
    };
    let want = evaluate(reference, arguments, &options)
        .map_err(|e| Failure::error(format!("{file}: interpreter: {e}")))?;
    let tol = Tolerance {
        rtol: args.rtol.unwrap_or(DEFAULT_TOLERANCE.rtol),
        atol: args.atol.unwrap_or(DEFAULT_TOLERANCE.atol),
    };
    let (report, failed) = comparison_report(result, &want, tol)?;
    if !args.quiet {
        print!("{report}");
    }
    if failed == 0 {
        // The verdict is what --compare-to was asked for: it prints even with --quiet.
        println!(
            "compare to interpreter: all {} output(s) ok (rtol {}, atol {})",
            result.leaves().len(),
            tol.rtol,
            tol.atol
        );
    }
    if failed > 0 {
        return Err(Failure::error(format!(
            "{file}: {failed} output(s) differ from the interpreter beyond rtol {} / atol {}",
            tol.rtol, tol.atol
        )));
    }
    Ok(())
}

/// The interpreter backend: optimize (and dump), bind inputs, evaluate, print, save.
/// The interpreter runs the optimized module, as the compiled backend does.
fn execute(loaded: model::LoadedModel, args: &RunArgs) -> Result<(), Failure> {
    let file = loaded.file.clone();
    let original = (args.bisect || args.compare_to.is_some()).then(|| loaded.module.clone());
    let mut options = compile_options(&args.passes, args.dump_to.clone(), args.bisect)?;
    options.spmd = super::devices::one_device_spmd(&loaded.module);
    let optimized = optimize_loaded(loaded, &options)?;
    let module = &optimized.module;

    let params = entry_parameters(module);
    let arguments = bind_inputs(&params, &args.inputs, args.seed, args.quiet)?;
    let options = EvalOptions {
        seed: args.seed.unwrap_or(0),
        limits: args.limits.run_limits(),
        ..EvalOptions::default()
    };
    if let (true, Some(original)) = (args.bisect, &original) {
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
    print_and_save(&result, args)?;
    if let (Some(_), Some(original)) = (args.compare_to, &original) {
        // The optimized module against the module as loaded: checks the pipeline.
        compare_with_interpreter(&result, original, &arguments.literals, args, &file)?;
    }
    if let Some(expected) = &args.expected {
        compare_with_file(&result, expected, args, &file)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

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
            seed: None,
            quiet: true,
            threads: None,
            compare_to: None,
            passes: Default::default(),
            limits: Default::default(),
            bisect: false,
            rtol: None,
            atol: None,
            triad_gbs: None,
            profile_runs: None,
            expected: None,
            devices: Default::default(),
            collectives: None,
            collectives_deadline: None,
            distributed: None,
            check_collective_order: false,
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
    fn comparison_fails_only_where_both_bounds_are_exceeded() {
        let want = Literal::Tuple(vec![
            ArrayLiteral::from_vec(&[3], vec![1.0f32, 100.0, 0.0]).into(),
            ArrayLiteral::from_vec(&[2], vec![1i32, 2]).into(),
        ]);
        // 100 -> 100.05: abs 0.05 > atol but rel 5e-4 < rtol, so within bounds.
        let close = Literal::Tuple(vec![
            ArrayLiteral::from_vec(&[3], vec![1.0005f32, 100.05, 0.0005]).into(),
            ArrayLiteral::from_vec(&[2], vec![1i32, 2]).into(),
        ]);
        let (text, failed) = comparison_report(&close, &want, DEFAULT_TOLERANCE).unwrap();
        assert_eq!(failed, 0, "{text}");
        assert!(text.starts_with("compare to interpreter (rtol 0.001, atol 0.001):\n"));
        assert!(
            text.contains("  output 0 f32[3]: max abs error 5.000e-2, max rel error"),
            "{text}"
        );
        assert!(
            text.contains("  output 1 s32[2]: max abs error 0.000e0, max rel error 0.000e0: ok"),
            "{text}"
        );
        let far = Literal::Tuple(vec![
            ArrayLiteral::from_vec(&[3], vec![1.0f32, 100.0, 0.5]).into(),
            ArrayLiteral::from_vec(&[2], vec![1i32, 3]).into(),
        ]);
        let (text, failed) = comparison_report(&far, &want, DEFAULT_TOLERANCE).unwrap();
        assert_eq!(failed, 2, "{text}");
        assert!(
            text.contains(": MISMATCH (1 of 3 elements differ"),
            "{text}"
        );
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
