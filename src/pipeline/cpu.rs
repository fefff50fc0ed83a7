//! The CPU pass pipeline, in order; it reads like XLA's `cpu_compiler.cc`
//! (`RunHloPassesThroughLayoutAssn`), keeping the passes that matter for xlac
//! (../shared/notes/xla-cpu.md §3.5). Layout assignment and fusion are still to come.

use super::Pipeline;
use super::algsimp::AlgebraicSimplifier;
use super::call_inliner::CallInliner;
use super::cholesky_expander::CholeskyExpander;
use super::conditional_simplifier::ConditionalSimplifier;
use super::constant_folding::ConstantFolding;
use super::cse::Cse;
use super::dce::Dce;
use super::dot_decomposer::DotDecomposer;
use super::flatten_call_graph::FlattenCallGraph;
use super::float_normalization::FloatNormalization;
use super::rng_bit_generator_expander::RngBitGeneratorExpander;
use super::topk_decomposer::TopkDecomposer;
use super::triangular_solve_expander::TriangularSolveExpander;
use super::tuple_simplifier::TupleSimplifier;
use super::while_loop_simplifier::WhileLoopSimplifier;

/// XLA's limit on fixed-point rounds (`HloPassFix`).
const MAX_ROUNDS: usize = 25;

/// The HLO optimization pipeline `xlac run` and `xlac compile` apply before execution.
pub fn cpu_pipeline() -> Pipeline {
    Pipeline::new("cpu-hlo-passes")
        .pipeline(expansion())
        .pipeline(simplification())
        .pass(Cse)
        .pass(Dce)
        .pass(FlattenCallGraph)
        .pass(Dce)
        .pipeline(post_layout_assignment())
}

/// Once layouts are final (today every array keeps the layout it was written with;
/// layout assignment will run right before this), reshapes and transposes that move no
/// byte become bitcasts.
fn post_layout_assignment() -> Pipeline {
    Pipeline::new("post-layout-assignment")
        .pass(AlgebraicSimplifier::layout_sensitive())
        .pass(Dce)
        .until_fixed_point(MAX_ROUNDS)
}

/// Ops with no kernel of their own become plain HLO; JAX's nested `call`s are inlined;
/// bf16 arithmetic moves to f32 (XLA:CPU computes it there).
fn expansion() -> Pipeline {
    Pipeline::new("expansion")
        .pass(DotDecomposer)
        .pass(RngBitGeneratorExpander::cpu())
        .pass(TopkDecomposer)
        .pass(CholeskyExpander)
        .pass(TriangularSolveExpander)
        .pass(CallInliner::new())
        .pass(DotDecomposer)
        .pass(FloatNormalization::bf16())
}

/// The algebraic clean-up, run until nothing changes (XLA's "simplification" HloPassFix).
fn simplification() -> Pipeline {
    Pipeline::new("simplification")
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
