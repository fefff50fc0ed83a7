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

/// The largest program accepted, in bytes.
pub const MAX_PROGRAM_BYTES: usize = 1 << 30;

/// The magic of MLIR bytecode (`ML\xefR`).
pub const BYTECODE_MAGIC: &[u8; 4] = b"ML\xefR";

/// A program read and verified.
pub struct Program {
    /// The module as ingested.
    pub module: Module,
    /// The StableHLO text, when the program was MLIR text (the dump keeps it).
    pub stablehlo_text: Option<String>,
}

fn verified(module: Module, file: &str) -> Result<Module> {
    if let Err(errors) = verifier::verify(&module) {
        let first = errors
            .first()
            .map(|e| match e.span {
                Some(span) if span.line > 0 => format!("{file}:{e}"),
                _ => format!("{file}: {e}"),
            })
            .unwrap_or_else(|| format!("{file}: the verifier rejected the module"));
        let more = if errors.len() > 1 {
            format!(" (and {} more)", errors.len() - 1)
        } else {
            String::new()
        };
        return Err(Error::invalid(format!("error: {first}{more}")));
    }
    Ok(module)
}

/// Reads a program of `format` (`mlir` or `hlo`) into a verified module.
pub fn read_program(code: &[u8], format: &str) -> Result<Program> {
    if code.len() > MAX_PROGRAM_BYTES {
        return Err(Error::new(
            Code::ResourceExhausted,
            format!(
                "error: a program of {} bytes; at most {MAX_PROGRAM_BYTES} are accepted",
                code.len()
            ),
        ));
    }
    if format != "mlir" && format != "hlo" {
        return Err(Error::invalid(format!(
            "error: program format '{format}'; xlac reads 'mlir' (StableHLO text or bytecode) and HLO text"
        )));
    }
    if code.starts_with(BYTECODE_MAGIC) {
        return read_bytecode(code);
    }
    let text = std::str::from_utf8(code).map_err(|e| {
        Error::invalid(format!(
            "error: program: not MLIR bytecode and not text (invalid UTF-8 at byte {})",
            e.valid_up_to()
        ))
    })?;
    let first_word: String = skip_comments(text)
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.'))
        .collect();
    match first_word.as_str() {
        "HloModule" => {
            let file = "program.hlo";
            let parsed = xlac::ir::hlo_text::parse_module(text, file)
                .map_err(|e| Error::invalid(format!("error: {e}")))?;
            Ok(Program {
                module: verified(parsed.module, file)?,
                stablehlo_text: None,
            })
        }
        "" if skip_comments(text).is_empty() => Err(Error::invalid(
            "error: program: empty; expected StableHLO ('module' or 'func.func') or HLO text ('HloModule')",
        )),
        _ => {
            let file = "program.mlir";
            let parsed = xlac::ir::stablehlo::parse_module(text, file)
                .map_err(|e| Error::invalid(format!("error: {e}")))?;
            Ok(Program {
                module: verified(parsed.module, file)?,
                stablehlo_text: Some(text.to_string()),
            })
        }
    }
}

/// `text` after leading whitespace and `//` comments.
fn skip_comments(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        match text.strip_prefix("//") {
            Some(rest) => text = rest.split_once('\n').map_or("", |(_, r)| r),
            None => return text,
        }
    }
}

/// A StableHLO portable artifact (MLIR bytecode of VHLO), what `jax.jit` sends: read into
/// the text parser's op tree, converted and verified. The dump keeps it printed as
/// StableHLO text after a line naming its producer, as `xlac run --dump-to` does.
fn read_bytecode(code: &[u8]) -> Result<Program> {
    use xlac::ir::stablehlo::bytecode;
    let file = "program.mlirbc";
    let broken = |e| Error::invalid(format!("error: {}", bytecode::located(file, e)));
    let ast = bytecode::read(code).map_err(broken)?;
    let text = bytecode::to_text(code, &ast).map_err(broken)?;
    let module =
        bytecode::to_module(&ast, file).map_err(|e| Error::invalid(format!("error: {e}")))?;
    Ok(Program {
        module: verified(module, file)?,
        stablehlo_text: Some(text),
    })
}

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
    xlac::ir::hlo_proto::serialize_with_config(module, Some(&boundary)).map_err(|e| {
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
    xlac::ir::hlo_proto::serialize_partitioned(
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

// ---- loaded executables ---------------------------------------------------------------

entry_points! {
    fn loaded_executable_destroy(a: PJRT_LoadedExecutable_Destroy_Args) {
        if !a.executable.is_null() {
            // SAFETY: from `client_compile`; destroyed once.
            drop(unsafe { Box::from_raw(a.executable.cast::<LoadedExecutable>()) });
        }
        Ok(())
    }

    fn loaded_executable_get_executable(a: PJRT_LoadedExecutable_GetExecutable_Args) {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.loaded_executable)? };
        // A fresh handle each time: the client destroys what it gets.
        a.executable = Box::into_raw(Box::new(l.state.clone())).cast();
        Ok(())
    }

    fn loaded_executable_addressable_devices(a: PJRT_LoadedExecutable_AddressableDevices_Args) {
        // SAFETY: a live loaded executable whose client outlives it.
        let l = unsafe { loaded_of(a.executable)? };
        a.addressable_devices = l.device_handles.as_ptr();
        a.num_addressable_devices = l.device_handles.len();
        Ok(())
    }

    fn loaded_executable_delete(a: PJRT_LoadedExecutable_Delete_Args) {
        // SAFETY: a live loaded executable.
        unsafe { loaded_of(a.executable)? }
            .deleted
            .store(true, Ordering::Release);
        Ok(())
    }

    fn loaded_executable_is_deleted(a: PJRT_LoadedExecutable_IsDeleted_Args) {
        // SAFETY: a live loaded executable.
        a.is_deleted = unsafe { loaded_of(a.executable)? }
            .deleted
            .load(Ordering::Acquire);
        Ok(())
    }

    fn loaded_executable_fingerprint(a: PJRT_LoadedExecutable_Fingerprint_Args) {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.executable)? };
        a.executable_fingerprint = l.state.fingerprint.as_ptr().cast();
        a.executable_fingerprint_size = l.state.fingerprint.len();
        Ok(())
    }
}

unsafe extern "C" fn no_delete(_: *mut c_void) {}

pub unsafe extern "C" fn loaded_executable_get_device_assignment(
    args: *mut PJRT_LoadedExecutable_GetDeviceAssignment_Args,
) -> *mut c_void {
    // The client aborts the process if this fails (minor >= 79): it only fails on NULL args.
    guard("LoadedExecutable_GetDeviceAssignment", args, |a| {
        // SAFETY: a live loaded executable.
        let l = unsafe { loaded_of(a.executable)? };
        a.serialized_bytes = l.state.assignment.as_ptr().cast();
        a.serialized_bytes_size = l.state.assignment.len();
        a.serialized_device_assignment = std::ptr::null_mut();
        a.serialized_device_assignment_deleter = Some(no_delete);
        Ok(())
    })
}

/// The most `non_donatable_input_indices` an Execute call may list.
const MAX_NON_DONATABLE: usize = 1 << 20;

/// Checks the execute options and reads `non_donatable_input_indices` (arguments the
/// caller keeps even where the program donates them), if the struct has them.
///
/// # Safety
/// `options` must be NULL or valid for its declared size.
/// The host callbacks the framework put in the options' execute context, if any.
///
/// # Safety
/// `options` must be NULL or the framework's valid options.
unsafe fn host_callbacks(
    options: *mut PJRT_ExecuteOptions,
) -> Result<Option<Arc<dyn xlac::eval::CustomCallHandler>>> {
    // SAFETY: the caller's contract.
    let Some(o) = (unsafe { options.as_ref() }) else {
        return Ok(None);
    };
    if !has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, context),
        std::mem::size_of::<usize>(),
    ) {
        return Ok(None);
    }
    // SAFETY: a context from `PJRT_ExecuteContext_Create`, or NULL.
    match unsafe { crate::host_callback::context_ref(o.context)? } {
        Some(context) => context.host_callbacks(),
        None => Ok(None),
    }
}

unsafe fn execute_options_ok(options: *mut PJRT_ExecuteOptions) -> Result<Vec<i64>> {
    // SAFETY: the caller's contract.
    let Some(o) = (unsafe { options.as_ref() }) else {
        return Ok(Vec::new());
    };
    if has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, num_send_ops),
        16,
    ) && (o.num_send_ops != 0 || o.num_recv_ops != 0)
    {
        return Err(Error::unimplemented(
            "error: xlac does not run host send/recv callbacks",
        ));
    }
    if !has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, num_non_donatable_input_indices),
        std::mem::size_of::<usize>(),
    ) || o.num_non_donatable_input_indices == 0
    {
        return Ok(Vec::new());
    }
    if o.num_non_donatable_input_indices > MAX_NON_DONATABLE {
        return Err(Error::invalid(format!(
            "{} non-donatable input indices; at most {MAX_NON_DONATABLE}",
            o.num_non_donatable_input_indices
        )));
    }
    // SAFETY: the framework's array of `num_non_donatable_input_indices` indices.
    let indices = unsafe {
        slice(
            o.non_donatable_input_indices,
            o.num_non_donatable_input_indices,
            "non_donatable_input_indices",
        )?
    };
    Ok(indices.to_vec())
}

/// One argument of an Execute, as taken from its buffer: where its data is (perhaps the
/// output of a run still in flight) and whether the run may own it.
pub struct Taken {
    source: Source,
    donated: bool,
    /// A token parameter: whatever was passed, the run gets a token.
    token: bool,
}

impl Taken {
    /// True if the data is there (no run in flight produces it).
    fn is_ready(&self) -> bool {
        self.source.is_ready()
    }

    /// Waits for the data (the producing run's failure if it failed) and makes it an
    /// input: owned if donated and nothing else shares it, else shared.
    fn wait(self, i: usize) -> Result<Input> {
        let data = self.source.wait().map_err(|e| {
            Error::new(
                e.code,
                format!(
                    "error: argument {i} comes from a run that failed: {}",
                    e.message
                ),
            )
        })?;
        if self.token {
            return Ok(Input::Kept(Arc::new(Literal::Token)));
        }
        Ok(if self.donated {
            match Arc::try_unwrap(data) {
                Ok(owned) => Input::Donated(owned),
                Err(l) => Input::Kept(l),
            }
        } else {
            Input::Kept(data)
        })
    }
}

/// Waits for every argument of one run.
fn wait_all(args: Vec<Taken>) -> Result<Vec<Input>> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| a.wait(i))
        .collect()
}

/// The arguments of one Execute: where each buffer's data is, shared, or taken out of a
/// donated buffer (which counts as deleted from then on). Nothing waits here: an argument
/// may be the output of a run still in flight. A buffer under an external reference
/// (a zero-copy numpy view) is not donated: it stays alive and the run reads it, the
/// aliased output getting memory of its own, as XLA:CPU refuses such a donation. A
/// donated buffer passed more than once is refused with XLA's INVALID_ARGUMENT messages,
/// nothing consumed; the run owns a donated buffer's data only when nothing else shares
/// it by the time it starts.
fn take_arguments(
    state: &ExecutableState,
    handles: &[*mut c_void],
    non_donatable: &[i64],
) -> Result<Vec<Taken>> {
    let buffers = handles
        .iter()
        // SAFETY: live buffers from this plugin.
        .map(|&h| unsafe { buffer_ref(h) })
        .collect::<Result<Vec<_>>>()?;
    for (i, b) in buffers.iter().enumerate() {
        b.source()
            .map_err(|e| Error::new(e.code, format!("error: argument {i}: {}", e.message)))?;
    }
    // A token parameter takes whatever jax passes for it: a token from an earlier run, or
    // the `bool[0]` array it starts an ordered effect with.
    let token = |i: usize| matches!(state.parameters.get(i), Some(Shape::Token));
    let given: Vec<Shape> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| if token(i) { Shape::Token } else { b.shape() })
        .collect();
    state.check_shapes(&given)?;
    let donate = |i: usize| {
        state.donates(i)
            && !non_donatable.contains(&(i as i64))
            && !buffers[i].has_external_references()
    };
    // A donated buffer may be passed once only, as XLA's PJRT client checks (with its
    // messages), before anything is consumed.
    for (i, &h) in handles.iter().enumerate() {
        let Some(first) = handles[..i].iter().position(|&g| g == h) else {
            continue;
        };
        let example = match (donate(first), donate(i)) {
            (false, false) => continue,
            (true, true) => "Attempt to donate the same buffer twice in Execute()",
            (true, false) => {
                "Attempt to use a buffer that was previously donated in the same call to Execute()"
            }
            (false, true) => {
                "Attempt to donate a buffer which is also used by the same call to Execute()"
            }
        };
        let toy = match (donate(first), donate(i)) {
            (true, true) => "f(donate(a), donate(a))",
            (true, false) => "f(donate(a), a)",
            _ => "f(a, donate(a))",
        };
        return Err(Error::new(
            Code::InvalidArgument,
            format!(
                "{example} (flattened argument {i}, replica 0, partition 0, first use: {first}). Toy example for this bug: `{toy}`."
            ),
        ));
    }
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Ok(Taken {
                source: if donate(i) { b.take()? } else { b.source()? },
                donated: donate(i),
                token: token(i),
            })
        })
        .collect()
}

/// A client pointer a worker thread may hold: the client shuts its queues down (waiting
/// for the runs in flight) before it goes.
struct ClientRef(*const Client);

// SAFETY: the client is `Sync` and outlives every queued run (see above).
unsafe impl Send for ClientRef {}

/// Queues one run of a one-device program on the worker of local device `device` and
/// returns at once with the output buffers (pending until the run ends) and the signal of
/// its end.
fn execute_async(
    client: &Client,
    state: &Arc<ExecutableState>,
    device: usize,
    args: Vec<Taken>,
) -> Result<(Vec<Buffer>, Arc<Signal>)> {
    let run = Signal::pending();
    let produced: Vec<Arc<Produced>> = state
        .outputs
        .iter()
        .map(|_| Produced::new(run.clone()))
        .collect();
    let buffers = state
        .outputs
        .iter()
        .zip(&produced)
        .map(|(shape, p)| Buffer::pending(client, device, shape.as_ref(), p.clone()))
        .collect();
    let job_state = state.clone();
    let job_run = run.clone();
    let job_client = ClientRef(client);
    client.queues.enqueue(
        device,
        Box::new(move || {
            let job_client = job_client;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: the client outlives its queued runs.
                let client = unsafe { &*job_client.0 };
                let inputs = wait_all(args)?;
                let leaves = job_state.execute(client, inputs, None)?;
                for (p, leaf) in produced.iter().zip(leaves) {
                    p.set(leaf);
                }
                Ok(())
            }))
            .unwrap_or_else(|_| {
                Err(Error::new(
                    Code::Internal,
                    format!("error: {}: the run panicked", job_state.name),
                ))
            });
            job_run.fire(outcome.map_err(|e: Error| Failure::of(&e)));
        }),
    )?;
    Ok((buffers, run))
}

entry_points! {
    fn loaded_executable_execute(a: PJRT_LoadedExecutable_Execute_Args) {
        // SAFETY: a live loaded executable whose client outlives it.
        let l = unsafe { loaded_of(a.executable)? };
        let client = unsafe { &*l.client };
        if l.deleted.load(Ordering::Acquire) {
            return Err(Error::new(
                Code::FailedPrecondition,
                "the executable has been deleted",
            ));
        }
        let devices = &l.state.devices;
        if a.num_devices != devices.len() {
            return Err(Error::invalid(format!(
                "error: {}: execute on {} devices; the program runs on {} ({:?})",
                l.state.name,
                a.num_devices,
                devices.len(),
                devices
            )));
        }
        if let Some(d) = crate::client::check_device(client, a.execute_device)?
            && (devices.len() != 1 || devices[0] != d)
        {
            return Err(Error::invalid(format!(
                "error: {}: execute on device {d}; the program runs on devices {devices:?}",
                l.state.name
            )));
        }
        if devices.is_empty() {
            // A program over other processes' devices only: they run it; nothing here.
            return Ok(());
        }
        // SAFETY: the framework's options.
        let non_donatable = unsafe { execute_options_ok(a.options)? };
        // SAFETY: `argument_lists[d]` holds `num_args` buffers for each device.
        let lists = unsafe { slice(a.argument_lists, devices.len(), "argument_lists")? };
        let mut rows = Vec::with_capacity(devices.len());
        for (row, (&list, &device)) in lists.iter().zip(devices).enumerate() {
            let handles = unsafe { slice(list, a.num_args, "argument_lists[d]")? };
            for (i, &h) in handles.iter().enumerate() {
                // SAFETY: live buffers from this plugin.
                let b = unsafe { buffer_ref(h)? };
                if b.device() != device {
                    return Err(Error::invalid(format!(
                        "error: {}: argument {i} for device {device} (execution {row}) is on device {}: put it on device {device} first",
                        l.state.name,
                        b.device()
                    )));
                }
            }
            rows.push(handles);
        }
        // SAFETY: `output_lists[d]` has room for `NumOutputs` buffers per device.
        let out_lists = unsafe { slice(a.output_lists, devices.len(), "output_lists")? };
        if out_lists.iter().any(|l| l.is_null()) && !l.state.outputs.is_empty() {
            return Err(Error::invalid("output_lists[d] is NULL"));
        }
        let host = unsafe { host_callbacks(a.options)? };
        let mut taken = Vec::with_capacity(rows.len());
        for handles in rows {
            taken.push(take_arguments(&l.state, handles, &non_donatable)?);
        }
        // One device, no host callbacks: queue the run and return (a cheap run whose inputs
        // are there runs here: the hand-off would cost more than the run). Host callbacks run
        // Python under the GIL, which the caller may hold while it waits for the plugin
        // (XLA's own clients run such programs synchronously too); programs over several
        // devices run together and synchronously.
        let inline = l.state.cheap && taken.iter().flatten().all(Taken::is_ready);
        let asynchronous = client.options.asynchronous
            && devices.len() == 1
            && host.is_none()
            && !inline
            && !matches!(l.state.runner, Runner::Devices(_));
        let (outputs, complete) = if asynchronous {
            let args = taken.pop().unwrap_or_default();
            let (buffers, run) = execute_async(client, &l.state, devices[0], args)?;
            (vec![buffers], Some(run))
        } else {
            let inputs = taken.into_iter().map(wait_all).collect::<Result<Vec<_>>>()?;
            let outputs = l.state.execute_all(client, inputs, host)?;
            let buffers = outputs
                .into_iter()
                .zip(devices)
                .map(|(leaves, &device)| {
                    leaves
                        .into_iter()
                        .map(|leaf| match leaf {
                            Literal::Array(a) => Buffer::new(client, device, a),
                            _ => Buffer::token(client, device),
                        })
                        .collect()
                })
                .collect();
            (buffers, None)
        };
        for (&list, buffers) in out_lists.iter().zip(outputs) {
            for (i, buffer) in buffers.into_iter().enumerate() {
                // SAFETY: index within the pre-sized list.
                unsafe { *list.add(i) = buffer.into_raw() };
            }
        }
        if !a.device_complete_events.is_null() {
            for d in 0..devices.len() {
                let event = match &complete {
                    Some(run) => Event::on(run.clone()),
                    None => Event::ready(),
                };
                // SAFETY: room for one event per device.
                unsafe { *a.device_complete_events.add(d) = event };
            }
        }
        Ok(())
    }
}

// ---- executables ----------------------------------------------------------------------

entry_points! {
    fn executable_destroy(a: PJRT_Executable_Destroy_Args) {
        if !a.executable.is_null() {
            // SAFETY: from `loaded_executable_get_executable`; destroyed once.
            drop(unsafe { Box::from_raw(a.executable.cast::<Arc<ExecutableState>>()) });
        }
        Ok(())
    }

    fn executable_name(a: PJRT_Executable_Name_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.executable_name = s.name.as_ptr().cast();
        a.executable_name_size = s.name.len();
        Ok(())
    }

    fn executable_num_replicas(a: PJRT_Executable_NumReplicas_Args) {
        // SAFETY: a live executable.
        a.num_replicas = unsafe { state_of(a.executable)? }.replicas;
        Ok(())
    }

    fn executable_num_partitions(a: PJRT_Executable_NumPartitions_Args) {
        // SAFETY: a live executable.
        a.num_partitions = unsafe { state_of(a.executable)? }.partitions;
        Ok(())
    }

    fn executable_num_outputs(a: PJRT_Executable_NumOutputs_Args) {
        // SAFETY: a live executable.
        a.num_outputs = unsafe { state_of(a.executable)? }.outputs.len();
        Ok(())
    }

    fn executable_size_of_generated_code_in_bytes(
        a: PJRT_Executable_SizeOfGeneratedCodeInBytes_Args,
    ) {
        // SAFETY: a live executable.
        a.size_in_bytes = unsafe { state_of(a.executable)? }.code_bytes;
        Ok(())
    }

    fn executable_fingerprint(a: PJRT_Executable_Fingerprint_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.executable_fingerprint = s.fingerprint.as_ptr().cast();
        a.executable_fingerprint_size = s.fingerprint.len();
        Ok(())
    }

    fn executable_get_cost_analysis(a: PJRT_Executable_GetCostAnalysis_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        (a.properties, a.num_properties) = (s.cost.as_ptr(), s.cost.len());
        Ok(())
    }

    fn executable_get_compiled_memory_stats(a: PJRT_Executable_GetCompiledMemoryStats_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let m = s.memory;
        a.generated_code_size_in_bytes = s.code_bytes;
        a.argument_size_in_bytes = m.argument;
        a.output_size_in_bytes = m.output;
        a.alias_size_in_bytes = 0;
        a.temp_size_in_bytes = m.temp;
        a.host_generated_code_size_in_bytes = 0;
        a.host_argument_size_in_bytes = 0;
        a.host_output_size_in_bytes = 0;
        a.host_alias_size_in_bytes = 0;
        a.host_temp_size_in_bytes = 0;
        let end = std::mem::offset_of!(
            PJRT_Executable_GetCompiledMemoryStats_Args,
            peak_memory_in_bytes
        );
        if has_field(a.struct_size, end, 8) {
            a.peak_memory_in_bytes = m.argument + m.temp.max(m.total - m.argument);
        }
        let end = std::mem::offset_of!(
            PJRT_Executable_GetCompiledMemoryStats_Args,
            peak_unpadded_heap_bytes
        );
        if has_field(a.struct_size, end, 8) {
            a.total_size_in_bytes = m.total;
            a.total_allocation_bytes = m.total;
            a.indefinite_allocations = 0;
            a.peak_unpadded_heap_bytes = 0;
        }
        Ok(())
    }

    fn executable_output_element_types(a: PJRT_Executable_OutputElementTypes_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let types = &s.output_types;
        (a.output_types, a.num_output_types) = (types.as_ptr().cast_mut(), types.len());
        Ok(())
    }

    fn executable_output_dimensions(a: PJRT_Executable_OutputDimensions_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.num_outputs = s.outputs.len();
        a.dims = s.output_dims.as_ptr();
        a.dim_sizes = s.output_dim_sizes.as_ptr();
        Ok(())
    }

    fn executable_output_memory_kinds(a: PJRT_Executable_OutputMemoryKinds_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        a.num_outputs = s.outputs.len();
        a.memory_kinds = s.output_kinds.as_ptr();
        a.memory_kind_sizes = s.output_kind_sizes.as_ptr();
        Ok(())
    }

    fn executable_optimized_program(a: PJRT_Executable_OptimizedProgram_Args) {
        // SAFETY: a live executable.
        let s = unsafe { state_of(a.executable)? };
        let bytes = s
            .optimized_program
            .as_ref()
            .map_err(|message| Error::unimplemented(message.clone()))?;
        if a.program.is_null() {
            return Err(Error::invalid("error: OptimizedProgram: program is NULL"));
        }
        // SAFETY: the caller's PJRT_Program, live for the call.
        let program = unsafe { &mut *a.program };
        program.format = OPTIMIZED_PROGRAM_FORMAT.as_ptr().cast();
        program.format_size = OPTIMIZED_PROGRAM_FORMAT.len();
        // Two calls: first with `code` NULL for the size, then with a buffer that large.
        if !program.code.is_null() {
            if program.code_size < bytes.len() {
                return Err(Error::invalid(format!(
                    "error: OptimizedProgram: a buffer of {} bytes for a program of {}",
                    program.code_size,
                    bytes.len()
                )));
            }
            // SAFETY: `code` holds at least `code_size >= bytes.len()` bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    program.code.cast::<u8>(),
                    bytes.len(),
                )
            };
        }
        program.code_size = bytes.len();
        Ok(())
    }
}

/// The optimized program's bytes (`HloModuleProtoWithConfig`), or why there are none.
pub fn optimized_program_bytes(state: &ExecutableState) -> std::result::Result<&[u8], &str> {
    state
        .optimized_program
        .as_ref()
        .map(|b| b.as_slice())
        .map_err(|e| e.as_str())
}

/// The optimized program's text (xlac's HLO after every pass), for the Rust tests and
/// `xlac`-aware callers.
pub fn optimized_text(state: &ExecutableState) -> &str {
    &state.optimized_text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_programs_are_one_error_line() {
        for (code, format, word) in [
            (&b"\xff\xfe"[..], "mlir", "invalid UTF-8"),
            (b"hello", "mlir", "program.mlir:1:1"),
            (b"  // c\n", "mlir", "empty"),
            (b"module {", "mlir", "program.mlir:1:"),
            (b"HloModule m\n", "hlo", "program.hlo"),
            (b"module {}", "xla", "format 'xla'"),
            (
                b"ML\xefR\x0dStableHLO_v1.17.0\x00\x01",
                "mlir",
                "program.mlirbc: byte ",
            ),
        ] {
            let e = read_program(code, format).err().expect("an error");
            assert!(e.message.starts_with("error: "), "{}", e.message);
            assert!(e.message.contains(word), "{word}: {}", e.message);
            assert!(!e.message.contains('\n'), "{}", e.message);
        }
    }

    #[test]
    fn portable_artifacts_are_read_and_kept_as_text_for_the_dump() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/bytecode/programs/softmax.jit.mlirbc"
        );
        let code = std::fs::read(path).unwrap();
        let p = read_program(&code, "mlir").unwrap();
        assert_eq!(p.module.entry_computation().parameters().len(), 1);
        let text = p.stablehlo_text.unwrap();
        assert!(
            text.starts_with("// StableHLO portable artifact: producer StableHLO_v"),
            "{}",
            text.lines().next().unwrap_or_default()
        );
    }

    #[test]
    fn small_programs_without_loops_are_cheap() {
        let program = |text: &str| read_program(text.as_bytes(), "mlir").unwrap().module;
        let add = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  \
                   %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n  \
                   %0 = stablehlo.add %a, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
        assert!(is_cheap(&program(add)));
        let big = add.replace("4xf32", "1024x1024xf32");
        assert!(!is_cheap(&program(&big)));
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/bytecode/programs/fori_loop.jit.mlirbc"
        );
        let code = std::fs::read(path).unwrap();
        assert!(!is_cheap(&read_program(&code, "mlir").unwrap().module));
    }

    #[test]
    fn text_programs_are_read() {
        let text = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  \
                    %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
        let p = read_program(text.as_bytes(), "mlir").unwrap();
        assert_eq!(p.module.entry_computation().parameters().len(), 1);
        assert!(p.stablehlo_text.is_some());
    }
}
