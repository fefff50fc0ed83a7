//! The dump folder of `--dump-to DIR` (design.md §5), as far as `xlac run` fills it today:
//! the module as ingested (`module_0000.NAME.before_optimizations.txt`) and `index.txt`.
//! When the compiler pipeline exists, its dump writer takes over and this file shrinks to
//! a call. File names follow XLA's `xla/service/dump.cc` (`FilenameFor`).

use std::path::Path;

use super::Failure;
use crate::ir::Module;

/// XLA's `SanitizeFileName` (`xla/util.cc`): `/ \ [ ]` and spaces become `_`.
pub fn sanitize_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '[' | ']' | ' ') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The file name `module_NNNN.NAME.SUFFIX`; the name part is dropped when the result would
/// exceed 255 characters, as XLA does.
pub fn dump_file_name(module_id: usize, module_name: &str, suffix: &str) -> String {
    let with_name = format!(
        "module_{module_id:04}.{}.{suffix}",
        sanitize_file_name(module_name)
    );
    if with_name.len() <= 255 {
        with_name
    } else {
        format!("module_{module_id:04}.{suffix}")
    }
}

/// Writes `before_optimizations.txt` and `index.txt` into `dir` (created if missing), and
/// for StableHLO input the input text verbatim as `NAME.stablehlo.mlir` (the name XLA's
/// `DumpHloModuleIfEnabled` / pjrt's `mlir_module` dump uses for the module JAX hands it).
pub fn write_before_optimizations(
    dir: &Path,
    module: &Module,
    stablehlo: Option<&str>,
) -> Result<(), Failure> {
    let io = |what: &Path, e: std::io::Error| {
        Failure::error(format!(
            "cannot write {}: {}",
            what.display(),
            crate::io::io_error_text(&e)
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut index_text = String::new();
    if let Some(text) = stablehlo {
        let name = dump_file_name(0, &module.name, "stablehlo.mlir");
        let path = dir.join(&name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
        index_text.push_str(&format!("{name}\tStableHLO as given\n"));
    }
    let name = dump_file_name(0, &module.name, "before_optimizations.txt");
    let path = dir.join(&name);
    std::fs::write(&path, module.to_string()).map_err(|e| io(&path, e))?;
    index_text.push_str(&format!("{name}\tHLO as ingested\n"));
    let index = dir.join("index.txt");
    std::fs::write(&index, index_text).map_err(|e| io(&index, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_xla() {
        assert_eq!(
            dump_file_name(0, "jit_f", "before_optimizations.txt"),
            "module_0000.jit_f.before_optimizations.txt"
        );
        assert_eq!(sanitize_file_name("a/b\\c[d] e"), "a_b_c_d__e");
        let long = "x".repeat(300);
        assert_eq!(dump_file_name(3, &long, "txt"), "module_0003.txt");
    }
}
