//! Scalar computations as native functions: a sort's comparator, a scatter's update
//! computation, a select-and-scatter's `select` and `scatter`. Each becomes one CLIF function
//! with the ABI [`ScalarFn`]: a table of pointers to the parameter scalars (parameter
//! number order) and a table of pointers where the root's leaves go. The body is the
//! elemental emitter's [`Emitter::inline_computation`], the same code a reduce's reducer
//! gets inside a kernel, so a comparator compiled here agrees with one inlined there.
//!
//! This is XLA:CPU's form: `IrEmitter` compiles a sort comparator into a function taking
//! `void** params` (2N scalar pointers) and writing a `bool` result, which the runtime's
//! sort calls per comparison (`xla/service/cpu/runtime/sort.cc`, `xla/backends/cpu/
//! runtime/sort_thunk.cc`). It is not a kernel: no loop, no work range.

use std::collections::HashMap;

use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, SourceLoc, types};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use super::CodegenError;
use super::elemental::{Emitter, KernelEnv, error};
use crate::ir::{ComputationId, Module, Op, PrimitiveType, Shape};

/// A compiled scalar computation. `params[k]` points at parameter `k`'s scalar (stored as
/// its element type: `pred` one byte 0/1, `bf16`/`f16` two bytes, ...); the root's leaves
/// are stored through `results[i]` in the same encodings.
pub type ScalarFn = unsafe extern "C" fn(params: *const *const u8, results: *const *mut u8);

/// The signature of every [`ScalarFn`]: `(params: i64, results: i64)`, no results.
pub fn scalar_signature(call_conv: CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params
        .extend([AbiParam::new(types::I64), AbiParam::new(types::I64)]);
    sig
}

/// The element types of a scalar computation: one per parameter (by number), one per root
/// leaf. Fails, naming the computation, unless every parameter and root leaf is a scalar
/// of a type the elemental emitter computes.
pub fn scalar_types(
    module: &Module,
    comp: ComputationId,
) -> Result<(Vec<PrimitiveType>, Vec<PrimitiveType>), CodegenError> {
    let c = module.computation(comp);
    let fail = |m: &str| CodegenError {
        kind: crate::ir::ErrorKind::Internal,
        instruction: c.name.clone(),
        message: m.to_string(),
    };
    let scalar = |s: &Shape| match s {
        Shape::Array(a)
            if a.rank() == 0 && super::elemental::value_type(a.element_type).is_some() =>
        {
            Some(a.element_type)
        }
        _ => None,
    };
    let mut params: Vec<(usize, PrimitiveType)> = Vec::new();
    for (_, i) in c.iter() {
        if let Op::Parameter { number } = i.op {
            let t = scalar(&i.shape).ok_or_else(|| {
                fail("a native scalar function takes scalar parameters of a kernel type")
            })?;
            params.push((number, t));
        }
    }
    params.sort_by_key(|&(n, _)| n);
    if params.iter().enumerate().any(|(k, &(n, _))| k != n) {
        return Err(fail("parameter numbers are not 0..n"));
    }
    let mut results = Vec::new();
    for leaf in c.root_instr().shape.leaves() {
        let t = scalar(&Shape::Array(leaf.clone()))
            .ok_or_else(|| fail("a native scalar function returns scalars of a kernel type"))?;
        results.push(t);
    }
    Ok((params.into_iter().map(|(_, t)| t).collect(), results))
}

/// Emits the body of scalar computation `comp` with the [`ScalarFn`] ABI into `b` (whose
/// signature is [`scalar_signature`]). Returns the HLO names by source location.
pub fn emit_scalar_function(
    module: &Module,
    comp: ComputationId,
    b: &mut FunctionBuilder<'_>,
    env: &mut KernelEnv,
) -> Result<Vec<String>, CodegenError> {
    let (param_types, result_types) = scalar_types(module, comp)?;
    let c = module.computation(comp);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.set_srcloc(SourceLoc::new(0));
    let table = b.block_params(entry).to_vec();
    let pointer_flags = MemFlagsData::trusted().with_readonly();
    let mut emitter = Emitter::new(b, module, env);
    let zero = emitter.i64c(0);
    let mut args = Vec::with_capacity(param_types.len());
    for (k, &t) in param_types.iter().enumerate() {
        let p = emitter
            .b
            .ins()
            .load(types::I64, pointer_flags, table[0], (8 * k) as i32);
        args.push(vec![emitter.load_element(p, zero, t, c.root_instr())?]);
    }
    let values = emitter.inline_computation(comp, args)?;
    if values.len() != result_types.len() {
        return Err(error(
            c.root_instr(),
            "root leaves do not match the result types",
        ));
    }
    for (k, (&v, &t)) in values.iter().zip(&result_types).enumerate() {
        let p = emitter
            .b
            .ins()
            .load(types::I64, pointer_flags, table[1], (8 * k) as i32);
        emitter.store_element(p, zero, t, v);
    }
    emitter.b.ins().return_(&[]);
    Ok(std::mem::take(&mut emitter.names))
}

/// The scalar computations the runtime's library routines call, by the instruction that
/// uses them: sort comparators, scatter combiners, select-and-scatter's select and scatter.
/// Only computations called from non-fused computations are listed, each once.
pub fn library_computations(module: &Module) -> Vec<ComputationId> {
    let fused = super::fused_computations(module);
    let mut seen = HashMap::new();
    let mut out = Vec::new();
    for &c in &module.order {
        if fused.contains(&c) {
            continue;
        }
        for (_, i) in module.computation(c).iter() {
            let called: Vec<ComputationId> = match &i.op {
                Op::Sort { to_apply, .. } | Op::Scatter { to_apply, .. } => vec![*to_apply],
                Op::SelectAndScatter {
                    select, scatter, ..
                } => vec![*select, *scatter],
                // The runtime's collective thunks fold members with the reducer.
                Op::Unmodeled {
                    opcode: crate::ir::Opcode::AllReduce | crate::ir::Opcode::ReduceScatter,
                    called,
                } => called
                    .iter()
                    .filter(|c| c.attribute == "to_apply")
                    .flat_map(|c| c.computations.first().copied())
                    .collect(),
                _ => Vec::new(),
            };
            for id in called {
                if seen.insert(id, ()).is_none() {
                    out.push(id);
                }
            }
        }
    }
    out
}
