//! Compiling and running programs: `PJRT_Client_Compile`, the executable queries, and
//! `PJRT_LoadedExecutable_Execute`.
//!
//! A compile reads the program (StableHLO as MLIR text or as a portable artifact in MLIR
//! bytecode, or HLO text), verifies it, reads the compile options, and hands the module to
//! `xlac::compiler::compile` (or keeps it for the interpreter with `mode=interpreter`).
//! Every failure is one `error: ...` line, with `file:line:col` where the program has
//! locations, that JAX raises as `JaxRuntimeError`.

use std::collections::hash_map::DefaultHasher;
use std::ffi::{c_char, c_void};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use xlac::compiler::CompileOptions as XlacCompileOptions;
use xlac::eval::{EvalOptions, evaluate_with_handler};
use xlac::ir::{ArrayShape, Literal, Module, Shape, verifier};
use xlac::runtime::Argument;

use crate::abi::*;
use crate::buffer::{Buffer, PJRT_BUFFER_TYPE_TOKEN, Produced, Source, buffer_ref, buffer_type};
use crate::client::{Client, MEMORY_KIND, Mode, client_ref};
use crate::compile_options;
use crate::error::{Code, Error, Result, bytes, entry_points, guard, slice};
use crate::event::{Event, Failure, Signal};
use crate::sharded::Sharded;

mod execute;
mod program;
mod queries;
#[cfg(test)]
mod tests;

pub use execute::loaded_executable_execute;
pub use program::*;
pub use queries::*;

/// What runs: the compiled executable, or the module for the interpreter.
enum Runner {
    Compiled(Box<Mutex<SendExecutable>>),
    Interpreter(Box<Module>),
    /// One program per device of a grid, run together (either backend).
    Devices(Box<Sharded>),
}

/// `xlac::runtime::Executable` behind a mutex.
struct SendExecutable(xlac::runtime::Executable);

// SAFETY: the executable owns its module, buffers and JIT-compiled code; none of it is tied
// to the thread that built it, and the mutex gives one thread at a time access.
unsafe impl Send for SendExecutable {}

/// Everything about one compiled program that outlives the calls that ask about it.
pub struct ExecutableState {
    name: String,
    runner: Runner,
    /// The client devices the program runs on, in execution order (`replica * partitions +
    /// partition`).
    devices: Vec<usize>,
    replicas: usize,
    partitions: usize,
    /// The serialized `DeviceAssignmentProto` of `devices`.
    assignment: Vec<u8>,
    /// The entry parameters' shapes (per device).
    parameters: Vec<Shape>,
    /// Per parameter: the program donates it (`input_output_alias` or `buffer_donor`),
    /// so Execute consumes its buffer.
    donated: Vec<bool>,
    /// The flattened result leaves; `None` is a token (ordered effects return one).
    outputs: Vec<Option<ArrayShape>>,
    output_types: Vec<PJRT_Buffer_Type>,
    output_dims: Vec<i64>,
    output_dim_sizes: Vec<usize>,
    output_kinds: Vec<*const c_char>,
    output_kind_sizes: Vec<usize>,
    fingerprint: String,
    /// xlac's optimized HLO (compiled mode) or the module as ingested.
    optimized_text: String,
    /// The same module as a serialized `HloModuleProtoWithConfig`, or why it has none.
    optimized_program: std::result::Result<Vec<u8>, String>,
    cost: Vec<PJRT_NamedValue>,
    memory: MemoryStats,
    code_bytes: i64,
    /// The parameter and output shardings of a program over several devices (what the
    /// Shardings extension reports); `None` on one device.
    shardings: Option<crate::shardings::ExecutableShardings>,
    /// A run costs less than handing it to a worker thread and back (see [`is_cheap`]):
    /// with its inputs ready, Execute runs it on the caller's thread.
    cheap: bool,
}

// SAFETY: the raw pointers point at 'static strings.
unsafe impl Send for ExecutableState {}
unsafe impl Sync for ExecutableState {}

#[derive(Clone, Copy, Default)]
struct MemoryStats {
    argument: i64,
    output: i64,
    temp: i64,
    total: i64,
}

/// `PJRT_LoadedExecutable`.
pub struct LoadedExecutable {
    state: Arc<ExecutableState>,
    client: *const Client,
    /// The devices it runs on, in execution order.
    device_handles: Vec<*mut c_void>,
    deleted: AtomicBool,
}

// SAFETY: `client` outlives its executables and is only read.
unsafe impl Send for LoadedExecutable {}
unsafe impl Sync for LoadedExecutable {}

fn leaves(shape: &Shape, out: &mut Vec<ArrayShape>) {
    match shape {
        Shape::Array(a) => out.push(a.clone()),
        Shape::Tuple(elements) => elements.iter().for_each(|e| leaves(e, out)),
        _ => {}
    }
}

/// The result's leaves in order, tokens as `None`: each is one output buffer.
pub(crate) fn result_leaves(shape: &Shape, out: &mut Vec<Option<ArrayShape>>) {
    match shape {
        Shape::Array(a) => out.push(Some(a.clone())),
        Shape::Tuple(elements) => elements.iter().for_each(|e| result_leaves(e, out)),
        Shape::Token => out.push(None),
        _ => {}
    }
}

static COST_NAMES: [&str; 3] = ["flops", "transcendentals", "bytes accessed"];

/// The entry computation's flops, transcendentals and bytes accessed.
fn cost_totals(module: &Module) -> [u64; 3] {
    let entry = module.entry;
    let comp = &module.computations[entry];
    let (mut flops, mut transcendentals, mut bytes) = (0u64, 0u64, 0u64);
    for &id in &comp.order {
        let c = xlac::report::cost::instruction_cost(module, entry, id);
        flops += c.flops;
        transcendentals += c.transcendentals;
        bytes += c.bytes;
    }
    [flops, transcendentals, bytes]
}

/// The most bytes a cheap program touches.
const CHEAP_BYTES: u64 = 64 << 10;
/// The most flops (transcendentals counted 16 times) a cheap program does.
const CHEAP_FLOPS: u64 = 1 << 16;

/// True if a run of `module` takes about as long as handing it to the device's worker and
/// waking the caller when it ends (a few microseconds): few bytes and flops, and no loop
/// or conditional whose trip count the cost leaves out. XLA's CPU client runs such
/// "cheap" computations inline too.
fn is_cheap(module: &Module) -> bool {
    let [flops, transcendentals, bytes] = cost_totals(module);
    let control_flow = module.computations.values().any(|c| {
        c.contains_opcode(xlac::ir::Opcode::While)
            || c.contains_opcode(xlac::ir::Opcode::Conditional)
    });
    !control_flow
        && bytes <= CHEAP_BYTES
        && flops.saturating_add(transcendentals.saturating_mul(16)) <= CHEAP_FLOPS
}

fn cost_values(module: &Module) -> Vec<PJRT_NamedValue> {
    cost_totals(module)
        .iter()
        .zip(COST_NAMES)
        .map(|(&v, name)| PJRT_NamedValue {
            struct_size: std::mem::size_of::<PJRT_NamedValue>(),
            extension_start: std::ptr::null_mut(),
            name: name.as_ptr().cast(),
            name_size: name.len(),
            type_: PJRT_NamedValue_kFloat,
            value: NamedValueUnion {
                float_value: v as f32,
            },
            value_size: 1,
        })
        .collect()
}

fn shapes_bytes(shapes: &[Shape]) -> i64 {
    let mut arrays = Vec::new();
    shapes.iter().for_each(|s| leaves(s, &mut arrays));
    array_bytes(&arrays)
}

fn array_bytes(shapes: &[ArrayShape]) -> i64 {
    shapes.iter().map(|s| s.byte_size() as i64).sum()
}

/// Compiles `code` for `client`: the whole of `PJRT_Client_Compile` but the C plumbing.
pub fn compile(
    client: &Client,
    code: &[u8],
    format: &str,
    options: &[u8],
) -> Result<ExecutableState> {
    let options = compile_options::parse(options)?;
    let devices = options.devices()?;
    let count = client.device_count();
    let mut seen = vec![false; count];
    let mut local = Vec::with_capacity(devices.len());
    let mut sorted = devices.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::invalid(format!(
            "error: the device assignment {devices:?} lists device {} twice",
            w[0]
        )));
    }
    // The process of each device, when some belong to other processes.
    let owners = client.owners(&devices);
    for &d in &devices {
        let index = match client.local_index_of_id(d) {
            Ok(Some(l)) => Some(l),
            Ok(None) => continue,
            Err(_) => None,
        };
        match index {
            Some(l) if !seen[l] => {
                seen[l] = true;
                local.push(l);
            }
            Some(_) => {
                return Err(Error::invalid(format!(
                    "error: the device assignment {devices:?} lists device {d} twice"
                )));
            }
            None if client.process_count() > 1 => {
                return Err(Error::invalid(format!(
                    "error: the program runs on devices {devices:?}; {}",
                    client.describe_ids()
                )));
            }
            None => {
                return Err(Error::invalid(format!(
                    "error: the program runs on {} devices ({} replicas x {} partitions, devices {devices:?}); the xlac client has {count} (ids 0..{}; the create option devices=N sets how many)",
                    devices.len(),
                    options.num_replicas,
                    options.num_partitions,
                    count - 1
                )));
            }
        }
    }
    let (replicas, partitions) = (
        options.num_replicas as usize,
        options.num_partitions as usize,
    );
    let assignment = compile_options::device_assignment_bytes(replicas, partitions, &devices);
    let devices_global = devices;
    let devices = local;
    let program = read_program(code, format)?;
    let module = program.module;
    let name = module.name.clone();
    let entry = module.entry_computation();
    let mut parameters: Vec<Shape> = entry
        .parameters()
        .iter()
        .map(|&p| entry.instrs[p].shape.clone())
        .collect();
    let mut outputs = Vec::new();
    result_leaves(module.result_shape(), &mut outputs);
    let output_arrays: Vec<ArrayShape> = outputs.iter().flatten().cloned().collect();
    let mut hasher = DefaultHasher::new();
    code.hash(&mut hasher);
    format.hash(&mut hasher);
    let fingerprint = format!("xlac-{:016x}", hasher.finish());
    let number = client.next_compile_number();
    let dump_to = client
        .options
        .dump_to
        .as_ref()
        .map(|dir| dir.join(format!("module_{number:04}.{}", sanitize(&name))));
    let xlac_options = XlacCompileOptions {
        dump_to,
        stablehlo_source: program.stablehlo_text,
        ..XlacCompileOptions::default()
    };
    let mut shardings = None;
    let cheap = is_cheap(&module);
    let (runner, optimized_text, optimized_program, cost, memory, code_bytes, donated) =
        match client.options.mode {
            _ if replicas * partitions > 1 => {
                let sharded = crate::sharded::compile(
                    client,
                    module,
                    replicas,
                    partitions,
                    xlac_options,
                    owners.map(|o| (o, devices_global.clone())),
                )?;
                parameters = sharded.parameters.clone();
                outputs = sharded.outputs.clone();
                let text = sharded.module.to_string();
                let program = sharded_program(&sharded, &parameters);
                shardings = Some(crate::shardings::ExecutableShardings {
                    parameters: crate::shardings::ShardingList::new(&sharded.parameter_shardings),
                    // No outputs: one sharding, the empty tuple's, as XLA's clients expect.
                    outputs: crate::shardings::ShardingList::new(
                        if sharded.result_shardings.is_empty() {
                            std::slice::from_ref(&EMPTY_TUPLE_SHARDING)
                        } else {
                            &sharded.result_shardings
                        },
                    ),
                });
                let cost = cost_values(&sharded.module);
                let donated = donated_parameters(&sharded.module);
                let memory = MemoryStats {
                    argument: shapes_bytes(&parameters),
                    output: array_bytes(
                        &sharded
                            .outputs
                            .iter()
                            .flatten()
                            .cloned()
                            .collect::<Vec<_>>(),
                    ),
                    ..MemoryStats::default()
                };
                (
                    Runner::Devices(Box::new(sharded)),
                    text,
                    program,
                    cost,
                    memory,
                    0,
                    donated,
                )
            }
            Mode::Interpreter => {
                // As `xlac run --backend interpreter`: the interpreter runs the optimized module
                // (bf16/f16 arithmetic is normalized to f32 there, as XLA:CPU computes it).
                let optimized = xlac::compiler::optimize(module, &xlac_options)
                    .map_err(|e| Error::invalid(format!("error: {name}: {e}")))?;
                let module = optimized.module;
                let text = module.to_string();
                let program = optimized_program(&module, &parameters);
                let cost = cost_values(&module);
                let donated = donated_parameters(&module);
                let memory = MemoryStats {
                    argument: shapes_bytes(&parameters),
                    output: array_bytes(&output_arrays),
                    ..MemoryStats::default()
                };
                (
                    Runner::Interpreter(Box::new(module)),
                    text,
                    program,
                    cost,
                    memory,
                    0,
                    donated,
                )
            }
            Mode::Compiled => {
                let compiled = xlac::compiler::compile(module, &xlac_options)
                    .map_err(|e| Error::invalid(format!("error: {name}: {e}")))?;
                let exe = compiled.executable;
                let text = exe.module.to_string();
                let program = optimized_program(&exe.module, &parameters);
                let cost = cost_values(&exe.module);
                let donated = donated_parameters(&exe.module);
                let argument = shapes_bytes(&parameters);
                let output = array_bytes(&output_arrays);
                let temp = exe.buffers.temp_bytes() as i64;
                let total = exe
                    .buffers
                    .allocations
                    .iter()
                    .map(|a| a.size as i64)
                    .sum::<i64>();
                // xlac does not record machine-code sizes per kernel yet.
                let code_bytes = 0;
                let memory = MemoryStats {
                    argument,
                    output,
                    temp,
                    total,
                };
                (
                    Runner::Compiled(Box::new(Mutex::new(SendExecutable(exe)))),
                    text,
                    program,
                    cost,
                    memory,
                    code_bytes,
                    donated,
                )
            }
        };
    let output_types = outputs
        .iter()
        .map(|s| match s {
            Some(s) => buffer_type(s.element_type),
            None => Ok(PJRT_BUFFER_TYPE_TOKEN),
        })
        .collect::<Result<Vec<_>>>()?;
    let output_dims = outputs
        .iter()
        .flatten()
        .flat_map(|s| s.dims.iter().copied())
        .collect();
    let output_dim_sizes = outputs
        .iter()
        .map(|s| s.as_ref().map_or(0, |s| s.dims.len()))
        .collect();
    let output_kinds = outputs
        .iter()
        .map(|_| MEMORY_KIND.as_ptr().cast())
        .collect();
    let output_kind_sizes = outputs.iter().map(|_| MEMORY_KIND.len()).collect();
    Ok(ExecutableState {
        name,
        runner,
        devices,
        replicas,
        partitions,
        assignment,
        parameters,
        donated,
        outputs,
        output_types,
        output_dims,
        output_dim_sizes,
        output_kinds,
        output_kind_sizes,
        fingerprint,
        optimized_text,
        optimized_program,
        cost,
        memory,
        code_bytes,
        shardings,
        cheap,
    })
}

/// Per entry parameter of the optimized `module`: whether an execution consumes its buffer.
/// Only an `input_output_alias` names a parameter as consumed: a buffer donor that no
/// output could reuse (`optimize-input-output-buffer-alias` left it a donor) stays the
/// caller's, as on XLA's PJRT clients.
fn donated_parameters(module: &Module) -> Vec<bool> {
    let count = module.entry_computation().parameters().len();
    let mut donated = vec![false; count];
    for a in &module.config.input_output_alias {
        if let Some(d) = donated.get_mut(a.parameter) {
            *d = true;
        }
    }
    donated
}

/// `shape` with every array row-major: the layout the plugin's buffers have at the boundary
/// (JAX assumes dense row-major; xlac's own layouts stay inside the executable).
fn row_major(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => {
            let mut a = a.clone();
            a.layout = xlac::ir::Layout::row_major(a.rank());
            Shape::Array(a)
        }
        Shape::Tuple(elements) => Shape::Tuple(elements.iter().map(row_major).collect()),
        other => other.clone(),
    }
}

/// The optimized module as `HloModuleProtoWithConfig` bytes for
/// `PJRT_Executable_OptimizedProgram`, its entry layout the boundary's (row-major), so that
/// JAX's layout queries, which read it, see what the buffers really are.
fn optimized_program(
    module: &Module,
    parameters: &[Shape],
) -> std::result::Result<Vec<u8>, String> {
    let boundary = xlac::ir::ProgramShape {
        parameters: parameters.iter().map(row_major).collect(),
        result: row_major(module.result_shape()),
    };
    xlac::front::hlo_proto::serialize_with_config(module, Some(&boundary)).map_err(|e| {
        format!(
            "error: {}: the optimized program cannot be written as an HloModuleProto: {e}",
            module.name
        )
    })
}

/// As [`optimized_program`], for a program over several devices: device 0's module with the
/// partitioner's parameter and result shardings, which JAX reads to place its arrays.
fn sharded_program(
    sharded: &Sharded,
    parameters: &[Shape],
) -> std::result::Result<Vec<u8>, String> {
    use xlac::ir::sharding::HloSharding;
    let module = &sharded.module;
    let boundary = xlac::ir::ProgramShape {
        parameters: parameters.iter().map(row_major).collect(),
        result: row_major(module.result_shape()),
    };
    let output = match sharded.result_shardings.as_slice() {
        [one] if !matches!(module.result_shape(), Shape::Tuple(_)) => one.clone(),
        all => HloSharding::Tuple(all.to_vec()),
    };
    xlac::front::hlo_proto::serialize_partitioned(
        module,
        &boundary,
        &sharded.parameter_shardings,
        &output,
    )
    .map_err(|e| {
        format!(
            "error: {}: the optimized program cannot be written as an HloModuleProto: {e}",
            module.name
        )
    })
}

/// The sharding of a program's empty result tuple.
static EMPTY_TUPLE_SHARDING: xlac::ir::sharding::HloSharding =
    xlac::ir::sharding::HloSharding::Tuple(Vec::new());

/// The format name of [`optimized_program`]'s bytes, as the PJRT client expects it.
const OPTIMIZED_PROGRAM_FORMAT: &str = "hlo_with_config";

/// A module name as a file-name component.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One argument of an execution.
pub enum Input {
    /// A buffer's data, shared: read only.
    Kept(Arc<Literal>),
    /// A donated buffer's data, owned by the run: an aliased output may be computed in it.
    Donated(Literal),
}

impl std::borrow::Borrow<Literal> for Input {
    fn borrow(&self) -> &Literal {
        self.literal()
    }
}

impl Input {
    fn literal(&self) -> &Literal {
        match self {
            Input::Kept(l) => l,
            Input::Donated(l) => l,
        }
    }
}

/// One execution's inputs taken apart: the kept buffers' shared data, which the run borrows,
/// and the donated data, which it owns.
struct SplitInputs {
    kept: Vec<Option<Arc<Literal>>>,
    given: Vec<Option<Literal>>,
}

impl SplitInputs {
    fn new(inputs: Vec<Input>) -> Self {
        let (kept, given) = inputs
            .into_iter()
            .map(|a| match a {
                Input::Kept(l) => (Some(l), None),
                Input::Donated(l) => (None, Some(l)),
            })
            .unzip();
        SplitInputs { kept, given }
    }

    /// The run's arguments: the donated data moves into them, the kept data is borrowed.
    fn arguments(&mut self) -> Vec<Argument<'_>> {
        self.kept
            .iter()
            .zip(self.given.iter_mut())
            .map(|(k, g)| match (g.take(), k) {
                (Some(l), _) => Argument::Donated(l),
                (None, Some(l)) => Argument::Borrowed(l),
                (None, None) => unreachable!("every argument is kept or donated, once"),
            })
            .collect()
    }
}

impl ExecutableState {
    /// The parameter and output shardings of a program over several devices.
    pub fn shardings(&self) -> Option<&crate::shardings::ExecutableShardings> {
        self.shardings.as_ref()
    }

    /// True if the program donates parameter `i` (its buffer is consumed by Execute).
    pub fn donates(&self, i: usize) -> bool {
        self.donated.get(i).copied().unwrap_or(false)
    }

    /// Checks the argument count and shapes against the parameters.
    pub fn check_arguments(&self, args: &[&Literal]) -> Result<()> {
        let shapes: Vec<Shape> = args.iter().map(|a| a.shape()).collect();
        self.check_shapes(&shapes)
    }

    /// Checks the arguments' shapes against the parameters.
    pub fn check_shapes(&self, args: &[Shape]) -> Result<()> {
        if args.len() != self.parameters.len() {
            return Err(Error::invalid(format!(
                "error: {} takes {} arguments, got {}",
                self.name,
                self.parameters.len(),
                args.len()
            )));
        }
        for (i, (given, param)) in args.iter().zip(&self.parameters).enumerate() {
            if !shapes_match(given, param) {
                return Err(Error::invalid(format!(
                    "error: {}: argument {i} is {given}, the parameter is {param}",
                    self.name
                )));
            }
        }
        Ok(())
    }

    /// Runs every device on its arguments (`args[d]`, in execution order) and returns each
    /// device's flattened result leaves.
    pub fn execute_all(
        &self,
        client: &Client,
        mut args: Vec<Vec<Input>>,
        host: Option<Arc<dyn xlac::eval::CustomCallHandler>>,
    ) -> Result<Vec<Vec<Literal>>> {
        match &self.runner {
            Runner::Devices(sharded) => {
                for row in &args {
                    let refs: Vec<&Literal> = row.iter().map(Input::literal).collect();
                    self.check_arguments(&refs)?;
                }
                let mut split: Vec<SplitInputs> = args.into_iter().map(SplitInputs::new).collect();
                let rows = split.iter_mut().map(SplitInputs::arguments).collect();
                sharded.execute(client, &self.name, rows, host)
            }
            _ if args.len() == 1 => Ok(vec![self.execute(client, args.remove(0), host)?]),
            _ => Err(Error::invalid(format!(
                "error: {}: {} argument lists for a one-device program",
                self.name,
                args.len()
            ))),
        }
    }

    /// Runs on `args` and returns the flattened result leaves, row-major. A donated
    /// argument's storage becomes the output aliased with it where buffer assignment put
    /// that output in the parameter's buffer (compiled mode).
    pub fn execute(
        &self,
        client: &Client,
        args: Vec<Input>,
        host: Option<Arc<dyn xlac::eval::CustomCallHandler>>,
    ) -> Result<Vec<Literal>> {
        {
            let refs: Vec<&Literal> = args.iter().map(Input::literal).collect();
            self.check_arguments(&refs)?;
        }
        let result = match &self.runner {
            Runner::Compiled(exe) => {
                let mut guard = exe.lock().unwrap_or_else(|e| e.into_inner());
                let exe: &mut SendExecutable = &mut guard;
                let mut split = SplitInputs::new(args);
                let arguments = split.arguments();
                // The run's host callbacks, for this run only.
                exe.0.custom_call_handler = host;
                let result = client.install(|| exe.0.execute_donated(arguments));
                exe.0.custom_call_handler = None;
                result
            }
            Runner::Interpreter(module) => {
                let owned: Vec<Literal> = args
                    .into_iter()
                    .map(|a| match a {
                        Input::Kept(l) => (*l).clone(),
                        Input::Donated(l) => l,
                    })
                    .collect();
                evaluate_with_handler(module, &owned, &EvalOptions::default(), host)
                    .map_err(|e| xlac::runtime::RuntimeError::new(e.to_string()))
            }
            Runner::Devices(_) => {
                return Err(Error::invalid(format!(
                    "error: {}: one argument list for a program over {} devices",
                    self.name,
                    self.devices.len()
                )));
            }
        }
        .map_err(|e| Error::invalid(format!("error: {}: {e}", self.name)))?;
        let mut out = Vec::with_capacity(self.outputs.len());
        flatten(result, &mut out);
        if out.len() != self.outputs.len() {
            return Err(Error::new(
                Code::Internal,
                format!(
                    "{}: {} result leaves, {} expected",
                    self.name,
                    out.len(),
                    self.outputs.len()
                ),
            ));
        }
        Ok(out)
    }
}

/// Shapes equal up to layout (the caller's buffers are row-major, xlac's any layout).
fn shapes_match(given: &Shape, param: &Shape) -> bool {
    match (given, param) {
        (Shape::Array(a), Shape::Array(b)) => a.element_type == b.element_type && a.dims == b.dims,
        (Shape::Tuple(a), Shape::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| shapes_match(x, y))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

/// The leaves of `value` (arrays and tokens), depth-first.
pub(crate) fn flatten(value: Literal, out: &mut Vec<Literal>) {
    match value {
        Literal::Tuple(elements) => elements.into_iter().for_each(|e| flatten(e, out)),
        leaf => out.push(leaf),
    }
}

/// The state behind a `PJRT_Executable` handle.
///
/// # Safety
/// `p` must be NULL or an executable handle of this plugin.
pub(crate) unsafe fn state_of<'a>(p: *mut c_void) -> Result<&'a Arc<ExecutableState>> {
    // SAFETY: executable handles are `Box<Arc<ExecutableState>>`.
    unsafe { p.cast::<Arc<ExecutableState>>().as_ref() }
        .ok_or_else(|| Error::invalid("the PJRT_Executable is NULL"))
}

unsafe fn loaded_of<'a>(p: *mut c_void) -> Result<&'a LoadedExecutable> {
    // SAFETY: loaded executable handles are `Box<LoadedExecutable>`.
    unsafe { p.cast::<LoadedExecutable>().as_ref() }
        .ok_or_else(|| Error::invalid("the PJRT_LoadedExecutable is NULL"))
}

// ---- compile --------------------------------------------------------------------------

entry_points! {
    fn client_compile(a: PJRT_Client_Compile_Args) {
        // SAFETY: a live client and the framework's program.
        let client = unsafe { client_ref(a.client)? };
        let program = unsafe { a.program.as_ref() }
            .ok_or_else(|| Error::invalid("the PJRT_Program is NULL"))?;
        if program.code_size > MAX_PROGRAM_BYTES {
            return Err(Error::new(
                Code::ResourceExhausted,
                format!(
                    "error: a program of {} bytes; at most {MAX_PROGRAM_BYTES} are accepted",
                    program.code_size
                ),
            ));
        }
        // SAFETY: pointers valid for their sizes per the header.
        let code = unsafe { bytes(program.code, program.code_size, "program code")? };
        let format = unsafe { bytes(program.format, program.format_size, "program format")? };
        let options =
            unsafe { bytes(a.compile_options, a.compile_options_size, "compile options")? };
        let state = compile(client, code, &String::from_utf8_lossy(format), options)?;
        let device_handles = client.device_handles(&state.devices);
        a.executable = Box::into_raw(Box::new(LoadedExecutable {
            state: Arc::new(state),
            client,
            device_handles,
            deleted: AtomicBool::new(false),
        }))
        .cast();
        Ok(())
    }
}
