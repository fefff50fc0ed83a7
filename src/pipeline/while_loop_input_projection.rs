//! `while-loop-input-projection`: computes a loop's per-step products with a loop-invariant
//! matrix as one large product before the loop, and reads one slice of it per step.
//!
//! A `lax.scan` over `xs` that multiplies each step's `x_t = xs[i]` by a weight `W` (an
//! RNN's input projection `x_t @ Wx`) runs T small `[M,K]x[K,N]` dots. When `xs` and `W`
//! do not change in the loop, the same numbers are the rows of one `[T·M,K]x[K,N]` dot of
//! all of `xs`, which a GEMM runs far closer to peak than T skinny ones (cuDNN's RNNs do
//! the same). The rewrite, for a dot in the body of `while`:
//!
//! ```text
//! body:   x = reshape(dynamic-slice(gte(s, X), gte(s, i), 0, ...)), sizes={1,...}
//!         d = dot(x, W)                       W = gte(s, J) passed through, or a constant
//! =>
//! before: p = dot(reshape(xs) [T·M,K], W) [T·M,N]        carried as a new element P
//! body:   d = dynamic-slice(gte(s, P), gte(s, i) * M, 0), sizes={M,N}
//! ```
//!
//! It fires only when it is exact, the same dot of the same operands per element:
//! - the dot is a plain matrix product (rank 2, no batch dimensions) whose lhs is the
//!   slice, contracted along its last dimension, so each row of the slice is a row of the
//!   flattened `xs` and each output row one row of the large product; the attributes
//!   (dimension numbers, precision, algorithm, result type) are copied unchanged;
//! - `xs` and `W` are loop-invariant: state elements the body passes through unchanged,
//!   or (for `W`) a constant;
//! - the slice takes one whole row of `xs` along its leading dimension (the other
//!   dimensions whole, so their start indices clamp to 0), at the loop counter itself;
//! - the trip count is known (the counter pattern of `simplify-while-loops`) and the
//!   counter visits each of the T rows exactly once, in range, so no start index clamps;
//! - the product is at most [`MAX_HOISTED_BYTES`], so memory cannot blow up, and its
//!   row numbers fit the counter's type.
//!
//! The product is carried as the dot's own `[T·M,N]` result, not reshaped to `[T,M,N]`:
//! copy insertion copies a loop's initial value that only forwards another buffer (a
//! bitcast), which would cost a copy of the whole product before the loop.
//!
//! A GEMM may sum a row's K products in another order in a batch of T·M rows than in a
//! batch of M (xlac's few-rows kernel and the blocked GEMM differ), so a hoisted result is
//! a correct dot within the usual floating-point tolerance, not always the same bits.
//! Every dot considered in a loop body and the decision (hoisted, or why not) goes to the
//! pass's log, dumped as `while-loop-input-projection.txt`. The `xs` element, now unread in
//! the body, is removed by `simplify-while-loops`' dead-state rule.
//!
//! XLA has no single pass for this; it is `while-loop-invariant-code-motion` applied to a
//! dot whose operand varies only by a slice at the counter. Tests:
//! `tests/while_loop_input_projection.rs`.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::while_loop_simplifier::{element_reads, match_counter, param_element};
use super::{Pass, PassError};
use crate::ir::{
    ArrayLiteral, ArrayShape, ComputationId, InstrId, Instruction, Literal, Module, Op, Opcode,
    PrimitiveType, Shape,
};

/// The largest hoisted product, in bytes: a loop over a long sequence would otherwise hold
/// every step's product at once.
pub const MAX_HOISTED_BYTES: usize = 64 << 20;

/// Why a dot in a loop body was not hoisted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotHoisted {
    /// Not a rank-2 product without batch dimensions.
    NotMatrixProduct,
    /// The lhs is not (a reshape of) a dynamic-slice.
    LhsNotSlice,
    /// The lhs slice is contracted along its leading dimension: its rows are not output rows.
    SliceContractedAlongRows,
    /// The sliced array is not a state element the body passes through unchanged.
    SlicedArrayVaries,
    /// The slice is not one whole row along the sliced array's leading dimension.
    SliceNotOneRow,
    /// The slice's leading start index is not the loop counter.
    IndexNotCounter,
    /// The rhs is neither a passed-through state element nor a constant.
    WeightVaries,
    /// The loop's trip count is not known (no counter pattern).
    UnknownTripCount,
    /// The counter does not visit each row of the sliced array once.
    TripsDoNotCoverRows {
        /// Iterations of the loop (`None`: more than the rows).
        trips: Option<usize>,
        /// Rows of the sliced array.
        rows: usize,
    },
    /// The hoisted product would be larger than [`MAX_HOISTED_BYTES`].
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The dot is ordered by control edges.
    ControlEdges,
    /// The product's row numbers (counter × M) do not fit the counter's type.
    IndexTypeTooNarrow,
}

impl fmt::Display for NotHoisted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotHoisted::NotMatrixProduct => {
                f.write_str("not a rank-2 matrix product without batch dimensions")
            }
            NotHoisted::LhsNotSlice => f.write_str("the lhs is not a dynamic-slice"),
            NotHoisted::SliceContractedAlongRows => {
                f.write_str("the lhs slice is contracted along its rows")
            }
            NotHoisted::SlicedArrayVaries => {
                f.write_str("the sliced array is not passed through the loop unchanged")
            }
            NotHoisted::SliceNotOneRow => {
                f.write_str("the slice is not one whole row of the leading dimension")
            }
            NotHoisted::IndexNotCounter => f.write_str("the slice index is not the loop counter"),
            NotHoisted::WeightVaries => {
                f.write_str("the rhs is neither passed through the loop unchanged nor a constant")
            }
            NotHoisted::UnknownTripCount => f.write_str("the trip count is not known"),
            NotHoisted::TripsDoNotCoverRows { trips, rows } => match trips {
                Some(t) => write!(
                    f,
                    "the counter visits {t} indices, not each of {rows} rows once"
                ),
                None => write!(f, "the loop runs more than {rows} times (the rows)"),
            },
            NotHoisted::TooLarge { bytes } => write!(
                f,
                "the product would take {bytes} bytes, over the limit of {MAX_HOISTED_BYTES}"
            ),
            NotHoisted::ControlEdges => f.write_str("the dot has control edges"),
            NotHoisted::IndexTypeTooNarrow => {
                f.write_str("the product's row numbers do not fit the counter's type")
            }
        }
    }
}

/// One decision: a dot in a loop body, hoisted or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The `while` instruction.
    pub loop_name: String,
    /// The dot in its body.
    pub dot: String,
    /// `Ok(description of the hoisted product)` or why not.
    pub outcome: Result<String, NotHoisted>,
}

/// Every decision of the pass, in order, each line once (the pass runs in a fixed point).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputProjectionLog {
    /// The decisions.
    pub decisions: Vec<Decision>,
}

impl InputProjectionLog {
    fn record(&mut self, decision: Decision) {
        if !self.decisions.contains(&decision) {
            self.decisions.push(decision);
        }
    }
}

impl fmt::Display for InputProjectionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.decisions {
            match &d.outcome {
                Ok(what) => writeln!(f, "{} / {}: hoisted: {what}", d.loop_name, d.dot)?,
                Err(why) => writeln!(f, "{} / {}: not hoisted: {why}", d.loop_name, d.dot)?,
            }
        }
        Ok(())
    }
}

/// The pass; its decisions go to a log the compiler dumps.
pub struct WhileLoopInputProjection {
    log: Rc<RefCell<InputProjectionLog>>,
}

impl WhileLoopInputProjection {
    /// The pass, writing its decisions into `log`.
    pub fn new(log: &Rc<RefCell<InputProjectionLog>>) -> WhileLoopInputProjection {
        WhileLoopInputProjection { log: log.clone() }
    }
}

impl Pass for WhileLoopInputProjection {
    fn name(&self) -> &'static str {
        "while-loop-input-projection"
    }

    fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for c in module.order.clone() {
            for id in module.computations[c].order.clone() {
                let Op::While { condition, body } = module.computations[c].instrs[id].op else {
                    continue;
                };
                if module.calls_side_effect(condition) || module.calls_side_effect(body) {
                    continue;
                }
                let plans = self.plan_loop(module, c, id);
                if !plans.is_empty() {
                    rewrite_loop(module, c, id, &plans);
                    changed = true;
                }
            }
        }
        Ok(changed)
    }
}

/// Where a hoisted dot's rhs comes from before the loop.
#[derive(Debug, Clone)]
enum Weight {
    /// Element `j` of the initial state.
    Element(usize),
    /// A constant of the body, copied before the loop.
    Constant(Box<Instruction>),
}

/// One dot to hoist.
struct Plan {
    /// The dot in the body.
    dot: InstrId,
    /// The state element holding `xs`.
    xs: usize,
    /// The counter's `get-tuple-element` in the body (the slice's leading index).
    index: InstrId,
    weight: Weight,
    /// The element types of `xs`, of the product and of the counter.
    xs_ty: PrimitiveType,
    ty: PrimitiveType,
    index_ty: PrimitiveType,
    /// `T`, `M`, `K`, `N`.
    rows: i64,
    m: i64,
    k: i64,
    n: i64,
}

impl WhileLoopInputProjection {
    /// The hoistable dots of one loop; logs a decision for every dot of the body.
    fn plan_loop(&self, module: &Module, c: ComputationId, id: InstrId) -> Vec<Plan> {
        let caller = &module.computations[c];
        let instr = &caller.instrs[id];
        let Op::While { condition, body } = instr.op else {
            return Vec::new();
        };
        let body_comp = &module.computations[body];
        let dots: Vec<InstrId> = body_comp
            .iter()
            .filter(|(_, i)| matches!(i.op, Op::Dot { .. }))
            .map(|(d, _)| d)
            .collect();
        // The new element is appended to the state: every use of the state must be a
        // `get-tuple-element` so that the old indices keep their meaning.
        if dots.is_empty() || !loop_state_is_only_read_by_element(module, c, id, condition, body) {
            return Vec::new();
        }
        let counter = match_counter(module, c, instr.operands[0], condition, body);
        let mut plans = Vec::new();
        for d in dots {
            let outcome = plan_dot(module, body, d, counter.as_ref());
            let logged = outcome.as_ref().map(|p| {
                format!(
                    "one [{},{}]x[{},{}] dot before the loop; step i reads its rows [i*{m}, i*{m}+{m})",
                    p.rows * p.m,
                    p.k,
                    p.k,
                    p.n,
                    m = p.m,
                )
            });
            self.log.borrow_mut().record(Decision {
                loop_name: instr.name.clone(),
                dot: body_comp.instrs[d].name.clone(),
                outcome: logged.map_err(|e| e.clone()),
            });
            if let Ok(p) = outcome {
                plans.push(p);
            }
        }
        plans
    }
}

/// True if the loop's result, its body's and its condition's parameters are used only
/// through `get-tuple-element` and the body's root is a `tuple`.
fn loop_state_is_only_read_by_element(
    module: &Module,
    c: ComputationId,
    id: InstrId,
    condition: ComputationId,
    body: ComputationId,
) -> bool {
    let caller = &module.computations[c];
    let body_comp = &module.computations[body];
    if caller.root == id
        || body_comp.root_instr().op != Op::Plain(Opcode::Tuple)
        || element_reads(body_comp).is_none()
        || element_reads(&module.computations[condition]).is_none()
    {
        return false;
    }
    caller.iter().all(|(_, user)| {
        !user.control_predecessors.contains(&id)
            && (!user.operands.contains(&id) || matches!(user.op, Op::GetTupleElement { .. }))
    })
}

/// Decides one dot (module doc): the plan, or why not.
fn plan_dot(
    module: &Module,
    body: ComputationId,
    d: InstrId,
    counter: Option<&super::while_loop_simplifier::Counter>,
) -> Result<Plan, NotHoisted> {
    let comp = &module.computations[body];
    let dot = &comp.instrs[d];
    let Op::Dot {
        dimension_numbers: dn,
        ..
    } = &dot.op
    else {
        return Err(NotHoisted::NotMatrixProduct);
    };
    let (lhs, rhs) = (dot.operands[0], dot.operands[1]);
    if !dn.lhs_batch_dimensions.is_empty()
        || comp.instrs[lhs].shape.rank() != 2
        || comp.instrs[rhs].shape.rank() != 2
        || dot.shape.rank() != 2
    {
        return Err(NotHoisted::NotMatrixProduct);
    }
    if !dot.control_predecessors.is_empty()
        || comp
            .iter()
            .any(|(_, i)| i.control_predecessors.contains(&d))
    {
        return Err(NotHoisted::ControlEdges);
    }
    // The lhs: a dynamic-slice, or a reshape of one.
    let slice = match comp.instrs[lhs].op {
        Op::DynamicSlice { .. } => lhs,
        Op::Plain(Opcode::Reshape)
            if matches!(
                comp.instrs[comp.instrs[lhs].operands[0]].op,
                Op::DynamicSlice { .. }
            ) =>
        {
            comp.instrs[lhs].operands[0]
        }
        _ => return Err(NotHoisted::LhsNotSlice),
    };
    if dn.lhs_contracting_dimensions != [1] {
        return Err(NotHoisted::SliceContractedAlongRows);
    }
    let root = comp.root_instr();
    let passed_through = |element: usize| {
        root.operands
            .get(element)
            .is_some_and(|&o| param_element(comp, o) == Some(element))
    };
    let slice_instr = &comp.instrs[slice];
    let Op::DynamicSlice { sizes } = &slice_instr.op else {
        return Err(NotHoisted::LhsNotSlice);
    };
    let xs = param_element(comp, slice_instr.operands[0])
        .filter(|&x| passed_through(x))
        .ok_or(NotHoisted::SlicedArrayVaries)?;
    let xs_dims = comp.instrs[slice_instr.operands[0]].shape.dims().to_vec();
    if xs_dims.is_empty() || sizes[0] != 1 || sizes[1..] != xs_dims[1..] {
        return Err(NotHoisted::SliceNotOneRow);
    }
    let index = slice_instr.operands[1];
    let weight = match (param_element(comp, rhs), &comp.instrs[rhs].op) {
        (Some(j), _) if passed_through(j) => Weight::Element(j),
        (_, Op::Constant { .. }) => Weight::Constant(Box::new(comp.instrs[rhs].clone())),
        _ => return Err(NotHoisted::WeightVaries),
    };
    let counter = counter.ok_or(NotHoisted::UnknownTripCount)?;
    if param_element(comp, index) != Some(counter.element) {
        return Err(NotHoisted::IndexNotCounter);
    }
    let rows = xs_dims[0] as usize;
    let values = counter.values(rows);
    let covers = values.as_ref().is_some_and(|v| {
        let mut seen = vec![false; rows];
        v.len() == rows
            && v.iter().all(|&i| {
                (0..rows as i128).contains(&i) && !std::mem::replace(&mut seen[i as usize], true)
            })
    });
    if !covers {
        return Err(NotHoisted::TripsDoNotCoverRows {
            trips: values.map(|v| v.len()),
            rows,
        });
    }
    let lhs_dims = comp.instrs[lhs].shape.dims();
    let (m, k) = (lhs_dims[0], lhs_dims[1]);
    let n = dot.shape.dims()[1];
    let ty = dot
        .shape
        .element_type()
        .ok_or(NotHoisted::NotMatrixProduct)?;
    let xs_ty = slice_instr
        .shape
        .element_type()
        .ok_or(NotHoisted::NotMatrixProduct)?;
    let index_ty = comp.instrs[index]
        .shape
        .element_type()
        .ok_or(NotHoisted::IndexNotCounter)?;
    let bytes = ArrayShape::new(ty, &[rows as i64, m, n])
        .checked_byte_size()
        .unwrap_or(usize::MAX);
    if bytes > MAX_HOISTED_BYTES {
        return Err(NotHoisted::TooLarge { bytes });
    }
    let index_bits = index_ty.bit_width() as u32 - u32::from(index_ty.is_signed_integral());
    if (rows as i128) * (m as i128) > (1i128 << index_bits.min(100)) {
        return Err(NotHoisted::IndexTypeTooNarrow);
    }
    Ok(Plan {
        dot: d,
        xs,
        index,
        weight,
        xs_ty,
        ty,
        index_ty,
        rows: rows as i64,
        m,
        k,
        n,
    })
}

/// Computes each plan's product before the loop, carries it as a new state element and
/// replaces the dot in the body by a slice of it (module doc).
fn rewrite_loop(module: &mut Module, c: ComputationId, id: InstrId, plans: &[Plan]) {
    let Op::While { condition, body } = module.computations[c].instrs[id].op else {
        return;
    };
    let old_elements = module.computations[c].instrs[id]
        .shape
        .tuple_elements()
        .unwrap_or_default()
        .to_vec();
    let body_comp = &module.computations[body];
    let products: Vec<Shape> = plans
        .iter()
        .map(|p| Shape::array(p.ty, &[p.rows * p.m, p.n]))
        .collect();
    let new_shape = Shape::Tuple(old_elements.iter().chain(&products).cloned().collect());

    // Before the loop: the large products, and the initial tuple with them appended.
    let dots: Vec<Instruction> = plans
        .iter()
        .map(|p| body_comp.instrs[p.dot].clone())
        .collect();
    let comp = &mut module.computations[c];
    let init = comp.instrs[id].operands[0];
    let mut init_operands = comp.instrs[init].operands.clone();
    for (p, dot) in plans.iter().zip(&dots) {
        let xs = init_operands[p.xs];
        let w = match &p.weight {
            Weight::Element(j) => init_operands[*j],
            Weight::Constant(constant) => {
                let mut constant = constant.as_ref().clone();
                constant.control_predecessors.clear();
                comp.insert_before(id, constant)
            }
        };
        let (xs_ty, ty) = (p.xs_ty, p.ty);
        let flat = comp.insert_before(
            id,
            Instruction::new(
                format!("{}.rows", dot.name),
                Shape::array(xs_ty, &[p.rows * p.m, p.k]),
                Op::Plain(Opcode::Reshape),
                vec![xs],
            ),
        );
        let mut large = Instruction::new(
            format!("{}.hoisted", dot.name),
            Shape::array(ty, &[p.rows * p.m, p.n]),
            dot.op.clone(),
            vec![flat, w],
        );
        large.metadata = dot.metadata.clone();
        let large = comp.insert_before(id, large);
        init_operands.push(large);
    }
    let new_init = comp.insert_before(
        id,
        Instruction::new(
            "tuple",
            new_shape.clone(),
            Op::Plain(Opcode::Tuple),
            init_operands,
        ),
    );
    comp.instrs[id].operands[0] = new_init;
    comp.instrs[id].shape = new_shape.clone();
    comp.remove_unused_from(&[init]);

    // The condition: only its parameter's shape changes.
    let mut cond = module.computations[condition].clone();
    let param = cond.parameters()[0];
    cond.instrs[param].shape = new_shape.clone();
    cond.name = module.unique_computation_name(&format!("{}.clone", cond.name));
    let new_condition = module.add_computation(cond);

    // The body: each dot becomes a row of its product; the products pass through.
    let mut copy = module.computations[body].clone();
    let param = copy.parameters()[0];
    copy.instrs[param].shape = new_shape.clone();
    for (n, (p, product)) in plans.iter().zip(&products).enumerate() {
        let element = old_elements.len() + n;
        let index_ty = p.index_ty;
        let carried = copy.insert_before(
            p.dot,
            Instruction::new(
                "get-tuple-element",
                product.clone(),
                Op::GetTupleElement { index: element },
                vec![param],
            ),
        );
        let zero = copy.insert_before(
            p.dot,
            Instruction::new(
                "constant",
                Shape::scalar(index_ty),
                Op::Constant {
                    literal: Literal::Array(ArrayLiteral::zeros(ArrayShape::new(index_ty, &[]))),
                },
                vec![],
            ),
        );
        // Step i's rows start at i·M (checked to fit the counter's type).
        let start = if p.m == 1 {
            p.index
        } else {
            let m = copy.insert_before(
                p.dot,
                Instruction::new(
                    "constant",
                    Shape::scalar(index_ty),
                    Op::Constant {
                        literal: index_literal(index_ty, p.m),
                    },
                    vec![],
                ),
            );
            copy.insert_before(
                p.dot,
                Instruction::new(
                    "multiply",
                    Shape::scalar(index_ty),
                    Op::Plain(Opcode::Multiply),
                    vec![p.index, m],
                ),
            )
        };
        let dot_shape = copy.instrs[p.dot].shape.clone();
        let dot_name = copy.instrs[p.dot].name.clone();
        let row = copy.insert_before(
            p.dot,
            Instruction::new(
                format!("{dot_name}.row"),
                dot_shape,
                Op::DynamicSlice {
                    sizes: vec![p.m, p.n],
                },
                vec![carried, start, zero],
            ),
        );
        copy.replace_all_uses(p.dot, row);
        let root = copy.root;
        copy.instrs[root].operands.push(carried);
    }
    let root = copy.root;
    copy.instrs[root].shape = new_shape;
    let dead = copy.unreachable_instructions();
    copy.remove_instructions(&dead);
    copy.name = module.unique_computation_name(&format!("{}.clone", copy.name));
    let new_body = module.add_computation(copy);
    module.computations[c].instrs[id].op = Op::While {
        condition: new_condition,
        body: new_body,
    };
}

/// `value` as a scalar literal of the integer type `ty` (it fits: see `plan_dot`).
fn index_literal(ty: PrimitiveType, value: i64) -> Literal {
    let a = match ty {
        PrimitiveType::S8 => ArrayLiteral::scalar(value as i8),
        PrimitiveType::S16 => ArrayLiteral::scalar(value as i16),
        PrimitiveType::S32 => ArrayLiteral::scalar(value as i32),
        PrimitiveType::U8 => ArrayLiteral::scalar(value as u8),
        PrimitiveType::U16 => ArrayLiteral::scalar(value as u16),
        PrimitiveType::U32 => ArrayLiteral::scalar(value as u32),
        PrimitiveType::U64 => ArrayLiteral::scalar(value as u64),
        _ => ArrayLiteral::scalar(value),
    };
    Literal::Array(a)
}
