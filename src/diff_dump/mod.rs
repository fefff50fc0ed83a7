//! `xlac diff-dump`: xlac's decisions beside XLA's own dump. Both dump folders are read
//! the same way ([`folder`]: XLA's `--xla_dump_to` and xlac's `--dump-to` name their files
//! alike) and compared on what a learner asks first:
//!
//! - the passes each side ran (the numbered pass files) and the instructions after each;
//! - the kernels each side launches, and for every instruction of the original module
//!   (XLA's `before_optimizations.txt`) the kernel it landed in on each side ([`mapping`]:
//!   by names and metadata), with xlac's fusion rule and, where the two sides grouped it
//!   differently, the reasons from xlac's `fusion-decisions.txt` ([`decisions`]);
//! - the layouts of every entry parameter, the result and every dot or convolution operand;
//! - preallocated temp bytes and the largest allocations ([`buffers`]);
//! - with measured thunk times, the time of each xlac kernel.
//!
//! [`render`] prints it as text and as a section of `report.html`. Every figure is read
//! from the two folders' files; nothing is recomputed another way. XLA has no such tool;
//! the closest is reading both folders side by side by hand.

pub mod buffers;
pub mod decisions;
pub mod folder;
pub mod mapping;
pub mod passes;
pub mod render;

use std::collections::{BTreeSet, HashMap};

pub use folder::{Dump, read_dump};
use mapping::{Landing, Side};

use crate::front::hlo_text::shape_with_layout;
use crate::ir::{ComputationId, InstrId, Module, Op, Opcode};

/// Why a comparison could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffDumpError {
    /// A file or folder could not be read.
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// The folder has no `module_NNNN.NAME.cpu_after_optimizations.txt`.
    NoModule {
        /// The folder.
        dir: String,
    },
    /// `--module NAME` names no module of the folder.
    UnknownModule {
        /// The folder.
        dir: String,
        /// The name asked for.
        wanted: String,
        /// The modules present.
        found: Vec<String>,
    },
    /// A file is larger than [`folder::MAX_FILE_BYTES`].
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        bytes: u64,
    },
    /// A file is not UTF-8 text.
    NotText {
        /// The file.
        path: String,
    },
    /// An HLO file does not parse (the parser's `file:line:col: message`).
    Parse(String),
    /// Neither folder has a `before_optimizations.txt` to take the original module from.
    NoInput,
}

impl std::fmt::Display for DiffDumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffDumpError::Io { path, message } => write!(f, "cannot read {path}: {message}"),
            DiffDumpError::NoModule { dir } => write!(
                f,
                "{dir} is not a dump folder: no module_NNNN.NAME.cpu_after_optimizations.txt \
                 in it (XLA writes one with --xla_dump_to, xlac with --dump-to)"
            ),
            DiffDumpError::UnknownModule { dir, wanted, found } => write!(
                f,
                "{dir} has no module {wanted}; it has {}",
                found.join(", ")
            ),
            DiffDumpError::TooLarge { path, bytes } => write!(
                f,
                "{path} is {bytes} bytes, over the {} byte limit for a dump file",
                folder::MAX_FILE_BYTES
            ),
            DiffDumpError::NotText { path } => write!(f, "{path} is not UTF-8 text"),
            DiffDumpError::Parse(e) => write!(f, "{e}"),
            DiffDumpError::NoInput => f.write_str(
                "neither dump has a before_optimizations.txt to take the original module from",
            ),
        }
    }
}

impl std::error::Error for DiffDumpError {}

/// One instruction of the original module and where it landed on each side.
#[derive(Clone, Debug)]
pub struct Row {
    /// Its computation in the original module.
    pub computation: String,
    /// Its name there.
    pub name: String,
    /// Its opcode.
    pub opcode: Opcode,
    /// XLA's side.
    pub xla: Landing,
    /// xlac's side.
    pub xlac: Landing,
    /// xlac's fusion rule for it (from `fusion-decisions.txt`), when a decision fused it.
    pub rule: Option<String>,
    /// When the two sides grouped it with different instructions, why, in words: the
    /// decisions about it that xlac did not fuse (`xlac did not fuse producer -> consumer:
    /// rule`), or which side holds more of the original module in that kernel.
    pub differs: Option<Vec<String>>,
}

/// One layout both sides chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutRow {
    /// `parameter 0 (x.1)`, `result`, `dot dot.3: lhs`, ...
    pub what: String,
    /// XLA's shape with layout, or `-` when not found.
    pub xla: String,
    /// xlac's.
    pub xlac: String,
}

/// One side's summary figures.
#[derive(Clone, Debug)]
pub struct SideSummary {
    /// Where its dump is.
    pub dir: String,
    /// The numbered pass files.
    pub passes: Vec<passes::PassFile>,
    /// Instructions in its final HLO.
    pub final_counts: passes::Counts,
    /// Its kernels.
    pub kernels: Vec<mapping::Kernel>,
    /// Its buffer plan, when the dump has one.
    pub buffers: Option<buffers::BufferSummary>,
}

/// The whole comparison.
#[derive(Clone, Debug)]
pub struct DiffDump {
    /// The module's name.
    pub module_name: String,
    /// Where the original module came from.
    pub input_file: String,
    /// Instructions of the original module.
    pub input_counts: passes::Counts,
    /// XLA's side.
    pub xla: SideSummary,
    /// xlac's side.
    pub xlac: SideSummary,
    /// Every instruction of the original module, in text order (entry first).
    pub rows: Vec<Row>,
    /// Layouts of parameters, result and dot/convolution operands.
    pub layouts: Vec<LayoutRow>,
    /// Mean milliseconds per run of each xlac thunk, when measured, and the run count.
    pub times: Option<(HashMap<String, f64>, usize)>,
    /// Other modules found in XLA's folder.
    pub other_xla_modules: Vec<String>,
}

/// Compares XLA's dump with xlac's. The original module is XLA's `before_optimizations`
/// (xlac's when XLA's folder has none).
pub fn diff(xla: &Dump, xlac: &Dump) -> Result<DiffDump, DiffDumpError> {
    let (input, input_file) = match (&xla.before, &xlac.before) {
        (Some(m), _) => (
            m,
            format!(
                "{}/{}.before_optimizations.txt",
                xla.dir.display(),
                xla.prefix
            ),
        ),
        (None, Some(m)) => (
            m,
            format!(
                "{}/{}.before_optimizations.txt",
                xlac.dir.display(),
                xlac.prefix
            ),
        ),
        (None, None) => return Err(DiffDumpError::NoInput),
    };
    let xla_side = Side::new(&xla.after, false);
    let xlac_side = Side::new(&xlac.after, true);
    let decisions = xlac
        .fusion_decisions
        .as_deref()
        .map(decisions::parse_decisions)
        .unwrap_or_default();

    let mut rows = Vec::new();
    for (c, i) in instructions(input) {
        let instr = input.computations[c].instr(i);
        rows.push(Row {
            computation: input.computations[c].name.clone(),
            name: instr.name.clone(),
            opcode: instr.opcode(),
            xla: xla_side.locate(input, c, i),
            xlac: xlac_side.locate(input, c, i),
            rule: None,
            differs: None,
        });
    }
    // Who shares a kernel with whom, on each side.
    let members = |side: fn(&Row) -> &Landing| {
        let mut m: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for (r, row) in rows.iter().enumerate() {
            for &k in side(row).kernels() {
                m.entry(k).or_default().insert(r);
            }
        }
        m
    };
    let xla_members = members(|r| &r.xla);
    let xlac_members = members(|r| &r.xlac);
    let companions = |m: &HashMap<usize, BTreeSet<usize>>, l: &Landing| -> BTreeSet<usize> {
        l.kernels()
            .iter()
            .flat_map(|k| m.get(k).into_iter().flatten().copied())
            .collect()
    };
    for r in 0..rows.len() {
        let name = rows[r].name.clone();
        rows[r].rule = decisions
            .iter()
            .rev()
            .find(|d| d.fused && d.producer == name)
            .or_else(|| decisions.iter().find(|d| d.fused && d.consumer == name))
            .map(|d| d.rule.clone());
        let (x, y) = (&rows[r].xla, &rows[r].xlac);
        if x.kernels().is_empty() || y.kernels().is_empty() {
            continue;
        }
        let (cx, cy) = (companions(&xla_members, x), companions(&xlac_members, y));
        if cx != cy {
            let mut reasons: Vec<String> = decisions
                .iter()
                .filter(|d| !d.fused && (d.producer == name || d.consumer == name))
                .map(|d| {
                    format!(
                        "xlac did not fuse {} -> {}: {}",
                        d.producer, d.consumer, d.rule
                    )
                })
                .collect();
            let names = |set: &BTreeSet<usize>, other: &BTreeSet<usize>| -> String {
                let only: Vec<&str> = set
                    .difference(other)
                    .map(|&i| rows[i].name.as_str())
                    .collect();
                let shown = only.iter().take(4).copied().collect::<Vec<_>>().join(", ");
                match only.len() {
                    0..=4 => shown,
                    n => format!("{shown} and {} more", n - 4),
                }
            };
            if cy.is_superset(&cx) {
                reasons.push(format!(
                    "xlac's kernel also computes {} (other kernels on XLA's side)",
                    names(&cy, &cx)
                ));
            } else if cx.is_superset(&cy) {
                reasons.push(format!(
                    "XLA's kernel also computes {} (other kernels on xlac's side)",
                    names(&cx, &cy)
                ));
            } else if reasons.is_empty() {
                reasons.push(format!(
                    "only XLA's kernel computes {}; only xlac's computes {}",
                    names(&cx, &cy),
                    names(&cy, &cx)
                ));
            }
            rows[r].differs = Some(reasons);
        }
    }

    let layouts = layout_rows(input, &xla_side, &xlac_side);
    let summary = |d: &Dump, side: &Side<'_>| SideSummary {
        dir: d.dir.display().to_string(),
        passes: d.passes.clone(),
        final_counts: module_counts(&d.after),
        kernels: side.kernels.clone(),
        buffers: d
            .buffer_assignment
            .as_deref()
            .map(buffers::parse_buffer_assignment),
    };
    Ok(DiffDump {
        module_name: input.name.clone(),
        input_file,
        input_counts: module_counts(input),
        xla: summary(xla, &xla_side),
        xlac: summary(xlac, &xlac_side),
        rows,
        layouts,
        times: None,
        other_xla_modules: xla.other_modules.clone(),
    })
}

/// Live instructions of every live computation, the entry's first, each in its order.
pub fn instructions(module: &Module) -> Vec<(ComputationId, InstrId)> {
    let mut comps = vec![module.entry];
    comps.extend(module.order.iter().copied().filter(|&c| c != module.entry));
    comps
        .into_iter()
        .flat_map(|c| module.computations[c].order.iter().map(move |&i| (c, i)))
        .collect()
}

/// Live instructions in the entry and in every live computation.
pub fn module_counts(module: &Module) -> passes::Counts {
    passes::Counts {
        entry: module.entry_computation().order.len(),
        all: module
            .order
            .iter()
            .map(|&c| module.computations[c].order.len())
            .sum(),
    }
}

fn layout_rows(input: &Module, xla: &Side<'_>, xlac: &Side<'_>) -> Vec<LayoutRow> {
    let mut rows = Vec::new();
    let param_shapes = |m: &Module| -> HashMap<usize, String> {
        let entry = m.entry_computation();
        entry
            .order
            .iter()
            .filter_map(|&i| match entry.instr(i).op {
                Op::Parameter { number } => {
                    Some((number, shape_with_layout(&entry.instr(i).shape)))
                }
                _ => None,
            })
            .collect()
    };
    let (px, py) = (param_shapes(xla.module), param_shapes(xlac.module));
    let entry = input.entry_computation();
    let dash = || "-".to_string();
    for &i in &entry.order {
        if let Op::Parameter { number } = entry.instr(i).op {
            rows.push(LayoutRow {
                what: format!("parameter {number} ({})", entry.instr(i).name),
                xla: px.get(&number).cloned().unwrap_or_else(dash),
                xlac: py.get(&number).cloned().unwrap_or_else(dash),
            });
        }
    }
    rows.sort_by_key(|r| {
        r.what
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(usize::MAX)
    });
    let root = |m: &Module| shape_with_layout(&m.entry_computation().root_instr().shape);
    rows.push(LayoutRow {
        what: "result".into(),
        xla: root(xla.module),
        xlac: root(xlac.module),
    });
    for (c, i) in instructions(input) {
        let instr = input.computations[c].instr(i);
        if !matches!(instr.opcode(), Opcode::Dot | Opcode::Convolution) {
            continue;
        }
        let operands = |side: &Side<'_>| -> Vec<String> {
            let Some(&(fc, fi)) = side.matches(input, c, i).first() else {
                return vec![dash(), dash(), dash()];
            };
            let comp = &side.module.computations[fc];
            let f = comp.instr(fi);
            let shape = |k: usize| {
                f.operands
                    .get(k)
                    .map(|&o| shape_with_layout(&comp.instr(o).shape))
                    .unwrap_or_else(dash)
            };
            vec![shape(0), shape(1), shape_with_layout(&f.shape)]
        };
        let (ox, oy) = (operands(xla), operands(xlac));
        for (k, part) in ["lhs", "rhs", "out"].iter().enumerate() {
            rows.push(LayoutRow {
                what: format!("{} {} {part}", instr.opcode(), instr.name),
                xla: ox[k].clone(),
                xlac: oy[k].clone(),
            });
        }
    }
    rows
}
