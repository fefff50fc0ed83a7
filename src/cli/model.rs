//! Loading a model file: read it, tell HLO text, StableHLO text and StableHLO portable
//! artifacts (MLIR bytecode, magic `ML\xefR`) apart by content, parse, print
//! warnings, verify. Shared by every subcommand that takes a MODEL.
//! XLA counterpart: `xla/tools/hlo_module_loader.cc`.

use std::path::Path;

use super::Failure;
use crate::front::hlo_text::parse_module;
use crate::front::stablehlo::bytecode;
use crate::ir::{Module, verifier};

/// What a model file holds, decided by its first token (design.md §4: "told apart by
/// content, whatever the extension").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelFormat {
    /// Starts with `HloModule`.
    HloText,
    /// Starts with `module`, `func.func`, an attribute alias `#...`, or `"builtin.module"`.
    StableHlo,
}

/// A parsed and verified module.
pub struct LoadedModel {
    /// The module.
    pub module: Module,
    /// The file name as the user gave it, for messages.
    pub file: String,
    /// The StableHLO text when the model was MLIR (the dump writes it back verbatim), or a
    /// portable artifact printed as text after a header line.
    pub stablehlo: Option<String>,
}

/// Reads, parses and verifies `path`. Parser warnings go to stderr unless `quiet`.
pub fn load(path: &Path, quiet: bool) -> Result<LoadedModel, Failure> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        Failure::error(format!(
            "cannot read {file}: {}",
            crate::io::io_error_text(&e)
        ))
    })?;
    if bytecode::is_bytecode(&bytes) {
        return load_bytecode(&bytes, file, quiet);
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let (line, col) = line_col(valid, valid.len());
            return Err(Failure::error(format!(
                "{file}:{line}:{col}: not a text file (invalid UTF-8); expected HLO text or StableHLO MLIR"
            )));
        }
    };
    let format = match detect_format(&text) {
        Ok(format) => format,
        Err(Unrecognized { offset, found }) => {
            let (line, col) = line_col(text.as_bytes(), offset);
            let what = match found {
                None => "the file is empty".to_string(),
                Some(token) => format!("found '{token}'"),
            };
            return Err(Failure::error(format!(
                "{file}:{line}:{col}: expected HLO text ('HloModule ...') or StableHLO MLIR ('module' or 'func.func'); {what}"
            )));
        }
    };
    let parsed = match format {
        ModelFormat::HloText => parse_module(&text, &file),
        ModelFormat::StableHlo => crate::front::stablehlo::parse_module(&text, &file),
    }
    .map_err(|e| Failure::error(e.to_string()))?;
    let stablehlo = (format == ModelFormat::StableHlo).then_some(text);
    finish(parsed, file, stablehlo, quiet)
}

/// A StableHLO portable artifact (MLIR bytecode): read, converted, and printed as text
/// for the dump.
fn load_bytecode(bytes: &[u8], file: String, quiet: bool) -> Result<LoadedModel, Failure> {
    let ast = bytecode::read(bytes)
        .map_err(|e| Failure::error(bytecode::located(&file, e).to_string()))?;
    let text = bytecode::to_text(bytes, &ast)
        .map_err(|e| Failure::error(bytecode::located(&file, e).to_string()))?;
    let module = bytecode::to_module(&ast, &file).map_err(|e| Failure::error(e.to_string()))?;
    let parsed = crate::front::hlo_text::ParsedModule {
        module,
        warnings: Vec::new(),
    };
    finish(parsed, file, Some(text), quiet)
}

/// Prints warnings and verifies.
fn finish(
    parsed: crate::front::hlo_text::ParsedModule,
    file: String,
    stablehlo: Option<String>,
    quiet: bool,
) -> Result<LoadedModel, Failure> {
    if !quiet {
        for warning in &parsed.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if let Err(errors) = verifier::verify(&parsed.module) {
        let lines = errors
            .iter()
            .map(|e| match (source_position(&parsed.module, e), e.span) {
                // An instruction made from a located StableHLO op: its source line.
                (Some(at), _) => {
                    let e = verifier::VerifyError {
                        span: None,
                        ..e.clone()
                    };
                    format!("{at}: {e}")
                }
                // The error prints as `line:col: ...` when it has a position.
                (None, Some(span)) if span.line > 0 => format!("{file}:{e}"),
                _ => format!("{file}: {e}"),
            })
            .collect::<Vec<_>>();
        let lines = if lines.is_empty() {
            vec![format!("{file}: the verifier rejected the module")]
        } else {
            lines
        };
        return Err(Failure { lines, code: 1 });
    }
    Ok(LoadedModel {
        module: parsed.module,
        file,
        stablehlo,
    })
}

/// `file:line:col` of the instruction an error is about, from its metadata: the
/// innermost stack frame, or `source_file`/`source_line`/`source_column`.
fn source_position(module: &Module, e: &verifier::VerifyError) -> Option<String> {
    let name = e.instruction.as_deref()?;
    let comp = module
        .computations
        .values()
        .find(|c| c.name == e.computation)?;
    let m = comp
        .instrs
        .values()
        .find(|i| i.name == name)?
        .metadata
        .as_ref()?;
    if let (Some(id), Some(index)) = (m.stack_frame_id, &module.stack_frames)
        && let Some((file, l)) = index.chain(id).first()
    {
        return Some(format!("{file}:{}:{}", l.line, l.column));
    }
    let file = m.source_file.as_deref()?;
    Some(format!(
        "{file}:{}:{}",
        m.source_line?,
        m.source_column.unwrap_or(0)
    ))
}

/// Why [`detect_format`] failed: where the first token is, and what it is (`None` when the
/// file holds nothing but whitespace and comments).
#[derive(Debug, PartialEq)]
pub struct Unrecognized {
    /// Byte offset of the first token, or of the end.
    pub offset: usize,
    /// The first token, shortened and escaped for printing.
    pub found: Option<String>,
}

/// Decides the format from the first token after whitespace and `//` / `/* */` comments.
pub fn detect_format(text: &str) -> Result<ModelFormat, Unrecognized> {
    let start = skip_trivia(text);
    let rest = &text[start..];
    let word: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
        .collect();
    match word.as_str() {
        "HloModule" => return Ok(ModelFormat::HloText),
        "module" | "func.func" => return Ok(ModelFormat::StableHlo),
        _ => {}
    }
    if rest.starts_with('#') || rest.starts_with("\"builtin.module\"") {
        return Ok(ModelFormat::StableHlo);
    }
    if rest.is_empty() {
        return Err(Unrecognized {
            offset: start,
            found: None,
        });
    }
    let token: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(20)
        .collect();
    let token = if token.is_empty() {
        rest.chars().take(1).collect()
    } else {
        token
    };
    Err(Unrecognized {
        offset: start,
        found: Some(token.escape_debug().to_string()),
    })
}

/// Byte offset of the first character that is not whitespace, a byte-order mark, or part
/// of a comment.
fn skip_trivia(text: &str) -> usize {
    let mut i = 0;
    let bytes = text.as_bytes();
    loop {
        let rest = &text[i..];
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        i += rest.len() - trimmed.len();
        if trimmed.starts_with("//") {
            i += trimmed.find('\n').unwrap_or(trimmed.len());
        } else if trimmed.starts_with("/*") {
            // An unclosed comment runs to the end of the file.
            i += trimmed.find("*/").map(|e| e + 2).unwrap_or(trimmed.len());
        } else {
            debug_assert!(i <= bytes.len());
            return i;
        }
    }
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|p| p + 1)
        .unwrap_or(0);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_content() {
        assert_eq!(detect_format("HloModule m\n"), Ok(ModelFormat::HloText));
        assert_eq!(
            detect_format("// c\n/* x\n y */  HloModule m"),
            Ok(ModelFormat::HloText)
        );
        assert_eq!(
            detect_format("\u{feff}module @jit_f {"),
            Ok(ModelFormat::StableHlo)
        );
        assert_eq!(
            detect_format("func.func @main() {"),
            Ok(ModelFormat::StableHlo)
        );
        assert_eq!(
            detect_format("#loc = loc(unknown)\nmodule {"),
            Ok(ModelFormat::StableHlo)
        );
        assert_eq!(
            detect_format("  \n// only a comment\n"),
            Err(Unrecognized {
                offset: 21,
                found: None
            })
        );
        assert_eq!(
            detect_format("\n  HloModul m"),
            Err(Unrecognized {
                offset: 3,
                found: Some("HloModul".into())
            })
        );
        assert_eq!(
            detect_format("/* unclosed"),
            Err(Unrecognized {
                offset: 11,
                found: None
            })
        );
    }

    #[test]
    fn positions() {
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col(b"", 0), (1, 1));
        assert_eq!(
            line_col("\u{e9}x".as_bytes(), 2),
            (1, 2),
            "columns count characters"
        );
    }
}
