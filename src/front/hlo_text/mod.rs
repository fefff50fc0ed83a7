//! HLO text: the parser (what JAX and XLA write, old and new print styles) and the one
//! printer (XLA's current long-text style).
//!
//! - `lexer.rs`: the cursor (whitespace, comments, identifiers, strings, attribute values).
//! - `shapes.rs`: shapes and layouts.
//! - `parser.rs`: module header, stack-frame tables, computations, instructions, operands.
//! - `ops.rs`: which attributes each opcode takes, into the typed [`crate::ir::Op`].
//! - `attributes.rs`: each attribute value syntax, read and written.
//! - `literal.rs` (+ `minifloat.rs`): constants, read and written as XLA does.
//! - `printer.rs`: the printer.
//! - `compare.rs`: structural module equality for tests.
//!
//! XLA: `xla/hlo/parser/hlo_lexer.cc`, `hlo_parser.cc`, `xla/hlo/ir/hlo_instruction.cc` (ToString).

use std::fmt;

use crate::ir::{Literal, Module};

mod attributes;
mod compare;
mod lexer;
mod literal;
pub(crate) mod minifloat;
mod ops;
mod parser;
mod printer;
mod shapes;

pub use compare::{literals_identical, module_diff};

/// A located parse error; prints as `file:line:col: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Whether the input is wrong or xlac lacks what it needs.
    pub kind: crate::ir::ErrorKind,
    /// The file name given to the parser.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // No position (a binary input names its byte offset in the message).
            return write!(f, "{}: {}", self.file, self.message);
        }
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for ParseError {}

crate::ir::impl_unsupported!(ParseError);

/// Something the parser accepted but the user should know (an unknown attribute kept
/// verbatim, an elided constant filled with zeros). Same format as [`ParseError`].
pub type ParseWarning = ParseError;

/// A parsed module and the warnings met on the way.
#[derive(Debug, Clone)]
pub struct ParsedModule {
    /// The module.
    pub module: Module,
    /// Warnings, in text order.
    pub warnings: Vec<ParseWarning>,
}

/// Parses HLO text. `file` names the source in errors.
pub fn parse_module(text: &str, file: &str) -> Result<ParsedModule, ParseError> {
    let (module, warnings) = parser::parse(text, file)?;
    Ok(ParsedModule { module, warnings })
}

/// A shape as HLO text prints it, with its layout: `f32[2,3]{1,0}`.
pub fn shape_with_layout(shape: &crate::ir::Shape) -> String {
    shapes::shape_string(shape, true)
}

/// Prints a module as HLO text in XLA's current long style.
pub fn print_module(module: &Module) -> String {
    printer::print_module(module)
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_module(self))
    }
}

/// Prints like XLA's `Literal::ToString`: `f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}`,
/// scalars as `f32[] 1`, tuples as `(\nelem,\nelem\n)`.
impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        literal::write_literal(&mut s, self, true, false);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests;
