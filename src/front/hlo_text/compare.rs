//! Structural equality of modules, for round-trip tests (`parse(print(m)) == m`) and pass
//! tests. Ids are compared through what they name (operands by instruction name,
//! computations by print position), constants bit for bit (so NaN equals the same NaN),
//! and spans are ignored.

use crate::ir::{ArrayData, Computation, ComputationId, Instruction, Literal, Module, Op};

/// The first difference between two modules, described for a test failure; `None` if equal.
pub fn module_diff(a: &Module, b: &Module) -> Option<String> {
    if a.name != b.name {
        return Some(format!("module names differ: {} vs {}", a.name, b.name));
    }
    if a.config != b.config {
        return Some(format!(
            "module headers differ:\n{:?}\nvs\n{:?}",
            a.config, b.config
        ));
    }
    if a.stack_frames != b.stack_frames {
        return Some("stack frame tables differ".to_string());
    }
    if a.order.len() != b.order.len() {
        return Some(format!(
            "{} computations vs {}",
            a.order.len(),
            b.order.len()
        ));
    }
    let entry_pos = |m: &Module| m.order.iter().position(|&c| c == m.entry);
    if entry_pos(a) != entry_pos(b) {
        return Some("the entry computations differ".to_string());
    }
    for (&ca, &cb) in a.order.iter().zip(&b.order) {
        if let Some(d) = computation_diff(a, &a.computations[ca], b, &b.computations[cb]) {
            return Some(format!("computation {}: {d}", a.computations[ca].name));
        }
    }
    None
}

fn computation_diff(ma: &Module, a: &Computation, mb: &Module, b: &Computation) -> Option<String> {
    if a.name != b.name {
        return Some(format!("names differ: {} vs {}", a.name, b.name));
    }
    if a.execution_thread != b.execution_thread {
        return Some("execution threads differ".to_string());
    }
    if a.order.len() != b.order.len() {
        return Some(format!(
            "{} instructions vs {}",
            a.order.len(),
            b.order.len()
        ));
    }
    if a.root_instr().name != b.root_instr().name {
        return Some(format!(
            "roots differ: {} vs {}",
            a.root_instr().name,
            b.root_instr().name
        ));
    }
    for ((_, ia), (_, ib)) in a.iter().zip(b.iter()) {
        if let Some(d) = instruction_diff(ma, a, ia, mb, b, ib) {
            return Some(format!("instruction {}: {d}", ia.name));
        }
    }
    None
}

fn instruction_diff(
    ma: &Module,
    ca: &Computation,
    a: &Instruction,
    mb: &Module,
    cb: &Computation,
    b: &Instruction,
) -> Option<String> {
    let names = |c: &Computation, ids: &[crate::ir::InstrId]| -> Vec<String> {
        ids.iter().map(|&i| c.instrs[i].name.clone()).collect()
    };
    if a.name != b.name {
        return Some(format!("names differ: {} vs {}", a.name, b.name));
    }
    if a.shape != b.shape {
        return Some(format!("shapes differ: {:?} vs {:?}", a.shape, b.shape));
    }
    if names(ca, &a.operands) != names(cb, &b.operands) {
        return Some(format!(
            "operands differ: {:?} vs {:?}",
            names(ca, &a.operands),
            names(cb, &b.operands)
        ));
    }
    if names(ca, &a.control_predecessors) != names(cb, &b.control_predecessors) {
        return Some("control predecessors differ".to_string());
    }
    let same_op = match (&a.op, &b.op) {
        (Op::Constant { literal: la }, Op::Constant { literal: lb }) => literals_identical(la, lb),
        (oa, ob) => normalized(ma, oa) == normalized(mb, ob),
    };
    if !same_op {
        return Some(format!("ops differ:\n{:?}\nvs\n{:?}", a.op, b.op));
    }
    if a.metadata != b.metadata {
        return Some(format!(
            "metadata differs: {:?} vs {:?}",
            a.metadata, b.metadata
        ));
    }
    if a.backend_config != b.backend_config {
        return Some(format!(
            "backend_config differs: {:?} vs {:?}",
            a.backend_config, b.backend_config
        ));
    }
    if a.sharding != b.sharding {
        return Some(format!(
            "sharding differs: {:?} vs {:?}",
            a.sharding, b.sharding
        ));
    }
    if a.raw_attributes != b.raw_attributes {
        return Some(format!(
            "raw attributes differ: {:?} vs {:?}",
            a.raw_attributes, b.raw_attributes
        ));
    }
    None
}

/// The op with each computation id replaced by the computation's print position.
fn normalized(m: &Module, op: &Op) -> Op {
    let mut op = op.clone();
    for id in op.called_computations_mut() {
        let pos = m.order.iter().position(|c| c == id).unwrap_or(usize::MAX);
        *id = ComputationId::from_u32(pos as u32);
    }
    op
}

/// True if both literals have the same shape and the same bits in every element.
pub fn literals_identical(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| literals_identical(p, q))
        }
        (Literal::Token, Literal::Token) => true,
        (Literal::Array(x), Literal::Array(y)) => {
            x.shape == y.shape && data_identical(&x.data, &y.data)
        }
        _ => false,
    }
}

fn data_identical(a: &ArrayData, b: &ArrayData) -> bool {
    use ArrayData as D;
    fn bits<T, U: PartialEq>(x: &[T], y: &[T], f: impl Fn(&T) -> U) -> bool {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| f(p) == f(q))
    }
    match (a, b) {
        (D::F16(x), D::F16(y)) => bits(x, y, |v| v.to_bits()),
        (D::BF16(x), D::BF16(y)) => bits(x, y, |v| v.to_bits()),
        (D::F32(x), D::F32(y)) => bits(x, y, |v| v.to_bits()),
        (D::F64(x), D::F64(y)) => bits(x, y, |v| v.to_bits()),
        (D::C64(x), D::C64(y)) => bits(x, y, |v| (v.re.to_bits(), v.im.to_bits())),
        (D::C128(x), D::C128(y)) => bits(x, y, |v| (v.re.to_bits(), v.im.to_bits())),
        _ => a == b,
    }
}
