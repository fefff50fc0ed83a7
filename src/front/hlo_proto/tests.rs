use prost::Message;

use super::messages::HloModuleProtoWithConfig;
use super::*;
use crate::front::hlo_text::parse_module;

const LOOP: &str = r#"HloModule m, is_scheduled=true, entry_computation_layout={(f32[2,3]{0,1})->(s32[], f32[2,3]{1,0})}

%cond (c: (s32[], f32[2,3])) -> pred[] {
  %c = (s32[], f32[2,3]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (b: (s32[], f32[2,3])) -> (s32[], f32[2,3]) {
  %b = (s32[], f32[2,3]{1,0}) parameter(0)
  %j = s32[] get-tuple-element(%b), index=0
  %one = s32[] constant(1)
  %k = s32[] add(%j, %one)
  %x = f32[2,3]{1,0} get-tuple-element(%b), index=1
  %y = f32[2,3]{1,0} exponential(%x)
  ROOT %t = (s32[], f32[2,3]{1,0}) tuple(%k, %y)
}

ENTRY %main (p: f32[2,3]) -> (s32[], f32[2,3]) {
  %p = f32[2,3]{0,1} parameter(0)
  %q = f32[2,3]{1,0} copy(%p)
  %zero = s32[] constant(0)
  %init = (s32[], f32[2,3]{1,0}) tuple(%zero, %q)
  ROOT %w = (s32[], f32[2,3]{1,0}) while(%init), condition=%cond, body=%body
}
"#;

fn decoded(text: &str) -> HloModuleProtoWithConfig {
    let module = parse_module(text, "t.hlo").unwrap().module;
    let bytes = serialize_with_config(&module, None).unwrap();
    HloModuleProtoWithConfig::decode(bytes.as_slice()).unwrap()
}

#[test]
fn a_while_loop_keeps_body_then_condition_and_layouts() {
    let p = decoded(LOOP);
    let hlo = p.hlo_module.unwrap();
    let names: Vec<&str> = hlo.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["cond", "body", "main"]);
    let main = &hlo.computations[2];
    assert_eq!(hlo.entry_computation_id, main.id);
    let w = main.instructions.last().unwrap();
    assert_eq!(w.opcode, "while");
    assert_eq!(
        w.called_computation_ids,
        [hlo.computations[1].id, hlo.computations[0].id]
    );
    assert_eq!(main.root_id, w.id);
    // Unique ids: the computation in the high half, the position in the low half.
    assert_eq!(w.id, (main.id << 32) | 4);
    assert_eq!(w.operand_ids, [main.instructions[3].id]);
    let param = &main.instructions[0];
    assert_eq!(
        param
            .shape
            .as_ref()
            .unwrap()
            .layout
            .as_ref()
            .unwrap()
            .minor_to_major,
        [0, 1]
    );
    let lt = hlo.computations[0].instructions.last().unwrap();
    assert_eq!(
        (lt.opcode.as_str(), lt.comparison_direction.as_str()),
        ("compare", "LT")
    );
    let n = &hlo.computations[0].instructions[2];
    assert_eq!(n.literal.as_ref().unwrap().s32s, [4]);
    // The config's entry layout is the module's own.
    let layout = p.config.unwrap().entry_computation_layout.unwrap();
    assert_eq!(
        layout.parameters[0].layout.as_ref().unwrap().minor_to_major,
        [0, 1]
    );
    let schedule = hlo.schedule.unwrap();
    assert_eq!(schedule.sequences.len(), 3);
}

#[test]
fn literals_are_written_in_physical_order() {
    let p = decoded(
        "HloModule m\n\nENTRY %e () -> f32[2,2] {\n  ROOT %c = f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })\n}\n",
    );
    let c = &p.hlo_module.unwrap().computations[0].instructions[0];
    assert_eq!(c.literal.as_ref().unwrap().f32s, [1.0, 3.0, 2.0, 4.0]);
}

#[test]
fn what_the_proto_cannot_say_is_an_error_naming_the_instruction() {
    let text = "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  ROOT %cc = f32[4]{0} custom-call(%p), custom_call_target=\"f\", schedule=SCHEDULE_SOMETIMES\n}\n";
    let module = parse_module(text, "t.hlo").unwrap().module;
    let e = serialize_with_config(&module, None).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("%cc (custom-call)"), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[test]
fn stack_frames_name_their_caller_as_the_proto_counts() {
    // Text (XLA's printer): a frame's caller is printed as its id plus one, 1 meaning none.
    // Proto: the caller's id, 0 meaning none. Frame 2's caller is frame 1.
    let p = decoded(
        r#"HloModule m

FileNames
1 "f.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=1 parent_frame_id=2}

ENTRY %main () -> s32[] {
  ROOT %c = s32[] constant(1), metadata={op_name="c" stack_frame_id=2}
}
"#,
    );
    let frames = p
        .hlo_module
        .unwrap()
        .stack_frame_index
        .unwrap()
        .stack_frames;
    let parents: Vec<i32> = frames.iter().map(|f| f.parent_frame_id).collect();
    assert_eq!(parents, [0, 1]);
}

#[test]
fn an_all_to_all_from_stablehlo_keeps_its_dimension_and_groups() {
    // StableHLO's `split_count` (the groups' size) has no proto field: it is implied.
    let p = decoded(
        "HloModule m\n\nENTRY %e (p: f32[8,2]) -> f32[8,2] {\n  %p = f32[8,2]{1,0} parameter(0)\n  ROOT %a = f32[8,2]{1,0} all-to-all(%p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}, split_count=8\n}\n",
    );
    let a = &p.hlo_module.unwrap().computations[0].instructions[1];
    assert_eq!(a.opcode, "all-to-all");
    assert_eq!(a.dimensions, [0]);
    assert_eq!(a.replica_groups[0].replica_ids, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(a.channel_id, 1);
}

/// A computation appended after its caller (as the partitioner appends the reducers it
/// makes) is written before it: XLA's reader resolves called computations against the ones
/// read before.
#[test]
fn callees_are_written_before_their_callers() {
    let mut module = parse_module(LOOP, "t.hlo").unwrap().module;
    module.order.reverse();
    let bytes = serialize_with_config(&module, None).unwrap();
    let hlo = HloModuleProtoWithConfig::decode(bytes.as_slice())
        .unwrap()
        .hlo_module
        .unwrap();
    let names: Vec<&str> = hlo.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"main"), "{names:?}");
    let mut seen = std::collections::HashSet::new();
    for c in &hlo.computations {
        for i in &c.instructions {
            for id in &i.called_computation_ids {
                assert!(
                    seen.contains(id),
                    "{} calls {id} before it is written: {names:?}",
                    c.name
                );
            }
        }
        seen.insert(c.id);
    }
}
