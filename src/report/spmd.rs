//! The views of a sharded run: the partitioner's decisions (the spmd-decisions log as a
//! table) and the collectives trace as a timeline, one lane per device, each collective a
//! wait (arrival until the group was complete) then its transfer, with the per-device table
//! under it. Both read the same values the dump's `spmd-decisions.txt` and
//! `collectives.trace.json` are written from.

use std::fmt::Write as _;

use super::html::{bytes, esc};
use crate::runtime::collectives::Trace;
use crate::spmd::DecisionLog;

/// Collectives drawn at most; the table under the timeline lists every one.
const MAX_DRAWN_EVENTS: usize = 4000;

/// The decisions as a table.
pub fn decisions_table(log: &DecisionLog) -> String {
    let mut s = format!(
        "<p>{} partitions; one row per instruction of the entry computation, in order: the \
         shardings its operands arrived with, the one propagation gave it and why, the \
         partitioner's rule, the per-device shape, and the collectives it made.</p>\
         <table id=\"spmd-decisions\"><tr><th>instruction</th><th>opcode</th><th>operands' shardings</th>\
         <th>sharding</th><th>from</th><th>rule</th><th>per-device shape</th><th>collectives and slices</th></tr>",
        log.num_partitions
    );
    for d in &log.decisions {
        let actions = if d.actions.is_empty() {
            String::new()
        } else {
            d.actions
                .iter()
                .map(|a| format!("<div class=\"action\">{}</div>", esc(a)))
                .collect()
        };
        let _ = write!(
            s,
            "<tr{}><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td>\
             <td>{}</td><td>{}</td><td><code>{}</code></td><td>{actions}</td></tr>",
            if d.actions.is_empty() {
                ""
            } else {
                " class=\"has-actions\""
            },
            esc(&d.instruction),
            esc(&d.opcode),
            esc(&d.operands.join(", ")),
            esc(&d.sharding),
            esc(&d.propagated_by),
            esc(&d.rule),
            esc(&d.shard_shape),
        );
    }
    s.push_str("</table>");
    s
}

/// The trace as an SVG timeline and the per-device table.
pub fn collectives_view(trace: &Trace) -> String {
    let devices = trace
        .grid
        .as_ref()
        .map_or(0, |g| g.count())
        .max(trace.events.iter().map(|e| e.device + 1).max().unwrap_or(0));
    let end_us = trace
        .events
        .iter()
        .map(|e| e.end_us)
        .fold(0.0_f64, f64::max)
        .max(1e-3);
    let total_bytes: u64 = trace.events.iter().map(|e| e.bytes_out).sum();
    let mut s = format!(
        "<p>{} collectives on {devices} devices ({} scheduler), {} written in all, over {:.1} µs. \
         Hatched: waiting for the group; solid: the transfer. Hover a box for the op, its group and bytes.</p>",
        trace.events.len(),
        esc(&trace.mode),
        bytes(total_bytes),
        end_us
    );
    const LANE: usize = 28;
    const LEFT: usize = 90;
    const WIDTH: usize = 1000;
    let height = devices * LANE + 30;
    let x = |us: f64| LEFT as f64 + (us / end_us) * (WIDTH - LEFT - 10) as f64;
    let _ = write!(
        s,
        "<svg id=\"collectives-timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\"><defs><pattern id=\"wait\" width=\"6\" height=\"6\" \
         patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#bbb\" stroke-width=\"3\"/></pattern></defs>"
    );
    for d in 0..devices {
        let y = 10 + d * LANE;
        let _ = write!(
            s,
            "<text x=\"4\" y=\"{}\">device {d}</text><line x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e3e3e3\"/>",
            y + LANE / 2 + 4,
            y + LANE - 2,
            WIDTH - 10,
            y + LANE - 2
        );
    }
    for e in trace.events.iter().take(MAX_DRAWN_EVENTS) {
        let y = 10 + e.device * LANE + 3;
        let h = LANE - 8;
        let (xa, xs, xe) = (x(e.arrive_us), x(e.start_us), x(e.end_us));
        let title = format!(
            "device {}: {} (group {:?}, #{}): waited {:.1} µs, moved in {:.1} µs, {} in, {} out",
            e.device,
            e.op,
            e.group,
            e.sequence,
            e.start_us - e.arrive_us,
            e.end_us - e.start_us,
            bytes(e.bytes_in),
            bytes(e.bytes_out)
        );
        let _ = write!(
            s,
            "<g class=\"collective\"><title>{}</title><rect x=\"{xa:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"{h}\" fill=\"url(#wait)\"/>\
             <rect x=\"{xs:.1}\" y=\"{y}\" width=\"{:.1}\" height=\"{h}\" fill=\"{}\" stroke=\"#555\" stroke-width=\"0.5\"/></g>",
            esc(&title),
            (xs - xa).max(0.5),
            (xe - xs).max(3.0),
            op_color(&e.op)
        );
    }
    s.push_str("</svg>");
    if trace.events.len() > MAX_DRAWN_EVENTS {
        let _ = write!(
            s,
            "<p class=\"muted\">The first {MAX_DRAWN_EVENTS} collectives are drawn; the table lists all {}.</p>",
            trace.events.len()
        );
    }
    let _ = write!(s, "<pre class=\"table\">{}</pre>", esc(&trace.table()));
    s
}

/// One color per collective kind (the op text starts with XLA's opcode).
fn op_color(op: &str) -> &'static str {
    let kind = op.split_whitespace().next().unwrap_or("");
    match kind {
        "all-reduce" => "#60a5fa",
        "all-gather" => "#34d399",
        "reduce-scatter" => "#f59e0b",
        "all-to-all" => "#a78bfa",
        "collective-permute" => "#f472b6",
        _ => "#94a3b8",
    }
}
