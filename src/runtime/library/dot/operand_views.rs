//! Operands as the `gemm` crate reads them: a view of each operand's rows and columns
//! through strides when its layout lets the dimensions collapse, or a copy in a layout that
//! does (`transposed_view`), and the offset of each batch element.

use super::*;

/// One operand viewed as `[batch..., rows, cols]` with one stride per group.
pub(super) struct View<T> {
    /// Owned data when the operand had to be converted or relaid out.
    pub(super) _owned: Option<Vec<T>>,
    pub(super) ptr: *const T,
    /// Element strides of the batch dimensions (in dnums order).
    pub(super) batch_strides: Vec<isize>,
    /// Stride of the first matrix dimension group (lhs: free, rhs: contracting).
    pub(super) first: isize,
    /// Stride of the second group (lhs: contracting, rhs: free).
    pub(super) second: isize,
}

/// `v` (a `rows x cols` matrix per batch) copied into column-major order (`to_columns`)
/// from dense row-major, or into row-major from dense column-major, when its elements are
/// 4 bytes; any other view is returned as it is. The `gemm` crate packs its lhs into
/// panels of 64 rows by gathering one element of each row per step of the contraction:
/// from a row-major operand that is 64 cache lines a step, and with rows of 4 KiB (1024
/// floats) all of them fall in one L1 set (`g @ W.T` at 128x1024x1024: 1.68 ms against
/// 1.41 untransposed; 1024^3: 13.2 against 10.2). Transposed here in 8 x 8 register
/// blocks instead, the crate's packing is a contiguous copy.
///
/// # Safety
/// `v` must hold `rows x cols` elements per batch at its strides.
pub(super) unsafe fn transposed_view<T: Copy + Default>(
    v: View<T>,
    (rows, cols): (usize, usize),
    batch_dims: &[usize],
    to_columns: bool,
) -> View<T> {
    let row_major = to_columns && v.second == 1 && v.first == cols as isize;
    let column_major = !to_columns && v.first == 1 && v.second == rows as isize;
    if std::mem::size_of::<T>() != 4 || !(row_major || column_major) || rows < 8 || cols < 8 {
        return v;
    }
    let block = rows * cols;
    let batches: usize = batch_dims.iter().product();
    let mut data: Vec<T> = Vec::with_capacity(batches * block);
    for b in 0..batches {
        let offset = batch_offset(b, batch_dims, |d| v.batch_strides[d]);
        // SAFETY: batch `b` of `v` holds `rows x cols` dense elements; `data` has room for
        // `batches` blocks and block `b` is written whole (every element) here.
        unsafe {
            let (src, dst) = (v.ptr.offset(offset), data.as_mut_ptr().add(b * block));
            if row_major {
                // Rows of `cols` are columns of a column-major `cols x rows` block.
                transpose_into_parallel(src, (cols, rows), dst, (rows as isize, 1));
            } else {
                transpose_into_parallel(src, (rows, cols), dst, (cols as isize, 1));
            }
        }
    }
    // SAFETY: every element of every block was written above.
    unsafe { data.set_len(batches * block) };
    let mut batch_strides = vec![0isize; batch_dims.len()];
    let mut stride = block as isize;
    for d in (0..batch_dims.len()).rev() {
        batch_strides[d] = stride;
        stride *= batch_dims[d] as isize;
    }
    View {
        ptr: data.as_ptr(),
        batch_strides,
        first: if row_major { 1 } else { cols as isize },
        second: if row_major { rows as isize } else { 1 },
        _owned: Some(data),
    }
}

/// The element offset of batch `b` (numbered row-major over `batch_dims`), with `stride(d)`
/// the stride of batch dimension `d`.
pub(super) fn batch_offset(
    b: usize,
    batch_dims: &[usize],
    stride: impl Fn(usize) -> isize,
) -> isize {
    let mut rest = b;
    let mut offset = 0isize;
    for (d, &size) in batch_dims.iter().enumerate().rev() {
        offset += (rest % size) as isize * stride(d);
        rest /= size;
    }
    offset
}

/// Dimensions that are neither batch nor contracting, in increasing order (the order
/// they take in the result).
pub(super) fn free_dims(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// The one element stride that walks dimensions `group` as a single flattened (row-major
/// within the group) dimension, if the layout allows it. Dimensions of size 1 do not
/// matter; an empty group (or all size 1) has stride 1.
pub(super) fn group_stride(s: &ArrayShape, group: &[usize]) -> Option<isize> {
    let strides = s.physical_strides();
    let live: Vec<usize> = group.iter().copied().filter(|&d| s.dims[d] != 1).collect();
    for w in live.windows(2) {
        if strides[w[0]] != strides[w[1]] * s.dims[w[1]] as usize {
            return None;
        }
    }
    Some(live.last().map(|&d| strides[d] as isize).unwrap_or(1))
}

/// An operand as `T` elements whose `first` and `second` groups each collapse to a single
/// stride: in place when possible, else converted and/or relaid out into an owned copy
/// with the layout `[batch..., first..., second...]` row-major.
///
/// # Safety
/// `ptr` must hold an array of `shape`.
pub(super) unsafe fn view<T: Compute>(
    ptr: *const u8,
    shape: &ArrayShape,
    batch: &[usize],
    first: &[usize],
    second: &[usize],
) -> View<T> {
    let fits =
        |s: &ArrayShape| group_stride(s, first).is_some() && group_stride(s, second).is_some();
    let mut s = shape.clone();
    let mut owned: Option<Vec<T>> = None;
    if shape.element_type != T::TYPE {
        // SAFETY: the caller's pointer holds the shape.
        owned = Some(unsafe { load::<T>(ptr, shape.element_type, shape.element_count()) });
        s.element_type = T::TYPE;
    }
    if !fits(&s) {
        let order: Vec<usize> = batch.iter().chain(first).chain(second).copied().collect();
        let mut packed = s.clone();
        packed.layout = Layout {
            minor_to_major: order.iter().rev().copied().collect(),
            extra: None,
        };
        let mut data = vec![T::default(); s.element_count()];
        let src = owned
            .as_ref()
            .map(|v| v.as_ptr() as *const u8)
            .unwrap_or(ptr);
        // SAFETY: both buffers hold the shape's elements.
        unsafe { copy_array(src, &s, data.as_mut_ptr() as *mut u8, &packed) };
        owned = Some(data);
        s = packed;
    }
    let strides = s.physical_strides();
    let p = owned
        .as_ref()
        .map(|v| v.as_ptr())
        .unwrap_or(ptr as *const T);
    View {
        ptr: p,
        batch_strides: batch.iter().map(|&d| strides[d] as isize).collect(),
        first: group_stride(&s, first).unwrap_or(1),
        second: group_stride(&s, second).unwrap_or(1),
        _owned: owned,
    }
}
