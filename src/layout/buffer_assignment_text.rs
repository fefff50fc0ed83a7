//! The three dump texts of a buffer plan, in XLA's formats:
//! `-buffer-assignment.txt` (`BufferAssignment::ToString`), `-live-range.txt`
//! (`HloLiveRange::ToString`) and `-memory-usage-report.txt`
//! (`BufferAssignment::MemoryUsageReport`). XLA: `xla/service/buffer_assignment.cc`,
//! `xla/hlo/analysis/hlo_live_range.cc`.

use std::fmt::Write as _;

use super::alias_analysis::index_string;
use super::buffer_assignment::{AllocationKind, BufferAllocation, BufferAssignment, ValueInfo};
use crate::ir::{Module, Shape};

impl BufferAssignment {
    /// `-buffer-assignment.txt`, in XLA's format: one block per allocation, its header
    /// (`allocation N: size S, parameter P, shape |f32[4]| at ShapeIndex {}:`, `, constant`,
    /// `, maybe-live-out`, `, preallocated-temp`) and one line per value in it.
    pub fn to_text(&self, module: &Module) -> String {
        let mut out = String::from("BufferAssignment:\n");
        for a in &self.allocations {
            let _ = writeln!(out, "{}", allocation_header(module, a, a.size.to_string()));
            let mut values: Vec<&ValueInfo> = self
                .values
                .iter()
                .filter(|v| v.slice.allocation == a.index)
                .collect();
            values.sort_by_key(|v| (v.slice.offset, v.id));
            for v in values {
                let _ = writeln!(
                    out,
                    " value: {} (size={},offset={}): {}",
                    value_name(module, v),
                    v.size,
                    v.slice.offset,
                    leaf_shape(module, v)
                );
            }
        }
        let total: usize = self.allocations.iter().map(|a| a.size).sum();
        let _ = writeln!(out, "\nTotal bytes used: {total} ({})", human_bytes(total));
        out
    }

    /// `-live-range.txt`: the flattened schedule, each value's buffer live range
    /// (definition to last use, in schedule times), and the values live at the peak.
    pub fn live_range_text(&self, module: &Module) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "HloLiveRange (max {}):", self.sequence.len());
        out.push_str("  InstructionSequence:\n");
        for (t, &(c, i)) in self.sequence.iter().enumerate() {
            let _ = writeln!(out, "    {t}:{}", module.computations[c].instrs[i].name);
        }
        out.push_str("  BufferLiveRange:\n");
        for v in &self.values {
            let name = &module.computations[v.computation].instrs[v.instruction].name;
            let _ = writeln!(
                out,
                "    {name}{}:{}-{}",
                index_string(&v.shape_index),
                v.live.start,
                v.live.end
            );
        }
        // Peak: the time with the most bytes live (buffers counted once per slice).
        let mut best = (0usize, 0usize);
        for t in 0..=self.sequence.len() {
            let bytes = self.live_at(t).iter().map(|v| v.size).sum::<usize>();
            if bytes > best.1 {
                best = (t, bytes);
            }
        }
        let _ = writeln!(out, "  Live ranges at {} (peak):", best.0);
        for v in self.live_at(best.0) {
            let name = &module.computations[v.computation].instrs[v.instruction].name;
            let _ = writeln!(out, "    {name}: {} bytes", v.size);
        }
        out
    }

    /// The values live at time `t`, one per distinct slice (values sharing bytes count once).
    fn live_at(&self, t: usize) -> Vec<&ValueInfo> {
        let mut seen = std::collections::HashSet::new();
        self.values
            .iter()
            .filter(|v| v.live.start <= t && t <= v.live.end && seen.insert(v.slice))
            .collect()
    }

    /// `-memory-usage-report.txt`: total bytes, the allocations sorted by size with their
    /// cumulative share, then each allocation's values grouped by offset, largest first.
    pub fn memory_usage_report(&self, module: &Module) -> String {
        let mut out = String::new();
        let total: usize = self.allocations.iter().map(|a| a.size).sum();
        let _ = writeln!(out, "Total bytes used: {total} ({})\n", human_bytes(total));
        out.push_str("Allocations sorted by size:\n\n");
        out.push_str("cumulative_size; total_size - cumulative_size; allocation\n");
        out.push_str(&"-".repeat(78));
        out.push('\n');
        let mut sorted: Vec<&BufferAllocation> = self.allocations.iter().collect();
        sorted.sort_by_key(|a| (std::cmp::Reverse(a.size), a.index));
        let mut cumulative = 0;
        for a in &sorted {
            cumulative += a.size;
            let _ = writeln!(
                out,
                "{:>10}({:>3}%); {:>10}; {}",
                human_bytes(cumulative),
                percent(cumulative, total),
                human_bytes(total - cumulative),
                allocation_header(module, a, human_bytes(a.size))
            );
        }
        out.push_str("\n\nAllocations sorted by size with their values:\n");
        for a in &sorted {
            let _ = writeln!(out, "{}", allocation_header(module, a, human_bytes(a.size)));
            // Rows: one per offset (values sharing bytes over time), largest first.
            let mut rows: Vec<(usize, usize, Vec<String>)> = Vec::new();
            for v in self.values.iter().filter(|v| v.slice.allocation == a.index) {
                let shape = leaf_shape(module, v);
                match rows.iter_mut().find(|r| r.0 == v.slice.offset) {
                    Some(r) => {
                        r.1 = r.1.max(v.size);
                        r.2.push(shape);
                    }
                    None => rows.push((v.slice.offset, v.size, vec![shape])),
                }
            }
            rows.sort_by_key(|r| (std::cmp::Reverse(r.1), r.0));
            out.push_str("    cumulative_size; size; offset; used_by_n_values; shapes_list\n");
            let _ = writeln!(out, "    {}", "-".repeat(64));
            let mut cum = 0;
            for (offset, size, shapes) in &rows {
                cum += size;
                let _ = writeln!(
                    out,
                    "    {:>10}({:>3}%); {:>10}; {:>8}; {:>3}; {}",
                    human_bytes(cum),
                    percent(cum, a.size.max(1)),
                    human_bytes(*size),
                    offset,
                    shapes.len(),
                    shapes.join(", ")
                );
            }
            out.push('\n');
        }
        out
    }
}

/// `allocation N: size S, parameter P, shape |...| at ShapeIndex {...}, maybe-live-out:`.
fn allocation_header(module: &Module, a: &BufferAllocation, size: String) -> String {
    let mut h = format!("allocation {}: size {size}", a.index);
    match &a.kind {
        AllocationKind::Parameter {
            number,
            shape_index,
        } => {
            let shape = module
                .entry_parameter_shapes()
                .get(*number)
                .map(|s| s.to_string())
                .unwrap_or_default();
            let _ = write!(
                h,
                ", parameter {number}, shape |{shape}| at ShapeIndex {}",
                index_string(shape_index)
            );
        }
        AllocationKind::Constant => h.push_str(", constant"),
        AllocationKind::PreallocatedTemp => {}
        AllocationKind::Temp => {
            if a.maybe_live_out {
                let _ = write!(h, ", output shape is |{}|", module.result_shape());
            }
        }
    }
    if a.maybe_live_out {
        h.push_str(", maybe-live-out");
    }
    if a.kind == AllocationKind::PreallocatedTemp {
        h.push_str(", preallocated-temp");
    }
    h.push(':');
    h
}

/// `<7 add.3>`, or `<7 while.1{2}>` for a leaf of a tuple-shaped instruction.
fn value_name(module: &Module, v: &ValueInfo) -> String {
    let instr = &module.computations[v.computation].instrs[v.instruction];
    let index = if instr.shape.is_tuple() {
        index_string(&v.shape_index)
    } else {
        String::new()
    };
    format!("<{} {}{index}>", v.id, instr.name)
}

/// The value's leaf shape with its layout: `f32[4,8]{1,0}`.
fn leaf_shape(module: &Module, v: &ValueInfo) -> String {
    let instr = &module.computations[v.computation].instrs[v.instruction];
    match instr.shape.subshape(&v.shape_index) {
        Some(s @ Shape::Array(a)) => {
            let m2m: Vec<String> = a
                .layout
                .minor_to_major
                .iter()
                .map(|d| d.to_string())
                .collect();
            format!("{s}{{{}}}", m2m.join(","))
        }
        Some(s) => s.to_string(),
        None => String::new(),
    }
}

fn percent(part: usize, total: usize) -> usize {
    (part * 100).checked_div(total).unwrap_or(0)
}

/// XLA's `HumanReadableNumBytes`: `512B`, `1.50KiB`, `2.00MiB`.
pub(crate) fn human_bytes(n: usize) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n}B");
    }
    let mut x = n as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    format!("{x:.2}{}", UNITS[unit])
}
