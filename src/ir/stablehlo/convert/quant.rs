//! Ops on quantized types (`!quant.uniform`).
//! Not lowered yet: conversion fails with an error naming the op and the type.

use super::Converter;
use crate::ir::InstrId;
use crate::ir::hlo_text::ParseError;
use crate::ir::stablehlo::ast::Operation;

impl<'a> Converter<'a> {
    /// Converts an op with a quantized operand or result.
    pub(crate) fn convert_quantized(
        &mut self,
        op: &'a Operation,
    ) -> Result<Vec<InstrId>, ParseError> {
        let ty = op
            .operand_types
            .iter()
            .chain(&op.result_types)
            .find(|t| t.quant().is_some())
            .map(|t| t.to_string())
            .unwrap_or_default();
        Err(self.err(
            op.loc,
            format!("'{}' on quantized type {ty} is not supported yet", op.name),
        ))
    }
}
