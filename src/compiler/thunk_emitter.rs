//! The thunk emitter: walks each non-fused computation in schedule order and turns every
//! instruction into thunks over the buffer plan. Parameter, constant, tuple,
//! get-tuple-element, bitcast, after-all, add-dependency and opt-barrier emit nothing when
//! the plan shares their buffers (and a copy where it did not); fusions become kernel
//! calls; dot, convolution, copy and control flow get native thunks; sort, scatter,
//! select-and-scatter (with their computations compiled), the real LAPACK custom calls,
//! `TopK`, integer and complex dots and convolutions, `fft`, `rng` and elementwise ops over
//! complex numbers get native library routines; every other op runs its reference implementation, named
//! as such. An op with no thunk at all is an error.
//! The library routines (which op runs as which native routine) are `library.rs`'s.
//! XLA: `xla/service/cpu/thunk_emitter.cc` (`ThunkEmitter::EmitHloInstruction`).

mod library;

use crate::codegen::KernelSet;
use crate::eval::interprets;
use crate::ir::kernel_ops::kernel_type;
use crate::ir::{
    ArrayLiteral, ComputationId, FusionKind, InstrId, Literal, Module, Op, Opcode, PrimitiveType,
    Shape, ShapeIndex,
};

use crate::runtime::RuntimeError;
use crate::runtime::buffer_plan::{Plan, leaf_indices};
use crate::runtime::buffers::literal_leaf;
use crate::runtime::thunk::{
    BufferRef, CollectiveReducer, CollectiveThunk, ConvolutionThunk, DotThunk, KernelThunk,
    ParallelCopy, ReferenceThunk, Region, Thunk, ThunkSequence,
};

/// Kernels whose outputs are smaller than this run on the calling thread: a task costs
/// more than the work.
const PARALLEL_OUTPUT_BYTES: usize = 64 << 10;

/// Emits the entry computation's thunks over `plan` and builds the runtime's executable
/// from them: what the compiler calls once the kernels exist. Fails, naming the
/// instruction, if some op has neither a kernel nor a library thunk.
pub fn emit_executable(
    module: Module,
    buffers: crate::layout::BufferAssignment,
    plan: Plan,
    kernels: KernelSet,
    mode: crate::runtime::BufferMode,
) -> Result<crate::runtime::Executable, RuntimeError> {
    let mut emitter = ThunkEmitter::new(&module, &plan, &kernels);
    let entry = emitter.emit_computation(module.entry)?;
    let thunks = crate::runtime::Thunks {
        entry,
        constants: emitter.constants,
    };
    crate::runtime::Executable::from_thunks(
        module,
        buffers,
        plan,
        std::sync::Arc::new(kernels),
        thunks,
        mode,
    )
}

/// Builds thunk sequences; collects the constants to fill once.
pub struct ThunkEmitter<'a> {
    module: &'a Module,
    plan: &'a Plan,
    kernels: &'a KernelSet,
    /// Constants living in constant allocations: filled once at build time.
    pub constants: Vec<(ArrayLiteral, BufferRef)>,
}

impl<'a> ThunkEmitter<'a> {
    /// An emitter over one module's plan and kernels.
    pub fn new(module: &'a Module, plan: &'a Plan, kernels: &'a KernelSet) -> ThunkEmitter<'a> {
        ThunkEmitter {
            module,
            plan,
            kernels,
            constants: Vec::new(),
        }
    }

    /// The thunks of computation `comp`, in its schedule order.
    pub fn emit_computation(&mut self, comp: ComputationId) -> Result<ThunkSequence, RuntimeError> {
        let c = &self.module.computations[comp];
        let mut seq = ThunkSequence {
            computation: c.name.clone(),
            thunks: Vec::new(),
        };
        for &id in &c.order {
            self.emit_instruction(comp, id, &mut seq.thunks)?;
        }
        Ok(seq)
    }

    /// A nested computation entered with `args` (leaves, depth-first over its parameters)
    /// whose root goes to `result`.
    fn emit_region(
        &mut self,
        comp: ComputationId,
        args: &[BufferRef],
        result: &[BufferRef],
    ) -> Result<Region, RuntimeError> {
        let sequence = self.emit_computation(comp)?;
        let c = &self.module.computations[comp];
        let mut params = Vec::new();
        for &p in &c.parameters() {
            params.extend(self.leaves(comp, p)?);
        }
        let root = self.leaves(comp, c.root)?;
        Ok(Region {
            sequence,
            enter: ParallelCopy::new(args, &params),
            exit: ParallelCopy::new(&root, result),
            root,
        })
    }

    fn emit_instruction(
        &mut self,
        comp: ComputationId,
        id: InstrId,
        out: &mut Vec<Thunk>,
    ) -> Result<(), RuntimeError> {
        let c = &self.module.computations[comp];
        let instr = &c.instrs[id];
        let name = instr.name.clone();
        let operand_leaves = |e: &Self, i: usize| e.leaves(comp, instr.operands[i]);
        match &instr.op {
            Op::Parameter { .. } => {}
            Op::Constant { literal } => self.emit_constant(comp, id, literal, out)?,
            Op::Plain(Opcode::AfterAll) => {}
            Op::Plain(Opcode::Tuple) => {
                let mut from = Vec::new();
                let mut to = Vec::new();
                for (i, _) in instr.operands.iter().enumerate() {
                    from.extend(operand_leaves(self, i)?);
                    to.extend(self.leaves_under(comp, id, &[i])?);
                }
                push_alias(out, name, &from, &to);
            }
            Op::GetTupleElement { index } => {
                let from = self.leaves_under(comp, instr.operands[0], &[*index])?;
                let to = self.leaves(comp, id)?;
                push_alias(out, name, &from, &to);
            }
            Op::Plain(
                Opcode::Bitcast
                | Opcode::AddDependency
                | Opcode::OptimizationBarrier
                | Opcode::Domain,
            ) => {
                let mut from = operand_leaves(self, 0)?;
                let to = self.leaves(comp, id)?;
                if instr.opcode() == Opcode::Bitcast {
                    // A bitcast reinterprets bytes: copy them as they are.
                    for (f, t) in from.iter_mut().zip(&to) {
                        f.shape = t.shape.clone();
                    }
                }
                push_alias(out, name, &from, &to);
            }
            Op::Plain(Opcode::Copy) => {
                let copy = ParallelCopy::new(&operand_leaves(self, 0)?, &self.leaves(comp, id)?);
                if !copy.is_empty() {
                    out.push(Thunk::Copy { name, copy });
                }
            }
            Op::Fusion { kind, calls } => self.emit_fusion(comp, id, *kind, *calls, out)?,
            Op::Dot {
                dimension_numbers, ..
            } if self.dot_supported(comp, id) => {
                out.push(Thunk::Dot(DotThunk {
                    name,
                    lhs: self.array_leaf(comp, instr.operands[0])?,
                    rhs: self.array_leaf(comp, instr.operands[1])?,
                    out: self.array_leaf(comp, id)?,
                    dimension_numbers: dimension_numbers.clone(),
                    strategy: None,
                }));
            }
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } if self.dot_supported(comp, id) => {
                out.push(Thunk::Convolution(ConvolutionThunk {
                    name,
                    lhs: self.array_leaf(comp, instr.operands[0])?,
                    rhs: self.array_leaf(comp, instr.operands[1])?,
                    out: self.array_leaf(comp, id)?,
                    window: window.clone(),
                    dimension_numbers: dimension_numbers.clone(),
                    feature_group_count: (*feature_group_count).max(1) as usize,
                    batch_group_count: (*batch_group_count).max(1) as usize,
                    algorithm: None,
                }));
            }
            Op::While { condition, body } => {
                let state = self.leaves(comp, id)?;
                let init = ParallelCopy::new(&operand_leaves(self, 0)?, &state);
                let condition = Box::new(self.emit_region(*condition, &state, &[])?);
                let body = Box::new(self.emit_region(*body, &state, &state)?);
                out.push(Thunk::While {
                    name,
                    init,
                    condition,
                    body,
                });
            }
            Op::Conditional {
                branch_computations,
            } => {
                let selector = self.array_leaf(comp, instr.operands[0])?;
                let result = self.leaves(comp, id)?;
                let mut branches = Vec::new();
                for (i, &b) in branch_computations.iter().enumerate() {
                    let operand = operand_leaves(self, i + 1)?;
                    branches.push(self.emit_region(b, &operand, &result)?);
                }
                out.push(Thunk::Conditional {
                    name,
                    selector,
                    branches,
                });
            }
            Op::Call { to_apply } => {
                let mut args = Vec::new();
                for i in 0..instr.operands.len() {
                    args.extend(operand_leaves(self, i)?);
                }
                let result = self.leaves(comp, id)?;
                out.push(Thunk::Call {
                    name,
                    callee: Box::new(self.emit_region(*to_apply, &args, &result)?),
                });
            }
            Op::Unmodeled { opcode, .. }
                if crate::runtime::collectives::CollectiveKind::of(*opcode).is_some() =>
            {
                out.push(Thunk::Collective(Box::new(self.collective(comp, id)?)));
            }
            Op::Plain(opcode @ (Opcode::PartitionId | Opcode::ReplicaId)) => {
                out.push(Thunk::DeviceIndex {
                    name,
                    partition: *opcode == Opcode::PartitionId,
                    out: self.array_leaf(comp, id)?,
                });
            }
            Op::Rng { distribution }
                if instr
                    .shape
                    .element_type()
                    .is_some_and(|t| crate::runtime::library::rng::supported(t, *distribution))
                    && instr.operands.len() == 2 =>
            {
                out.push(Thunk::Rng(crate::runtime::library::rng::RngThunk {
                    name,
                    distribution: *distribution,
                    a: self.array_leaf(comp, instr.operands[0])?,
                    b: self.array_leaf(comp, instr.operands[1])?,
                    out: self.array_leaf(comp, id)?,
                }));
            }
            _ => match self.library(comp, id)? {
                Some(l) => out.push(Thunk::Library(l)),
                None => out.push(Thunk::Reference(self.reference(comp, id)?)),
            },
        }
        Ok(())
    }

    /// A constant in a constant allocation is filled now; elsewhere it is written per run.
    fn emit_constant(
        &mut self,
        comp: ComputationId,
        id: InstrId,
        literal: &Literal,
        out: &mut Vec<Thunk>,
    ) -> Result<(), RuntimeError> {
        let mut per_run = Vec::new();
        for (index, leaf) in self.indexed_leaves(comp, id)? {
            let value = literal_leaf(literal, &index).ok_or_else(|| {
                self.error(comp, id, "the constant's value does not match its shape")
            })?;
            let in_constant_allocation = matches!(
                self.plan.allocations[leaf.slice.allocation].kind,
                crate::layout::AllocationKind::Constant
            );
            if in_constant_allocation {
                self.constants.push((value.clone(), leaf));
            } else {
                per_run.push((value.clone(), leaf));
            }
        }
        if !per_run.is_empty() {
            out.push(Thunk::Constant {
                name: self.module.computations[comp].instrs[id].name.clone(),
                leaves: per_run,
            });
        }
        Ok(())
    }

    fn emit_fusion(
        &mut self,
        comp: ComputationId,
        id: InstrId,
        kind: FusionKind,
        calls: ComputationId,
        out: &mut Vec<Thunk>,
    ) -> Result<(), RuntimeError> {
        let instr = &self.module.computations[comp].instrs[id];
        if kind == FusionKind::Custom {
            out.push(Thunk::Reference(self.reference(comp, id)?));
            return Ok(());
        }
        let Some(kernel) = self.kernels.get(comp, id) else {
            return Err(self.error(
                comp,
                id,
                &format!("no kernel was generated for this {kind} fusion"),
            ));
        };
        let mut operand_leaves = Vec::new();
        for &o in &instr.operands {
            operand_leaves.push(self.leaves(comp, o)?);
        }
        let result = self.leaves(comp, id)?;
        // In-place roots (dynamic-update-slice) write only the updated window: the output
        // must already hold operand 0 of the update.
        let fused = &self.module.computations[calls];
        let roots: Vec<(Vec<usize>, InstrId)> = match &fused.root_instr().op {
            Op::Plain(Opcode::Tuple) => fused
                .root_instr()
                .operands
                .iter()
                .enumerate()
                .map(|(i, &r)| (vec![i], r))
                .collect(),
            _ => vec![(Vec::new(), fused.root)],
        };
        let mut prefill = ParallelCopy::default();
        for (index, r) in roots {
            let root = &fused.instrs[r];
            if root.opcode() != Opcode::DynamicUpdateSlice {
                continue;
            }
            if let Op::Parameter { number } = fused.instrs[root.operands[0]].op
                && let Some(src) = operand_leaves.get(number)
            {
                let dst = self.leaves_under(comp, id, &index)?;
                let copy = ParallelCopy::new(src, &dst);
                prefill.pairs.extend(copy.pairs);
                prefill.staged |= copy.staged;
            }
        }
        if !prefill.is_empty() {
            out.push(Thunk::AliasCopy {
                name: format!("{} (in-place update operand)", instr.name),
                copy: prefill,
            });
        }
        let output_bytes: usize = result.iter().map(|r| r.slice.size).sum();
        let mut buffers: Vec<_> = operand_leaves.iter().flatten().map(|b| b.slice).collect();
        if kind == FusionKind::Output {
            let dot = self.output_fusion_dot(comp, id, calls, &operand_leaves, &result)?;
            buffers.push(dot.out.slice);
            buffers.extend(result.iter().map(|b| b.slice));
            let epilogue = kernel_thunk(instr.name.clone(), kernel, buffers, output_bytes);
            // Row blocks of the GEMM map onto ranges of the epilogue's units when both walk
            // the output in the same (row-major) order.
            let units_per_row =
                crate::runtime::library::dot::row_major_rows(&dot).and_then(|rows| {
                    let units = kernel.work_units as usize;
                    (kernel.units_in_layout_order && rows > 0 && units.is_multiple_of(rows))
                        .then_some((units / rows) as u64)
                });
            // Units of equal width that tile each GEMM row: tiles may cut rows between them.
            let columns_per_unit = units_per_row.and_then(|u| {
                let rows = crate::runtime::library::dot::row_major_rows(&dot)? as u64;
                let n = dot.out.shape.element_count() as u64 / rows.max(1);
                kernel.unit_elements.filter(|&c| u > 1 && c * u == n)
            });
            out.push(Thunk::OutputFusion {
                dot,
                epilogue,
                units_per_row,
                columns_per_unit,
            });
            return Ok(());
        }
        buffers.extend(result.iter().map(|b| b.slice));
        out.push(Thunk::Kernel(kernel_thunk(
            instr.name.clone(),
            kernel,
            buffers,
            output_bytes,
        )));
        Ok(())
    }

    /// The dot of a `kOutput` fusion, writing into the fusion's first output (the epilogue
    /// reads it from there and overwrites it element by element).
    fn output_fusion_dot(
        &self,
        comp: ComputationId,
        id: InstrId,
        calls: ComputationId,
        operands: &[Vec<BufferRef>],
        result: &[BufferRef],
    ) -> Result<DotThunk, RuntimeError> {
        let fused = &self.module.computations[calls];
        let Some((_, dot)) = fused.iter().find(|(_, i)| i.opcode() == Opcode::Dot) else {
            return Err(self.error(comp, id, "kOutput fusion without a dot"));
        };
        let Op::Dot {
            dimension_numbers, ..
        } = &dot.op
        else {
            unreachable!("found by opcode");
        };
        let operand = |i: usize| -> Result<BufferRef, RuntimeError> {
            match fused.instrs[dot.operands[i]].op {
                Op::Parameter { number } => operands
                    .get(number)
                    .and_then(|l| l.first().cloned())
                    .ok_or_else(|| self.error(comp, id, "dot operand is not a fusion operand")),
                _ => Err(self.error(comp, id, "the dot's operands must be fusion parameters")),
            }
        };
        let dot_shape = dot
            .shape
            .as_array()
            .ok_or_else(|| self.error(comp, id, "dot result must be an array"))?;
        let out = result
            .first()
            .filter(|r| r.slice.size == dot_shape.byte_size())
            .map(|r| BufferRef {
                slice: r.slice,
                shape: dot_shape.clone(),
            })
            .ok_or_else(|| {
                self.error(
                    comp,
                    id,
                    "the dot result does not fit the fusion's output buffer",
                )
            })?;
        Ok(DotThunk {
            name: dot.name.clone(),
            lhs: operand(0)?,
            rhs: operand(1)?,
            out,
            dimension_numbers: dimension_numbers.clone(),
            strategy: None,
        })
    }

    /// The GEMM routines take real types they can convert through f32/f64 (complex and
    /// integer results go to the reference implementation).
    fn dot_supported(&self, comp: ComputationId, id: InstrId) -> bool {
        let c = &self.module.computations[comp];
        let instr = &c.instrs[id];
        let float = |s: &Shape| {
            s.element_type().is_some_and(|t| {
                matches!(
                    t,
                    PrimitiveType::F16
                        | PrimitiveType::BF16
                        | PrimitiveType::F32
                        | PrimitiveType::F64
                )
            })
        };
        let real = |s: &Shape| s.element_type().is_some_and(kernel_type);
        float(&instr.shape) && instr.operands.iter().all(|&o| real(&c.instrs[o].shape))
    }

    /// A collective thunk: operand and result buffers, and the reduction as a native loop
    /// or the compiled scalar function.
    fn collective(
        &self,
        comp: ComputationId,
        id: InstrId,
    ) -> Result<CollectiveThunk, RuntimeError> {
        use crate::runtime::collectives::op::reducer_of;
        use crate::runtime::collectives::reduction::{Compiled, Native};
        let instr = &self.module.computations[comp].instrs[id];
        if instr
            .raw_attributes
            .iter()
            .any(|a| a.name == "has_dynamic_root" && a.value.trim() == "true")
        {
            return Err(self.error(
                comp,
                id,
                "a collective-broadcast with a dynamic root runs on the interpreter only",
            ));
        }
        let mut operands = Vec::new();
        for &o in &instr.operands {
            operands.push(self.array_leaf(comp, o)?);
        }
        let results = self.leaves(comp, id)?;
        let reducer = match reducer_of(instr) {
            None => None,
            Some(r) => match Native::recognize(self.module, r) {
                Some(n) => Some(CollectiveReducer::Native(n)),
                None => {
                    let f = self.kernels.scalar_function(r).ok_or_else(|| {
                        self.error(comp, id, "its reduction computation could not be compiled")
                    })?;
                    let ty = self.module.computations[r]
                        .root_instr()
                        .shape
                        .element_type()
                        .ok_or_else(|| self.error(comp, id, "the reduction returns a tuple"))?;
                    Some(CollectiveReducer::Compiled(Compiled {
                        function: f.entry,
                        element_type: ty,
                    }))
                }
            },
        };
        Ok(CollectiveThunk {
            instruction: instr.clone(),
            operands,
            results,
            reducer,
            resolved: std::sync::Mutex::new(None),
        })
    }

    /// A thunk that runs the reference implementation of one op.
    fn reference(&self, comp: ComputationId, id: InstrId) -> Result<ReferenceThunk, RuntimeError> {
        let c = &self.module.computations[comp];
        let instr = &c.instrs[id];
        if !interprets(instr.opcode()) {
            return Err(self.error(comp, id, "no thunk runs this op on the compiled backend"));
        }
        let mut operands = Vec::new();
        for &o in &instr.operands {
            operands.push((c.instrs[o].shape.clone(), self.indexed_leaves(comp, o)?));
        }
        Ok(ReferenceThunk {
            name: instr.name.clone(),
            opcode: instr.opcode().to_string(),
            computation: comp,
            instruction: id,
            operands,
            result: self.indexed_leaves(comp, id)?,
        })
    }

    /// The array leaves of `instr` with their shape indices, depth-first.
    fn indexed_leaves(
        &self,
        comp: ComputationId,
        id: InstrId,
    ) -> Result<Vec<(ShapeIndex, BufferRef)>, RuntimeError> {
        let shape = &self.module.computations[comp].instrs[id].shape;
        let mut out = Vec::new();
        for index in leaf_indices(shape) {
            let Some(Shape::Array(a)) = shape.subshape(&index) else {
                continue;
            };
            let slice = self.plan.slice(comp, id, &index).ok_or_else(|| {
                self.error(
                    comp,
                    id,
                    &format!("the buffer plan has no slice for leaf {index:?}"),
                )
            })?;
            out.push((
                index,
                BufferRef {
                    slice,
                    shape: a.clone(),
                },
            ));
        }
        Ok(out)
    }

    /// The array leaves of `instr`, depth-first.
    fn leaves(&self, comp: ComputationId, id: InstrId) -> Result<Vec<BufferRef>, RuntimeError> {
        Ok(self
            .indexed_leaves(comp, id)?
            .into_iter()
            .map(|(_, b)| b)
            .collect())
    }

    /// The array leaves of `instr` under tuple path `prefix`.
    fn leaves_under(
        &self,
        comp: ComputationId,
        id: InstrId,
        prefix: &[usize],
    ) -> Result<Vec<BufferRef>, RuntimeError> {
        Ok(self
            .indexed_leaves(comp, id)?
            .into_iter()
            .filter(|(i, _)| i.starts_with(prefix))
            .map(|(_, b)| b)
            .collect())
    }

    /// The single array leaf of an array-shaped instruction.
    fn array_leaf(&self, comp: ComputationId, id: InstrId) -> Result<BufferRef, RuntimeError> {
        let leaves = self.leaves(comp, id)?;
        match (
            leaves.len(),
            &self.module.computations[comp].instrs[id].shape,
        ) {
            (1, Shape::Array(_)) => Ok(leaves.into_iter().next().expect("one leaf")),
            _ => Err(self.error(comp, id, "expected an array value")),
        }
    }

    fn error(&self, comp: ComputationId, id: InstrId, message: &str) -> RuntimeError {
        let c = &self.module.computations[comp];
        RuntimeError::new(format!("{}/{}: {message}", c.name, c.instrs[id].name))
    }
}

fn push_alias(out: &mut Vec<Thunk>, name: String, from: &[BufferRef], to: &[BufferRef]) {
    let copy = ParallelCopy::new(from, to);
    if !copy.is_empty() {
        out.push(Thunk::AliasCopy { name, copy });
    }
}

fn kernel_thunk(
    name: String,
    kernel: &crate::codegen::Kernel,
    buffers: Vec<crate::layout::Slice>,
    output_bytes: usize,
) -> KernelThunk {
    let min = kernel.min_units_per_task.max(1);
    KernelThunk {
        name,
        entry: kernel.entry,
        buffers,
        work_units: kernel.work_units,
        min_units_per_task: min,
        // Small outputs stay on the calling thread unless one work unit alone is worth a
        // task (a column or row reduction whose output is small but whose input is not).
        parallel: (output_bytes > PARALLEL_OUTPUT_BYTES || kernel.min_units_per_task <= 1)
            && kernel.work_units >= 2 * min,
        split: None,
        strategy: kernel.plan.summary(),
        first_phase_units: kernel.first_phase_units,
        scratch: (kernel.scratch_bytes > 0)
            .then(|| crate::runtime::thunk::ScratchPool::new(kernel.scratch_bytes as usize)),
    }
}

/// `lhs`, `rhs` and `out` of a two-operand loop routine (`loop_dot`, `loop_convolution`),
/// when its `supported` takes their element types.
fn loop_buffers(
    operands: &[BufferRef],
    out: BufferRef,
    supported: fn(PrimitiveType, PrimitiveType, PrimitiveType) -> bool,
) -> Option<[BufferRef; 3]> {
    let [lhs, rhs] = operands else {
        return None;
    };
    let [l, r, o] = [lhs, rhs, &out].map(|b| b.shape.element_type);
    supported(l, r, o).then(|| [lhs.clone(), rhs.clone(), out])
}
