use super::*;

#[test]
fn sizes_are_checked() {
    assert_eq!(checked_size(&[2, 3], PrimitiveType::F32).unwrap(), (6, 24));
    assert_eq!(checked_size(&[], PrimitiveType::F64).unwrap(), (1, 8));
    assert_eq!(checked_size(&[0, 5], PrimitiveType::S8).unwrap(), (0, 0));
    assert!(checked_size(&[-1], PrimitiveType::F32).is_err());
    assert!(checked_size(&[i64::MAX, i64::MAX], PrimitiveType::F32).is_err());
    let e = checked_size(&[1 << 40, 8], PrimitiveType::F32).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted);
    assert!(checked_size(&[1; 65], PrimitiveType::F32).is_err());
}

#[test]
fn every_stored_type_round_trips_its_code() {
    // Every PJRT element type but the token, the narrow formats included.
    for code in (1..=31).filter(|&c| c != PJRT_BUFFER_TYPE_TOKEN) {
        let t = element_type(code).unwrap();
        assert_eq!(buffer_type(t).unwrap(), code);
    }
    assert_eq!(
        element_type(PJRT_BUFFER_TYPE_TOKEN).unwrap_err().code,
        Code::InvalidArgument
    );
    assert_eq!(element_type(99).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn strided_gather_transposes() {
    // A 2x3 f32 array stored column-major: strides (4, 8).
    let col_major: [f32; 6] = [0., 3., 1., 4., 2., 5.];
    // SAFETY: the strides stay inside the array.
    let bytes =
        unsafe { gather_strided(col_major.as_ptr().cast(), &[2, 3], &[4, 8], 4, 24).unwrap() };
    let data = array_data_from_bytes(PrimitiveType::F32, &bytes).unwrap();
    assert_eq!(data, ArrayData::F32(vec![0., 1., 2., 3., 4., 5.]));
}

#[test]
fn pred_bytes_become_bools() {
    let d = array_data_from_bytes(PrimitiveType::Pred, &[0, 1, 2]).unwrap();
    assert_eq!(d, ArrayData::Pred(vec![false, true, true]));
}
