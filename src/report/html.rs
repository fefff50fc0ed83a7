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
"#;

/// The script: linked highlighting (hover an HLO line, its CLIF lines light up, and back),
/// the kernel index built from the kernel sections, and a marker that tests read to know
/// the script ran (`#report-ok`, with the number of kernels) or failed (`#report-js-error`).
pub const JS: &str = r#"
(function () {
  window.addEventListener('error', function (e) {
    var d = document.createElement('div');
    d.id = 'report-js-error';
    d.textContent = 'script error: ' + e.message;
    document.body.appendChild(d);
  });
  function mark(section, name, on) {
    var all = section.querySelectorAll('[data-n]');
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute('data-n') === name) { all[i].classList.toggle('hl', on); }
    }
  }
  var sections = document.querySelectorAll('section.kernel');
  var index = document.getElementById('kernel-index');
  for (var s = 0; s < sections.length; s++) {
    (function (section) {
      var name = section.getAttribute('data-kernel');
      var li = document.createElement('li');
      li.setAttribute('data-kernel-index', name);
      var a = document.createElement('a');
      a.href = '#' + section.id;
      a.textContent = name;
      li.appendChild(a);
      index.appendChild(li);
      var items = section.querySelectorAll('[data-n]');
      for (var i = 0; i < items.length; i++) {
        (function (el) {
          var n = el.getAttribute('data-n');
          el.addEventListener('mouseenter', function () { mark(section, n, true); });
          el.addEventListener('mouseleave', function () { mark(section, n, false); });
        })(items[i]);
      }
    })(sections[s]);
  }
  var ok = document.createElement('div');
  ok.id = 'report-ok';
  ok.setAttribute('data-kernels', String(sections.length));
  ok.className = 'muted';
  ok.textContent = 'page script ran: ' + sections.length + ' kernels';
  document.getElementById('status').appendChild(ok);
})();
"#;

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
