//! `report.html`: one self-contained page (inline CSS, JS and SVG; nothing fetched) that
//! `--dump-to DIR` writes beside the dump files. Its views (tabs; `report.html#view=NAME`
//! opens one): bytes moved and flops per thunk with the measured time when a run measured
//! it (and the achieved GB/s, against a STREAM triad figure when one is given); the module
//! graph with fusions as clusters; the pipeline pass by pass, each pass's change
//! highlighted; per kernel the HLO, CLIF and assembly side by side with linked
//! highlighting; the fusion decisions; a buffer liveness timeline; and for a sharded
//! compile the SPMD decisions and, once it ran, the collectives trace.
//!
//! Every figure is read from the stages' own results (the executable's module, buffer plan
//! and kernels, the fusion decision log), never recomputed differently from the dump
//! files. XLA has no such page; the closest are its `--xla_dump_hlo_as_html` graph and the
//! profiler's trace viewer.
//!
//! Files: `cost.rs` (bytes and flops), `graph.rs` (the thunk nodes), `module_graph.rs`
//! (the graph's data), `passes.rs` (the pipeline diffs), `kernels.rs` (the side-by-side
//! panes), `liveness.rs` (the timeline), `spmd.rs` (decisions and collectives),
//! `model_explorer.rs` (the graph for Google's Model Explorer, a file of its own),
//! `html.rs` (escaping, CSS) and `script.js` (the page's script).

pub mod cost;
pub mod graph;
pub mod html;
pub mod kernels;
pub mod liveness;
pub mod model_explorer;
pub mod module_graph;
pub mod passes;
pub mod spmd;

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::fusion::FusionDecision;
use crate::ir::Op;
use crate::runtime::Executable;
use crate::runtime::collectives::Trace;
use html::{bytes, count, esc};

/// What the page is drawn from.
pub struct ReportData<'a> {
    /// The compiled module, its buffer plan and kernels (with artifacts kept).
    pub executable: &'a Executable,
    /// The fusion passes' decisions.
    pub fusion_decisions: &'a [FusionDecision],
    /// What each pass that changed the module changed, in order (empty: no pipeline view).
    pub pass_steps: &'a [passes::PassStep],
    /// The partitioner's decisions, for a sharded compile.
    pub spmd: Option<&'a crate::spmd::DecisionLog>,
    /// The collectives of a multi-device run, once it ran.
    pub collectives: Option<&'a Trace>,
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
    /// For a multi-device run: how many devices ran (the times are device 0's).
    pub devices: Option<usize>,
}

/// One tab of the page.
struct View {
    id: &'static str,
    title: &'static str,
    body: String,
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
    let measured = match (&options.thunk_ms, options.devices) {
        (Some(_), Some(n)) => format!(
            "device 0's thunks (of {n} devices), measured on the run itself: one cold run, \
             and a collective's time includes its wait for the group"
        ),
        (Some(_), None) if options.cold => {
            "measured on one cold run (the first execution: page faults and cold caches \
             included; xlac run --profile-runs N or xlac bench --dump-to average warm runs)"
                .to_string()
        }
        (Some(_), None) => format!("mean over {} warm runs", options.runs),
        (None, _) => "not measured (xlac compile runs nothing; xlac run --dump-to measures)".into(),
    };
    let work: Vec<&graph::Node> = nodes.iter().filter(|n| !n.is_input).collect();
    let total_bytes: u64 = work.iter().map(|n| n.cost.bytes).sum();
    let total_ms: Option<f64> = options
        .thunk_ms
        .as_ref()
        .map(|t| work.iter().filter_map(|n| t.get(&n.name)).sum());
    let _ = write!(
        s,
        "<p>{} instructions in the entry computation, {} kernels, {} thunks in the entry schedule, moving {} in all{}; times: {}.{}</p>",
        module.entry_computation().order.len(),
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

    let mut views = vec![
        View {
            id: "overview",
            title: "Cost",
            body: format!(
                "<h2>Kernels</h2><ul id=\"kernel-index\"></ul><h2>Cost per thunk</h2>{}",
                cost_table(&nodes, options)
            ),
        },
        View {
            id: "graph",
            title: "Module graph",
            body: format!(
                "<h2>Module graph</h2><p class=\"muted\">The entry computation in schedule order: \
                 blue = generated kernel (a fusion: ▸ opens its cluster), orange = library call, copy or \
                 control flow, grey = parameter or constant, white = no work (tuple, get-tuple-element, \
                 bitcast); arcs go from producer to consumer. Only the rows in view are drawn.</p>{}",
                module_graph::section(module, &nodes)
            ),
        },
    ];
    if !data.pass_steps.is_empty() {
        views.push(View {
            id: "passes",
            title: "Pipeline",
            body: format!(
                "<h2>Pipeline, pass by pass</h2><p class=\"muted\">The module as ingested, then every \
                 pass that changed it (the numbered <code>after_PASS</code> dump files): red lines went, \
                 green lines came; unchanged runs are folded. ← and → step through.</p>\
                 <div class=\"stepper\"><ol id=\"pass-list\"></ol><div><div id=\"pass-title\"></div>\
                 <pre id=\"pass-diff\"></pre></div></div>\
                 <script type=\"application/json\" id=\"pass-data\">{}</script>",
                html::script_json(&passes::json(data.pass_steps))
            ),
        });
    }
    let mut kernel_sections = String::from(
        "<h2>HLO, CLIF and assembly per kernel</h2><p class=\"muted\">Hover an HLO line to light up the CLIF and the machine code it became (codegen writes <code>; %name</code> after every CLIF instruction; machine instructions carry the same source locations), or a CLIF or assembly line to find its HLO.</p>",
    );
    // Each section holds three listings (tens of kB); past MAX_KERNEL_SECTIONS the page keeps
    // the kernels that move the most bytes and names the rest, whose files are in the dump.
    let shown = kernels_to_show(&exe.kernels.kernels, &nodes);
    if shown.len() < exe.kernels.kernels.len() {
        let _ = write!(
            kernel_sections,
            "<p class=\"muted\" id=\"kernels-omitted\">{} kernels; the {} that move the most bytes are below, in schedule order. \
             Every kernel's CLIF and assembly are in the dump folder (<code>KERNEL.ir-with-opt.clif</code>, <code>KERNEL.asm</code>).</p>",
            exe.kernels.kernels.len(),
            shown.len()
        );
    }
    for (i, k) in exe.kernels.kernels.iter().enumerate() {
        if !shown.contains(&i) {
            continue;
        }
        let fused_name = match &module.computations[k.computation].instr(k.instruction).op {
            Op::Fusion { calls, .. } => module.computations[*calls].name.clone(),
            _ => String::new(),
        };
        let fused = kernels::computation_lines(&printed, &fused_name);
        let node = nodes.iter().find(|n| n.name == k.name);
        let stats = node.map(|n| stats_line(n, options)).unwrap_or_default();
        kernel_sections.push_str(&kernels::kernel_section(i, k, &fused, &stats));
    }
    views.push(View {
        id: "kernels",
        title: "Kernels",
        body: kernel_sections,
    });
    views.push(View {
        id: "fusion",
        title: "Fusion decisions",
        body: format!(
            "<h2>Fusion decisions</h2>{}",
            decisions_table(data.fusion_decisions)
        ),
    });
    views.push(View {
        id: "buffers",
        title: "Buffers",
        body: format!(
            "<h2>Buffer liveness</h2><p class=\"muted\">One bar per value, from the schedule position that defines it to its last use; color = allocation.</p>{}",
            liveness::svg(module, &exe.buffers)
        ),
    });
    if let Some(log) = data.spmd {
        views.push(View {
            id: "spmd",
            title: "SPMD decisions",
            body: format!("<h2>SPMD partitioning</h2>{}", spmd::decisions_table(log)),
        });
    }
    if let Some(trace) = data.collectives {
        views.push(View {
            id: "collectives",
            title: "Collectives",
            body: format!(
                "<h2>Collectives trace</h2>{}",
                spmd::collectives_view(trace)
            ),
        });
    }

    s.push_str("<nav id=\"views\">");
    for v in &views {
        let _ = write!(
            s,
            "<a href=\"#view={id}\" data-view=\"{id}\">{}</a>",
            esc(v.title),
            id = v.id
        );
    }
    s.push_str("</nav>");
    for v in &views {
        let _ = write!(
            s,
            "<section class=\"view\" id=\"view-{}\">{}</section>",
            v.id, v.body
        );
    }
    let _ = writeln!(s, "<script>{}</script></body></html>", html::JS);
    s
}

/// Kernel sections the page holds at most.
const MAX_KERNEL_SECTIONS: usize = 100;

/// Indices of the kernels that get a section: all of them, or the [`MAX_KERNEL_SECTIONS`]
/// that move the most bytes.
fn kernels_to_show(kernels: &[crate::codegen::Kernel], nodes: &[graph::Node]) -> Vec<usize> {
    let mut all: Vec<(u64, usize)> = kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let bytes = nodes
                .iter()
                .find(|n| n.name == k.name)
                .map_or(0, |n| n.cost.bytes);
            (bytes, i)
        })
        .collect();
    if all.len() > MAX_KERNEL_SECTIONS {
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(MAX_KERNEL_SECTIONS);
    }
    let mut shown: Vec<usize> = all.into_iter().map(|(_, i)| i).collect();
    shown.sort_unstable();
    shown
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
