//! Running thunk sequences: resolve slices to addresses, call kernels (split over the
//! rayon pool when large), library routines and nested sequences.
//! XLA: `xla/backends/cpu/runtime/thunk_executor.cc` (here strictly sequential: thunks run
//! in schedule order; parallelism is inside kernels and the GEMM).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::codegen::denormals::with_flushed_denormals;
use rayon::prelude::*;

use super::RuntimeError;
use super::buffers::{read_array, read_value, write_array};
use super::context::Context;
use super::library::{convolution, dot};
use super::memory::{Memory, cores, parallel_copy};
use super::thunk::{KernelThunk, ReferenceThunk, Region, Thunk, ThunkSequence};
use super::tuning::Split;

/// The buffer table of a kernel call, shared by the tasks of a split call.
struct Table(Vec<*mut u8>);
// The kernels write disjoint output ranges per work unit; the table itself is read-only.
unsafe impl Sync for Table {}
unsafe impl Send for Table {}

impl Table {
    /// The addresses of kernel `k`'s buffers.
    fn of(k: &KernelThunk, memory: &Memory) -> Table {
        Table(k.buffers.iter().map(|&s| memory.ptr(s)).collect())
    }

    /// The table's address, as kernels take it (a method, so closures capture the whole
    /// `Sync` table rather than its vector).
    fn as_ptr(&self) -> *const *mut u8 {
        self.0.as_ptr()
    }
}

/// Runs a sequence.
pub fn run_sequence(seq: &ThunkSequence, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    for t in &seq.thunks {
        let start = super::profile::is_on().then(std::time::Instant::now);
        run_thunk(t, ctx)?;
        if let Some(start) = start {
            super::profile::record(t, start.elapsed());
        }
    }
    Ok(())
}

/// Runs `f` on a thread of the kernels' pool (rayon's global pool) while the calling
/// thread waits, unless the caller is a pool thread already or times thunks (the timings
/// are the caller's thread-locals). A kernel split from a pool thread runs its first tasks
/// right there while idle pool threads steal the others; split from outside, the caller
/// hands every task to the pool and sleeps until the last one ends, which costs two
/// thread wake-ups per split: an LSTM step splits two GEMMs, 128 per run.
pub fn on_pool<R>(f: impl FnOnce() -> R) -> R {
    if rayon::current_thread_index().is_some() || super::profile::is_on() {
        return f();
    }
    /// The job and its result cross to the pool thread and back while the caller waits.
    struct Handed<T>(T);
    // SAFETY: the caller blocks until the pool thread is done with the job, so whatever it
    // borrows outlives its use there; nothing the job touches depends on the thread it
    // runs on (the thunk timings, thread-local, are excluded above).
    unsafe impl<T> Send for Handed<T> {}
    impl<T> Handed<T> {
        fn into_inner(self) -> T {
            self.0
        }
    }
    let job = Handed(f);
    let done = AtomicBool::new(false);
    let done = &done;
    let spin = rayon::current_num_threads() <= cores();
    rayon::scope(move |scope| {
        let runner = rayon::current_thread_index();
        if spin {
            scope.spawn_broadcast(move |_, ctx| {
                if Some(ctx.index()) != runner {
                    keep_stealing(done);
                }
            });
        }
        // Set even when the job panics, so the other threads' spinning ends.
        let _done = SetOnDrop(done);
        Handed(job.into_inner()())
    })
    .into_inner()
}

/// True if running `seq` may hand work to the pool: a kernel marked parallel (or split by
/// the autotuner), a GEMM, a convolution, a library or reference routine, a collective.
/// A sequence of serial kernels and copies only gains nothing from [`on_pool`], whose
/// hand-over to a pool thread and back costs two thread switches per run (a jit of
/// `x + 1` spends longer there than in its kernel).
pub fn may_split(seq: &ThunkSequence) -> bool {
    seq.thunks.iter().any(|t| match t {
        Thunk::Kernel(k) => kernel_may_split(k),
        Thunk::Copy { .. }
        | Thunk::AliasCopy { .. }
        | Thunk::Constant { .. }
        | Thunk::DeviceIndex { .. }
        | Thunk::Rng(_) => false,
        Thunk::While {
            condition, body, ..
        } => may_split(&condition.sequence) || may_split(&body.sequence),
        Thunk::Conditional { branches, .. } => branches.iter().any(|b| may_split(&b.sequence)),
        Thunk::Call { callee, .. } => may_split(&callee.sequence),
        Thunk::OutputFusion { .. }
        | Thunk::Dot(_)
        | Thunk::Convolution(_)
        | Thunk::Library(_)
        | Thunk::Reference(_)
        | Thunk::Collective(_) => true,
    })
}

fn kernel_may_split(k: &KernelThunk) -> bool {
    match k.split {
        Some(Split::Serial) => false,
        Some(Split::Tasks(_)) => true,
        None => k.parallel,
    }
}

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// How long a pool thread keeps looking for work during a run before it goes back to
/// rayon's sleep.
const SPIN_IDLE: Duration = Duration::from_micros(500);

/// Looks for work on the pool's queues until `done`, or until none came for
/// [`SPIN_IDLE`]. Rayon puts an idle thread to sleep after a few dozen empty rounds
/// (tens of microseconds), and waking it costs a futex and, on a VM, an IPI; an LSTM step
/// runs ~20 us of serial kernels between its two split GEMMs, so without this every
/// GEMM waited for its helper to wake (lstm_scan 11.0 -> 10.1 ms on 2 cores). Spinning
/// only while a run is on and only with no more pool threads than cores; every 64 empty
/// rounds the thread yields to the OS, so another process's work still gets the core.
fn keep_stealing(done: &AtomicBool) {
    let mut last = Instant::now();
    let mut idle = 0u32;
    while !done.load(Ordering::Acquire) {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            last = Instant::now();
            idle = 0;
            continue;
        }
        idle += 1;
        if idle.is_multiple_of(64) {
            if last.elapsed() > SPIN_IDLE {
                return;
            }
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Runs one thunk (the autotuner times thunks one by one).
pub fn run_single_thunk(t: &Thunk, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    run_thunk(t, ctx)
}

fn run_thunk(t: &Thunk, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    match t {
        Thunk::Collective(c) => super::collectives::thunk::run(c, ctx)?,
        Thunk::DeviceIndex { partition, out, .. } => {
            let grid = ctx.device.collectives.grid();
            let id = if *partition {
                grid.partition(ctx.device.device)
            } else {
                grid.replica(ctx.device.device)
            };
            let p = ctx.memory.ptr(out.slice);
            // SAFETY: the slice holds one u32.
            unsafe { p.cast::<u32>().write_unaligned(id) };
        }
        Thunk::Kernel(k) => run_kernel(k, &ctx.memory),
        Thunk::OutputFusion {
            dot,
            epilogue,
            units_per_row,
            columns_per_unit,
        } => {
            let all_rows = match *units_per_row {
                Some(u) => {
                    let table = Table::of(epilogue, &ctx.memory);
                    let entry = epilogue.entry;
                    let n = columns_per_unit.map(|c| c * u);
                    let tile_done = |rows: Range<usize>, cols: Range<usize>| {
                        let (r0, r1) = (rows.start as u64, rows.end as u64);
                        // SAFETY (both calls): the table points at the fusion's buffers; the
                        // tile is final and its units are its own.
                        match (n, *columns_per_unit) {
                            // Part of each row: the units of columns `cols`, row by row.
                            (Some(n), Some(c)) if cols.len() as u64 != n => {
                                let (c0, c1) =
                                    (cols.start as u64 / c, (cols.end as u64).div_ceil(c));
                                with_flushed_denormals(|| {
                                    for row in r0..r1 {
                                        unsafe {
                                            entry(table.as_ptr(), row * u + c0, row * u + c1)
                                        };
                                    }
                                });
                            }
                            _ => with_flushed_denormals(|| unsafe {
                                entry(table.as_ptr(), r0 * u, r1 * u)
                            }),
                        }
                    };
                    let tiles = dot::TileEpilogue {
                        done: &tile_done,
                        columns: columns_per_unit.map(|c| c as usize),
                    };
                    dot::run_with_epilogue(dot, &ctx.memory, Some(tiles))?
                }
                None => {
                    dot::run(dot, &ctx.memory)?;
                    false
                }
            };
            if !all_rows {
                run_kernel(epilogue, &ctx.memory);
            }
        }
        Thunk::Copy { copy, .. } | Thunk::AliasCopy { copy, .. } => {
            parallel_copy(copy, &ctx.memory)
        }
        Thunk::Constant { leaves, .. } => {
            for (value, dst) in leaves {
                // SAFETY: the slice holds the constant's shape.
                unsafe { write_array(ctx.memory.ptr(dst.slice), value, &dst.shape) };
            }
        }
        Thunk::Dot(d) => dot::run(d, &ctx.memory)?,
        Thunk::Convolution(c) => convolution::run(c, &ctx.memory)?,
        Thunk::Library(l) => l.run(&ctx.memory)?,
        Thunk::Rng(r) => super::library::rng::run(r, &ctx.memory, &mut ctx.rng)?,
        Thunk::Reference(r) => run_reference(r, ctx)?,
        Thunk::While {
            name,
            init,
            condition,
            body,
        } => {
            parallel_copy(init, &ctx.memory);
            let mut iteration = 0u64;
            loop {
                iteration = iteration.saturating_add(1);
                ctx.evaluator
                    .options
                    .limits
                    .check_while(name, iteration)
                    .map_err(RuntimeError::new)?;
                parallel_copy(&condition.enter, &ctx.memory);
                run_sequence(&condition.sequence, ctx)?;
                let pred = condition.root.first().ok_or_else(|| {
                    RuntimeError::new(format!("{name}: the condition has no pred result"))
                })?;
                // SAFETY: a pred[] slice holds one byte.
                if unsafe { *ctx.memory.ptr(pred.slice) } == 0 {
                    break;
                }
                run_region(body, ctx)?;
            }
        }
        Thunk::Conditional {
            selector, branches, ..
        } => {
            let p = ctx.memory.ptr(selector.slice);
            // SAFETY: the selector is a pred[] (1 byte) or s32[] (4 bytes).
            let raw = unsafe {
                if selector.shape.element_type == crate::ir::PrimitiveType::Pred {
                    // pred: true runs branch 0 (true_computation), false branch 1.
                    if *p != 0 { 0 } else { 1 }
                } else {
                    (p as *const i32).read_unaligned() as i64
                }
            };
            // An out-of-range index runs the last branch.
            let last = branches.len() as i64 - 1;
            let b = if raw < 0 || raw > last { last } else { raw } as usize;
            run_region(&branches[b], ctx)?;
        }
        Thunk::Call { callee, .. } => run_region(callee, ctx)?,
    }
    Ok(())
}

/// Runs a nested computation: arguments in, its thunks, root out.
fn run_region(region: &Region, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    parallel_copy(&region.enter, &ctx.memory);
    run_sequence(&region.sequence, ctx)?;
    parallel_copy(&region.exit, &ctx.memory);
    Ok(())
}

/// Calls a kernel on the whole range, split into tasks when it is marked parallel, phase
/// by phase, with its scratch buffer (if any) after the outputs in the table. Every call
/// runs with denormals flushed (MXCSR FTZ/DAZ on x86-64), as XLA:CPU's threads do.
fn run_kernel(k: &KernelThunk, memory: &Memory) {
    let scratch = k.scratch.as_ref().map(|pool| pool.take());
    let mut table = Table::of(k, memory);
    if let Some(buffer) = &scratch {
        table.0.push(buffer.ptr());
    }
    match k.first_phase_units {
        Some(n) => {
            let n = n.min(k.work_units);
            run_units(k, &table, 0, n);
            run_units(k, &table, n, k.work_units);
        }
        None => run_units(k, &table, 0, k.work_units),
    }
    if let (Some(pool), Some(buffer)) = (&k.scratch, scratch) {
        pool.give_back(buffer);
    }
}

/// Runs units `lo..hi` of kernel `k`, split into tasks when it is marked parallel.
fn run_units(k: &KernelThunk, table: &Table, lo: u64, hi: u64) {
    let entry = k.entry;
    let units = hi.saturating_sub(lo);
    if units == 0 {
        return;
    }
    let tasks = match k.split {
        Some(Split::Serial) => None,
        Some(Split::Tasks(n)) => Some(n.max(1)),
        None if k.parallel => Some((rayon::current_num_threads() as u64 * 4).max(1)),
        None => None,
    };
    let Some(tasks) = tasks else {
        // SAFETY: the table points at the fusion's operand and result buffers.
        with_flushed_denormals(|| unsafe { entry(table.as_ptr(), lo, hi) });
        return;
    };
    // An explicit split (autotuned) takes its task count as given; the default keeps
    // every task at least `min_units_per_task` long.
    let min = if k.split.is_some() {
        1
    } else {
        k.min_units_per_task
    };
    let chunk = units.div_ceil(tasks).max(min);
    let chunks = units.div_ceil(chunk);
    (0..chunks).into_par_iter().for_each(|c| {
        let begin = lo + c * chunk;
        let end = (begin + chunk).min(hi);
        // SAFETY: as above; each task writes the output elements of its own range.
        with_flushed_denormals(|| unsafe { entry(table.as_ptr(), begin, end) });
    });
}

/// Reads the operands into literals, runs the reference implementation of the op, writes
/// the result leaves back.
fn run_reference(r: &ReferenceThunk, ctx: &mut Context<'_>) -> Result<(), RuntimeError> {
    let memory = &ctx.memory;
    let mut operands = Vec::with_capacity(r.operands.len());
    for (shape, leaves) in &r.operands {
        let value = read_value(shape, &mut |index, _| {
            let b = leaves.iter().find(|(i, _)| i == index).map(|(_, b)| b)?;
            // SAFETY: the slice holds the leaf's shape.
            Some(unsafe { read_array(memory.ptr(b.slice), &b.shape) })
        })
        .ok_or_else(|| RuntimeError::new(format!("{}: an operand has no buffer", r.name)))?;
        operands.push(value);
    }
    let value = ctx
        .evaluator
        .evaluate_instruction(r.computation, r.instruction, &operands)
        .map_err(RuntimeError::from)?;
    for (index, dst) in &r.result {
        let leaf = super::buffers::literal_leaf(&value, index).ok_or_else(|| {
            RuntimeError::new(format!("{}: the result has no leaf {index:?}", r.name))
        })?;
        // SAFETY: the slice holds the leaf's shape; the literal is relaid out if needed.
        unsafe { write_array(ctx.memory.ptr(dst.slice), leaf, &dst.shape) };
    }
    Ok(())
}
