//! `xlac run MODEL --bisect`: runs the interpreter on the module before the pipeline and
//! after each pass that changed it, and names the first pass whose outputs differ beyond
//! tolerance. No XLA tool does this; it turns "the optimized program is wrong" into
//! "pass X broke it".

use std::fmt;

use super::PassRecord;
use crate::eval::compare::{Tolerance, compare_arrays};
use crate::eval::{EvalOptions, evaluate};
use crate::ir::{Literal, Module};

/// The module after one pass that changed it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The pass (and its pipeline) that produced it.
    pub pass: PassRecord,
    /// The module right after that pass.
    pub module: Module,
}

/// What bisecting found.
#[derive(Clone, Debug, PartialEq)]
pub enum BisectReport {
    /// Every snapshot agrees with the original module.
    AllAgree {
        /// How many snapshots were compared.
        snapshots: usize,
    },
    /// The first pass after which the outputs differ.
    FirstDiffering {
        /// `pipeline/pass`.
        pass: String,
        /// What differs, e.g. `output 0: 3 of 8 elements differ ...`.
        difference: String,
    },
}

impl fmt::Display for BisectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BisectReport::AllAgree { snapshots } => {
                write!(
                    f,
                    "bisect: the outputs after all {snapshots} changing passes agree with the input module"
                )
            }
            BisectReport::FirstDiffering { pass, difference } => {
                write!(
                    f,
                    "bisect: the outputs first differ after pass {pass}: {difference}"
                )
            }
        }
    }
}

/// Compares the original module's outputs with each snapshot's, in order.
pub fn bisect(
    original: &Module,
    snapshots: &[Snapshot],
    args: &[Literal],
    options: &EvalOptions,
) -> Result<BisectReport, String> {
    let want = evaluate(original, args, options).map_err(|e| format!("the input module: {e}"))?;
    for snap in snapshots {
        let name = format!("{}/{}", snap.pass.pipeline, snap.pass.pass);
        let got = match evaluate(&snap.module, args, options) {
            Ok(got) => got,
            Err(e) => {
                return Ok(BisectReport::FirstDiffering {
                    pass: name,
                    difference: format!("it no longer runs: {e}"),
                });
            }
        };
        if let Some(difference) = first_difference(original, &want, &got) {
            return Ok(BisectReport::FirstDiffering {
                pass: name,
                difference,
            });
        }
    }
    Ok(BisectReport::AllAgree {
        snapshots: snapshots.len(),
    })
}

/// The first output leaf that differs beyond the per-type tolerance, described.
fn first_difference(module: &Module, want: &Literal, got: &Literal) -> Option<String> {
    let (want, got) = (want.leaves(), got.leaves());
    if want.len() != got.len() {
        return Some(format!("{} outputs instead of {}", got.len(), want.len()));
    }
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        let tol = Tolerance::for_output(module, w.element_type());
        match compare_arrays(g, w, tol) {
            Ok(c) if c.ok() => {}
            Ok(c) => return Some(format!("output {i}: {c}")),
            Err(e) => return Some(format!("output {i}: {e}")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Op, Opcode};
    use crate::pipeline::dce::Dce;
    use crate::pipeline::testing::parse_verified;
    use crate::pipeline::{Pass, PassError, Pipeline, PipelineContext};

    /// A deliberately wrong pass: every `add` becomes a `subtract`.
    struct BreakAdds;

    impl Pass for BreakAdds {
        fn name(&self) -> &'static str {
            "break-adds"
        }
        fn run(&mut self, module: &mut Module) -> Result<bool, PassError> {
            let mut changed = false;
            for c in module.order.clone() {
                let comp = &mut module.computations[c];
                for id in comp.order.clone() {
                    if comp.instrs[id].op == Op::Plain(Opcode::Add) {
                        comp.instrs[id].op = Op::Plain(Opcode::Subtract);
                        changed = true;
                    }
                }
            }
            Ok(changed)
        }
    }

    #[test]
    fn names_the_first_pass_that_changes_the_outputs() {
        let module = parse_verified(
            "
HloModule m
ENTRY main {
  p0 = f32[4]{0} parameter(0)
  dead = f32[4]{0} multiply(p0, p0)
  ROOT r = f32[4]{0} add(p0, p0)
}",
        );
        let mut ctx = PipelineContext::new();
        ctx.snapshots = Some(Vec::new());
        let mut changed = module.clone();
        Pipeline::new("p")
            .pass(Dce)
            .pass(BreakAdds)
            .run(&mut changed, &mut ctx)
            .unwrap();
        let snapshots = ctx.snapshots.take().unwrap();
        assert_eq!(snapshots.len(), 2);
        let args = [Literal::Array(crate::ir::ArrayLiteral::from_vec(
            &[4],
            vec![1.0f32, 2.0, 3.0, 4.0],
        ))];
        let report = bisect(&module, &snapshots, &args, &EvalOptions::default()).unwrap();
        match report {
            BisectReport::FirstDiffering { pass, .. } => assert_eq!(pass, "p/break-adds"),
            other => panic!("expected a difference, got {other}"),
        }
        let agree = bisect(&module, &snapshots[..1], &args, &EvalOptions::default()).unwrap();
        assert_eq!(agree, BisectReport::AllAgree { snapshots: 1 });
    }
}
