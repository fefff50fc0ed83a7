//! The fusion decision log: one entry per producer–consumer pair a fusion pass considered,
//! written to `module_0000.NAME.fusion-decisions.txt` in words a learner understands.
//!
//! Every rule that decides is a [`FusionRule`] value (tests assert on the value); its
//! `Display` is the sentence in the file. XLA keeps these reasons in `FusionDecision`
//! strings that only reach `VLOG`; xlac writes them down.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::ir::{FusionKind, Opcode};

/// One considered pair.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionDecision {
    /// The pass that considered it (`fusion`, `multi_output_fusion`, ...).
    pub pass: &'static str,
    /// The computation it happened in.
    pub computation: String,
    /// The producer's name (before fusion).
    pub producer: String,
    /// The consumer's name (a fusion's name once the consumer has become one).
    pub consumer: String,
    /// Whether they were fused.
    pub fused: bool,
    /// The rule that decided.
    pub rule: FusionRule,
    /// The fusion instruction holding both afterwards, when fused.
    pub result: Option<String>,
}

/// Shared by the fusion passes of one compile; `compiler/` prints it afterwards.
pub type DecisionLog = Rc<RefCell<Vec<FusionDecision>>>;

/// Appends `decision` to `log` and, when it fused, tells the provenance log
/// (`crate::ir::provenance`) that the producer went into the fusion and by which rule.
pub fn log_decision(log: &DecisionLog, decision: FusionDecision) {
    if let (true, Some(fusion)) = (decision.fused, &decision.result) {
        crate::ir::provenance::record(&decision.computation, &decision.producer, || {
            crate::ir::provenance::Change::Fused {
                fusion: fusion.clone(),
                rule: decision.rule.to_string(),
            }
        });
    }
    log.borrow_mut().push(decision);
}

/// Why a pair was (or was not) fused. `Display` is the sentence in `fusion-decisions.txt`.
#[derive(Clone, Debug, PartialEq)]
pub enum FusionRule {
    // ---- fused ----
    /// An elementwise or data-movement producer computed inside its consumer's loop.
    LoopFusion {
        /// The producer's opcode.
        producer: Opcode,
    },
    /// As `LoopFusion`, but the producer also stays for its other users (it is cheap).
    LoopFusionDuplicated {
        /// The producer's opcode.
        producer: Opcode,
        /// Users it keeps outside this fusion.
        other_users: usize,
    },
    /// A producer fused into a reduction: the reduction reads it as it accumulates.
    ReductionInput {
        /// The producer's opcode.
        producer: Opcode,
    },
    /// A dot and its elementwise epilogue (kOutput): the epilogue runs over the GEMM's output.
    DotEpilogue,
    /// Two fusions reading the same input merged into one loop with a tuple root.
    SiblingMultiOutput {
        /// The shared operand.
        shared: String,
    },
    /// A loop that reads another loop's outputs at its own index merged into it: one loop
    /// computes both and writes both, and the outputs are not read back from memory.
    ProducerConsumerMultiOutput,
    /// A library (`kCustom`) fusion put back as plain instructions: xlac has no library
    /// for it, so its ops are fused by xlac's own rules.
    CustomFusionInlined,
    /// A fusion in the input holds an op no generated kernel computes (XLA wraps `scatter`
    /// into loop fusions; xlac runs it as a library call), so its ops go back to plain
    /// instructions.
    FusionHasNoKernel {
        /// The op codegen does not emit.
        opcode: Opcode,
    },

    // ---- not fused ----
    /// The producer is the computation's root: its value must exist in memory.
    ProducerIsRoot,
    /// One side has control dependencies (`control-predecessors=`), which pin where it runs.
    ControlDependency,
    /// A non-scalar constant stays a buffer that the kernel reads.
    NonScalarConstant {
        /// Its element count.
        elements: usize,
    },
    /// A scalar constant on its own is not worth a kernel: it joins existing fusions only.
    ConstantOnlyIntoFusion,
    /// The producer does not become generated code (a library call or a thunk).
    ProducerNotKernel {
        /// The producer's opcode.
        opcode: Opcode,
    },
    /// The producer is generated code but XLA:CPU does not loop-fuse it as a producer.
    ProducerNotLoopFusible {
        /// The producer's opcode.
        opcode: Opcode,
    },
    /// The consumer cannot absorb producers.
    ConsumerNotFusible {
        /// The consumer's opcode.
        opcode: Opcode,
    },
    /// The consumer is a fusion this pass did not make (from the input, or of another kind).
    ConsumerIsForeignFusion {
        /// Its kind.
        kind: FusionKind,
    },
    /// The producer would feed the dot of a kOutput fusion, which reads its operands as
    /// buffers (the GEMM), so nothing is fused into it.
    IntoDotOperand,
    /// The producer is already a fusion; CPU fusion never nests fusions as producers.
    ProducerIsFusion,
    /// dynamic-update-slice writes into its operand's buffer in place; fusing would lose that.
    InPlace {
        /// The in-place opcode.
        opcode: Opcode,
    },
    /// A concatenate with many operands is a branch per element; a memcpy-like kernel is better.
    ConcatTooManyOperands {
        /// How many operands.
        count: usize,
    },
    /// A concatenate along a large minor dimension is better left as its own kernel.
    ConcatMinorDimTooLarge {
        /// The size of the minor dimension.
        size: i64,
    },
    /// An expensive producer would be recomputed for every read of the consumer.
    ExpensiveReused {
        /// The producer's opcode.
        producer: Opcode,
        /// The consumer's opcode (the fused root for a fusion).
        consumer: Opcode,
        /// How many times the consumer reads each producer element.
        reads: usize,
    },
    /// A reduction the consumer reads once per row (broadcast back along the rows it
    /// reduced): the kernel computes it before each row's loop.
    RowReduction,
    /// An expensive producer the consumer reads in two loops of each row (softmax's
    /// exponentials: the row sum and the division): the kernel computes it once per row
    /// into its row cache (`row_cache.rs`).
    RowCached {
        /// The producer's opcode.
        producer: Opcode,
    },
    /// A large reduction over major dimensions (it keeps its input's minor dimension): as
    /// a fusion's root it streams its rows on every thread; inside a consumer's loop each
    /// output element would walk its column alone.
    ColumnReductionStaysRoot {
        /// Bytes of the reduction's input.
        input_bytes: u64,
    },
    /// A reduction broadcast back along the consumer's inner loop: fusing would recompute
    /// it per element.
    ReductionBroadcastBack {
        /// How many times each reduced element would be recomputed.
        reads: usize,
    },
    /// An expensive producer with other users would be computed twice.
    ExpensiveDuplicated {
        /// The producer's opcode.
        producer: Opcode,
        /// Its other users.
        other_users: usize,
    },
    /// An expensive producer with other users, feeding a reduction: the reduction and the
    /// other users both need it.
    ReductionWouldDuplicate {
        /// The producer's opcode.
        producer: Opcode,
        /// Its other users.
        other_users: usize,
    },
    /// A producer that reads more than it writes, from two or more full inputs, with other
    /// users: duplicating it multiplies its memory traffic.
    NotEffectivelyUnary {
        /// The producer's opcode.
        producer: Opcode,
        /// Its other users.
        other_users: usize,
    },
    /// More reductions than the limit in one fusion.
    TooManyReductions {
        /// How many the fusion would hold.
        count: usize,
    },
    /// The fused code would evaluate the producer too many times per output element.
    CodeDuplicationTooHigh {
        /// Times the producer would be emitted.
        count: usize,
    },
    /// A dot whose consumer is not a plain elementwise epilogue over the dot's output.
    DotNotEpilogue {
        /// Which condition failed, in words.
        why: &'static str,
    },
    /// An element type generated kernels do not compute with (complex, fp8, sub-byte).
    NotKernelType,
    /// Sibling fusion refused: one reads the other's result.
    SiblingsDependent,
    /// Sibling fusion refused: their loops run over different index spaces.
    SiblingsIterateDifferently {
        /// The first loop's space.
        a: String,
        /// The second loop's space.
        b: String,
    },
    /// Sibling fusion refused: the shared operand is a scalar or a constant.
    SiblingInputTooSmall,
    /// Sibling fusion refused: one sibling is a large reduction over major dimensions,
    /// whose row-chunked kernel has a single output.
    SiblingColumnReduction {
        /// Bytes of that reduction's input.
        input_bytes: u64,
    },
    /// Sibling fusion refused: the merged fusion would hold too many reductions.
    SiblingTooManyReductions {
        /// How many it would hold.
        count: usize,
    },
}

impl fmt::Display for FusionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FusionRule::*;
        match self {
            LoopFusion { producer } => write!(
                f,
                "{producer} is computed inside the consumer's loop, so its result never goes to memory"
            ),
            LoopFusionDuplicated {
                producer,
                other_users,
            } => write!(
                f,
                "{producer} is cheap: it is computed inside the consumer's loop and also kept for its {other_users} other user(s)"
            ),
            ReductionInput { producer } => write!(
                f,
                "the reduction reads {producer}'s elements as it accumulates them (kInput), so they never go to memory"
            ),
            DotEpilogue => write!(
                f,
                "the elementwise epilogue runs over the dot's output right after the GEMM (kOutput), one pass instead of two"
            ),
            SiblingMultiOutput { shared } => write!(
                f,
                "both loops read {shared}; one loop with two outputs reads it once"
            ),
            ProducerConsumerMultiOutput => write!(
                f,
                "the consumer reads the producer's outputs at its own index; one loop computes both and writes both outputs, which are then not read back from memory"
            ),
            FusionHasNoKernel { opcode } => write!(
                f,
                "the fusion holds {opcode}, which no generated kernel computes (it runs as a library call); its instructions are put back and fused by xlac's own rules"
            ),
            CustomFusionInlined => write!(
                f,
                "xlac has no library for kCustom fusions; its instructions are put back and fused by xlac's own rules"
            ),
            ProducerIsRoot => write!(
                f,
                "the producer is the computation's result, so it must be written to memory anyway"
            ),
            ControlDependency => write!(
                f,
                "a control dependency (control-predecessors) orders one of them against other work; moving it into a loop could break that order"
            ),
            NonScalarConstant { elements } => write!(
                f,
                "a constant of {elements} elements stays a buffer the kernel reads"
            ),
            ConstantOnlyIntoFusion => write!(
                f,
                "a scalar constant joins an existing fusion only; a constant plus one op is not worth a kernel"
            ),
            ProducerNotKernel { opcode } => write!(
                f,
                "{opcode} does not become generated code (it runs as a library call or thunk)"
            ),
            ProducerNotLoopFusible { opcode } => write!(
                f,
                "{opcode} is not fused into consumers (XLA:CPU's loop-fusible list excludes it)"
            ),
            ConsumerNotFusible { opcode } => {
                write!(f, "the consumer {opcode} cannot absorb producers")
            }
            ConsumerIsForeignFusion { kind } => write!(
                f,
                "the consumer is a {kind} fusion from the input; it is kept as it is"
            ),
            IntoDotOperand => write!(
                f,
                "the producer feeds a dot, which reads its operands as buffers (GEMM); nothing is fused into a dot"
            ),
            ProducerIsFusion => write!(
                f,
                "the producer is already a fusion; fusions are not fused into other fusions on CPU"
            ),
            InPlace { opcode } => write!(
                f,
                "{opcode} updates its buffer in place; it stays a kernel of its own"
            ),
            ConcatTooManyOperands { count } => write!(
                f,
                "a concatenate of {count} operands (more than {MAX_CONCAT_OPERANDS}) branches per element; a standalone copy loop is faster"
            ),
            ConcatMinorDimTooLarge { size } => write!(
                f,
                "a concatenate along the minor dimension of size {size} (at least {MIN_MINOR_CONCAT_SIZE}) is better done as a standalone copy loop"
            ),
            ExpensiveReused {
                producer,
                consumer,
                reads,
            } => write!(
                f,
                "{producer} is expensive and the consumer ({consumer}) reads each element {reads} times"
            ),
            RowCached { producer } => write!(
                f,
                "{producer} is expensive and read in two loops of each row; the kernel computes it once per row into its row cache"
            ),
            RowReduction => write!(
                f,
                "the consumer reads each reduced element once per row (broadcast back over the rows it reduced); the kernel computes the reduction once before each row's loop"
            ),
            ColumnReductionStaysRoot { input_bytes } => write!(
                f,
                "the reduction keeps its input's minor dimension and reads {input_bytes} bytes (at least {MIN_COLUMN_REDUCTION_BYTES}): as a fusion's root its rows stream on every thread, inside the consumer's loop each element would walk its column"
            ),
            ReductionBroadcastBack { reads } => write!(
                f,
                "the consumer broadcasts the reduced value back along its inner loop, over {reads} elements; fusing would redo the whole reduction for each"
            ),
            ExpensiveDuplicated {
                producer,
                other_users,
            } => write!(
                f,
                "{producer} is expensive and has {other_users} other user(s); fusing would compute it twice"
            ),
            ReductionWouldDuplicate {
                producer,
                other_users,
            } => write!(
                f,
                "{producer} is expensive and {other_users} other user(s) need it too; fusing it into the reduction would compute it twice (a multi-output fusion that writes it and reduces it in the same loop is not implemented)"
            ),
            NotEffectivelyUnary {
                producer,
                other_users,
            } => write!(
                f,
                "{producer} reads two or more full inputs, more bytes than it writes, and has {other_users} other user(s); duplicating it would read its inputs again"
            ),
            TooManyReductions { count } => write!(
                f,
                "the fusion would hold {count} reductions (at most {MAX_REDUCTIONS_PER_FUSION})"
            ),
            CodeDuplicationTooHigh { count } => write!(
                f,
                "the fused code would evaluate the producer {count} times per output element (at most {MAX_CODE_DUPLICATION})"
            ),
            DotNotEpilogue { why } => write!(f, "the dot stays a library call: {why}"),
            NotKernelType => write!(
                f,
                "an element type generated kernels do not compute with (complex, fp8 or sub-byte)"
            ),
            SiblingsDependent => write!(f, "one of the two reads the other's result"),
            SiblingsIterateDifferently { a, b } => write!(
                f,
                "their loops run over different index spaces ({a} and {b})"
            ),
            SiblingInputTooSmall => write!(
                f,
                "the shared operand is a scalar or a constant; reading it twice costs nothing"
            ),
            SiblingColumnReduction { input_bytes } => write!(
                f,
                "a sibling reduces {input_bytes} bytes over major dimensions: alone, its rows stream on every thread (the row-chunked column kernel has one output); merged, each output element would walk its column"
            ),
            SiblingTooManyReductions { count } => write!(
                f,
                "the merged fusion would hold {count} reductions (at most {MAX_REDUCTIONS_PER_FUSION})"
            ),
        }
    }
}

/// At most this many operands in a fused concatenate (XLA:CPU `kMaxConcatenateArguments`).
pub const MAX_CONCAT_OPERANDS: usize = 8;
/// A concatenate along the minor dimension at least this long stays standalone (XLA:CPU).
pub const MIN_MINOR_CONCAT_SIZE: i64 = 128;
/// A reduction over major dimensions reading at least this many bytes stays a fusion's
/// root (the column-reduction kernel splits such inputs' rows across threads). XLA:CPU
/// keeps every reduction over major dimensions unfused as a consumer ("Not fusing
/// reductions over major dimensions").
pub const MIN_COLUMN_REDUCTION_BYTES: u64 = 1 << 20;
/// At most this many reductions per fusion (XLA:CPU's compile-time guard).
pub const MAX_REDUCTIONS_PER_FUSION: usize = 5;
/// At most this many evaluations of one fused instruction per output element
/// (`FusionNodeIndexingEvaluation::kAllowedCodeDuplication`).
pub const MAX_CODE_DUPLICATION: usize = 15;

/// `fusion-decisions.txt`: a summary line, then per pass and computation one line per
/// pair: `fused` / `not fused`, `producer -> consumer`, the fusion it went into, the rule.
pub fn decisions_text(log: &[FusionDecision]) -> String {
    let fused = log.iter().filter(|d| d.fused).count();
    let mut out = format!(
        "{} producer-consumer pairs considered, {fused} fused, {} not fused\n",
        log.len(),
        log.len() - fused
    );
    let mut section = (String::new(), String::new());
    for d in log {
        if (d.pass.to_string(), d.computation.clone()) != section {
            section = (d.pass.to_string(), d.computation.clone());
            out.push_str(&format!(
                "\npass {}, computation {}:\n",
                d.pass, d.computation
            ));
        }
        let verdict = if d.fused { "fused    " } else { "not fused" };
        let into = d
            .result
            .as_ref()
            .map(|r| format!(" (into {r})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {verdict}  {} -> {}{into}: {}\n",
            d.producer, d.consumer, d.rule
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_groups_by_computation_and_says_the_rule() {
        let log = vec![
            FusionDecision {
                pass: "fusion",
                computation: "main".into(),
                producer: "exp.1".into(),
                consumer: "reduce-window.2".into(),
                fused: false,
                rule: FusionRule::ExpensiveReused {
                    producer: Opcode::Exp,
                    consumer: Opcode::ReduceWindow,
                    reads: 9,
                },
                result: None,
            },
            FusionDecision {
                pass: "fusion",
                computation: "main".into(),
                producer: "broadcast.1".into(),
                consumer: "add.2".into(),
                fused: true,
                rule: FusionRule::LoopFusion {
                    producer: Opcode::Broadcast,
                },
                result: Some("broadcast_add_fusion".into()),
            },
        ];
        let text = decisions_text(&log);
        assert_eq!(
            text,
            "2 producer-consumer pairs considered, 1 fused, 1 not fused\n\
             \npass fusion, computation main:\n\
             \x20 not fused  exp.1 -> reduce-window.2: exponential is expensive and the consumer (reduce-window) reads each element 9 times\n\
             \x20 fused      broadcast.1 -> add.2 (into broadcast_add_fusion): broadcast is computed inside the consumer's loop, so its result never goes to memory\n"
        );
    }
}
