//! Collectives and the other ops that talk to other processes or to the host: `all-reduce`,
//! `all-gather`, `reduce-scatter`, `all-to-all`, `collective-permute`,
//! `collective-broadcast`, `send`/`recv` (and their `-done` halves), `infeed`, `outfeed`.
//! XLA: `xla/hlo/evaluator/hlo_evaluator.cc` does not run most of these; the semantics are
//! the StableHLO spec's (section "Collective ops") and its reference interpreter's
//! (`stablehlo/reference/Ops.cpp`). `interpreter.run_parallel`, which creates the grid the
//! processes live in, is in [`grid`].
//!
//! Every evaluator is one process of a [`ProcessGrid`]; a plain evaluation is the only
//! process of a 1x1 grid, so a collective there behaves exactly as the spec says for one
//! process (an all-reduce returns its operand, a permute without a pair to itself returns
//! zeros). Each collective finds its participants ([`groups`]), deposits its operands at a
//! rendezvous, and computes its own result from everybody's operands, in group order.
//!
//! Not modeled: the async `-start`/`-done` collective pairs, `ragged-all-to-all`, and the
//! in-place (4-operand) form of `collective-permute`.

pub mod grid;
pub mod groups;

pub use grid::{DeviceContext, ProcessGrid, ProcessId};

/// Where an evaluator's collectives go when it runs as one device of the device runtime
/// (`runtime::collectives`, which implements this; the interpreter cannot depend on the
/// runtime, so the runtime plugs in here). With a link, `all-reduce`, `all-gather`,
/// `reduce-scatter`, `all-to-all`, `collective-permute` and `collective-broadcast` run
/// there, exactly as the compiled backend's thunks run them.
pub trait CollectiveLink: Send + Sync {
    /// Runs collective `instr` of this device on `operands` and returns its result.
    fn collective(
        &self,
        ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
    ) -> EvalResult;
}

use self::groups::{CollectiveAttributes, GroupMode, process_groups};
use super::index::{expect_array, integer_at};
use super::{EvalError, EvalResult, Evaluator, data_movement, elementwise};
use crate::ir::{
    ArrayLiteral, ArrayShape, CalledComputations, ComputationId, Instruction, Literal, Op,
    OpCategory, Opcode, Shape, SliceDimension,
};

/// True for the opcodes this file runs (they arrive as `Op::Unmodeled`).
pub fn runs(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        AllReduce
            | AllGather
            | ReduceScatter
            | AllToAll
            | CollectivePermute
            | CollectiveBroadcast
            | Send
            | SendDone
            | Recv
            | RecvDone
            | Infeed
            | Outfeed
    )
}

/// Runs one of the ops [`runs`] accepts.
pub fn collective(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    opcode: Opcode,
    called: &[CalledComputations],
    operands: &[&Literal],
) -> EvalResult {
    use Opcode::*;
    if let Some(link) = ev.device.link.clone()
        && matches!(
            opcode,
            AllReduce
                | AllGather
                | ReduceScatter
                | AllToAll
                | CollectivePermute
                | CollectiveBroadcast
        )
    {
        return link.collective(ev, instr, operands);
    }
    let attrs = CollectiveAttributes::of(instr)?;
    match opcode {
        AllReduce | ReduceScatter => {
            let reducer = to_apply(called, opcode)?;
            let all = exchange_in_group(ev, opcode, &attrs, operands)?;
            let mut reduced = Vec::with_capacity(operands.len());
            for j in 0..operands.len() {
                let mut acc = all.values[0][j].clone();
                for member in &all.values[1..] {
                    acc = combine(ev, reducer, &acc, &member[j])?;
                }
                reduced.push(acc);
            }
            if opcode == ReduceScatter {
                let d = one_dimension(&attrs, opcode)?;
                reduced = reduced
                    .iter()
                    .enumerate()
                    .map(|(j, r)| {
                        let out = result_shape(instr, j, operands.len())?;
                        block(r, d, all.index, &out)
                    })
                    .collect::<EvalResult<_>>()?;
            }
            Ok(pack(instr, reduced))
        }
        AllGather => {
            let d = one_dimension(&attrs, opcode)?;
            let all = exchange_in_group(ev, opcode, &attrs, operands)?;
            let gathered = (0..operands.len())
                .map(|j| {
                    let parts: Vec<&Literal> = all.values.iter().map(|m| &m[j]).collect();
                    let out = result_shape(instr, j, operands.len())?;
                    data_movement::concatenate(&Shape::Array(out), &parts, d)
                })
                .collect::<EvalResult<_>>()?;
            Ok(pack(instr, gathered))
        }
        AllToAll => all_to_all(ev, instr, &attrs, operands),
        CollectivePermute => collective_permute(ev, instr, &attrs, operands),
        CollectiveBroadcast => collective_broadcast(ev, instr, &attrs, operands),
        Send => {
            let value = operands
                .first()
                .ok_or_else(|| EvalError::new("send needs an operand"))?;
            ev.device
                .grid
                .send(attrs.channel_id.unwrap_or(0), (*value).clone());
            // HLO: `(data, u32[] context, token[])`; a converter may also return the token.
            Ok(match &instr.shape {
                Shape::Tuple(t) if t.len() == 3 => {
                    Literal::Tuple(vec![(*value).clone(), context(), Literal::Token])
                }
                _ => Literal::Token,
            })
        }
        SendDone => Ok(Literal::Token),
        Recv => {
            let value = ev.device.grid.recv(attrs.channel_id.unwrap_or(0))?;
            Ok(match &instr.shape {
                Shape::Tuple(t) if t.len() == 3 => {
                    Literal::Tuple(vec![value, context(), Literal::Token])
                }
                Shape::Tuple(_) => Literal::Tuple(vec![value, Literal::Token]),
                _ => value,
            })
        }
        RecvDone => match operands.first() {
            Some(Literal::Tuple(t)) if !t.is_empty() => {
                Ok(Literal::Tuple(vec![t[0].clone(), Literal::Token]))
            }
            _ => Err(EvalError::new("recv-done needs the tuple a recv returns")),
        },
        Infeed => {
            // `((data...), token[])` or `(data, token[])`: one queue entry per array.
            let data_shape = instr
                .shape
                .tuple_elements()
                .and_then(|t| t.first())
                .ok_or_else(|| EvalError::new("infeed must return (data, token)"))?;
            let data = match data_shape {
                Shape::Tuple(parts) => Literal::Tuple(
                    parts
                        .iter()
                        .map(|_| ev.device.grid.pop_infeed())
                        .collect::<EvalResult<_>>()?,
                ),
                _ => ev.device.grid.pop_infeed()?,
            };
            Ok(Literal::Tuple(vec![data, Literal::Token]))
        }
        Outfeed => {
            let value = operands
                .first()
                .ok_or_else(|| EvalError::new("outfeed needs an operand"))?;
            ev.device.grid.push_outfeed((*value).clone());
            Ok(Literal::Token)
        }
        _ => Err(EvalError::new(format!("the interpreter does not run `{opcode}`")).unsupported()),
    }
}

/// Everybody's operands at one rendezvous, in group order, and this process's position.
struct Gathered {
    values: Vec<Vec<Literal>>,
    index: usize,
}

/// The process groups of an op's `replica_groups` on this evaluator's grid.
fn grid_groups(
    ev: &Evaluator<'_>,
    attrs: &CollectiveAttributes,
    opcode: Opcode,
) -> EvalResult<Vec<Vec<ProcessId>>> {
    let grid = &ev.device.grid;
    process_groups(
        &attrs.replica_groups,
        attrs.mode(opcode)?,
        grid.num_replicas,
        grid.num_partitions,
    )
}

/// Finds this process's group, meets it, and returns the operands in group order.
fn exchange_in_group(
    ev: &mut Evaluator<'_>,
    opcode: Opcode,
    attrs: &CollectiveAttributes,
    operands: &[&Literal],
) -> EvalResult<Gathered> {
    let me = ev.device.process;
    let group = grid_groups(ev, attrs, opcode)?
        .into_iter()
        .find(|g| g.contains(&me))
        .ok_or_else(|| {
            EvalError::new(format!(
                "process ({}, {}) is in no replica group",
                me.replica_id, me.partition_id
            ))
        })?;
    let index = group.iter().position(|&p| p == me).unwrap_or(0);
    let all = ev.device.exchange(opcode, group.clone(), owned(operands))?;
    let values = group.iter().map(|p| all[p].clone()).collect();
    Ok(Gathered { values, index })
}

/// `all-to-all`. With `dimensions={s}` (the array form) each operand is cut along `s` into
/// as many blocks as the group has processes; block k goes to the k-th process, which
/// concatenates what it receives in group order, along the concat dimension. XLA's HLO has
/// one dimension for both; StableHLO's `concat_dimension` may differ, so the concat
/// dimension is the one the result shape grows along. Without `dimensions` (the tuple
/// form) operand k goes to process k.
fn all_to_all(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    attrs: &CollectiveAttributes,
    operands: &[&Literal],
) -> EvalResult {
    let all = exchange_in_group(ev, Opcode::AllToAll, attrs, operands)?;
    let n = all.values.len();
    if attrs.dimensions.is_empty() && attrs.split_dimension.is_none() {
        if operands.len() != n {
            return Err(EvalError::new(format!(
                "tuple all-to-all: {} operands for a group of {n}",
                operands.len()
            )));
        }
        let received = all.values.iter().map(|m| m[all.index].clone()).collect();
        return Ok(pack(instr, received));
    }
    let split = match attrs.split_dimension {
        Some(s) => s as usize,
        None => one_dimension(attrs, Opcode::AllToAll)?,
    };
    let mut results = Vec::with_capacity(operands.len());
    for j in 0..operands.len() {
        let out = result_shape(instr, j, operands.len())?;
        let x = expect_array(operands[j], "all-to-all operand")?;
        let concat = match attrs.concat_dimension {
            Some(c) => c as usize,
            None => concat_dimension(&x.shape.dims, &out.dims, split, n),
        };
        let size = x.shape.dims.get(split).copied().unwrap_or(0);
        if size % n as i64 != 0 {
            return Err(EvalError::new(format!(
                "all-to-all: dimension {split} of size {size} does not split {n} ways"
            )));
        }
        let mut block_dims = x.shape.dims.clone();
        block_dims[split] = size / n as i64;
        let block_shape = ArrayShape::new(x.element_type(), &block_dims);
        let blocks = all
            .values
            .iter()
            .map(|m| block(&m[j], split, all.index, &block_shape))
            .collect::<EvalResult<Vec<_>>>()?;
        let refs: Vec<&Literal> = blocks.iter().collect();
        results.push(data_movement::concatenate(
            &Shape::Array(out),
            &refs,
            concat,
        )?);
    }
    Ok(pack(instr, results))
}

/// The dimension an all-to-all result grows along (`n` times the operand's); the split
/// dimension when the shapes are equal.
fn concat_dimension(input: &[i64], output: &[i64], split: usize, n: usize) -> usize {
    (0..input.len().min(output.len()))
        .find(|&c| c != split && output[c] == input[c] * n as i64 && output[c] != input[c])
        .unwrap_or(split)
}

/// `collective-permute`: every process of this partition (cross-replica) or replica (with a
/// channel id: cross-partition) meets; each receives the operand of the process whose pair
/// targets it, or zeros when none does.
fn collective_permute(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    attrs: &CollectiveAttributes,
    operands: &[&Literal],
) -> EvalResult {
    let me = ev.device.process;
    let (r, p) = (ev.device.grid.num_replicas, ev.device.grid.num_partitions);
    let cross_partition = attrs.mode(Opcode::CollectivePermute)? == GroupMode::CrossPartition;
    let (participants, mine): (Vec<ProcessId>, i64) = if cross_partition {
        let ps = (0..p).map(|q| ProcessId::new(me.replica_id, q)).collect();
        (ps, i64::from(me.partition_id))
    } else {
        let rs = (0..r).map(|q| ProcessId::new(q, me.partition_id)).collect();
        (rs, i64::from(me.replica_id))
    };
    let limit = if cross_partition { p } else { r };
    if let Some(&(s, t)) = attrs
        .source_target_pairs
        .iter()
        .find(|&&(s, t)| s < 0 || t < 0 || s >= i64::from(limit) || t >= i64::from(limit))
    {
        return Err(EvalError::new(format!(
            "collective-permute pair {{{s},{t}}} is outside the {r}x{p} process grid"
        )));
    }
    let all = ev.device.exchange(
        Opcode::CollectivePermute,
        participants.clone(),
        owned(operands),
    )?;
    let source = attrs
        .source_target_pairs
        .iter()
        .find(|&&(_, t)| t == mine)
        .map(|&(s, _)| participants[s as usize]);
    Ok(match source {
        Some(s) => pack(instr, all[&s].clone()),
        None => zeros(&instr.shape),
    })
}

/// `reducer(a, b)` elementwise. A reducer that is one binary elementwise op on its two
/// parameters (the usual `add`, `maximum`, ...) runs on whole arrays; anything else is
/// called once per element.
fn combine(ev: &mut Evaluator<'_>, reducer: ComputationId, a: &Literal, b: &Literal) -> EvalResult {
    let (a, b) = (
        expect_array(a, "reduction operand")?,
        expect_array(b, "reduction operand")?,
    );
    if a.shape.dims != b.shape.dims || a.element_type() != b.element_type() {
        return Err(EvalError::new(
            "processes contributed operands of different shapes",
        ));
    }
    let shape = Shape::Array(a.shape.clone());
    let comp = &ev.module.computations[reducer];
    let root = comp.root_instr();
    if let Op::Plain(opcode) = root.op
        && opcode.category() == OpCategory::ElementwiseBinary
        && root.operands == comp.parameters()
        && root.shape.element_type() == Some(a.element_type())
    {
        return elementwise::binary(opcode, &shape, &a.clone().into(), &b.clone().into());
    }
    let scalar = ArrayShape::new(a.element_type(), &[]);
    let mut parts = Vec::with_capacity(a.data.len());
    for i in 0..a.data.len() {
        let x: Literal = ArrayLiteral {
            shape: scalar.clone(),
            data: a.data.gather(&[i]),
        }
        .into();
        let y: Literal = ArrayLiteral {
            shape: scalar.clone(),
            data: b.data.gather(&[i]),
        }
        .into();
        match ev.call(reducer, &[&x, &y])? {
            Literal::Array(r) if r.data.len() == 1 => parts.push(r.data),
            _ => return Err(EvalError::new("the reducer must return one scalar")),
        }
    }
    let refs: Vec<_> = parts.iter().collect();
    let data = if refs.is_empty() {
        a.data.clone()
    } else {
        data_movement::append_data(&refs)?
    };
    Ok(ArrayLiteral {
        shape: a.shape.clone(),
        data,
    }
    .into())
}

/// Block `k` of `x` along dimension `d`, with `out`'s size along `d`.
fn block(x: &Literal, d: usize, k: usize, out: &ArrayShape) -> EvalResult {
    let xa = expect_array(x, "operand")?;
    if d >= xa.shape.rank() || out.rank() != xa.shape.rank() {
        return Err(EvalError::new(format!("dimension {d} is out of range")));
    }
    let size = out.dims[d];
    let slice: Vec<SliceDimension> = (0..xa.shape.rank())
        .map(|i| {
            if i == d {
                SliceDimension {
                    start: k as i64 * size,
                    limit: (k as i64 + 1) * size,
                    stride: 1,
                }
            } else {
                SliceDimension {
                    start: 0,
                    limit: xa.shape.dims[i],
                    stride: 1,
                }
            }
        })
        .collect();
    data_movement::slice(&Shape::Array(out.clone()), x, &slice)
}

/// The called reducer (`to_apply=`).
fn to_apply(called: &[CalledComputations], opcode: Opcode) -> EvalResult<ComputationId> {
    called
        .iter()
        .find(|c| c.attribute == "to_apply")
        .and_then(|c| c.computations.first().copied())
        .ok_or_else(|| EvalError::new(format!("`{opcode}` needs to_apply=")))
}

/// The single entry of `dimensions={d}`.
fn one_dimension(attrs: &CollectiveAttributes, opcode: Opcode) -> EvalResult<usize> {
    match attrs.dimensions.as_slice() {
        [d] if *d >= 0 => Ok(*d as usize),
        _ => Err(EvalError::new(format!(
            "`{opcode}` needs dimensions={{d}} with one dimension"
        ))),
    }
}

/// The (row-major) array shape of result `j` of `n`: the instruction's shape, or its j-th
/// tuple element when the op has several operands.
fn result_shape(instr: &Instruction, j: usize, n: usize) -> EvalResult<ArrayShape> {
    let s = match (&instr.shape, n) {
        (Shape::Tuple(t), _) => t.get(j),
        (s, 1) => Some(s),
        _ => None,
    };
    s.and_then(Shape::as_array)
        .map(|a| ArrayShape::new(a.element_type, &a.dims))
        .ok_or_else(|| EvalError::new("collective result shape does not match its operands"))
}

/// One value per operand as the op's result: a tuple when the shape is one.
/// StableHLO `collective_broadcast`: every process of a group receives the source's
/// operands. The source is the group's first process, or with `has_dynamic_root` the
/// process at index `root[j]` of the group for data operand `j` (the root tensor is the last
/// operand and is not part of the result). Processes in no group get zeros.
fn collective_broadcast(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    attrs: &CollectiveAttributes,
    operands: &[&Literal],
) -> EvalResult {
    let opcode = Opcode::CollectiveBroadcast;
    let me = ev.device.process;
    let (data, roots) = if attrs.has_dynamic_root {
        let (root, data) = operands
            .split_last()
            .ok_or_else(|| EvalError::new("collective_broadcast needs a root operand"))?;
        // The root is 1-D, so its physical order is its logical order.
        let root = expect_array(root, "collective_broadcast's root")?;
        let count: i64 = root.shape.dims.iter().product();
        let roots = (0..count as usize)
            .map(|i| integer_at(root, i))
            .collect::<EvalResult<Vec<_>>>()?;
        if roots.len() != data.len() {
            return Err(EvalError::new(format!(
                "collective_broadcast: root has {} elements for {} data operands",
                roots.len(),
                data.len()
            )));
        }
        (data, Some(roots))
    } else {
        (operands, None)
    };
    let groups = grid_groups(ev, attrs, opcode)?;
    let Some(group) = groups.into_iter().find(|g| g.contains(&me)) else {
        // Not in any group: zeros (StableHLO spec, collective_broadcast).
        return Ok(zeros(&instr.shape));
    };
    let source_of = |j: usize| -> EvalResult<_> {
        let index = roots.as_ref().map_or(0, |r| r[j]);
        usize::try_from(index)
            .ok()
            .and_then(|i| group.get(i).copied())
            .ok_or_else(|| {
                EvalError::new(format!(
                    "collective_broadcast: root {index} is outside a group of {}",
                    group.len()
                ))
            })
    };
    let sources = (0..data.len())
        .map(source_of)
        .collect::<EvalResult<Vec<_>>>()?;
    let all = ev.device.exchange(opcode, group, owned(data))?;
    let values = sources
        .iter()
        .enumerate()
        .map(|(j, s)| {
            all[s]
                .get(j)
                .cloned()
                .ok_or_else(|| EvalError::new("collective_broadcast: missing operand"))
        })
        .collect::<EvalResult<_>>()?;
    Ok(pack(instr, values))
}

fn pack(instr: &Instruction, mut values: Vec<Literal>) -> Literal {
    if instr.shape.is_tuple() || values.len() != 1 {
        Literal::Tuple(values)
    } else {
        values.remove(0)
    }
}

/// Zeros of `shape` (false, 0, +0.0, 0+0i), row-major.
fn zeros(shape: &Shape) -> Literal {
    match shape {
        Shape::Array(a) => ArrayLiteral::zeros(ArrayShape::new(a.element_type, &a.dims)).into(),
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(zeros).collect()),
        _ => Literal::Token,
    }
}

/// The `u32[]` context value of send/recv (unused by the interpreter).
fn context() -> Literal {
    ArrayLiteral::scalar(0u32).into()
}

fn owned(operands: &[&Literal]) -> Vec<Literal> {
    operands.iter().map(|l| (*l).clone()).collect()
}
