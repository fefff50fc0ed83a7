//! Reading a program a framework hands to Compile: StableHLO as MLIR text or as a portable
//! artifact (MLIR bytecode), or HLO text, told apart by content and the `format` the
//! framework names, then verified, with its size bounded.

use super::*;

/// The largest program accepted, in bytes.
pub const MAX_PROGRAM_BYTES: usize = 1 << 30;

/// The magic of MLIR bytecode (`ML\xefR`).
pub const BYTECODE_MAGIC: &[u8; 4] = b"ML\xefR";

/// A program read and verified.
pub struct Program {
    /// The module as ingested.
    pub module: Module,
    /// The StableHLO text, when the program was MLIR text (the dump keeps it).
    pub stablehlo_text: Option<String>,
}

fn verified(module: Module, file: &str) -> Result<Module> {
    if let Err(errors) = verifier::verify(&module) {
        let first = errors
            .first()
            .map(|e| match e.span {
                Some(span) if span.line > 0 => format!("{file}:{e}"),
                _ => format!("{file}: {e}"),
            })
            .unwrap_or_else(|| format!("{file}: the verifier rejected the module"));
        let more = if errors.len() > 1 {
            format!(" (and {} more)", errors.len() - 1)
        } else {
            String::new()
        };
        return Err(Error::invalid(format!("error: {first}{more}")));
    }
    Ok(module)
}

/// Reads a program of `format` (`mlir` or `hlo`) into a verified module.
pub fn read_program(code: &[u8], format: &str) -> Result<Program> {
    if code.len() > MAX_PROGRAM_BYTES {
        return Err(Error::new(
            Code::ResourceExhausted,
            format!(
                "error: a program of {} bytes; at most {MAX_PROGRAM_BYTES} are accepted",
                code.len()
            ),
        ));
    }
    if format != "mlir" && format != "hlo" {
        return Err(Error::invalid(format!(
            "error: program format '{format}'; xlac reads 'mlir' (StableHLO text or bytecode) and HLO text"
        )));
    }
    if code.starts_with(BYTECODE_MAGIC) {
        return read_bytecode(code);
    }
    let text = std::str::from_utf8(code).map_err(|e| {
        Error::invalid(format!(
            "error: program: not MLIR bytecode and not text (invalid UTF-8 at byte {})",
            e.valid_up_to()
        ))
    })?;
    let first_word: String = skip_comments(text)
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
        .collect();
    match first_word.as_str() {
        "HloModule" => {
            let file = "program.hlo";
            let parsed = xlac::front::hlo_text::parse_module(text, file)
                .map_err(|e| Error::invalid(format!("error: {e}")))?;
            Ok(Program {
                module: verified(parsed.module, file)?,
                stablehlo_text: None,
            })
        }
        "" if skip_comments(text).is_empty() => Err(Error::invalid(
            "error: program: empty; expected StableHLO ('module' or 'func.func') or HLO text ('HloModule')",
        )),
        _ => {
            let file = "program.mlir";
            let parsed = xlac::front::stablehlo::parse_module(text, file)
                .map_err(|e| Error::invalid(format!("error: {e}")))?;
            Ok(Program {
                module: verified(parsed.module, file)?,
                stablehlo_text: Some(text.to_string()),
            })
        }
    }
}

/// `text` after leading whitespace and `//` comments.
fn skip_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        match text.strip_prefix("//") {
            Some(rest) => text = rest.split_once('\n').map_or("", |(_, r)| r),
            None => return text,
        }
    }
}

/// A StableHLO portable artifact (MLIR bytecode of VHLO), what `jax.jit` sends: read into
/// the text parser's op tree, converted and verified. The dump keeps it printed as
/// StableHLO text after a line naming its producer, as `xlac run --dump-to` does.
fn read_bytecode(code: &[u8]) -> Result<Program> {
    use xlac::front::stablehlo::bytecode;
    let file = "program.mlirbc";
    let broken = |e| Error::invalid(format!("error: {}", bytecode::located(file, e)));
    let ast = bytecode::read(code).map_err(broken)?;
    let text = bytecode::to_text(code, &ast).map_err(broken)?;
    let module =
        bytecode::to_module(&ast, file).map_err(|e| Error::invalid(format!("error: {e}")))?;
    Ok(Program {
        module: verified(module, file)?,
        stablehlo_text: Some(text),
    })
}
