//! One fusion instruction → one CLIF function with the kernel ABI
//! `(buffers: *const *mut u8, begin: u64, end: u64)`: the entry block loads the buffer
//! pointers from the table (fusion operands, then for kOutput the library result, then one
//! per result leaf), then the loop nest the plan chose (`codegen/plan.rs`) runs work units
//! `begin..end` and stores each output element. One room here per strategy:
//! `loops/` (row loops: the vector loop, the row cache, hoisting), `tiled/` (tiled loops and
//! in-register transposes), `reductions/` (column, vector row and window reductions) and
//! `in_place_dus.rs`.
//! XLA: `xla/backends/cpu/codegen/kernel_api_ir_builder.cc` (the kernel prototype),
//! `xla/codegen/emitters/` (loop and in-place DUS fusion emitters).

mod in_place_dus;
pub mod loops;
pub mod reductions;
pub mod tiled;

use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlagsData, Signature, SourceLoc, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use super::CodegenError;
use super::elemental::{Buffer, Emitter, Frame, KernelEnv, Params, error};
use super::plan::{KernelPlan, PlanOptions, Strategy, plan_kernel};
use crate::ir::{ArrayShape, Computation, Instruction, Module, Op};

/// What the driver needs to know about an emitted kernel.
pub struct KernelLayout {
    /// Work units of a full run.
    pub work_units: u64,
    /// Smallest worthwhile split.
    pub min_units_per_task: u64,
    /// Buffers before the outputs (fusion operands, plus the library result for kOutput).
    pub operand_count: usize,
    /// Output buffers (result leaves).
    pub output_count: usize,
    /// Work units follow the output's physical order, the same number for every row of its
    /// minor dimension (plain and row loops; not tiles, column blocks or an in-place update).
    pub units_in_layout_order: bool,
    /// Elements per work unit when every unit is that many consecutive elements of one row
    /// of the minor dimension, in layout order.
    pub unit_elements: Option<u64>,
    /// Two phases: units `0..n` must all finish before any later unit starts.
    pub first_phase_units: Option<u64>,
    /// Bytes of scratch the caller appends to the table (after the outputs), or 0.
    pub scratch_bytes: u64,
    /// HLO instruction names by source location, for annotating CLIF.
    pub names: Vec<String>,
    /// The plan the kernel was emitted from (the dump's `*.plan.txt`).
    pub plan: KernelPlan,
}

/// The kernel signature: `(buffers: i64, begin: i64, end: i64)`, no results.
pub fn kernel_signature(call_conv: CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.extend([
        AbiParam::new(types::I64),
        AbiParam::new(types::I64),
        AbiParam::new(types::I64),
    ]);
    sig
}

/// Emits the body of `fusion`'s kernel into `b` (whose signature is [`kernel_signature`]).
pub fn emit_kernel<'m>(
    module: &'m Module,
    outer: &'m Computation,
    fusion: &'m Instruction,
    b: &mut FunctionBuilder<'_>,
    env: &mut KernelEnv,
) -> Result<KernelLayout, CodegenError> {
    emit_kernel_with(module, outer, fusion, b, env, true)
}

/// [`emit_kernel`], with the vector inner loop allowed or not. `vectorize: false` gives the
/// scalar kernel the cross-ISA dump needs for ISAs without vector registers (riscv64
/// without V, whose Cranelift backend panics on vector types).
pub fn emit_kernel_with<'m>(
    module: &'m Module,
    outer: &'m Computation,
    fusion: &'m Instruction,
    b: &mut FunctionBuilder<'_>,
    env: &mut KernelEnv,
    vectorize: bool,
) -> Result<KernelLayout, CodegenError> {
    let options = PlanOptions {
        vector_loops: vectorize,
        vector_registers: vectorize && env.vectors,
        block_math: env.block_math,
    };
    let plan = plan_kernel(module, outer, fusion, options)?;
    let Op::Fusion { calls, .. } = &fusion.op else {
        return Err(error(fusion, "not a fusion"));
    };
    let fused = module.computation(*calls);
    let entry = Entry::load(b, fused, &plan);
    let mut emitter = Emitter::new(b, module, env);
    match &plan.strategy {
        Strategy::ColumnReduce(column) => {
            // With row chunks the runtime appends a scratch buffer for the partial rows.
            let scratch = column.row_chunks.map(|_| {
                let flags = MemFlagsData::trusted().with_readonly();
                let at = (8 * entry.pointers.len()) as i32;
                emitter.b.ins().load(types::I64, flags, entry.table, at)
            });
            emitter.emit_column_reduce(
                &entry.frame,
                column,
                entry.outputs[0],
                scratch,
                entry.begin,
                entry.end,
            )?
        }
        Strategy::InPlaceDynamicUpdateSlice { update, vector } => {
            in_place_dus::emit(&mut emitter, &entry, update, *vector)?
        }
        Strategy::Tiled { tiles, transpose } => {
            tiled::emit(&mut emitter, &entry, tiles, *transpose)?
        }
        Strategy::Loop(l) => loops::emit(&mut emitter, &entry, l)?,
    }
    emitter.b.ins().return_(&[]);
    let names = std::mem::take(&mut emitter.names);
    let units_in_layout_order = plan.loop_plan().is_some();
    Ok(KernelLayout {
        work_units: plan.work_units,
        min_units_per_task: plan.min_units_per_task(),
        operand_count: plan.operands.len() + usize::from(plan.library_result.is_some()),
        output_count: plan.outputs.len(),
        units_in_layout_order,
        unit_elements: plan.unit_elements(),
        first_phase_units: plan.first_phase_units(),
        scratch_bytes: plan.scratch_bytes(),
        names,
        plan,
    })
}

/// What every strategy's emitter starts from: the entry block's values.
struct Entry<'m, 'p> {
    /// The fused computation and where its parameters live.
    frame: Frame<'m>,
    /// The kernel's pointer table (its first argument).
    table: Value,
    /// Every pointer of the table, loaded in the entry block, in table order.
    pointers: Vec<Value>,
    /// The output buffers' pointers (the table's last entries).
    outputs: Vec<Value>,
    /// The output leaves' shapes.
    output_shapes: &'p [ArrayShape],
    /// The fusion instruction's name, for errors.
    fusion: &'p str,
    /// The first work unit to run.
    begin: Value,
    /// One past the last.
    end: Value,
}

impl<'m, 'p> Entry<'m, 'p> {
    /// Creates the entry block and loads every buffer pointer from the table.
    fn load(b: &mut FunctionBuilder<'_>, fused: &'m Computation, plan: &'p KernelPlan) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        // Source location i names HLO instruction `names[i]`; location 0 ("no instruction")
        // comes first so it is the function's base location.
        b.set_srcloc(SourceLoc::new(0));
        let params = b.block_params(entry).to_vec();
        let (table, begin, end) = (params[0], params[1], params[2]);
        let pointer_flags = MemFlagsData::trusted().with_readonly();
        let n_in = plan.operands.len() + usize::from(plan.library_result.is_some());
        let mut pointers: Vec<Value> = Vec::with_capacity(n_in + plan.outputs.len());
        for k in 0..n_in + plan.outputs.len() {
            pointers.push(
                b.ins()
                    .load(types::I64, pointer_flags, table, (8 * k) as i32),
            );
        }
        let buffers: Vec<Buffer> = plan
            .operands
            .iter()
            .zip(&pointers)
            .map(|(s, &base)| Buffer {
                base,
                shape: s.clone(),
            })
            .collect();
        let frame = Frame {
            comp: fused,
            params: Params::Buffers(buffers),
            library_result: plan.library_result.as_ref().map(|(id, shape)| {
                (
                    *id,
                    Buffer {
                        base: pointers[plan.operands.len()],
                        shape: shape.clone(),
                    },
                )
            }),
            id: 0,
        };
        Entry {
            frame,
            table,
            outputs: pointers[n_in..].to_vec(),
            pointers,
            output_shapes: &plan.outputs,
            fusion: &plan.fusion,
            begin,
            end,
        }
    }

    /// Computes the fusion's root at `index` and stores each leaf into its output.
    fn store_root(
        &self,
        this: &mut Emitter<'m, '_, '_>,
        index: &[Value],
    ) -> Result<(), CodegenError> {
        let fused = self.frame.comp;
        let values = this.emit(&self.frame, fused.root, index)?;
        if values.len() != self.output_shapes.len() {
            return Err(CodegenError {
                kind: crate::ir::ErrorKind::Internal,
                instruction: self.fusion.to_string(),
                message: "root leaves do not match the fusion's outputs".to_string(),
            });
        }
        for ((v, shape), &base) in values.iter().zip(self.output_shapes).zip(&self.outputs) {
            let offset = this.physical_offset(shape, index);
            this.store_element(base, offset, shape.element_type, *v);
        }
        Ok(())
    }
}
