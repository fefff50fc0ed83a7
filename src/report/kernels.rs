//! One section per generated kernel: its fused computation's HLO, its CLIF and its
//! assembly side by side. HLO lines and CLIF lines carry `data-n="NAME"` (the HLO
//! instruction they define or come from, read from the `; %NAME` comments codegen writes),
//! so hovering one lights up the others. Assembly lines are named by the machine code's
//! source locations (`codegen::inspect::asm_map`); lines Cranelift added itself carry no name.

use std::fmt::Write as _;

use super::html::esc;
use crate::codegen::Kernel;

/// The lines of computation `name` in the printed module (`%name (...) -> ... {` to `}`).
pub fn computation_lines<'a>(printed: &'a str, name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in printed.lines() {
        if !inside {
            let t = line.strip_prefix("ENTRY ").unwrap_or(line);
            let t = t.strip_prefix('%').unwrap_or(t);
            if t.starts_with(&format!("{name} ")) && line.trim_end().ends_with('{') {
                inside = true;
                out.push(line);
            }
            continue;
        }
        out.push(line);
        if line.starts_with('}') {
            break;
        }
    }
    out
}

/// The instruction an HLO line defines (`  ROOT %add.3 = ...` → `add.3`).
pub fn defined_name(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t.strip_prefix("ROOT ").unwrap_or(t);
    let t = t.strip_prefix('%')?;
    let (name, _) = t.split_once(" = ")?;
    (!name.contains(' ')).then_some(name)
}

/// The HLO instruction a CLIF line is annotated with (`... ; %add.3` → `add.3`).
pub fn clif_name(line: &str) -> Option<&str> {
    let (_, name) = line.trim_end().rsplit_once("; %")?;
    (!name.is_empty() && !name.contains(' ')).then_some(name)
}

/// One `<pre>` of lines, each a span, named when `name_of` finds a name.
fn pane(title: &str, lines: &[&str], name_of: impl Fn(&str) -> Option<&str>) -> String {
    let mut s = String::new();
    let _ = write!(s, "<div class=\"pane\"><h4>{}</h4><pre>", esc(title));
    for l in lines {
        match name_of(l) {
            Some(n) => {
                let _ = write!(
                    s,
                    "<span class=\"l\" data-n=\"{}\">{}</span>",
                    esc(n),
                    esc(l)
                );
            }
            None => {
                let _ = write!(s, "<span class=\"l\">{}</span>", esc(l));
            }
        }
    }
    s.push_str("</pre></div>");
    s
}

/// Like [`pane`], with each line's name given.
fn pane_named(title: &str, lines: &[(&str, Option<&str>)]) -> String {
    let mut s = String::new();
    let _ = write!(s, "<div class=\"pane\"><h4>{}</h4><pre>", esc(title));
    for (l, n) in lines {
        match n {
            Some(n) => {
                let _ = write!(
                    s,
                    "<span class=\"l\" data-n=\"{}\">{}</span>",
                    esc(n),
                    esc(l)
                );
            }
            None => {
                let _ = write!(s, "<span class=\"l\">{}</span>", esc(l));
            }
        }
    }
    s.push_str("</pre></div>");
    s
}

/// The section for one kernel. `fused` is the printed HLO of the computation it runs,
/// `stats` a line of figures (bytes, flops, time) shown above the panes.
pub fn kernel_section(index: usize, kernel: &Kernel, fused: &[&str], stats: &str) -> String {
    let a = &kernel.artifacts;
    let mut s = String::new();
    let _ = write!(
        s,
        "<section class=\"kernel\" id=\"kernel-{index}\" data-kernel=\"{}\">\
         <h3>{}</h3><p>{stats}</p><div class=\"panes\">",
        esc(&kernel.name),
        esc(&kernel.name)
    );
    s.push_str(&pane("HLO (fused computation)", fused, defined_name));
    let clif: Vec<&str> = a.clif_with_opt.lines().collect();
    s.push_str(&pane(
        "CLIF after Cranelift's optimizer (; %name = HLO instruction)",
        &clif,
        clif_name,
    ));
    // Assembly lines are named by the machine code's source locations (`asm_map.rs`),
    // matched to the listing line by line; lines Cranelift added itself have none.
    let asm: Vec<&str> = a.asm.lines().collect();
    let named: Vec<(&str, Option<&str>)> = asm
        .iter()
        .enumerate()
        .map(|(i, l)| (*l, a.asm_hlo.get(i).and_then(|n| n.as_deref())))
        .collect();
    s.push_str(&pane_named(
        "host assembly (named by Cranelift's source locations)",
        &named,
    ));
    s.push_str("</div>");
    let before: Vec<&str> = a.clif_no_opt.lines().collect();
    let _ = write!(
        s,
        "<details><summary>CLIF as emitted, before the optimizer ({} lines)</summary>\
         <div class=\"panes\" style=\"grid-template-columns: 1fr\">{}</div></details>",
        before.len(),
        pane("CLIF before Cranelift's optimizer", &before, clif_name)
    );
    s.push_str("</section>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_from_hlo_and_clif_lines() {
        assert_eq!(
            defined_name("  ROOT %add.15 = f32[8,10]{1,0} add(%a, %b)"),
            Some("add.15")
        );
        assert_eq!(
            defined_name("%fused_computation (p: f32[2]) -> f32[2] {"),
            None
        );
        assert_eq!(
            clif_name("@0002   v15 = imul.i64 v8, v14  ; v14 = 10 ; %dot_general.3"),
            Some("dot_general.3")
        );
        assert_eq!(clif_name("@0000   v12 = iconst.i64 10"), None);
        let printed = "%c (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n}\n\nENTRY %main () -> f32[] {\n}\n";
        assert_eq!(computation_lines(printed, "c").len(), 3);
        assert_eq!(computation_lines(printed, "main").len(), 2);
    }
}
