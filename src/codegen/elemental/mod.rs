//! The elemental emitter: CLIF for one element of any fused instruction at a multi-index.
//! `emit(frame, instr, index)` returns the element's value(s) (one per array leaf; a
//! variadic reduce or a tuple gives several), composing through operands by index
//! arithmetic: a broadcast reads its operand at fewer dimensions, a transpose at permuted
//! ones, and so on down to the fusion's parameters, which are loads from buffers in their
//! PHYSICAL layout. Nothing here loops over the output; `loop_emitter.rs` does.
//!
//! Values carry their element type implicitly: `pred` is an `i8` holding 0 or 1, integers are
//! `i8`..`i64` (signedness comes from the HLO type), `f16`/`bf16` are `f32` values that every
//! op rounds back to the narrow type (as XLA computes them), `f32`/`f64` are themselves.
//! Every index is clamped or proven in bounds, and nothing traps.
//!
//! XLA: `xla/service/elemental_ir_emitter.cc` (`ElementalIrEmitter::MakeElementGenerator`),
//! `xla/codegen/emitters/elemental_hlo_to_mlir.cc`.

pub mod convert;
pub(crate) mod element_generator;
pub mod elementwise;
pub mod fp_contraction;
pub mod index;
pub mod integer;
pub mod lanes;
pub mod reduce;

use std::collections::HashMap;

use cranelift_codegen::ir::{
    self, BlockArg, FuncRef, InstBuilder, MemFlagsData, SourceLoc, Type, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::FuncId;

use super::CodegenError;
use crate::ir::{
    ArrayShape, Computation, InstrId, Instruction, Module, Op, Opcode, PrimitiveType, Shape,
};

/// A buffer the kernel reads: its base address (a kernel argument) and its shape/layout.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// The base address.
    pub base: Value,
    /// The logical shape and physical layout of its contents.
    pub shape: ArrayShape,
}

/// Where a computation's parameters come from.
pub enum Params {
    /// A fusion's parameters: buffers, read at the element's index.
    Buffers(Vec<Buffer>),
    /// An inlined scalar computation's parameters (reducer, map body): one value per leaf.
    Scalars(Vec<Vec<Value>>),
}

/// One computation being emitted: the fused computation, or an inlined reducer.
pub struct Frame<'m> {
    /// The computation.
    pub comp: &'m Computation,
    /// Its parameters.
    pub params: Params,
    /// For a kOutput fusion: the `dot` (or convolution) the runtime computed, read from a buffer.
    pub library_result: Option<(InstrId, Buffer)>,
    /// Distinguishes cache entries of different inlined calls.
    pub id: u32,
}

/// State shared by every kernel of one module: the libcalls declared in the JIT module and
/// the constant arrays kernels read (owned here so their addresses stay valid).
#[derive(Default)]
pub struct KernelEnv {
    /// Declared libcalls by symbol name.
    pub libcalls: HashMap<&'static str, (FuncId, ir::Signature)>,
    /// Constant arrays, in physical order; kernels embed their addresses.
    pub constants: Vec<Box<[u64]>>,
    /// What the inline math library may assume about the target (native FMA or not).
    pub math: crate::codegen::math::MathOptions,
    /// Whether the target has vector registers; `false` keeps every emitter scalar (the
    /// cross-ISA listing for riscv64 without V).
    pub vectors: bool,
    /// Whether kernels may call the native block routines of `codegen/block_math` (the
    /// host runs them); `false` keeps all math inline.
    pub block_math: bool,
    /// Whether kernels compute `a*b + c` pairs as one FMA (`fp_contraction.rs`): the target
    /// has a native FMA and the options allow it.
    pub fp_contraction: bool,
}

type CacheKey = (u32, InstrId, Vec<Value>);

/// Emits elements into one function under construction.
pub struct Emitter<'m, 'f, 'b> {
    /// The function builder, positioned where the next instruction goes.
    pub b: &'f mut FunctionBuilder<'b>,
    /// The module (reducers and mapped computations live there).
    pub module: &'m Module,
    /// Shared libcalls and constants.
    pub env: &'f mut KernelEnv,
    imported: HashMap<&'static str, FuncRef>,
    cache: Vec<HashMap<CacheKey, Vec<Value>>>,
    /// What the kernel's strategy holds for element reads (rows it computed first, the
    /// pointer loads in use); empty in most strategies.
    pub(crate) generator: element_generator::ElementGenerator,
    next_frame: u32,
    /// HLO names by source location: CLIF instructions carry `SourceLoc(i)` of the HLO
    /// instruction `names[i]` that produced them, so dumps can say which is which.
    pub names: Vec<String>,
    locs: Vec<SourceLoc>,
    /// The kernel's fused computation's contractions (`fp_contraction.rs`), once asked for.
    contractions: Option<crate::ir::fp_contraction::Contractions>,
}

/// Shorthand for a codegen error about `instr`.
pub fn error(instr: &Instruction, message: impl Into<String>) -> CodegenError {
    CodegenError {
        kind: crate::ir::ErrorKind::Internal,
        instruction: instr.name.clone(),
        message: message.into(),
    }
}

/// The array shape of an instruction, or an error naming it.
pub fn array_shape(instr: &Instruction) -> Result<&ArrayShape, CodegenError> {
    instr
        .shape
        .as_array()
        .ok_or_else(|| error(instr, "expected an array shape"))
}

/// The CLIF type a value of element type `t` is computed in.
pub fn value_type(t: PrimitiveType) -> Option<Type> {
    use PrimitiveType as P;
    Some(match t {
        P::Pred | P::S8 | P::U8 => types::I8,
        P::S16 | P::U16 => types::I16,
        P::S32 | P::U32 => types::I32,
        P::S64 | P::U64 => types::I64,
        P::F16 | P::BF16 | P::F32 => types::F32,
        P::F64 => types::F64,
        _ => return None,
    })
}

/// Block arguments from values.
pub fn block_args(values: &[Value]) -> Vec<BlockArg> {
    values.iter().map(|&v| BlockArg::Value(v)).collect()
}

/// Flags of every data load and store: in bounds by construction, maybe unaligned.
pub fn data_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl<'m, 'f, 'b> Emitter<'m, 'f, 'b> {
    /// An emitter writing into `b`.
    pub fn new(b: &'f mut FunctionBuilder<'b>, module: &'m Module, env: &'f mut KernelEnv) -> Self {
        Emitter {
            b,
            module,
            env,
            imported: HashMap::new(),
            cache: vec![HashMap::new()],
            generator: Default::default(),
            next_frame: 0,
            names: vec![String::new()],
            locs: Vec::new(),
            contractions: None,
        }
    }

    /// A fresh frame id.
    pub fn frame_id(&mut self) -> u32 {
        self.next_frame += 1;
        self.next_frame
    }

    /// Starts a cache scope: values emitted until `pop_scope` live in blocks that later code
    /// may not be dominated by (loop bodies, branches), so they must not be reused after.
    pub fn push_scope(&mut self) {
        self.cache.push(HashMap::new());
    }

    /// Ends the innermost cache scope.
    pub fn pop_scope(&mut self) {
        self.cache.pop();
    }

    /// The element(s) of `id` (in `frame`) at `index` (one `i64` per dimension).
    pub fn emit(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        if let Some(v) = self.row_cached(frame.id, id, index, None) {
            return Ok(vec![v]);
        }
        let key = (frame.id, id, index.to_vec());
        for scope in self.cache.iter().rev() {
            if let Some(v) = scope.get(&key) {
                return Ok(v.clone());
            }
        }
        let instr = frame.comp.instr(id);
        self.enter_instruction(&instr.name);
        let result = self.emit_uncached(frame, id, instr, index);
        self.leave_instruction();
        let values = result?;
        if let Some(scope) = self.cache.last_mut() {
            scope.insert(key, values.clone());
        }
        Ok(values)
    }

    /// Tags the CLIF emitted from now on with HLO instruction `name` (a new source
    /// location), until [`Self::leave_instruction`]; dumps print it as `; %name`.
    pub fn enter_instruction(&mut self, name: &str) {
        let loc = SourceLoc::new(self.names.len() as u32);
        self.names.push(name.to_string());
        self.locs.push(loc);
        self.b.set_srcloc(loc);
    }

    /// Back to the enclosing instruction's source location.
    pub fn leave_instruction(&mut self) {
        self.locs.pop();
        self.b
            .set_srcloc(self.locs.last().copied().unwrap_or(SourceLoc::new(0)));
    }

    /// The single array element of `id` at `index`.
    pub fn emit1(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let v = self.emit(frame, id, index)?;
        match v.as_slice() {
            [x] => Ok(*x),
            _ => Err(error(
                frame.comp.instr(id),
                "expected an array value, got a tuple",
            )),
        }
    }

    fn emit_uncached(
        &mut self,
        frame: &Frame<'m>,
        id: InstrId,
        instr: &'m Instruction,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        if let Some((dot, buffer)) = &frame.library_result
            && *dot == id
        {
            let v = self.load_at(buffer, index, instr)?;
            return Ok(vec![v]);
        }
        if let Some(c) = self.contraction(frame, id) {
            let v = self.contracted_scalar(frame, instr, c, index)?;
            return Ok(vec![self.round_to_storage(element_type(instr)?, v)]);
        }
        let one = |v: Value| Ok(vec![v]);
        match &instr.op {
            Op::Parameter { number } => self.parameter(frame, *number, instr, index),
            Op::Constant { literal } => one(self.constant(instr, literal, index)?),
            Op::Iota { dimension } => one(self.iota(instr, *dimension, index)?),
            Op::Broadcast { dimensions } => self.broadcast(frame, instr, dimensions, index),
            Op::Transpose { dimensions } => self.transpose(frame, instr, dimensions, index),
            Op::Reverse { dimensions } => self.reverse(frame, instr, dimensions, index),
            Op::Concatenate { dimension } => self.concatenate(frame, instr, *dimension, index),
            Op::Slice { slice } => self.slice(frame, instr, slice, index),
            Op::DynamicSlice { sizes } => self.dynamic_slice(frame, instr, sizes, index),
            Op::Pad { padding } => self.pad(frame, instr, padding, index),
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            } => self.gather(frame, instr, dimension_numbers, slice_sizes, index),
            Op::GetTupleElement { index: i } => self.get_tuple_element(frame, instr, *i, index),
            Op::Reduce {
                dimensions,
                to_apply,
            } => self.reduce(frame, instr, dimensions, *to_apply, index),
            Op::ReduceWindow { window, to_apply } => {
                self.reduce_window(frame, instr, window, *to_apply, index)
            }
            Op::Map { to_apply, .. } => self.map(frame, instr, *to_apply, index),
            Op::Compare {
                direction,
                comparison_type,
            } => one(self.compare(frame, instr, *direction, *comparison_type, index)?),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => one(self.reduce_precision(frame, instr, *exponent_bits, *mantissa_bits, index)?),
            Op::Plain(op) => self.plain(frame, instr, *op, index),
            _ => Err(error(
                instr,
                format!("{} is not emitted inside kernels", instr.opcode()),
            )),
        }
    }

    fn plain(
        &mut self,
        frame: &Frame<'m>,
        instr: &'m Instruction,
        op: Opcode,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        use Opcode::*;
        match op {
            Reshape => self.reshape(frame, instr, index, false),
            // XLA's optimized HLO also writes bit reinterpretations of equal dimensions
            // as `bitcast` (`s32[] bitcast(f32[])` in comparators): the value must change
            // type, as a bitcast-convert does.
            Bitcast
                if element_type(instr)? != element_type(frame.comp.instr(instr.operands[0]))?
                    && instr.shape.dims() == frame.comp.instr(instr.operands[0]).shape.dims() =>
            {
                Ok(vec![self.bitcast_convert(frame, instr, index)?])
            }
            Bitcast => self.reshape(frame, instr, index, true),
            Tuple => {
                let mut out = Vec::new();
                for &o in &instr.operands {
                    out.extend(self.emit(frame, o, index)?);
                }
                Ok(out)
            }
            DynamicUpdateSlice => self.dynamic_update_slice(frame, instr, index),
            Convert => Ok(vec![self.convert_op(frame, instr, index)?]),
            BitcastConvert => Ok(vec![self.bitcast_convert(frame, instr, index)?]),
            _ if op.is_elementwise() => Ok(vec![self.elementwise(frame, instr, op, index)?]),
            _ => Err(error(instr, format!("{op} is not emitted inside kernels"))),
        }
    }

    fn parameter(
        &mut self,
        frame: &Frame<'m>,
        number: usize,
        instr: &'m Instruction,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        match &frame.params {
            Params::Scalars(values) => values
                .get(number)
                .cloned()
                .ok_or_else(|| error(instr, "parameter number out of range")),
            Params::Buffers(buffers) => {
                let buffer = buffers
                    .get(number)
                    .ok_or_else(|| error(instr, "parameter number out of range"))?
                    .clone();
                Ok(vec![self.load_at(&buffer, index, instr)?])
            }
        }
    }

    /// The element of `buffer` at logical `index`, converted to its computation type.
    pub fn load_at(
        &mut self,
        buffer: &Buffer,
        index: &[Value],
        instr: &Instruction,
    ) -> Result<Value, CodegenError> {
        if index.len() != buffer.shape.rank() {
            return Err(error(instr, "index rank does not match the buffer's shape"));
        }
        let offset = self.physical_offset(&buffer.shape, index);
        self.load_element(buffer.base, offset, buffer.shape.element_type, instr)
    }

    /// `sum(index[d] * physical_stride[d])`: the element offset of `index` in `shape`'s layout.
    pub fn physical_offset(&mut self, shape: &ArrayShape, index: &[Value]) -> Value {
        let strides = shape.physical_strides();
        let mut offset: Option<Value> = None;
        // A buffer with no elements is never read; any offset will do.
        let empty = shape.dims.contains(&0);
        for (&i, &s) in index.iter().zip(&strides).take_while(|_| !empty) {
            let term = if s == 1 {
                i
            } else {
                let c = self.b.ins().iconst(types::I64, s as i64);
                self.b.ins().imul(i, c)
            };
            offset = Some(match offset {
                None => term,
                Some(o) => self.b.ins().iadd(o, term),
            });
        }
        offset.unwrap_or_else(|| self.b.ins().iconst(types::I64, 0))
    }

    /// Loads element number `offset` of a buffer of element type `t` at `base`.
    pub fn load_element(
        &mut self,
        base: Value,
        offset: Value,
        t: PrimitiveType,
        instr: &Instruction,
    ) -> Result<Value, CodegenError> {
        let size = t.byte_size() as i64;
        let addr = self.element_address(base, offset, size);
        let flags = data_flags();
        Ok(match t {
            PrimitiveType::BF16 => {
                let bits = self.b.ins().uload16(types::I32, flags, addr, 0);
                let bits = self.b.ins().ishl_imm_s(bits, 16);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
            }
            PrimitiveType::F16 => {
                let bits = self.b.ins().uload16(types::I32, flags, addr, 0);
                self.libcall("xlac_f16_to_f32", &[bits])
            }
            _ => {
                let ty = value_type(t).ok_or_else(|| {
                    error(
                        instr,
                        format!("element type {t} is not computed by kernels"),
                    )
                })?;
                self.b.ins().load(ty, flags, addr, 0)
            }
        })
    }

    /// Stores `v` (computed in `value_type(t)`) as element number `offset` of `base`.
    pub fn store_element(&mut self, base: Value, offset: Value, t: PrimitiveType, v: Value) {
        let size = t.byte_size() as i64;
        let addr = self.element_address(base, offset, size);
        let flags = data_flags();
        let v = match t {
            PrimitiveType::BF16 => {
                let rounded = self.round_to_bf16(v);
                let bits = self
                    .b
                    .ins()
                    .bitcast(types::I32, MemFlagsData::new(), rounded);
                let bits = self.b.ins().ushr_imm_s(bits, 16);
                self.b.ins().ireduce(types::I16, bits)
            }
            PrimitiveType::F16 => {
                let bits = self.libcall("xlac_f32_to_f16", &[v]);
                self.b.ins().ireduce(types::I16, bits)
            }
            _ => v,
        };
        self.b.ins().store(flags, v, addr, 0);
    }

    fn element_address(&mut self, base: Value, offset: Value, size: i64) -> Value {
        let base = self.base(base);
        let bytes = if size == 1 {
            offset
        } else {
            self.b
                .ins()
                .ishl_imm_s(offset, size.trailing_zeros() as i64)
        };
        self.b.ins().iadd(base, bytes)
    }

    /// Calls the registered libcall `name` and returns its result.
    pub fn libcall(&mut self, name: &'static str, args: &[Value]) -> Value {
        let fref = self.import_libcall(name);
        let call = self.b.ins().call(fref, args);
        self.b.inst_results(call)[0]
    }

    /// Calls the registered libcall `name`, which returns nothing.
    pub fn libcall_no_result(&mut self, name: &'static str, args: &[Value]) {
        let fref = self.import_libcall(name);
        self.b.ins().call(fref, args);
    }

    fn import_libcall(&mut self, name: &'static str) -> FuncRef {
        match self.imported.get(name) {
            Some(&f) => f,
            None => {
                let (id, sig) = self
                    .env
                    .libcalls
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| panic!("libcall {name} is not registered"));
                let sigref = self.b.func.import_signature(sig);
                let user = self
                    .b
                    .func
                    .declare_imported_user_function(ir::UserExternalName {
                        namespace: 0,
                        index: id.as_u32(),
                    });
                let f = self.b.func.import_function(ir::ExtFuncData {
                    name: ir::ExternalName::user(user),
                    signature: sigref,
                    colocated: false,
                    patchable: false,
                });
                self.imported.insert(name, f);
                f
            }
        }
    }

    /// An `i64` constant.
    pub fn i64c(&mut self, v: i64) -> Value {
        self.b.ins().iconst(types::I64, v)
    }

    /// The operand's element at `index`, or at `[]` when the operand is a scalar (the
    /// implicit broadcast `select` and `clamp` allow).
    pub fn operand_at(
        &mut self,
        frame: &Frame<'m>,
        operand: InstrId,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let rank = frame.comp.instr(operand).shape.rank();
        if rank == 0 && !index.is_empty() {
            self.emit1(frame, operand, &[])
        } else {
            self.emit1(frame, operand, index)
        }
    }

    /// A constant literal's element at `index`: an immediate for scalars, a load from
    /// module-owned memory for arrays.
    fn constant(
        &mut self,
        instr: &Instruction,
        literal: &crate::ir::Literal,
        index: &[Value],
    ) -> Result<Value, CodegenError> {
        let array = literal
            .as_array()
            .ok_or_else(|| error(instr, "tuple constants are not emitted in kernels"))?;
        let t = array.shape.element_type;
        if array.shape.element_count() == 1 {
            let bytes = convert::literal_bytes(array)
                .ok_or_else(|| error(instr, format!("constant of type {t}")))?;
            let mut raw = [0u8; 8];
            raw[..bytes.len()].copy_from_slice(&bytes);
            let bits = u64::from_le_bytes(raw);
            return Ok(self.constant_from_bits(t, bits));
        }
        let bytes = convert::literal_bytes(array)
            .ok_or_else(|| error(instr, format!("constant of type {t}")))?;
        let mut words = vec![0u64; bytes.len().div_ceil(8)].into_boxed_slice();
        for (i, chunk) in bytes.chunks(8).enumerate() {
            let mut raw = [0u8; 8];
            raw[..chunk.len()].copy_from_slice(chunk);
            words[i] = u64::from_le_bytes(raw);
        }
        let address = words.as_ptr() as i64;
        self.env.constants.push(words);
        let base = self.i64c(address);
        let buffer = Buffer {
            base,
            shape: array.shape.clone(),
        };
        self.load_at(&buffer, index, instr)
    }

    /// The value of element type `t` whose storage bits are `bits`.
    pub fn constant_from_bits(&mut self, t: PrimitiveType, bits: u64) -> Value {
        use PrimitiveType as P;
        match t {
            P::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
            P::F64 => self.b.ins().f64const(f64::from_bits(bits)),
            P::BF16 => self
                .b
                .ins()
                .f32const(f32::from_bits((bits as u32 & 0xffff) << 16)),
            P::F16 => self
                .b
                .ins()
                .f32const(half::f16::from_bits(bits as u16).to_f32()),
            _ => {
                let ty = value_type(t).unwrap_or(types::I64);
                let masked = if ty.bits() == 64 {
                    bits as i64
                } else {
                    (bits & ((1u64 << ty.bits()) - 1)) as i64
                };
                self.b.ins().iconst(ty, masked)
            }
        }
    }

    /// The value of a tuple-shaped operand's leaves `[start, start + count)`.
    fn get_tuple_element(
        &mut self,
        frame: &Frame<'m>,
        instr: &Instruction,
        i: usize,
        index: &[Value],
    ) -> Result<Vec<Value>, CodegenError> {
        let operand = frame.comp.instr(instr.operands[0]);
        let elements = operand
            .shape
            .tuple_elements()
            .ok_or_else(|| error(instr, "operand is not a tuple"))?;
        let start: usize = elements[..i].iter().map(|s| s.leaves().len()).sum();
        let count = elements
            .get(i)
            .ok_or_else(|| error(instr, "tuple index out of range"))?
            .leaves()
            .len();
        let all = self.emit(frame, instr.operands[0], index)?;
        Ok(all[start..start + count].to_vec())
    }
}

/// The element type of an array-shaped instruction.
pub fn element_type(instr: &Instruction) -> Result<PrimitiveType, CodegenError> {
    match &instr.shape {
        Shape::Array(a) => Ok(a.element_type),
        _ => Err(error(instr, "expected an array shape")),
    }
}
