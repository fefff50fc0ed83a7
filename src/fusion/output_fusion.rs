//! `kOutput` fusion: a dot and its elementwise epilogue (bias add through a broadcast,
//! relu as `maximum`, a scale, ...) in one fusion, so the epilogue runs over the dot's
//! result right after the GEMM instead of in a separate pass over memory.
//! XLA:CPU does this only for a matrix–vector dot followed by an `add`
//! (`CpuInstructionFusion::ShouldFuse`, "output fusion"); xlac takes any elementwise chain.
//! This file is the rule; the driver (`instruction_fusion.rs`) fuses, `fusion_instruction.rs`
//! edits.
//!
//! # The contract with codegen and the runtime
//!
//! A `kOutput` fusion's fused computation holds exactly one `dot`, whose two operands are
//! fused parameters (nothing is fused *into* the dot), and an elementwise epilogue:
//! - the root holds the dot's elements in the dot's physical order: it has the dot's
//!   element type and element count, and every path from the dot to the root goes
//!   through elementwise instructions (each of its dot-derived operand's exact shape) and
//!   `bitcast`s (same bytes, other dims: the `[B·T, D] -> [B, T, D]` around a
//!   transformer's dots), so the epilogue reads the dot at the physical position it
//!   writes (no transpose, broadcast, slice or reduce of the dot);
//! - the epilogue's other operands may be anything loop-fusible (a broadcast bias, a
//!   scalar constant, another parameter).
//!
//! The runtime computes the dot with its GEMM into the fusion's output buffer, then calls
//! the generated epilogue kernel. The epilogue kernel's buffer table is
//! `[fusion operands..., the dot result, outputs...]`, where "the dot result" is that same
//! output buffer: each element is read before it is overwritten at the same index, so
//! updating in place is safe. Codegen compiles the fused computation with the dot treated
//! as a parameter (the extra buffer after the fusion operands).

use super::indexing::ConsumerBody;
use crate::ir::{InstrId, Instruction, Opcode, PrimitiveType};

/// `Ok` if `dot` (an outer instruction with the distinct `users`) can be fused into
/// `consumer` (whose body is `body`, where `param` stands for the dot) as a kOutput
/// fusion; otherwise the failed condition in words.
pub fn check_dot_epilogue(
    dot: &Instruction,
    users: &[InstrId],
    consumer: InstrId,
    body: &ConsumerBody,
    param: InstrId,
) -> Result<(), &'static str> {
    if users != [consumer] {
        return Err("the dot has other users, so its result must be written to memory anyway");
    }
    let Some(dot_shape) = dot.shape.as_array() else {
        return Err("the dot has a tuple result");
    };
    if !matches!(
        dot_shape.element_type,
        PrimitiveType::F32 | PrimitiveType::F64
    ) {
        return Err("the GEMM epilogue is built for f32 and f64 dots only");
    }
    let fused = &body.body;
    if body.summary.has_dot() {
        return Err("the consumer already holds a dot");
    }
    if body.summary.has_reduce() {
        return Err("the epilogue holds a reduction");
    }
    let root = fused.root_instr().shape.as_array();
    if !root.is_some_and(|r| {
        r.element_type == dot_shape.element_type && r.element_count() == dot_shape.element_count()
    }) {
        return Err("the epilogue's result differs from the dot's type or element count");
    }
    // Every instruction reached from the dot must be elementwise over the shape it reads
    // the dot in, or a bitcast of it.
    let mut stack = vec![param];
    let mut seen = Vec::new();
    while let Some(v) = stack.pop() {
        if seen.contains(&v) {
            continue;
        }
        seen.push(v);
        let from = &fused.instr(v).shape;
        for &u in body.users_of(v) {
            let instr = fused.instr(u);
            let bitcast = instr.opcode() == Opcode::Bitcast
                && instr.shape.element_type() == from.element_type();
            let elementwise = instr.opcode().is_elementwise()
                && instr
                    .shape
                    .as_array()
                    .zip(from.as_array())
                    .is_some_and(|(a, f)| {
                        a.dims == f.dims && a.layout.minor_to_major == f.layout.minor_to_major
                    });
            if !bitcast && !elementwise {
                return Err(
                    "the epilogue reads the dot through a non-elementwise op (not at the output index)",
                );
            }
            stack.push(u);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
