//! StableHLO portable artifacts: MLIR bytecode (version 6) of the VHLO dialect, what
//! `jax.jit` hands a PJRT plugin and what `jax.export` serializes. The reader produces the
//! same generic op tree as the text parser ([`MlirModule`]), so one conversion to HLO
//! serves both.
//!
//! Entry points:
//! - [`read`]`(bytes) -> Result<MlirModule, BytecodeError>`: the op tree (StableHLO names
//!   and attributes, VHLO versions and defaults resolved).
//! - [`parse_module`]`(bytes, file) -> Result<ParsedModule, ParseError>`: bytes to
//!   [`crate::ir::Module`] (entry `@main` or the only function), like
//!   [`crate::front::stablehlo::parse_module`] for text.
//! - [`is_bytecode`], [`header`]: the magic check and the producer/version line.
//! - [`to_text`]: the artifact as StableHLO text (what `xlac convert --to mlir` prints).
//!
//! Layers, one file each: `encoding.rs` (varints, header, sections), `tables.rs`
//! (strings, dialects, op names), `attr_table.rs` (the lazy attribute/type table),
//! `builtin.rs`, `vhlo.rs` and `sdy.rs` (the dialects' encodings), `ir.rs` (ops, regions,
//! value numbering, properties), `ops.rs` (the VHLO op table), `legalize.rs` (VHLO to
//! StableHLO attributes). Errors name the byte offset and what was expected there.
//! Limits: only bytecode version 6 (targets 1.0.0 and later); no resources
//! (`dense_resource`), no dynamic shapes, no dialect other than builtin, VHLO and Shardy
//! (`sdy`, which mixed serialization keeps in its own encoding) in binary encoding
//! (others only in textual form).
//! MLIR: `mlir/lib/Bytecode/Reader/BytecodeReader.cpp`; StableHLO:
//! `stablehlo/dialect/VhloBytecode.cpp`, `stablehlo/transforms/VhloLegalizeToStablehlo.cpp`.

mod attr_table;
mod builtin;
mod encoding;
mod ir;
mod legalize;
mod ops;
mod sdy;
mod tables;
mod vhlo;

pub use encoding::{BytecodeError, MAGIC};

use super::ast::MlirModule;
use crate::front::hlo_text::{ParseError, ParsedModule};
use crate::ir::Module;

/// Input larger than this is refused (a whole artifact is held in memory).
pub const MAX_INPUT_BYTES: usize = 1 << 32;

/// True if `bytes` start with MLIR bytecode's magic `ML\xefR`.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The artifact's producer and bytecode version, as one line
/// (`producer StableHLO_v1.17.0, MLIR bytecode version 6`).
pub fn header(bytes: &[u8]) -> Result<String, BytecodeError> {
    let f = encoding::read_file(bytes)?;
    Ok(format!(
        "producer {}, MLIR bytecode version {}",
        f.producer, f.version
    ))
}

/// Reads a StableHLO portable artifact into the op tree the text parser builds.
pub fn read(bytes: &[u8]) -> Result<MlirModule, BytecodeError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(BytecodeError {
            kind: crate::ir::ErrorKind::Invalid,
            offset: 0,
            message: format!("the file is larger than {MAX_INPUT_BYTES} bytes"),
        });
    }
    let f = encoding::read_file(bytes)?;
    let [
        string,
        dialect,
        attr_type,
        attr_type_offset,
        ir_section,
        _,
        _,
        _,
        props,
    ] = f.sections;
    let (
        Some(string),
        Some(dialect),
        Some(attr_type),
        Some(attr_type_offset),
        Some(ir_section),
        Some(props),
    ) = (
        string,
        dialect,
        attr_type,
        attr_type_offset,
        ir_section,
        props,
    )
    else {
        unreachable!("read_file checks the required sections");
    };
    let strings = tables::Strings::read(string)?;
    let dialects = tables::Dialects::read(dialect, &strings)?;
    let mut t = attr_table::Tables::new(strings, dialects, attr_type, attr_type_offset)?;
    let top = {
        let mut r = ir::IrReader::new(&mut t, props)?;
        r.read_top(ir_section)?
    };
    legalize::module(&top)
}

/// Reads an artifact and converts it to HLO, like [`super::parse_module`] does for text.
/// `file` names the input in errors (`file: byte N: ...` for bytecode errors).
pub fn parse_module(bytes: &[u8], file: &str) -> Result<ParsedModule, ParseError> {
    let ast = read(bytes).map_err(|e| located(file, e))?;
    Ok(ParsedModule {
        module: to_module(&ast, file)?,
        warnings: Vec::new(),
    })
}

/// A bytecode error as a [`ParseError`] (no line: it prints as `file: byte N: ...`).
pub fn located(file: &str, e: BytecodeError) -> ParseError {
    ParseError {
        kind: e.kind,
        file: file.into(),
        line: 0,
        col: 0,
        message: e.to_string(),
    }
}

/// Converts a read artifact to HLO (entry `@main`, or the only function).
pub fn to_module(ast: &MlirModule, file: &str) -> Result<Module, ParseError> {
    let Some(entry) = super::entry_function_name(ast).map(str::to_string) else {
        return Err(ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: file.into(),
            line: 0,
            col: 0,
            message: format!(
                "cannot choose the entry function: there is no @main and {} functions",
                ast.functions.len()
            ),
        });
    };
    super::convert_function(ast, &entry, file)
}

/// The artifact as StableHLO text, after a first line naming the producer and the
/// bytecode version (`// StableHLO portable artifact: producer ..., MLIR bytecode version 6`).
pub fn to_text(bytes: &[u8], ast: &MlirModule) -> Result<String, BytecodeError> {
    Ok(format!(
        "{TEXT_HEADER}{}\n{}",
        header(bytes)?,
        super::printer::print_module(ast)
    ))
}

/// How [`to_text`] starts.
pub const TEXT_HEADER: &str = "// StableHLO portable artifact: ";

#[cfg(test)]
mod tests;
