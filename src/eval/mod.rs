//! The reference interpreter: runs an [`ir::Module`](crate::ir::Module) on [`Literal`]s with
//! XLA's exact semantics (HloEvaluator's). It is the oracle for every later stage and the
//! `--backend interpreter` of `xlac run`.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc`, `hlo_evaluator_typed_visitor.h`.
//!
//! Values inside the evaluator are always **row-major** (logical order): parameters and
//! constants are converted on entry, and handlers receive and return row-major literals.
//! Only `bitcast`, which reinterprets memory, looks at the declared layouts.
//!
//! Dispatch is one exhaustive `match` on [`Op`]; op families live in sibling files.
//! Shared helpers for handlers: [`index`] (walking multi-indices, row-major offsets, reading
//! integer indices) and [`scalar`] (XLA's per-element semantics of each elementwise op).

pub mod collectives;
pub mod compare;
mod control_flow;
mod convert;
mod convolution;
mod custom_call;
mod data_movement;
pub mod denormals;
mod dot;
mod elementwise;
mod fft;
mod gather_scatter;
pub mod host_callback;
pub mod index;
pub mod lapack;
pub mod limits;
mod linalg;
pub mod narrow_float;
mod reduce;
mod rng;
pub mod scalar;
mod sort;
pub mod subbyte;

use std::fmt;
use std::sync::Arc;

use cranelift_entity::EntityRef;

use crate::ir::denormal_mode::{DenormalMode, with_denormal_mode};

use crate::ir::{
    ArrayLiteral, Computation, ComputationId, CustomCall, ErrorKind, Instruction, Literal, Module,
    Op, Opcode,
};

pub use collectives::{DeviceContext, ProcessGrid, ProcessId};

/// Why evaluation failed: the instruction, what kind of failure, and what went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError {
    /// Whether the input is wrong, the interpreter lacks something, or xlac has a bug.
    pub kind: ErrorKind,
    /// Where it failed; `None` while not yet tied to a computation (the evaluator adds it).
    pub location: Option<EvalLocation>,
    /// What went wrong.
    pub message: String,
}

/// The computation, and the instruction where there is one, that an [`EvalError`] names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalLocation {
    /// The computation's name.
    pub computation: String,
    /// The instruction's name, if the error is about one.
    pub instruction: Option<String>,
}

impl EvalError {
    /// An error in the input (the default kind), not yet tied to an instruction.
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError {
            kind: ErrorKind::Invalid,
            location: None,
            message: message.into(),
        }
    }

    /// An error of `kind`, not yet tied to an instruction.
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> EvalError {
        EvalError {
            kind,
            ..EvalError::new(message)
        }
    }
}

impl fmt::Display for EvalLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.instruction {
            Some(i) => write!(f, "{}/{}", self.computation, i),
            None => f.write_str(&self.computation),
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            None => write!(f, "{}", self.message),
            Some(l) => write!(f, "{l}: {}", self.message),
        }
    }
}

impl std::error::Error for EvalError {}

crate::ir::impl_unsupported!(EvalError);

/// Shorthand for handler results.
pub type EvalResult<T = Literal> = Result<T, EvalError>;

#[cfg(test)]
pub(crate) use convert::from_le_bytes;
pub use convolution::ConvolutionGeometry;
pub use custom_call::interprets_target as interprets_custom_call;
/// XLA's `rng` results (`rng/xla_rng_op.txt`), for the runtime's tests too.
#[cfg(test)]
pub(crate) use rng::tests as rng_golden;
pub use rng::{RNG_STATE_INITIAL, SplitMix64, rng_data, rng_key, rng_words};
pub use sort::merge_sort;

/// Settings of one evaluation.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Seed of the `rng` op's Philox keys (`rng::rng_key`; rng-bit-generator is
    /// deterministic in its state).
    pub seed: u64,
    /// Flush float denormals to zero in arithmetic, as XLA:CPU does (see [`denormals`]).
    pub flush_denormals: bool,
    /// Timeout and while-iteration cap ([`limits`]).
    pub limits: limits::RunLimits,
    /// Compute the `add`/`subtract`s of fused computations that `ir::fp_contraction` pairs
    /// with a multiply as one fused multiply-add, as the compiled kernels do on a target
    /// with FMA (and XLA:CPU's). Off by default: the interpreter rounds every op, as HLO's
    /// semantics say; comparisons with the compiled backend on fused modules turn it on.
    pub fp_contraction: bool,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            seed: 0,
            flush_denormals: true,
            limits: limits::RunLimits::default(),
            fp_contraction: false,
        }
    }
}

/// Runs the entry computation of `module` on `args` (any layouts) and returns the result
/// in row-major layout.
pub fn evaluate(module: &Module, args: &[Literal], options: &EvalOptions) -> EvalResult {
    evaluate_with_handler(module, args, options, None)
}

/// [`evaluate`] with a [`CustomCallHandler`] consulted first for every custom call (an
/// embedder's host callbacks, a test harness's ops).
pub fn evaluate_with_handler(
    module: &Module,
    args: &[Literal],
    options: &EvalOptions,
    handler: Option<Arc<dyn CustomCallHandler>>,
) -> EvalResult {
    let mut ev = Evaluator::new(module, options.clone());
    ev.custom_call_handler = handler;
    let args: Vec<Literal> = args.iter().map(to_row_major).collect();
    let refs: Vec<&Literal> = args.iter().collect();
    let result = ev.call(module.entry, &refs)?;
    let root_shape = &module.computations[module.entry].root_instr().shape;
    Ok(subbyte::narrow(result, root_shape))
}

/// Converts every array leaf of a literal to row-major layout.
pub fn to_row_major(lit: &Literal) -> Literal {
    match lit {
        Literal::Array(a) if a.shape.layout.is_row_major() => lit.clone(),
        Literal::Array(a) => Literal::Array(a.to_row_major()),
        Literal::Tuple(t) => Literal::Tuple(t.iter().map(to_row_major).collect()),
        Literal::Token => Literal::Token,
    }
}

/// Custom-call targets the interpreter does not know, supplied by its user.
///
/// `xlac check` uses this for the test-only ops (`check.expect_eq`, `interpreter.probe`, ...):
/// the interpreter stays free of test semantics, and the harness plugs them in. The handler
/// is shared by every process of an `interpreter.run_parallel` grid, hence `Send + Sync`.
pub trait CustomCallHandler: Send + Sync {
    /// Runs the custom call `instr` (whose attributes are `cc`) on row-major `operands`, or
    /// returns `None` when this handler does not know `cc.target`; the built-in targets
    /// are tried next.
    fn custom_call(
        &self,
        ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
        cc: &CustomCall,
    ) -> Option<EvalResult>;
}

/// The interpreter's state while running one module.
pub struct Evaluator<'m> {
    /// The module being run.
    pub module: &'m Module,
    /// Settings.
    pub options: EvalOptions,
    /// The counter of every `rng` instruction run so far, by instruction name (XLA's
    /// `rng-get-and-update-state`, one per instruction; see [`rng::rng`]).
    pub rng_counters: std::collections::HashMap<String, u128>,
    /// Consulted first for every custom call; `None` runs only the built-in targets.
    pub custom_call_handler: Option<Arc<dyn CustomCallHandler>>,
    /// Which process of which grid this evaluator is: `replica-id`, `partition-id` and the
    /// collectives read it. A fresh evaluator is process (0, 0) of its own 1x1 grid.
    pub device: DeviceContext,
}

impl<'m> Evaluator<'m> {
    /// A fresh evaluator: no custom-call handler, one device.
    pub fn new(module: &'m Module, options: EvalOptions) -> Evaluator<'m> {
        Evaluator {
            module,
            options,
            rng_counters: std::collections::HashMap::new(),
            custom_call_handler: None,
            device: DeviceContext::single(),
        }
    }

    /// Evaluates computation `id` on row-major `args` and returns its root value.
    pub fn call(&mut self, id: ComputationId, args: &[&Literal]) -> EvalResult {
        with_denormal_mode(DenormalMode::Keep, || self.call_contracting(id, args, None))
    }

    /// Evaluates fused computation `id` (a fusion's `calls=`), with its contractions when
    /// [`EvalOptions::fp_contraction`] is on.
    pub fn call_fused(&mut self, id: ComputationId, args: &[&Literal]) -> EvalResult {
        let contractions = self
            .options
            .fp_contraction
            .then(|| crate::ir::fp_contraction::contractions(&self.module.computations[id]))
            .filter(|c| !c.is_empty());
        with_denormal_mode(DenormalMode::Keep, || {
            self.call_contracting(id, args, contractions.as_ref())
        })
    }

    fn call_contracting(
        &mut self,
        id: ComputationId,
        args: &[&Literal],
        contractions: Option<&crate::ir::fp_contraction::Contractions>,
    ) -> EvalResult {
        let comp = &self.module.computations[id];
        let params = comp.parameters();
        if params.len() != args.len() {
            return Err(EvalError {
                kind: ErrorKind::Invalid,
                location: Some(EvalLocation {
                    computation: comp.name.clone(),
                    instruction: None,
                }),
                message: format!(
                    "called with {} arguments, takes {}",
                    args.len(),
                    params.len()
                ),
            });
        }
        let mut values: Vec<Option<Literal>> = vec![None; comp.instrs.len()];
        for &id in &comp.order {
            let instr = &comp.instrs[id];
            let value = {
                let operands: Vec<&Literal> = instr
                    .operands
                    .iter()
                    .map(|&o| values[o.index()].as_ref())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| EvalError::new("operand used before it is defined"))
                    .map_err(|e| located(e, comp, instr))?;
                // Values are built with infallible allocations: refuse, as one error, a
                // result the machine cannot hold (an abort is not an answer).
                let bytes = crate::ir::size::check_shape(&instr.shape)
                    .map_err(|e| located(EvalError::new(e.to_string()), comp, instr))?;
                crate::ir::size::check_allocation(bytes, || {
                    format!("the value of {} ({})", instr.name, instr.shape)
                })
                .map_err(|e| located(EvalError::new(e.to_string()), comp, instr))?;
                match contractions.and_then(|c| c.get(id)) {
                    Some(c) => self
                        .contracted(comp, instr, c, &values)
                        .map_err(|e| located(e, comp, instr))?,
                    None => self.eval_in_call(comp, instr, &operands, args)?,
                }
            };
            values[id.index()] = Some(value);
        }
        values[comp.root.index()].take().ok_or_else(|| EvalError {
            kind: ErrorKind::Internal,
            location: Some(EvalLocation {
                computation: comp.name.clone(),
                instruction: None,
            }),
            message: "root was not evaluated".into(),
        })
    }

    /// Evaluates one instruction of computation `id` on its operand values (any layouts),
    /// with the same handling as inside [`Evaluator::call`] (sub-byte types, denormal
    /// flushing), and returns the row-major result. The compiled runtime's library thunks
    /// use this for ops it has no native routine for; `parameter` cannot be evaluated alone.
    pub fn evaluate_instruction(
        &mut self,
        id: ComputationId,
        instr: crate::ir::InstrId,
        operands: &[Literal],
    ) -> EvalResult {
        let comp = &self.module.computations[id];
        let instr = &comp.instrs[instr];
        // Values come and go in their stored form; narrow ones are widened in between.
        let operands: Vec<Literal> = operands
            .iter()
            .zip(&instr.operands)
            .map(|(v, &o)| subbyte::normalize(to_row_major(v), &comp.instrs[o].shape, Opcode::Copy))
            .collect();
        let refs: Vec<&Literal> = operands.iter().collect();
        let value = with_denormal_mode(DenormalMode::Keep, || {
            self.eval_in_call(comp, instr, &refs, &[])
        })?;
        Ok(subbyte::narrow(value, &instr.shape))
    }

    /// A contracted `add`/`subtract` from the values of its multiply's operands and of its
    /// other operand, denormals flushed as the FMA instruction flushes them.
    fn contracted(
        &self,
        comp: &Computation,
        instr: &Instruction,
        c: &crate::ir::fp_contraction::Contraction,
        values: &[Option<Literal>],
    ) -> EvalResult {
        let value = |id: crate::ir::InstrId| {
            values[id.index()]
                .as_ref()
                .ok_or_else(|| EvalError::new("operand used before it is defined"))
        };
        let multiply = &comp.instrs[c.multiply];
        let other = instr.operands[1 - c.product.index()];
        let mut xyz = [
            value(multiply.operands[0])?,
            value(multiply.operands[1])?,
            value(other)?,
        ]
        .map(std::borrow::Cow::Borrowed);
        if self.options.flush_denormals {
            xyz = xyz.map(|v| std::borrow::Cow::Owned(denormals::flush(&v).into_owned()));
        }
        let [x, y, z] = &xyz;
        let signs = (c.negated_product, c.negated_addend);
        let r = elementwise::fused_multiply_add(&instr.shape, signs, x, y, z)?;
        Ok(if self.options.flush_denormals {
            denormals::flush(&r).into_owned()
        } else {
            r
        })
    }

    /// One instruction of a computation being called: dispatch plus the per-instruction
    /// handling of sub-byte types and denormals; errors carry `computation/instruction`.
    fn eval_in_call(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        operands: &[&Literal],
        args: &[&Literal],
    ) -> EvalResult {
        let narrow_operands = instr
            .operands
            .iter()
            .any(|&o| subbyte::shape_has_narrow(&comp.instrs[o].shape));
        let narrow_result = subbyte::shape_has_narrow(&instr.shape);
        let value = if matches!(instr.opcode(), Opcode::CustomCall | Opcode::BitcastConvert)
            && (narrow_operands || narrow_result)
        {
            // Custom-call handlers and bit reinterpretation see narrow values in their
            // stored (`Raw`) form.
            let narrowed: Vec<Literal> = instr
                .operands
                .iter()
                .zip(operands)
                .map(|(&o, &v)| subbyte::narrow(v.clone(), &comp.instrs[o].shape))
                .collect();
            let operands: Vec<&Literal> = narrowed.iter().collect();
            let value = self
                .eval_instruction(comp, instr, &operands, args)
                .map_err(|e| located(e, comp, instr))?;
            subbyte::normalize(value, &instr.shape, instr.opcode())
        } else if narrow_result {
            // Narrow types run widened (see `subbyte`): a copy of the instruction with a
            // widened shape, then a wrap or rounding to the declared type. A `convert`
            // keeps its declared result type: it rounds once, from the exact source.
            let mut wide = instr.clone();
            if instr.opcode() != Opcode::Convert {
                wide.shape = subbyte::widen_shape(&instr.shape);
            }
            let types: Vec<_> = instr
                .operands
                .iter()
                .map(|&o| comp.instrs[o].shape.element_type())
                .collect();
            let prepared = subbyte::prepare_operands(instr.opcode(), operands, &types);
            let operands: Vec<&Literal> = prepared.iter().map(|c| c.as_ref()).collect();
            let value = match (instr.opcode(), operands.first(), types.first()) {
                (Opcode::Convert, Some(x), Some(Some(from))) => {
                    convert::convert_from(&instr.shape, x, *from)
                }
                _ => self.eval_instruction(comp, &wide, &operands, args),
            }
            .map_err(|e| located(e, comp, instr))?;
            subbyte::normalize(value, &instr.shape, instr.opcode())
        } else if self.options.flush_denormals
            && denormals::flushes_with(
                instr.opcode(),
                &instr
                    .operands
                    .iter()
                    .map(|&o| comp.instrs[o].shape.element_type())
                    .collect::<Vec<_>>(),
            )
        {
            let flushed: Vec<_> = operands.iter().map(|o| denormals::flush(o)).collect();
            let operands: Vec<&Literal> = flushed.iter().map(|c| c.as_ref()).collect();
            let value = self
                .eval_instruction(comp, instr, &operands, args)
                .map_err(|e| located(e, comp, instr))?;
            denormals::flush(&value).into_owned()
        } else {
            self.eval_instruction(comp, instr, operands, args)
                .map_err(|e| located(e, comp, instr))?
        };
        Ok(value)
    }

    /// Evaluates one instruction given its (row-major) operand values.
    fn eval_instruction(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        operands: &[&Literal],
        args: &[&Literal],
    ) -> EvalResult {
        let shape = &instr.shape;
        match &instr.op {
            Op::Plain(opcode) => self.eval_plain(comp, instr, *opcode, operands),
            Op::Parameter { number } => args
                .get(*number)
                .map(|a| (*a).clone())
                .ok_or_else(|| EvalError::new(format!("no argument for parameter {number}"))),
            Op::Constant { literal } => Ok(to_row_major(literal)),
            Op::Iota { dimension } => data_movement::iota(shape, *dimension),
            Op::Broadcast { dimensions } => {
                data_movement::broadcast(shape, operands[0], dimensions)
            }
            Op::Transpose { dimensions } => {
                data_movement::transpose(shape, operands[0], dimensions)
            }
            Op::Reverse { dimensions } => data_movement::reverse(operands[0], dimensions),
            Op::Concatenate { dimension } => {
                data_movement::concatenate(shape, operands, *dimension)
            }
            Op::Slice { slice } => data_movement::slice(shape, operands[0], slice),
            Op::DynamicSlice { sizes } => {
                data_movement::dynamic_slice(shape, operands[0], &operands[1..], sizes)
            }
            Op::Pad { padding } => data_movement::pad(shape, operands[0], operands[1], padding),
            Op::Compare {
                direction,
                comparison_type,
            } => elementwise::compare(operands[0], operands[1], *direction, *comparison_type),
            Op::GetTupleElement { index } => match operands[0] {
                Literal::Tuple(t) => t
                    .get(*index)
                    .cloned()
                    .ok_or_else(|| EvalError::new(format!("tuple has no element {index}"))),
                _ => Err(EvalError::new("get-tuple-element of a non-tuple")),
            },
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => elementwise::reduce_precision(operands[0], *exponent_bits, *mantissa_bits),
            Op::Reduce {
                dimensions,
                to_apply,
            } => reduce::reduce(self, shape, operands, dimensions, *to_apply),
            Op::ReduceWindow { window, to_apply } => {
                reduce::reduce_window(self, shape, operands, window, *to_apply)
            }
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            } => reduce::select_and_scatter(self, shape, operands, window, *select, *scatter),
            Op::Map { to_apply, .. } => control_flow::map(self, shape, operands, *to_apply),
            Op::Dot {
                dimension_numbers, ..
            } => dot::dot(shape, operands[0], operands[1], dimension_numbers),
            Op::Convolution {
                window,
                dimension_numbers,
                feature_group_count,
                batch_group_count,
                ..
            } => convolution::convolution(
                shape,
                operands[0],
                operands[1],
                window,
                dimension_numbers,
                *feature_group_count,
                *batch_group_count,
            ),
            Op::Gather {
                dimension_numbers,
                slice_sizes,
                ..
            } => gather_scatter::gather(
                shape,
                operands[0],
                operands[1],
                dimension_numbers,
                slice_sizes,
            ),
            Op::Scatter {
                dimension_numbers,
                to_apply,
                ..
            } => gather_scatter::scatter(self, shape, operands, dimension_numbers, *to_apply),
            Op::Sort {
                dimension,
                is_stable,
                to_apply,
            } => sort::sort(self, shape, operands, *dimension, *is_stable, *to_apply),
            Op::TopK { k, largest } => sort::topk(shape, operands[0], *k, *largest),
            Op::While { condition, body } => {
                control_flow::while_loop(self, &instr.name, operands[0], *condition, *body)
            }
            Op::Conditional {
                branch_computations,
            } => control_flow::conditional(self, operands, branch_computations),
            Op::Call { to_apply } => self.call(*to_apply, operands),
            Op::Fusion { calls, .. } => self.call_fused(*calls, operands),
            Op::RngBitGenerator { algorithm } => {
                rng::rng_bit_generator(shape, operands[0], *algorithm)
            }
            Op::Rng { distribution } => rng::rng(self, &instr.name, shape, operands, *distribution),
            Op::Cholesky { lower } => linalg::cholesky(operands[0], *lower),
            Op::TriangularSolve(options) => {
                linalg::triangular_solve(operands[0], operands[1], options)
            }
            Op::CustomCall(cc) => {
                // The user's handler first; a clone of the Arc so `self` can be lent to it.
                if let Some(handler) = self.custom_call_handler.clone()
                    && let Some(result) = handler.custom_call(self, instr, operands, cc)
                {
                    return result;
                }
                custom_call::custom_call(self, instr, operands, cc)
            }
            Op::Unmodeled { opcode, called } if collectives::runs(*opcode) => {
                collectives::collective(self, instr, *opcode, called, operands)
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => fft::fft(shape, operands[0], *fft_type, fft_length),
            // Shapes are static, so the size is the operand's dimension.
            Op::DimensionSize {
                opcode: Opcode::GetDimensionSize,
                dimension,
            } => operands[0]
                .as_array()
                .and_then(|a| a.shape.dims.get(*dimension))
                .map(|&d| Literal::Array(ArrayLiteral::scalar(d as i32)))
                .ok_or_else(|| EvalError::new(format!("operand has no dimension {dimension}"))),
            Op::BatchNorm { .. } | Op::DimensionSize { .. } | Op::Unmodeled { .. } => Err(
                EvalError::new(format!("the interpreter does not run `{}`", instr.opcode()))
                    .unsupported(),
            ),
        }
    }

    /// Ops without attributes: elementwise math, reshape, tuple, copy, bitcast, ...
    fn eval_plain(
        &mut self,
        comp: &Computation,
        instr: &Instruction,
        opcode: Opcode,
        operands: &[&Literal],
    ) -> EvalResult {
        use Opcode::*;
        let shape = &instr.shape;
        match opcode {
            Convert => elementwise::convert(shape, operands[0]),
            BitcastConvert => elementwise::bitcast_convert(shape, operands[0]),
            Select => elementwise::select(operands[0], operands[1], operands[2]),
            // `copy` may copy a tuple too; values are immutable here, so it is a clone.
            Copy => Ok(operands[0].clone()),
            Clamp => elementwise::clamp(operands[0], operands[1], operands[2]),
            _ if opcode.category() == crate::ir::OpCategory::ElementwiseUnary => {
                elementwise::unary(opcode, shape, operands[0])
            }
            _ if opcode.category() == crate::ir::OpCategory::ElementwiseBinary => {
                elementwise::binary(opcode, shape, operands[0], operands[1])
            }
            Reshape => data_movement::reshape(shape, operands[0]),
            Bitcast => {
                let from = &comp.instrs[instr.operands[0]].shape;
                data_movement::bitcast(from, shape, operands[0])
            }
            DynamicUpdateSlice => {
                data_movement::dynamic_update_slice(operands[0], operands[1], &operands[2..])
            }
            Tuple => Ok(Literal::Tuple(
                operands.iter().map(|l| (*l).clone()).collect(),
            )),
            AfterAll => Ok(Literal::Token),
            AddDependency | OptimizationBarrier | Domain => Ok(operands[0].clone()),
            // The process's ids in its grid; (0, 0) on a single device.
            ReplicaId => Ok(Literal::Array(ArrayLiteral::scalar(
                self.device.process.replica_id,
            ))),
            PartitionId => Ok(Literal::Array(ArrayLiteral::scalar(
                self.device.process.partition_id,
            ))),
            _ => Err(
                EvalError::new(format!("the interpreter does not run `{opcode}`")).unsupported(),
            ),
        }
    }
}

/// True if the interpreter runs `opcode` (for at least the element types it is defined on).
/// One arm per opcode, so a new opcode must be placed here; the op coverage table
/// (`docs/op-coverage.md`) is built from this (`tests/doc_tables.rs`).
pub fn interprets(opcode: Opcode) -> bool {
    use Opcode::*;
    match opcode {
        Abs | Acos | Acosh | Add | AddDependency | AfterAll | And | Asin | Asinh | Atan2
        | Atanh | Bitcast | BitcastConvert | Broadcast | Call | Cbrt | Ceil | Cholesky | Clamp
        | Compare | Complex | Concatenate | Conditional | Constant | Convert | Convolution
        | Copy | Cos | Cosh | Clz | CustomCall | Divide | Domain | Dot | DynamicSlice
        | DynamicUpdateSlice | Erf | Exp | Expm1 | Fft | Floor | Fusion | Gather
        | GetDimensionSize | GetTupleElement | Imag | Iota | IsFinite | Log | Log1p | Logistic
        | Map | Maximum | Minimum | Multiply | Negate | Not | OptimizationBarrier | Or | Pad
        | Parameter | PartitionId | PopulationCount | Power | Real | Reduce | ReducePrecision
        | ReduceWindow | Remainder | ReplicaId | Reshape | Reverse | Rng | RngBitGenerator
        | RoundNearestAfz | RoundNearestEven | Rsqrt | Scatter | Select | SelectAndScatter
        | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Sign | Sin | Sinh | Slice
        | Sort | Sqrt | Subtract | Tan | Tanh | TopK | Transpose | TriangularSolve | Tuple
        | While | Xor => true,
        // Collectives and async pairs need several devices or a scheduler; the rest are
        // not emitted by JAX on CPU and wait for a need.
        AllGather
        | AllGatherDone
        | AllGatherStart
        | AllReduce
        | AllReduceDone
        | AllReduceStart
        | AllToAll
        | AsyncDone
        | AsyncStart
        | AsyncUpdate
        | BatchNormGrad
        | BatchNormInference
        | BatchNormTraining
        | CollectiveBroadcast
        | CollectivePermute
        | CollectivePermuteDone
        | CollectivePermuteStart
        | CopyDone
        | CopyStart
        | DynamicReshape
        | Infeed
        | MulHi
        | Outfeed
        | RaggedAllToAll
        | RaggedDot
        | Recv
        | RecvDone
        | ReduceScatter
        | RngGetAndUpdateState
        | ScaledDot
        | Scan
        | Send
        | SendDone
        | SetDimensionSize
        | StochasticConvert => false,
    }
}

/// Adds `computation/instruction` to an error that has no location yet.
fn located(mut e: EvalError, comp: &Computation, instr: &Instruction) -> EvalError {
    if e.location.is_none() {
        e.location = Some(EvalLocation {
            computation: comp.name.clone(),
            instruction: Some(instr.name.clone()),
        });
    }
    e
}
