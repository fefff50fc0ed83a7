//! The string table and the dialect section: dialect names and the op names each IR
//! entry refers to by index.
//! MLIR: `mlir/lib/Bytecode/Reader/BytecodeReader.cpp` (`StringSectionReader`,
//! `parseDialectSection`).

use super::encoding::{BResult, Cursor};

/// The strings every other section refers to by index.
pub struct Strings<'a> {
    strings: Vec<&'a str>,
}

impl<'a> Strings<'a> {
    /// Reads the string section: a count, the lengths in reverse order (each with its
    /// NUL), then the characters.
    pub fn read(mut c: Cursor<'a>) -> BResult<Strings<'a>> {
        let n = c.count("the number of strings")?;
        let mut lengths = Vec::with_capacity(n);
        for _ in 0..n {
            lengths.push(c.varint("a string length")?);
        }
        // The data follows the lengths; the last length belongs to the first string.
        let data_start = c.offset();
        let total: u64 = lengths
            .iter()
            .try_fold(0u64, |a, &l| a.checked_add(l))
            .unwrap_or(u64::MAX);
        if total != c.remaining() as u64 {
            return Err(c.err(format!(
                "expected {} bytes of string data after the lengths, found {}",
                total,
                c.remaining()
            )));
        }
        let mut strings = Vec::with_capacity(n);
        for &len in lengths.iter().rev() {
            let at = c.offset();
            let bytes = c.bytes(len, "a string")?;
            let Some((&0, body)) = bytes.split_last() else {
                return Err(Cursor::err_at(at, "expected a string ending in a NUL byte"));
            };
            let s = std::str::from_utf8(body)
                .map_err(|_| Cursor::err_at(at, "a string is not UTF-8"))?;
            strings.push(s);
        }
        let _ = data_start;
        Ok(Strings { strings })
    }

    /// The string at `index`.
    pub fn get(&self, index: u64, at: usize) -> BResult<&'a str> {
        self.strings.get(index as usize).copied().ok_or_else(|| {
            Cursor::err_at(
                at,
                format!(
                    "expected a string index below {}, found {index}",
                    self.strings.len()
                ),
            )
        })
    }

    /// Reads a string index and returns the string.
    pub fn read_ref(&self, c: &mut Cursor<'_>, what: &str) -> BResult<&'a str> {
        let at = c.offset();
        let i = c.varint(what)?;
        self.get(i, at)
    }
}

/// An op name: its dialect and name.
#[derive(Clone, Debug)]
pub struct OpName<'a> {
    /// The full name, `vhlo.add_v1`.
    pub full: String,
    /// The name without the dialect.
    pub name: &'a str,
    /// Whether the op was registered when written (v5+).
    pub registered: bool,
}

/// The dialect section.
pub struct Dialects<'a> {
    /// Dialect names in index order.
    pub names: Vec<&'a str>,
    /// Op names in index order.
    pub ops: Vec<OpName<'a>>,
}

impl<'a> Dialects<'a> {
    /// Reads the dialect section.
    pub fn read(mut c: Cursor<'a>, strings: &Strings<'a>) -> BResult<Dialects<'a>> {
        let n = c.count("the number of dialects")?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.offset();
            let (idx, has_version) = c.varint_flag("a dialect name")?;
            names.push(strings.get(idx, at)?);
            if has_version {
                // Versions are a blob the dialect reads; VHLO writes none. Skip it.
                c.blob("a dialect version")?;
            }
        }
        let total = c.count("the number of op names")?;
        let mut ops = Vec::with_capacity(total);
        while ops.len() < total {
            let at = c.offset();
            let d = c.varint("a dialect index")? as usize;
            if d >= names.len() {
                return Err(Cursor::err_at(
                    at,
                    format!("expected a dialect index below {}, found {d}", names.len()),
                ));
            }
            let k = c.count("the number of op names of a dialect")?;
            if ops.len() + k > total {
                return Err(Cursor::err_at(
                    at,
                    format!("the op name groups hold more than the {total} names announced"),
                ));
            }
            for _ in 0..k {
                let at = c.offset();
                let (idx, registered) = c.varint_flag("an op name")?;
                let name = strings.get(idx, at)?;
                ops.push(OpName {
                    full: format!("{}.{}", names[d], name),
                    name,
                    registered,
                });
            }
        }
        if !c.at_end() {
            return Err(c.err("unexpected bytes after the op names of the Dialect section"));
        }
        Ok(Dialects { names, ops })
    }
}
