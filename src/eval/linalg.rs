//! Linear algebra: `cholesky` and `triangular-solve` (also used by the LAPACK custom calls).

use super::{EvalError, EvalResult};
use crate::ir::{Literal, TriangularSolveOptions};

/// `cholesky(a), lower=...` over the two minor dimensions, batched over the rest.
pub fn cholesky(a: &Literal, lower: bool) -> EvalResult {
    let _ = (a, lower);
    Err(EvalError::new("cholesky is not implemented in the interpreter yet"))
}

/// `triangular-solve(a, b), ...`.
pub fn triangular_solve(a: &Literal, b: &Literal, options: &TriangularSolveOptions) -> EvalResult {
    let _ = (a, b, options);
    Err(EvalError::new("triangular-solve is not implemented in the interpreter yet"))
}
