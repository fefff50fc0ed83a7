//! Runtime tests on small HLO modules without fusions: every library thunk and control-flow
//! thunk against the reference interpreter, on the simplest plan
//! ([`Plan::one_buffer_per_value`], where every alias is a copy) with no kernels.

use super::buffer_plan::Plan;
use super::*;
use crate::codegen::{CodegenOptions, compile_kernels};
use crate::compiler::thunk_emitter::emit_executable;
use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::evaluate;
use crate::front::hlo_text::parse_module;
use crate::io::arguments::{bind_arguments, entry_parameters};

/// `hlo` parsed, verified and built on the simplest plan with its kernels compiled.
pub(super) fn build(hlo: &str) -> (Module, Executable) {
    let module = parse_module(hlo, "test.hlo").expect("parses").module;
    crate::ir::verifier::verify(&module).expect("verifies");
    let plan = Plan::one_buffer_per_value(&module);
    let kernels = compile_kernels(&module, &CodegenOptions::default()).expect("no kernels");
    let exe = emit_executable(
        module.clone(),
        BufferAssignment::default(),
        plan,
        kernels,
        BufferMode::Plain,
    )
    .expect("builds");
    (module, exe)
}

/// Runs `hlo` compiled and on the interpreter (random inputs from `seed`) and requires
/// equal leaves within `tol` (exact for integers). Runs the executable twice: buffers are
/// reused across runs.
pub(super) fn check_with(hlo: &str, seed: u64, tol: Tolerance) -> String {
    let module = parse_module(hlo, "test.hlo").expect("parses").module;
    check_args(hlo, &random_args(&module, seed), tol)
}

/// [`check_with`] on the given arguments.
pub(super) fn check_args(hlo: &str, args: &[Literal], tol: Tolerance) -> String {
    let (module, mut exe) = build(hlo);
    assert_matches_interpreter(&module, &mut exe, args, tol);
    exe.thunk_sequence_text()
}

/// Runs `exe` (built from `module`) on `args` twice (buffers are reused across runs) and
/// requires the interpreter's leaves within `tol` (exact for integers).
pub(super) fn assert_matches_interpreter(
    module: &Module,
    exe: &mut Executable,
    args: &[Literal],
    tol: Tolerance,
) {
    let args = args.to_vec();
    let want = evaluate(module, &args, &Default::default()).expect("interpreter runs");
    for _ in 0..2 {
        let got = exe.execute(&args).expect("executes");
        let (g, w) = (got.leaves(), want.leaves());
        assert_eq!(g.len(), w.len());
        for (a, e) in g.iter().zip(&w) {
            let t = if a.element_type().is_float() || a.element_type().is_complex() {
                tol
            } else {
                Tolerance::EXACT
            };
            let c = compare_arrays(a, e, t).expect("comparable");
            assert!(c.ok(), "{c}\nthunks:\n{}", exe.thunk_sequence_text());
        }
    }
}

/// Random arguments for `module`'s entry parameters from `seed`.
pub(super) fn random_args(module: &Module, seed: u64) -> Vec<Literal> {
    bind_arguments(&entry_parameters(module), Vec::new(), seed)
        .expect("random inputs")
        .literals
}

pub(super) fn check(hlo: &str) -> String {
    check_with(hlo, 7, Tolerance::for_type(crate::ir::PrimitiveType::F32))
}

#[test]
fn lone_dot() {
    let text = check(
        "HloModule m
ENTRY main {
  a = f32[5,7]{1,0} parameter(0)
  b = f32[7,3]{1,0} parameter(1)
  ROOT d = f32[5,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    assert!(text.contains("dot d (gemm"), "{text}");
}

#[test]
fn dot_transposed_operands_batch_dims_and_column_major_output() {
    // lhs contracts its dim 1 of [b, k, m]; rhs is column-major; output column-major.
    check(
        "HloModule m
ENTRY main {
  a = f32[2,6,4]{2,1,0} parameter(0)
  b = f32[2,6,5]{0,1,2} parameter(1)
  ROOT d = f32[2,4,5]{0,1,2} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
}",
    );
}

#[test]
fn big_dot_split_into_row_blocks() {
    // 130 x 140 x 120 (2.2M multiply-adds, above `PARALLEL_FLOPS`) take the threaded
    // path: on two threads, row blocks of 80 and 50.
    check(
        "HloModule m
ENTRY main {
  a = f32[130,140]{1,0} parameter(0)
  b = f32[140,120]{1,0} parameter(1)
  ROOT d = f32[130,120]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
}

#[test]
fn big_dot_blocks_run_as_column_tiles_any_thread_takes() {
    // 1024 x 4 x 768 on two threads: row blocks of 512 x 768 (1.5 MiB) exceed the 1 MiB
    // tile budget, so each is two tiles (512 and 256 columns) in one rayon pool; the
    // output is column-major, so a tile starts `column * 1024` elements in.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        check(
            "HloModule m
ENTRY main {
  a = f32[1024,4]{1,0} parameter(0)
  b = f32[4,768]{1,0} parameter(1)
  ROOT d = f32[1024,768]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        )
    });
}

#[test]
fn big_dot_split_into_column_blocks_with_strided_operands() {
    // n > m (and 2.2M multiply-adds): column blocks; the rhs is read transposed and the
    // output is column-major.
    check(
        "HloModule m
ENTRY main {
  a = f32[40,140]{0,1} parameter(0)
  b = f32[400,140]{1,0} parameter(1)
  ROOT d = f32[40,400]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}",
    );
}

#[test]
fn many_small_batched_dots_run_batch_parallel() {
    // 64 batches of 32 x 32 x 32 (2.1M multiply-adds in all) through a transposed-heads
    // layout.
    check(
        "HloModule m
ENTRY main {
  a = f32[8,8,32,32]{3,1,2,0} parameter(0)
  b = f32[8,8,32,32]{3,2,1,0} parameter(1)
  ROOT d = f32[8,8,32,32]{3,1,2,0} dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
}",
    );
}

/// A kOutput fusion `relu(dot(a, b) + bias)` of `lhs` x `rhs` into `out` (batch dims
/// `batch`), bias broadcast along the last dimension of size `n`.
fn output_fusion_hlo(lhs: &str, rhs: &str, out: &str, n: i64, batch: &str) -> String {
    let rank = out.matches(',').count() + 1;
    let layout: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
    let (layout, last) = (layout.join(","), rank - 1);
    let dn = if batch.is_empty() {
        format!(
            "lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{}}}",
            last,
            last - 1
        )
    } else {
        format!(
            "lhs_batch_dims={{{batch}}}, lhs_contracting_dims={{{last}}}, rhs_batch_dims={{{batch}}}, rhs_contracting_dims={}",
            format_args!("{{{}}}", last - 1)
        )
    };
    format!(
        "HloModule m

fused {{
  p0 = f32[{lhs}]{{{layout}}} parameter(0)
  p1 = f32[{rhs}]{{{layout}}} parameter(1)
  p2 = f32[{n}]{{0}} parameter(2)
  d = f32[{out}]{{{layout}}} dot(p0, p1), {dn}
  b = f32[{out}]{{{layout}}} broadcast(p2), dimensions={{{last}}}
  s = f32[{out}]{{{layout}}} add(d, b)
  z = f32[] constant(0)
  zb = f32[{out}]{{{layout}}} broadcast(z), dimensions={{}}
  ROOT r = f32[{out}]{{{layout}}} maximum(s, zb)
}}

ENTRY main {{
  a0 = f32[{lhs}]{{{layout}}} parameter(0)
  a1 = f32[{rhs}]{{{layout}}} parameter(1)
  a2 = f32[{n}]{{0}} parameter(2)
  ROOT f = f32[{out}]{{{layout}}} fusion(a0, a1, a2), kind=kOutput, calls=fused
}}
"
    )
}

#[test]
fn output_fusion_epilogues_run_on_each_threads_output_tiles() {
    // On two threads: a GEMM split by rows (130 x 140 x 120), one split by columns with
    // rows that are one unit (the epilogue then runs after it), 64 batch-parallel GEMMs, a
    // serial one, and two whose blocks exceed the 1 MiB tile budget, so each thread
    // computes its block in column tiles cut at the epilogue's 512-column units: 1024 x
    // 1024 splits by rows (512-row blocks in 512-column tiles), 256 x 2560 by columns
    // (blocks of 1536 and 1024 columns, starting on a unit, in 1024-column tiles). Each
    // against the interpreter, which catches elements the epilogue missed (they would hold
    // the bare dot), took twice (the bias twice) or took before the GEMM had finished them.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (lhs, rhs, out, n, batch, tiles) in [
        (
            "130,140",
            "140,120",
            "130,120",
            120,
            "",
            "tiles of whole rows;",
        ),
        (
            "40,140",
            "140,400",
            "40,400",
            400,
            "",
            "tiles of whole rows;",
        ),
        (
            "64,32,32",
            "64,32,32",
            "64,32,32",
            32,
            "0",
            "tiles of whole rows;",
        ),
        ("9,7", "7,5", "9,5", 5, "", "tiles of whole rows;"),
        (
            "1024,2",
            "2,1024",
            "1024,1024",
            1024,
            "",
            "512-column units",
        ),
        ("256,4", "4,2560", "256,2560", 2560, "", "512-column units"),
    ] {
        let hlo = output_fusion_hlo(lhs, rhs, out, n, batch);
        let text = pool.install(|| check(&hlo));
        assert!(
            text.contains("as its thread's GEMM finishes it"),
            "{out}: {text}"
        );
        assert!(text.contains(tiles), "{out}: {text}");
    }
}

#[test]
fn output_fusion_epilogue_through_a_bitcast_runs_as_vectors() {
    // GPT-2's layers: the dot computes `[B·T,D]` and the epilogue (bias, tanh GELU,
    // residual) reads it as `[B,T,D]` through a bitcast. The epilogue reads the GEMM's
    // tiles as f32x4 vectors through the bitcast; against the interpreter on two threads,
    // with column tiles (2 x 256 rows by 1030 columns: a row tail that is not a whole vector).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (b, t, k, n) in [(2, 256, 64, 1030), (3, 5, 7, 9)] {
        let m = b * t;
        let hlo = format!(
            "HloModule m

fused {{
  p0 = f32[{m},{k}]{{1,0}} parameter(0)
  p1 = f32[{k},{n}]{{1,0}} parameter(1)
  p2 = f32[{n}]{{0}} parameter(2)
  p3 = f32[{b},{t},{n}]{{2,1,0}} parameter(3)
  d = f32[{m},{n}]{{1,0}} dot(p0, p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  r = f32[{b},{t},{n}]{{2,1,0}} bitcast(d)
  bb = f32[{b},{t},{n}]{{2,1,0}} broadcast(p2), dimensions={{2}}
  s = f32[{b},{t},{n}]{{2,1,0}} add(r, bb)
  g = f32[{b},{t},{n}]{{2,1,0}} tanh(s)
  ROOT o = f32[{b},{t},{n}]{{2,1,0}} add(g, p3)
}}

ENTRY main {{
  a0 = f32[{m},{k}]{{1,0}} parameter(0)
  a1 = f32[{k},{n}]{{1,0}} parameter(1)
  a2 = f32[{n}]{{0}} parameter(2)
  a3 = f32[{b},{t},{n}]{{2,1,0}} parameter(3)
  ROOT f = f32[{b},{t},{n}]{{2,1,0}} fusion(a0, a1, a2, a3), kind=kOutput, calls=fused
}}
"
        );
        let text = pool.install(|| check(&hlo));
        assert!(text.contains("epilogue tiles, f32x4 vectors"), "{text}");
    }
}

#[test]
fn dot_with_two_contracting_dims_that_do_not_collapse() {
    // Contracting dims {2,0} of lhs are not adjacent in memory: the operand is packed.
    check(
        "HloModule m
ENTRY main {
  a = f32[3,4,5]{2,1,0} parameter(0)
  b = f32[5,3,2]{2,1,0} parameter(1)
  ROOT d = f32[4,2]{1,0} dot(a, b), lhs_contracting_dims={2,0}, rhs_contracting_dims={0,1}
}",
    );
}

#[test]
fn dot_bf16_to_f32_and_f64() {
    check_with(
        "HloModule m
ENTRY main {
  a = bf16[4,8]{1,0} parameter(0)
  b = bf16[8,3]{1,0} parameter(1)
  ROOT d = f32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        1,
        Tolerance::for_type(crate::ir::PrimitiveType::BF16),
    );
    check_with(
        "HloModule m
ENTRY main {
  a = f64[4,8]{1,0} parameter(0)
  b = f64[3,8]{1,0} parameter(1)
  ROOT d = f64[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}",
        2,
        Tolerance::for_type(crate::ir::PrimitiveType::F64),
    );
}

#[test]
fn integer_dot_runs_the_native_loop() {
    let text = check(
        "HloModule m
ENTRY main {
  a = s32[3,4]{1,0} parameter(0)
  b = s32[4,2]{1,0} parameter(1)
  ROOT d = s32[3,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    assert!(
        text.contains("library dot d (native loop, s32 x s32 -> s32)"),
        "{text}"
    );
}

#[test]
fn conv_nhwc_hwio_padded_strided() {
    check(
        "HloModule m
ENTRY main {
  x = f32[2,7,6,3]{3,2,1,0} parameter(0)
  k = f32[3,3,3,4]{3,2,1,0} parameter(1)
  ROOT c = f32[2,4,3,4]{3,2,1,0} convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}",
    );
}

#[test]
fn conv_feature_groups_dilations_reversal() {
    check(
        "HloModule m
ENTRY main {
  x = f32[1,4,9,8]{3,2,1,0} parameter(0)
  k = f32[6,2,2,3]{3,2,1,0} parameter(1)
  ROOT c = f32[1,6,18,8]{3,2,1,0} convolution(x, k), window={size=2x3 pad=1_1x2_2 lhs_dilate=2x1 rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01, feature_group_count=2
}",
    );
}

#[test]
fn conv_batch_groups() {
    // The weight-gradient form: batch_group_count = input features.
    check(
        "HloModule m
ENTRY main {
  x = f32[4,5,5,2]{3,2,1,0} parameter(0)
  k = f32[4,3,3,2]{3,2,1,0} parameter(1)
  ROOT c = f32[3,3,1,2]{3,2,1,0} convolution(x, k), window={size=3x3}, dim_labels=f01b_i01o->01bf, batch_group_count=2
}",
    );
}

#[test]
fn sort_runs_natively_with_its_compiled_comparator() {
    let text = check(
        "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[3,10]{1,0} parameter(0)
  ROOT s = f32[3,10]{1,0} sort(x), dimensions={1}, to_apply=lt
}",
    );
    assert!(
        text.contains("library sort s (native, comparator lt compiled, 1 operand)"),
        "{text}"
    );
}

#[test]
fn while_loop_with_swapped_state() {
    // The body swaps the two arrays every step: the state copies must be staged.
    let text = check(
        "HloModule m
cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  a = f32[4] get-tuple-element(p), index=1
  b = f32[4] get-tuple-element(p), index=2
  ab = f32[4] add(a, b)
  ROOT t = (s32[], f32[4], f32[4]) tuple(j, b, ab)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(z, x, y)
  ROOT w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
}",
    );
    assert!(text.contains("while w"), "{text}");
    assert!(
        text.contains("library add j (reference implementation)"),
        "{text}"
    );
}

#[test]
fn conditional_and_call() {
    check(
        "HloModule m
b0 {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
}
b1 {
  p = f32[3] parameter(0)
  ROOT e = f32[3] exponential(p)
}
f {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  ROOT m = f32[3] multiply(p, q)
}
ENTRY main {
  x = f32[3] parameter(0)
  i = s32[] constant(7)
  c = f32[3] conditional(i, x, x), branch_computations={b0, b1}
  ROOT r = f32[3] call(c, x), to_apply=f
}",
    );
}

#[test]
fn copy_changes_layout() {
    let text = check(
        "HloModule m
ENTRY main {
  x = f32[3,5]{1,0} parameter(0)
  ROOT c = f32[3,5]{0,1} copy(x)
}",
    );
    assert!(text.contains("copy c (relayout)"), "{text}");
}

#[test]
fn fusion_without_kernel_is_an_error_naming_it() {
    let module = parse_module(
        "HloModule m
fc {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fc
}",
        "test.hlo",
    )
    .unwrap()
    .module;
    let plan = Plan::one_buffer_per_value(&module);
    let kernels = compile_kernels(&module, &CodegenOptions::default()).unwrap();
    if kernels
        .get(module.entry, module.entry_computation().root)
        .is_some()
    {
        return; // codegen made one: nothing to check here
    }
    let e = emit_executable(
        module,
        BufferAssignment::default(),
        plan,
        kernels,
        BufferMode::Plain,
    )
    .err()
    .expect("must fail");
    assert!(e.message.contains("main/f: no kernel"), "{e}");
}

#[test]
fn a_run_on_the_pool_returns_its_result_and_a_panic_ends_the_helpers_spinning() {
    // The other pool threads look for work while the run is on (`keep_stealing`): the
    // split work they steal still adds up, and a job that panics releases them (the
    // scope waits for them, so a missed release would hang here).
    use rayon::prelude::*;
    let squares = |n: u64| execute::on_pool(|| (0..n).into_par_iter().map(|i| i * i).sum::<u64>());
    assert_eq!(
        squares(100_000),
        (0..100_000u64).map(|i| i * i).sum::<u64>()
    );
    let failed = std::panic::catch_unwind(|| execute::on_pool(|| -> u64 { panic!("job fails") }));
    assert!(failed.is_err());
    assert_eq!(squares(1000), (0..1000u64).map(|i| i * i).sum::<u64>());
}

// ---------------------------------------------------------------------------------------
// Result leaves computed straight into the literals a run returns.

/// `hlo` through the whole compiler (fusion, buffer assignment), checked against the
/// interpreter on three runs with different arguments; returns the executable.
fn compiled_matches_interpreter(hlo: &str) -> Executable {
    let module = parse_module(hlo, "test.hlo").expect("parses").module;
    let mut exe = crate::compiler::compile(module.clone(), &Default::default())
        .expect("compiles")
        .executable;
    let mut earlier = Vec::new();
    for seed in 1..4 {
        let args = random_args(&module, seed);
        let want = evaluate(&module, &args, &Default::default()).expect("interpreter runs");
        let got = exe.execute(&args).expect("executes");
        assert_eq!(got, want, "seed {seed}");
        earlier.push((got, want));
    }
    // A later run never writes into an earlier run's results.
    for (got, want) in &earlier {
        assert_eq!(got, want);
    }
    exe
}

#[test]
fn a_result_with_an_allocation_of_its_own_is_computed_in_the_returned_literal() {
    let exe = compiled_matches_interpreter(
        "HloModule m
ENTRY main {
  p = f32[256] parameter(0)
  one = f32[] constant(1)
  b = f32[256] broadcast(one), dimensions={}
  ROOT add = f32[256] add(p, b)
}",
    );
    let (_, root) = &exe.result[0];
    assert!(exe.fresh_result[0]);
    // The executable's own memory for the result stays as it was built (zero): the run
    // wrote the returned literal instead, with no copy out.
    let own = exe.memory[root.slice.allocation]
        .as_ref()
        .expect("the result allocation is the executable's");
    // SAFETY: the buffer holds `size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(own.ptr(), own.size()) };
    assert!(bytes.iter().all(|&b| b == 0));
}

#[test]
fn repeated_constant_parameter_and_pred_results_come_back_right() {
    // The same value twice, a constant, a parameter and a pred: leaves that share an
    // allocation, are filled when the executable is built, belong to the caller, or need
    // their bytes checked are copied out; whatever copies the compiler added, every leaf
    // is the interpreter's.
    compiled_matches_interpreter(
        "HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  c = f32[2] constant({1, 2})
  n = f32[8] negate(p)
  z = f32[8] constant({0, 0, 0, 0, 0, 0, 0, 0})
  lt = pred[8] compare(p, z), direction=LT
  ROOT t = (f32[8], f32[8], f32[2], f32[8], pred[8]) tuple(n, n, c, p, lt)
}",
    );
}

#[test]
fn a_while_loop_result_is_computed_in_the_returned_literal() {
    compiled_matches_interpreter(
        "HloModule m
cond {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[16] add(x, x)
  ROOT t = (s32[], f32[16]) tuple(i2, x2)
}
ENTRY main {
  p = f32[16] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[16]) tuple(zero, p)
  ROOT w = (s32[], f32[16]) while(init), condition=cond, body=body
}",
    );
}

#[test]
fn only_programs_with_work_to_split_hand_their_run_to_the_pool() {
    let small = crate::compiler::compile(
        parse_module(
            "HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}",
            "small.hlo",
        )
        .expect("parses")
        .module,
        &Default::default(),
    )
    .expect("compiles")
    .executable;
    assert!(!small.splits, "{}", small.thunk_sequence_text());
    let gemm = crate::compiler::compile(
        parse_module(
            "HloModule m
ENTRY main {
  a = f32[64,64] parameter(0)
  b = f32[64,64] parameter(1)
  ROOT d = f32[64,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
            "gemm.hlo",
        )
        .expect("parses")
        .module,
        &Default::default(),
    )
    .expect("compiles")
    .executable;
    assert!(gemm.splits, "{}", gemm.thunk_sequence_text());
}
