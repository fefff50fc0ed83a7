//! `xlac run MODEL`: load, bind inputs, evaluate, print and save the result.
//! XLA counterpart: `xla/tools/run_hlo_module.cc` (`RunAndCompare`), without the reference run.

use std::io::Write;
use std::path::PathBuf;

use super::{Backend, Failure, RunArgs, dump, model};
use crate::eval::{EvalOptions, evaluate};
use crate::io::arguments::{bind_arguments, entry_parameters};
use crate::io::npz::{NamedArray, read_arrays, write_npz};

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
    let module = &loaded.module;
    if let Some(dir) = &args.dump_to {
        dump::write_before_optimizations(dir, module)?;
    }

    let params = entry_parameters(module);
    let inputs = read_inputs(&args.inputs)?;
    let given = inputs.len();
    let arguments = bind_arguments(&params, inputs, args.seed)?;
    if given > 0 && !arguments.randomized.is_empty() && !args.quiet {
        let names: Vec<String> =
            arguments.randomized.iter().map(|&n| format!("{n} ({})", params[n].name)).collect();
        eprintln!(
            "warning: {} input(s) for {} parameters; parameter(s) {} get random values from --seed {}",
            given,
            params.len(),
            names.join(", "),
            args.seed
        );
    }

    let options = EvalOptions { seed: args.seed };
    let result = evaluate(module, &arguments.literals, &options)
        .map_err(|e| Failure::error(format!("{}: {e}", loaded.file)))?;

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
