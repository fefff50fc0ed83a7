//! The reduction computation of an all-reduce or reduce-scatter, applied to whole buffers.
//! A reducer that is one binary op on its two parameters (`add`, `multiply`, integer
//! `maximum`/`minimum`, bitwise `and`/`or`/`xor`) runs as a native loop ([`Native`]);
//! any other computation runs compiled ([`Compiled`], the scalar function codegen made for
//! it) on the compiled backend, or interpreted on the interpreter. Float max/min and the
//! 16-bit floats always take the compiled/interpreted path, so both backends follow the
//! elemental emitter's exact NaN and rounding rules.

use crate::codegen::ScalarFn;
use crate::ir::{Module, Op, OpCategory, Opcode, PrimitiveType};

/// Folds one member's elements into the accumulator.
pub trait Reducer {
    /// `acc[i] = reduce(acc[i], x[i])` for every element of type `ty` in `acc` (`x` has as
    /// many). Fails with a message when the computation cannot run on `ty`.
    fn combine(&self, ty: PrimitiveType, acc: &mut [u8], x: &[u8]) -> Result<(), String>;

    /// This reducer, when chunks of one buffer may be reduced on several threads at once.
    fn shared(&self) -> Option<&(dyn Reducer + Sync)> {
        None
    }
}

/// The binary ops [`Native`] runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NativeOp {
    /// `add` (wrapping for integers).
    Add,
    /// `multiply` (wrapping for integers).
    Multiply,
    /// `maximum` (integers).
    Maximum,
    /// `minimum` (integers).
    Minimum,
    /// `and` (integers, pred).
    And,
    /// `or` (integers, pred).
    Or,
    /// `xor` (integers, pred).
    Xor,
}

/// A reducer that is one binary op: a native loop over the buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Native {
    /// The op.
    pub op: NativeOp,
    /// The element type it was recognized for.
    pub element_type: PrimitiveType,
}

impl Native {
    /// The native form of reducer `comp`, when its root is one of [`NativeOp`] applied to
    /// its two parameters, on a type the loop computes exactly as the interpreter does.
    pub fn recognize(module: &Module, comp: crate::ir::ComputationId) -> Option<Native> {
        let c = &module.computations[comp];
        let root = c.root_instr();
        let Op::Plain(opcode) = root.op else {
            return None;
        };
        if opcode.category() != OpCategory::ElementwiseBinary {
            return None;
        }
        let params = c.parameters();
        let mut ops = root.operands.clone();
        ops.sort();
        let mut ps = params.clone();
        ps.sort();
        if params.len() != 2 || ops != ps {
            return None;
        }
        let ty = root.shape.element_type()?;
        let op = match opcode {
            Opcode::Add => NativeOp::Add,
            Opcode::Multiply => NativeOp::Multiply,
            Opcode::Maximum => NativeOp::Maximum,
            Opcode::Minimum => NativeOp::Minimum,
            Opcode::And => NativeOp::And,
            Opcode::Or => NativeOp::Or,
            Opcode::Xor => NativeOp::Xor,
            _ => return None,
        };
        let native = Native {
            op,
            element_type: ty,
        };
        native.supports(ty).then_some(native)
    }

    /// True when the loop computes `ty` exactly as the interpreter.
    fn supports(&self, ty: PrimitiveType) -> bool {
        use PrimitiveType::*;
        let int = matches!(ty, S8 | S16 | S32 | S64 | U8 | U16 | U32 | U64);
        match self.op {
            NativeOp::Add | NativeOp::Multiply => int || matches!(ty, F32 | F64),
            NativeOp::Maximum | NativeOp::Minimum => int,
            NativeOp::And | NativeOp::Or | NativeOp::Xor => int || ty == Pred,
        }
    }
}

/// Applies `f` to every element pair, reading and writing unaligned (buffers are only
/// element-aligned, staging buffers byte-aligned).
fn each<T: Copy>(acc: &mut [u8], x: &[u8], f: impl Fn(T, T) -> T) {
    let size = std::mem::size_of::<T>();
    let n = acc.len().min(x.len()) / size;
    let (a, b) = (acc.as_mut_ptr(), x.as_ptr());
    for i in 0..n {
        // SAFETY: `i * size + size <= len` for both slices.
        unsafe {
            let pa = a.add(i * size).cast::<T>();
            let pb = b.add(i * size).cast::<T>();
            pa.write_unaligned(f(pa.read_unaligned(), pb.read_unaligned()));
        }
    }
}

macro_rules! integer_op {
    ($op:expr, $acc:expr, $x:expr, $t:ty) => {
        match $op {
            NativeOp::Add => each::<$t>($acc, $x, |a, b| a.wrapping_add(b)),
            NativeOp::Multiply => each::<$t>($acc, $x, |a, b| a.wrapping_mul(b)),
            NativeOp::Maximum => each::<$t>($acc, $x, |a, b| a.max(b)),
            NativeOp::Minimum => each::<$t>($acc, $x, |a, b| a.min(b)),
            NativeOp::And => each::<$t>($acc, $x, |a, b| a & b),
            NativeOp::Or => each::<$t>($acc, $x, |a, b| a | b),
            NativeOp::Xor => each::<$t>($acc, $x, |a, b| a ^ b),
        }
    };
}

impl Reducer for Native {
    fn combine(&self, ty: PrimitiveType, acc: &mut [u8], x: &[u8]) -> Result<(), String> {
        use PrimitiveType::*;
        if !self.supports(ty) {
            return Err(format!(
                "the native {:?} reduction does not run on {ty:?}",
                self.op
            ));
        }
        match ty {
            S8 => integer_op!(self.op, acc, x, i8),
            S16 => integer_op!(self.op, acc, x, i16),
            S32 => integer_op!(self.op, acc, x, i32),
            S64 => integer_op!(self.op, acc, x, i64),
            U8 => integer_op!(self.op, acc, x, u8),
            U16 => integer_op!(self.op, acc, x, u16),
            U32 => integer_op!(self.op, acc, x, u32),
            U64 => integer_op!(self.op, acc, x, u64),
            Pred => match self.op {
                NativeOp::And => each::<u8>(acc, x, |a, b| a & b),
                NativeOp::Or => each::<u8>(acc, x, |a, b| a | b),
                _ => each::<u8>(acc, x, |a, b| a ^ b),
            },
            F32 => match self.op {
                NativeOp::Add => each::<f32>(acc, x, |a, b| a + b),
                _ => each::<f32>(acc, x, |a, b| a * b),
            },
            F64 => match self.op {
                NativeOp::Add => each::<f64>(acc, x, |a, b| a + b),
                _ => each::<f64>(acc, x, |a, b| a * b),
            },
            _ => unreachable!("checked by supports"),
        }
        Ok(())
    }

    fn shared(&self) -> Option<&(dyn Reducer + Sync)> {
        Some(self)
    }
}

/// A reducer compiled to a native scalar function (`codegen::scalar_function`), called once
/// per element: what the compiled backend runs for any reduction computation.
#[derive(Copy, Clone, Debug)]
pub struct Compiled {
    /// The function: `params = [&acc_i, &x_i]`, `results = [&out]`.
    pub function: ScalarFn,
    /// Its element type.
    pub element_type: PrimitiveType,
}

impl Reducer for Compiled {
    fn combine(&self, ty: PrimitiveType, acc: &mut [u8], x: &[u8]) -> Result<(), String> {
        if ty != self.element_type {
            return Err(format!(
                "the reduction computation takes {}, the operand is {}",
                self.element_type.name(),
                ty.name()
            ));
        }
        let size = ty.byte_size();
        let mut out = [0u8; 16];
        for (a, b) in acc.chunks_exact_mut(size).zip(x.chunks_exact(size)) {
            let params = [a.as_ptr(), b.as_ptr()];
            let results = [out.as_mut_ptr()];
            // SAFETY: the function reads two scalars of `ty` and writes one into `out`.
            unsafe { (self.function)(params.as_ptr(), results.as_ptr()) };
            a.copy_from_slice(&out[..size]);
        }
        Ok(())
    }

    fn shared(&self) -> Option<&(dyn Reducer + Sync)> {
        Some(self)
    }
}
