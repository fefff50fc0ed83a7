//! One fusion instruction → one CLIF function with the kernel ABI
//! `(buffers: *const *mut u8, begin: u64, end: u64)`: the entry block loads the buffer
//! pointers from the table (fusion operands, then for kOutput the library result, then one
//! per result leaf), then the loop nest runs work units `begin..end` and stores each output
//! element. A root `dynamic-update-slice` whose operand 0 is a parameter is emitted IN PLACE:
//! the runtime guarantees the output buffer already holds operand 0, so the kernel iterates
//! over the update and writes only the updated window.
//! XLA: `xla/backends/cpu/codegen/kernel_api_ir_builder.cc` (the kernel prototype),
//! `xla/codegen/emitters/` (loop and in-place DUS fusion emitters).

use cranelift_codegen::ir::{
    AbiParam, InstBuilder, MemFlagsData, Signature, SourceLoc, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use super::CodegenError;
use super::elemental::{Buffer, Emitter, Frame, KernelEnv, Params, error};
use super::loop_emitter::{IterationSpace, VectorPlan};
use crate::fusion::loop_invariance::LoopInvariance;
use crate::ir::{ArrayShape, FusionKind, Instruction, Module, Op, Opcode};
use std::collections::BTreeSet;

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
    /// HLO instruction names by source location, for annotating CLIF.
    pub names: Vec<String>,
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

/// Columns per work unit of a kOutput epilogue whose rows are longer and a multiple of it:
/// the GEMM hands it output tiles of whole units (`runtime/dot.rs`).
const EPILOGUE_UNIT: i64 = 512;

/// Aim for about this many element computations per task when splitting across threads.
const ELEMENTS_PER_TASK: i64 = 1 << 15;

/// Emits the body of `fusion`'s kernel into `b` (whose signature is [`kernel_signature`]).
pub fn emit_kernel<'m>(
    module: &'m Module,
    outer: &'m crate::ir::Computation,
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
    outer: &'m crate::ir::Computation,
    fusion: &'m Instruction,
    b: &mut FunctionBuilder<'_>,
    env: &mut KernelEnv,
    vectorize: bool,
) -> Result<KernelLayout, CodegenError> {
    let Op::Fusion { kind, calls } = &fusion.op else {
        return Err(error(fusion, "not a fusion"));
    };
    if !matches!(
        kind,
        FusionKind::Loop | FusionKind::Input | FusionKind::Output
    ) {
        return Err(error(fusion, format!("{kind} fusions are library work")));
    }
    let fused = module.computation(*calls);
    let mut operand_shapes = Vec::with_capacity(fusion.operands.len());
    for &o in &fusion.operands {
        let shape = outer.instr(o).shape.as_array().ok_or_else(|| {
            error(
                fusion,
                "tuple-shaped fusion operands are not supported by kernels",
            )
        })?;
        operand_shapes.push(shape.clone());
    }
    // kOutput: the dot (or convolution) the runtime computed, read from the next buffer.
    let library_result = if *kind == FusionKind::Output {
        let id = fused
            .order
            .iter()
            .copied()
            .find(|&i| matches!(fused.instr(i).opcode(), Opcode::Dot | Opcode::Convolution))
            .ok_or_else(|| error(fusion, "kOutput fusion without a dot"))?;
        let shape = fused
            .instr(id)
            .shape
            .as_array()
            .ok_or_else(|| error(fusion, "dot result is not an array"))?
            .clone();
        Some((id, shape))
    } else {
        None
    };
    let outputs: Vec<ArrayShape> = fusion.shape.leaves().into_iter().cloned().collect();
    if outputs.is_empty() {
        return Err(error(fusion, "fusion has no array result"));
    }
    let root = fused.root_instr();
    // A row kernel computes reductions once per row before the row's loop.
    let invariance = LoopInvariance::of(fused);
    let row_kernel = invariance
        .hoisted()
        .any(|b| fused.instr(b).shape.dims() == root.shape.dims() && reads_reduction(fused, b));
    let in_place_dus = root.opcode() == Opcode::DynamicUpdateSlice
        && matches!(fused.instr(root.operands[0]).op, Op::Parameter { .. })
        && outputs.len() == 1;
    let space = if in_place_dus {
        let mut update = fused
            .instr(root.operands[1])
            .shape
            .as_array()
            .ok_or_else(|| error(root, "update is not an array"))?
            .clone();
        update.layout = outputs[0].layout.clone();
        IterationSpace::new(&update)
    } else {
        for o in &outputs[1..] {
            if o.dims != outputs[0].dims {
                return Err(error(
                    fusion,
                    "multi-output fusion outputs must have equal dimensions",
                ));
            }
        }
        if row_kernel {
            IterationSpace::whole_rows(&outputs[0])
        } else if library_result.is_some() {
            // A kOutput epilogue runs on the GEMM's output tiles, cut at unit boundaries.
            IterationSpace::with_chunk(&outputs[0], EPILOGUE_UNIT)
        } else {
            IterationSpace::new(&outputs[0])
        }
    };

    // Entry block: load the buffer pointers.
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    // Source location i names HLO instruction `names[i]`; location 0 ("no instruction")
    // comes first so it is the function's base location.
    b.set_srcloc(SourceLoc::new(0));
    let params = b.block_params(entry).to_vec();
    let (table, begin, end) = (params[0], params[1], params[2]);
    let pointer_flags = MemFlagsData::trusted().with_readonly();
    let n_in = operand_shapes.len() + usize::from(library_result.is_some());
    let mut pointers: Vec<Value> = Vec::with_capacity(n_in + outputs.len());
    for k in 0..n_in + outputs.len() {
        pointers.push(
            b.ins()
                .load(types::I64, pointer_flags, table, (8 * k) as i32),
        );
    }
    let buffers: Vec<Buffer> = operand_shapes
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
        library_result: library_result.as_ref().map(|(id, shape)| {
            (
                *id,
                Buffer {
                    base: pointers[operand_shapes.len()],
                    shape: shape.clone(),
                },
            )
        }),
        id: 0,
    };
    let out_pointers = pointers[n_in..].to_vec();

    // A root reduce keeping the input's minor dimension: the column-reduction emitter.
    let column = if vectorize
        && env.vectors
        && !in_place_dus
        && outputs.len() == 1
        && library_result.is_none()
    {
        super::column_reduce::plan(module, fused, &outputs[0])
    } else {
        None
    };
    // Elementwise float fusions over contiguous buffers get a vector inner loop; so does a
    // kOutput epilogue, reading the dot's result like a parameter.
    let library = library_result.as_ref().map(|(id, _)| *id);
    let vty = if vectorize && outputs.len() == 1 {
        super::vectorize::vector_type(fused, &outputs[0], library).or_else(|| {
            library
                .is_none()
                .then(|| super::vector_window::vector_window_type(module, fused, &outputs[0]))?
        })
    } else {
        None
    };
    // Scalar loop fusions reading an operand across its layout walk the output in tiles.
    let tiled = if column.is_none() && !in_place_dus && vty.is_none() && !row_kernel {
        super::tiled_loops::tiled_space(fused, &outputs[0])
    } else {
        None
    };
    // Values computed once per row into a stack buffer (`row_cache.rs`).
    let cached = if column.is_none() && !in_place_dus && tiled.is_none() {
        super::row_cache::plan(fused, &space, env.block_math)
    } else {
        Vec::new()
    };
    let env_vectors = env.vectors;
    let mut emitter = Emitter::new(b, module, env);
    if let Some(plan) = &column {
        emitter.emit_column_reduce(&frame, plan, out_pointers[0], begin, end)?;
    } else if in_place_dus {
        emit_in_place_dus(
            &mut emitter,
            &frame,
            root,
            &outputs[0],
            out_pointers[0],
            &space,
            begin,
            end,
        )?;
    } else {
        let mut store_root = |this: &mut Emitter<'m, '_, '_>, index: &[Value]| {
            let values = this.emit(&frame, fused.root, index)?;
            if values.len() != outputs.len() {
                return Err(error(
                    fusion,
                    "root leaves do not match the fusion's outputs",
                ));
            }
            for ((v, shape), &base) in values.iter().zip(&outputs).zip(&out_pointers) {
                let offset = this.physical_offset(shape, index);
                this.store_element(base, offset, shape.element_type, *v);
            }
            Ok(())
        };
        if let Some(tiled) = &tiled {
            // Float fusions with a block form: 4x4 (f32) / 2x2 (f64) in-register transposes.
            let block = if vectorize && env_vectors && outputs.len() == 1 {
                super::vector_transpose::vector_transpose_type(fused, tiled)
            } else {
                None
            };
            if let Some(vty) = block {
                let plan = VectorPlan {
                    frame: &frame,
                    root: fused.root,
                    vty,
                    out: out_pointers[0],
                    shape: &outputs[0],
                };
                emitter.vector_tiled_loops(tiled, &plan, begin, end, &mut store_root)?;
            } else {
                emitter.tiled_loops(tiled, begin, end, &mut store_root)?;
            }
        } else {
            let lanes = vty.map_or(1, |t| i64::from(t.lane_count()));
            let plan = vty.map(|vty| VectorPlan {
                frame: &frame,
                root: fused.root,
                vty,
                out: out_pointers[0],
                shape: &outputs[0],
            });
            // Before each row: the broadcasts the row's loop reads but does not change.
            let minor: BTreeSet<usize> = space.minor.into_iter().collect();
            let starts: Vec<_> = if root.opcode() == Opcode::Tuple {
                root.operands.clone()
            } else {
                vec![fused.root]
            };
            // Rows that call block routines prefetch their successor meanwhile.
            let mut streams: Vec<(Value, ArrayShape)> = Vec::new();
            if cached.iter().any(|c| c.routine.is_some()) {
                if let Params::Buffers(buffers) = &frame.params {
                    streams.extend(
                        buffers
                            .iter()
                            .filter(|p| {
                                p.shape.dims == space.shape.dims
                                    && p.shape.layout == space.shape.layout
                            })
                            .map(|p| (p.base, p.shape.clone())),
                    );
                }
                streams.extend(
                    out_pointers
                        .iter()
                        .zip(&outputs)
                        .map(|(&p, s)| (p, s.clone())),
                );
            }
            emitter.start_row_prefetch(streams, &space, &cached);
            if cached.iter().any(|c| c.routine.is_some()) {
                emitter.start_pointer_reloads(table, pointers.clone());
            }
            let mut prologue = |this: &mut Emitter<'m, '_, '_>, index: &[Value]| {
                this.reload_pointers();
                this.queue_next_row(&space, index);
                this.fill_row_cache(&frame, &cached, &space, index, vty)?;
                this.reload_pointers();
                for &s in &starts {
                    this.hoist_invariant_broadcasts(&frame, s, index, &minor)?;
                }
                Ok(())
            };
            emitter.work_unit_loops_vectorized(
                &space,
                begin,
                end,
                lanes,
                plan.as_ref(),
                Some(&mut prologue),
                &mut store_root,
            )?;
        }
    }
    emitter.b.ins().return_(&[]);
    let names = std::mem::take(&mut emitter.names);

    let reduce_work: i64 = fused
        .iter()
        .filter_map(|(_, i)| match &i.op {
            Op::Reduce { dimensions, .. } => {
                let dims = fused.instr(i.operands[0]).shape.dims().to_vec();
                Some(
                    dimensions
                        .iter()
                        .map(|&d| dims.get(d).copied().unwrap_or(1).max(1))
                        .product(),
                )
            }
            Op::ReduceWindow { window, .. } => {
                Some(window.dimensions.iter().map(|w| w.size.max(1)).product())
            }
            _ => None,
        })
        .max()
        .unwrap_or(1);
    let (work_units, per_unit) = match (&column, &tiled) {
        (Some(plan), _) => (plan.work_units, plan.elements_per_unit.max(1)),
        (None, Some(t)) => (
            t.work_units,
            t.elements_per_unit().saturating_mul(reduce_work).max(1),
        ),
        (None, None) if row_kernel => {
            // Each reduction runs once per row, not once per element.
            let reductions = fused
                .iter()
                .filter(|(_, i)| i.opcode() == Opcode::Reduce)
                .count() as i64;
            (
                space.work_units,
                space.elements_per_unit().saturating_mul(1 + reductions),
            )
        }
        (None, None) => (
            space.work_units,
            space.elements_per_unit().saturating_mul(reduce_work).max(1),
        ),
    };
    Ok(KernelLayout {
        work_units,
        min_units_per_task: ((ELEMENTS_PER_TASK + per_unit - 1) / per_unit).max(1) as u64,
        operand_count: n_in,
        output_count: outputs.len(),
        units_in_layout_order: column.is_none() && tiled.is_none() && !in_place_dus,
        unit_elements: (column.is_none() && tiled.is_none() && !in_place_dus)
            .then(|| {
                let n = space.minor.map_or(1, |d| space.shape.dims[d]);
                (space.chunk > 0 && n % space.chunk == 0).then_some(space.chunk as u64)
            })
            .flatten(),
        names,
    })
}

/// True if the operand of broadcast `b` reads a reduction (directly or through other ops).
fn reads_reduction(fused: &crate::ir::Computation, b: crate::ir::InstrId) -> bool {
    let mut stack = vec![b];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let i = fused.instr(id);
        if i.opcode() == Opcode::Reduce {
            return true;
        }
        stack.extend(i.operands.iter().copied());
    }
    false
}

/// In-place `dynamic-update-slice`: for each update element `u`, store it at
/// `clamp(start) + u` in the output (which already holds operand 0).
#[allow(clippy::too_many_arguments)]
fn emit_in_place_dus<'m>(
    emitter: &mut Emitter<'m, '_, '_>,
    frame: &Frame<'m>,
    root: &'m Instruction,
    output: &ArrayShape,
    out: Value,
    space: &IterationSpace,
    begin: Value,
    end: Value,
) -> Result<(), CodegenError> {
    let update_dims = space.shape.dims.clone();
    emitter.work_unit_loops(space, begin, end, &mut |this, index| {
        let mut target = Vec::with_capacity(index.len());
        for (d, &u) in index.iter().enumerate() {
            let start_id = *root
                .operands
                .get(2 + d)
                .ok_or_else(|| error(root, "missing start index"))?;
            let t = frame
                .comp
                .instr(start_id)
                .shape
                .element_type()
                .unwrap_or(crate::ir::PrimitiveType::S32);
            let s = this.emit1(frame, start_id, &[])?;
            let s = if t.is_signed_integral() {
                this.sign_extend_to(s, types::I64)
            } else {
                this.zero_extend_to(s, types::I64)
            };
            let s = this.clamp_i64(s, 0, (output.dims[d] - update_dims[d]).max(0));
            target.push(this.b.ins().iadd(s, u));
        }
        let v = this.emit1(frame, root.operands[1], index)?;
        let offset = this.physical_offset(output, &target);
        this.store_element(out, offset, output.element_type, v);
        Ok(())
    })
}
