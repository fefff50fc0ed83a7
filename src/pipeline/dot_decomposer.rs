//! `dot_decomposer`: puts every dot into the canonical form the CPU dot emitter handles:
//! batch dimensions first (`0..n` on both sides), then at most one non-contracting and
//! exactly one contracting dimension per operand:
//! `lhs [batch..., M, K] x rhs [batch..., K, N] -> [batch..., M, N]`.
//! XLA: `xla/hlo/transforms/expanders/dot_decomposer.cc`.
//!
//! A non-canonical dot's operands are transposed (batch dims first; for the lhs then its
//! free dims, then its contracting dims; for the rhs contracting before free) and reshaped
//! so that the free dims and the contracting dims each become one dimension (a size-1
//! free dim is dropped). The new dot's result `[batch..., M, N]` is reshaped to the
//! original result shape: the original result lists batch dims, lhs free dims, rhs free
//! dims in that order, so a reshape is all it takes.
//!
//! Canonical, and left alone: exactly one contracting dimension, batch dimensions
//! `0..n`, at most two other dimensions, in any order (`[K, M]` lhs is canonical too).
//!
//! Results stay bit-equal: the interpreter sums the contracting indices in row-major order
//! of the listed contracting dimensions, and the transpose puts them in that listed order
//! before the reshape merges them, so the one merged index runs through the same products
//! in the same order. A dot without contracting dims (an outer product) gets a size-1
//! contracting dim: `0 + a*b` is what the interpreter computes for it anyway.

use super::{Pass, PassError};
use crate::ir::{
    ArrayShape, Computation, DotDimensionNumbers, InstrId, Instruction, Module, Op, Opcode, Shape,
};

/// Canonicalizes dots (see the module doc).
pub struct DotDecomposer;

impl Pass for DotDecomposer {
    fn name(&self) -> &'static str {
        "dot_decomposer"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            let comp = &mut module.computations[c];
            let dots: Vec<InstrId> = comp
                .iter()
                .filter(|(_, instr)| is_non_canonical_dot(comp, instr))
                .map(|(id, _)| id)
                .collect();
            for id in dots {
                canonicalize_dot(comp, id)?;
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// True for a dot whose lhs or rhs is not canonical.
fn is_non_canonical_dot(comp: &Computation, instr: &Instruction) -> bool {
    let Op::Dot {
        dimension_numbers: d,
        ..
    } = &instr.op
    else {
        return false;
    };
    let rank = |i: usize| comp.instrs[instr.operands[i]].shape.rank();
    !is_canonical(
        rank(0),
        &d.lhs_contracting_dimensions,
        &d.lhs_batch_dimensions,
    ) || !is_canonical(
        rank(1),
        &d.rhs_contracting_dimensions,
        &d.rhs_batch_dimensions,
    )
}

/// One contracting dimension, batch dimensions `0..n`, at most one other dimension.
fn is_canonical(rank: usize, contracting: &[usize], batch: &[usize]) -> bool {
    contracting.len() == 1
        && batch.len() + 2 >= rank
        && batch.iter().enumerate().all(|(i, &d)| i == d)
}

/// Replaces dot `id` with transposes, reshapes, a canonical dot and a reshape back.
fn canonicalize_dot(comp: &mut Computation, id: InstrId) -> Result<(), PassError> {
    let dot = comp.instrs[id].clone();
    let Op::Dot {
        dimension_numbers: d,
        precision,
        algorithm,
    } = &dot.op
    else {
        return Err(PassError::new("not a dot"));
    };
    let (lhs, rhs) = (dot.operands[0], dot.operands[1]);
    let (new_lhs, lhs_contracting) = canonicalize_operand(
        comp,
        id,
        lhs,
        &d.lhs_batch_dimensions,
        &d.lhs_contracting_dimensions,
        true,
    )?;
    let (new_rhs, rhs_contracting) = canonicalize_operand(
        comp,
        id,
        rhs,
        &d.rhs_batch_dimensions,
        &d.rhs_contracting_dimensions,
        false,
    )?;
    let batch: Vec<usize> = (0..d.lhs_batch_dimensions.len()).collect();
    let dims = |x: InstrId| comp.instrs[x].shape.dims().to_vec();
    let (ld, rd) = (dims(new_lhs), dims(new_rhs));
    // Result: batch dims, then the lhs free dim (if kept), then the rhs free dim.
    let mut out_dims: Vec<i64> = ld[..batch.len()].to_vec();
    out_dims.extend(
        (batch.len()..ld.len())
            .filter(|&i| i != lhs_contracting)
            .map(|i| ld[i]),
    );
    out_dims.extend(
        (batch.len()..rd.len())
            .filter(|&i| i != rhs_contracting)
            .map(|i| rd[i]),
    );
    let element_type = dot
        .shape
        .element_type()
        .ok_or_else(|| PassError::new(format!("{}: dot result is not an array", dot.name)))?;
    let mut new_dot = Instruction::new(
        dot.name.clone(),
        Shape::Array(ArrayShape::new(element_type, &out_dims)),
        Op::Dot {
            dimension_numbers: DotDimensionNumbers {
                lhs_batch_dimensions: batch.clone(),
                rhs_batch_dimensions: batch,
                lhs_contracting_dimensions: vec![lhs_contracting],
                rhs_contracting_dimensions: vec![rhs_contracting],
            },
            precision: precision.clone(),
            algorithm: algorithm.clone(),
        },
        vec![new_lhs, new_rhs],
    );
    // XLA's SetupDerivedInstruction: the new dot keeps the metadata.
    new_dot.metadata = dot.metadata.clone();
    new_dot.raw_attributes = dot.raw_attributes.clone();
    // The original keeps its name on the reshape that replaces it; the dot gets a new one.
    new_dot.name = "dot".to_string();
    let new_dot = comp.insert_before(id, new_dot);
    let mut reshape = Instruction::new(
        dot.name.clone(),
        dot.shape.clone(),
        Op::Plain(Opcode::Reshape),
        vec![new_dot],
    );
    reshape.metadata = dot.metadata.clone();
    // Replace in place so that the name and position stay those of the original dot.
    comp.instrs[id] = reshape;
    Ok(())
}

/// Transposes and reshapes one operand into `[batch..., free, contracting]` (lhs,
/// `contracting_last`) or `[batch..., contracting, free]` (rhs); a free size of 1 is
/// dropped. Returns the new operand and its contracting dimension.
fn canonicalize_operand(
    comp: &mut Computation,
    dot: InstrId,
    operand: InstrId,
    batch: &[usize],
    contracting: &[usize],
    contracting_last: bool,
) -> Result<(InstrId, usize), PassError> {
    let shape = comp.instrs[operand]
        .shape
        .as_array()
        .ok_or_else(|| PassError::new("dot operand is not an array"))?
        .clone();
    let free: Vec<usize> = (0..shape.rank())
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect();
    let size = |dims: &[usize]| -> i64 { dims.iter().map(|&d| shape.dims[d]).product() };
    let (free_size, contracting_size) = (size(&free), size(contracting));

    let mut permutation: Vec<usize> = batch.to_vec();
    if contracting_last {
        permutation.extend(&free);
        permutation.extend(contracting);
    } else {
        permutation.extend(contracting);
        permutation.extend(&free);
    }
    let transposed_dims: Vec<i64> = permutation.iter().map(|&d| shape.dims[d]).collect();
    let transpose = comp.insert_before(
        dot,
        Instruction::new(
            "transpose",
            Shape::Array(ArrayShape::new(shape.element_type, &transposed_dims)),
            Op::Transpose {
                dimensions: permutation,
            },
            vec![operand],
        ),
    );

    let mut dims: Vec<i64> = batch.iter().map(|&d| shape.dims[d]).collect();
    let contracting_dim;
    if contracting_last {
        if free_size != 1 {
            dims.push(free_size);
        }
        contracting_dim = dims.len();
        dims.push(contracting_size);
    } else {
        contracting_dim = dims.len();
        dims.push(contracting_size);
        if free_size != 1 {
            dims.push(free_size);
        }
    }
    let reshape = comp.insert_before(
        dot,
        Instruction::new(
            "reshape",
            Shape::Array(ArrayShape::new(shape.element_type, &dims)),
            Op::Plain(Opcode::Reshape),
            vec![transpose],
        ),
    );
    Ok((reshape, contracting_dim))
}

#[cfg(test)]
mod tests;
