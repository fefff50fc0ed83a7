//! Identities of elementwise arithmetic and logic: `add(x, 0) => x`, `mul(x, 1) => x`,
//! `neg(neg(x)) => x`, `and(x, true) => x`, `max(x, x) => x`, `pow(x, 1) => x`.
//! The constant may be a scalar broadcast to the shape (`broadcast(constant(0))`).
//!
//! Floating point: XLA rewrites `x + 0`, `x - 0`, `x * 1`, `x / 1` for every type, and so
//! does xlac. They are exact except for the sign of a zero sum (`-0 + 0` is `+0` but the
//! rewrite keeps `-0`). Rules that would change NaN results (`x * 0 => 0`, `x - x => 0`)
//! are for integers only, as in XLA without fast math. XLA:CPU does not assume min/max
//! propagate NaN, so `max(x, -inf) => x` is for integers only (`max(x, MIN) => x`).
//! Three rules XLA:CPU applies change float results, and xlac's compiled path follows
//! it: a multiply by a converted predicate becomes a select (NaN times false is 0), two
//! constant factors are multiplied first, and a division by a constant becomes a
//! multiply by its inverse (docs/op-coverage.md, "Rewrites that change results").
//!
//! XLA: `HandleAdd`, `HandleSubtract`, `HandleMultiply`, `HandleDivide`, `HandleNegate`,
//! `HandleNot`, `HandleAnd`, `HandleOr`, `HandleXor`, `HandleMaximum`, `HandleMinimum`,
//! `HandlePower` in `algebraic_simplifier.cc`.

use super::matchers::{Extreme, is_all, is_all_integer_extreme, operands, scalar_like};
use super::{NewInstr, Rewrite, Value, transcendental};
use crate::ir::{Computation, InstrId, Op, Opcode, PrimitiveType};

/// The two operands of a binary instruction.
fn binary(comp: &Computation, id: InstrId) -> (InstrId, InstrId) {
    let ops = operands(comp, id);
    (ops[0], ops[1])
}

/// The element type of an instruction (pred for non-arrays, which never match).
fn element_type(comp: &Computation, id: InstrId) -> PrimitiveType {
    comp.instr(id)
        .shape
        .element_type()
        .unwrap_or(PrimitiveType::Pred)
}

/// `add`: `x + 0`, `0 + x`.
pub fn simplify_add(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    add_zero(comp, id).or_else(|| zero_add(comp, id))
}

/// add(x, 0) => x
fn add_zero(comp: &Computation, add: InstrId) -> Option<Rewrite> {
    let (x, zero) = binary(comp, add);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, add, x, "add(x, 0) => x"))?
}

/// add(0, x) => x
fn zero_add(comp: &Computation, add: InstrId) -> Option<Rewrite> {
    let (zero, x) = binary(comp, add);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, add, x, "add(0, x) => x"))?
}

/// `subtract`: `x - x` (integers), `x - 0`.
pub fn simplify_subtract(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    subtract_self(comp, id).or_else(|| subtract_zero(comp, id))
}

/// sub(x, x) => 0, integers only (for floats `inf - inf` is NaN)
fn subtract_self(comp: &Computation, sub: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, sub);
    if x != y || !element_type(comp, sub).is_integral() {
        return None;
    }
    Rewrite::build("sub(x, x) => 0", scalar_like(&comp.instr(sub).shape, 0)?)
}

/// sub(x, 0) => x
fn subtract_zero(comp: &Computation, sub: InstrId) -> Option<Rewrite> {
    let (x, zero) = binary(comp, sub);
    is_all(comp, zero, 0).then(|| Rewrite::replace_with(comp, sub, x, "sub(x, 0) => x"))?
}

/// `multiply`: `x * 1`, `1 * x`, `0 * x` and `x * 0` (integers), a converted predicate,
/// two constant factors, two exponentials.
pub fn simplify_multiply(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    multiply_one(comp, id)
        .or_else(|| one_multiply(comp, id))
        .or_else(|| multiply_zero(comp, id))
        .or_else(|| multiply_converted_pred(comp, id))
        .or_else(|| multiply_constants(comp, id))
        .or_else(|| transcendental::multiply_exps(comp, id))
}

/// mul(x, convert(p)) => select(p, x, 0) and mul(convert(p), x) => select(p, x, 0) for a
/// pred `p`. Not exact for floats: where `p` is false the result is 0 even if `x` is NaN
/// or infinite (`nan * (x > 2)` is 0 where `x <= 2`), which XLA:CPU computes.
fn multiply_converted_pred(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, mul);
    let converted_pred = |id: InstrId| {
        let instr = comp.instr(id);
        (instr.op == Op::Plain(Opcode::Convert)
            && element_type(comp, instr.operands[0]) == PrimitiveType::Pred
            && comp.instr(instr.operands[0]).shape.as_array().is_some())
        .then(|| instr.operands[0])
    };
    let (p, x, rule) = match (converted_pred(rhs), converted_pred(lhs)) {
        (Some(p), _) => (p, lhs, "mul(x, convert(p)) => select(p, x, 0)"),
        (None, Some(p)) => (p, rhs, "mul(convert(p), x) => select(p, x, 0)"),
        (None, None) => return None,
    };
    let shape = comp.instr(mul).shape.clone();
    let mut instrs = scalar_like(&shape, 0)?;
    let zero = instrs.len() - 1;
    instrs.push(NewInstr::new(
        shape,
        Op::Plain(Opcode::Select),
        vec![Value::Old(p), Value::Old(x), Value::New(zero)],
    ));
    Rewrite::build(rule, instrs)
}

/// mul(mul(x, c1), c2) => mul(x, mul(c1, c2)) for constants `c1`, `c2` (and a
/// non-constant `x`), or scalar constants both broadcast: `constant_folding` then folds
/// `c1 * c2`. Not exact: `(x * 1e30) * 1e-30` overflows to inf as written, gives `x`
/// rewritten, which XLA:CPU computes.
fn multiply_constants(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (inner, c2) = binary(comp, mul);
    if comp.instr(inner).op != Op::Plain(Opcode::Multiply) {
        return None;
    }
    let (x, c1) = binary(comp, inner);
    let is_constant = |id: InstrId| matches!(comp.instr(id).op, Op::Constant { .. });
    let broadcast_scalar = |id: InstrId| {
        let instr = comp.instr(id);
        let Op::Broadcast { .. } = instr.op else {
            return None;
        };
        let c = instr.operands[0];
        (is_constant(c) && comp.instr(c).shape.rank() == 0).then_some(c)
    };
    let shape = comp.instr(mul).shape.clone();
    let rule = "mul(mul(x, c1), c2) => mul(x, mul(c1, c2))";
    if is_constant(c1) && is_constant(c2) && !is_constant(x) {
        if comp.instr(c1).shape != shape || comp.instr(c2).shape != shape {
            return None;
        }
        return Rewrite::build(
            rule,
            vec![
                NewInstr::new(
                    shape.clone(),
                    Op::Plain(Opcode::Multiply),
                    vec![Value::Old(c1), Value::Old(c2)],
                ),
                NewInstr::new(
                    shape,
                    Op::Plain(Opcode::Multiply),
                    vec![Value::Old(x), Value::New(0)],
                ),
            ],
        );
    }
    let (Some(s1), Some(s2)) = (broadcast_scalar(c1), broadcast_scalar(c2)) else {
        return None;
    };
    let scalar = comp.instr(s1).shape.clone();
    if comp.instr(s2).shape != scalar {
        return None;
    }
    Rewrite::build(
        rule,
        vec![
            NewInstr::new(
                scalar,
                Op::Plain(Opcode::Multiply),
                vec![Value::Old(s1), Value::Old(s2)],
            ),
            NewInstr::new(
                shape.clone(),
                Op::Broadcast { dimensions: vec![] },
                vec![Value::New(0)],
            ),
            NewInstr::new(
                shape,
                Op::Plain(Opcode::Multiply),
                vec![Value::Old(x), Value::New(1)],
            ),
        ],
    )
}

/// mul(x, 1) => x
fn multiply_one(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, mul);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, mul, x, "mul(x, 1) => x"))?
}

/// mul(1, x) => x
fn one_multiply(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let (one, x) = binary(comp, mul);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, mul, x, "mul(1, x) => x"))?
}

/// mul(0, x) => 0 and mul(x, 0) => 0, integers only (for floats `0 * inf` is NaN)
fn multiply_zero(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    if !element_type(comp, mul).is_integral() {
        return None;
    }
    let (lhs, rhs) = binary(comp, mul);
    [lhs, rhs]
        .into_iter()
        .filter(|&z| is_all(comp, z, 0))
        .find_map(|zero| Rewrite::replace_with(comp, mul, zero, "mul(x, 0) => 0"))
}

/// `divide`: `x / 1`, by a square root, by a constant, by a broadcast.
pub fn simplify_divide(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    divide_one(comp, id)
        .or_else(|| transcendental::divide_by_sqrt(comp, id))
        .or_else(|| divide_by_constant(comp, id))
        .or_else(|| divide_by_broadcast(comp, id))
}

/// div(x, c) => mul(x, 1 / c) for real floats and a constant `c` (or a broadcast scalar
/// constant); `constant_folding` then folds `1 / c`. Not exact (two roundings instead of
/// one: `9 / 10` is 0.9, `9 * 0.1` is 0.90000004 in f32), which XLA:CPU computes.
fn divide_by_constant(comp: &Computation, div: InstrId) -> Option<Rewrite> {
    let t = element_type(comp, div);
    if !t.is_float() || t.is_complex() {
        return None;
    }
    let (x, c) = binary(comp, div);
    let constant = |id: InstrId| matches!(comp.instr(id).op, Op::Constant { .. });
    // A constant dividend is constant folding's (and the `1 / c` this rule writes must
    // not match again: it would rewrite itself forever).
    if constant(x) {
        return None;
    }
    let divisor = match &comp.instr(c).op {
        Op::Constant { .. } => c,
        Op::Broadcast { .. } if constant(operands(comp, c)[0]) => {
            let s = operands(comp, c)[0];
            if comp.instr(s).shape.rank() != 0 {
                return None;
            }
            s
        }
        _ => return None,
    };
    let divisor_shape = comp.instr(divisor).shape.clone();
    let mut instrs = scalar_like(&divisor_shape, 1)?;
    let one = instrs.len() - 1;
    instrs.push(NewInstr::new(
        divisor_shape,
        Op::Plain(Opcode::Divide),
        vec![Value::New(one), Value::Old(divisor)],
    ));
    let mut inverse = Value::New(one + 1);
    if divisor != c {
        instrs.push(NewInstr::new(
            comp.instr(c).shape.clone(),
            Op::Broadcast { dimensions: vec![] },
            vec![inverse],
        ));
        inverse = Value::New(one + 2);
    }
    instrs.push(NewInstr::new(
        comp.instr(div).shape.clone(),
        Op::Plain(Opcode::Multiply),
        vec![Value::Old(x), inverse],
    ));
    Rewrite::build("div(x, c) => mul(x, 1 / c)", instrs)
}

/// div(a, broadcast(b)) => mul(a, broadcast(div(1, b))) for real floats and a non-scalar,
/// non-constant `b`: one division per element of `b` instead of one per element of `a`
/// (softmax's division by its row sums). Not exact (two roundings instead of one), which is
/// why XLA:CPU's optimized softmax shows it too: `divide(broadcast(1), reduce_sum)` feeding
/// a `multiply`, and xlac's results stay XLA's.
fn divide_by_broadcast(comp: &Computation, div: InstrId) -> Option<Rewrite> {
    let t = element_type(comp, div);
    if !t.is_float() || t.is_complex() {
        return None;
    }
    let (a, bcast) = binary(comp, div);
    let Op::Broadcast { dimensions } = &comp.instr(bcast).op else {
        return None;
    };
    let b = operands(comp, bcast)[0];
    let b_instr = comp.instr(b);
    if b_instr.shape.rank() == 0 || matches!(b_instr.op, Op::Constant { .. }) {
        return None;
    }
    let mut instrs = scalar_like(&b_instr.shape, 1)?;
    let one = instrs.len() - 1;
    instrs.push(NewInstr::new(
        b_instr.shape.clone(),
        Op::Plain(Opcode::Divide),
        vec![Value::New(one), Value::Old(b)],
    ));
    instrs.push(NewInstr::new(
        comp.instr(bcast).shape.clone(),
        Op::Broadcast {
            dimensions: dimensions.clone(),
        },
        vec![Value::New(one + 1)],
    ));
    instrs.push(NewInstr::new(
        comp.instr(div).shape.clone(),
        Op::Plain(Opcode::Multiply),
        vec![Value::Old(a), Value::New(one + 2)],
    ));
    Rewrite::build(
        "div(a, broadcast(b)) => mul(a, broadcast(div(1, b)))",
        instrs,
    )
}

/// div(x, 1) => x
fn divide_one(comp: &Computation, div: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, div);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, div, x, "div(x, 1) => x"))?
}

/// `negate`: `neg(neg(x))`.
pub fn simplify_negate(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    double_unary(comp, id, Opcode::Negate, "neg(neg(x)) => x")
}

/// `not`: `not(not(x))`.
pub fn simplify_not(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    double_unary(comp, id, Opcode::Not, "not(not(x)) => x")
}

/// neg(neg(x)) => x and not(not(x)) => x: an involution applied twice.
fn double_unary(
    comp: &Computation,
    outer: InstrId,
    opcode: Opcode,
    rule: &'static str,
) -> Option<Rewrite> {
    let inner = operands(comp, outer)[0];
    if comp.instr(inner).op != Op::Plain(opcode) {
        return None;
    }
    Rewrite::replace_with(comp, outer, operands(comp, inner)[0], rule)
}

/// `and`: `x & true` (pred), `x & 0 => 0` (any type).
pub fn simplify_and(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    and_true(comp, id).or_else(|| and_false(comp, id))
}

/// and(x, true) => x, pred only
fn and_true(comp: &Computation, and: InstrId) -> Option<Rewrite> {
    if element_type(comp, and) != PrimitiveType::Pred {
        return None;
    }
    let (lhs, rhs) = binary(comp, and);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, t)| is_all(comp, t, 1))
        .find_map(|(x, _)| Rewrite::replace_with(comp, and, x, "and(x, true) => x"))
}

/// and(x, false) => false, and for integers and(x, 0) => 0
fn and_false(comp: &Computation, and: InstrId) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, and);
    [rhs, lhs]
        .into_iter()
        .filter(|&z| is_all(comp, z, 0))
        .find_map(|zero| Rewrite::replace_with(comp, and, zero, "and(x, false) => false"))
}

/// `or`: `x | true => true` (pred), `x | 0 => x` (any type).
pub fn simplify_or(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    or_true(comp, id).or_else(|| or_false(comp, id))
}

/// or(x, true) => true, pred only
fn or_true(comp: &Computation, or: InstrId) -> Option<Rewrite> {
    if element_type(comp, or) != PrimitiveType::Pred {
        return None;
    }
    let (lhs, rhs) = binary(comp, or);
    [rhs, lhs]
        .into_iter()
        .filter(|&t| is_all(comp, t, 1))
        .find_map(|t| Rewrite::replace_with(comp, or, t, "or(x, true) => true"))
}

/// or(x, false) => x, and for integers or(x, 0) => x
fn or_false(comp: &Computation, or: InstrId) -> Option<Rewrite> {
    other_operand_of_zero(comp, or, "or(x, false) => x")
}

/// `op(x, 0) => x` or `op(0, x) => x`: the operand beside an all-zero one (false for pred).
fn other_operand_of_zero(comp: &Computation, id: InstrId, rule: &'static str) -> Option<Rewrite> {
    let (lhs, rhs) = binary(comp, id);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, z)| is_all(comp, z, 0))
        .find_map(|(x, _)| Rewrite::replace_with(comp, id, x, rule))
}

/// `xor`: `x ^ x`, `x ^ 0`.
pub fn simplify_xor(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    xor_self(comp, id).or_else(|| xor_zero(comp, id))
}

/// xor(x, x) => 0
fn xor_self(comp: &Computation, xor: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, xor);
    if x != y {
        return None;
    }
    Rewrite::build("xor(x, x) => 0", scalar_like(&comp.instr(xor).shape, 0)?)
}

/// xor(x, 0) => x
fn xor_zero(comp: &Computation, xor: InstrId) -> Option<Rewrite> {
    other_operand_of_zero(comp, xor, "xor(x, 0) => x")
}

/// `maximum`/`minimum`: `max(x, x)`, and the integer identity element.
pub fn simplify_min_max(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    min_max_self(comp, id).or_else(|| min_max_identity(comp, id))
}

/// max(x, x) => x and min(x, x) => x (NaN in, the same NaN out)
fn min_max_self(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    let (x, y) = binary(comp, id);
    (x == y).then(|| Rewrite::replace_with(comp, id, x, "max(x, x) => x"))?
}

/// max(x, MIN) => x and min(x, MAX) => x, integers only
fn min_max_identity(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    if !element_type(comp, id).is_integral() {
        return None;
    }
    let identity = match comp.instr(id).opcode() {
        Opcode::Maximum => Extreme::Min,
        _ => Extreme::Max,
    };
    let (lhs, rhs) = binary(comp, id);
    [(lhs, rhs), (rhs, lhs)]
        .into_iter()
        .filter(|&(_, e)| is_all_integer_extreme(comp, e, identity))
        .find_map(|(x, _)| Rewrite::replace_with(comp, id, x, "max(x, MIN) => x"))
}

/// `power`: `pow(x, 0)`, `pow(x, 1)`.
pub fn simplify_power(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    power_zero(comp, id).or_else(|| power_one(comp, id))
}

/// pow(x, 0) => 1 (IEEE `pow(NaN, 0)` is 1 too)
fn power_zero(comp: &Computation, pow: InstrId) -> Option<Rewrite> {
    let (_, zero) = binary(comp, pow);
    if !is_all(comp, zero, 0) {
        return None;
    }
    Rewrite::build("pow(x, 0) => 1", scalar_like(&comp.instr(pow).shape, 1)?)
}

/// pow(x, 1) => x
fn power_one(comp: &Computation, pow: InstrId) -> Option<Rewrite> {
    let (x, one) = binary(comp, pow);
    is_all(comp, one, 1).then(|| Rewrite::replace_with(comp, pow, x, "pow(x, 1) => x"))?
}
