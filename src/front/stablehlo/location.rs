//! Source locations: MLIR's location attributes as JAX writes them, read from text
//! (`loc(...)` after an op, `#loc12 = loc(...)` aliases, usually defined after the module)
//! and from bytecode (builtin attributes, `bytecode/builtin.rs`) into one value, so both
//! readers give the same op tree. The conversion turns them into HLO metadata
//! (`convert/metadata.rs`) and errors name an op's [`Location::file_pos`].
//!
//! The kinds: `loc(unknown)`; `loc("f.py":3:7)` and its ranges `"f.py":3:7 to :21` and
//! `"f.py":3:7 to 5:2` (one [`FileLineCol`]); `loc("name"(child))` (a name, e.g. JAX's
//! `jit(f)/mul` name stack or a Python function name around its line); `loc(callsite(callee
//! at caller))` (JAX's traceback: the innermost frame is the callee); `loc(fused[a, b])`.
//! MLIR: `mlir/include/mlir/IR/BuiltinLocationAttributes.td`, `mlir/lib/AsmParser/LocationParser.cpp`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::lexer::{Cursor, PResult};

/// Locations nest at most this deep (text and bytecode; a guard against stack overflow).
pub const MAX_DEPTH: usize = 64;

/// A fused location holds at most this many parts.
const MAX_FUSED: usize = 4096;

/// An MLIR location.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Location {
    /// `loc(unknown)`, and what an op without `loc(...)` has.
    #[default]
    Unknown,
    /// `loc("file":line:col)` or a range of it.
    FileLineCol(FileLineCol),
    /// `loc("name"(child))`; `loc("name")` has an unknown child.
    Name(String, Arc<Location>),
    /// `loc(callsite(callee at caller))`.
    CallSite(Arc<Location>, Arc<Location>),
    /// `loc(fused[a, b, ...])` (a `fused<metadata>` prefix is read and dropped).
    Fused(Vec<Arc<Location>>),
}

/// MLIR's `FileLineColRange`: a start and an end position in a file (equal for a point).
/// A position that the source does not give is 0 (`"f.py":3` has column 0).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileLineCol {
    /// The file name as written.
    pub file: String,
    /// First line (1-based).
    pub line: u32,
    /// First column (1-based).
    pub col: u32,
    /// Last line.
    pub end_line: u32,
    /// Last column.
    pub end_col: u32,
}

impl FileLineCol {
    /// A point `file:line:col`.
    pub fn point(file: impl Into<String>, line: u32, col: u32) -> FileLineCol {
        FileLineCol {
            file: file.into(),
            line,
            col,
            end_line: line,
            end_col: col,
        }
    }
}

impl Location {
    /// The position an error about the op names: the first file position, the callee's
    /// before the caller's (the innermost frame of a JAX traceback), a name's child, a
    /// fused location's first part that has one.
    pub fn file_pos(&self) -> Option<&FileLineCol> {
        let mut stack = vec![self];
        let mut budget = MAX_FUSED;
        while let Some(l) = stack.pop() {
            budget = budget.checked_sub(1)?;
            match l {
                Location::Unknown => {}
                Location::FileLineCol(f) => return Some(f),
                Location::Name(_, child) => stack.push(child),
                Location::CallSite(callee, caller) => {
                    stack.push(caller);
                    stack.push(callee);
                }
                Location::Fused(parts) => stack.extend(parts.iter().rev().map(|p| &**p)),
            }
        }
        None
    }
}

impl fmt::Display for FileLineCol {
    /// `file:line:col`, as diagnostics print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

impl fmt::Display for Location {
    /// MLIR's syntax inside `loc(...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Unknown => write!(f, "unknown"),
            Location::FileLineCol(p) => {
                write!(f, "{:?}:{}", p.file, p.line)?;
                if p.col != 0 || p.end_col != 0 || p.end_line != p.line {
                    write!(f, ":{}", p.col)?;
                }
                if p.end_line != p.line {
                    write!(f, " to {}:{}", p.end_line, p.end_col)?;
                } else if p.end_col != p.col {
                    write!(f, " to :{}", p.end_col)?;
                }
                Ok(())
            }
            Location::Name(name, child) => match &**child {
                Location::Unknown => write!(f, "{name:?}"),
                c => write!(f, "{name:?}({c})"),
            },
            Location::CallSite(callee, caller) => write!(f, "callsite({callee} at {caller})"),
            Location::Fused(parts) => {
                write!(f, "fused[")?;
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{p}")?;
                }
                write!(f, "]")
            }
        }
    }
}

/// A location as written, before `#alias` references are resolved.
#[derive(Clone, Debug)]
enum Written {
    Unknown,
    FileLineCol(FileLineCol),
    Name(String, Box<Written>),
    CallSite(Box<Written>, Box<Written>),
    Fused(Vec<Written>),
    Alias(String, super::lexer::Loc),
}

/// The `#name = loc(...)` aliases of one text, and whether a use came before its
/// definition. JAX writes most aliases after the module, so the parser reads the text
/// twice when it must: the first pass collects the definitions (uses it cannot resolve
/// yet read as unknown), the second resolves every use.
#[derive(Clone, Debug, Default)]
pub struct LocationAliases {
    written: HashMap<String, Written>,
    resolved: HashMap<String, Arc<Location>>,
    /// A use named an alias not defined (yet).
    pub missing: bool,
    /// Every definition is known: a missing alias is an error, definitions are not
    /// recorded again.
    complete: bool,
}

impl LocationAliases {
    /// The table for a second pass over the same text: every definition known.
    pub fn completed(self) -> LocationAliases {
        LocationAliases {
            complete: true,
            missing: false,
            ..self
        }
    }
}

/// Parses an optional `loc(...)`; without one the location is unknown.
pub fn parse_opt_loc(c: &mut Cursor<'_>) -> PResult<Arc<Location>> {
    if !c.looking_at_word("loc") {
        return Ok(Arc::new(Location::Unknown));
    }
    let w = parse_loc_call(c)?;
    resolve(c, &w, 0)
}

/// Parses `#name = loc(...)` after the `#name =` (the name given).
pub fn parse_alias_definition(c: &mut Cursor<'_>, name: String) -> PResult<()> {
    let at = c.loc();
    let w = parse_loc_call(c)?;
    if c.locations.complete {
        return Ok(());
    }
    if c.locations.written.contains_key(&name) {
        return Err(c.error_at(at, format!("location alias #{name} is defined twice")));
    }
    if c.locations.written.len() >= 1 << 20 {
        return Err(c.error_at(at, "more than 2^20 location aliases"));
    }
    c.locations.written.insert(name, w);
    Ok(())
}

/// `loc(` body `)`.
fn parse_loc_call(c: &mut Cursor<'_>) -> PResult<Written> {
    c.eat_word("loc");
    if c.peek() != Some(b'(') {
        return Err(c.expected("'(' after loc"));
    }
    c.expect("(")?;
    let w = parse_body(c, 0)?;
    c.expect(")")?;
    Ok(w)
}

/// One location inside `loc(...)`, `callsite(...)`, `fused[...]` or a name's `(...)`.
fn parse_body(c: &mut Cursor<'_>, depth: usize) -> PResult<Written> {
    if depth > MAX_DEPTH {
        return Err(c.err("locations nested too deeply"));
    }
    let at = c.loc();
    if c.eat_word("unknown") {
        return Ok(Written::Unknown);
    }
    if c.peek() == Some(b'#') {
        let name = c
            .sigil_name(b'#')?
            .ok_or_else(|| c.expected("a location alias"))?;
        return Ok(Written::Alias(name, at));
    }
    if c.eat_word("callsite") {
        c.expect("(")?;
        let callee = parse_body(c, depth + 1)?;
        if !c.eat_word("at") {
            return Err(c.expected("'at' between a call site's callee and caller"));
        }
        let caller = parse_body(c, depth + 1)?;
        c.expect(")")?;
        return Ok(Written::CallSite(Box::new(callee), Box::new(caller)));
    }
    if c.eat_word("fused") {
        if c.peek() == Some(b'<') {
            c.balanced()?;
        }
        c.expect("[")?;
        let mut parts = Vec::new();
        if !c.eat("]") {
            loop {
                if parts.len() >= MAX_FUSED {
                    return Err(c.err(format!("more than {MAX_FUSED} fused locations")));
                }
                parts.push(parse_body(c, depth + 1)?);
                if c.eat("]") {
                    break;
                }
                c.expect(",")?;
            }
        }
        return Ok(Written::Fused(parts));
    }
    if c.peek() != Some(b'"') {
        return Err(c.expected(
            "a location (unknown, \"file\":line:col, \"name\", callsite, fused or #alias)",
        ));
    }
    let s = c.string()?;
    if c.peek() == Some(b':') {
        c.expect(":")?;
        let line = position(c, "a line")?;
        let mut p = FileLineCol::point(s, line, 0);
        if c.eat(":") {
            p.col = position(c, "a column")?;
            p.end_col = p.col;
            if c.eat_word("to") {
                if c.eat(":") {
                    p.end_col = position(c, "an end column")?;
                } else {
                    p.end_line = position(c, "an end line")?;
                    c.expect(":")?;
                    p.end_col = position(c, "an end column")?;
                }
            }
        }
        return Ok(Written::FileLineCol(p));
    }
    if c.peek() == Some(b'(') {
        c.expect("(")?;
        let child = parse_body(c, depth + 1)?;
        c.expect(")")?;
        return Ok(Written::Name(s, Box::new(child)));
    }
    Ok(Written::Name(s, Box::new(Written::Unknown)))
}

/// A line or column: a non-negative integer that fits 32 bits.
fn position(c: &mut Cursor<'_>, what: &str) -> PResult<u32> {
    let at = c.loc();
    let v = c.int()?;
    u32::try_from(v)
        .map_err(|_| c.error_at(at, format!("expected {what} (0 to 2^32-1), found {v}")))
}

/// The location a written one stands for, aliases replaced (each resolved once, so
/// aliases used many times share one value).
fn resolve(c: &mut Cursor<'_>, w: &Written, depth: usize) -> PResult<Arc<Location>> {
    if depth > MAX_DEPTH {
        return Err(c.err("location aliases nest too deeply (do they refer to each other?)"));
    }
    Ok(Arc::new(match w {
        Written::Unknown => Location::Unknown,
        Written::FileLineCol(p) => Location::FileLineCol(p.clone()),
        Written::Name(n, child) => Location::Name(n.clone(), resolve(c, child, depth + 1)?),
        Written::CallSite(callee, caller) => Location::CallSite(
            resolve(c, callee, depth + 1)?,
            resolve(c, caller, depth + 1)?,
        ),
        Written::Fused(parts) => Location::Fused(
            parts
                .iter()
                .map(|p| resolve(c, p, depth + 1))
                .collect::<PResult<_>>()?,
        ),
        Written::Alias(name, at) => {
            if let Some(l) = c.locations.resolved.get(name) {
                return Ok(l.clone());
            }
            let Some(def) = c.locations.written.get(name).cloned() else {
                if c.locations.complete {
                    return Err(c.error_at(*at, format!("location alias #{name} is not defined")));
                }
                c.locations.missing = true;
                return Ok(Arc::new(Location::Unknown));
            };
            let l = resolve(c, &def, depth + 1)?;
            // A value read while some alias was still missing is not final.
            if c.locations.complete || !c.locations.missing {
                c.locations.resolved.insert(name.clone(), l.clone());
            }
            return Ok(l);
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::stablehlo::parse_mlir;

    fn one(text: &str) -> Result<String, String> {
        let src = format!(
            "func.func @main(%a: tensor<f32> loc(\"a\")) -> tensor<f32> {{\n  return %a : tensor<f32> {text}\n}}\n#l1 = loc(\"f.py\":3:7)\n#l2 = loc(\"g\"(#l1))\n"
        );
        let m = parse_mlir(&src, "t.mlir", 0).map_err(|e| e.to_string())?;
        Ok(m.functions[0].body.blocks[0].operations[0]
            .location
            .to_string())
    }

    #[test]
    fn every_kind_reads_and_prints_back() {
        for (text, want) in [
            ("", "unknown"),
            ("loc(unknown)", "unknown"),
            ("loc(\"f.py\":3:7)", "\"f.py\":3:7"),
            ("loc(\"f.py\":3:7 to :21)", "\"f.py\":3:7 to :21"),
            ("loc(\"f.py\":3:7 to 5:2)", "\"f.py\":3:7 to 5:2"),
            ("loc(\"f.py\":3)", "\"f.py\":3"),
            ("loc(\"jit(f)/mul\")", "\"jit(f)/mul\""),
            ("loc(#l2)", "\"g\"(\"f.py\":3:7)"),
            (
                "loc(callsite(#l2 at \"h\"(\"m.py\":1:2)))",
                "callsite(\"g\"(\"f.py\":3:7) at \"h\"(\"m.py\":1:2))",
            ),
            (
                "loc(fused<\"x\">[#l1, unknown])",
                "fused[\"f.py\":3:7, unknown]",
            ),
        ] {
            assert_eq!(one(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn malformed_locations_are_one_located_error() {
        for (text, msg) in [
            ("loc(#nope)", "location alias #nope is not defined"),
            ("loc(\"f.py\":x)", "expected an integer"),
            ("loc(\"f.py\":-3:1)", "expected a line"),
            ("loc(callsite(#l1 #l2))", "expected 'at'"),
            ("loc(fused[#l1 #l2])", "expected ','"),
            ("loc(\"f.py\":1:2", "expected ')'"),
            ("loc(42)", "expected a location"),
            ("loc(\"f.py\":99999999999:1)", "expected a line"),
        ] {
            let e = one(text).unwrap_err();
            assert!(e.contains(msg) && e.starts_with("t.mlir:"), "{text}: {e}");
        }
        let deep = format!("loc({}\"f\":1:1{})", "\"n\"(".repeat(100), ")".repeat(100));
        assert!(one(&deep).unwrap_err().contains("too deeply"));
        let cyc = "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32> loc(#a)\n}\n#a = loc(\"n\"(#b))\n#b = loc(\"m\"(#a))\n";
        let e = parse_mlir(cyc, "t.mlir", 0).unwrap_err().to_string();
        assert!(e.contains("nest too deeply"), "{e}");
        let twice =
            "#a = loc(unknown)\n#a = loc(unknown)\nfunc.func @main() -> () {\n  return\n}\n";
        let e = parse_mlir(twice, "t.mlir", 0).unwrap_err().to_string();
        assert!(e.contains("defined twice"), "{e}");
    }

    #[test]
    fn file_pos_is_the_innermost_frame() {
        let p = |f: &str, l| Arc::new(Location::FileLineCol(FileLineCol::point(f, l, 1)));
        let callee = Arc::new(Location::Name("g".into(), p("g.py", 4)));
        let caller = Arc::new(Location::Name("<module>".into(), p("m.py", 9)));
        let l = Location::Name(
            "jit(f)/sin".into(),
            Arc::new(Location::CallSite(callee, caller)),
        );
        assert_eq!(l.file_pos().unwrap().to_string(), "g.py:4:1");
        let fused = Location::Fused(vec![Arc::new(Location::Unknown), p("a.py", 2)]);
        assert_eq!(fused.file_pos().unwrap().to_string(), "a.py:2:1");
        assert_eq!(Location::Unknown.file_pos(), None);
    }
}
