//! Tests of the rule files (one file each, named after it), and the whole-corpus check.

use crate::pipeline::algsimp::AlgebraicSimplifier;
use crate::pipeline::testing::{check_pass, check_unchanged};

mod arithmetic;
mod bitcast;
mod broadcast;
mod compare;
mod convert;
mod corpus;
mod dot;
mod reduce;
mod select;
mod slice;

/// The simplifier rewrites `before` into `after` (and keeps its results).
fn fires(before: &str, after: &str) {
    check_pass(AlgebraicSimplifier::new(), before, after);
}

/// The simplifier leaves `hlo` alone.
fn stays(hlo: &str) {
    check_unchanged(AlgebraicSimplifier::new(), hlo);
}
