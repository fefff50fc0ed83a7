//! Reading one dump folder, XLA's (`--xla_dump_to`) or xlac's (`--dump-to`): both name
//! their files `module_NNNN.NAME.SUFFIX`, so one reader serves both. It finds the module's
//! files, parses the before and after HLO with xlac's parser (elided `{...}` constants
//! read as zeros: nothing here runs them), lists the numbered pass files with their
//! instruction counts, and keeps the buffer plan and fusion decisions as text for
//! [`super::buffers`] and [`super::decisions`].

use std::path::{Path, PathBuf};

use super::DiffDumpError;
use super::passes::{PassFile, count_instructions, parse_pass_file_name};
use crate::front::hlo_text::parse_module;
use crate::ir::Module;

/// Files larger than this are refused: a dump file is a module's text, and 256 MiB is far
/// beyond any real one (XLA elides large constants in dumps).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// At most this many files are looked at in one folder.
pub const MAX_FILES: usize = 100_000;

/// One module's dump files, read.
#[derive(Clone, Debug)]
pub struct Dump {
    /// The folder.
    pub dir: PathBuf,
    /// `module_0000.jit_f`: what every file of this module starts with.
    pub prefix: String,
    /// NAME in the file names.
    pub module_name: String,
    /// `*.before_optimizations.txt`, when present.
    pub before: Option<Module>,
    /// The numbered `*.SSSS.PIPELINE.after_PASS[.before_NEXT].txt` files, in order.
    pub passes: Vec<PassFile>,
    /// `*.cpu_after_optimizations.txt`.
    pub after: Module,
    /// `*.cpu_after_optimizations-buffer-assignment.txt`, when present.
    pub buffer_assignment: Option<String>,
    /// `*.fusion-decisions.txt` (xlac's dumps only).
    pub fusion_decisions: Option<String>,
    /// Other modules in the folder (XLA dumps every module a process compiles).
    pub other_modules: Vec<String>,
}

/// Reads the folder `dir`. `module` picks a module by NAME when the folder holds several;
/// otherwise the one with the largest `cpu_after_optimizations.txt` is taken (JAX also
/// compiles small helper modules into the same folder).
pub fn read_dump(dir: &Path, module: Option<&str>) -> Result<Dump, DiffDumpError> {
    let entries = std::fs::read_dir(dir).map_err(|e| DiffDumpError::Io {
        path: dir.display().to_string(),
        message: crate::io::io_error_text(&e),
    })?;
    let mut names = Vec::new();
    for entry in entries.take(MAX_FILES) {
        let Ok(entry) = entry else { continue };
        if let Some(name) = entry.file_name().to_str() {
            names.push(name.to_string());
        }
    }
    names.sort();
    const AFTER: &str = ".cpu_after_optimizations.txt";
    // (prefix, module name, size of the final HLO file)
    let mut modules: Vec<(String, String, u64)> = names
        .iter()
        .filter_map(|n| {
            let stem = n.strip_suffix(AFTER)?;
            let (prefix_id, name) = stem.split_once('.')?;
            let ok = prefix_id.starts_with("module_") && !name.is_empty();
            let size = std::fs::metadata(dir.join(n)).map(|m| m.len()).unwrap_or(0);
            ok.then(|| (stem.to_string(), name.to_string(), size))
        })
        .collect();
    if modules.is_empty() {
        return Err(DiffDumpError::NoModule {
            dir: dir.display().to_string(),
        });
    }
    let chosen = match module {
        Some(want) => modules
            .iter()
            .position(|(_, n, _)| n == want)
            .ok_or_else(|| DiffDumpError::UnknownModule {
                dir: dir.display().to_string(),
                wanted: want.to_string(),
                found: modules.iter().map(|m| m.1.clone()).collect(),
            })?,
        None => {
            let mut best = 0;
            for (i, m) in modules.iter().enumerate() {
                if m.2 > modules[best].2 {
                    best = i;
                }
            }
            best
        }
    };
    let (prefix, module_name, _) = modules.remove(chosen);
    let other_modules = modules.into_iter().map(|m| m.1).collect();
    let file = |suffix: &str| dir.join(format!("{prefix}.{suffix}"));
    let after_path = file("cpu_after_optimizations.txt");
    let after = parse_hlo(&after_path)?;
    let before_path = file("before_optimizations.txt");
    let before = if before_path.exists() {
        Some(parse_hlo(&before_path)?)
    } else {
        None
    };
    let mut passes = Vec::new();
    let start = format!("{prefix}.");
    for n in &names {
        let Some(rest) = n.strip_prefix(&start) else {
            continue;
        };
        let Some(mut pass) = parse_pass_file_name(rest) else {
            continue;
        };
        let text = read_text(&dir.join(n))?;
        pass.counts = count_instructions(&text);
        pass.file = n.clone();
        passes.push(pass);
    }
    passes.sort_by_key(|p| p.number);
    let optional = |suffix: &str| -> Result<Option<String>, DiffDumpError> {
        let p = file(suffix);
        if p.exists() {
            read_text(&p).map(Some)
        } else {
            Ok(None)
        }
    };
    let buffer_assignment = optional("cpu_after_optimizations-buffer-assignment.txt")?;
    let fusion_decisions = optional("fusion-decisions.txt")?;
    Ok(Dump {
        dir: dir.to_path_buf(),
        prefix,
        module_name,
        before,
        passes,
        after,
        buffer_assignment,
        fusion_decisions,
        other_modules,
    })
}

/// Reads a text file of at most [`MAX_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String, DiffDumpError> {
    let io = |e: std::io::Error| DiffDumpError::Io {
        path: path.display().to_string(),
        message: crate::io::io_error_text(&e),
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_FILE_BYTES {
        return Err(DiffDumpError::TooLarge {
            path: path.display().to_string(),
            bytes: size,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    String::from_utf8(bytes).map_err(|_| DiffDumpError::NotText {
        path: path.display().to_string(),
    })
}

fn parse_hlo(path: &Path) -> Result<Module, DiffDumpError> {
    let text = read_text(path)?;
    parse_module(&text, &path.display().to_string())
        .map(|p| p.module)
        .map_err(|e| DiffDumpError::Parse(e.to_string()))
}
