//! `xlac diff-dump XLA_DUMP_DIR [--against MODEL | XLAC_DUMP_DIR] [--dump-to DIR]
//! [--measure]`: reads the folder XLA wrote with `--xla_dump_to`, compiles the same module
//! with xlac (XLA's `before_optimizations.txt` unless `--against` names a model, or reads
//! xlac's dump when `--against` names a folder), and prints the two side by side. With a
//! dump folder of xlac's (`--dump-to`, or `--against DIR`) the report also goes to
//! `DIR/diff-dump.txt` and into `DIR/report.html` as a section. The work is in
//! [`crate::diff_dump`]; this file loads, compiles, runs and prints.

use std::path::{Path, PathBuf};

use super::{DiffDumpArgs, Failure, model};
use crate::diff_dump::{self, DiffDumpError, read_dump, render};
use crate::runtime::profile::Profiling;

/// Warm runs timed by `--measure` when `--iters` is not given.
pub const DEFAULT_MEASURE_ITERS: u64 = 10;

/// Runs `xlac diff-dump`.
pub fn diff_dump(args: &DiffDumpArgs) -> Result<(), Failure> {
    let err = |e: DiffDumpError| Failure::error(e.to_string());
    let xla = read_dump(&args.xla_dump, args.module.as_deref()).map_err(err)?;
    let against_dir = args.against.as_ref().filter(|p| p.is_dir());
    if against_dir.is_some() && (args.measure || args.dump_to.is_some()) {
        return Err(Failure::usage(
            "--measure and --dump-to compile the model; with --against DIR xlac's dump is only read",
        ));
    }
    let mut temporary = None;
    let (xlac_dir, times) = match against_dir {
        Some(dir) => (dir.clone(), None),
        None => {
            let model_path = match &args.against {
                Some(m) => m.clone(),
                None => {
                    let p = xla
                        .dir
                        .join(format!("{}.before_optimizations.txt", xla.prefix));
                    if !p.exists() {
                        return Err(Failure::error(format!(
                            "{} has no {}.before_optimizations.txt to compile; name the model with --against",
                            xla.dir.display(),
                            xla.prefix
                        )));
                    }
                    p
                }
            };
            let dir = match &args.dump_to {
                Some(d) => d.clone(),
                None => {
                    let d =
                        std::env::temp_dir().join(format!("xlac-diff-dump-{}", std::process::id()));
                    temporary = Some(d.clone());
                    d
                }
            };
            let times = compile_into(&model_path, &dir, args);
            if times.is_err()
                && let Some(t) = &temporary
            {
                let _ = std::fs::remove_dir_all(t);
            }
            (dir, times?)
        }
    };
    let result = (|| {
        let xlac = read_dump(&xlac_dir, None).map_err(err)?;
        let mut d = diff_dump::diff(&xla, &xlac).map_err(err)?;
        d.times = times;
        let text = render::text(&d);
        print!("{text}");
        if temporary.is_none() {
            write_into_dump(&xlac_dir, &text, &render::html_section(&d))?;
        }
        Ok(())
    })();
    if let Some(t) = &temporary {
        let _ = std::fs::remove_dir_all(t);
    }
    result
}

/// Compiles `model` into the dump folder `dir`; with `--measure`, runs it warm and returns
/// each thunk's mean time and the number of runs.
#[allow(clippy::type_complexity)]
fn compile_into(
    model_path: &Path,
    dir: &Path,
    args: &DiffDumpArgs,
) -> Result<Option<(std::collections::HashMap<String, f64>, usize)>, Failure> {
    let loaded = model::load(model_path, true)?;
    let file = loaded.file.clone();
    let params = crate::io::arguments::entry_parameters(&loaded.module);
    let arguments = if args.measure {
        Some(super::prepare::bind_inputs(
            &params,
            &args.inputs,
            None,
            true,
        )?)
    } else {
        None
    };
    let options = super::prepare::compile_options(&args.passes, Some(dir.to_path_buf()), false)?;
    let mut compiled = super::prepare::compile_loaded(loaded, &options)?;
    let Some(arguments) = arguments else {
        return Ok(None);
    };
    let iters = args.iters.unwrap_or(DEFAULT_MEASURE_ITERS).max(1);
    let exe = &mut compiled.executable;
    let run = |exe: &mut crate::runtime::Executable| {
        exe.run(&arguments.literals)
            .map_err(|e| Failure::error(format!("{file}: {e}")))
    };
    // One untimed run pages everything in; the timed ones are warm.
    run(exe)?;
    let profiling = Profiling::start();
    for _ in 0..iters {
        run(exe)?;
    }
    let times = profiling.finish();
    super::outcome::write_measured_report(dir, &compiled, &times, iters as usize, None)?;
    Ok(Some((times.mean_ms(iters as usize), iters as usize)))
}

/// `DIR/diff-dump.txt`, the section in `DIR/report.html`, and a line in `DIR/index.txt`.
fn write_into_dump(dir: &Path, text: &str, section: &str) -> Result<(), Failure> {
    let write = |p: PathBuf, t: &str| {
        std::fs::write(&p, t).map_err(|e| {
            Failure::error(format!(
                "cannot write {}: {}",
                p.display(),
                crate::io::io_error_text(&e)
            ))
        })
    };
    write(dir.join("diff-dump.txt"), text)?;
    let report = dir.join("report.html");
    if let Ok(page) = std::fs::read_to_string(&report) {
        write(report, &render::insert_into_report(&page, section))?;
    }
    let index = dir.join("index.txt");
    if let Ok(mut lines) = std::fs::read_to_string(&index)
        && !lines.contains("diff-dump.txt\t")
    {
        lines.push_str("diff-dump.txt\txlac beside XLA's own dump (xlac diff-dump)\n");
        write(index, &lines)?;
    }
    Ok(())
}
