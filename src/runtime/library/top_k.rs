//! XLA:CPU's `TopK` custom call (and the `topk` op) as a native routine: along the last dimension, the `k`
//! largest elements (comparator root `GT`; `LT` gives the smallest) and their `s32` indices,
//! equal elements in increasing index order. Elements are ordered by XLA's total order
//! (`-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN`) through integer keys, so the
//! order is a true total order and a stable sort of the row's indices by key gives the
//! answer. The comparator is only inspected for its direction, as the interpreter does
//! (`eval::custom_call::top_k`); it is not called.
//! XLA: `xla/service/cpu/runtime/topk.cc` (`__xla_cpu_runtime_TopKF32`, a partial sort).

use super::{for_each_index, offset};
use crate::ir::{ComparisonDirection, CustomCall, Module, Op, PrimitiveType};
use crate::runtime::RuntimeError;
use crate::runtime::memory::BufferRef;
use crate::runtime::memory::Memory;

/// A `TopK` custom call on buffers.
#[derive(Clone, Debug)]
pub struct TopKThunk {
    /// The custom-call instruction.
    pub name: String,
    /// `custom-call` (XLA:CPU's `TopK`) or `topk` (the op).
    pub opcode: &'static str,
    /// Largest first (`GT` comparator) or smallest first (`LT`).
    pub largest: bool,
    /// The operand, rank >= 1.
    pub operand: BufferRef,
    /// The k values per row.
    pub values: BufferRef,
    /// Their `s32` positions in the row.
    pub indices: BufferRef,
}

impl TopKThunk {
    /// The thunk for a `TopK` custom call, or `None` for other targets. `operands` and
    /// `results` are the array leaves.
    pub fn new(
        module: &Module,
        name: &str,
        cc: &CustomCall,
        operands: &[BufferRef],
        results: &[BufferRef],
    ) -> Result<Option<TopKThunk>, String> {
        if cc.target != "TopK" {
            return Ok(None);
        }
        let largest = match cc.called_computations.first() {
            // No comparator: XLA's TopK means "largest".
            None => true,
            Some(&c) => match &module.computations[c].root_instr().op {
                Op::Compare {
                    direction: ComparisonDirection::Gt,
                    ..
                } => true,
                Op::Compare {
                    direction: ComparisonDirection::Lt,
                    ..
                } => false,
                _ => return Err("the TopK comparator is not a GT or LT comparison".into()),
            },
        };
        Ok(
            TopKThunk::for_op(name, largest, operands, results).map(|t| TopKThunk {
                opcode: "custom-call",
                ..t
            }),
        )
    }

    /// The thunk for a top-k (the `topk` op, or the custom call once its direction is
    /// known), or `None` when the buffers are not `x` → `(values, s32 indices)` of a
    /// supported element type (the op then keeps the reference path).
    pub fn for_op(
        name: &str,
        largest: bool,
        operands: &[BufferRef],
        results: &[BufferRef],
    ) -> Option<TopKThunk> {
        let ([x], [values, indices]) = (operands, results) else {
            return None;
        };
        let r = x.shape.rank();
        if key_of(x.shape.element_type).is_none()
            || values.shape.element_type != x.shape.element_type
            || indices.shape.element_type != PrimitiveType::S32
            || r == 0
            || values.shape.dims != indices.shape.dims
            || values.shape.rank() != r
            || values.shape.dims[..r - 1] != x.shape.dims[..r - 1]
        {
            return None;
        }
        Some(TopKThunk {
            name: name.to_string(),
            opcode: "topk",
            largest,
            operand: x.clone(),
            values: values.clone(),
            indices: indices.clone(),
        })
    }
}

/// How to read an element of type `t` as a total-order key.
type KeyFn = unsafe fn(*const u8) -> i128;

/// Sign-magnitude bits to a two's-complement key: flips the magnitude of negatives.
fn float_key(bits: i64, magnitude: i64) -> i128 {
    i128::from(if bits < 0 { bits ^ magnitude } else { bits })
}

fn key_of(t: PrimitiveType) -> Option<KeyFn> {
    use PrimitiveType as P;
    // SAFETY (all): the caller passes a pointer to one element of the named type.
    Some(match t {
        P::F32 => {
            |p| unsafe { float_key(i64::from(p.cast::<i32>().read_unaligned()), 0x7FFF_FFFF) }
        }
        P::F64 => |p| unsafe { float_key(p.cast::<i64>().read_unaligned(), i64::MAX) },
        P::F16 | P::BF16 => {
            |p| unsafe { float_key(i64::from(p.cast::<i16>().read_unaligned()), 0x7FFF) }
        }
        P::S8 => |p| unsafe { i128::from(p.cast::<i8>().read_unaligned()) },
        P::S16 => |p| unsafe { i128::from(p.cast::<i16>().read_unaligned()) },
        P::S32 => |p| unsafe { i128::from(p.cast::<i32>().read_unaligned()) },
        P::S64 => |p| unsafe { i128::from(p.cast::<i64>().read_unaligned()) },
        P::U8 => |p| unsafe { i128::from(p.read_unaligned()) },
        P::U16 => |p| unsafe { i128::from(p.cast::<u16>().read_unaligned()) },
        P::U32 => |p| unsafe { i128::from(p.cast::<u32>().read_unaligned()) },
        P::U64 => |p| unsafe { i128::from(p.cast::<u64>().read_unaligned()) },
        _ => return None,
    })
}

/// Runs a TopK.
pub fn run(t: &TopKThunk, memory: &Memory) -> Result<(), RuntimeError> {
    let fail = |m: &str| RuntimeError::new(format!("{}: {m}", t.name));
    let ty = t.operand.shape.element_type;
    let key = key_of(ty).ok_or_else(|| fail("unsupported element type").unsupported())?;
    let dims: Vec<usize> = t
        .operand
        .shape
        .dims
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect();
    let last = dims.len() - 1;
    let n = dims[last];
    let k = t.values.shape.dims[last].max(0) as usize;
    if k > n {
        return Err(fail("k exceeds the row length"));
    }
    let size = ty.byte_size();
    let (x, v, ix) = (
        memory.ptr(t.operand.slice),
        memory.ptr(t.values.slice),
        memory.ptr(t.indices.slice),
    );
    let (xs, vs, is) = (
        t.operand.shape.physical_strides(),
        t.values.shape.physical_strides(),
        t.indices.shape.physical_strides(),
    );
    let mut keys: Vec<(i128, usize)> = Vec::with_capacity(n);
    for_each_index(&dims, Some(last), &mut |row| {
        let (xb, vb, ib) = (offset(row, &xs), offset(row, &vs), offset(row, &is));
        keys.clear();
        for j in 0..n {
            // SAFETY: element j of this row of the operand.
            keys.push((unsafe { key(x.add((xb + j * xs[last]) * size)) }, j));
        }
        // Stable: equal keys stay in increasing index order.
        if t.largest {
            keys.sort_by_key(|a| std::cmp::Reverse(a.0));
        } else {
            keys.sort_by_key(|a| a.0);
        }
        for (o, &(_, j)) in keys[..k].iter().enumerate() {
            // SAFETY: element j of the operand row; element o of the output rows.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    x.add((xb + j * xs[last]) * size),
                    v.add((vb + o * vs[last]) * size),
                    size,
                );
                ix.cast::<i32>()
                    .add(ib + o * is[last])
                    .write_unaligned(j as i32);
            }
        }
    });
    Ok(())
}
