//! The comparison as text (`xlac diff-dump`'s output, also `diff-dump.txt` in xlac's dump
//! folder) and as a section of `report.html`. The summary lines have a fixed form that
//! tests read back: `XLA: N kernels`, `xlac: N kernels`, `XLA final HLO: E entry
//! instructions, A in all computations`.

use std::fmt::Write as _;

use super::mapping::{Kernel, Landing};
use super::{DiffDump, Row, SideSummary};
use crate::report::html::esc;

/// How many of the largest allocations are listed per side.
pub const LARGEST: usize = 5;

/// The text report.
pub fn text(d: &DiffDump) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "xlac diff-dump: module {}", d.module_name);
    let _ = writeln!(s, "  XLA's dump:  {}", d.xla.dir);
    let _ = writeln!(s, "  xlac's dump: {}", d.xlac.dir);
    let _ = writeln!(
        s,
        "  original module: {} ({} entry instructions, {} in all computations)",
        d.input_file, d.input_counts.entry, d.input_counts.all
    );
    if !d.other_xla_modules.is_empty() {
        let _ = writeln!(
            s,
            "  (XLA's folder also holds: {}; pick one with --module)",
            d.other_xla_modules.join(", ")
        );
    }

    let _ = writeln!(
        s,
        "\n== Passes that changed the module, and instructions after each =="
    );
    for (label, side) in [("XLA", &d.xla), ("xlac", &d.xlac)] {
        passes_text(&mut s, label, side);
    }

    let _ = writeln!(s, "\n== Kernels (entry instructions that launch work) ==");
    for (label, side) in [("XLA", &d.xla), ("xlac", &d.xlac)] {
        let _ = writeln!(s, "{label}: {} kernels", side.kernels.len());
        for (k, kernel) in side.kernels.iter().enumerate() {
            let time = if label == "xlac" {
                kernel_time(d, kernel)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  {k:>3}  {:<40} {:<22} {:<24} {} fused{time}",
                kernel.name, kernel.what, kernel.shape, kernel.fused_instructions
            );
        }
    }
    if let Some((_, runs)) = &d.times {
        let _ = writeln!(
            s,
            "(xlac kernel times: mean over {runs} warm runs, this machine)"
        );
    }

    let _ = writeln!(
        s,
        "\n== Where each instruction of the original module landed: {} instructions ==",
        d.rows.len()
    );
    let _ = writeln!(
        s,
        "(matched by name and by op_name + source location; \"(not found)\": no instruction \
         of that final HLO carries it: folded, simplified, or rebuilt without metadata)"
    );
    let _ = writeln!(
        s,
        "{:<28} {:<20} {:<32} {:<32} xlac's rule",
        "instruction", "opcode", "XLA", "xlac"
    );
    let mut last_comp = String::new();
    for row in &d.rows {
        if row.computation != last_comp {
            let _ = writeln!(s, "computation {}:", row.computation);
            last_comp = row.computation.clone();
        }
        let _ = writeln!(
            s,
            "  {:<26} {:<20} {:<32} {:<32} {}",
            row.name,
            row.opcode.to_string(),
            landing(&row.xla, &d.xla.kernels),
            landing(&row.xlac, &d.xlac.kernels),
            row.rule.as_deref().unwrap_or("-")
        );
        if let Some(reasons) = &row.differs {
            for r in reasons.iter().take(3) {
                let _ = writeln!(s, "      differs: {r}");
            }
        }
    }
    let differ = d.rows.iter().filter(|r| r.differs.is_some()).count();
    let _ = writeln!(
        s,
        "{differ} instructions are grouped with different instructions on the two sides"
    );

    let _ = writeln!(s, "\n== Layouts ==");
    let _ = writeln!(s, "{:<40} {:<28} xlac", "", "XLA");
    for l in &d.layouts {
        let mark = if l.xla == l.xlac { "" } else { "   <- differs" };
        let _ = writeln!(s, "{:<40} {:<28} {}{mark}", l.what, l.xla, l.xlac);
    }

    let _ = writeln!(s, "\n== Buffers ==");
    for (label, side) in [("XLA", &d.xla), ("xlac", &d.xlac)] {
        let Some(b) = &side.buffers else {
            let _ = writeln!(s, "{label}: no buffer-assignment file in the dump");
            continue;
        };
        let _ = writeln!(
            s,
            "{label}: preallocated temp {} bytes, {} allocations; largest:",
            b.temp_bytes(),
            b.allocations.len()
        );
        for a in b.largest(LARGEST) {
            let values = a
                .values
                .iter()
                .take(4)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = if a.values.len() > 4 {
                format!(" (+{} more)", a.values.len() - 4)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  allocation {:<4} {:>12} bytes  {:<20} {values}{more}",
                a.index, a.size, a.kind
            );
        }
    }
    s
}

fn passes_text(s: &mut String, label: &str, side: &SideSummary) {
    if side.passes.is_empty() {
        let _ = writeln!(
            s,
            "{label}: no numbered pass files in the dump (XLA writes them with \
             --xla_dump_hlo_pass_re=.*)"
        );
    } else {
        let _ = writeln!(s, "{label}: {} pass files", side.passes.len());
        for p in &side.passes {
            let _ = writeln!(
                s,
                "  {:04}  {:<72} entry {:>5}  all {:>6}",
                p.number,
                format!("{}/{}", p.pipeline, p.pass),
                p.counts.entry,
                p.counts.all
            );
        }
    }
    let _ = writeln!(
        s,
        "{label} final HLO: {} entry instructions, {} in all computations",
        side.final_counts.entry, side.final_counts.all
    );
}

/// `k3 name` or `parameter` or `gone`.
pub fn landing(l: &Landing, kernels: &[Kernel]) -> String {
    match l {
        Landing::Kernels { kernels: ks, .. } => ks
            .iter()
            .map(|&k| kernels.get(k).map(|x| x.name.as_str()).unwrap_or("?"))
            .collect::<Vec<_>>()
            .join(", "),
        Landing::NotLaunched { opcode, .. } => format!("({opcode}, no kernel)"),
        Landing::NotFound => "(not found)".to_string(),
    }
}

fn kernel_time(d: &DiffDump, k: &Kernel) -> String {
    match &d.times {
        Some((t, _)) => match t.get(&k.name) {
            Some(ms) => format!("  {ms:.4} ms"),
            None => "  -".to_string(),
        },
        None => String::new(),
    }
}

/// The `report.html` section (an `<h2>` and its tables).
pub fn html_section(d: &DiffDump) -> String {
    let mut s = String::from("<section id=\"diff-dump\"><h2>Beside XLA's own dump</h2>");
    let _ = write!(
        s,
        "<p>XLA's dump <code>{}</code>; original module <code>{}</code>. XLA: {} kernels, \
         xlac: {} kernels. Final HLO: XLA {} entry instructions ({} in all computations), \
         xlac {} ({}).</p>",
        esc(&d.xla.dir),
        esc(&d.input_file),
        d.xla.kernels.len(),
        d.xlac.kernels.len(),
        d.xla.final_counts.entry,
        d.xla.final_counts.all,
        d.xlac.final_counts.entry,
        d.xlac.final_counts.all
    );
    s.push_str("<h3>Kernels</h3><table><tr><th>side</th><th>#</th><th>kernel</th><th>what</th><th>shape</th><th>fused instructions</th><th>time</th></tr>");
    for (label, side) in [("XLA", &d.xla), ("xlac", &d.xlac)] {
        for (k, kernel) in side.kernels.iter().enumerate() {
            let time = if label == "xlac" {
                kernel_time(d, kernel)
            } else {
                String::new()
            };
            let _ = write!(
                s,
                "<tr><td>{label}</td><td class=\"num\">{k}</td><td><code>{}</code></td><td>{}</td>\
                 <td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(&kernel.name),
                esc(&kernel.what),
                esc(&kernel.shape),
                kernel.fused_instructions,
                esc(time.trim())
            );
        }
    }
    s.push_str("</table>");
    s.push_str("<h3>Where each instruction landed</h3><table><tr><th>computation</th><th>instruction</th><th>opcode</th><th>XLA</th><th>xlac</th><th>xlac's rule</th><th>why they differ</th></tr>");
    for row in &d.rows {
        s.push_str(&html_row(row, d));
    }
    s.push_str("</table><h3>Layouts</h3><table><tr><th></th><th>XLA</th><th>xlac</th></tr>");
    for l in &d.layouts {
        let _ = write!(
            s,
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
            esc(&l.what),
            esc(&l.xla),
            esc(&l.xlac)
        );
    }
    s.push_str("</table><h3>Buffers</h3><ul>");
    for (label, side) in [("XLA", &d.xla), ("xlac", &d.xlac)] {
        if let Some(b) = &side.buffers {
            let largest: Vec<String> = b
                .largest(LARGEST)
                .iter()
                .map(|a| format!("{} bytes ({})", a.size, a.kind))
                .collect();
            let _ = write!(
                s,
                "<li>{label}: preallocated temp {} bytes; largest: {}</li>",
                b.temp_bytes(),
                esc(&largest.join(", "))
            );
        }
    }
    s.push_str("</ul></section>");
    s
}

fn html_row(row: &Row, d: &DiffDump) -> String {
    let why = match &row.differs {
        None => String::new(),
        Some(r) => r.iter().take(3).cloned().collect::<Vec<_>>().join("; "),
    };
    format!(
        "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td>\
         <td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
        esc(&row.computation),
        esc(&row.name),
        row.opcode,
        esc(&landing(&row.xla, &d.xla.kernels)),
        esc(&landing(&row.xlac, &d.xlac.kernels)),
        esc(row.rule.as_deref().unwrap_or("-")),
        esc(&why)
    )
}

/// Inserts `section` into a `report.html` page before its kernel index (or at the end of
/// the body), replacing an earlier diff-dump section.
pub fn insert_into_report(page: &str, section: &str) -> String {
    let mut page = page.to_string();
    if let Some(start) = page.find("<section id=\"diff-dump\">")
        && let Some(len) = page[start..].find("</section>")
    {
        page.replace_range(start..start + len + "</section>".len(), "");
    }
    let at = page
        .find("<h2>Kernels</h2>")
        .or_else(|| page.find("</body>"))
        .unwrap_or(page.len());
    page.insert_str(at, section);
    page
}
