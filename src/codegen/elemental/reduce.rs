//! Reductions as elements: one element of a `reduce` loops over the reduced dimensions
//! (row-major, the interpreter's order) carrying the accumulators in block parameters, and
//! calls the reducer inline as scalar code; `reduce-window` loops over the window and skips
//! positions in the padding or in the holes of a base dilation; `map` inlines its
//! computation on the operands' elements. Variadic reduces carry one accumulator per input.
//! XLA: `EmitReduce`, `EmitReduceWindow` in `xla/codegen/emitters/elemental_hlo_to_mlir.cc`;
//! `ElementalIrEmitter::EmitElementalReduceWindow` (`xla/service/elemental_ir_emitter.cc`).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value};

use super::{Emitter, Frame, Params, array_shape, error};
use crate::codegen::CodegenError;
use crate::ir::{ComputationId, Instruction, Window};

type R<T> = Result<T, CodegenError>;

impl<'m> Emitter<'m, '_, '_> {
    /// Emits `comp` inline on scalar arguments (one value per parameter leaf) and returns
    /// its root's leaves.
    pub fn inline_computation(
        &mut self,
        comp: ComputationId,
        args: Vec<Vec<Value>>,
    ) -> R<Vec<Value>> {
        let module = self.module;
        let computation = module.computation(comp);
        let frame = Frame {
            comp: computation,
            params: Params::Scalars(args),
            library_result: None,
            id: self.frame_id(),
        };
        self.emit(&frame, computation.root, &[])
    }

    pub(super) fn reduce(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        dimensions: &[usize],
        to_apply: ComputationId,
        index: &[Value],
    ) -> R<Vec<Value>> {
        self.hoist_out_of_reduction(frame, instr, dimensions, index)?;
        if let Some(v) = self.vector_row_reduce(frame, instr, dimensions, to_apply, index)? {
            return Ok(vec![v]);
        }
        let n = instr.operands.len() / 2;
        let (inputs, inits) = instr.operands.split_at(n);
        let input_dims = array_shape(frame.comp.instr(inputs[0]))?.dims.clone();
        let mut accs = Vec::with_capacity(n);
        for &init in inits {
            accs.push(self.emit1(frame, init, &[])?);
        }
        let mut reduced: Vec<usize> = dimensions.to_vec();
        reduced.sort_unstable();
        if input_dims.len() != index.len() + reduced.len() {
            return Err(error(
                instr,
                "reduce result rank does not match its operand",
            ));
        }
        let sizes: Vec<i64> = reduced.iter().map(|&d| input_dims[d]).collect();
        let mut body = |this: &mut Self, ivs: &[Value], accs: Vec<Value>| -> R<Vec<Value>> {
            let (mut k, mut r) = (0, 0);
            let mut at = Vec::with_capacity(input_dims.len());
            for d in 0..input_dims.len() {
                if reduced.contains(&d) {
                    at.push(ivs[r]);
                    r += 1;
                } else {
                    at.push(index[k]);
                    k += 1;
                }
            }
            let mut args: Vec<Vec<Value>> = accs.iter().map(|&a| vec![a]).collect();
            for &input in inputs {
                args.push(vec![this.emit1(frame, input, &at)?]);
            }
            this.inline_computation(to_apply, args)
        };
        let mut ivs = Vec::new();
        self.loop_nest(&sizes, &mut ivs, accs, &mut body)
    }

    /// Emits what the reduction's loop reads but does not change along the reduced
    /// dimensions (layernorm's mean inside its variance) before the loop (`hoist.rs`).
    fn hoist_out_of_reduction(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        dimensions: &[usize],
        index: &[Value],
    ) -> R<()> {
        let n = instr.operands.len() / 2;
        let rank = index.len() + dimensions.len();
        let placeholder = self.i64c(0);
        let mut at = Vec::with_capacity(rank);
        let mut kept = index.iter();
        for d in 0..rank {
            if dimensions.contains(&d) {
                at.push(placeholder);
            } else {
                at.push(*kept.next().unwrap_or(&placeholder));
            }
        }
        let varying = dimensions.iter().copied().collect();
        for &input in &instr.operands[..n] {
            self.hoist_invariant_broadcasts(frame, input, &at, &varying)?;
        }
        Ok(())
    }

    pub(super) fn reduce_window(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        window: &Window,
        to_apply: ComputationId,
        index: &[Value],
    ) -> R<Vec<Value>> {
        let n = instr.operands.len() / 2;
        let (inputs, inits) = instr.operands.split_at(n);
        let input_dims = array_shape(frame.comp.instr(inputs[0]))?.dims.clone();
        if window.dimensions.len() != input_dims.len() || index.len() != input_dims.len() {
            return Err(error(instr, "window rank does not match the operand"));
        }
        let mut accs = Vec::with_capacity(n);
        for &init in inits {
            accs.push(self.emit1(frame, init, &[])?);
        }
        if input_dims.contains(&0) {
            return Ok(accs);
        }
        let sizes: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
        let mut body = |this: &mut Self, ivs: &[Value], accs: Vec<Value>| -> R<Vec<Value>> {
            let mut valid: Option<Value> = None;
            let mut at = Vec::with_capacity(ivs.len());
            for (d, wd) in window.dimensions.iter().enumerate() {
                // Position in the base-dilated, padded input.
                let o = this.b.ins().imul_imm_s(index[d], wd.stride);
                let w = this.b.ins().imul_imm_s(ivs[d], wd.window_dilation);
                let p = this.b.ins().iadd(o, w);
                let p = this.b.ins().iadd_imm_s(p, -wd.padding_low);
                let limit = this.i64c(input_dims[d]);
                let (i, ok) = if wd.base_dilation > 1 {
                    let zero = this.i64c(0);
                    let nonneg = this.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, p, zero);
                    let pc = this.b.ins().smax(p, zero);
                    let q = this.b.ins().udiv_imm_s(pc, wd.base_dilation);
                    let r = this.b.ins().urem_imm_s(pc, wd.base_dilation);
                    let on = this.b.ins().icmp(IntCC::Equal, r, zero);
                    let below = this.b.ins().icmp(IntCC::SignedLessThan, q, limit);
                    let ok = this.b.ins().band(nonneg, on);
                    (q, this.b.ins().band(ok, below))
                } else {
                    (p, this.b.ins().icmp(IntCC::UnsignedLessThan, p, limit))
                };
                valid = Some(match valid {
                    None => ok,
                    Some(v) => this.b.ins().band(v, ok),
                });
                at.push(this.clamp_i64(i, 0, input_dims[d] - 1));
            }
            let mut args: Vec<Vec<Value>> = accs.iter().map(|&a| vec![a]).collect();
            for &input in inputs {
                args.push(vec![this.emit1(frame, input, &at)?]);
            }
            let next = this.inline_computation(to_apply, args)?;
            let Some(valid) = valid else { return Ok(next) };
            Ok(next
                .iter()
                .zip(&accs)
                .map(|(&new, &old)| this.b.ins().select(valid, new, old))
                .collect())
        };
        let mut ivs = Vec::new();
        self.loop_nest(&sizes, &mut ivs, accs, &mut body)
    }

    pub(super) fn map(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        to_apply: ComputationId,
        index: &[Value],
    ) -> R<Vec<Value>> {
        let mut args = Vec::with_capacity(instr.operands.len());
        for &o in &instr.operands {
            args.push(vec![self.operand_at(frame, o, index)?]);
        }
        self.inline_computation(to_apply, args)
    }

    /// Nested counted loops over `sizes` (outermost first), carrying `accs`; `body` gets the
    /// induction variables and the accumulators and returns the next accumulators.
    #[allow(clippy::type_complexity)]
    pub fn loop_nest(
        &mut self,
        sizes: &[i64],
        ivs: &mut Vec<Value>,
        accs: Vec<Value>,
        body: &mut dyn FnMut(&mut Self, &[Value], Vec<Value>) -> R<Vec<Value>>,
    ) -> R<Vec<Value>> {
        match sizes.split_first() {
            None => body(self, ivs, accs),
            Some((&n, rest)) => self.counted_loop(n, accs, &mut |this, iv, accs| {
                ivs.push(iv);
                let r = this.loop_nest(rest, ivs, accs, body);
                ivs.pop();
                r
            }),
        }
    }
}
