//! What the later stages say about one traced instruction, gathered into a [`Story`] and
//! printed as `xlac explain` shows it. Every fact comes from a stage's own output: the final
//! module (fusion, layout), the buffer assignment (allocation, offset), the kernel set (the
//! kernel, its CLIF with `; %name` comments, its assembly) and the thunk sequence.

use std::fmt::{self, Write as _};

use super::lookup::Found;
use super::trace::{Step, follow};
use crate::compiler::Compiled;
use crate::ir::provenance::Change;
use crate::ir::{ComputationId, InstrId, Module, Op};
use crate::layout::buffer_assignment::AllocationKind;
use crate::pipeline::dump::dump_file_name;

/// One instruction's story.
#[derive(Clone, Debug)]
pub struct Story {
    /// The module's name (dump files are named after it).
    pub module_name: String,
    /// The instruction's name in the input.
    pub name: String,
    /// Its computation in the input.
    pub computation: String,
    /// How the query matched it (`name`, `op_name`, `source location`).
    pub matched_by: &'static str,
    /// Its line in the input text, when parsed from text.
    pub input_line: Option<u32>,
    /// `op_name` metadata, if any.
    pub op_name: Option<String>,
    /// What the passes did, in order.
    pub steps: Vec<Step>,
    /// Where its value lives in the final module (usually one place: the fused copy).
    pub locations: Vec<Location>,
}

/// The traced value at one place of the final module.
#[derive(Clone, Debug)]
pub struct Location {
    /// The computation (a fused computation, or the entry).
    pub computation: String,
    /// The instruction's name there.
    pub instruction: String,
    /// Its line in the final HLO (`cpu_after_optimizations.txt`).
    pub hlo: String,
    /// Its shape with layout (`f32[8,128]{1,0}`).
    pub shape: String,
    /// The fusion instruction that computes it, with its kind, when it is fused.
    pub fusion: Option<(String, String)>,
    /// The fusion rule that put it there (the last `fused into` step for that fusion).
    pub rule: Option<String>,
    /// Where the value (or, when fused, the fusion's output) lives.
    pub buffers: Vec<BufferFact>,
    /// True when the instruction is not its fusion's output: its value stays in registers.
    pub in_registers: bool,
    /// The kernel that computes it, if a generated kernel does.
    pub kernel: Option<String>,
    /// That kernel's loop nest in one line (`codegen/plan.rs`).
    pub kernel_plan: Option<String>,
    /// Lines of `thunk-sequence.txt` that run it.
    pub thunks: Vec<String>,
    /// CLIF lines annotated `; %name`, before Cranelift's optimizer.
    pub clif_no_opt: Vec<ClifLine>,
    /// CLIF lines annotated `; %name`, after it.
    pub clif_with_opt: Vec<ClifLine>,
    /// The kernel's whole assembly listing.
    pub asm: Vec<String>,
    /// The listing's lines that compute this instruction, by the machine code's source
    /// locations (`codegen::inspect::asm_map`); empty when the kernel has no mapping.
    pub asm_computing: Vec<ClifLine>,
}

/// One slice of the buffer plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferFact {
    /// The instruction whose value it is (the fusion, when fused).
    pub value: String,
    /// `{}` or the tuple index.
    pub shape_index: String,
    /// `allocation N`.
    pub allocation: usize,
    /// XLA's label (`preallocated-temp`, `parameter 0`, ...).
    pub kind: String,
    /// Byte offset in the allocation.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
}

/// One CLIF line and its 1-based line number in the dump file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClifLine {
    /// 1-based.
    pub line: usize,
    /// The text, trimmed.
    pub text: String,
}

/// Gathers the story of `found` (an instruction of `input`) in `compiled`.
pub fn tell(input: &Module, found: &Found, compiled: &Compiled) -> Story {
    let comp = &input.computations[found.computation];
    let instr = comp.instr(found.instruction);
    let (steps, tracked) = follow(&compiled.provenance, &comp.name, &instr.name);
    let exe = &compiled.executable;
    let module = &exe.module;
    let printed = module.to_string();
    let thunk_text = exe.thunk_sequence_text();
    let mut locations = Vec::new();
    for (c, n) in &tracked {
        let Some(cid) = module.find_computation(c) else {
            continue;
        };
        let Some(iid) = module.computations[cid].find(n) else {
            continue;
        };
        // A fusion instruction that we followed is reported through the fused copy
        // inside it when that copy is live too.
        if matches!(module.computations[cid].instr(iid).op, Op::Fusion { .. })
            && tracked.iter().any(|(c2, n2)| {
                fusion_of(module, c2).is_some_and(|(fc, fi)| {
                    fc == cid
                        && fi == iid
                        && module
                            .find_computation(c2)
                            .is_some_and(|x| module.computations[x].find(n2).is_some())
                })
            })
        {
            continue;
        }
        locations.push(locate(compiled, &steps, &printed, &thunk_text, cid, iid));
    }
    Story {
        module_name: module.name.clone(),
        name: instr.name.clone(),
        computation: comp.name.clone(),
        matched_by: found.matched_by,
        input_line: Some(comp.spans[found.instruction].line).filter(|&l| l > 0),
        op_name: instr.metadata.as_ref().and_then(|m| m.op_name.clone()),
        steps,
        locations,
    }
}

/// The fusion instruction (computation, id) that calls the computation named `fused`.
fn fusion_of(module: &Module, fused: &str) -> Option<(ComputationId, InstrId)> {
    let target = module.find_computation(fused)?;
    module.order.iter().find_map(|&c| {
        module.computations[c]
            .iter()
            .find_map(|(id, i)| match i.op {
                Op::Fusion { calls, .. } if calls == target => Some((c, id)),
                _ => None,
            })
    })
}

fn locate(
    compiled: &Compiled,
    steps: &[Step],
    printed: &str,
    thunk_text: &str,
    cid: ComputationId,
    iid: InstrId,
) -> Location {
    let exe = &compiled.executable;
    let module = &exe.module;
    let comp = &module.computations[cid];
    let instr = comp.instr(iid);
    let fusion = fusion_of(module, &comp.name);
    // The instruction that owns a buffer and a thunk: the fusion, or the instruction itself.
    let (owner_c, owner_i) = fusion.unwrap_or((cid, iid));
    let owner = module.computations[owner_c].instr(owner_i);
    let in_registers = fusion.is_some() && comp.root != iid && !root_outputs(comp).contains(&iid);
    let fusion_fact = fusion.map(|_| {
        let kind = match &owner.op {
            Op::Fusion { kind, .. } => kind.to_string(),
            _ => String::new(),
        };
        (owner.name.clone(), kind)
    });
    let rule = fusion_fact.as_ref().and_then(|(f, _)| {
        steps.iter().rev().find_map(|s| match &s.event.change {
            Change::Fused { fusion, rule } if fusion == f => Some(rule.clone()),
            _ => None,
        })
    });
    let buffers = buffers_of(compiled, owner_c, owner_i);
    let kernel = exe
        .kernels
        .kernels
        .iter()
        .find(|k| k.computation == owner_c && k.instruction == owner_i);
    let thunks: Vec<String> = thunk_text
        .lines()
        .filter(|l| mentions(l, &owner.name))
        .map(|l| l.trim().to_string())
        .collect();
    let pick = |text: &str| -> Vec<ClifLine> {
        let tag = format!("; %{}", instr.name);
        text.lines()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with(&tag))
            .map(|(i, l)| ClifLine {
                line: i + 1,
                text: l.trim().to_string(),
            })
            .collect()
    };
    let asm_computing: Vec<ClifLine> = match kernel {
        Some(k) if fusion.is_some() => k
            .artifacts
            .asm
            .lines()
            .zip(&k.artifacts.asm_hlo)
            .enumerate()
            .filter(|(_, (_, n))| n.as_deref() == Some(instr.name.as_str()))
            .map(|(i, (l, _))| ClifLine {
                line: i + 1,
                text: l.trim().to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let (clif_no_opt, clif_with_opt, asm) = match kernel {
        // The CLIF names come from the kernel's own fused computation; an instruction in
        // a non-fused computation has no CLIF of its own.
        Some(k) if fusion.is_some() => (
            pick(&k.artifacts.clif_no_opt),
            pick(&k.artifacts.clif_with_opt),
            k.artifacts.asm.lines().map(str::to_string).collect(),
        ),
        Some(k) => (
            Vec::new(),
            Vec::new(),
            k.artifacts.asm.lines().map(str::to_string).collect(),
        ),
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let hlo = hlo_line(printed, &comp.name, &instr.name);
    Location {
        computation: comp.name.clone(),
        instruction: instr.name.clone(),
        shape: shape_of_line(&hlo).unwrap_or_else(|| instr.shape.to_string()),
        hlo,
        fusion: fusion_fact,
        rule,
        buffers,
        in_registers,
        kernel: kernel.map(|k| k.name.clone()),
        kernel_plan: kernel.map(|k| k.plan.summary()),
        thunks,
        clif_no_opt,
        clif_with_opt,
        asm,
        asm_computing,
    }
}

/// The instructions a fused computation outputs: its root, or the root tuple's operands.
fn root_outputs(comp: &crate::ir::Computation) -> Vec<InstrId> {
    let root = comp.root_instr();
    if root.shape.is_tuple() {
        root.operands.clone()
    } else {
        vec![comp.root]
    }
}

/// True if `line` names `name` as a whole word (`kernel add_fusion` but not `add_fusion.1`).
fn mentions(line: &str, name: &str) -> bool {
    line.split(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '(' | ')'))
        .any(|w| w == name)
}

fn buffers_of(compiled: &Compiled, c: ComputationId, i: InstrId) -> Vec<BufferFact> {
    let exe = &compiled.executable;
    let name = &exe.module.computations[c].instr(i).name;
    let mut out = Vec::new();
    for a in &exe.buffers.allocations {
        for v in &a.values {
            if v.computation == c && v.instruction == i {
                out.push(BufferFact {
                    value: name.clone(),
                    shape_index: format!("{{{}}}", join(&v.shape_index)),
                    allocation: a.index,
                    kind: kind_label(&a.kind, a.maybe_live_out),
                    offset: v.offset,
                    size: v.size,
                });
            }
        }
    }
    out
}

fn join(index: &[usize]) -> String {
    index
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn kind_label(kind: &AllocationKind, live_out: bool) -> String {
    let base = match kind {
        AllocationKind::Parameter { number, .. } => format!("parameter {number}"),
        AllocationKind::Constant => "constant".into(),
        AllocationKind::PreallocatedTemp => "preallocated-temp".into(),
        AllocationKind::Temp => "temp".into(),
    };
    if live_out {
        format!("{base}, maybe-live-out")
    } else {
        base
    }
}

/// The shape with layout as the printer wrote it: the text after `= ` up to the opcode
/// (a parenthesized tuple shape is kept whole).
fn shape_of_line(line: &str) -> Option<String> {
    let rest = line.split_once(" = ")?.1;
    if rest.starts_with('(') {
        let mut depth = 0;
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(rest[..=i].to_string());
                    }
                }
                _ => {}
            }
        }
        None
    } else {
        rest.split_whitespace().next().map(str::to_string)
    }
}

/// The line `%name = ...` of computation `comp` in the printed module.
fn hlo_line(printed: &str, comp: &str, name: &str) -> String {
    let mut inside = false;
    let def = format!("%{name} = ");
    for line in printed.lines() {
        let t = line.trim_start();
        if !line.starts_with(' ') && !line.is_empty() {
            let header = t.strip_prefix("ENTRY ").unwrap_or(t);
            inside = header
                .strip_prefix('%')
                .unwrap_or(header)
                .starts_with(&format!("{comp} "));
            continue;
        }
        if inside && (t.starts_with(&def) || t.starts_with(&format!("ROOT {def}"))) {
            return t.to_string();
        }
    }
    String::new()
}

impl Story {
    /// The dump file `module_0000.NAME.SUFFIX` of this compile.
    pub fn dump_file(&self, suffix: &str) -> String {
        dump_file_name(0, &self.module_name, suffix)
    }
}

impl fmt::Display for Story {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        let line = self
            .input_line
            .map(|l| format!(", line {l} of the input"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "%{} (computation {}{line}; matched by {})",
            self.name, self.computation, self.matched_by
        );
        if let Some(op) = &self.op_name {
            let _ = writeln!(s, "  op_name: {op}");
        }
        let _ = writeln!(s, "\npasses (from the provenance log the passes write):");
        if self.steps.is_empty() {
            let _ = writeln!(s, "  no pass replaced, removed, copied or fused it");
        }
        for step in &self.steps {
            let e = &step.event;
            if step.absorbed {
                let _ = writeln!(
                    s,
                    "  {}: %{} in {} {} (it took over %{}'s uses)",
                    e.pass, e.instruction, e.computation, e.change, e.instruction
                );
            } else {
                let _ = writeln!(s, "  {e}");
            }
        }
        if self.locations.is_empty() {
            let _ = writeln!(
                s,
                "\nnot in the final module: its value is gone (folded away or dead), see the last pass above"
            );
        }
        for loc in &self.locations {
            self.write_location(&mut s, loc);
        }
        f.write_str(&s)
    }
}

impl Story {
    fn write_location(&self, s: &mut String, loc: &Location) {
        let _ = writeln!(
            s,
            "\nfinal HLO ({}):",
            self.dump_file("cpu_after_optimizations.txt")
        );
        let _ = writeln!(s, "  in {}: {}", loc.computation, loc.hlo);
        let _ = writeln!(s, "layout: {}", loc.shape);
        match &loc.fusion {
            Some((fusion, kind)) => {
                let _ = writeln!(s, "fusion: %{fusion} ({kind})");
                if let Some(rule) = &loc.rule {
                    let _ = writeln!(s, "  rule: {rule}");
                }
            }
            None => {
                let _ = writeln!(s, "fusion: none (it runs as its own thunk or needs none)");
            }
        }
        if loc.in_registers {
            let _ = writeln!(
                s,
                "buffer: none of its own: it is computed inside the kernel's loop and never stored; the fusion's output lives at"
            );
        } else {
            let _ = writeln!(
                s,
                "buffer ({}):",
                self.dump_file("cpu_after_optimizations-buffer-assignment.txt")
            );
        }
        if loc.buffers.is_empty() {
            let _ = writeln!(s, "  (no allocation: no buffer holds this value)");
        }
        for b in &loc.buffers {
            let _ = writeln!(
                s,
                "  %{}{}: allocation {} ({}), offset {}, {} bytes",
                b.value,
                if b.shape_index == "{}" {
                    String::new()
                } else {
                    format!(" {}", b.shape_index)
                },
                b.allocation,
                b.kind,
                b.offset,
                b.size
            );
        }
        match &loc.kernel {
            Some(k) => {
                let _ = writeln!(s, "kernel: {k}");
                if let Some(plan) = &loc.kernel_plan {
                    let file = self.dump_file(&format!("{k}.plan.txt"));
                    let _ = writeln!(s, "  plan: {plan} ({file})");
                }
            }
            None => {
                let _ = writeln!(s, "kernel: none (no generated kernel computes it)");
            }
        }
        for t in &loc.thunks {
            let _ = writeln!(s, "  thunk: {t}");
        }
        let Some(kernel) = &loc.kernel else {
            return;
        };
        for (what, lines, suffix) in [
            ("CLIF", &loc.clif_no_opt, "ir-no-opt.clif"),
            (
                "CLIF after Cranelift's optimizer",
                &loc.clif_with_opt,
                "ir-with-opt.clif",
            ),
        ] {
            let file = self.dump_file(&format!("{kernel}.{suffix}"));
            let _ = writeln!(
                s,
                "{what} ({file}), lines annotated `; %{}`:",
                loc.instruction
            );
            if lines.is_empty() {
                let _ = writeln!(s, "  none");
            }
            for l in lines {
                let _ = writeln!(s, "  {:>5}: {}", l.line, l.text);
            }
        }
        let asm_file = self.dump_file(&format!("{kernel}.asm"));
        if loc.asm_computing.is_empty() {
            // The whole listing would repeat once per instruction of a source-line query; it
            // is one file away.
            let _ = writeln!(
                s,
                "assembly ({asm_file}, {} lines): no machine instruction carries %{}'s source location (folded into other instructions' code, or only moved by code Cranelift added)",
                loc.asm.len(),
                loc.instruction
            );
        } else {
            let _ = writeln!(
                s,
                "assembly ({asm_file}), the {} of {} lines whose code Cranelift attributes to %{} (its source locations; register moves and loop control it adds carry none):",
                loc.asm_computing.len(),
                loc.asm.len(),
                loc.instruction
            );
            for l in &loc.asm_computing {
                let _ = writeln!(s, "  {:>5}: {}", l.line, l.text);
            }
        }
    }
}
