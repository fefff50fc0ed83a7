//! The dump folder (`--dump-to DIR`): the only code that knows dump file names and writes
//! `index.txt`. Names follow XLA's (`xla/service/dump.cc`, `FilenameFor`), see design.md §5.
//! Stages never write files: they return printable values, and `compiler/` hands them here.

use std::path::{Path, PathBuf};

/// Something to dump; decides the file name and the `index.txt` description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Artifact<'a> {
    /// The StableHLO input as given.
    StableHlo,
    /// HLO as ingested.
    BeforeOptimizations,
    /// HLO after a pass that changed it; numbered in order.
    AfterPass {
        /// The innermost pipeline.
        pipeline: &'a str,
        /// The pass that changed the module.
        after: &'a str,
        /// The pass that runs next (`pipeline-end` at the end).
        before: &'a str,
    },
    /// The final HLO.
    CpuAfterOptimizations,
    /// Milliseconds per pass and per kernel.
    CompileTimes,
    /// Every producer–consumer pair the fusion passes considered, and the rule that decided.
    FusionDecisions,
    /// `fp-contraction.txt`: the multiply-add pairs kernels compute as one FMA.
    FpContraction,
    /// Per instruction: shardings in and out, the partitioner's rule, the collectives it made.
    SpmdDecisions,
    /// Every dot in a loop body `while-loop-input-projection` considered: hoisted or why not.
    WhileLoopInputProjection,
    /// The buffer plan: allocations and the values in them (XLA's format).
    BufferAssignment,
    /// Schedule positions where each value is defined and last used.
    LiveRange,
    /// Allocations by size, per memory space.
    MemoryUsageReport,
    /// The thunk sequence the runtime executes.
    ThunkSequence,
    /// Every collective per device (Chrome trace format: one lane per device, wait and
    /// transfer spans, bytes).
    CollectivesTrace,
    /// Every collective per device as a table: op, group, bytes, wait time.
    CollectivesTable,
    /// `report.html`: the one-page report (`crate::report`); named without the module prefix.
    Report,
    /// The module graph in Model Explorer's JSON graph format, fusions as namespaces.
    ModelExplorerGraph,
    /// Per-node bytes moved, as a Model Explorer node data overlay for that graph.
    ModelExplorerNodeData,
    /// A kernel's loop-nest plan: the strategy, every guard and why (`codegen/plan.rs`).
    KernelPlan {
        /// The kernel (its fusion instruction's name).
        kernel: &'a str,
    },
    /// One kernel's Cranelift IR, before (`optimized: false`) or after Cranelift's optimizer.
    KernelClif {
        /// The kernel (its fusion instruction's name).
        kernel: &'a str,
        /// After the optimizer.
        optimized: bool,
    },
    /// One kernel's machine code, disassembled; `isa` is `None` for the host.
    KernelAsm {
        /// The kernel.
        kernel: &'a str,
        /// Another ISA's name (`aarch64`), or `None` for the host.
        isa: Option<&'a str>,
    },
    /// One thunk's autotune race (`KERNEL.autotune.txt`): candidates, times, winner.
    Autotune {
        /// The kernel or library thunk's instruction name.
        thunk: &'a str,
    },
    /// The listing file of a kernel another ISA could not compile (`KERNEL.ISA.asm` holds
    /// the reason; `index.txt` says so too).
    KernelAsmFailed {
        /// The kernel.
        kernel: &'a str,
        /// The ISA's name.
        isa: &'a str,
        /// Why (one line).
        reason: &'a str,
    },
}

/// Writes dump files into one folder and keeps the index.
pub struct DumpWriter {
    dir: PathBuf,
    module_name: String,
    module_id: usize,
    step: usize,
    pass_filter: Option<regex::Regex>,
    index: Vec<(String, String)>,
}

impl DumpWriter {
    /// Creates `dir` if needed. `pass_filter` limits per-pass files to passes whose name
    /// (either neighbour) matches, as `--xla_dump_hlo_pass_re` does.
    pub fn new(
        dir: &Path,
        module_name: &str,
        pass_filter: Option<regex::Regex>,
    ) -> Result<DumpWriter, DumpError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| DumpError::new(dir, DumpAction::CreateFolder, &e))?;
        Ok(DumpWriter {
            dir: dir.to_path_buf(),
            module_name: module_name.to_string(),
            module_id: 0,
            step: 0,
            pass_filter,
            index: Vec::new(),
        })
    }

    /// A writer that adds to the dump already in `dir` (its `index.txt` lines are kept):
    /// what a run writes after the compile's dump is finished.
    pub fn reopen(dir: &Path, module_name: &str) -> Result<DumpWriter, DumpError> {
        let mut w = DumpWriter::new(dir, module_name, None)?;
        if let Ok(text) = std::fs::read_to_string(dir.join("index.txt")) {
            w.index = text
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(f, d)| (f.to_string(), d.to_string()))
                .collect();
        }
        Ok(w)
    }

    /// Writes one artifact. Per-pass files that the filter excludes are skipped, but still
    /// take a step number, so numbers do not depend on the filter.
    pub fn write(&mut self, what: Artifact<'_>, text: &str) -> Result<(), DumpError> {
        let (suffix, description) = match what {
            Artifact::StableHlo => (
                "stablehlo.mlir".to_string(),
                if text.starts_with(crate::front::stablehlo::bytecode::TEXT_HEADER) {
                    "the StableHLO portable artifact given (MLIR bytecode), printed as text; its first line names the producer and bytecode version".to_string()
                } else {
                    "the StableHLO input as given".to_string()
                },
            ),
            Artifact::BeforeOptimizations => (
                "before_optimizations.txt".to_string(),
                "HLO as ingested".to_string(),
            ),
            Artifact::AfterPass {
                pipeline,
                after,
                before,
            } => {
                let step = self.step;
                self.step += 1;
                if let Some(re) = &self.pass_filter
                    && !re.is_match(after)
                    && !re.is_match(before)
                {
                    return Ok(());
                }
                (
                    format!(
                        "{step:04}.{}.after_{after}.before_{before}.txt",
                        sanitize_file_name(pipeline)
                    ),
                    format!("HLO after pass {after} (pipeline {pipeline}), which changed it"),
                )
            }
            Artifact::CpuAfterOptimizations => (
                "cpu_after_optimizations.txt".to_string(),
                "final HLO, after the whole pipeline".to_string(),
            ),
            Artifact::CompileTimes => (
                "compile-times.txt".to_string(),
                "milliseconds per pass and per kernel".to_string(),
            ),
            Artifact::FusionDecisions => (
                "fusion-decisions.txt".to_string(),
                "every producer-consumer pair fusion considered, and the rule that decided"
                    .to_string(),
            ),
            Artifact::FpContraction => (
                "fp-contraction.txt".to_string(),
                "per fusion: the multiply + add pairs its kernel computes as one fused multiply-add"
                    .to_string(),
            ),
            Artifact::SpmdDecisions => (
                "spmd-decisions.txt".to_string(),
                "per instruction: its sharding and why, the partitioner's rule, the collectives it made"
                    .to_string(),
            ),
            Artifact::WhileLoopInputProjection => (
                "while-loop-input-projection.txt".to_string(),
                "every dot in a loop body: computed for all steps before the loop, or why not"
                    .to_string(),
            ),
            Artifact::BufferAssignment => (
                "cpu_after_optimizations-buffer-assignment.txt".to_string(),
                "the buffer plan: allocations, offsets and the values in them".to_string(),
            ),
            Artifact::LiveRange => (
                "cpu_after_optimizations-live-range.txt".to_string(),
                "where in the schedule each value is defined and last used".to_string(),
            ),
            Artifact::MemoryUsageReport => (
                "cpu_after_optimizations-memory-usage-report.txt".to_string(),
                "allocations by size".to_string(),
            ),
            Artifact::Report => (
                "report.html".to_string(),
                "one page: cost per thunk, the module graph, the pipeline pass by pass, HLO/CLIF/assembly side by side, fusion decisions, buffer liveness; SPMD decisions and collectives for sharded runs".to_string(),
            ),
            Artifact::ModelExplorerGraph => (
                "model-explorer.json".to_string(),
                "the module graph for Google's Model Explorer (its JSON graph format; fusions are namespaces, cost and buffers are node attributes)".to_string(),
            ),
            Artifact::ModelExplorerNodeData => (
                "model-explorer.node-data.json".to_string(),
                "bytes moved per node, a Model Explorer node data overlay for model-explorer.json".to_string(),
            ),
            Artifact::ThunkSequence => (
                "thunk-sequence.txt".to_string(),
                "what the runtime executes, in order: kernels, library calls, control flow"
                    .to_string(),
            ),
            Artifact::KernelPlan { kernel } => (
                format!("{}.plan.txt", sanitize_file_name(kernel)),
                format!("kernel {kernel}: the loop nest the planner chose, every guard and why"),
            ),
            Artifact::KernelClif { kernel, optimized } => {
                let (suffix, when) = if optimized {
                    ("ir-with-opt.clif", "after")
                } else {
                    ("ir-no-opt.clif", "before")
                };
                (
                    format!("{}.{suffix}", sanitize_file_name(kernel)),
                    format!("kernel {kernel}: Cranelift IR {when} Cranelift's optimizer"),
                )
            }
            Artifact::KernelAsm { kernel, isa } => match isa {
                None => (
                    format!("{}.asm", sanitize_file_name(kernel)),
                    format!("kernel {kernel}: host machine code, disassembled"),
                ),
                Some(isa) => (
                    format!("{}.{isa}.asm", sanitize_file_name(kernel)),
                    format!("kernel {kernel}: {isa} machine code, disassembled"),
                ),
            },
            Artifact::CollectivesTrace => (
                "collectives.trace.json".to_string(),
                "every collective per device: waits, transfers, bytes (Chrome trace format; one lane per device)".to_string(),
            ),
            Artifact::CollectivesTable => (
                "collectives.txt".to_string(),
                "every collective per device: op, group, bytes, wait and transfer time".to_string(),
            ),
            Artifact::Autotune { thunk } => (
                format!("{}.autotune.txt", sanitize_file_name(thunk)),
                format!("{thunk}: autotune race (every candidate, its time, the winner)"),
            ),
            Artifact::KernelAsmFailed {
                kernel,
                isa,
                reason,
            } => (
                format!("{}.{isa}.asm", sanitize_file_name(kernel)),
                format!("kernel {kernel}: NOT compiled for {isa}: {reason}"),
            ),
        };
        let name = if what == Artifact::Report {
            suffix
        } else {
            dump_file_name(self.module_id, &self.module_name, &suffix)
        };
        let path = self.dir.join(&name);
        std::fs::write(&path, text).map_err(|e| DumpError::new(&path, DumpAction::Write, &e))?;
        // A rewritten file keeps one line.
        self.index.retain(|(n, _)| *n != name);
        self.index.push((name, description));
        Ok(())
    }

    /// Writes `index.txt`: one line per file, in the order written.
    pub fn finish(self) -> Result<(), DumpError> {
        let text: String = self
            .index
            .iter()
            .map(|(f, what)| format!("{f}\t{what}\n"))
            .collect();
        let path = self.dir.join("index.txt");
        std::fs::write(&path, text).map_err(|e| DumpError::new(&path, DumpAction::Write, &e))
    }
}

/// A dump file or folder that could not be written: always the environment's or the
/// user's path ([`crate::ir::ErrorKind::Invalid`]), never the module's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpError {
    /// The file or folder.
    pub path: std::path::PathBuf,
    /// What was being done to it.
    pub action: DumpAction,
    /// The operating system's reason.
    pub reason: String,
}

/// What a [`DumpError`] was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpAction {
    /// Creating the dump folder.
    CreateFolder,
    /// Writing one file.
    Write,
}

impl DumpError {
    fn new(path: &Path, action: DumpAction, e: &std::io::Error) -> DumpError {
        DumpError {
            path: path.to_path_buf(),
            action,
            reason: e.to_string(),
        }
    }
}

impl std::fmt::Display for DumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = match self.action {
            DumpAction::CreateFolder => "create",
            DumpAction::Write => "write",
        };
        write!(f, "cannot {verb} {}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for DumpError {}

/// XLA's `SanitizeFileName` (`xla/util.cc`): `/ \ [ ]` and spaces become `_`.
pub fn sanitize_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '[' | ']' | ' ') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The file name `module_NNNN.NAME.SUFFIX`; the name part is dropped when the result would
/// exceed 255 characters, as XLA does.
pub fn dump_file_name(module_id: usize, module_name: &str, suffix: &str) -> String {
    let with_name = format!(
        "module_{module_id:04}.{}.{suffix}",
        sanitize_file_name(module_name)
    );
    if with_name.len() <= 255 {
        with_name
    } else {
        format!("module_{module_id:04}.{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_xla() {
        assert_eq!(
            dump_file_name(0, "jit_f", "before_optimizations.txt"),
            "module_0000.jit_f.before_optimizations.txt"
        );
        assert_eq!(sanitize_file_name("a/b\\c[d] e"), "a_b_c_d__e");
        assert_eq!(
            dump_file_name(3, &"x".repeat(300), "txt"),
            "module_0003.txt"
        );
    }
}
