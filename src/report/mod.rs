//! `report.html`: one self-contained page (inline CSS, JS and SVG; nothing fetched) that
//! `--dump-to DIR` writes beside the dump files. It shows the kernel graph, per kernel the
//! HLO, CLIF and assembly side by side with linked highlighting, bytes moved and flops per
//! thunk, the measured time per thunk when `xlac run` measured it (and the achieved GB/s,
//! against a STREAM triad figure when one is given), the fusion decisions and a buffer
//! liveness timeline.
//!
//! Every figure is read from the stages' own results (the executable's module, buffer plan
//! and kernels, the fusion decision log), never recomputed differently from the dump
//! files. XLA has no such page; the closest are its `--xla_dump_hlo_as_html` graph and the
//! profiler's trace viewer.
//!
//! Files: `cost.rs` (bytes and flops), `graph.rs` (kernel graph), `kernels.rs` (the
//! side-by-side panes), `liveness.rs` (the timeline), `html.rs` (escaping, CSS, script).

pub mod cost;
pub mod graph;
pub mod html;
pub mod kernels;
pub mod liveness;

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::fusion::FusionDecision;
use crate::ir::Op;
use crate::runtime::Executable;
use html::{bytes, count, esc};

/// What the page is drawn from.
pub struct ReportData<'a> {
    /// The compiled module, its buffer plan and kernels (with artifacts kept).
    pub executable: &'a Executable,
    /// The fusion passes' decisions.
    pub fusion_decisions: &'a [FusionDecision],
}

/// Measurements to show, when there are any.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Mean milliseconds per execution of each thunk, by thunk name, when a run measured
    /// them (`None` on `xlac compile`: the page says "not measured").
    pub thunk_ms: Option<HashMap<String, f64>>,
    /// How many executions the means are over.
    pub runs: usize,
    /// True when the times are the first execution's (`xlac run --profile-runs 0`): page
    /// faults and cold caches included.
    pub cold: bool,
    /// The machine's STREAM triad bandwidth in GB/s, if given: achieved bandwidth is shown
    /// as a fraction of it.
    pub triad_gbs: Option<f64>,
}

/// The page.
pub fn render(data: &ReportData<'_>, options: &ReportOptions) -> String {
    let exe = data.executable;
    let module = &exe.module;
    let printed = module.to_string();
    let kernel_names: Vec<&str> = exe
        .kernels
        .kernels
        .iter()
        .map(|k| k.name.as_str())
        .collect();
    let nodes = graph::nodes(module, &exe.buffers, &kernel_names);
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>xlac report: {name}</title><style>{css}</style></head><body>\
         <h1>xlac report: {name}</h1><div id=\"status\"></div>",
        name = esc(&module.name),
        css = html::CSS
    );
    let measured = match &options.thunk_ms {
        Some(_) if options.cold => {
            "measured on one cold run (the first execution: page faults and cold caches \
             included; xlac run --profile-runs N or xlac bench --dump-to average warm runs)"
                .to_string()
        }
        Some(_) => format!("mean over {} warm runs", options.runs),
        None => "not measured (xlac compile runs nothing; xlac run --dump-to measures)".into(),
    };
    let work: Vec<&graph::Node> = nodes.iter().filter(|n| !n.is_input).collect();
    let total_bytes: u64 = work.iter().map(|n| n.cost.bytes).sum();
    let total_ms: Option<f64> = options
        .thunk_ms
        .as_ref()
        .map(|t| work.iter().filter_map(|n| t.get(&n.name)).sum());
    let _ = write!(
        s,
        "<p>{} kernels, {} thunks in the entry schedule, moving {} in all{}; times: {}.{}</p>",
        kernel_names.len(),
        work.len(),
        bytes(total_bytes),
        match total_ms {
            Some(ms) => format!(" in {ms:.3} ms (sum of the thunks' mean times)"),
            None => String::new(),
        },
        esc(&measured),
        match options.triad_gbs {
            Some(t) => format!(" Triad bandwidth: {t:.2} GB/s."),
            None => String::new(),
        }
    );
    s.push_str("<h2>Kernels</h2><ul id=\"kernel-index\"></ul>");

    s.push_str("<h2>Kernel graph</h2><p class=\"muted\">The entry computation in schedule order: blue = generated kernel, orange = library call, copy or control flow, grey = parameter or constant; arcs go from producer to consumer.</p>");
    s.push_str(&graph::svg(&nodes));

    s.push_str("<h2>Cost per thunk</h2>");
    s.push_str(&cost_table(&nodes, options));

    s.push_str("<h2>HLO, CLIF and assembly per kernel</h2><p class=\"muted\">Hover an HLO line to light up the CLIF and the machine code it became (codegen writes <code>; %name</code> after every CLIF instruction; machine instructions carry the same source locations), or a CLIF or assembly line to find its HLO.</p>");
    for (i, k) in exe.kernels.kernels.iter().enumerate() {
        let fused_name = match &module.computations[k.computation].instr(k.instruction).op {
            Op::Fusion { calls, .. } => module.computations[*calls].name.clone(),
            _ => String::new(),
        };
        let fused = kernels::computation_lines(&printed, &fused_name);
        let node = nodes.iter().find(|n| n.name == k.name);
        let stats = node.map(|n| stats_line(n, options)).unwrap_or_default();
        s.push_str(&kernels::kernel_section(i, k, &fused, &stats));
    }

    s.push_str("<h2>Fusion decisions</h2>");
    s.push_str(&decisions_table(data.fusion_decisions));

    s.push_str("<h2>Buffer liveness</h2><p class=\"muted\">One bar per value, from the schedule position that defines it to its last use; color = allocation.</p>");
    s.push_str(&liveness::svg(module, &exe.buffers));

    let _ = writeln!(s, "<script>{}</script></body></html>", html::JS);
    s
}

/// `bytes · flops · time · GB/s` for one node.
fn stats_line(n: &graph::Node, options: &ReportOptions) -> String {
    let mut parts = vec![
        format!("bytes moved {}", bytes(n.cost.bytes)),
        format!("flops {}", count(n.cost.flops)),
    ];
    if n.cost.transcendentals > 0 {
        parts.push(format!("transcendentals {}", count(n.cost.transcendentals)));
    }
    let (time, gbs, pct) = measured_cells(n, options);
    parts.push(format!("time {time}"));
    if !gbs.is_empty() {
        parts.push(format!("achieved {gbs}"));
    }
    if !pct.is_empty() {
        parts.push(format!("{pct} of triad"));
    }
    esc(&parts.join(" · "))
}

/// (time, GB/s, % of triad) cells; empty strings where there is nothing to show.
fn measured_cells(n: &graph::Node, options: &ReportOptions) -> (String, String, String) {
    let Some(ms) = options
        .thunk_ms
        .as_ref()
        .and_then(|t| t.get(&n.name))
        .copied()
    else {
        let time = if options.thunk_ms.is_some() {
            "-".to_string()
        } else {
            "not measured".to_string()
        };
        return (time, String::new(), String::new());
    };
    let gbs = if ms > 0.0 {
        n.cost.bytes as f64 / (ms * 1e-3) / 1e9
    } else {
        0.0
    };
    let pct = options
        .triad_gbs
        .filter(|&t| t > 0.0)
        .map(|t| format!("{:.0}%", 100.0 * gbs / t))
        .unwrap_or_default();
    (format!("{ms:.3} ms"), format!("{gbs:.2} GB/s"), pct)
}

fn cost_table(nodes: &[graph::Node], options: &ReportOptions) -> String {
    let mut s = String::from(
        "<table id=\"cost\"><tr><th>#</th><th>thunk</th><th>what</th><th>bytes moved</th>\
         <th>flops</th><th>transcendentals</th><th>time</th><th>GB/s</th>",
    );
    if options.triad_gbs.is_some() {
        s.push_str("<th>% of triad</th>");
    }
    s.push_str("<th>result buffer</th></tr>");
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| !n.is_input) {
        let (time, gbs, pct) = measured_cells(n, options);
        let _ = write!(
            s,
            "<tr><td class=\"num\">{i}</td><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            esc(&n.name),
            esc(&n.kind),
            bytes(n.cost.bytes),
            count(n.cost.flops),
            count(n.cost.transcendentals),
            esc(&time),
            esc(&gbs)
        );
        if options.triad_gbs.is_some() {
            let _ = write!(s, "<td class=\"num\">{}</td>", esc(&pct));
        }
        let _ = write!(s, "<td>{}</td></tr>", esc(&n.buffers.join(", ")));
    }
    s.push_str("</table>");
    s
}

fn decisions_table(decisions: &[FusionDecision]) -> String {
    if decisions.is_empty() {
        return "<p class=\"muted\">no producer–consumer pair was considered</p>".into();
    }
    let mut s = String::from(
        "<table id=\"decisions\"><tr><th>pass</th><th>computation</th><th>producer → consumer</th>\
         <th>verdict</th><th>rule</th></tr>",
    );
    for d in decisions {
        let verdict = match (&d.result, d.fused) {
            (Some(r), true) => format!(
                "<span class=\"fused\">fused into <code>{}</code></span>",
                esc(r)
            ),
            _ => "<span class=\"notfused\">not fused</span>".to_string(),
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td><code>{} → {}</code></td><td>{verdict}</td><td>{}</td></tr>",
            esc(d.pass),
            esc(&d.computation),
            esc(&d.producer),
            esc(&d.consumer),
            esc(&d.rule.to_string())
        );
    }
    s.push_str("</table>");
    s
}
