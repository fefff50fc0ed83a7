//! Vectorized row reductions: a `reduce` over one dimension that is the physical
//! minor-most dimension of its input (softmax's and layernorm's sums and maxima), with an
//! `add`/`maximum`/`minimum` reducer on f32/f64 and an input the vector loop can compute,
//! runs as [`ACCUMULATORS`] independent `f32x4`/`f64x2` accumulators (several in flight for
//! the out-of-order core), combined pairwise and across lanes at the end; the init value
//! and the scalar tail go through the reducer as scalars. The summation order differs from
//! the interpreter's sequential one (XLA's vectorized order differs too); the tests compare
//! within their float tolerance. Anything else takes the scalar path of `elemental/reduce.rs`.
//! XLA: the row-reduction vectorization of `xla/service/cpu/ir_emitter.cc`
//! (`EmitVectorizedReduce`).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Type, Value, types};

use crate::codegen::CodegenError;
use crate::codegen::elemental::{Emitter, Frame, Params, array_shape};
use crate::ir::{ComputationId, Instruction, Module, Op, Opcode};

type R<T> = Result<T, CodegenError>;

/// Independent vector accumulators per row.
pub const ACCUMULATORS: i64 = 4;

/// The reducer kinds with a vector form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Combine {
    Add,
    Max,
    Min,
}

impl<'m> Emitter<'m, '_, '_> {
    /// The reduce `instr` at output `index` as a vectorized row reduction, or `None` when it
    /// does not qualify (then the caller emits the scalar loop).
    pub fn vector_row_reduce(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        dimensions: &[usize],
        to_apply: ComputationId,
        index: &[Value],
    ) -> R<Option<Value>> {
        if !self.env.vectors || instr.operands.len() != 2 || dimensions.len() != 1 {
            return Ok(None);
        }
        if !matches!(frame.params, Params::Buffers(_)) {
            return Ok(None);
        }
        let (input, init) = (instr.operands[0], instr.operands[1]);
        let shape = array_shape(frame.comp.instr(input))?.clone();
        let d = dimensions[0];
        if shape.layout.minor_to_major.first() != Some(&d) {
            return Ok(None);
        }
        let Some(combine) = reducer_kind(self.module, to_apply) else {
            return Ok(None);
        };
        let Some(vty) =
            crate::codegen::kernel::loops::vectorize::vector_tree_type(frame.comp, input, &shape)
        else {
            return Ok(None);
        };
        let lanes = i64::from(vty.lane_count());
        let n = shape.dims[d];
        let step = lanes * ACCUMULATORS;
        let main = n / step * step;
        if main == 0 {
            return Ok(None);
        }
        let scalar_ty = vty.lane_type();
        let identity = match combine {
            Combine::Add => -0.0,
            Combine::Max => f64::NEG_INFINITY,
            Combine::Min => f64::INFINITY,
        };
        let id = self.float_scalar(scalar_ty, identity);
        let id = self.b.ins().splat(vty, id);
        let mut accs = vec![id; ACCUMULATORS as usize];
        // Maxima and minima keep NaNs out of the accumulators (a plain `maxps`/`minps` each)
        // and collect them in a lane mask instead: a NaN-propagating select per element
        // costs five instructions and a longer dependency chain. The mask starts all false.
        let ordered = combine != Combine::Add;
        if ordered {
            accs.push(self.b.ins().fcmp(FloatCC::Unordered, id, id));
        }
        // The input index with the reduced dimension inserted.
        let at = |iv: Value| -> Vec<Value> {
            let mut at = index.to_vec();
            at.insert(d, iv);
            at
        };
        let start = self.i64c(0);
        let end = self.i64c(main);
        let mut body = |this: &mut Self, iv: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let mut next = Vec::with_capacity(accs.len());
            let mut nans: Option<Value> = None;
            for (k, &acc) in accs.iter().take(ACCUMULATORS as usize).enumerate() {
                let i = if k == 0 {
                    iv
                } else {
                    this.b.ins().iadd_imm_s(iv, k as i64 * lanes)
                };
                let mut memo = std::collections::HashMap::new();
                let v = this.emit_vector(frame, input, &at(i), vty, &mut memo)?;
                if ordered {
                    next.push(this.float_max_min_ordered(acc, v, combine == Combine::Max));
                    let nan = this.b.ins().fcmp(FloatCC::Unordered, v, v);
                    nans = Some(match nans {
                        Some(m) => this.b.ins().bor(m, nan),
                        None => nan,
                    });
                } else {
                    next.push(this.combine(combine, vty, acc, v));
                }
            }
            if let (Some(m), Some(&seen)) = (nans, accs.get(ACCUMULATORS as usize)) {
                next.push(this.b.ins().bor(seen, m));
            }
            Ok(next)
        };
        let mut accs = self.stepped_loop(start, end, step, false, accs, &mut body)?;
        let nan_seen = if ordered { accs.pop() } else { None };
        // Pairwise, then across lanes.
        while accs.len() > 1 {
            let b = accs.pop().unwrap_or(id);
            let a = accs.pop().unwrap_or(id);
            let c = self.combine(combine, vty, a, b);
            accs.insert(0, c);
        }
        let v = accs[0];
        let mut total = self.b.ins().extractlane(v, 0);
        for l in 1..lanes {
            let x = self.b.ins().extractlane(v, l as u8);
            total = self.combine(combine, scalar_ty, total, x);
        }
        if let Some(mask) = nan_seen {
            // Any NaN in the row makes the result NaN (XLA's maximum and minimum propagate
            // it; which NaN is not specified).
            let any = self.b.ins().vany_true(mask);
            let nan = self.float_scalar(scalar_ty, f64::NAN);
            total = self.b.ins().select(any, nan, total);
        }
        let init = self.emit1(frame, init, &[])?;
        let acc = self.inline_computation(to_apply, vec![vec![init], vec![total]])?;
        // The scalar tail.
        let mut tail = |this: &mut Self, iv: Value, accs: Vec<Value>| -> R<Vec<Value>> {
            let i = this.b.ins().iadd_imm_s(iv, main);
            let x = this.emit1(frame, input, &at(i))?;
            this.inline_computation(to_apply, vec![accs, vec![x]])
        };
        let acc = self.counted_loop(n - main, acc, &mut tail)?;
        Ok(Some(acc[0]))
    }

    /// `kind` of `a` (the accumulator, the reducer's lhs) and `b`, scalar or vector.
    pub(super) fn combine(&mut self, kind: Combine, ty: Type, a: Value, b: Value) -> Value {
        match (kind, ty.is_vector()) {
            (Combine::Add, _) => self.b.ins().fadd(a, b),
            (Combine::Max, _) => self.float_max_min(a, b, true),
            (Combine::Min, _) => self.float_max_min(a, b, false),
        }
    }

    fn float_scalar(&mut self, ty: Type, x: f64) -> Value {
        if ty == types::F64 {
            self.b.ins().f64const(x)
        } else {
            self.b.ins().f32const(x as f32)
        }
    }
}

/// `add`/`maximum`/`minimum` of the two parameters of `to_apply`, on f32 or f64.
pub(super) fn reducer_kind(module: &Module, to_apply: ComputationId) -> Option<Combine> {
    let comp = module.computation(to_apply);
    let root = comp.instr(comp.root);
    let t = root.shape.as_array()?;
    if t.rank() != 0 || !matches!(t.element_type.byte_size(), 4 | 8) || !t.element_type.is_float() {
        return None;
    }
    let kind = match root.op {
        Op::Plain(Opcode::Add) => Combine::Add,
        Op::Plain(Opcode::Maximum) => Combine::Max,
        Op::Plain(Opcode::Minimum) => Combine::Min,
        _ => return None,
    };
    let params: Vec<usize> = root
        .operands
        .iter()
        .filter_map(|&o| match comp.instr(o).op {
            Op::Parameter { number } => Some(number),
            _ => None,
        })
        .collect();
    (params.len() == 2 && params[0] != params[1]).then_some(kind)
}
