//! The runtime's tunable choices: how a kernel call splits its range over threads, how a
//! dot drives the GEMM, which convolution algorithm runs. Each thunk holds `None` (the
//! default rule, decided from sizes) or an explicit choice that `--autotune` found faster
//! on the real shapes (`src/autotune/`). No choice changes a result: every candidate
//! computes each output element the same way.
//! XLA: the candidates `xla/service/gpu/autotuning/` races on GPUs; XLA:CPU decides these
//! by fixed rules (`xla/service/cpu/parallel_task_assignment.cc`).

use std::fmt;

/// How a kernel call's work units are split over the rayon pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// One call on the calling thread.
    Serial,
    /// This many tasks (at least), each a contiguous range of work units.
    Tasks(u64),
}

/// How a dot drives the GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DotStrategy {
    /// One GEMM call per batch, single-threaded.
    GemmSerial,
    /// One GEMM call per batch, the GEMM itself multi-threaded.
    GemmParallel,
    /// Batches spread over threads, each GEMM single-threaded.
    BatchParallel,
}

/// Which convolution algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvAlgorithm {
    /// NHWC/HWIO f32: patches built in parallel straight from the input, GEMM in place.
    NhwcPatches,
    /// The general im2col + GEMM for every layout and attribute.
    GenericIm2col,
    /// NHWC/HWIO f32: direct convolution, all output channels of a few pixels in
    /// registers (`library/convolution/direct.rs`); the default when `KH·KW·C_in` is small.
    DirectSmallK,
}

/// One tunable choice, for any thunk kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// For a kernel call.
    Split(Split),
    /// For a dot (or the dot of a kOutput fusion).
    Dot(DotStrategy),
    /// For a convolution.
    Conv(ConvAlgorithm),
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Split(Split::Serial) => f.write_str("serial"),
            Choice::Split(Split::Tasks(n)) => write!(f, "tasks={n}"),
            Choice::Dot(DotStrategy::GemmSerial) => f.write_str("gemm-serial"),
            Choice::Dot(DotStrategy::GemmParallel) => f.write_str("gemm-parallel"),
            Choice::Dot(DotStrategy::BatchParallel) => f.write_str("batch-parallel"),
            Choice::Conv(ConvAlgorithm::NhwcPatches) => f.write_str("nhwc-patches"),
            Choice::Conv(ConvAlgorithm::GenericIm2col) => f.write_str("im2col-generic"),
            Choice::Conv(ConvAlgorithm::DirectSmallK) => f.write_str("direct"),
        }
    }
}

impl Choice {
    /// Parses the [`fmt::Display`] form (the autotune cache stores choices as text).
    pub fn parse(text: &str) -> Option<Choice> {
        Some(match text {
            "serial" => Choice::Split(Split::Serial),
            "gemm-serial" => Choice::Dot(DotStrategy::GemmSerial),
            "gemm-parallel" => Choice::Dot(DotStrategy::GemmParallel),
            "batch-parallel" => Choice::Dot(DotStrategy::BatchParallel),
            "nhwc-patches" => Choice::Conv(ConvAlgorithm::NhwcPatches),
            "im2col-generic" => Choice::Conv(ConvAlgorithm::GenericIm2col),
            "direct" => Choice::Conv(ConvAlgorithm::DirectSmallK),
            _ => Choice::Split(Split::Tasks(text.strip_prefix("tasks=")?.parse().ok()?)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_round_trip_through_text() {
        for c in [
            Choice::Split(Split::Serial),
            Choice::Split(Split::Tasks(8)),
            Choice::Dot(DotStrategy::GemmSerial),
            Choice::Dot(DotStrategy::GemmParallel),
            Choice::Dot(DotStrategy::BatchParallel),
            Choice::Conv(ConvAlgorithm::NhwcPatches),
            Choice::Conv(ConvAlgorithm::GenericIm2col),
            Choice::Conv(ConvAlgorithm::DirectSmallK),
        ] {
            assert_eq!(Choice::parse(&c.to_string()), Some(c));
        }
        assert_eq!(Choice::parse("tasks=x"), None);
        assert_eq!(Choice::parse("fast"), None);
    }
}
