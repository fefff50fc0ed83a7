//! Ops with regions: reduce, reduce_window, select_and_scatter, scatter, sort, map (their
//! regions become called computations over scalars) and while, if, case (their regions
//! become the loop's condition and body or the conditional's branches, with captured
//! values threaded through the loop state or the branch operands).
//! XLA: `mlir_hlo_to_hlo.cc` (`ExportXlaOp` for `WhileOp`, `IfOp`, `CaseOp`, `ReduceOp`, ...).

use super::{Converter, Val};
use crate::front::hlo_text::ParseError;
use crate::front::stablehlo::ast::Operation;
use crate::front::stablehlo::types::Type;
use crate::ir::{InstrId, Op, Opcode, Shape};

/// The names of `reduce_window`'s and `select_and_scatter`'s window attributes (strides,
/// base dilations, window dilations, reversal), as [`Converter::window`] takes them.
const WINDOW_ATTRIBUTES: [&str; 4] = [
    "window_strides",
    "base_dilations",
    "window_dilations",
    "window_reversal",
];

impl<'a> Converter<'a> {
    /// Converts the ops of this file; `None` if `op` is not one of them.
    pub(crate) fn convert_region_op(
        &mut self,
        op: &'a Operation,
    ) -> Result<Option<Vec<InstrId>>, ParseError> {
        let Some(short) = op.name.strip_prefix("stablehlo.") else {
            return Ok(None);
        };
        let loc = op.loc;
        let n_regions = match short {
            "reduce" | "reduce_window" | "scatter" | "sort" | "map" | "if" => 1,
            "select_and_scatter" | "while" => 2,
            "case" => 1,
            _ => return Ok(None),
        };
        if op.regions.len() < n_regions || (short == "if" && op.regions.len() != 2) {
            return Err(self.err(
                loc,
                format!("'{}' has {} regions", op.name, op.regions.len()),
            ));
        }
        let args = self.operands(op)?;
        let ids: Vec<InstrId> = args.iter().map(|v| v.id).collect();
        let n_results = op.result_types.len();
        // Single results are plain; several come back as a tuple.
        let result_shape = if n_results == 1 {
            self.result_shape(op, 0)
        } else {
            self.results_tuple_shape(op)
        };
        let finish = |s: &mut Self, id: InstrId| -> Vec<InstrId> {
            if n_results == 1 {
                vec![id]
            } else {
                s.unpack(id, n_results, loc)
            }
        };
        match short {
            "reduce" | "map" => {
                let dimensions = self.dims_attr(op, "dimensions")?;
                let to_apply = self.region_computation(&op.regions[0], op, "region")?;
                if short == "map" {
                    let map = Op::Map {
                        dimensions,
                        to_apply,
                    };
                    return Ok(Some(vec![self.add(result_shape, map, ids, loc)]));
                }
                let reduce = Op::Reduce {
                    dimensions,
                    to_apply,
                };
                let id = self.add(result_shape, reduce, ids, loc);
                Ok(Some(finish(self, id)))
            }
            "reduce_window" => {
                let rank = self.shape(ids[0]).rank();
                let window = self.window(op, rank, None, WINDOW_ATTRIBUTES)?;
                let to_apply = self.region_computation(&op.regions[0], op, "region")?;
                let id = self.add(
                    result_shape,
                    Op::ReduceWindow { window, to_apply },
                    ids,
                    loc,
                );
                Ok(Some(finish(self, id)))
            }
            "select_and_scatter" => {
                let rank = self.shape(ids[0]).rank();
                let window = self.window(op, rank, None, WINDOW_ATTRIBUTES)?;
                let select = self.region_computation(&op.regions[0], op, "region")?;
                let scatter = self.region_computation(&op.regions[1], op, "region")?;
                let id = self.add(
                    result_shape,
                    Op::SelectAndScatter {
                        window,
                        select,
                        scatter,
                    },
                    ids,
                    loc,
                );
                Ok(Some(vec![id]))
            }
            "scatter" => {
                let dimension_numbers =
                    self.scatter_dims(op, self.attr(op, "scatter_dimension_numbers")?)?;
                let to_apply = self.region_computation(&op.regions[0], op, "region")?;
                let scatter = Op::Scatter {
                    dimension_numbers,
                    to_apply,
                    indices_are_sorted: self.bool_attr(op, "indices_are_sorted")?,
                    unique_indices: self.bool_attr(op, "unique_indices")?,
                };
                let id = self.add(result_shape, scatter, ids, loc);
                Ok(Some(finish(self, id)))
            }
            "sort" => {
                let rank = self.shape(ids[0]).rank() as i64;
                let d = self.opt_int(op, "dimension")?.unwrap_or(-1);
                let d = if d < 0 { d + rank } else { d };
                let dimension = self.dims(op, vec![d], "dimension")?[0];
                let is_stable = self.bool_attr(op, "is_stable")?;
                let to_apply = self.region_computation(&op.regions[0], op, "region")?;
                let id = self.add(
                    result_shape,
                    Op::Sort {
                        dimension,
                        is_stable,
                        to_apply,
                    },
                    ids,
                    loc,
                );
                Ok(Some(finish(self, id)))
            }
            "while" => self.convert_while(op, args).map(Some),
            "if" | "case" => self.convert_conditional(op, args).map(Some),
            _ => Ok(None),
        }
    }

    /// `while`: the state is a tuple of the loop values followed by captured values.
    fn convert_while(
        &mut self,
        op: &'a Operation,
        args: Vec<Val>,
    ) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let n = args.len();
        let types: Vec<Type> = op.operand_types.clone();
        let (cond, cond_ret, cond_param, captured) =
            self.tuple_region(&op.regions[0], &types, Vec::new(), "region_cond", loc)?;
        if cond_ret.len() != 1 {
            return Err(self.err(loc, "the condition of a while must return one tensor<i1>"));
        }
        let (body, body_ret, body_param, captured) =
            self.tuple_region(&op.regions[1], &types, captured, "region_body", loc)?;
        if body_ret.len() != n {
            return Err(self.err(
                loc,
                format!(
                    "the body of a while returns {} values, expected {n}",
                    body_ret.len()
                ),
            ));
        }
        for (i, (v, t)) in body_ret.iter().zip(&types).enumerate() {
            if !v.ty.to_shape().compatible(&t.to_shape()) {
                return Err(self.err(
                    loc,
                    format!(
                        "type mismatch: while body result #{i} is {}, expected {t}",
                        v.ty
                    ),
                ));
            }
        }
        let mut state: Vec<Shape> = types.iter().map(Type::to_shape).collect();
        state.extend(captured.iter().map(|v| v.ty.to_shape()));
        let state_shape = Shape::Tuple(state.clone());
        // Condition: its root is the returned predicate.
        self.module.computations[cond].instrs[cond_param].shape = state_shape.clone();
        self.module.computations[cond].root = cond_ret[0].id;
        // Body: returns the new loop values and passes captured values through.
        self.module.computations[body].instrs[body_param].shape = state_shape.clone();
        let mut outs: Vec<InstrId> = body_ret.iter().map(|v| v.id).collect();
        for k in 0..captured.len() {
            let g = self.add_to(
                body,
                state[n + k].clone(),
                Op::GetTupleElement { index: n + k },
                vec![body_param],
                loc,
            );
            outs.push(g);
        }
        let root = self.add_to(
            body,
            state_shape.clone(),
            Op::Plain(Opcode::Tuple),
            outs,
            loc,
        );
        self.module.computations[body].root = root;
        // The loop in the enclosing computation.
        let mut init: Vec<InstrId> = args.iter().map(|v| v.id).collect();
        init.extend(captured.iter().map(|v| v.id));
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
        Ok(self.unpack(w, n, loc))
    }

    /// `if` (a `pred` selector; branch 0 is `true`) and `case` (an `s32` index; out of
    /// range picks the last branch). Each branch takes a tuple of the values it captures.
    fn convert_conditional(
        &mut self,
        op: &'a Operation,
        args: Vec<Val>,
    ) -> Result<Vec<InstrId>, ParseError> {
        let loc = op.loc;
        let n_results = op.result_types.len();
        let result_shape = if n_results == 1 {
            self.result_shape(op, 0)
        } else {
            self.results_tuple_shape(op)
        };
        let mut branches = Vec::new();
        let mut operands = vec![args[0].id];
        for region in &op.regions {
            let (comp, ret, param, captured) =
                self.tuple_region(region, &[], Vec::new(), "region_branch", loc)?;
            if ret.len() != n_results {
                return Err(self.err(
                    loc,
                    format!(
                        "a branch returns {} values, expected {n_results}",
                        ret.len()
                    ),
                ));
            }
            for (i, (v, t)) in ret.iter().zip(&op.result_types).enumerate() {
                if !v.ty.to_shape().compatible(&t.to_shape()) {
                    return Err(self.err(
                        loc,
                        format!(
                            "type mismatch: branch result #{i} is {}, expected {t}",
                            v.ty
                        ),
                    ));
                }
            }
            let param_shape = Shape::Tuple(captured.iter().map(|v| v.ty.to_shape()).collect());
            self.module.computations[comp].instrs[param].shape = param_shape;
            let root = if n_results == 1 {
                ret[0].id
            } else {
                let ids: Vec<InstrId> = ret.iter().map(|v| v.id).collect();
                self.add_to(
                    comp,
                    result_shape.clone(),
                    Op::Plain(Opcode::Tuple),
                    ids,
                    loc,
                )
            };
            self.module.computations[comp].root = root;
            let ids: Vec<InstrId> = captured.iter().map(|v| v.id).collect();
            operands.push(self.tuple(&ids, loc));
            branches.push(comp);
        }
        let id = self.add(
            result_shape,
            Op::Conditional {
                branch_computations: branches,
            },
            operands,
            loc,
        );
        Ok(if n_results == 1 {
            vec![id]
        } else {
            self.unpack(id, n_results, loc)
        })
    }
}
