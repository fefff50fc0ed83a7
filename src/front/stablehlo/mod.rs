//! StableHLO ingestion: MLIR text (as JAX prints it and as the StableHLO test corpus writes
//! it) parsed and converted to the HLO IR.
//!
//! - `lexer.rs`: the character cursor and positions (with a line offset for file chunks).
//! - `types.rs`, `attributes.rs`, `dense.rs`: types, attribute values, `dense<...>` literals.
//! - `ast.rs`, `parser.rs`, `pretty.rs`: the file structure and ops (generic and pretty forms).
//! - `location.rs`: source locations (`loc(...)`), the same from text and bytecode.
//! - `convert/`: the conversion to HLO; `chlo/`: CHLO decompositions.
//! - `bytecode/`: portable artifacts (MLIR bytecode of VHLO) read into the same AST.
//!
//! What it is not: a general MLIR parser. Only what StableHLO programs use is read; dynamic
//! shapes are rejected. XLA: `xla/hlo/translate/stablehlo_to_hlo/`, `mhlo_to_hlo/`.

pub mod ast;
pub mod attributes;
pub mod bytecode;
pub mod chlo;
mod convert;
pub mod dense;
pub mod lexer;
pub mod location;
mod parser;
mod pretty;
pub mod printer;
pub mod types;

use crate::front::hlo_text::{ParseError, ParsedModule};
use crate::ir::Module;

pub use ast::MlirModule;

/// Parses MLIR text into its AST. Line numbers in errors are shifted by `line_offset`
/// (give the number of lines before the chunk when parsing one `// -----` chunk).
pub fn parse_mlir(text: &str, file: &str, line_offset: u32) -> Result<MlirModule, ParseError> {
    let mut c = lexer::Cursor::new(text, file, line_offset);
    let module = parser::parse_module_ast(&mut c)?;
    if !c.locations.missing {
        return Ok(module);
    }
    // A location used an alias defined further down (JAX puts them after the module):
    // read again, every alias known.
    let aliases = std::mem::take(&mut c.locations).completed();
    let mut c = lexer::Cursor::new(text, file, line_offset);
    c.locations = aliases;
    parser::parse_module_ast(&mut c)
}

/// The entry function by the corpus rules: `@main` if present, else the only function.
pub fn entry_function_name(ast: &MlirModule) -> Option<&str> {
    if ast.functions.iter().any(|f| f.name == "main") {
        return Some("main");
    }
    match ast.functions.as_slice() {
        [only] => Some(&only.name),
        _ => None,
    }
}

/// Converts a parsed module to HLO with `entry` (a function name without `@`) as the
/// entry computation. `file` names the source in errors.
pub fn convert_function(ast: &MlirModule, entry: &str, file: &str) -> Result<Module, ParseError> {
    convert::convert_module(ast, entry, file)
}

/// Parses and converts one `// -----` chunk (or a whole file) whose first line is line
/// `line_offset + 1` of `file`; the entry is chosen by [`entry_function_name`].
pub fn parse_chunk(text: &str, file: &str, line_offset: u32) -> Result<Module, ParseError> {
    let ast = parse_mlir(text, file, line_offset)?;
    let Some(entry) = entry_function_name(&ast) else {
        return Err(ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: file.into(),
            line: ast.loc.line,
            col: ast.loc.col,
            message: format!(
                "cannot choose the entry function: there is no @main and {} functions",
                ast.functions.len()
            ),
        });
    };
    let entry = entry.to_string();
    convert_function(&ast, &entry, file)
}

/// Parses and converts a StableHLO file, like [`crate::front::hlo_text::parse_module`] does
/// for HLO text. The entry is `@main` (or the only function).
pub fn parse_module(text: &str, file: &str) -> Result<ParsedModule, ParseError> {
    let module = parse_chunk(text, file, 0)?;
    Ok(ParsedModule {
        module,
        warnings: Vec::new(),
    })
}
