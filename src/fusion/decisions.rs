//! The fusion decision log: one entry per producer–consumer pair a fusion pass considered,
//! written to `module_0000.NAME.fusion-decisions.txt` in words a learner understands.

use std::cell::RefCell;
use std::rc::Rc;

/// One considered pair.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionDecision {
    /// The pass that considered it (`fusion`, `multi_output_fusion`).
    pub pass: &'static str,
    /// The computation it happened in.
    pub computation: String,
    /// The producer's name (before fusion).
    pub producer: String,
    /// The consumer's name (before fusion).
    pub consumer: String,
    /// Whether they were fused.
    pub fused: bool,
    /// The rule that decided, in words (`"exponential is expensive and the consumer reads
    /// each element 4 times"`).
    pub reason: String,
}

/// Shared by the fusion passes of one compile; `compiler.rs` prints it afterwards.
pub type DecisionLog = Rc<RefCell<Vec<FusionDecision>>>;

/// `fusion-decisions.txt`.
pub fn decisions_text(log: &[FusionDecision]) -> String {
    let mut out = String::new();
    for d in log {
        let verdict = if d.fused { "fused" } else { "not fused" };
        out.push_str(&format!(
            "{}: {} -> {} in {}: {verdict}: {}\n",
            d.pass, d.producer, d.consumer, d.computation, d.reason
        ));
    }
    out
}
