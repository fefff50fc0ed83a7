//! Hand-computed expectations for the data-movement handlers (row-major values).

use half::bf16;

use super::*;
use crate::ir::{Layout, NativeType, PrimitiveType};

fn lit<T: NativeType>(dims: &[i64], values: Vec<T>) -> Literal {
    Literal::Array(ArrayLiteral::from_vec(dims, values))
}

fn values<T: NativeType>(l: &Literal) -> Vec<T> {
    l.as_array()
        .and_then(|a| a.values::<T>())
        .expect("array of the expected type")
        .to_vec()
}

fn dims(l: &Literal) -> Vec<i64> {
    l.as_array().unwrap().shape.dims.clone()
}

fn iota6() -> Literal {
    lit(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])
}

#[test]
fn iota_in_several_types() {
    let s = Shape::array(PrimitiveType::S32, &[2, 3]);
    assert_eq!(values::<i32>(&iota(&s, 1).unwrap()), vec![0, 1, 2, 0, 1, 2]);
    assert_eq!(values::<i32>(&iota(&s, 0).unwrap()), vec![0, 0, 0, 1, 1, 1]);
    let s = Shape::array(PrimitiveType::BF16, &[3]);
    let want: Vec<bf16> = [0.0, 1.0, 2.0].iter().map(|&v| bf16::from_f32(v)).collect();
    assert_eq!(values::<bf16>(&iota(&s, 0).unwrap()), want);
    // 257 is not a bf16: it lies halfway between 256 and 258 and rounds to even 256.
    let s = Shape::array(PrimitiveType::BF16, &[258]);
    assert_eq!(
        values::<bf16>(&iota(&s, 0).unwrap())[257],
        bf16::from_f32(256.0)
    );
    let s = Shape::array(PrimitiveType::Pred, &[3]);
    assert_eq!(
        values::<bool>(&iota(&s, 0).unwrap()),
        vec![false, true, true]
    );
    assert!(iota(&s, 1).is_err());
}

#[test]
fn broadcast_into_each_dimension() {
    let x = lit(&[2], vec![7i32, 8]);
    let s = Shape::array(PrimitiveType::S32, &[2, 3]);
    assert_eq!(
        values::<i32>(&broadcast(&s, &x, &[0]).unwrap()),
        vec![7, 7, 7, 8, 8, 8]
    );
    let x = lit(&[3], vec![1i32, 2, 3]);
    assert_eq!(
        values::<i32>(&broadcast(&s, &x, &[1]).unwrap()),
        vec![1, 2, 3, 1, 2, 3]
    );
    let x = Literal::Array(ArrayLiteral::scalar(4.5f32));
    let s = Shape::array(PrimitiveType::F32, &[2, 2]);
    assert_eq!(
        values::<f32>(&broadcast(&s, &x, &[]).unwrap()),
        vec![4.5; 4]
    );
    // A transposing broadcast: operand [2,3] to result [3,2] with dims {1,0}.
    let s = Shape::array(PrimitiveType::S32, &[3, 2]);
    assert_eq!(
        values::<i32>(&broadcast(&s, &iota6(), &[1, 0]).unwrap()),
        vec![1, 4, 2, 5, 3, 6]
    );
}

#[test]
fn reshape_keeps_row_major_order() {
    let s = Shape::array(PrimitiveType::S32, &[3, 2]);
    let out = reshape(&s, &iota6()).unwrap();
    assert_eq!(
        (dims(&out), values::<i32>(&out)),
        (vec![3, 2], vec![1, 2, 3, 4, 5, 6])
    );
    assert!(reshape(&Shape::array(PrimitiveType::S32, &[4]), &iota6()).is_err());
}

#[test]
fn transpose_2d_and_3d() {
    let s = Shape::array(PrimitiveType::S32, &[3, 2]);
    assert_eq!(
        values::<i32>(&transpose(&s, &iota6(), &[1, 0]).unwrap()),
        vec![1, 4, 2, 5, 3, 6]
    );
    // x[a,b,c] = 4a + 2b + c with dims [2,2,2]; result dims {2,0,1}: out[c,a,b].
    let x = lit(&[2, 2, 2], (0..8).collect::<Vec<i32>>());
    let s = Shape::array(PrimitiveType::S32, &[2, 2, 2]);
    // out[c,a,b] in row-major: c=0: a,b -> 0,2,4,6; c=1: 1,3,5,7.
    assert_eq!(
        values::<i32>(&transpose(&s, &x, &[2, 0, 1]).unwrap()),
        vec![0, 2, 4, 6, 1, 3, 5, 7]
    );
}

#[test]
fn reverse_dimensions() {
    assert_eq!(
        values::<i32>(&reverse(&iota6(), &[1]).unwrap()),
        vec![3, 2, 1, 6, 5, 4]
    );
    assert_eq!(
        values::<i32>(&reverse(&iota6(), &[0]).unwrap()),
        vec![4, 5, 6, 1, 2, 3]
    );
    assert_eq!(
        values::<i32>(&reverse(&iota6(), &[0, 1]).unwrap()),
        vec![6, 5, 4, 3, 2, 1]
    );
}

#[test]
fn concatenate_along_each_dimension() {
    let a = iota6();
    let b = lit(&[1, 3], vec![7i32, 8, 9]);
    let s = Shape::array(PrimitiveType::S32, &[3, 3]);
    let out = concatenate(&s, &[&a, &b], 0).unwrap();
    assert_eq!(values::<i32>(&out), vec![1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let c = lit(&[2, 1], vec![10i32, 20]);
    let s = Shape::array(PrimitiveType::S32, &[2, 4]);
    let out = concatenate(&s, &[&a, &c], 1).unwrap();
    assert_eq!(values::<i32>(&out), vec![1, 2, 3, 10, 4, 5, 6, 20]);
}

#[test]
fn slice_with_strides() {
    let x = lit(&[10], (0..10).collect::<Vec<i32>>());
    let s = Shape::array(PrimitiveType::S32, &[3]);
    let spec = [SliceDimension {
        start: 1,
        limit: 8,
        stride: 3,
    }];
    assert_eq!(values::<i32>(&slice(&s, &x, &spec).unwrap()), vec![1, 4, 7]);
    let s = Shape::array(PrimitiveType::S32, &[1, 2]);
    let spec = [
        SliceDimension {
            start: 1,
            limit: 2,
            stride: 1,
        },
        SliceDimension {
            start: 0,
            limit: 3,
            stride: 2,
        },
    ];
    assert_eq!(
        values::<i32>(&slice(&s, &iota6(), &spec).unwrap()),
        vec![4, 6]
    );
}

#[test]
fn dynamic_slice_clamps_starts() {
    let x = lit(&[5], vec![0i32, 1, 2, 3, 4]);
    let s = Shape::array(PrimitiveType::S32, &[2]);
    let start = |v: i64| Literal::Array(ArrayLiteral::scalar(v));
    assert_eq!(
        values::<i32>(&dynamic_slice(&s, &x, &[&start(1)], &[2]).unwrap()),
        vec![1, 2]
    );
    // 4 would run past the end: clamped to 5 - 2 = 3.
    assert_eq!(
        values::<i32>(&dynamic_slice(&s, &x, &[&start(4)], &[2]).unwrap()),
        vec![3, 4]
    );
    assert_eq!(
        values::<i32>(&dynamic_slice(&s, &x, &[&start(-2)], &[2]).unwrap()),
        vec![0, 1]
    );
    let u8_start = Literal::Array(ArrayLiteral::scalar(200u8));
    assert_eq!(
        values::<i32>(&dynamic_slice(&s, &x, &[&u8_start], &[2]).unwrap()),
        vec![3, 4]
    );
    // 2-D: rows from 1, columns from 1 of [[1,2,3],[4,5,6]] with sizes [1,2].
    let s = Shape::array(PrimitiveType::S32, &[1, 2]);
    let one = Literal::Array(ArrayLiteral::scalar(1i32));
    assert_eq!(
        values::<i32>(&dynamic_slice(&s, &iota6(), &[&one, &one], &[1, 2]).unwrap()),
        vec![5, 6]
    );
}

#[test]
fn dynamic_update_slice_clamps_starts() {
    let x = lit(&[5], vec![0i32; 5]);
    let u = lit(&[2], vec![1i32, 2]);
    let start = Literal::Array(ArrayLiteral::scalar(4i64));
    assert_eq!(
        values::<i32>(&dynamic_update_slice(&x, &u, &[&start]).unwrap()),
        vec![0, 0, 0, 1, 2]
    );
    let u = lit(&[1, 2], vec![8i32, 9]);
    let zero = Literal::Array(ArrayLiteral::scalar(0i32));
    let one = Literal::Array(ArrayLiteral::scalar(1i32));
    let out = dynamic_update_slice(&iota6(), &u, &[&one, &zero]).unwrap();
    assert_eq!(values::<i32>(&out), vec![1, 2, 3, 8, 9, 6]);
}

#[test]
fn pad_edges_interior_and_negative() {
    let x = lit(&[3], vec![1i32, 2, 3]);
    let zero = Literal::Array(ArrayLiteral::scalar(0i32));
    let cfg = |low, high, interior| {
        vec![PaddingDimension {
            low,
            high,
            interior,
        }]
    };
    // 1 + 3 + 2 interior + 2 = 8
    let s = Shape::array(PrimitiveType::S32, &[8]);
    assert_eq!(
        values::<i32>(&pad(&s, &x, &zero, &cfg(1, 2, 1)).unwrap()),
        vec![0, 1, 0, 2, 0, 3, 0, 0]
    );
    // Interior first ([1,0,2,0,3]), then low -1 removes the leading 1: 4 elements.
    let s = Shape::array(PrimitiveType::S32, &[4]);
    assert_eq!(
        values::<i32>(&pad(&s, &x, &zero, &cfg(-1, 0, 1)).unwrap()),
        vec![0, 2, 0, 3]
    );
    let s = Shape::array(PrimitiveType::S32, &[1]);
    assert_eq!(
        values::<i32>(&pad(&s, &x, &zero, &cfg(0, -2, 0)).unwrap()),
        vec![1]
    );
    // 2-D: one column of 9 on the right, one row of 9 on top.
    let nine = Literal::Array(ArrayLiteral::scalar(9i32));
    let cfg2 = vec![
        PaddingDimension {
            low: 1,
            high: 0,
            interior: 0,
        },
        PaddingDimension {
            low: 0,
            high: 1,
            interior: 0,
        },
    ];
    let s = Shape::array(PrimitiveType::S32, &[3, 4]);
    let out = pad(&s, &iota6(), &nine, &cfg2).unwrap();
    assert_eq!(
        values::<i32>(&out),
        vec![9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9]
    );
}

#[test]
fn bitcast_reinterprets_the_physical_layout() {
    // Operand f32[2,3]{0,1} is column-major in memory: 1,4,2,5,3,6. Read as f32[3,2]{1,0}
    // those bytes are the rows [1,4], [2,5], [3,6].
    let mut from = crate::ir::ArrayShape::new(PrimitiveType::F32, &[2, 3]);
    from.layout = Layout {
        minor_to_major: vec![0, 1],
        extra: None,
    };
    let to = Shape::array(PrimitiveType::F32, &[3, 2]);
    let x = lit(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = bitcast(&Shape::Array(from), &to, &x).unwrap();
    assert_eq!(values::<f32>(&out), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // Row-major to row-major is a reshape.
    let from = Shape::array(PrimitiveType::F32, &[2, 3]);
    let to = Shape::array(PrimitiveType::F32, &[6]);
    assert_eq!(
        values::<f32>(&bitcast(&from, &to, &x).unwrap()),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
}
