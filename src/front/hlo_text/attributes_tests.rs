//! Tests of each attribute syntax, read and written back. Inputs are taken from the real
//! `testdata` dumps and from XLA's documented syntax (xla-cpu.md §1.7).

use super::super::ParseError;
use super::super::lexer::Source;
use super::*;
use crate::ir::{PrimitiveType, Shape};

/// Runs a value reader over `text`, requiring it to read everything.
fn read<T>(text: &str, f: impl FnOnce(&mut Cursor<'_>) -> PResult<T>) -> Result<T, String> {
    let src = Source::new(text, "a");
    let mut cur = Cursor::new(&src);
    let out = f(&mut cur).map_err(|e: ParseError| e.to_string())?;
    if !cur.at_end() {
        return Err(format!("trailing text at byte {}", cur.pos));
    }
    Ok(out)
}

#[test]
fn windows_read_and_print() {
    // From cnn, maxpool and conv_dilated in testdata.
    for text in [
        "{size=3x3 pad=1_1x1_1}",
        "{size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}",
        "{size=3x3 stride=2x1 pad=1_2x0_1 lhs_dilate=1x2 rhs_dilate=2x1}",
        "{size=12 pad=11_0}",
        "{size=2x2 pad=-1_0x0_0 rhs_reversal=1x0}",
    ] {
        let w = read(text, parse_window).unwrap();
        assert_eq!(window_string(&w), text);
    }
    let w = read("{rhs_dilate=2x1 size=3x3 stride=2x1}", parse_window).unwrap();
    assert_eq!(w.dimensions[0].size, 3);
    assert_eq!(w.dimensions[0].stride, 2);
    assert_eq!(w.dimensions[0].window_dilation, 2);
    assert_eq!(w.dimensions[1].base_dilation, 1);
    assert_eq!(window_string(&w), "{size=3x3 stride=2x1 rhs_dilate=2x1}");
    assert_eq!(read("{}", parse_window).unwrap(), Window::default());
}

#[test]
fn window_errors() {
    assert_eq!(
        read("{size=3x3 stride=2}", parse_window).unwrap_err(),
        "a:1:20: window `stride` has 1 dimensions but `size` has 2"
    );
    assert_eq!(
        read("{size=3 bogus=1}", parse_window).unwrap_err(),
        "a:1:9: unknown window field `bogus`"
    );
    assert_eq!(
        read("{stride=1}", parse_window).unwrap_err(),
        "a:1:11: window needs `size=`"
    );
}

#[test]
fn dim_labels_read_and_print() {
    let d = read("b01f_01io->b01f", parse_dim_labels).unwrap();
    assert_eq!((d.input_batch_dimension, d.input_feature_dimension), (0, 3));
    assert_eq!(d.input_spatial_dimensions, vec![1, 2]);
    assert_eq!(
        (
            d.kernel_input_feature_dimension,
            d.kernel_output_feature_dimension
        ),
        (2, 3)
    );
    assert_eq!(d.kernel_spatial_dimensions, vec![0, 1]);
    assert_eq!(d.output_spatial_dimensions, vec![1, 2]);
    // Permuted and 1-D forms from testdata/conv_nchw.
    for text in [
        "b01f_01io->b01f",
        "bf01_oi01->bf01",
        "bf0_oi0->bf0",
        "bf01_01io->b01f",
        "b10f_10io->b10f",
    ] {
        assert_eq!(
            dim_labels_string(&read(text, parse_dim_labels).unwrap()),
            text
        );
    }
    assert_eq!(
        read("b01f_01i->b01f", parse_dim_labels).unwrap_err(),
        "a:1:1: bad dim_labels `b01f_01i->b01f`: the three parts must have the same length (at least 2)"
    );
    assert_eq!(
        read("bff_0io->b0f", parse_dim_labels).unwrap_err(),
        "a:1:1: bad dim_labels `bff_0io->b0f`: `f` appears twice"
    );
}

#[test]
fn padding_and_slices() {
    // From testdata/pad_concat_reverse: negative and interior padding.
    let p = read("1_-1_1x-2_2_0", parse_padding).unwrap();
    assert_eq!(
        p[0],
        PaddingDimension {
            low: 1,
            high: -1,
            interior: 1
        }
    );
    assert_eq!(
        p[1],
        PaddingDimension {
            low: -2,
            high: 2,
            interior: 0
        }
    );
    assert_eq!(padding_string(&p), "1_-1_1x-2_2_0");
    assert_eq!(
        padding_string(&read("0_0x0_1", parse_padding).unwrap()),
        "0_0x0_1"
    );
    assert_eq!(
        read("0_0_-1", parse_padding).unwrap_err(),
        "a:1:5: interior padding must not be negative"
    );

    let s = read("{[0:1], [1:9:2]}", parse_slice).unwrap();
    assert_eq!(
        s[1],
        SliceDimension {
            start: 1,
            limit: 9,
            stride: 2
        }
    );
    assert_eq!(slice_string(&s), "{[0:1:1], [1:9:2]}");
    assert_eq!(
        slice_string(&read("{[0:1], [1:2]}", parse_slice).unwrap()),
        "{[0:1], [1:2]}"
    );
}

#[test]
fn lists_and_precision() {
    assert_eq!(read("{}", parse_int_list).unwrap(), Vec::<i64>::new());
    assert_eq!(read("{1, -2,3}", parse_int_list).unwrap(), vec![1, -2, 3]);
    assert_eq!(
        read("{0,-1}", parse_index_list).unwrap_err(),
        "a:1:1: expected a dimension number, found -1"
    );
    let p = read("{highest,DEFAULT}", parse_precision_list).unwrap();
    assert_eq!(p, vec![Precision::Highest, Precision::Default]);
    assert_eq!(list_string(&p), "{highest,default}");
}

#[test]
fn metadata_keeps_unknown_fields() {
    let text = r#"{op_type="add" op_name="jit(f)/add" source_file="a \"b\".py" source_line=3 deduplicated_name="x" preserve_layout=true stack_frame_id=6}"#;
    let m = read(text, parse_metadata).unwrap();
    assert_eq!(m.op_name.as_deref(), Some("jit(f)/add"));
    assert_eq!(m.source_file.as_deref(), Some("a \"b\".py"));
    assert_eq!(m.source_line, Some(3));
    assert_eq!(m.stack_frame_id, Some(6));
    assert_eq!(
        m.other,
        vec![
            ("deduplicated_name".into(), "\"x\"".into()),
            ("preserve_layout".into(), "true".into())
        ]
    );
    assert_eq!(metadata_string(&m), text);
}

#[test]
fn aliasing_tables() {
    let a = read(
        "{ {0}: (1, {}, may-alias), {1, 0}: (0, {2}, must-alias) }",
        parse_input_output_alias,
    )
    .unwrap();
    assert_eq!(
        a[1],
        InputOutputAlias {
            output_index: vec![1, 0],
            parameter: 0,
            parameter_index: vec![2],
            must_alias: true
        }
    );
    assert_eq!(
        input_output_alias_string(&a),
        "{ {0}: (1, {}, may-alias), {1,0}: (0, {2}, must-alias) }"
    );
    // Without the kind, may-alias is meant.
    assert!(!read("{ {0}: (0, {}) }", parse_input_output_alias).unwrap()[0].must_alias);

    let d = read("{ (0, {}), (2, {1}) }", parse_buffer_donor).unwrap();
    assert_eq!(
        d[1],
        BufferDonor {
            parameter: 2,
            parameter_index: vec![1]
        }
    );
    assert_eq!(buffer_donor_string(&d), "{ (0, {}), (2, {1}) }");
    assert!(read("{ (0) }", parse_buffer_donor).is_err());

    let o = read("{{0}: (0, {})}", parse_output_operand_aliasing).unwrap();
    assert_eq!(
        o,
        vec![OutputOperandAlias {
            output: vec![0],
            operand: 0,
            operand_index: vec![]
        }]
    );
    assert_eq!(output_operand_aliasing_string(&o), "{{0}: (0, {})}");
}

#[test]
fn program_shapes() {
    let text = "{(f32[8,16]{1,0}, s32[], pred[2]{0}, f32[], f32[], /*index=5*/u8[1]{0})->(f32[8,10]{0,1}, s32[])}";
    let p = read(text, parse_program_shape).unwrap();
    assert_eq!(p.parameters.len(), 6);
    assert_eq!(p.parameters[1], Shape::scalar(PrimitiveType::S32));
    assert_eq!(program_shape_string(&p), text);
}

#[test]
fn quoting_escapes() {
    assert_eq!(quote("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
}
