//! Source locations to HLO metadata, as XLA's MLIR-to-HLO translation writes it for the
//! programs `jax.jit` compiles (jaxlib 0.10.2, checked against its
//! `before_optimizations` dumps in `tests/locations.rs`):
//!
//! - `op_name`: the names of the location's name parts, joined by `;`. A name is cut at
//!   its first `@`; one ending in `:` is an op type (`reduce:`), not a name, and is looked
//!   through; the search stops at a name, follows a call site's callee and every part of
//!   a fused location. `op_type`: the op-type names the same way (only a fused
//!   location's first part).
//! - `stack_frame_id`: JAX writes a traceback as `callsite(callee at caller)` chains of
//!   frames, each a `"function"("file":line:col to :end)` name. After the leading names
//!   that are not frames (`jit(f)/mul`), every frame goes into the module's
//!   FileNames/FunctionNames/FileLocations/StackFrames tables (shared: one entry per
//!   file, function, location and frame), and the instruction points at its innermost.
//! - Otherwise a plain `"file":line:col` gives `source_file`, `source_line`,
//!   `source_end_line`, `source_column`, `source_end_column`.
//! - An unknown location gives no metadata; parameters get only an `op_name` (the last
//!   `/` part of their location's name, e.g. `x` or `reduce_sum`).
//!
//! XLA: `xla/hlo/translate/mhlo_to_hlo/location_exporter.cc`,
//! `stack_frame_index_builder.cc`.

use std::collections::HashMap;

use crate::front::stablehlo::location::{FileLineCol, Location};
use crate::ir::{FileLocation, Metadata, StackFrame, StackFrameIndex};

/// At most this many location parts are visited per op (a location tree read from
/// bytecode may share parts, so a small file can describe a huge tree).
const BUDGET: usize = 4096;

/// The stack-frame tables being built for one module, and the metadata of each location.
#[derive(Default)]
pub struct FrameTable {
    index: StackFrameIndex,
    files: HashMap<String, i64>,
    functions: HashMap<String, i64>,
    locations: HashMap<(i64, i64, u32, u32), i64>,
    frames: HashMap<(i64, i64), i64>,
}

impl FrameTable {
    /// The tables, or `None` when no instruction points into them.
    pub fn finish(self) -> Option<StackFrameIndex> {
        (!self.index.stack_frames.is_empty()).then_some(self.index)
    }

    /// The metadata of an op at `loc` (`None` for an unknown location).
    pub fn op_metadata(&mut self, loc: &Location) -> Option<Metadata> {
        if matches!(loc, Location::Unknown) {
            return None;
        }
        let mut m = Metadata {
            op_name: non_empty(names(loc, false)),
            op_type: non_empty(names(loc, true)),
            ..Metadata::default()
        };
        // The leading names that are not frames (`jit(f)/mul`) were the op's name.
        let mut rest = loc;
        while let Location::Name(_, child) = rest {
            if frame(rest).is_some() {
                break;
            }
            rest = child;
        }
        if let Some(id) = self.call_stack(rest) {
            m.stack_frame_id = Some(id);
        } else if let Some(p) = last_file_pos(rest) {
            let nz = |v: u32| (v != 0).then_some(v as i64);
            m.source_file = Some(p.file.clone());
            m.source_line = nz(p.line);
            m.source_end_line = nz(p.end_line);
            m.source_column = nz(p.col);
            m.source_end_column = nz(p.end_col);
        }
        (m != Metadata::default()).then_some(m)
    }

    /// A frame for each frame name of `loc`, callers before callees; the innermost's id.
    fn call_stack(&mut self, loc: &Location) -> Option<i64> {
        let mut frames = Vec::new();
        collect_frames(loc, &mut frames, &mut BUDGET.clone());
        let mut parent = None;
        for (function, p) in frames {
            parent = Some(self.add_frame(function, p, parent));
        }
        parent
    }

    fn add_frame(&mut self, function: &str, p: &FileLineCol, parent: Option<i64>) -> i64 {
        let index = &mut self.index;
        let file = *self.files.entry(p.file.clone()).or_insert_with(|| {
            index.file_names.push(p.file.clone());
            index.file_names.len() as i64
        });
        let func = *self
            .functions
            .entry(function.to_string())
            .or_insert_with(|| {
                index.function_names.push(function.to_string());
                index.function_names.len() as i64
            });
        // One entry per file, function, line and column: the first op's range wins.
        let location = *self
            .locations
            .entry((file, func, p.line, p.col))
            .or_insert_with(|| {
                index.file_locations.push(FileLocation {
                    file_name_id: file,
                    function_name_id: func,
                    line: p.line as i64,
                    end_line: p.end_line as i64,
                    column: p.col as i64,
                    end_column: p.end_col as i64,
                });
                index.file_locations.len() as i64
            });
        // XLA prints a frame's caller as its id plus one, 1 meaning none.
        let parent_frame_id = parent.map_or(1, |id| id + 1);
        *self
            .frames
            .entry((location, parent_frame_id))
            .or_insert_with(|| {
                index.stack_frames.push(StackFrame {
                    file_location_id: location,
                    parent_frame_id,
                });
                index.stack_frames.len() as i64
            })
    }
}

/// The metadata of a parameter whose location is `loc`: its name's last `/` part.
pub fn parameter_metadata(loc: &Location) -> Option<Metadata> {
    let name = names(loc, false);
    let last = name.rsplit('/').next().unwrap_or_default();
    non_empty(last.to_string()).map(|n| Metadata {
        op_name: Some(n),
        ..Metadata::default()
    })
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// `"function"("file":line:col)`: a frame of a JAX traceback.
fn frame(loc: &Location) -> Option<(&str, &FileLineCol)> {
    match loc {
        Location::Name(name, child) => match &**child {
            Location::FileLineCol(p) => Some((name, p)),
            _ => None,
        },
        _ => None,
    }
}

/// The op names (`op_types` false) or op types (true) of a location, `;`-joined.
fn names(loc: &Location, op_types: bool) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut stack = vec![loc];
    let mut budget = BUDGET;
    while let Some(l) = stack.pop() {
        budget = match budget.checked_sub(1) {
            Some(b) => b,
            None => break,
        };
        match l {
            Location::Name(name, child) => {
                let name = name.split('@').next().unwrap_or_default();
                match (name.strip_suffix(':'), op_types) {
                    (Some(_), false) | (None, true) => stack.push(child),
                    (Some(t), true) => out.push(t),
                    (None, false) => out.push(name),
                }
            }
            Location::CallSite(callee, _) => stack.push(callee),
            Location::Fused(parts) if op_types => stack.extend(parts.first().map(|p| &**p)),
            Location::Fused(parts) => stack.extend(parts.iter().rev().map(|p| &**p)),
            Location::Unknown | Location::FileLineCol(_) => {}
        }
    }
    out.join(";")
}

/// The frames of a call stack, outermost first: a call site's caller's, then its
/// callee's; a name's child's; a fused location's first part that has any.
fn collect_frames<'l>(
    loc: &'l Location,
    out: &mut Vec<(&'l str, &'l FileLineCol)>,
    budget: &mut usize,
) {
    if *budget == 0 || out.len() >= 64 {
        return;
    }
    *budget -= 1;
    if let Some(f) = frame(loc) {
        out.push(f);
        return;
    }
    match loc {
        Location::CallSite(callee, caller) => {
            collect_frames(caller, out, budget);
            collect_frames(callee, out, budget);
        }
        Location::Name(_, child) => collect_frames(child, out, budget),
        Location::Fused(parts) => {
            for p in parts {
                let before = out.len();
                collect_frames(p, out, budget);
                if out.len() != before {
                    break;
                }
            }
        }
        Location::Unknown | Location::FileLineCol(_) => {}
    }
}

/// A plain file location, or a fused location's last part that is one.
fn last_file_pos(loc: &Location) -> Option<&FileLineCol> {
    match loc {
        Location::FileLineCol(p) => Some(p),
        Location::Fused(parts) => parts.iter().rev().find_map(|p| match &**p {
            Location::FileLineCol(p) => Some(p),
            _ => None,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn point(file: &str, line: u32, col: u32, end: u32) -> Arc<Location> {
        Arc::new(Location::FileLineCol(FileLineCol {
            end_col: end,
            ..FileLineCol::point(file, line, col)
        }))
    }

    fn name(n: &str, child: Arc<Location>) -> Arc<Location> {
        Arc::new(Location::Name(n.into(), child))
    }

    #[test]
    fn a_jax_traceback_becomes_shared_frames() {
        let module = name("<module>", point("f.py", 11, 5, 27));
        let f = name("f", point("f.py", 7, 8, 12));
        let g = name("g", point("f.py", 4, 11, 21));
        let caller = Arc::new(Location::CallSite(f, module.clone()));
        let sin = name("jit(f)/sin", Arc::new(Location::CallSite(g, caller)));
        let mut t = FrameTable::default();
        let m = t.op_metadata(&sin).unwrap();
        assert_eq!(m.op_name.as_deref(), Some("jit(f)/sin"));
        assert_eq!(m.stack_frame_id, Some(3));
        assert_eq!(m.source_file, None);
        // The same call stack again: no new entries.
        assert_eq!(t.op_metadata(&sin).unwrap().stack_frame_id, Some(3));
        let konst = name("jit(f)", module);
        assert_eq!(t.op_metadata(&konst).unwrap().stack_frame_id, Some(1));
        let index = t.finish().unwrap();
        let chain: Vec<i64> = index.chain(3).iter().map(|(_, l)| l.line).collect();
        assert_eq!(chain, [4, 7, 11]);
        assert_eq!(index.stack_frames[0].parent_frame_id, 1);
        assert_eq!(index.stack_frames[2].parent_frame_id, 3);
    }

    #[test]
    fn plain_locations_give_source_fields_and_names_skip_op_types() {
        let mut t = FrameTable::default();
        let m = t.op_metadata(&point("f.py", 3, 7, 9)).unwrap();
        assert_eq!(
            (
                m.source_file.as_deref(),
                m.source_line,
                m.source_column,
                m.source_end_column
            ),
            (Some("f.py"), Some(3), Some(7), Some(9))
        );
        assert_eq!(m.op_name, None);
        let typed = name(
            "reduce:",
            name("jit(f)/argmax@main", Arc::new(Location::Unknown)),
        );
        let m = t.op_metadata(&typed).unwrap();
        assert_eq!(m.op_name.as_deref(), Some("jit(f)/argmax"));
        assert_eq!(m.op_type.as_deref(), Some("reduce"));
        assert_eq!(t.op_metadata(&Location::Unknown), None);
        assert!(t.finish().is_none());
        let p = parameter_metadata(&name("jit(f)/reduce_sum", Arc::new(Location::Unknown)));
        assert_eq!(p.unwrap().op_name.as_deref(), Some("reduce_sum"));
    }
}
