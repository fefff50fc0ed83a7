//! Finding the instruction a user asks `xlac explain` about: by HLO name (`tanh.1` or
//! `%tanh.1`), by `op_name` metadata substring (`jit(f)/tanh`), or by source location
//! (`model.py:42`, matched against `source_file`/`source_line` metadata). When nothing
//! matches, the error lists the closest names, so a typo costs one more try, not a search.

use crate::ir::{ComputationId, FileLocation, InstrId, Module};

/// One instruction of the input module that matches the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its computation.
    pub computation: ComputationId,
    /// The instruction.
    pub instruction: InstrId,
    /// How it matched (`name`, `op_name`, `source location`).
    pub matched_by: &'static str,
}

/// Every instruction of `module` that `query` names. An exact name wins over metadata; a
/// `file:line` query matches source locations; anything else is an `op_name` substring.
/// `Err` holds the message: what was searched and the closest names.
pub fn find_instructions(module: &Module, query: &str) -> Result<Vec<Found>, String> {
    let query = query.trim();
    let name = query.strip_prefix('%').unwrap_or(query);
    let all = all_instructions(module);
    let by_name: Vec<Found> = all
        .iter()
        .filter(|&&(c, i)| module.computations[c].instrs[i].name == name)
        .map(|&(c, i)| found(c, i, "name"))
        .collect();
    if !by_name.is_empty() {
        return Ok(by_name);
    }
    if let Some((file, line)) = split_location(query) {
        let hits: Vec<Found> = all
            .iter()
            .filter(|&&(c, i)| {
                let Some(m) = &module.computations[c].instrs[i].metadata else {
                    return false;
                };
                let same_file = |f: &str| f == file || f.ends_with(&format!("/{file}"));
                let file_ok = m.source_file.as_deref().is_some_and(same_file);
                let line_ok = match (m.source_line, m.source_end_line) {
                    (Some(l), Some(end)) => l <= line && line <= end,
                    (Some(l), None) => l == line,
                    _ => false,
                };
                file_ok && line_ok
            })
            .map(|&(c, i)| found(c, i, "source location"))
            .collect();
        if !hits.is_empty() {
            return Ok(hits);
        }
        // What jax writes with `debug_info=True`: `stack_frame_id` into the module's
        // FileNames/FileLocations/StackFrames tables. The innermost frame first (the line
        // that made the op); failing that, any caller's line (a call into a function).
        if let Some(index) = &module.stack_frames {
            for innermost in [true, false] {
                let hits: Vec<Found> = all
                    .iter()
                    .filter(|&&(c, i)| {
                        let frame = module.computations[c].instrs[i]
                            .metadata
                            .as_ref()
                            .and_then(|m| m.stack_frame_id);
                        frame
                            .map(|id| index.chain(id))
                            .unwrap_or_default()
                            .into_iter()
                            .take(if innermost { 1 } else { usize::MAX })
                            .any(|(f, loc)| location_matches(f, loc, file, line))
                    })
                    .map(|&(c, i)| found(c, i, "source location"))
                    .collect();
                if !hits.is_empty() {
                    return Ok(hits);
                }
            }
        }
    }
    let by_op_name: Vec<Found> = all
        .iter()
        .filter(|&&(c, i)| {
            module.computations[c].instrs[i]
                .metadata
                .as_ref()
                .and_then(|m| m.op_name.as_deref())
                .is_some_and(|op| op.contains(query))
        })
        .map(|&(c, i)| found(c, i, "op_name"))
        .collect();
    if !by_op_name.is_empty() {
        return Ok(by_op_name);
    }
    let names: Vec<&str> = all
        .iter()
        .map(|&(c, i)| module.computations[c].instrs[i].name.as_str())
        .collect();
    let close = closest_names(name, &names, 5);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!("; close names: {}", close.join(", "))
    };
    Err(format!(
        "no instruction named `{name}`, and none whose op_name metadata contains it or whose \
         source location is it{hint}"
    ))
}

fn found(computation: ComputationId, instruction: InstrId, matched_by: &'static str) -> Found {
    Found {
        computation,
        instruction,
        matched_by,
    }
}

/// Live instructions of every live computation, the entry's first (a name found there is
/// the one a user means when a callee repeats it).
fn all_instructions(module: &Module) -> Vec<(ComputationId, InstrId)> {
    let mut comps: Vec<ComputationId> = vec![module.entry];
    comps.extend(module.order.iter().copied().filter(|&c| c != module.entry));
    comps
        .into_iter()
        .flat_map(|c| module.computations[c].order.iter().map(move |&i| (c, i)))
        .collect()
}

fn location_matches(name: &str, loc: &FileLocation, file: &str, line: i64) -> bool {
    let file_ok = name == file || name.ends_with(&format!("/{file}"));
    file_ok && loc.line <= line && line <= loc.end_line.max(loc.line)
}

/// `model.py:42` → (`model.py`, 42).
fn split_location(query: &str) -> Option<(&str, i64)> {
    let (file, line) = query.rsplit_once(':')?;
    let line = line.parse().ok()?;
    (!file.is_empty()).then_some((file, line))
}

/// Up to `n` names closest to `query`: names containing it first, then by edit distance
/// (at most a third of the query's length, at least 2).
pub fn closest_names(query: &str, names: &[&str], n: usize) -> Vec<String> {
    let limit = (query.len() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|&name| {
            if name.contains(query) || query.contains(name) {
                return Some((0, name));
            }
            let d = edit_distance(query, name);
            (d <= limit).then_some((d, name))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(n)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::hlo_text::parse_module;

    const HLO: &str = r#"HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  tanh.1 = f32[4] tanh(p), metadata={op_name="jit(f)/gelu/tanh" source_file="/src/model.py" source_line=42}
  ROOT exp.2 = f32[4] exponential(tanh.1), metadata={op_name="jit(f)/exp" source_file="/src/model.py" source_line=43}
}
"#;

    fn names(m: &Module, f: &[Found]) -> Vec<String> {
        f.iter()
            .map(|f| {
                m.computations[f.computation].instrs[f.instruction]
                    .name
                    .clone()
            })
            .collect()
    }

    #[test]
    fn finds_by_name_op_name_and_source_line() {
        let m = parse_module(HLO, "m.hlo").unwrap().module;
        assert_eq!(
            names(&m, &find_instructions(&m, "%tanh.1").unwrap()),
            ["tanh.1"]
        );
        let by_op = find_instructions(&m, "gelu/tanh").unwrap();
        assert_eq!(names(&m, &by_op), ["tanh.1"]);
        assert_eq!(by_op[0].matched_by, "op_name");
        let by_line = find_instructions(&m, "model.py:43").unwrap();
        assert_eq!(names(&m, &by_line), ["exp.2"]);
        assert_eq!(by_line[0].matched_by, "source location");
    }

    /// What `jax.jit(f).lower(x).as_text(dialect="hlo", debug_info=True)` prints for
    /// `def g(x): return jnp.tanh(x) * 2` (line 3) and `def f(x): y = jnp.sin(x)` (line 6),
    /// `return g(y) + 1` (line 7), called at line 9.
    const DEBUG_INFO: &str = r#"HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

FileNames
1 "/tmp/dbg.py"

FunctionNames
1 "<module>"
2 "f"
3 "g"

FileLocations
1 {file_name_id=1 function_name_id=1 line=9 end_line=9 column=6 end_column=25}
2 {file_name_id=1 function_name_id=2 line=6 end_line=6 column=8 end_column=18}
3 {file_name_id=1 function_name_id=2 line=7 end_line=7 column=11 end_column=19}
4 {file_name_id=1 function_name_id=3 line=3 end_line=3 column=11 end_column=26}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=3 parent_frame_id=2}
4 {file_location_id=4 parent_frame_id=4}


ENTRY main.1 {
  x.1 = f32[4]{0} parameter(0), metadata={op_name="x"}
  sin.1 = f32[4]{0} sine(x.1), metadata={op_name="jit(f)/sin" stack_frame_id=2}
  tanh.1 = f32[4]{0} tanh(sin.1), metadata={op_name="jit(f)/tanh" stack_frame_id=4}
  constant.3 = f32[] constant(2)
  broadcast.3 = f32[4]{0} broadcast(constant.3), dimensions={}
  mul.1 = f32[4]{0} multiply(tanh.1, broadcast.3), metadata={op_name="jit(f)/mul" stack_frame_id=4}
  constant.2 = f32[] constant(1)
  broadcast.2 = f32[4]{0} broadcast(constant.2), dimensions={}
  ROOT add.1 = f32[4]{0} add(mul.1, broadcast.2), metadata={op_name="jit(f)/add" stack_frame_id=3}
}
"#;

    #[test]
    fn finds_source_lines_through_jax_stack_frames() {
        let m = parse_module(DEBUG_INFO, "m.hlo").unwrap().module;
        let at = |q: &str| names(&m, &find_instructions(&m, q).unwrap());
        assert_eq!(at("dbg.py:6"), ["sin.1"]);
        assert_eq!(at("dbg.py:3"), ["tanh.1", "mul.1"]);
        // The op made on line 7 itself wins over what line 7's call of g made.
        assert_eq!(at("dbg.py:7"), ["add.1"]);
        // Line 9 made nothing itself: everything it called.
        assert_eq!(at("/tmp/dbg.py:9"), ["sin.1", "tanh.1", "mul.1", "add.1"]);
        assert!(find_instructions(&m, "dbg.py:5").is_err());
        assert!(find_instructions(&m, "other.py:6").is_err());
    }

    #[test]
    fn not_found_lists_close_names() {
        let m = parse_module(HLO, "m.hlo").unwrap().module;
        let e = find_instructions(&m, "tanh.2").unwrap_err();
        assert!(e.contains("close names: tanh.1"), "{e}");
    }
}
