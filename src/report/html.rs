//! The page's fixed parts: HTML escaping, the inline style sheet and the inline script.
//! Everything is inline so `report.html` opens from disk with no network: no fonts, no
//! libraries, no external files.

/// Escapes text for HTML element content and double-quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `value` as JSON to embed in `<script type="application/json">`: `</` is written `<\/`
/// (the same string to a JSON parser) so no text inside can close the element.
pub fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace("</", "<\\/")
}

/// `1234567` → `1.23 MB` (decimal units, as bandwidth is quoted).
pub fn bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.2} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2} MB", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.2} kB", n / 1e3)
    } else {
        format!("{n} B")
    }
}

/// `123456789` → `123.5 M`.
pub fn count(n: u64) -> String {
    let f = n as f64;
    if f >= 1e9 {
        format!("{:.2} G", f / 1e9)
    } else if f >= 1e6 {
        format!("{:.2} M", f / 1e6)
    } else if f >= 1e3 {
        format!("{:.1} k", f / 1e3)
    } else {
        n.to_string()
    }
}

/// The style sheet.
pub const CSS: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 48px; color: #1d1d1f; }
h1 { font-size: 22px; margin: 18px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; }
.panes { display: grid; grid-template-columns: 1fr 1.3fr 1fr; gap: 8px; }
.pane { border: 1px solid #ddd; overflow: auto; max-height: 420px; }
.pane h4 { margin: 0; padding: 3px 6px; background: #f3f3f5; font-size: 12px; position: sticky; top: 0; }
.pane pre { margin: 0; padding: 4px 6px; }
.pane .l { display: block; white-space: pre; }
[data-n] { cursor: pointer; }
.hl { background: #ffe58a; }
.muted { color: #777; }
.fused { color: #0a6b2b; }
.notfused { color: #9b1c1c; }
svg text { font: 11px ui-monospace, monospace; }
#kernel-index { columns: 3; }
nav#views { position: sticky; top: 0; background: #fff; padding: 6px 0; border-bottom: 1px solid #ddd; z-index: 2; }
nav#views a { margin-right: 14px; text-decoration: none; color: #2456a4; padding: 3px 6px; border-radius: 4px; }
nav#views a.active { background: #2456a4; color: #fff; }
.graph-wrap { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 10px; }
.graph-viewport { height: 600px; overflow: auto; border: 1px solid #ddd; position: relative; }
.graph-canvas { position: relative; }
.graph-svg { position: absolute; left: 0; }
.gnode { cursor: pointer; }
#graph-details { border: 1px solid #ddd; padding: 6px 8px; font-size: 13px; overflow-wrap: anywhere; }
.graph-controls { margin: 6px 0; }
.stepper { display: grid; grid-template-columns: 300px minmax(0, 1fr); gap: 10px; }
#pass-list { margin: 0; padding-left: 28px; max-height: 640px; overflow: auto; font-size: 13px; }
#pass-list li { cursor: pointer; padding: 1px 4px; }
#pass-list li.active { background: #ffe58a; }
#pass-title { font-weight: 600; margin-bottom: 4px; }
#pass-diff { border: 1px solid #ddd; max-height: 640px; overflow: auto; margin: 0; padding: 4px 6px; }
#pass-diff .l { display: block; white-space: pre; }
.del { color: #9b1c1c; } .add { color: #0a6b2b; }
#pass-diff .del { background: #fde2e2; color: inherit; } #pass-diff .add { background: #dcfce7; color: inherit; }
#pass-diff .fold { color: #777; background: #f3f3f5; }
tr.has-actions { background: #fff8e1; }
.action { font-size: 12px; }
pre.table { max-height: 400px; overflow: auto; border: 1px solid #ddd; padding: 4px 6px; }
"#;

/// The page's script (`script.js`): the views, linked highlighting, the kernel index, the
/// lazily drawn module graph, the pipeline stepper, and the markers tests read.
pub const JS: &str = include_str!("script.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(bytes(4_194_304), "4.19 MB");
        assert_eq!(count(192), "192");
    }
}
