//! `plan_kernel`'s choice on one fusion of each strategy, and that the printed plan lists
//! the guard that took it. The emitted code of each strategy is checked against the
//! interpreter by the other files here; this file pins which strategy a fusion gets, so a
//! change of priority among the guards shows up as a failing case, not as slower code.

use crate::codegen::plan::{KernelPlan, LoopUnits, PlanOptions, Strategy, plan_kernel};
use crate::ir::Op;

const OPTIONS: PlanOptions = PlanOptions {
    vector_loops: true,
    vector_registers: true,
    block_math: true,
};

/// The plan of the entry root fusion of `text` under `options`.
fn plan_of(text: &str, options: PlanOptions) -> KernelPlan {
    let m = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let entry = m.computation(m.entry);
    let fusion = entry.root_instr();
    assert!(matches!(fusion.op, Op::Fusion { .. }), "{text}");
    plan_kernel(&m, entry, fusion, options).unwrap()
}

/// The module: a fusion of `kind` computing `root` from `params`, with `body` lines and
/// `extra` computations (reducers).
fn module(extra: &str, params: &[&str], body: &str, root: &str, kind: &str) -> String {
    let mut fused = String::new();
    let mut entry = String::new();
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        fused.push_str(&format!("  p{i} = {p} parameter({i})\n"));
        entry.push_str(&format!("  a{i} = {p} parameter({i})\n"));
        args.push(format!("a{i}"));
    }
    let result = root.split(' ').next().unwrap();
    format!(
        "HloModule m\n\n{extra}\nfused {{\n{fused}{body}  ROOT r = {root}\n}}\n\nENTRY main {{\n{entry}  ROOT f = {result} fusion({}), kind={kind}, calls=fused\n}}\n",
        args.join(", ")
    )
}

const ADD_F32: &str =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";

fn taken(plan: &KernelPlan) -> Vec<&'static str> {
    plan.guards
        .iter()
        .filter(|g| g.taken)
        .map(|g| g.what)
        .collect()
}

#[test]
fn elementwise_f32_gets_a_vector_loop() {
    let text = module(
        "",
        &["f32[64,256]{1,0}", "f32[64,256]{1,0}"],
        "",
        "f32[64,256]{1,0} add(p0, p1)",
        "kLoop",
    );
    let plan = plan_of(&text, OPTIONS);
    let Strategy::Loop(l) = &plan.strategy else {
        panic!("{}", plan.write_for_test());
    };
    assert_eq!(l.units, LoopUnits::Elements);
    assert!(l.vector.is_some(), "{}", plan.write_for_test());
    assert_eq!(plan.work_units, 64);
    assert_eq!(plan.unit_elements(), Some(256));
    // Without vector loops the same fusion is a scalar loop.
    let scalar = plan_of(
        &text,
        PlanOptions {
            vector_loops: false,
            vector_registers: false,
            ..OPTIONS
        },
    );
    assert!(matches!(&scalar.strategy, Strategy::Loop(l) if l.vector.is_none()));
}

#[test]
fn root_update_of_a_parameter_is_in_place() {
    let text = module(
        "",
        &["f32[16,32]{1,0}", "f32[4,32]{1,0}", "s32[]"],
        "  z = s32[] constant(0)\n",
        "f32[16,32]{1,0} dynamic-update-slice(p0, p1, p2, z)",
        "kLoop",
    );
    let plan = plan_of(&text, OPTIONS);
    let Strategy::InPlaceDynamicUpdateSlice { update, vector } = &plan.strategy else {
        panic!("{}", plan.write_for_test());
    };
    assert_eq!(update.shape.dims, vec![4, 32]);
    assert_eq!(plan.work_units, 4, "one unit per row of the update");
    assert_eq!(
        taken(&plan),
        vec!["in-place dynamic-update-slice", "vector update"]
    );
    assert!(vector.is_some(), "{}", plan.write_for_test());
    // A column-major update of a row-major buffer is not contiguous along the vector.
    let text = module(
        "",
        &["f32[16,32]{1,0}", "f32[4,32]{0,1}", "s32[]"],
        "  z = s32[] constant(0)\n",
        "f32[16,32]{1,0} dynamic-update-slice(p0, p1, p2, z)",
        "kLoop",
    );
    let plan = plan_of(&text, OPTIONS);
    assert!(
        matches!(
            &plan.strategy,
            Strategy::InPlaceDynamicUpdateSlice { vector: None, .. }
        ),
        "{}",
        plan.write_for_test()
    );
}

#[test]
fn reduce_keeping_the_minor_dimension_is_a_column_reduction() {
    let text = module(
        ADD_F32,
        &["f32[512,128]{1,0}"],
        "  z = f32[] constant(0)\n",
        "f32[128]{0} reduce(p0, z), dimensions={0}, to_apply=add",
        "kInput",
    );
    let plan = plan_of(&text, OPTIONS);
    assert!(
        matches!(plan.strategy, Strategy::ColumnReduce(_)),
        "{}",
        plan.write_for_test()
    );
    // No vector registers: no column emitter.
    let scalar = plan_of(
        &text,
        PlanOptions {
            vector_loops: false,
            vector_registers: false,
            ..OPTIONS
        },
    );
    assert!(!matches!(scalar.strategy, Strategy::ColumnReduce(_)));
}

#[test]
fn transpose_is_tiled_with_in_register_transposes() {
    let text = module(
        "",
        &["f32[96,64]{1,0}"],
        "",
        "f32[64,96]{1,0} transpose(p0), dimensions={1,0}",
        "kLoop",
    );
    let plan = plan_of(&text, OPTIONS);
    let Strategy::Tiled { transpose, .. } = &plan.strategy else {
        panic!("{}", plan.write_for_test());
    };
    assert!(transpose.is_some(), "{}", plan.write_for_test());
    // An s32 transpose has no block form: scalar tiles.
    let int = plan_of(&text.replace("f32", "s32"), OPTIONS);
    assert!(
        matches!(
            int.strategy,
            Strategy::Tiled {
                transpose: None,
                ..
            }
        ),
        "{}",
        int.write_for_test()
    );
}

#[test]
fn softmax_rows_reduce_once_per_row() {
    let text = module(
        ADD_F32,
        &["f32[32,1000]{1,0}"],
        "  z = f32[] constant(0)\n  e = f32[32,1000]{1,0} exponential(p0)\n  s = f32[32]{0} reduce(e, z), dimensions={1}, to_apply=add\n  b = f32[32,1000]{1,0} broadcast(s), dimensions={0}\n",
        "f32[32,1000]{1,0} divide(e, b)",
        "kLoop",
    );
    let plan = plan_of(&text, OPTIONS);
    let Strategy::Loop(l) = &plan.strategy else {
        panic!("{}", plan.write_for_test());
    };
    assert_eq!(l.units, LoopUnits::Rows, "{}", plan.write_for_test());
    assert_eq!(plan.work_units, 32);
    assert!(taken(&plan).contains(&"row loops (whole rows)"), "{plan:?}");
    assert!(
        plan.guards
            .iter()
            .any(|g| g.what == "tiled loops" && !g.taken),
        "{plan:?}"
    );
}

impl KernelPlan {
    /// The printed plan, for assertion messages.
    fn write_for_test(&self) -> String {
        format!("{self:?}")
    }
}
