//! The runtime: an [`Executable`] is a thunk sequence over the buffer plan (kernel calls,
//! library calls for dot, convolution, ..., copies, while, conditional, call), with buffers
//! allocated once and reused across runs. Large kernels split their range over a rayon
//! pool. The compiler's thunk emitter (`compiler/thunk_emitter.rs`) makes the sequence; this
//! room only runs it. XLA: `xla/backends/cpu/runtime/` (thunks, `ThunkExecutor`).
//!
//! How a run goes: every non-parameter allocation of the plan exists once (64-byte
//! aligned; constants filled when the executable is built). `execute` binds each entry
//! parameter leaf to the caller's literal storage when its physical layout matches the
//! parameter's (else relays it out into a scratch buffer), runs the entry sequence, and
//! returns the result leaves as fresh literals in the entry result's layouts: a leaf with
//! an allocation of its own is computed straight into the literal's storage (allocated
//! for the run), the others are copied out of the executable's memory.
//!
//! Files: [`buffer_plan`] (the slices the runtime reads from buffer assignment), [`thunk`]
//! (the thunk kinds and `thunk-sequence.txt`),
//! [`execute`] (running them), [`buffers`] (memory and literal I/O), [`dot`] and
//! [`convolution`] (GEMM-backed library routines), [`elements`] (their type conversions),
//! [`library`] (native sort, scatter, select-and-scatter and LAPACK routines),
//! [`device_memory`] (buffers kept on devices between runs).

pub mod buffer_plan;
pub mod buffers;
pub mod collectives;
pub mod context;
pub mod device_memory;
pub mod elements;
pub mod execute;
pub mod library;
pub mod memory;
pub mod profile;
pub mod race;
pub mod thunk;
pub mod tuning;

#[cfg(test)]
mod tests;

use std::fmt;

use crate::codegen::KernelSet;
use crate::eval::{EvalOptions, Evaluator};
use crate::ir::{ArrayLiteral, ArrayShape, Literal, Module, Shape, ShapeIndex};
use crate::layout::{AllocationKind, BufferAssignment, Slice};

use buffer_plan::{Plan, leaf_indices};
use buffers::{
    AlignedBuffer, literal_bytes, literal_bytes_mut, literal_leaf, literal_leaf_mut, read_array,
    read_value, result_storage, take_literal_leaf, write_array,
};
use context::{Context, DeviceBinding};
use execute::run_sequence;
use memory::Memory;
use thunk::{BufferRef, ThunkSequence};

/// Why building or running an executable failed; names the instruction where there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// Whether the input is wrong, the compiled backend lacks something, or xlac has a bug.
    pub kind: crate::ir::ErrorKind,
    /// What went wrong.
    pub message: String,
}

impl RuntimeError {
    /// A runtime error with a message: an error in the input or the arguments (the default
    /// kind).
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError::of_kind(crate::ir::ErrorKind::Invalid, message)
    }

    /// A runtime error of `kind`.
    pub fn of_kind(kind: crate::ir::ErrorKind, message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            kind,
            message: message.into(),
        }
    }
}

/// A reference thunk's (or a library routine's) interpreter error keeps its kind.
impl From<crate::eval::EvalError> for RuntimeError {
    fn from(e: crate::eval::EvalError) -> RuntimeError {
        RuntimeError::of_kind(e.kind, e.to_string())
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

crate::ir::impl_unsupported!(RuntimeError);

/// One argument of [`Executable::execute_donated`].
#[derive(Debug)]
pub enum Argument<'a> {
    /// Read only: the caller keeps it, and its bytes are never written.
    Borrowed(&'a Literal),
    /// Given up to the run (donated, as `jax.jit(..., donate_argnums=...)` does): a leaf
    /// whose parameter buffer also holds an `input_output_alias` output is computed in
    /// this literal's own storage and comes back as that output, without a copy.
    Donated(Literal),
}

impl Argument<'_> {
    /// The argument's value, whoever owns it.
    pub fn literal(&self) -> &Literal {
        match self {
            Argument::Borrowed(l) => l,
            Argument::Donated(l) => l,
        }
    }

    fn leaf(&self, index: &[usize]) -> Option<&ArrayLiteral> {
        match self {
            Argument::Borrowed(l) => literal_leaf(l, index),
            Argument::Donated(l) => literal_leaf(l, index),
        }
    }
}

/// A donated parameter leaf bound as the storage of its allocation for one run.
struct InPlace {
    allocation: usize,
    number: usize,
    index: ShapeIndex,
}

/// One entry parameter leaf: where the caller's data goes.
struct ParameterLeaf {
    number: usize,
    index: ShapeIndex,
    slice: Slice,
    shape: ArrayShape,
}

/// The arguments of one run, borrowed or donated.
struct Arguments<'a>(Vec<Argument<'a>>);

impl<'a> From<&[&'a Literal]> for Arguments<'a> {
    fn from(args: &[&'a Literal]) -> Self {
        Arguments(args.iter().map(|&a| Argument::Borrowed(a)).collect())
    }
}

impl<'a> From<Vec<Argument<'a>>> for Arguments<'a> {
    fn from(args: Vec<Argument<'a>>) -> Self {
        Arguments(args)
    }
}

/// A compiled module ready to run: the final module, its buffer plan and kernels.
pub struct Executable {
    /// The final (fused, laid-out, scheduled) module.
    pub module: Module,
    /// Where every value lives.
    pub buffers: BufferAssignment,
    /// The generated code (shared by the replicas of one executable).
    pub kernels: std::sync::Arc<KernelSet>,
    /// Seed of the `rng` op (reset at every run, as the interpreter's).
    pub seed: u64,
    /// Timeout and while-iteration cap of every run (none by default).
    pub limits: crate::eval::limits::RunLimits,
    /// Custom calls the runtime has no thunk for run on the interpreter, which asks this
    /// handler first (`xlac check --backend compiled` plugs in the `check.*` ops).
    pub custom_call_handler: Option<std::sync::Arc<dyn crate::eval::CustomCallHandler>>,
    /// `--guard-buffers` ([`BufferMode::Guarded`]): parameters are copied into guarded
    /// memory, never bound in place.
    mode: BufferMode,
    plan: Plan,
    entry: ThunkSequence,
    /// Owned memory per allocation (`None` for parameter allocations bound per run).
    memory: Vec<Option<AlignedBuffer>>,
    /// Scratch for parameters that cannot be bound in place, by allocation.
    parameter_scratch: Vec<Option<AlignedBuffer>>,
    parameters: Vec<ParameterLeaf>,
    result: Vec<(ShapeIndex, thunk::BufferRef)>,
    /// Per result leaf: computed straight into the storage of the literal a run returns
    /// (a fresh allocation per run) instead of the executable's memory and a copy. True
    /// for a leaf alone in an allocation of its own that nothing fills in advance.
    fresh_result: Vec<bool>,
    /// The slices constants fill (copied, not recomputed, by [`Executable::replicate`]).
    constant_slices: Vec<Slice>,
    /// Some thunk may split its work over the pool ([`execute::may_split`]).
    splits: bool,
}

/// Where an executable's buffers live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferMode {
    /// Plain 64-byte aligned allocations; parameters bound in place where their layout
    /// allows.
    Plain,
    /// `--guard-buffers`: every buffer (parameters too: they are always copied in) in its
    /// own [`AlignedBuffer::guarded`] mapping, so that an access past any buffer faults.
    Guarded,
}

/// What the thunk emitter hands the runtime: the entry computation's sequence and the
/// constants that live in constant allocations (written once, when the buffers are made).
#[derive(Debug, Default)]
pub struct Thunks {
    /// The entry computation's thunks.
    pub entry: ThunkSequence,
    /// Each constant's value and the slice it fills.
    pub constants: Vec<(ArrayLiteral, BufferRef)>,
}

impl Executable {
    /// The executable that runs `thunks` over `plan`: allocates every non-parameter buffer
    /// once and writes the constants. Fails if the plan and the thunks disagree.
    pub fn from_thunks(
        module: Module,
        buffers: BufferAssignment,
        plan: Plan,
        kernels: std::sync::Arc<KernelSet>,
        thunks: Thunks,
        mode: BufferMode,
    ) -> Result<Executable, RuntimeError> {
        let Thunks { entry, constants } = thunks;
        let mut e = Executable::over_fresh_memory(module, buffers, plan, kernels, entry, mode)?;
        for (value, dst) in &constants {
            let Some(Some(buf)) = e.memory.get(dst.slice.allocation) else {
                return Err(RuntimeError::new("a constant slice is outside the plan"));
            };
            // SAFETY: the slice lies inside its allocation and holds the constant's shape.
            unsafe { write_array(buf.ptr().add(dst.slice.offset), value, &dst.shape) };
        }
        e.constant_slices = constants.into_iter().map(|(_, dst)| dst.slice).collect();
        e.fresh_result = e.fresh_results();
        Ok(e)
    }

    /// Another executable of the same module, code and thunks with its own buffers: one
    /// per device of a grid, compiled once. Constants are copied from this executable's
    /// buffers (nothing writes them); collectives resolve against their grid anew.
    pub fn replicate(&self) -> Result<Executable, RuntimeError> {
        let mut e = Executable::over_fresh_memory(
            self.module.clone(),
            self.buffers.clone(),
            self.plan.clone(),
            self.kernels.clone(),
            self.entry.clone(),
            self.mode,
        )?;
        for slice in &self.constant_slices {
            let (Some(Some(from)), Some(Some(to))) = (
                self.memory.get(slice.allocation),
                e.memory.get(slice.allocation),
            ) else {
                return Err(RuntimeError::new("a constant slice is outside the plan"));
            };
            // SAFETY: both buffers are allocations of one plan, which holds the slice.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    from.ptr().add(slice.offset),
                    to.ptr().add(slice.offset),
                    slice.size,
                )
            };
        }
        e.constant_slices = self.constant_slices.clone();
        e.fresh_result = e.fresh_results();
        e.seed = self.seed;
        e.limits = self.limits.clone();
        e.custom_call_handler = self.custom_call_handler.clone();
        Ok(e)
    }

    /// The executable over newly allocated buffers, constants not yet written.
    fn over_fresh_memory(
        module: Module,
        buffers: BufferAssignment,
        plan: Plan,
        kernels: std::sync::Arc<KernelSet>,
        entry: ThunkSequence,
        mode: BufferMode,
    ) -> Result<Executable, RuntimeError> {
        let allocate = |size: usize, what: &dyn Fn() -> String| match mode {
            BufferMode::Guarded => AlignedBuffer::guarded(size, what),
            BufferMode::Plain => AlignedBuffer::try_new(size, what),
        };
        let memory: Vec<Option<AlignedBuffer>> = plan
            .allocations
            .iter()
            .enumerate()
            .map(|(i, a)| match a.kind {
                AllocationKind::Parameter { .. } => Ok(None),
                _ => allocate(a.size, &|| format!("buffer allocation {i}")).map(Some),
            })
            .collect::<Result<_, _>>()
            .map_err(|e| RuntimeError::new(e.to_string()))?;
        let entry_comp = module.entry_computation();
        let mut parameters = Vec::new();
        for &p in &entry_comp.parameters() {
            let instr = &entry_comp.instrs[p];
            let crate::ir::Op::Parameter { number } = instr.op else {
                continue;
            };
            for index in leaf_indices(&instr.shape) {
                let Some(Shape::Array(shape)) = instr.shape.subshape(&index) else {
                    continue;
                };
                let slice = plan.slice(module.entry, p, &index).ok_or_else(|| {
                    RuntimeError::new(format!("parameter {number}: no buffer for leaf {index:?}"))
                })?;
                parameters.push(ParameterLeaf {
                    number,
                    index,
                    slice,
                    shape: shape.clone(),
                });
            }
        }
        let root = entry_comp.root;
        let root_shape = &entry_comp.instrs[root].shape;
        let mut result = Vec::new();
        for index in leaf_indices(root_shape) {
            let Some(Shape::Array(shape)) = root_shape.subshape(&index) else {
                continue;
            };
            let slice = plan.slice(module.entry, root, &index).ok_or_else(|| {
                RuntimeError::new(format!("the entry result has no buffer for leaf {index:?}"))
            })?;
            result.push((
                index,
                thunk::BufferRef {
                    slice,
                    shape: shape.clone(),
                },
            ));
        }
        let parameter_scratch = (0..plan.allocations.len()).map(|_| None).collect();
        let splits = execute::may_split(&entry);
        Ok(Executable {
            module,
            buffers,
            kernels,
            seed: 0,
            limits: Default::default(),
            custom_call_handler: None,
            mode,
            plan,
            entry,
            memory,
            parameter_scratch,
            parameters,
            fresh_result: vec![false; result.len()],
            result,
            constant_slices: Vec::new(),
            splits,
        })
    }

    /// Per result leaf: whether it can be computed straight into the returned literal (a
    /// leaf alone in a temporary allocation of its own that no constant fills).
    fn fresh_results(&self) -> Vec<bool> {
        let result = &self.result;
        result
            .iter()
            .map(|(_, b)| {
                let info = &self.plan.allocations[b.slice.allocation];
                self.mode == BufferMode::Plain
                    && matches!(info.kind, AllocationKind::Temp)
                    && b.slice.offset == 0
                    && b.slice.size == info.size
                    && result
                        .iter()
                        .filter(|(_, o)| o.slice.allocation == b.slice.allocation)
                        .count()
                        == 1
                    && !self
                        .constant_slices
                        .iter()
                        .any(|c| c.allocation == b.slice.allocation)
            })
            .collect()
    }

    /// Runs on `args` (the entry parameters, in any layouts) and returns the entry result
    /// in the layouts of the entry computation's root. Callable any number of times.
    pub fn execute(&mut self, args: &[Literal]) -> Result<Literal, RuntimeError> {
        let refs: Vec<&Literal> = args.iter().collect();
        self.execute_refs(&refs)
    }

    /// [`Self::execute`] on borrowed arguments (the PJRT plugin's buffers are shared, not
    /// owned by the call).
    pub fn execute_refs(&mut self, args: &[&Literal]) -> Result<Literal, RuntimeError> {
        self.execute_impl(args, true)?
            .ok_or_else(|| RuntimeError::new("the entry result could not be read"))
    }

    /// Runs on `args` like [`Self::execute`] but leaves the result in the executable's
    /// buffers instead of copying it into a new literal: what `xlac bench` times, as XLA's
    /// timings end when the result buffers are ready (`block_until_ready`), not after a
    /// copy to the host.
    pub fn run(&mut self, args: &[Literal]) -> Result<(), RuntimeError> {
        let refs: Vec<&Literal> = args.iter().collect();
        self.execute_impl(refs.as_slice(), false).map(drop)
    }

    /// Runs on `args` as device `device` of `collectives` (its collectives meet the other
    /// devices' there) and returns the entry result, as [`Self::execute`].
    pub fn execute_on(
        &mut self,
        args: &[&Literal],
        device: DeviceBinding,
    ) -> Result<Literal, RuntimeError> {
        let args: Vec<Argument<'_>> = args.iter().map(|&a| Argument::Borrowed(a)).collect();
        self.execute_arguments_on(args, device)
    }

    /// [`Self::execute_on`] with some arguments donated: an output aliased with a donated
    /// argument comes back in that argument's storage, as [`Self::execute_donated`].
    pub fn execute_arguments_on(
        &mut self,
        mut args: Vec<Argument<'_>>,
        device: DeviceBinding,
    ) -> Result<Literal, RuntimeError> {
        self.execute_device(&mut args, true, device)?
            .ok_or_else(|| RuntimeError::new("the entry result could not be read"))
    }

    /// Runs on `args` like [`Self::execute_refs`], taking ownership of the donated ones:
    /// an output that buffer assignment placed in a donated parameter's buffer
    /// (`input_output_alias`) is written into that argument's storage and returned in it,
    /// so its data pointer is the argument's. Other outputs are fresh literals; a donated
    /// argument whose layout differs from its parameter's is copied in, as a borrowed one.
    pub fn execute_donated(&mut self, args: Vec<Argument<'_>>) -> Result<Literal, RuntimeError> {
        self.execute_impl(args, true)?
            .ok_or_else(|| RuntimeError::new("the entry result could not be read"))
    }

    fn execute_impl<'a>(
        &mut self,
        args: impl Into<Arguments<'a>>,
        read_result: bool,
    ) -> Result<Option<Literal>, RuntimeError> {
        let mut args = args.into().0;
        // A run without a grid is the only device of its own.
        let single: std::sync::Arc<dyn collectives::Collectives> =
            std::sync::Arc::new(collectives::InProcess::single());
        single
            .start(0)
            .map_err(|e| RuntimeError::new(e.to_string()))?;
        let outcome = self.execute_device(
            &mut args,
            read_result,
            DeviceBinding {
                collectives: single.clone(),
                device: 0,
            },
        );
        single.finish(0, outcome.as_ref().map(drop).map_err(|e| e.message.clone()));
        outcome
    }

    fn execute_device(
        &mut self,
        args: &mut [Argument<'_>],
        read_result: bool,
        device: DeviceBinding,
    ) -> Result<Option<Literal>, RuntimeError> {
        let (mut bases, in_place) = self.bind(args)?;
        // The result leaves computed in place in the literals the run returns.
        let mut fresh = Vec::with_capacity(self.result.len());
        for ((_, b), &eligible) in self.result.iter().zip(&self.fresh_result) {
            let storage = if eligible && read_result {
                result_storage(&b.shape, b.slice.size)
                    .transpose()
                    .map_err(|e| RuntimeError::new(e.to_string()))?
            } else {
                None
            };
            if let Some(s) = &storage {
                bases[b.slice.allocation] = s.ptr();
            }
            fresh.push(storage);
        }
        let mut ctx = self.context(bases);
        let grid = device.collectives.grid().clone();
        let process =
            crate::eval::ProcessId::new(grid.replica(device.device), grid.partition(device.device));
        let mut context = crate::eval::DeviceContext::new(
            std::sync::Arc::new(crate::eval::ProcessGrid::new(
                grid.replicas,
                grid.partitions,
            )),
            process,
        );
        context.link = Some(std::sync::Arc::new(
            collectives::interpreter::InterpreterLink {
                collectives: device.collectives.clone(),
                device: device.device,
            },
        ));
        ctx.evaluator.device = context;
        ctx.device = device;
        // One device per process: its thunks run on the kernels' pool when some may split
        // their work. Devices run on threads of their own, each waiting for the others at
        // collectives, so none may hold a pool thread.
        if grid.replicas * grid.partitions == 1 && self.splits {
            let entry = &self.entry;
            execute::on_pool(|| run_sequence(entry, &mut ctx))?;
        } else {
            run_sequence(&self.entry, &mut ctx)?;
        }
        if !read_result {
            return Ok(None);
        }
        let root_shape = self.module.result_shape().clone();
        let result = &self.result;
        let memory = &ctx.memory;
        let allocations = &self.plan.allocations;
        let mut moved = std::collections::HashSet::new();
        read_value(&root_shape, &mut |index, _| {
            let position = result.iter().position(|(i, _)| i == index)?;
            let (_, b) = &result[position];
            if let Some(storage) = fresh[position].take() {
                // SAFETY: the run wrote the whole leaf into it (its allocation holds that
                // leaf alone, and the leaf's value is defined in full by the run).
                return Some(unsafe { storage.written() });
            }
            // An output computed in a donated argument's storage is that storage (once);
            // moving the literal keeps its heap bytes where they are.
            let whole = b.slice.offset == 0 && b.slice.size == allocations[b.slice.allocation].size;
            if let Some(ip) = in_place
                .iter()
                .find(|ip| ip.allocation == b.slice.allocation)
                && whole
                && moved.insert(ip.allocation)
                && let Argument::Donated(lit) = &mut args[ip.number]
                && literal_leaf(lit, &ip.index).is_some_and(|l| {
                    l.shape.element_type == b.shape.element_type
                        && l.shape.dims == b.shape.dims
                        && (b.shape.rank() <= 1
                            || l.shape.layout.minor_to_major == b.shape.layout.minor_to_major)
                })
            {
                return take_literal_leaf(lit, &ip.index);
            }
            // SAFETY: the slice holds the leaf's shape.
            Some(unsafe { read_array(memory.ptr(b.slice), &b.shape) })
        })
        .map(Some)
        .ok_or_else(|| RuntimeError::new("the entry result could not be read"))
    }

    /// The run context over allocation bases `bases` (the rng restarts from `seed`).
    fn context(&self, bases: Vec<*mut u8>) -> Context<'_> {
        let mut evaluator = Evaluator::new(
            &self.module,
            EvalOptions {
                seed: self.seed,
                limits: self.limits.clone(),
                // A fusion without a kernel computes what its kernel would.
                fp_contraction: crate::codegen::isa::host_contracts_fma(),
                ..EvalOptions::default()
            },
        );
        evaluator.custom_call_handler = self.custom_call_handler.clone();
        Context {
            memory: Memory { bases },
            rng: library::rng::RngCounters::new(self.seed),
            evaluator,
            device: DeviceBinding {
                collectives: std::sync::Arc::new(collectives::InProcess::single()),
                device: 0,
            },
        }
    }

    /// Binds `args` to the parameter allocations (in place where the layout allows,
    /// copied otherwise) and returns the base address of every allocation for one run,
    /// with the donated leaves bound as the storage of an allocation that outputs share.
    fn bind(
        &mut self,
        args: &mut [Argument<'_>],
    ) -> Result<(Vec<*mut u8>, Vec<InPlace>), RuntimeError> {
        let count = self.module.entry_computation().parameters().len();
        if args.len() != count {
            return Err(RuntimeError::new(format!(
                "the module takes {count} arguments, got {}",
                args.len()
            )));
        }
        let mut bases: Vec<*mut u8> = self
            .memory
            .iter()
            .map(|m| m.as_ref().map_or(std::ptr::null_mut(), |b| b.ptr()))
            .collect();
        let mut in_place = Vec::new();
        for p in &self.parameters {
            let leaf = args[p.number].leaf(&p.index).ok_or_else(|| {
                RuntimeError::new(format!(
                    "argument {} has no array at {:?}; the parameter is {}",
                    p.number,
                    p.index,
                    Shape::Array(p.shape.clone())
                ))
            })?;
            if !leaf.shape.compatible(&p.shape) {
                return Err(RuntimeError::new(format!(
                    "argument {} is {}, the parameter is {}",
                    p.number,
                    Shape::Array(leaf.shape.clone()),
                    Shape::Array(p.shape.clone())
                )));
            }
            let info = &self.plan.allocations[p.slice.allocation];
            let whole = p.slice.offset == 0 && p.slice.size == info.size;
            let same_layout = p.shape.rank() <= 1
                || leaf.shape.layout.minor_to_major == p.shape.layout.minor_to_major;
            let owned = !matches!(info.kind, AllocationKind::Parameter { .. });
            if whole
                && same_layout
                && !owned
                && !info.maybe_live_out
                && self.mode == BufferMode::Plain
            {
                // Bound in place: kernels only read parameter allocations.
                bases[p.slice.allocation] = literal_bytes(leaf).as_ptr() as *mut u8;
                continue;
            }
            let size = info.size;
            if whole
                && same_layout
                && !owned
                && self.mode == BufferMode::Plain
                && let Argument::Donated(lit) = &mut args[p.number]
                && let Some(leaf) = literal_leaf_mut(lit, &p.index)
            {
                // Donated: kernels write the aliased output over it.
                let bytes = literal_bytes_mut(leaf);
                if bytes.len() == size {
                    bases[p.slice.allocation] = bytes.as_mut_ptr();
                    in_place.push(InPlace {
                        allocation: p.slice.allocation,
                        number: p.number,
                        index: p.index.clone(),
                    });
                    continue;
                }
            }
            let Some(leaf) = args[p.number].leaf(&p.index) else {
                continue;
            };
            let base = if owned {
                bases[p.slice.allocation]
            } else {
                let slot = &mut self.parameter_scratch[p.slice.allocation];
                if slot.is_none() {
                    let what =
                        || format!("parameter {} ({})", p.number, Shape::Array(p.shape.clone()));
                    let buffer = if self.mode == BufferMode::Guarded {
                        AlignedBuffer::guarded(info.size, what)
                    } else {
                        AlignedBuffer::try_new(info.size, what)
                    }
                    .map_err(|e| RuntimeError::new(e.to_string()))?;
                    *slot = Some(buffer);
                }
                let scratch = slot.as_ref().map_or(std::ptr::null_mut(), |b| b.ptr());
                bases[p.slice.allocation] = scratch;
                scratch
            };
            // SAFETY: the slice lies inside the allocation and holds the parameter's shape.
            unsafe { write_array(base.add(p.slice.offset), leaf, &p.shape) };
        }
        Ok((bases, in_place))
    }

    /// `thunk-sequence.txt`: one line per thunk, nested for control flow.
    pub fn thunk_sequence_text(&self) -> String {
        self.entry.to_string()
    }
}
