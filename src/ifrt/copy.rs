//! Box copies between row-major arrays: the one data movement every IFRT operation is made
//! of (a shard cut from a host array, a slice of a source shard into a destination shard,
//! a shard into the assembled host array). The minor dimension moves as one contiguous run.

use super::IndexDomain;
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape};

/// A zero array of `src`'s element type and `dims` (row-major).
pub(crate) fn empty_like(src: &ArrayLiteral, dims: &[i64]) -> ArrayLiteral {
    ArrayLiteral::zeros(ArrayShape::new(src.shape.element_type, dims))
}

/// Copies box `src_box` of `src` into box `dst_box` of `dst` (equal extents; both arrays
/// row-major and of one element type). Returns false, copying nothing, if the types
/// differ or a box does not fit.
pub(crate) fn copy_box(
    dst: &mut ArrayLiteral,
    dst_box: &IndexDomain,
    src: &ArrayLiteral,
    src_box: &IndexDomain,
) -> bool {
    let extent = src_box.dims();
    let fits = |dims: &[i64], b: &IndexDomain| {
        b.0.len() == dims.len()
            && b.0
                .iter()
                .zip(dims)
                .all(|(r, &d)| 0 <= r.0 && r.0 <= r.1 && r.1 <= d)
    };
    if extent != dst_box.dims()
        || !fits(&dst.shape.dims, dst_box)
        || !fits(&src.shape.dims, src_box)
    {
        return false;
    }
    let (dd, sd) = (dst.shape.dims.clone(), src.shape.dims.clone());
    let (ds, ss) = (dst_box.start(), src_box.start());
    macro_rules! go {
        ($($v:ident),*) => {
            match (&mut dst.data, &src.data) {
                $( (ArrayData::$v(d), ArrayData::$v(s)) => {
                    copy_runs(d, &dd, &ds, s, &sd, &ss, &extent);
                    true
                } )*
                _ => false,
            }
        };
    }
    go!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128, Raw
    )
}

fn offset(idx: &[i64], dims: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

/// The copy itself: one `copy_from_slice` per run of the minor dimension.
fn copy_runs<T: Copy>(
    d: &mut [T],
    dd: &[i64],
    ds: &[i64],
    s: &[T],
    sd: &[i64],
    ss: &[i64],
    extent: &[i64],
) {
    let rank = extent.len();
    if extent.contains(&0) {
        return;
    }
    if rank == 0 {
        d[0] = s[0];
        return;
    }
    let run = extent[rank - 1] as usize;
    let rows: i64 = extent[..rank - 1].iter().product();
    let mut idx = vec![0i64; rank];
    for _ in 0..rows {
        let di: Vec<i64> = idx.iter().zip(ds).map(|(i, o)| i + o).collect();
        let si: Vec<i64> = idx.iter().zip(ss).map(|(i, o)| i + o).collect();
        let (a, b) = (offset(&di, dd), offset(&si, sd));
        d[a..a + run].copy_from_slice(&s[b..b + run]);
        for k in (0..rank - 1).rev() {
            idx[k] += 1;
            if idx[k] < extent[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_a_box_between_arrays() {
        let src = ArrayLiteral::from_vec(&[3, 4], (0..12).map(|x| x as f32).collect());
        let mut dst = empty_like(&src, &[2, 2]);
        assert!(copy_box(
            &mut dst,
            &IndexDomain(vec![(0, 2), (0, 2)]),
            &src,
            &IndexDomain(vec![(1, 3), (2, 4)])
        ));
        assert_eq!(dst.values::<f32>().unwrap(), &[6.0, 7.0, 10.0, 11.0]);
        // A box that does not fit copies nothing.
        assert!(!copy_box(
            &mut dst,
            &IndexDomain(vec![(1, 3), (0, 2)]),
            &src,
            &IndexDomain(vec![(0, 2), (0, 2)])
        ));
    }
}
