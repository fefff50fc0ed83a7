//! The LAPACK FFI custom calls JAX emits on CPU (every target `eval::lapack` serves:
//! `lapack_?getrf_ffi`, `?geqrf`, `?geqp3`, `?orgqr`, `?ormqr`, `?gesdd`, `?gesvd`,
//! `?syevd`, `?geev`, `?gees`, `?gehrd`, `?sytrd`, `?gtsv`, `?potrf`, `?trsm` and their
//! complex names, and `tridiagonal_solve_perturbed_ffi`) as native routines on the plan's
//! buffers, f32/f64/c64/c128, batched.
//!
//! The routines themselves are `eval::lapack`'s (faer's factorizations in LAPACK's output
//! conventions), shared with the interpreter so that both backends compute the same bits;
//! this file moves each batch matrix between the buffers (any physical layout) and the
//! logical column-major work arrays the routines take. Inputs that share bytes with an
//! output (XLA aliases the factor with the operand) are staged first.
//! XLA/JAX: `jaxlib/cpu/lapack_kernels.cc`.

use super::{for_each_index, inputs_safe_from, offset};
use crate::eval::lapack::{self, LapackCall, LapackIo};
use crate::ir::denormal_mode::{DenormalMode, with_denormal_mode};
use crate::ir::{CustomCall, Instruction, NativeType};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// A LAPACK custom call on buffers.
#[derive(Clone, Debug)]
pub struct LapackThunk {
    /// The custom-call instruction.
    pub name: String,
    /// What to compute, with the logical shapes.
    pub call: LapackCall,
    /// The operand leaves.
    pub operands: Vec<BufferRef>,
    /// The result leaves.
    pub results: Vec<BufferRef>,
}

impl LapackThunk {
    /// Builds the thunk for `instr` if its target is a LAPACK routine xlac runs natively;
    /// `Ok(None)` for other targets. `operands` and `results` are the array leaves, in order.
    pub fn new(
        instr: &Instruction,
        cc: &CustomCall,
        operands: &[BufferRef],
        results: &[BufferRef],
    ) -> Result<Option<LapackThunk>, String> {
        let shapes = |b: &[BufferRef]| b.iter().map(|b| b.shape.clone()).collect::<Vec<_>>();
        let Some(call) = LapackCall::new(instr, cc, &shapes(operands), &shapes(results))? else {
            return Ok(None);
        };
        Ok(Some(LapackThunk {
            name: instr.name.clone(),
            call,
            operands: operands.to_vec(),
            results: results.to_vec(),
        }))
    }

    /// What the thunk line says after "native".
    pub fn describe(&self) -> String {
        self.call.describe()
    }
}

/// Where each batch element of one buffer starts, and its per-dimension strides.
struct Blocks {
    ptr: *mut u8,
    starts: Vec<usize>,
    strides: Vec<usize>,
    dims: Vec<usize>,
}

impl Blocks {
    fn new(b: &BufferRef, ptr: *mut u8, core: usize) -> Blocks {
        let dims: Vec<usize> = b.shape.dims.iter().map(|&d| d.max(0) as usize).collect();
        let strides = b.shape.physical_strides();
        let r = dims.len();
        let mut starts = Vec::new();
        for_each_index(&dims[..r - core], None, &mut |i| {
            starts.push(offset(i, &strides[..r - core]))
        });
        Blocks {
            ptr,
            starts,
            strides,
            dims,
        }
    }

    /// Element offsets of block `b` in column-major order of its core dimensions.
    fn offsets(&self, core: usize, b: usize) -> Vec<usize> {
        let r = self.dims.len();
        let s = self.starts[b];
        match core {
            0 => vec![s],
            1 => (0..self.dims[r - 1])
                .map(|i| s + i * self.strides[r - 1])
                .collect(),
            _ => {
                let (rows, cols) = (self.dims[r - 2], self.dims[r - 1]);
                let mut v = Vec::with_capacity(rows * cols);
                for j in 0..cols {
                    for i in 0..rows {
                        v.push(s + i * self.strides[r - 2] + j * self.strides[r - 1]);
                    }
                }
                v
            }
        }
    }
}

struct BufferIo {
    operands: Vec<Blocks>,
    results: Vec<Blocks>,
}

impl LapackIo for BufferIo {
    fn read<T: NativeType>(&self, i: usize, core: usize, b: usize) -> Vec<T> {
        let blocks = &self.operands[i];
        blocks
            .offsets(core, b)
            .into_iter()
            // SAFETY: the offsets are elements of the operand's buffer, of type `T`
            // (`LapackCall` checked the shapes and types against the routine).
            .map(|e| unsafe { blocks.ptr.cast::<T>().add(e).read_unaligned() })
            .collect()
    }

    fn write<T: NativeType>(&mut self, i: usize, core: usize, b: usize, v: &[T]) {
        let blocks = &self.results[i];
        for (e, &x) in blocks.offsets(core, b).into_iter().zip(v) {
            // SAFETY: as in `read`, for the result's buffer.
            unsafe { blocks.ptr.cast::<T>().add(e).write_unaligned(x) };
        }
    }
}

/// Runs a LAPACK thunk.
pub fn run(t: &LapackThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let inputs: Vec<&BufferRef> = t.operands.iter().collect();
    // Kept alive until the routine has read everything.
    let (ptrs, _staged) = inputs_safe_from(&inputs, &t.results, memory);
    let mut io = BufferIo {
        operands: t
            .operands
            .iter()
            .zip(ptrs)
            .enumerate()
            .map(|(i, (b, p))| Blocks::new(b, p, t.call.operand_core_rank(i)))
            .collect(),
        results: t
            .results
            .iter()
            .enumerate()
            .map(|(i, b)| Blocks::new(b, memory.ptr(b.slice), t.call.result_core_rank(i)))
            .collect(),
    };
    // IEEE arithmetic whatever the calling thread's mode: faer's SVD and eigensolvers scale
    // by numbers near the smallest normal, and under FTZ/DAZ (jaxlib's executing threads)
    // a batched complex SVD came out wrong.
    with_denormal_mode(DenormalMode::Keep, || lapack::run(&t.call, &mut io))
        .map_err(|m| RuntimeError::new(format!("{} ({}): {m}", t.name, t.call.target)))
}
