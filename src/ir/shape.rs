//! Shapes and layouts: `f32[2,3]{1,0}`, `(s32[], f32[4]{0})`, `token[]`.
//! XLA: `xla/shape.h`, `xla/layout.h`, `xla/shape_util.cc`.
//!
//! A layout's `minor_to_major` lists dimensions from fastest- to slowest-varying in memory:
//! `{1,0}` is row-major for rank 2, `{0,1}` column-major.

use std::fmt;

use super::PrimitiveType;

/// Where every element of an array sits in memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Layout {
    /// Dimensions from fastest- to slowest-varying.
    pub minor_to_major: Vec<usize>,
    /// The layout suffixes xlac does not model (`:T(8,128)`, `S(1)`, ...), kept verbatim
    /// without the leading `:` so the printer can write them back.
    pub extra: Option<String>,
}

impl Layout {
    /// Row-major for `rank` dimensions: `{rank-1, ..., 1, 0}`.
    pub fn row_major(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank).rev().collect(),
            extra: None,
        }
    }

    /// True if this is `{rank-1, ..., 0}`.
    pub fn is_row_major(&self) -> bool {
        let n = self.minor_to_major.len();
        self.minor_to_major
            .iter()
            .enumerate()
            .all(|(i, &d)| d == n - 1 - i)
    }
}

/// An array shape: element type, dimension sizes, layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    /// The element type.
    pub element_type: PrimitiveType,
    /// Sizes; for a dynamic dimension this is its bound.
    pub dims: Vec<i64>,
    /// Per dimension: `true` if dynamic (`<=N`). Empty when every dimension is static.
    pub dynamic_dims: Vec<bool>,
    /// Physical layout; row-major unless the text or layout assignment says otherwise.
    pub layout: Layout,
}

impl ArrayShape {
    /// A static, row-major array shape.
    pub fn new(element_type: PrimitiveType, dims: &[i64]) -> ArrayShape {
        ArrayShape {
            element_type,
            dims: dims.to_vec(),
            dynamic_dims: Vec::new(),
            layout: Layout::row_major(dims.len()),
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Number of elements (1 for a scalar). Saturates instead of wrapping: a shape that
    /// passed the verifier is under [`super::size::max_array_bytes`], and any other one
    /// then asks for an impossible size rather than a wrapped, too-small one.
    pub fn element_count(&self) -> usize {
        self.dims
            .iter()
            .fold(1usize, |n, &d| n.saturating_mul(d.max(0) as usize))
    }

    /// Size in bytes of a dense buffer with this shape (saturating, as [`Self::element_count`]).
    pub fn byte_size(&self) -> usize {
        self.element_count()
            .saturating_mul(self.element_type.byte_size())
    }

    /// The element count as a checked product (`None` on a negative dimension or overflow).
    pub fn checked_element_count(&self) -> Option<usize> {
        usize::try_from(super::size::element_count(&self.dims)?).ok()
    }

    /// The byte size as a checked product (`None` on a negative dimension or overflow).
    pub fn checked_byte_size(&self) -> Option<usize> {
        usize::try_from(super::size::byte_size(self.element_type, &self.dims)?).ok()
    }

    /// True if `other` has the same type and dimensions, whatever the layouts.
    pub fn compatible(&self, other: &ArrayShape) -> bool {
        self.element_type == other.element_type && self.dims == other.dims
    }

    /// Logical row-major strides in elements (the last dimension has stride 1).
    pub fn row_major_strides(&self) -> Vec<usize> {
        let mut strides = vec![1usize; self.rank()];
        for i in (0..self.rank().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1].saturating_mul(self.dims[i + 1].max(0) as usize);
        }
        strides
    }

    /// Strides in elements of each logical dimension in the physical (layout) order.
    pub fn physical_strides(&self) -> Vec<usize> {
        let mut strides = vec![0usize; self.rank()];
        let mut stride = 1usize;
        for &d in &self.layout.minor_to_major {
            strides[d] = stride;
            stride = stride.saturating_mul(self.dims[d].max(0) as usize);
        }
        strides
    }
}

/// The shape of any HLO value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A dense array (rank 0 is a scalar).
    Array(ArrayShape),
    /// A tuple of shapes; `()` is the empty tuple.
    Tuple(Vec<Shape>),
    /// `token[]`: orders side effects, holds no data.
    Token,
    /// `opaque[]`: a value xlac never looks into.
    Opaque,
}

impl Shape {
    /// A static, row-major array shape.
    pub fn array(element_type: PrimitiveType, dims: &[i64]) -> Shape {
        Shape::Array(ArrayShape::new(element_type, dims))
    }

    /// A scalar shape.
    pub fn scalar(element_type: PrimitiveType) -> Shape {
        Shape::array(element_type, &[])
    }

    /// The array shape, or `None` for tuples, tokens and opaque values.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Mutable access to the array shape.
    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple elements, or `None` for non-tuples.
    pub fn tuple_elements(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// True for arrays.
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }

    /// True for tuples.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    /// The element type of an array shape.
    pub fn element_type(&self) -> Option<PrimitiveType> {
        self.as_array().map(|a| a.element_type)
    }

    /// The dimensions of an array shape (empty for non-arrays).
    pub fn dims(&self) -> &[i64] {
        match self {
            Shape::Array(a) => &a.dims,
            _ => &[],
        }
    }

    /// Rank of an array shape (0 for non-arrays).
    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    /// The sub-shape at a tuple index path (`{}` is the shape itself).
    pub fn subshape(&self, index: &[usize]) -> Option<&Shape> {
        let mut s = self;
        for &i in index {
            s = s.tuple_elements()?.get(i)?;
        }
        Some(s)
    }

    /// True if both shapes are equal ignoring layouts (and dynamic-ness).
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.compatible(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
            _ => false,
        }
    }

    /// The array leaves in depth-first order (how `--output` flattens results).
    pub fn leaves(&self) -> Vec<&ArrayShape> {
        let mut out = Vec::new();
        fn walk<'a>(s: &'a Shape, out: &mut Vec<&'a ArrayShape>) {
            match s {
                Shape::Array(a) => out.push(a),
                Shape::Tuple(t) => t.iter().for_each(|e| walk(e, out)),
                Shape::Token | Shape::Opaque => {}
            }
        }
        walk(self, &mut out);
        out
    }
}

/// XLA's `ShapeUtil::HumanString`: the shape without layouts, as error messages print it
/// (`f32[4,8]`, `(f32[4], s32[])`, `f32[<=10]`). HLO text with layouts is printed by
/// `front::hlo_text`.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => {
                write!(f, "{}[", a.element_type)?;
                for (i, d) in a.dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    if a.dynamic_dims.get(i).copied().unwrap_or(false) {
                        f.write_str("<=")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("]")
            }
            Shape::Tuple(elements) => {
                f.write_str("(")?;
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
            Shape::Token => f.write_str("token[]"),
            Shape::Opaque => f.write_str("opaque[]"),
        }
    }
}

/// A path into a tuple shape: `{}` is the whole value, `{1,0}` element 0 of element 1.
pub type ShapeIndex = Vec<usize>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_xla_human_string() {
        let t = Shape::Tuple(vec![
            Shape::array(PrimitiveType::F32, &[4, 8]),
            Shape::scalar(PrimitiveType::S32),
        ]);
        assert_eq!(t.to_string(), "(f32[4,8], s32[])");
    }

    #[test]
    fn strides_follow_layout() {
        let mut s = ArrayShape::new(PrimitiveType::F32, &[2, 3]);
        assert_eq!(s.row_major_strides(), vec![3, 1]);
        assert_eq!(s.physical_strides(), vec![3, 1]);
        s.layout.minor_to_major = vec![0, 1];
        assert_eq!(s.physical_strides(), vec![1, 2]);
        assert!(!s.layout.is_row_major());
    }
}
