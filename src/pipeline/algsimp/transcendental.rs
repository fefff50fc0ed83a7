//! Identities of `exp`, `log`, `pow` and `sqrt` that XLA:CPU applies although they change
//! results at the edges of the float range: `exp(a) * exp(b) => exp(a + b)` (`exp(100) *
//! exp(-100)` is `inf * 0 = NaN` as written, 1 rewritten), `log(exp(x)) => x`,
//! `log(pow(a, b)) => b * log(|a|)` (also defined for a negative `a`) and
//! `a / sqrt(b) => a * rsqrt(b)` (one rounding fewer or more). xlac's compiled path
//! follows XLA:CPU so that it computes what XLA:CPU computes; the interpreter runs the
//! program as written, as HloEvaluator does (docs/op-coverage.md, "Rewrites that change results").
//! XLA: `HandleMultiply`, `HandleLog`, `HandleDivide` in `algebraic_simplifier.cc`.

use super::matchers::{operands, scalar_like};
use super::{NewInstr, Rewrite, Value};
use crate::ir::{ComparisonDirection, Computation, InstrId, Op, Opcode, PrimitiveType, Shape};

/// True when `id` is the elementwise op `opcode`.
fn is(comp: &Computation, id: InstrId, opcode: Opcode) -> bool {
    comp.instr(id).op == Op::Plain(opcode)
}

/// A real floating-point array shape.
fn is_real_float(shape: &Shape) -> bool {
    shape
        .element_type()
        .is_some_and(|t| t.is_float() && !t.is_complex())
}

/// mul(exp(a), exp(b)) => exp(add(a, b))
pub fn multiply_exps(comp: &Computation, mul: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, mul);
    let (l, r) = (ops[0], ops[1]);
    if !is(comp, l, Opcode::Exp) || !is(comp, r, Opcode::Exp) {
        return None;
    }
    let shape = comp.instr(mul).shape.clone();
    let (a, b) = (operands(comp, l)[0], operands(comp, r)[0]);
    Rewrite::build(
        "mul(exp(a), exp(b)) => exp(add(a, b))",
        vec![
            NewInstr::new(
                shape.clone(),
                Op::Plain(Opcode::Add),
                vec![Value::Old(a), Value::Old(b)],
            ),
            NewInstr::new(shape, Op::Plain(Opcode::Exp), vec![Value::New(0)]),
        ],
    )
}

/// `log`: of an `exp`, of a `pow`.
pub fn simplify_log(comp: &Computation, id: InstrId) -> Option<Rewrite> {
    log_exp(comp, id).or_else(|| log_pow(comp, id))
}

/// log(exp(x)) => x
fn log_exp(comp: &Computation, log: InstrId) -> Option<Rewrite> {
    let inner = operands(comp, log)[0];
    if !is(comp, inner, Opcode::Exp) {
        return None;
    }
    Rewrite::replace_with(comp, log, operands(comp, inner)[0], "log(exp(x)) => x")
}

/// log(pow(a, b)) => select(b == 0, 0, mul(log(abs(a)), b)), real floats: the `b == 0`
/// arm keeps `log(pow(a, 0)) = log(1) = 0` where `0 * log(|a|)` would be NaN.
fn log_pow(comp: &Computation, log: InstrId) -> Option<Rewrite> {
    let pow = operands(comp, log)[0];
    let shape = comp.instr(log).shape.clone();
    if !is(comp, pow, Opcode::Power) || !is_real_float(&shape) {
        return None;
    }
    let (a, b) = (operands(comp, pow)[0], operands(comp, pow)[1]);
    let array = shape.as_array()?;
    let mut instrs = scalar_like(&shape, 0)?;
    let zero = instrs.len() - 1;
    let mut pred = array.clone();
    pred.element_type = PrimitiveType::Pred;
    instrs.push(NewInstr::new(
        Shape::Array(pred),
        Op::Compare {
            direction: ComparisonDirection::Eq,
            comparison_type: None,
        },
        vec![Value::Old(b), Value::New(zero)],
    ));
    let at = instrs.len();
    instrs.push(NewInstr::new(
        shape.clone(),
        Op::Plain(Opcode::Abs),
        vec![Value::Old(a)],
    ));
    instrs.push(NewInstr::new(
        shape.clone(),
        Op::Plain(Opcode::Log),
        vec![Value::New(at)],
    ));
    instrs.push(NewInstr::new(
        shape.clone(),
        Op::Plain(Opcode::Multiply),
        vec![Value::New(at + 1), Value::Old(b)],
    ));
    instrs.push(NewInstr::new(
        shape,
        Op::Plain(Opcode::Select),
        vec![Value::New(at - 1), Value::New(zero), Value::New(at + 2)],
    ));
    Rewrite::build(
        "log(pow(a, b)) => select(b == 0, 0, mul(b, log(abs(a))))",
        instrs,
    )
}

/// div(a, sqrt(b)) => mul(a, rsqrt(b)), real floats
pub fn divide_by_sqrt(comp: &Computation, div: InstrId) -> Option<Rewrite> {
    let ops = operands(comp, div);
    let (a, sqrt) = (ops[0], ops[1]);
    let shape = comp.instr(div).shape.clone();
    if !is(comp, sqrt, Opcode::Sqrt) || !is_real_float(&shape) {
        return None;
    }
    let b = operands(comp, sqrt)[0];
    Rewrite::build(
        "div(a, sqrt(b)) => mul(a, rsqrt(b))",
        vec![
            NewInstr::new(
                comp.instr(sqrt).shape.clone(),
                Op::Plain(Opcode::Rsqrt),
                vec![Value::Old(b)],
            ),
            NewInstr::new(
                shape,
                Op::Plain(Opcode::Multiply),
                vec![Value::Old(a), Value::New(0)],
            ),
        ],
    )
}
