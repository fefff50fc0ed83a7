//! The buffer liveness timeline: one bar per value of the buffer plan, from the schedule
//! position that defines it to its last use (the `-live-range.txt` dump, drawn), colored by
//! allocation, so reuse of the `preallocated-temp` arena shows as bars of one color that
//! never overlap in time at the same offset.

use std::fmt::Write as _;

use super::html::{bytes, esc};
use crate::ir::Module;
use crate::layout::BufferAssignment;

const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
];

/// The timeline as inline SVG (empty note when the plan has no values).
pub fn svg(module: &Module, buffers: &BufferAssignment) -> String {
    let values = &buffers.values;
    if values.is_empty() {
        return "<p class=\"muted\">no buffers</p>".to_string();
    }
    let steps = buffers.sequence.len().max(1);
    const LABEL_W: usize = 300;
    const PLOT_W: usize = 600;
    const ROW: usize = 16;
    let width = LABEL_W + PLOT_W + 20;
    let height = values.len() * ROW + 30;
    let x = |t: usize| LABEL_W + t * PLOT_W / steps;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg id=\"liveness\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    );
    // Time axis: one tick per schedule position.
    for t in 0..=steps {
        let gx = x(t);
        let _ = write!(
            s,
            "<line x1=\"{gx}\" y1=\"14\" x2=\"{gx}\" y2=\"{height}\" stroke=\"#eee\"/>"
        );
        if steps <= 60 || t % (steps / 30).max(1) == 0 {
            let _ = write!(
                s,
                "<text x=\"{gx}\" y=\"11\" text-anchor=\"middle\">{t}</text>"
            );
        }
    }
    for (row, v) in values.iter().enumerate() {
        let name = &module.computations[v.computation].instrs[v.instruction].name;
        let index = if v.shape_index.is_empty() {
            String::new()
        } else {
            format!(
                "{{{}}}",
                v.shape_index
                    .iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        let top = 20 + row * ROW;
        let color = PALETTE[v.slice.allocation % PALETTE.len()];
        let x0 = x(v.live.start);
        let w = (x(v.live.end.max(v.live.start)) - x0).max(3);
        let label = format!("{name}{index}");
        let tip = format!(
            "{label}: live {}-{}, allocation {} offset {}, {}",
            v.live.start,
            v.live.end,
            v.slice.allocation,
            v.slice.offset,
            bytes(v.size as u64)
        );
        let _ = write!(
            s,
            "<g class=\"live\"><title>{}</title><text x=\"4\" y=\"{}\">{}</text>\
             <rect x=\"{x0}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"{color}\"/></g>",
            esc(&tip),
            top + ROW - 4,
            esc(&format!(
                "{label} ({}, a{})",
                bytes(v.size as u64),
                v.slice.allocation
            )),
            top + 2,
            ROW - 4
        );
    }
    s.push_str("</svg>");
    s
}
