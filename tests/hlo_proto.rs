//! `front::hlo_proto` over the testdata models after every xlac pass (fusions, layouts,
//! schedule): the bytes decode back (prost) into a proto that says what the module says,
//! checked field by field against the module, not against the writer's own helpers.

use std::collections::{HashMap, HashSet};

use prost::Message;
use xlac::compiler::{CompileOptions, optimize};
use xlac::front::hlo_proto::messages::*;
use xlac::front::hlo_proto::serialize_with_config;
use xlac::ir::{Module, Op, Shape};

/// `xla.PrimitiveType` numbers by HLO spelling, from `xla/xla_data.proto`.
const TYPE_NUMBERS: [(&str, i32); 32] = [
    ("pred", 1),
    ("s1", 30),
    ("s2", 26),
    ("s4", 21),
    ("s8", 2),
    ("s16", 3),
    ("s32", 4),
    ("s64", 5),
    ("u1", 31),
    ("u2", 27),
    ("u4", 22),
    ("u8", 6),
    ("u16", 7),
    ("u32", 8),
    ("u64", 9),
    ("f16", 10),
    ("f32", 11),
    ("bf16", 16),
    ("f64", 12),
    ("f8e5m2", 19),
    ("f8e4m3", 28),
    ("f8e4m3fn", 20),
    ("f8e4m3b11fnuz", 23),
    ("f8e3m4", 29),
    ("f8e5m2fnuz", 24),
    ("f8e4m3fnuz", 25),
    ("f4e2m1fn", 32),
    ("f8e8m0fnu", 33),
    ("f6e3m2fn", 35),
    ("f6e2m3fn", 36),
    ("c64", 15),
    ("c128", 18),
];

fn check_shape(p: &ShapeProto, s: &Shape, at: &str) {
    match s {
        Shape::Array(a) => {
            let number = TYPE_NUMBERS
                .iter()
                .find(|(n, _)| *n == a.element_type.name())
                .map(|&(_, v)| v);
            assert_eq!(Some(p.element_type), number, "{at}: element type");
            assert_eq!(p.dimensions, a.dims, "{at}: dims");
            let m2m: Vec<i64> = a.layout.minor_to_major.iter().map(|&d| d as i64).collect();
            assert_eq!(
                p.layout.as_ref().map(|l| &l.minor_to_major),
                Some(&m2m),
                "{at}: layout"
            );
            assert!(p.tuple_shapes.is_empty(), "{at}");
        }
        Shape::Tuple(t) => {
            assert_eq!(p.element_type, 13, "{at}: TUPLE");
            assert!(p.layout.is_none(), "{at}: a tuple has no layout");
            assert_eq!(p.tuple_shapes.len(), t.len(), "{at}");
            for (i, (pe, e)) in p.tuple_shapes.iter().zip(t).enumerate() {
                check_shape(pe, e, &format!("{at}.{i}"));
            }
        }
        Shape::Token => assert_eq!(p.element_type, 17, "{at}: TOKEN"),
        Shape::Opaque => assert_eq!(p.element_type, 14, "{at}: OPAQUE_TYPE"),
    }
}

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&d| d as i64).collect()
}

/// Literal element count in whichever field holds it.
fn literal_len(l: &LiteralProto) -> usize {
    [
        l.preds.len(),
        l.s8s.len(),
        l.u8s.len(),
        l.s16s.len() / 2,
        l.u16s.len() / 2,
        l.f16s.len() / 2,
        l.bf16s.len() / 2,
        l.s32s.len(),
        l.s64s.len(),
        l.u32s.len(),
        l.u64s.len(),
        l.f32s.len(),
        l.f64s.len(),
        l.c64s.len() / 2,
        l.c128s.len() / 2,
    ]
    .into_iter()
    .max()
    .unwrap_or(0)
}

/// Decodes `bytes` and checks every computation and instruction against `module`.
fn check(module: &Module, bytes: &[u8]) {
    let decoded = HloModuleProtoWithConfig::decode(bytes).expect("decodes");
    let hlo = decoded.hlo_module.as_ref().expect("hlo_module");
    let config = decoded.config.as_ref().expect("config");
    assert_eq!(hlo.name, module.name);
    assert_eq!(hlo.computations.len(), module.order.len());
    let comp_names: HashMap<i64, &str> = hlo
        .computations
        .iter()
        .map(|c| (c.id, c.name.as_str()))
        .collect();
    assert_eq!(
        comp_names.len(),
        hlo.computations.len(),
        "computation ids unique"
    );
    assert_eq!(
        comp_names[&hlo.entry_computation_id],
        module.entry_computation().name
    );
    let entry_params = module.entry_computation().parameters().len();
    let layout = config
        .entry_computation_layout
        .as_ref()
        .expect("entry layout");
    assert_eq!(layout.parameters.len(), entry_params);
    let host = hlo.host_program_shape.as_ref().expect("host program shape");
    assert_eq!(host.parameters.len(), entry_params);
    let fused: HashSet<String> = module
        .order
        .iter()
        .flat_map(|&c| module.computations[c].iter())
        .filter_map(|(_, i)| match i.op {
            Op::Fusion { calls, .. } => Some(module.computations[calls].name.clone()),
            _ => None,
        })
        .collect();
    let mut seen = HashSet::new();
    let repeated: HashSet<String> = module
        .order
        .iter()
        .flat_map(|&c| module.computations[c].iter())
        .filter(|(_, i)| !seen.insert(i.name.clone()))
        .map(|(_, i)| i.name.clone())
        .collect();
    let mut all_ids = HashSet::new();
    let mut all_names = HashSet::new();
    for (pc, &c) in hlo.computations.iter().zip(&module.order) {
        let comp = &module.computations[c];
        assert_eq!(pc.name, comp.name);
        assert_eq!(
            pc.is_fusion_computation,
            fused.contains(&comp.name),
            "{}",
            comp.name
        );
        assert_eq!(pc.instructions.len(), comp.order.len(), "{}", comp.name);
        let position: HashMap<i64, usize> = pc
            .instructions
            .iter()
            .enumerate()
            .map(|(k, i)| (i.id, k))
            .collect();
        let root = comp
            .order
            .iter()
            .position(|&i| i == comp.root)
            .expect("live root");
        assert_eq!(pc.root_id, pc.instructions[root].id, "{}: root", comp.name);
        for (pi, (_, instr)) in pc.instructions.iter().zip(comp.iter()) {
            let at = format!("{}/%{}", comp.name, instr.name);
            assert!(
                all_ids.insert(pi.id),
                "{at}: id {} unique in the module",
                pi.id
            );
            assert!(
                all_names.insert(pi.name.clone()),
                "{at}: name unique in the module"
            );
            if repeated.contains(&instr.name) && pi.name != instr.name {
                assert!(
                    pi.name.starts_with(&format!("{}.", instr.name)),
                    "{at}: {}",
                    pi.name
                );
            } else {
                assert_eq!(pi.name, instr.name);
            }
            assert_eq!(pi.opcode, instr.opcode().name(), "{at}");
            check_shape(pi.shape.as_ref().expect("shape"), &instr.shape, &at);
            // Operands by position in the computation (names may have been suffixed).
            let operands: Vec<usize> = pi.operand_ids.iter().map(|o| position[o]).collect();
            let want: Vec<usize> = instr
                .operands
                .iter()
                .map(|&o| {
                    comp.order
                        .iter()
                        .position(|&i| i == o)
                        .expect("live operand")
                })
                .collect();
            assert_eq!(operands, want, "{at}: operands");
            let called: Vec<&str> = pi
                .called_computation_ids
                .iter()
                .map(|c| comp_names[c])
                .collect();
            let mut want: Vec<&str> = instr
                .op
                .called_computations()
                .iter()
                .map(|&c| module.computations[c].name.as_str())
                .collect();
            if matches!(instr.op, Op::While { .. }) {
                want.reverse(); // XLA: body, then condition
            }
            assert_eq!(called, want, "{at}: called computations");
            match &instr.op {
                Op::Parameter { number } => assert_eq!(pi.parameter_number, *number as i64, "{at}"),
                Op::Constant { literal } => {
                    let l = pi.literal.as_ref().expect("literal");
                    if let Some(a) = literal.as_array() {
                        assert_eq!(literal_len(l), a.shape.element_count(), "{at}: elements");
                        check_shape(l.shape.as_ref().expect("literal shape"), &instr.shape, &at);
                    }
                }
                Op::Broadcast { dimensions }
                | Op::Transpose { dimensions }
                | Op::Reverse { dimensions }
                | Op::Reduce { dimensions, .. } => {
                    assert_eq!(pi.dimensions, i64s(dimensions), "{at}")
                }
                Op::Iota { dimension } | Op::Concatenate { dimension } => {
                    assert_eq!(pi.dimensions, vec![*dimension as i64], "{at}")
                }
                Op::Sort {
                    dimension,
                    is_stable,
                    ..
                } => {
                    assert_eq!(pi.dimensions, vec![*dimension as i64], "{at}");
                    assert_eq!(pi.is_stable, *is_stable, "{at}");
                }
                Op::Fusion { kind, .. } => assert_eq!(pi.fusion_kind, kind.name(), "{at}"),
                Op::Compare {
                    direction,
                    comparison_type,
                } => {
                    assert_eq!(pi.comparison_direction, direction.name(), "{at}");
                    assert_eq!(
                        pi.comparison_type,
                        comparison_type
                            .map(|t| t.name().to_string())
                            .unwrap_or_default(),
                        "{at}"
                    );
                }
                Op::GetTupleElement { index } => assert_eq!(pi.tuple_index, *index as i64, "{at}"),
                Op::Slice { slice } => {
                    let got: Vec<(i64, i64, i64)> = pi
                        .slice_dimensions
                        .iter()
                        .map(|s| (s.start, s.limit, s.stride))
                        .collect();
                    let want: Vec<(i64, i64, i64)> =
                        slice.iter().map(|s| (s.start, s.limit, s.stride)).collect();
                    assert_eq!(got, want, "{at}");
                }
                Op::DynamicSlice { sizes } => assert_eq!(&pi.dynamic_slice_sizes, sizes, "{at}"),
                Op::Dot {
                    dimension_numbers: d,
                    ..
                } => {
                    let p = pi.dot_dimension_numbers.as_ref().expect("dot dims");
                    assert_eq!(
                        p.lhs_contracting_dimensions,
                        i64s(&d.lhs_contracting_dimensions),
                        "{at}"
                    );
                    assert_eq!(
                        p.rhs_contracting_dimensions,
                        i64s(&d.rhs_contracting_dimensions),
                        "{at}"
                    );
                    assert_eq!(
                        p.lhs_batch_dimensions,
                        i64s(&d.lhs_batch_dimensions),
                        "{at}"
                    );
                    assert_eq!(
                        p.rhs_batch_dimensions,
                        i64s(&d.rhs_batch_dimensions),
                        "{at}"
                    );
                    let pc = pi.precision_config.as_ref().expect("precision");
                    assert_eq!(pc.operand_precision.len(), 2, "{at}");
                }
                Op::Convolution {
                    window,
                    dimension_numbers: d,
                    feature_group_count,
                    ..
                } => {
                    let w = pi.window.as_ref().expect("window");
                    let sizes: Vec<i64> = w.dimensions.iter().map(|d| d.size).collect();
                    let want: Vec<i64> = window.dimensions.iter().map(|d| d.size).collect();
                    assert_eq!(sizes, want, "{at}");
                    let p = pi
                        .convolution_dimension_numbers
                        .as_ref()
                        .expect("conv dims");
                    assert_eq!(
                        p.input_feature_dimension, d.input_feature_dimension as i64,
                        "{at}"
                    );
                    assert_eq!(
                        p.kernel_spatial_dimensions,
                        i64s(&d.kernel_spatial_dimensions),
                        "{at}"
                    );
                    assert_eq!(
                        p.output_spatial_dimensions,
                        i64s(&d.output_spatial_dimensions),
                        "{at}"
                    );
                    assert_eq!(pi.feature_group_count, *feature_group_count, "{at}");
                }
                Op::ReduceWindow { window, .. } => {
                    let w = pi.window.as_ref().expect("window");
                    let got: Vec<(i64, i64, i64, i64)> = w
                        .dimensions
                        .iter()
                        .map(|d| (d.size, d.stride, d.padding_low, d.padding_high))
                        .collect();
                    let want: Vec<(i64, i64, i64, i64)> = window
                        .dimensions
                        .iter()
                        .map(|d| (d.size, d.stride, d.padding_low, d.padding_high))
                        .collect();
                    assert_eq!(got, want, "{at}");
                }
                Op::Gather {
                    dimension_numbers: g,
                    slice_sizes,
                    ..
                } => {
                    let p = pi.gather_dimension_numbers.as_ref().expect("gather dims");
                    assert_eq!(p.offset_dims, i64s(&g.offset_dims), "{at}");
                    assert_eq!(p.start_index_map, i64s(&g.start_index_map), "{at}");
                    assert_eq!(p.index_vector_dim, g.index_vector_dim as i64, "{at}");
                    assert_eq!(&pi.gather_slice_sizes, slice_sizes, "{at}");
                }
                Op::Scatter {
                    dimension_numbers: s,
                    ..
                } => {
                    let p = pi.scatter_dimension_numbers.as_ref().expect("scatter dims");
                    assert_eq!(p.update_window_dims, i64s(&s.update_window_dims), "{at}");
                    assert_eq!(
                        p.scatter_dims_to_operand_dims,
                        i64s(&s.scatter_dims_to_operand_dims),
                        "{at}"
                    );
                }
                Op::Pad { padding } => {
                    let p = pi.padding_config.as_ref().expect("padding");
                    let got: Vec<(i64, i64, i64)> = p
                        .dimensions
                        .iter()
                        .map(|d| (d.edge_padding_low, d.edge_padding_high, d.interior_padding))
                        .collect();
                    let want: Vec<(i64, i64, i64)> = padding
                        .iter()
                        .map(|d| (d.low, d.high, d.interior))
                        .collect();
                    assert_eq!(got, want, "{at}");
                }
                Op::CustomCall(cc) => {
                    assert_eq!(pi.custom_call_target, cc.target, "{at}");
                    assert!(pi.custom_call_api_version >= 1, "{at}");
                }
                Op::TopK { k, largest } => {
                    assert_eq!((pi.k, pi.largest), (*k, *largest), "{at}");
                }
                _ => {}
            }
            assert!(
                pi.precision_config.is_none()
                    || matches!(
                        instr.op,
                        Op::Dot { .. } | Op::Convolution { .. } | Op::CustomCall(_)
                    ),
                "{at}: XLA rejects a precision config here"
            );
        }
    }
    if module.config.is_scheduled {
        let schedule = hlo
            .schedule
            .as_ref()
            .expect("a scheduled module has a schedule");
        for pc in hlo.computations.iter().filter(|c| !c.is_fusion_computation) {
            let ids: Vec<i64> = pc.instructions.iter().map(|i| i.id).collect();
            assert_eq!(
                schedule.sequences[&pc.id].instruction_ids, ids,
                "{}",
                pc.name
            );
        }
    }
}

#[test]
fn every_testdata_model_after_optimization_round_trips() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for dir in xlac::testdata::model_dirs() {
        let path = dir.join("model.hlo");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let parsed =
            xlac::front::hlo_text::parse_module(&text, &path.display().to_string()).unwrap();
        let Ok(optimized) = optimize(parsed.module, &CompileOptions::default()) else {
            continue;
        };
        match serialize_with_config(&optimized.module, None) {
            Ok(bytes) => {
                check(&optimized.module, &bytes);
                checked += 1;
            }
            Err(e) => refused.push(format!("{}: {e}", dir.display())),
        }
    }
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(checked >= 40, "only {checked} models checked");
}
