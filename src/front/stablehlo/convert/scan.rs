//! `chlo.scan`: a sequential scan over one dimension, lowered to an HLO `while` loop.
//!
//! `chlo.scan(%in...) inits(%init...) dimension=d [attributes {is_reverse}] { body }` runs
//! `body(in_0[.., i, ..], ..., carry...) -> (out_0, ..., new_carry...)` for every position
//! `i` along `d` (last to first when `is_reverse`), stacking each step's outputs along `d`
//! and threading the carries. Results: the stacked outputs, then the final carries.
//!
//! XLA: openxla/stablehlo `chlo_ops.td` (`ScanOp`) for the semantics; the lowering (as in
//! `ChloLegalizeToStablehlo.cpp`, not checked line by line) is a while loop whose state is
//! the counter, the inputs, the carries and the output buffers; each step dynamic-slices
//! the inputs, calls the body and writes the outputs with dynamic-update-slice. The
//! `is_associative` hint (which allows a parallel scan) is ignored: the sequential loop
//! is always correct. The decomposition interface of [`crate::front::stablehlo::chlo`] has no
//! regions, which is why this op lives in the converter.

use super::Converter;
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::Operation;
use crate::front::stablehlo::lexer::Loc;
use crate::ir::{
    ArrayLiteral, ArrayShape, ComparisonDirection, ComputationId, InstrId, Literal, Op, Opcode,
    PrimitiveType, Shape,
};

/// The counter's type (and the dynamic-slice index type).
const INDEX: PrimitiveType = PrimitiveType::S64;

impl<'a> Converter<'a> {
    /// Converts `chlo.scan` into a `while` loop; returns the outputs then the carries.
    pub(crate) fn convert_scan(&mut self, op: &'a Operation) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let ids: Vec<InstrId> = self.operands(op)?.iter().map(|v| v.id).collect();
        let n_inputs = self.int_attr(op, "num_inputs")?;
        let n_inputs = usize::try_from(n_inputs)
            .ok()
            .filter(|&n| n <= ids.len())
            .ok_or_else(|| self.err(loc, "chlo.scan: bad number of inputs"))?;
        let n_carries = ids.len() - n_inputs;
        let n_outputs = op
            .result_types
            .len()
            .checked_sub(n_carries)
            .ok_or_else(|| self.err(loc, "chlo.scan: fewer results than carries"))?;
        let reverse = self.bool_attr(op, "is_reverse")?;
        let region = op
            .regions
            .first()
            .ok_or_else(|| self.err(loc, "chlo.scan has no body"))?;

        let input_shapes: Vec<ArrayShape> = ids[..n_inputs]
            .iter()
            .map(|&x| self.array(x, loc))
            .collect::<Result<_, _>>()?;
        let carry_shapes: Vec<Shape> = ids[n_inputs..]
            .iter()
            .map(|&x| self.shape(x).clone())
            .collect();
        let output_shapes: Vec<ArrayShape> = (0..n_outputs)
            .map(|i| {
                self.result_shape(op, i)
                    .as_array()
                    .cloned()
                    .ok_or_else(|| self.err(loc, "chlo.scan outputs must be arrays"))
            })
            .collect::<Result<_, _>>()?;
        // The scanned dimension and its length, the same for all inputs and outputs.
        let any_rank = input_shapes
            .iter()
            .chain(&output_shapes)
            .map(ArrayShape::rank)
            .next()
            .unwrap_or(0) as i64;
        let d = self.int_attr(op, "dimension")?;
        let d = if d < 0 { d + any_rank } else { d };
        let d =
            usize::try_from(d).map_err(|_| self.err(loc, "chlo.scan: dimension out of range"))?;
        let mut length = None;
        for s in input_shapes.iter().chain(&output_shapes) {
            let Some(&n) = s.dims.get(d) else {
                return Err(self.err(loc, format!("chlo.scan: dimension {d} out of range")));
            };
            if length.is_some_and(|l| l != n) {
                return Err(self.err(
                    loc,
                    "chlo.scan: inputs and outputs differ along the dimension",
                ));
            }
            length = Some(n);
        }
        let length = length.unwrap_or(0);

        // The body as a called computation: (slices..., carries...) -> (outs..., carries...).
        let body_fn = self.region_computation(region, op, "scan_body")?;
        let body_root = self.module.computations[body_fn].root;
        let body_ret = self.module.computations[body_fn].instrs[body_root]
            .shape
            .clone();
        let n_ret = n_outputs + n_carries;
        let ret_shapes: Vec<Shape> = match &body_ret {
            Shape::Tuple(e) if n_ret != 1 => e.clone(),
            s => vec![s.clone()],
        };
        if ret_shapes.len() != n_ret {
            return Err(self.err(
                loc,
                format!(
                    "chlo.scan: the body returns {} values, expected {n_ret}",
                    ret_shapes.len()
                ),
            ));
        }

        // Loop state: counter, inputs, carries, output buffers.
        let mut state = vec![Shape::scalar(INDEX)];
        state.extend(input_shapes.iter().cloned().map(Shape::Array));
        state.extend(carry_shapes.iter().cloned());
        state.extend(output_shapes.iter().cloned().map(Shape::Array));
        let state_shape = Shape::Tuple(state.clone());
        let out_base = 1 + n_inputs + n_carries;

        // Condition: counter < length.
        let cond = self.new_computation("scan_cond");
        let p = self.add_to(
            cond,
            state_shape.clone(),
            Op::Parameter { number: 0 },
            vec![],
            loc,
        );
        let i = self.add_to(
            cond,
            state[0].clone(),
            Op::GetTupleElement { index: 0 },
            vec![p],
            loc,
        );
        let n = self.index_constant(cond, length, loc);
        let lt = self.add_to(
            cond,
            Shape::scalar(PrimitiveType::Pred),
            Op::Compare {
                direction: ComparisonDirection::Lt,
                comparison_type: None,
            },
            vec![i, n],
            loc,
        );
        self.module.computations[cond].root = lt;

        // Body: one step of the scan.
        let body = self.new_computation("scan_loop_body");
        let p = self.add_to(
            body,
            state_shape.clone(),
            Op::Parameter { number: 0 },
            vec![],
            loc,
        );
        let elems: Vec<InstrId> = state
            .iter()
            .enumerate()
            .map(|(k, s)| {
                self.add_to(
                    body,
                    s.clone(),
                    Op::GetTupleElement { index: k },
                    vec![p],
                    loc,
                )
            })
            .collect();
        let i = elems[0];
        // The position this step reads and writes.
        let position = if reverse {
            let last = self.index_constant(body, length - 1, loc);
            self.add_to(
                body,
                Shape::scalar(INDEX),
                Op::Plain(Opcode::Subtract),
                vec![last, i],
                loc,
            )
        } else {
            i
        };
        let zero = self.index_constant(body, 0, loc);
        let mut call_args = Vec::new();
        for (k, s) in input_shapes.iter().enumerate() {
            let starts = starts_at(s.rank(), d, position, zero);
            let mut sizes = s.dims.clone();
            sizes[d] = 1;
            let slice = self.add_to(
                body,
                Shape::array(s.element_type, &sizes),
                Op::DynamicSlice {
                    sizes: sizes.clone(),
                },
                [vec![elems[1 + k]], starts].concat(),
                loc,
            );
            let mut dropped = s.dims.clone();
            dropped.remove(d);
            let r = self.add_to(
                body,
                Shape::array(s.element_type, &dropped),
                Op::Plain(Opcode::Reshape),
                vec![slice],
                loc,
            );
            call_args.push(r);
        }
        call_args.extend(&elems[1 + n_inputs..out_base]);
        let call = self.add_to(
            body,
            body_ret.clone(),
            Op::Call { to_apply: body_fn },
            call_args,
            loc,
        );
        let rets: Vec<InstrId> = if n_ret == 1 {
            vec![call]
        } else {
            ret_shapes
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    self.add_to(
                        body,
                        s.clone(),
                        Op::GetTupleElement { index: k },
                        vec![call],
                        loc,
                    )
                })
                .collect()
        };
        let one = self.index_constant(body, 1, loc);
        let next = self.add_to(
            body,
            Shape::scalar(INDEX),
            Op::Plain(Opcode::Add),
            vec![i, one],
            loc,
        );
        let mut new_state = vec![next];
        new_state.extend(&elems[1..1 + n_inputs]);
        new_state.extend(&rets[n_outputs..]);
        for (k, s) in output_shapes.iter().enumerate() {
            let mut sizes = s.dims.clone();
            sizes[d] = 1;
            let update = self.add_to(
                body,
                Shape::array(s.element_type, &sizes),
                Op::Plain(Opcode::Reshape),
                vec![rets[k]],
                loc,
            );
            let starts = starts_at(s.rank(), d, position, zero);
            let written = self.add_to(
                body,
                Shape::Array(s.clone()),
                Op::Plain(Opcode::DynamicUpdateSlice),
                [vec![elems[out_base + k], update], starts].concat(),
                loc,
            );
            new_state.push(written);
        }
        let root = self.add_to(
            body,
            state_shape.clone(),
            Op::Plain(Opcode::Tuple),
            new_state,
            loc,
        );
        self.module.computations[body].root = root;

        // The loop in the enclosing computation.
        let comp = self.comp();
        let mut init = vec![self.index_constant(comp, 0, loc)];
        init.extend(&ids);
        for s in &output_shapes {
            let zeros = Literal::Array(ArrayLiteral::zeros(s.clone()));
            init.push(self.add(
                Shape::Array(s.clone()),
                Op::Constant { literal: zeros },
                vec![],
                loc,
            ));
        }
        let init = self.tuple(&init, loc);
        let w = self.add(
            state_shape,
            Op::While {
                condition: cond,
                body,
            },
            vec![init],
            loc,
        );
        let mut results: Vec<InstrId> = (0..n_outputs)
            .map(|k| self.gte(w, out_base + k, loc))
            .collect();
        results.extend((0..n_carries).map(|k| self.gte(w, 1 + n_inputs + k, loc)));
        Ok(results)
    }

    /// A scalar constant of the counter type in computation `comp`.
    fn index_constant(&mut self, comp: ComputationId, value: i64, loc: Loc) -> InstrId {
        let literal = Literal::Array(ArrayLiteral::scalar(value));
        self.add_to(
            comp,
            Shape::scalar(INDEX),
            Op::Constant { literal },
            vec![],
            loc,
        )
    }

    /// The array shape of an operand, or an error.
    fn array(&self, x: InstrId, loc: Loc) -> Result<ArrayShape, ParseError> {
        self.shape(x)
            .as_array()
            .cloned()
            .ok_or_else(|| self.err(loc, "chlo.scan inputs must be arrays"))
    }
}

/// Start indices for a dynamic (update-)slice: `position` along `d`, `zero` elsewhere.
fn starts_at(rank: usize, d: usize, position: InstrId, zero: InstrId) -> Vec<InstrId> {
    (0..rank)
        .map(|k| if k == d { position } else { zero })
        .collect()
}
