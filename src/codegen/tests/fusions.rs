//! Whole fusions as the fusion pass makes them: chains with shared operands, reductions as
//! producers (softmax), multi-output loops, array constants, and kOutput dot epilogues.

use super::harness::{check_hlo, check_hlo_close, check_hlo_reduction, check_hlo_reduction_with};
use crate::codegen::KernelArtifacts;

/// The dump texts of the first kernel compiled from HLO `text`.
fn kernel_artifacts(text: &str, block_math: bool) -> KernelArtifacts {
    let module = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let options = crate::codegen::CodegenOptions {
        keep_artifacts: true,
        block_math,
        no_fp_contraction: false,
    };
    let mut set = crate::codegen::compile_kernels(&module, &options).unwrap();
    set.kernels.swap_remove(0).artifacts
}

#[test]
fn softmax_with_reductions_as_producers() {
    let text = "HloModule m

max_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

fused {
  p0 = f32[4,37]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[4]{0} reduce(p0, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[4,37]{1,0} broadcast(mx), dimensions={0}
  d = f32[4,37]{1,0} subtract(p0, mxb)
  e = f32[4,37]{1,0} exponential(d)
  s = f32[4]{0} reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[4,37]{1,0} broadcast(s), dimensions={0}
  ROOT r = f32[4,37]{1,0} divide(e, sb)
}

ENTRY main {
  a0 = f32[4,37]{1,0} parameter(0)
  ROOT f = f32[4,37]{1,0} fusion(a0), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo_reduction(text, 4000 + seed);
    }
}

#[test]
fn multi_output_loop_fusion() {
    let text = "HloModule m

fused {
  p0 = f32[5,7]{1,0} parameter(0)
  p1 = f32[5,7]{0,1} parameter(1)
  a = f32[5,7]{1,0} add(p0, p1)
  t = f32[5,7]{1,0} tanh(a)
  c = s32[5,7]{0,1} convert(a)
  ROOT r = (f32[5,7]{1,0}, s32[5,7]{0,1}, f32[5,7]{1,0}) tuple(t, c, a)
}

ENTRY main {
  a0 = f32[5,7]{1,0} parameter(0)
  a1 = f32[5,7]{0,1} parameter(1)
  ROOT f = (f32[5,7]{1,0}, s32[5,7]{0,1}, f32[5,7]{1,0}) fusion(a0, a1), kind=kLoop, calls=fused
}
";
    check_hlo(text, 4100);
}

#[test]
fn array_constants_are_read_from_memory() {
    let text = "HloModule m

fused {
  p0 = f32[2,3]{1,0} parameter(0)
  c = f32[2,3]{0,1} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  k = s8[3]{0} constant({-1, 0, 7})
  kc = f32[3]{0} convert(k)
  kb = f32[2,3]{1,0} broadcast(kc), dimensions={1}
  m = f32[2,3]{1,0} multiply(p0, c)
  ROOT r = f32[2,3]{1,0} add(m, kb)
}

ENTRY main {
  a0 = f32[2,3]{1,0} parameter(0)
  ROOT f = f32[2,3]{1,0} fusion(a0), kind=kLoop, calls=fused
}
";
    check_hlo(text, 4200);
}

#[test]
fn output_fusion_reads_the_dot_from_its_buffer() {
    let text = "HloModule m

fused {
  p0 = f32[3,4]{1,0} parameter(0)
  p1 = f32[4,5]{1,0} parameter(1)
  p2 = f32[5]{0} parameter(2)
  d = f32[3,5]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[3,5]{1,0} broadcast(p2), dimensions={1}
  s = f32[3,5]{1,0} add(d, b)
  z = f32[] constant(0)
  zb = f32[3,5]{1,0} broadcast(z), dimensions={}
  ROOT r = f32[3,5]{0,1} maximum(s, zb)
}

ENTRY main {
  a0 = f32[3,4]{1,0} parameter(0)
  a1 = f32[4,5]{1,0} parameter(1)
  a2 = f32[5]{0} parameter(2)
  ROOT f = f32[3,5]{0,1} fusion(a0, a1, a2), kind=kOutput, calls=fused
}
";
    check_hlo(text, 4300);
}

#[test]
fn output_fusion_epilogues_run_as_vector_loops() {
    // The dot's result (and the bias row) read as vectors, a scalar tail for 37 % 4 (and
    // 37 % 2 for f64); checked against the interpreter, and the CLIF must load vectors.
    for (t, vector) in [("f32", "f32x4"), ("f64", "f64x2")] {
        let text = format!(
            "HloModule m

fused {{
  p0 = {t}[6,4]{{1,0}} parameter(0)
  p1 = {t}[4,37]{{1,0}} parameter(1)
  p2 = {t}[37]{{0}} parameter(2)
  d = {t}[6,37]{{1,0}} dot(p0, p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  b = {t}[6,37]{{1,0}} broadcast(p2), dimensions={{1}}
  s = {t}[6,37]{{1,0}} add(d, b)
  z = {t}[] constant(0)
  zb = {t}[6,37]{{1,0}} broadcast(z), dimensions={{}}
  ROOT r = {t}[6,37]{{1,0}} maximum(s, zb)
}}

ENTRY main {{
  a0 = {t}[6,4]{{1,0}} parameter(0)
  a1 = {t}[4,37]{{1,0}} parameter(1)
  a2 = {t}[37]{{0}} parameter(2)
  ROOT f = {t}[6,37]{{1,0}} fusion(a0, a1, a2), kind=kOutput, calls=fused
}}
"
        );
        check_hlo(&text, 4310);
        let clif = kernel_artifacts(&text, true).clif_no_opt;
        assert!(clif.contains(&format!("load.{vector}")), "{t}:\n{clif}");
    }
}

#[test]
fn artifacts_name_hlo_instructions() {
    let text = "HloModule m

fused {
  p0 = f32[8]{0} parameter(0)
  ROOT add.3 = f32[8]{0} add(p0, p0)
}

ENTRY main {
  a0 = f32[8]{0} parameter(0)
  ROOT f = f32[8]{0} fusion(a0), kind=kLoop, calls=fused
}
";
    let a = &kernel_artifacts(text, true);
    assert!(a.clif_no_opt.contains("; %add.3"), "{}", a.clif_no_opt);
    assert!(a.clif_with_opt.contains("fadd"), "{}", a.clif_with_opt);
    assert!(a.asm.contains("ret"), "{}", a.asm);
    assert!(a.compile_ms > 0.0);
}

/// Prints the scalar kernel's throughput on a memory-sized elementwise add (not a timing
/// assertion; run with `--ignored --nocapture` in release mode to see the figure).
#[test]
#[ignore]
#[allow(clippy::useless_format)]
fn measure_elementwise_add() {
    let n = 4096 * 1024;
    let text = format!(
        "HloModule m\n\nfused {{\n  p0 = f32[4096,1024]{{1,0}} parameter(0)\n  p1 = f32[4096,1024]{{1,0}} parameter(1)\n  ROOT r = f32[4096,1024]{{1,0}} add(p0, p1)\n}}\n\nENTRY main {{\n  a0 = f32[4096,1024]{{1,0}} parameter(0)\n  a1 = f32[4096,1024]{{1,0}} parameter(1)\n  ROOT f = f32[4096,1024]{{1,0}} fusion(a0, a1), kind=kLoop, calls=fused\n}}\n"
    );
    let module = crate::front::hlo_text::parse_module(&text, "t")
        .unwrap()
        .module;
    let set = crate::codegen::compile_kernels(&module, &Default::default()).unwrap();
    let k = &set.kernels[0];
    let a = vec![1.0f32; n];
    let b = vec![2.0f32; n];
    let mut c = vec![0.0f32; n];
    let table = [
        a.as_ptr() as *mut u8,
        b.as_ptr() as *mut u8,
        c.as_mut_ptr() as *mut u8,
    ];
    let mut best = f64::MAX;
    for _ in 0..10 {
        let t = std::time::Instant::now();
        // SAFETY: three buffers of n f32 each, as the kernel's shapes say.
        unsafe { (k.entry)(table.as_ptr(), 0, k.work_units) };
        best = best.min(t.elapsed().as_secs_f64());
    }
    assert_eq!(c[n - 1], 3.0);
    println!(
        "add f32[4096,1024]: {:.2} ms, {:.2} GB/s, compile {:.3} ms",
        best * 1e3,
        (3 * 4 * n) as f64 / best / 1e9,
        k.artifacts.compile_ms
    );
}

#[test]
fn elementwise_chains_are_vectorized_with_a_scalar_tail() {
    for (t, lanes, n) in [("f32", "f32x4", 4103), ("f64", "f64x2", 9)] {
        let text = format!(
            "HloModule m\n\nfused {{\n  p0 = {t}[3,{n}]{{1,0}} parameter(0)\n  p1 = {t}[3,{n}]{{1,0}} parameter(1)\n  p2 = {t}[] parameter(2)\n  b = {t}[3,{n}]{{1,0}} broadcast(p2), dimensions={{}}\n  m = {t}[3,{n}]{{1,0}} multiply(p0, b)\n  x = {t}[3,{n}]{{1,0}} maximum(m, p1)\n  ROOT r = {t}[3,{n}]{{1,0}} subtract(x, p0)\n}}\n\nENTRY main {{\n  a0 = {t}[3,{n}]{{1,0}} parameter(0)\n  a1 = {t}[3,{n}]{{1,0}} parameter(1)\n  a2 = {t}[] parameter(2)\n  ROOT f = {t}[3,{n}]{{1,0}} fusion(a0, a1, a2), kind=kLoop, calls=fused\n}}\n"
        );
        for seed in 0..3 {
            check_hlo(&text, 4400 + seed);
        }
        let clif = kernel_artifacts(&text, true).clif_no_opt;
        assert!(clif.contains(&format!("load.{lanes}")), "{clif}");
    }
}

#[test]
fn slices_along_the_vector_are_read_as_vectors() {
    // An LSTM's gates: slices of `z + b` at column offsets (one of them strided and shifted
    // along the rows too), each through sigmoid or tanh, read as vectors at the shifted
    // index; f64 as well, with an odd row length for the scalar tail. Compared within a
    // relative tolerance: the cell update's sum cancels, which magnifies the one-ulp
    // differences of the kernels' and the interpreter's sigmoid past an ulp bound (a
    // slice read at a wrong offset is off by far more).
    for (t, lanes, n) in [("f32", "f32x4", 37), ("f64", "f64x2", 9)] {
        let (w, rows) = (4 * n, 9);
        let text = format!(
            "HloModule m

fused {{
  p0 = {t}[{rows},{w}]{{1,0}} parameter(0)
  p1 = {t}[{w}]{{0}} parameter(1)
  p2 = {t}[4,{n}]{{1,0}} parameter(2)
  b = {t}[{rows},{w}]{{1,0}} broadcast(p1), dimensions={{1}}
  z = {t}[{rows},{w}]{{1,0}} add(p0, b)
  i = {t}[4,{n}]{{1,0}} slice(z), slice={{[0:4], [0:{n}]}}
  f = {t}[4,{n}]{{1,0}} slice(z), slice={{[1:9:2], [{n}:{f_end}]}}
  g = {t}[4,{n}]{{1,0}} slice(z), slice={{[5:9], [{g_start}:{g_end}]}}
  si = {t}[4,{n}]{{1,0}} logistic(i)
  sf = {t}[4,{n}]{{1,0}} logistic(f)
  tg = {t}[4,{n}]{{1,0}} tanh(g)
  c = {t}[4,{n}]{{1,0}} multiply(sf, p2)
  u = {t}[4,{n}]{{1,0}} multiply(si, tg)
  ROOT r = {t}[4,{n}]{{1,0}} add(c, u)
}}

ENTRY main {{
  a0 = {t}[{rows},{w}]{{1,0}} parameter(0)
  a1 = {t}[{w}]{{0}} parameter(1)
  a2 = {t}[4,{n}]{{1,0}} parameter(2)
  ROOT f = {t}[4,{n}]{{1,0}} fusion(a0, a1, a2), kind=kLoop, calls=fused
}}
",
            f_end = 2 * n,
            g_start = 3 * n - 1,
            g_end = 4 * n - 1,
        );
        for seed in 0..3 {
            check_hlo_close(&text, 4500 + seed);
        }
        let clif = kernel_artifacts(&text, true).clif_no_opt;
        assert!(clif.contains(&format!("load.{lanes}")), "{t}:\n{clif}");
    }
}

/// Row kernels (`fusion/loop_invariance.rs`, `codegen/kernel/loops/hoist.rs`): reductions broadcast back
/// over the rows they reduced are computed once before each row's loop.
const ROW_REDUCERS: &str = "HloModule m

max_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
";

#[test]
fn layernorm_row_kernel_with_bitcasts_and_nested_reductions() {
    // The mean feeds both the variance's reduction (hoisted out of that loop) and the
    // output (hoisted out of the row loop), through size-1 bitcasts as XLA leaves them.
    let text = format!(
        "{ROW_REDUCERS}
fused {{
  g = f32[37]{{0}} parameter(0)
  x = f32[5,37]{{1,0}} parameter(1)
  zero = f32[] constant(0)
  n = f32[] constant(37)
  nb = f32[5,1]{{1,0}} broadcast(n), dimensions={{}}
  eps = f32[] constant(1e-05)
  epsb = f32[5,1]{{1,0}} broadcast(eps), dimensions={{}}
  s1 = f32[5]{{0}} reduce(x, zero), dimensions={{1}}, to_apply=add_f32
  s1b = f32[5,1]{{1,0}} bitcast(s1)
  mean = f32[5,1]{{1,0}} divide(s1b, nb)
  meanv = f32[5]{{0}} bitcast(mean)
  mb = f32[5,37]{{1,0}} broadcast(meanv), dimensions={{0}}
  xc = f32[5,37]{{1,0}} subtract(x, mb)
  sq = f32[5,37]{{1,0}} multiply(xc, xc)
  s2 = f32[5]{{0}} reduce(sq, zero), dimensions={{1}}, to_apply=add_f32
  s2b = f32[5,1]{{1,0}} bitcast(s2)
  var = f32[5,1]{{1,0}} divide(s2b, nb)
  ve = f32[5,1]{{1,0}} add(var, epsb)
  rs = f32[5,1]{{1,0}} rsqrt(ve)
  rsv = f32[5]{{0}} bitcast(rs)
  rb = f32[5,37]{{1,0}} broadcast(rsv), dimensions={{0}}
  y = f32[5,37]{{1,0}} multiply(xc, rb)
  gb = f32[5,37]{{1,0}} broadcast(g), dimensions={{1}}
  ROOT out = f32[5,37]{{1,0}} multiply(y, gb)
}}

ENTRY main {{
  a0 = f32[37]{{0}} parameter(0)
  a1 = f32[5,37]{{1,0}} parameter(1)
  ROOT f = f32[5,37]{{1,0}} fusion(a0, a1), kind=kLoop, calls=fused
}}
"
    );
    for seed in 0..3 {
        check_hlo_reduction(&text, 4200 + seed);
    }
}

#[test]
fn row_kernel_over_rows_longer_than_a_chunk() {
    // Rows longer than the loop emitter's chunk stay whole work units.
    let text = format!(
        "{ROW_REDUCERS}
fused {{
  p0 = f32[3,4101]{{1,0}} parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[3]{{0}} reduce(p0, ninf), dimensions={{1}}, to_apply=max_f32
  mxb = f32[3,4101]{{1,0}} broadcast(mx), dimensions={{0}}
  ROOT d = f32[3,4101]{{1,0}} subtract(p0, mxb)
}}

ENTRY main {{
  a0 = f32[3,4101]{{1,0}} parameter(0)
  ROOT f = f32[3,4101]{{1,0}} fusion(a0), kind=kLoop, calls=fused
}}
"
    );
    check_hlo_reduction(&text, 4300);
}

#[test]
fn row_kernel_in_column_major() {
    // Column-major: the inner loop runs along dimension 0, so the row is a column.
    let text = "HloModule m

add_f64 {
  x = f64[] parameter(0)
  y = f64[] parameter(1)
  ROOT s = f64[] add(x, y)
}

fused {
  p0 = f64[9,4]{0,1} parameter(0)
  zero = f64[] constant(0)
  s = f64[4]{0} reduce(p0, zero), dimensions={0}, to_apply=add_f64
  sb = f64[9,4]{0,1} broadcast(s), dimensions={1}
  ROOT r0 = f64[9,4]{0,1} divide(p0, sb)
}

ENTRY main {
  a0 = f64[9,4]{0,1} parameter(0)
  ROOT f = f64[9,4]{0,1} fusion(a0), kind=kLoop, calls=fused
}
";
    check_hlo_reduction(text, 4400);
}

#[test]
fn row_kernel_of_rank_three_with_two_outputs() {
    // A row is the last dimension of each (batch, token) pair; both outputs read the
    // hoisted sum.
    let text = format!(
        "{ROW_REDUCERS}
fused {{
  p1 = f32[2,3,11]{{2,1,0}} parameter(0)
  zf = f32[] constant(0)
  m = f32[2,3]{{1,0}} reduce(p1, zf), dimensions={{2}}, to_apply=add_f32
  mb = f32[2,3,11]{{2,1,0}} broadcast(m), dimensions={{0,1}}
  r1 = f32[2,3,11]{{2,1,0}} subtract(p1, mb)
  r2 = f32[2,3,11]{{2,1,0}} multiply(p1, mb)
  ROOT t = (f32[2,3,11]{{2,1,0}}, f32[2,3,11]{{2,1,0}}) tuple(r1, r2)
}}

ENTRY main {{
  a1 = f32[2,3,11]{{2,1,0}} parameter(0)
  ROOT f = (f32[2,3,11]{{2,1,0}}, f32[2,3,11]{{2,1,0}}) fusion(a1), kind=kLoop, calls=fused
}}
"
    );
    check_hlo_reduction(&text, 4500);
}

#[test]
fn masked_softmax_of_rank_three_caches_its_exponentials_per_row() {
    // The attention softmax: a pred mask keeps the kernel scalar; the exponentials are read
    // by the row sum and by the division, so the kernel caches them per row.
    let text = "HloModule m

max_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

fused {
  mask = pred[2,3,8]{2,1,0} parameter(0)
  p1 = f32[2,3,8]{2,1,0} parameter(1)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  big = f32[] constant(-1e+09)
  bigb = f32[2,3,8]{2,1,0} broadcast(big), dimensions={}
  sel = f32[2,3,8]{2,1,0} select(mask, p1, bigb)
  mx = f32[2,3]{1,0} reduce(sel, ninf), dimensions={2}, to_apply=max_f32
  mxb = f32[2,3,8]{2,1,0} broadcast(mx), dimensions={0,1}
  d = f32[2,3,8]{2,1,0} subtract(sel, mxb)
  e = f32[2,3,8]{2,1,0} exponential(d)
  s = f32[2,3]{1,0} reduce(e, zero), dimensions={2}, to_apply=add_f32
  sb = f32[2,3,8]{2,1,0} broadcast(s), dimensions={0,1}
  ROOT r = f32[2,3,8]{2,1,0} divide(e, sb)
}

ENTRY main {
  a0 = pred[2,3,8]{2,1,0} parameter(0)
  a1 = f32[2,3,8]{2,1,0} parameter(1)
  ROOT f = f32[2,3,8]{2,1,0} fusion(a0, a1), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo_reduction(text, 4100 + seed);
    }
}

/// The elementwise benchmark's fusion (tanh and the expanded sigmoid) on rows with a tail.
const TANH_SIGMOID: &str = "HloModule m

fused {
  p0 = f32[3,37]{1,0} parameter(0)
  p1 = f32[3,37]{1,0} parameter(1)
  s = f32[3,37]{1,0} subtract(p0, p1)
  n = f32[3,37]{1,0} negate(s)
  e = f32[3,37]{1,0} exponential(n)
  one = f32[] constant(1)
  oneb = f32[3,37]{1,0} broadcast(one), dimensions={}
  a = f32[3,37]{1,0} add(e, oneb)
  sig = f32[3,37]{1,0} divide(oneb, a)
  half = f32[] constant(0.5)
  halfb = f32[3,37]{1,0} broadcast(half), dimensions={}
  m = f32[3,37]{1,0} multiply(p0, halfb)
  h = f32[3,37]{1,0} add(m, p1)
  t = f32[3,37]{1,0} tanh(h)
  ts = f32[3,37]{1,0} multiply(t, sig)
  ROOT r = f32[3,37]{1,0} add(ts, h)
}

ENTRY main {
  a0 = f32[3,37]{1,0} parameter(0)
  a1 = f32[3,37]{1,0} parameter(1)
  ROOT f = f32[3,37]{1,0} fusion(a0, a1), kind=kLoop, calls=fused
}
";

#[test]
fn row_kernels_call_the_block_routines_for_exp_and_tanh() {
    // With the routines, each row's tanh and exp run over the whole row natively; the
    // results are the inline code's bits, so the usual comparison holds.
    for seed in 0..3 {
        check_hlo(TANH_SIGMOID, 4200 + seed);
    }
    for block_math in [true, false] {
        let artifacts = kernel_artifacts(TANH_SIGMOID, block_math);
        // The CLIF names imports by number: count the calls (the two routines), the two
        // stack rows and the prefetch queue the routines drain (the next row of each input
        // and of the output).
        let clif = &artifacts.clif_no_opt;
        let calls = clif.matches(" call fn").count();
        let rows = clif.matches("explicit_slot 148").count();
        let queue = format!(
            "explicit_slot {}",
            crate::codegen::block_math::PREFETCH_QUEUE_BYTES
        );
        let queues = clif.matches(&queue).count();
        // Each row loads the three buffer pointers afresh (without `readonly`, which would
        // let the egraph merge them with the entry block's) before its fill loop and after
        // the calls, so no pointer lives across a call.
        let reloads = clif.matches("load.i64 notrap aligned v0").count();
        let native = block_math && crate::codegen::block_math::block_math_available();
        let expected = if native { (2, 2, 1, 6) } else { (0, 0, 0, 0) };
        assert_eq!(
            (calls, rows, queues, reloads),
            expected,
            "block_math={block_math}:\n{clif}"
        );
    }
}

#[test]
fn a_cached_value_reading_another_is_filled_after_it() {
    // tanh(exp(x)): both are cached; the tanh row is filled from the finished exp row, so
    // the two take separate fill loops.
    let text = "HloModule m

fused {
  p0 = f32[2,21]{1,0} parameter(0)
  e = f32[2,21]{1,0} exponential(p0)
  t = f32[2,21]{1,0} tanh(e)
  ROOT r = f32[2,21]{1,0} add(t, e)
}

ENTRY main {
  a0 = f32[2,21]{1,0} parameter(0)
  ROOT f = f32[2,21]{1,0} fusion(a0), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo_reduction(text, 4300 + seed);
    }
}

/// `a*b + c`, `c - a*b` and `-(a*b) + c` in one loop fusion: with native FMA the kernel
/// computes each as one `fma` (`ir::fp_contraction`), bit-compared by the harness with the
/// interpreter contracting the same pairs; `no_fp_contraction` keeps `fmul` + `fadd`.
#[test]
fn multiply_add_pairs_contract_into_fma() {
    let text = "HloModule m

fused {
  a = f32[37]{0} parameter(0)
  b = f32[37]{0} parameter(1)
  c = f32[37]{0} parameter(2)
  m = f32[37]{0} multiply(a, b)
  s = f32[37]{0} add(m, c)
  n = f32[37]{0} multiply(s, b)
  d = f32[37]{0} subtract(c, n)
  q = f32[37]{0} multiply(d, a)
  g = f32[37]{0} negate(q)
  ROOT r = f32[37]{0} add(g, c)
}

ENTRY e {
  a = f32[37]{0} parameter(0)
  b = f32[37]{0} parameter(1)
  c = f32[37]{0} parameter(2)
  ROOT f = f32[37]{0} fusion(a, b, c), kind=kLoop, calls=fused
}
";
    check_hlo(text, 11);
    let clif = kernel_artifacts(text, true).clif_no_opt;
    if crate::codegen::isa::host_contracts_fma() {
        assert!(clif.contains(" fma ") && !clif.contains(" fmul "), "{clif}");
    }
    let module = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let options = crate::codegen::CodegenOptions {
        keep_artifacts: true,
        block_math: true,
        no_fp_contraction: true,
    };
    let mut set = crate::codegen::compile_kernels(&module, &options).unwrap();
    let plain = set.kernels.swap_remove(0).artifacts.clif_no_opt;
    assert!(
        !plain.contains(" fma ") && plain.contains(" fmul "),
        "{plain}"
    );
}

#[test]
fn causal_softmax_masks_are_computed_as_vector_lanes() {
    // Attention's causal softmax as jax writes it: `tril` of two iotas broadcast over the
    // heads selects the scores (masked ones get the lowest float), then max, exp, sum.
    // The masks are i32 lane compares: the column iota counts along the vector (an odd
    // row of 37 columns for the scalar tail), the row iota is splat; a second mask compares
    // the column with a scalar length parameter. Against the interpreter, and the CLIF
    // must compare i32x4 lanes.
    for (direction, scalar) in [("GE", false), ("LT", true)] {
        let (length, masked) = if scalar {
            (
                "  p1 = s32[] parameter(1)\n  lb = s32[5,37]{1,0} broadcast(p1), dimensions={}\n",
                "lb",
            )
        } else {
            ("", "i")
        };
        let text = format!(
            "{ROW_REDUCERS}
fused {{
  x = f32[2,5,37]{{2,1,0}} parameter(0)
{length}  i = s32[5,37]{{1,0}} iota(), iota_dimension=0
  j = s32[5,37]{{1,0}} iota(), iota_dimension=1
  keep = pred[5,37]{{1,0}} compare({masked}, j), direction={direction}
  kb = pred[2,5,37]{{2,1,0}} broadcast(keep), dimensions={{1,2}}
  low = f32[] constant(-3.40282347e+38)
  lowb = f32[2,5,37]{{2,1,0}} broadcast(low), dimensions={{}}
  s = f32[2,5,37]{{2,1,0}} select(kb, x, lowb)
  ninf = f32[] constant(-inf)
  mx = f32[2,5]{{1,0}} reduce(s, ninf), dimensions={{2}}, to_apply=max_f32
  mxb = f32[2,5,37]{{2,1,0}} broadcast(mx), dimensions={{0,1}}
  d = f32[2,5,37]{{2,1,0}} subtract(s, mxb)
  e = f32[2,5,37]{{2,1,0}} exponential(d)
  zero = f32[] constant(0)
  sum = f32[2,5]{{1,0}} reduce(e, zero), dimensions={{2}}, to_apply=add_f32
  sb = f32[2,5,37]{{2,1,0}} broadcast(sum), dimensions={{0,1}}
  ROOT r = f32[2,5,37]{{2,1,0}} divide(e, sb)
}}

ENTRY main {{
  a0 = f32[2,5,37]{{2,1,0}} parameter(0)
{entry}  ROOT f = f32[2,5,37]{{2,1,0}} fusion({args}), kind=kLoop, calls=fused
}}
",
            entry = if scalar {
                "  a1 = s32[] parameter(1)\n"
            } else {
                ""
            },
            args = if scalar { "a0, a1" } else { "a0" },
        );
        let length = crate::ir::Literal::Array(crate::ir::ArrayLiteral::scalar(17i32));
        let given = [None, Some(length)];
        for seed in 0..3 {
            check_hlo_reduction_with(&text, 4600 + seed, &given[..1 + usize::from(scalar)]);
        }
        let clif = kernel_artifacts(&text, true).clif_no_opt;
        assert!(
            clif.contains("icmp") && clif.contains("i32x4"),
            "{direction}:\n{clif}"
        );
        assert!(clif.contains("load.f32x4"), "{direction}:\n{clif}");
    }
}

#[test]
fn transposes_that_keep_the_minor_dimension_are_read_as_vectors() {
    // Attention's head transposes: `[T,H·D]` seen as `[T,H,D]` (a bitcast of the
    // parameter) to `[H,T,D]`, plus a second operand read in the output's order; D of 9 for
    // the scalar tail. A transpose that moves the minor dimension stays off the vector loop.
    let text = "HloModule m

fused {
  p0 = f32[5,27]{1,0} parameter(0)
  p1 = f32[3,5,9]{2,1,0} parameter(1)
  b = f32[5,3,9]{2,1,0} bitcast(p0)
  t = f32[3,5,9]{2,1,0} transpose(b), dimensions={1,0,2}
  ROOT r = f32[3,5,9]{2,1,0} add(t, p1)
}

ENTRY main {
  a0 = f32[5,27]{1,0} parameter(0)
  a1 = f32[3,5,9]{2,1,0} parameter(1)
  ROOT f = f32[3,5,9]{2,1,0} fusion(a0, a1), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo(text, 4700 + seed);
    }
    let clif = kernel_artifacts(text, true).clif_no_opt;
    assert!(clif.contains("load.f32x4"), "{clif}");
    let moved = text
        .replace("dimensions={1,0,2}", "dimensions={1,2,0}")
        .replace("f32[3,5,9]", "f32[3,9,5]");
    for seed in 0..2 {
        check_hlo(&moved, 4710 + seed);
    }
}

#[test]
fn multi_output_loop_fusions_store_every_result_as_vectors() {
    // Adam's moments in one fusion: m' = 0.9 m + 0.1 g and v' = 0.999 v + 0.001 g², the
    // gradient read through a bitcast of its column-major buffer (a dot's output layout);
    // 1030 columns for the scalar tail. Both results against the interpreter, and the CLIF
    // loads vectors. Outputs in different layouts stay scalar (the guard's message says so).
    let text = "HloModule m

fused {
  m = f32[3,1030]{1,0} parameter(0)
  gt = f32[1030,3]{0,1} parameter(1)
  v = f32[3,1030]{1,0} parameter(2)
  g = f32[3,1030]{1,0} bitcast(gt)
  b1 = f32[] constant(0.9)
  b1b = f32[3,1030]{1,0} broadcast(b1), dimensions={}
  c1 = f32[] constant(0.1)
  c1b = f32[3,1030]{1,0} broadcast(c1), dimensions={}
  m1 = f32[3,1030]{1,0} multiply(m, b1b)
  m2 = f32[3,1030]{1,0} multiply(g, c1b)
  mn = f32[3,1030]{1,0} add(m1, m2)
  b2 = f32[] constant(0.999)
  b2b = f32[3,1030]{1,0} broadcast(b2), dimensions={}
  c2 = f32[] constant(0.001)
  c2b = f32[3,1030]{1,0} broadcast(c2), dimensions={}
  v1 = f32[3,1030]{1,0} multiply(v, b2b)
  gg = f32[3,1030]{1,0} multiply(g, g)
  v2 = f32[3,1030]{1,0} multiply(gg, c2b)
  vn = f32[3,1030]{1,0} add(v1, v2)
  ROOT r = (f32[3,1030]{1,0}, f32[3,1030]{1,0}) tuple(mn, vn)
}

ENTRY main {
  a0 = f32[3,1030]{1,0} parameter(0)
  a1 = f32[1030,3]{0,1} parameter(1)
  a2 = f32[3,1030]{1,0} parameter(2)
  ROOT f = (f32[3,1030]{1,0}, f32[3,1030]{1,0}) fusion(a0, a1, a2), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo(text, 4800 + seed);
    }
    let clif = kernel_artifacts(text, true).clif_no_opt;
    assert!(clif.contains("load.f32x4"), "{clif}");
    // The second output column-major: scalar, and still right.
    let mixed = text.replace(
        "(f32[3,1030]{1,0}, f32[3,1030]{1,0})",
        "(f32[3,1030]{1,0}, f32[3,1030]{0,1})",
    );
    let mixed = mixed.replace(
        "  vn = f32[3,1030]{1,0} add(v1, v2)",
        "  vn = f32[3,1030]{0,1} add(v1, v2)",
    );
    check_hlo(&mixed, 4810);
    assert!(
        !kernel_artifacts(&mixed, true)
            .clif_no_opt
            .contains("load.f32x4")
    );
}

#[test]
fn rows_cut_into_chunks_cache_each_chunk() {
    // A GELU-like tanh over rows of 4096 (work units of 1024-element chunks, as a GEMM
    // epilogue's 512-column units): each unit fills the cache with its own chunk (the
    // block routine's row on AVX-512 hosts) and reads it back at its own offset. A chunk
    // filled or read at the row's start instead of the unit's gives other elements'
    // values; against the interpreter.
    let text = "HloModule m

fused {
  p0 = f32[3,4096]{1,0} parameter(0)
  p1 = f32[4096]{0} parameter(1)
  b = f32[3,4096]{1,0} broadcast(p1), dimensions={1}
  x = f32[3,4096]{1,0} add(p0, b)
  t = f32[3,4096]{1,0} tanh(x)
  ROOT r = f32[3,4096]{1,0} multiply(t, x)
}

ENTRY main {
  a0 = f32[3,4096]{1,0} parameter(0)
  a1 = f32[4096]{0} parameter(1)
  ROOT f = f32[3,4096]{1,0} fusion(a0, a1), kind=kLoop, calls=fused
}
";
    for seed in 0..3 {
        check_hlo_close(text, 4600 + seed);
    }
    let m = crate::front::hlo_text::parse_module(text, "t")
        .unwrap()
        .module;
    let entry = m.computation(m.entry);
    let options = crate::codegen::plan::PlanOptions {
        vector_loops: true,
        vector_registers: true,
        block_math: true,
    };
    let plan = crate::codegen::plan::plan_kernel(&m, entry, entry.root_instr(), options).unwrap();
    let l = plan.loop_plan().expect("a loop plan");
    assert_eq!(
        (l.space.chunks_per_row, l.cached.len()),
        (4, 1),
        "{}",
        plan.summary()
    );
}

#[test]
fn computed_values_seen_through_a_bitcast_are_vectors_when_rows_split_whole() {
    // Attention's head split as GPT-2's layers fuse it: `qkv + b` sliced into q and v,
    // each `[T,H*D]` seen as `[T,H,D]` through a bitcast of the computed slice, then heads
    // moved major (`[H,T,D]`): two outputs, computed as vectors at the slice's index of
    // each vector's first lane. With `D` = 6 a vector would straddle two heads' rows of the
    // slice: scalar, and still right. Against the interpreter.
    for (d, vector) in [(8, true), (6, false)] {
        let (t, h) = (5, 3);
        let w = h * d;
        let text = format!(
            "HloModule m

fused {{
  p0 = f32[{t},{qkv}]{{1,0}} parameter(0)
  p1 = f32[{qkv}]{{0}} parameter(1)
  b = f32[{t},{qkv}]{{1,0}} broadcast(p1), dimensions={{1}}
  x = f32[{t},{qkv}]{{1,0}} add(p0, b)
  q = f32[{t},{w}]{{1,0}} slice(x), slice={{[0:{t}], [0:{w}]}}
  v = f32[{t},{w}]{{1,0}} slice(x), slice={{[0:{t}], [{v0}:{qkv}]}}
  qh = f32[{t},{h},{d}]{{2,1,0}} bitcast(q)
  vh = f32[{t},{h},{d}]{{2,1,0}} bitcast(v)
  qt = f32[{h},{t},{d}]{{2,1,0}} transpose(qh), dimensions={{1,0,2}}
  vt = f32[{h},{t},{d}]{{2,1,0}} transpose(vh), dimensions={{1,0,2}}
  ROOT r = (f32[{h},{t},{d}]{{2,1,0}}, f32[{h},{t},{d}]{{2,1,0}}) tuple(qt, vt)
}}

ENTRY main {{
  a0 = f32[{t},{qkv}]{{1,0}} parameter(0)
  a1 = f32[{qkv}]{{0}} parameter(1)
  ROOT f = (f32[{h},{t},{d}]{{2,1,0}}, f32[{h},{t},{d}]{{2,1,0}}) fusion(a0, a1), kind=kLoop, calls=fused
}}
",
            qkv = 3 * w,
            v0 = 2 * w,
        );
        for seed in 0..3 {
            check_hlo(&text, 4700 + seed);
        }
        let clif = kernel_artifacts(&text, true).clif_no_opt;
        assert_eq!(clif.contains("load.f32x4"), vector, "d = {d}:\n{clif}");
    }
}
