//! The native library routines an instruction may run as instead of its reference
//! implementation: sort, scatter and select-and-scatter (their computations compiled),
//! `TopK`, the LAPACK custom calls, integer and complex dots and convolutions, `fft`, and
//! elementwise ops over complex numbers. Apart from the walk because each is a table of
//! when a routine applies and how its buffers are passed.

use crate::ir::{ComputationId, InstrId, Op, PrimitiveType, Shape};

use super::{ThunkEmitter, loop_buffers};
use crate::runtime::RuntimeError;
use crate::runtime::library::LibraryThunk;
use crate::runtime::library::complex_elementwise::{self, ComplexElementwiseThunk};
use crate::runtime::library::fft::FftThunk;
use crate::runtime::library::lapack::LapackThunk;
use crate::runtime::library::loop_convolution::{self, LoopConvolutionThunk};
use crate::runtime::library::loop_dot::{self, LoopDotThunk};
use crate::runtime::library::scatter::ScatterThunk;
use crate::runtime::library::select_and_scatter::SelectAndScatterThunk;
use crate::runtime::library::sort::SortThunk;
use crate::runtime::library::top_k::TopKThunk;

impl ThunkEmitter<'_> {
    /// The native library routine for `id`, when there is one: sort, scatter and
    /// select-and-scatter whose computations were compiled (`KernelSet::scalar_function`),
    /// and the real LAPACK custom calls. `None` leaves the op to the reference path.
    pub(super) fn library(
        &self,
        comp: ComputationId,
        id: InstrId,
    ) -> Result<Option<LibraryThunk>, RuntimeError> {
        let c = &self.module.computations[comp];
        let instr = &c.instrs[id];
        let compiled = |f: ComputationId| {
            self.kernels
                .scalar_function(f)
                .map(|s| (s.entry, self.module.computations[f].name.clone()))
        };
        let mut operands = Vec::new();
        for &o in &instr.operands {
            if !matches!(c.instrs[o].shape, Shape::Array(_)) {
                return Ok(None);
            }
            operands.push(self.array_leaf(comp, o)?);
        }
        Ok(Some(match &instr.op {
            Op::Sort {
                dimension,
                is_stable,
                to_apply,
            } => {
                let Some((comparator, comparator_name)) = compiled(*to_apply) else {
                    return Ok(None);
                };
                LibraryThunk::Sort(SortThunk {
                    name: instr.name.clone(),
                    dimension: *dimension,
                    is_stable: *is_stable,
                    comparator,
                    comparator_name,
                    operands,
                    results: self.leaves(comp, id)?,
                })
            }
            Op::Scatter {
                dimension_numbers,
                to_apply,
                ..
            } => {
                let Some((combiner, combiner_name)) = compiled(*to_apply) else {
                    return Ok(None);
                };
                let n = operands.len() / 2;
                if operands.len() != 2 * n + 1 || n == 0 {
                    return Err(self.error(
                        comp,
                        id,
                        "scatter takes N operands, indices, N updates",
                    ));
                }
                let results = self.leaves(comp, id)?;
                let in_place = operands[..n]
                    .iter()
                    .zip(&results)
                    .all(|(o, r)| o.slice == r.slice && o.shape.layout == r.shape.layout);
                LibraryThunk::Scatter(ScatterThunk {
                    name: instr.name.clone(),
                    dimension_numbers: dimension_numbers.clone(),
                    combiner,
                    combiner_name,
                    indices: operands[n].clone(),
                    updates: operands[n + 1..].to_vec(),
                    operands: operands[..n].to_vec(),
                    results,
                    in_place,
                })
            }
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => {
                let (Some((select_fn, select_name)), Some((scatter_fn, scatter_name))) =
                    (compiled(*select), compiled(*scatter))
                else {
                    return Ok(None);
                };
                let [operand, source, init] = operands.as_slice() else {
                    return Err(self.error(comp, id, "select-and-scatter takes 3 operands"));
                };
                LibraryThunk::SelectAndScatter(SelectAndScatterThunk {
                    name: instr.name.clone(),
                    window: window.clone(),
                    select: select_fn,
                    select_name,
                    scatter: scatter_fn,
                    scatter_name,
                    operand: operand.clone(),
                    source: source.clone(),
                    init: init.clone(),
                    result: self.array_leaf(comp, id)?,
                })
            }
            Op::CustomCall(cc) => {
                let results = self.leaves(comp, id)?;
                let lapack = LapackThunk::new(instr, cc, &operands, &results)
                    .map_err(|m| self.error(comp, id, &m))?;
                let top_k = TopKThunk::new(self.module, &instr.name, cc, &operands, &results)
                    .map_err(|m| self.error(comp, id, &m))?;
                match (lapack, top_k) {
                    (Some(t), _) => LibraryThunk::Lapack(t),
                    (None, Some(t)) => LibraryThunk::TopK(t),
                    // `check.*` are `xlac check`'s test ops: compiled, never run here. Host
                    // callbacks run through the evaluator's handler, which the embedder sets.
                    (None, None)
                        if !crate::eval::interprets_custom_call(&cc.target)
                            && !crate::eval::host_callback::is_host_callback_target(&cc.target)
                            && !cc.target.starts_with("check.") =>
                    {
                        // Said now, at compile time, and in the compiled backend's words.
                        return Err(RuntimeError::new(format!(
                            "custom call '{}' is not supported (compiled backend)",
                            cc.target
                        ))
                        .unsupported());
                    }
                    (None, None) => return Ok(None),
                }
            }
            Op::Dot {
                dimension_numbers, ..
            } => {
                let out = self.array_leaf(comp, id)?;
                let Some([lhs, rhs, out]) = loop_buffers(&operands, out, loop_dot::supported)
                else {
                    return Ok(None);
                };
                LibraryThunk::LoopDot(LoopDotThunk {
                    name: instr.name.clone(),
                    lhs,
                    rhs,
                    out,
                    dimension_numbers: dimension_numbers.clone(),
                })
            }
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } => {
                let out = self.array_leaf(comp, id)?;
                let Some([lhs, rhs, out]) =
                    loop_buffers(&operands, out, loop_convolution::supported)
                else {
                    return Ok(None);
                };
                LibraryThunk::LoopConvolution(LoopConvolutionThunk {
                    name: instr.name.clone(),
                    lhs,
                    rhs,
                    out,
                    window: window.clone(),
                    dimension_numbers: dimension_numbers.clone(),
                    feature_group_count: (*feature_group_count).max(1) as usize,
                    batch_group_count: (*batch_group_count).max(1) as usize,
                })
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => {
                let [operand] = operands.as_slice() else {
                    return Ok(None);
                };
                let result = self.array_leaf(comp, id)?;
                match FftThunk::new(&instr.name, *fft_type, fft_length, operand, &result) {
                    Some(t) => LibraryThunk::Fft(t),
                    None => return Ok(None),
                }
            }
            Op::TopK { largest, .. } => {
                let results = self.leaves(comp, id)?;
                match TopKThunk::for_op(&instr.name, *largest, &operands, &results) {
                    Some(t) => LibraryThunk::TopK(t),
                    None => return Ok(None),
                }
            }
            op if instr.opcode().is_elementwise() => {
                let direction = match op {
                    Op::Compare { direction, .. } => Some(*direction),
                    _ => None,
                };
                let out = self.array_leaf(comp, id)?;
                let types: Vec<PrimitiveType> =
                    operands.iter().map(|o| o.shape.element_type).collect();
                if !complex_elementwise::supported(
                    instr.opcode(),
                    direction,
                    &types,
                    out.shape.element_type,
                ) {
                    return Ok(None);
                }
                LibraryThunk::ComplexElementwise(ComplexElementwiseThunk {
                    name: instr.name.clone(),
                    opcode: instr.opcode(),
                    direction,
                    operands,
                    out,
                })
            }
            _ => return Ok(None),
        }))
    }
}
