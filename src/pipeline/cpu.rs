//! The CPU pass pipeline, in order; it reads like XLA's `cpu_compiler.cc`
//! (`RunHloPassesThroughLayoutAssn`), keeping the passes that matter for xlac
//! (the expanders, the simplification fixed point, cse). The layout-assignment pass itself lives in
//! `crate::layout` and is handed in by `compiler/`; fusion and scheduling follow this
//! pipeline there.

use std::cell::RefCell;
use std::rc::Rc;

use super::algsimp::AlgebraicSimplifier;
use super::all_reduce_promotion::AllReducePromotion;
use super::call_inliner::CallInliner;
use super::cholesky_expander::CholeskyExpander;
use super::conditional_simplifier::ConditionalSimplifier;
use super::constant_folding::ConstantFolding;
use super::cse::Cse;
use super::dce::Dce;
use super::dot_decomposer::DotDecomposer;
use super::dynamic_padder::DynamicPadder;
use super::flatten_call_graph::FlattenCallGraph;
use super::float_normalization::FloatNormalization;
use super::qr_expander::QrExpander;
use super::rng_bit_generator_expander::RngBitGeneratorExpander;
use super::topk_decomposer::TopkDecomposer;
use super::triangular_solve_expander::TriangularSolveExpander;
use super::tuple_simplifier::TupleSimplifier;
use super::while_loop_input_projection::{InputProjectionLog, WhileLoopInputProjection};
use super::while_loop_simplifier::WhileLoopSimplifier;
use super::{Pass, Pipeline};

/// XLA's limit on fixed-point rounds (`HloPassFix`).
const MAX_ROUNDS: usize = 25;

/// The HLO optimization pipeline `xlac run` and `xlac compile` apply before fusion;
/// `layout_assignment` runs after the simplifications, as in XLA; the loop dots hoisted
/// (or not) go to `hoist_log`.
pub fn cpu_pipeline(
    layout_assignment: impl Pass + 'static,
    hoist_log: &Rc<RefCell<InputProjectionLog>>,
) -> Pipeline {
    Pipeline::new("cpu-hlo-passes")
        .pipeline(expansion())
        .pipeline(simplification(hoist_log))
        .pass(Cse)
        .pass(Dce)
        .pass(FlattenCallGraph)
        .pass(Dce)
        .pass(layout_assignment)
        .pipeline(post_layout_assignment())
}

/// Once layouts are final, reshapes and transposes that move no byte become bitcasts, and
/// copies that layout assignment made redundant go.
fn post_layout_assignment() -> Pipeline {
    Pipeline::new("post-layout-assignment")
        .pass(AlgebraicSimplifier::layout_sensitive())
        .pass(Dce)
        .until_fixed_point(MAX_ROUNDS)
}

/// Ops with no kernel of their own become plain HLO; JAX's nested `call`s are inlined;
/// bf16 arithmetic, and bf16 sums across devices, move to f32 (XLA:CPU computes them there);
/// f8/f4 arithmetic moves to f16 (f32 for `f8e8m0fnu`) and sub-byte integers to `s8`/`u8`.
fn expansion() -> Pipeline {
    let pipeline = Pipeline::new("expansion")
        .pass(DotDecomposer)
        .pass(DynamicPadder)
        .pass(RngBitGeneratorExpander::cpu())
        .pass(TopkDecomposer)
        .pass(QrExpander)
        .pass(CholeskyExpander)
        .pass(TriangularSolveExpander)
        .pass(CallInliner::new())
        .pass(DotDecomposer)
        .pass(AllReducePromotion::bf16())
        .pass(FloatNormalization::bf16());
    FloatNormalization::narrow_types()
        .into_iter()
        .fold(pipeline, |p, pass| p.pass(pass))
}

/// The algebraic clean-up, run until nothing changes (XLA's "simplification" HloPassFix).
/// A loop's per-step products with an invariant matrix are hoisted first, so the
/// dead-state rule of `simplify-while-loops` drops the sliced input from the state in the
/// same round; first also because a dump file names the pass after the one that changed
/// the module, and no other pass's file is renamed where the hoist finds nothing.
fn simplification(hoist_log: &Rc<RefCell<InputProjectionLog>>) -> Pipeline {
    Pipeline::new("simplification")
        .pass(WhileLoopInputProjection::new(hoist_log))
        .pass(AlgebraicSimplifier::new())
        .pass(Dce)
        .pass(TupleSimplifier)
        .pass(WhileLoopSimplifier)
        .pass(Dce)
        .pass(ConstantFolding)
        .pass(ConditionalSimplifier)
        .pass(Dce)
        .until_fixed_point(MAX_ROUNDS)
}
