//! The pipeline stepper: the module as ingested, then each pass that changed it, as a line
//! diff against the module before that pass (what Compiler Explorer's "Opt Pipeline" pane
//! shows for LLVM). The page embeds the diffs as JSON; its script renders one step at a
//! time, so a long pipeline over a large module costs the browser one step's lines.
//!
//! The texts are the printer's, the same as the numbered `after_PASS` dump files; the diff
//! is `similar`'s (Myers), line by line.

use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};

use crate::pipeline::bisect::Snapshot;

/// Unchanged lines shown around each change; longer unchanged runs fold into one marker.
const CONTEXT: usize = 3;

/// What one pass changed.
#[derive(Clone, Debug, PartialEq)]
pub struct PassStep {
    /// The innermost pipeline it ran in (`simplification`, `fusion-passes`).
    pub pipeline: String,
    /// XLA's name for the pass.
    pub pass: String,
    /// Its wall time.
    pub ms: f64,
    /// Lines added and removed.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The diff in hunks: unchanged context, removed and added lines, folds.
    pub lines: Vec<DiffLine>,
}

/// One line of a step's diff.
#[derive(Clone, Debug, PartialEq)]
pub enum DiffLine {
    /// Unchanged, shown as context.
    Same(String),
    /// Only before the pass.
    Removed(String),
    /// Only after it.
    Added(String),
    /// This many unchanged lines, not shown.
    Folded(usize),
}

/// The steps from `before` (the module as ingested, printed) through every snapshot.
pub fn steps(before: &str, snapshots: &[Snapshot]) -> Vec<PassStep> {
    let mut previous = before.to_string();
    let mut out = Vec::with_capacity(snapshots.len());
    for snap in snapshots {
        let text = snap.module.to_string();
        let (lines, added, removed) = diff(&previous, &text);
        out.push(PassStep {
            pipeline: snap.pass.pipeline.clone(),
            pass: snap.pass.pass.clone(),
            ms: snap.pass.time.as_secs_f64() * 1e3,
            added,
            removed,
            lines,
        });
        previous = text;
    }
    out
}

/// The diff of `old` to `new` with [`CONTEXT`] lines around each change.
fn diff(old: &str, new: &str) -> (Vec<DiffLine>, usize, usize) {
    let d = TextDiff::from_lines(old, new);
    let all: Vec<(ChangeTag, String)> = d
        .iter_all_changes()
        .map(|c| (c.tag(), c.value().trim_end_matches('\n').to_string()))
        .collect();
    let changed: Vec<bool> = all.iter().map(|(t, _)| *t != ChangeTag::Equal).collect();
    // A line is shown when a change is within CONTEXT lines of it.
    let mut near = vec![false; all.len()];
    for (i, &c) in changed.iter().enumerate() {
        if c {
            let lo = i.saturating_sub(CONTEXT);
            let hi = (i + CONTEXT + 1).min(all.len());
            near[lo..hi].iter_mut().for_each(|n| *n = true);
        }
    }
    let (mut lines, mut added, mut removed, mut folded) = (Vec::new(), 0, 0, 0);
    for ((tag, text), show) in all.into_iter().zip(near) {
        if !show {
            folded += 1;
            continue;
        }
        if folded > 0 {
            lines.push(DiffLine::Folded(folded));
            folded = 0;
        }
        lines.push(match tag {
            ChangeTag::Equal => DiffLine::Same(text),
            ChangeTag::Delete => {
                removed += 1;
                DiffLine::Removed(text)
            }
            ChangeTag::Insert => {
                added += 1;
                DiffLine::Added(text)
            }
        });
    }
    if folded > 0 {
        lines.push(DiffLine::Folded(folded));
    }
    (lines, added, removed)
}

/// The steps as the page's script reads them: `[{pipeline, pass, added, removed,
/// lines: [[kind, text]]}]`, kind one of `=`, `-`, `+`, `~` (a fold; text is the count).
/// Pass times stay out of the page (they are in `compile-times.txt`), so two compiles of
/// one module write the same report.
pub fn json(steps: &[PassStep]) -> Value {
    Value::Array(
        steps
            .iter()
            .map(|s| {
                let lines: Vec<Value> = s
                    .lines
                    .iter()
                    .map(|l| match l {
                        DiffLine::Same(t) => json!(["=", t]),
                        DiffLine::Removed(t) => json!(["-", t]),
                        DiffLine::Added(t) => json!(["+", t]),
                        DiffLine::Folded(n) => json!(["~", n.to_string()]),
                    })
                    .collect();
                json!({
                    "pipeline": s.pipeline, "pass": s.pass,
                    "added": s.added, "removed": s.removed, "lines": lines,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_keeps_context_and_folds_the_rest() {
        let old: String = (0..20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l10\n", "x10\n");
        let (lines, added, removed) = diff(&old, &new);
        assert_eq!((added, removed), (1, 1));
        assert_eq!(lines.first(), Some(&DiffLine::Folded(7)));
        assert_eq!(lines.last(), Some(&DiffLine::Folded(6)));
        assert!(lines.contains(&DiffLine::Removed("l10".into())));
        assert!(lines.contains(&DiffLine::Added("x10".into())));
        assert_eq!(
            lines
                .iter()
                .filter(|l| matches!(l, DiffLine::Same(_)))
                .count(),
            6
        );
    }
}
