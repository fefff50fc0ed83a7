//! Literals: concrete values of a shape, as constants, interpreter values, inputs and outputs.
//! XLA: `xla/literal.h`.
//!
//! An array literal stores its elements in **physical order**, the order its layout puts them
//! in memory: with layout `{0,1}` a `f32[2,3]` is stored column-major. Code that wants logical
//! (row-major) order calls [`ArrayLiteral::to_row_major`] first; results never depend on layout.

use half::{bf16, f16};
use num_complex::Complex;

use super::{ArrayShape, Layout, PrimitiveType, Shape};

/// Typed element storage, one vector per executable element type.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayData {
    /// `pred`
    Pred(Vec<bool>),
    /// `s8`
    S8(Vec<i8>),
    /// `s16`
    S16(Vec<i16>),
    /// `s32`
    S32(Vec<i32>),
    /// `s64`
    S64(Vec<i64>),
    /// `u8`
    U8(Vec<u8>),
    /// `u16`
    U16(Vec<u16>),
    /// `u32`
    U32(Vec<u32>),
    /// `u64`
    U64(Vec<u64>),
    /// `f16`
    F16(Vec<f16>),
    /// `bf16`
    BF16(Vec<bf16>),
    /// `f32`
    F32(Vec<f32>),
    /// `f64`
    F64(Vec<f64>),
    /// `c64`
    C64(Vec<Complex<f32>>),
    /// `c128`
    C128(Vec<Complex<f64>>),
    /// Types xlac parses but does not execute (f8/f6/f4, s1/s2/s4, u1/u2/u4): one byte per
    /// element holding the raw bit pattern.
    Raw(Vec<u8>),
}

/// Applies a generic expression to the typed vector inside an [`ArrayData`].
///
/// `with_array_data!(data, v => v.len())` binds `v` to the `Vec<T>` of whichever variant
/// `data` holds (`Raw` included, as `Vec<u8>`).
#[macro_export]
macro_rules! with_array_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::ir::ArrayData::Pred($v) => $body,
            $crate::ir::ArrayData::S8($v) => $body,
            $crate::ir::ArrayData::S16($v) => $body,
            $crate::ir::ArrayData::S32($v) => $body,
            $crate::ir::ArrayData::S64($v) => $body,
            $crate::ir::ArrayData::U8($v) => $body,
            $crate::ir::ArrayData::U16($v) => $body,
            $crate::ir::ArrayData::U32($v) => $body,
            $crate::ir::ArrayData::U64($v) => $body,
            $crate::ir::ArrayData::F16($v) => $body,
            $crate::ir::ArrayData::BF16($v) => $body,
            $crate::ir::ArrayData::F32($v) => $body,
            $crate::ir::ArrayData::F64($v) => $body,
            $crate::ir::ArrayData::C64($v) => $body,
            $crate::ir::ArrayData::C128($v) => $body,
            $crate::ir::ArrayData::Raw($v) => $body,
        }
    };
}

/// A Rust type that stores one element of a [`PrimitiveType`].
pub trait NativeType: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// The element type this Rust type stores.
    const TYPE: PrimitiveType;
    /// The typed slice inside `data`, if `data` holds this type.
    fn slice(data: &ArrayData) -> Option<&[Self]>;
    /// The typed mutable slice inside `data`, if `data` holds this type.
    fn slice_mut(data: &mut ArrayData) -> Option<&mut [Self]>;
    /// Wraps a vector of this type.
    fn wrap(v: Vec<Self>) -> ArrayData;
}

macro_rules! native_types {
    ($( $t:ty => $variant:ident, $pt:ident; )*) => {$(
        impl NativeType for $t {
            const TYPE: PrimitiveType = PrimitiveType::$pt;
            fn slice(data: &ArrayData) -> Option<&[Self]> {
                match data { ArrayData::$variant(v) => Some(v), _ => None }
            }
            fn slice_mut(data: &mut ArrayData) -> Option<&mut [Self]> {
                match data { ArrayData::$variant(v) => Some(v), _ => None }
            }
            fn wrap(v: Vec<Self>) -> ArrayData { ArrayData::$variant(v) }
        }
    )*};
}

native_types! {
    bool => Pred, Pred;
    i8 => S8, S8;
    i16 => S16, S16;
    i32 => S32, S32;
    i64 => S64, S64;
    u8 => U8, U8;
    u16 => U16, U16;
    u32 => U32, U32;
    u64 => U64, U64;
    f16 => F16, F16;
    bf16 => BF16, BF16;
    f32 => F32, F32;
    f64 => F64, F64;
    Complex<f32> => C64, C64;
    Complex<f64> => C128, C128;
}

impl ArrayData {
    /// `count` zero elements of type `ty` (false for pred).
    pub fn zeros(ty: PrimitiveType, count: usize) -> ArrayData {
        use PrimitiveType as P;
        match ty {
            P::Pred => ArrayData::Pred(vec![false; count]),
            P::S8 => ArrayData::S8(vec![0; count]),
            P::S16 => ArrayData::S16(vec![0; count]),
            P::S32 => ArrayData::S32(vec![0; count]),
            P::S64 => ArrayData::S64(vec![0; count]),
            P::U8 => ArrayData::U8(vec![0; count]),
            P::U16 => ArrayData::U16(vec![0; count]),
            P::U32 => ArrayData::U32(vec![0; count]),
            P::U64 => ArrayData::U64(vec![0; count]),
            P::F16 => ArrayData::F16(vec![f16::ZERO; count]),
            P::BF16 => ArrayData::BF16(vec![bf16::ZERO; count]),
            P::F32 => ArrayData::F32(vec![0.0; count]),
            P::F64 => ArrayData::F64(vec![0.0; count]),
            P::C64 => ArrayData::C64(vec![Complex::new(0.0, 0.0); count]),
            P::C128 => ArrayData::C128(vec![Complex::new(0.0, 0.0); count]),
            _ => ArrayData::Raw(vec![0; count]),
        }
    }

    /// [`ArrayData::zeros`], or an [`AllocError`](super::size::AllocError) naming `what`
    /// when the memory cannot be had (see [`super::size::try_filled_vec`]).
    pub fn try_zeros(
        ty: PrimitiveType,
        count: usize,
        what: impl FnOnce() -> String,
    ) -> Result<ArrayData, super::size::AllocError> {
        let mut data = ArrayData::zeros(ty, 0);
        with_array_data!(&mut data, v => {
            let mut filled = super::size::try_filled_vec(count, Default::default(), what)?;
            std::mem::swap(v, &mut filled);
        });
        Ok(data)
    }

    /// `count` copies of the first element (a splat), or an
    /// [`AllocError`](super::size::AllocError) naming `what`. Empty data stays empty.
    pub fn try_splat(
        &self,
        count: usize,
        what: impl FnOnce() -> String,
    ) -> Result<ArrayData, super::size::AllocError> {
        let mut out = self.clone();
        with_array_data!(&mut out, v => {
            if let Some(&first) = v.first() {
                let mut filled = super::size::try_filled_vec(count, first, what)?;
                std::mem::swap(v, &mut filled);
            }
        });
        Ok(out)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_array_data!(self, v => v.len())
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A new vector holding the elements at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> ArrayData {
        macro_rules! pick {
            ($variant:ident, $v:expr) => {
                ArrayData::$variant(indices.iter().map(|&i| $v[i]).collect())
            };
        }
        match self {
            ArrayData::Pred(v) => pick!(Pred, v),
            ArrayData::S8(v) => pick!(S8, v),
            ArrayData::S16(v) => pick!(S16, v),
            ArrayData::S32(v) => pick!(S32, v),
            ArrayData::S64(v) => pick!(S64, v),
            ArrayData::U8(v) => pick!(U8, v),
            ArrayData::U16(v) => pick!(U16, v),
            ArrayData::U32(v) => pick!(U32, v),
            ArrayData::U64(v) => pick!(U64, v),
            ArrayData::F16(v) => pick!(F16, v),
            ArrayData::BF16(v) => pick!(BF16, v),
            ArrayData::F32(v) => pick!(F32, v),
            ArrayData::F64(v) => pick!(F64, v),
            ArrayData::C64(v) => pick!(C64, v),
            ArrayData::C128(v) => pick!(C128, v),
            ArrayData::Raw(v) => pick!(Raw, v),
        }
    }
}

/// A dense array value: its shape (with layout) and its elements in physical order.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayLiteral {
    /// Shape and layout.
    pub shape: ArrayShape,
    /// Elements in the physical order given by `shape.layout`.
    pub data: ArrayData,
}

impl ArrayLiteral {
    /// All-zero array of a shape.
    pub fn zeros(shape: ArrayShape) -> ArrayLiteral {
        let data = ArrayData::zeros(shape.element_type, shape.element_count());
        ArrayLiteral { shape, data }
    }

    /// A row-major array from logical-order values.
    ///
    /// Panics if `values.len()` is not the element count: a programming error in the caller.
    pub fn from_vec<T: NativeType>(dims: &[i64], values: Vec<T>) -> ArrayLiteral {
        let shape = ArrayShape::new(T::TYPE, dims);
        assert_eq!(
            shape.element_count(),
            values.len(),
            "literal size does not match its shape"
        );
        ArrayLiteral {
            shape,
            data: T::wrap(values),
        }
    }

    /// A rank-0 literal.
    pub fn scalar<T: NativeType>(value: T) -> ArrayLiteral {
        ArrayLiteral::from_vec(&[], vec![value])
    }

    /// The elements as a typed slice, in physical order, if the type matches.
    pub fn values<T: NativeType>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }

    /// The elements as a typed mutable slice, in physical order, if the type matches.
    pub fn values_mut<T: NativeType>(&mut self) -> Option<&mut [T]> {
        T::slice_mut(&mut self.data)
    }

    /// Element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.shape.element_type
    }

    /// The same value stored with another layout.
    pub fn with_layout(&self, layout: &Layout) -> ArrayLiteral {
        if *layout == self.shape.layout || self.shape.rank() <= 1 {
            let mut out = self.clone();
            out.shape.layout = layout.clone();
            return out;
        }
        // For each destination position (walking the new layout), find the source position.
        let mut target = self.shape.clone();
        target.layout = layout.clone();
        let src_strides = self.shape.physical_strides();
        let mut order = Vec::with_capacity(self.shape.element_count());
        for_each_index_in_layout(&target, |index| {
            order.push(index.iter().zip(&src_strides).map(|(&i, &s)| i * s).sum());
        });
        ArrayLiteral {
            shape: target,
            data: self.data.gather(&order),
        }
    }

    /// The same value stored row-major (logical order).
    pub fn to_row_major(&self) -> ArrayLiteral {
        self.with_layout(&Layout::row_major(self.shape.rank()))
    }

    /// True when its data is already in row-major (logical) order.
    pub fn is_row_major(&self) -> bool {
        self.shape.rank() <= 1 || self.shape.layout == Layout::row_major(self.shape.rank())
    }

    /// This value stored row-major: relabelled in place when its data is already in that
    /// order, else copied once, after checking the copy (and its index table) fits in
    /// memory. Unlike [`ArrayLiteral::to_row_major`] it never holds two copies of a
    /// row-major array.
    pub fn into_row_major(mut self) -> Result<ArrayLiteral, crate::ir::size::AllocError> {
        if self.is_row_major() {
            self.shape.layout = Layout::row_major(self.shape.rank());
            return Ok(self);
        }
        let elements = self.shape.element_count() as u64;
        let bytes = crate::ir::size::byte_size(self.shape.element_type, &self.shape.dims)
            .and_then(|b| b.checked_add(elements.checked_mul(8)?))
            .unwrap_or(u64::MAX);
        crate::ir::size::check_allocation(bytes, || {
            format!("a row-major copy of {}", Shape::Array(self.shape.clone()))
        })?;
        Ok(self.to_row_major())
    }
}

/// Calls `f` with every multi-index of `shape`, in the physical order of its layout.
fn for_each_index_in_layout(shape: &ArrayShape, mut f: impl FnMut(&[usize])) {
    let rank = shape.rank();
    if shape.element_count() == 0 {
        return;
    }
    let mut index = vec![0usize; rank];
    loop {
        f(&index);
        // Increment the fastest-varying (minor) dimension first.
        let mut k = 0;
        loop {
            if k == rank {
                return;
            }
            let d = shape.layout.minor_to_major[k];
            index[d] += 1;
            if (index[d] as i64) < shape.dims[d] {
                break;
            }
            index[d] = 0;
            k += 1;
        }
    }
}

/// Any HLO value: an array, a tuple of values, or a token.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A dense array.
    Array(ArrayLiteral),
    /// A tuple.
    Tuple(Vec<Literal>),
    /// A token (no data).
    Token,
}

impl Literal {
    /// The shape of this value.
    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array(a) => Shape::Array(a.shape.clone()),
            Literal::Tuple(t) => Shape::Tuple(t.iter().map(Literal::shape).collect()),
            Literal::Token => Shape::Token,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&ArrayLiteral> {
        match self {
            Literal::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple elements, if this is a tuple.
    pub fn as_tuple(&self) -> Option<&[Literal]> {
        match self {
            Literal::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The array leaves in depth-first order (how `--output` flattens results).
    pub fn leaves(&self) -> Vec<&ArrayLiteral> {
        let mut out = Vec::new();
        fn walk<'a>(l: &'a Literal, out: &mut Vec<&'a ArrayLiteral>) {
            match l {
                Literal::Array(a) => out.push(a),
                Literal::Tuple(t) => t.iter().for_each(|e| walk(e, out)),
                Literal::Token => {}
            }
        }
        walk(self, &mut out);
        out
    }
}

impl From<ArrayLiteral> for Literal {
    fn from(a: ArrayLiteral) -> Literal {
        Literal::Array(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relayout_round_trips() {
        let a = ArrayLiteral::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
        let col = a.with_layout(&Layout {
            minor_to_major: vec![0, 1],
            extra: None,
        });
        assert_eq!(col.values::<i32>().unwrap(), &[1, 4, 2, 5, 3, 6]);
        assert_eq!(col.to_row_major(), a);
    }
}
