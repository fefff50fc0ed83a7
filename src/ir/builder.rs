//! A small builder for IR in code, mostly for tests: `b.binary(Opcode::Add, x, y)`.
//! Most tests should be written as HLO text instead; use this where text cannot express the
//! case or where the parser is not what is under test.

use super::{
    ArrayShape, ComparisonDirection, Computation, InstrId, Instruction, Literal, Op, Opcode,
    PrimitiveType, Shape,
};

/// Builds one computation, naming instructions `<opcode>.<n>` as XLA does.
pub struct ComputationBuilder {
    comp: Computation,
    next_suffix: usize,
}

impl ComputationBuilder {
    /// Starts an empty computation.
    pub fn new(name: impl Into<String>) -> ComputationBuilder {
        ComputationBuilder {
            comp: Computation::new(name),
            next_suffix: 0,
        }
    }

    /// Adds any instruction with an explicit shape.
    pub fn instr(&mut self, shape: Shape, op: Op, operands: &[InstrId]) -> InstrId {
        let name = format!("{}.{}", op.opcode().name(), self.next_suffix);
        self.next_suffix += 1;
        self.comp
            .push(Instruction::new(name, shape, op, operands.to_vec()))
    }

    /// `parameter(number)`.
    pub fn parameter(&mut self, number: usize, shape: Shape) -> InstrId {
        self.instr(shape, Op::Parameter { number }, &[])
    }

    /// `constant(literal)`.
    pub fn constant(&mut self, literal: impl Into<Literal>) -> InstrId {
        let literal = literal.into();
        self.instr(literal.shape(), Op::Constant { literal }, &[])
    }

    /// An elementwise unary op; the result has the operand's shape.
    pub fn unary(&mut self, opcode: Opcode, x: InstrId) -> InstrId {
        let shape = self.shape_of(x).clone();
        self.instr(shape, Op::Plain(opcode), &[x])
    }

    /// An elementwise binary op; the result has the first operand's shape.
    pub fn binary(&mut self, opcode: Opcode, x: InstrId, y: InstrId) -> InstrId {
        let shape = self.shape_of(x).clone();
        self.instr(shape, Op::Plain(opcode), &[x, y])
    }

    /// `convert(x)` to another element type.
    pub fn convert(&mut self, x: InstrId, to: PrimitiveType) -> InstrId {
        let mut shape = self.shape_of(x).clone();
        if let Shape::Array(a) = &mut shape {
            a.element_type = to;
        }
        self.instr(shape, Op::Plain(Opcode::Convert), &[x])
    }

    /// `compare(x, y), direction=...`; the result is `pred` of the operand dims.
    pub fn compare(&mut self, direction: ComparisonDirection, x: InstrId, y: InstrId) -> InstrId {
        let dims = self.shape_of(x).dims().to_vec();
        let shape = Shape::Array(ArrayShape::new(PrimitiveType::Pred, &dims));
        self.instr(
            shape,
            Op::Compare {
                direction,
                comparison_type: None,
            },
            &[x, y],
        )
    }

    /// The shape of an instruction added so far.
    pub fn shape_of(&self, id: InstrId) -> &Shape {
        &self.comp.instrs[id].shape
    }

    /// Finishes with `root` as the root instruction.
    pub fn build(mut self, root: InstrId) -> Computation {
        self.comp.root = root;
        self.comp
    }
}
