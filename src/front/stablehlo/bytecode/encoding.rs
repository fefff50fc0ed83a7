//! The container layer: the byte cursor (MLIR's prefix varints, zigzag signed varints,
//! NUL-terminated strings, blobs), the file header (magic, version, producer) and the
//! section table. Every read is checked against the bytes that remain, so a length field
//! can never size an allocation or a slice beyond the input.
//! MLIR: `mlir/docs/BytecodeFormat.md`, `mlir/include/mlir/Bytecode/Encoding.h`.

use std::fmt;

/// The file's first four bytes.
pub const MAGIC: &[u8; 4] = b"ML\xefR";

/// The only bytecode version read (what every VHLO target from 1.0.0 on writes).
pub const VERSION: u64 = 6;

/// A reading error: the byte offset in the file and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytecodeError {
    /// Whether the file is wrong or xlac lacks what it needs.
    pub kind: crate::ir::ErrorKind,
    /// Offset from the start of the file.
    pub offset: usize,
    /// What was expected, or what is wrong.
    pub message: String,
}

impl fmt::Display for BytecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for BytecodeError {}

crate::ir::impl_unsupported!(BytecodeError);

/// Result of a read step.
pub type BResult<T> = Result<T, BytecodeError>;

/// A cursor over a slice of the file; offsets in errors are file offsets.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// File offset of `data[0]`.
    base: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, which starts at file offset `base`.
    pub fn new(data: &'a [u8], base: usize) -> Cursor<'a> {
        Cursor { data, pos: 0, base }
    }

    /// The file offset of the next byte.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when every byte was read.
    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// An error at the next byte.
    pub fn err(&self, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            kind: crate::ir::ErrorKind::Invalid,
            offset: self.offset(),
            message: message.into(),
        }
    }

    /// An error at file offset `offset`.
    pub fn err_at(offset: usize, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            kind: crate::ir::ErrorKind::Invalid,
            offset,
            message: message.into(),
        }
    }

    /// One byte.
    pub fn byte(&mut self, what: &str) -> BResult<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.err(format!("expected {what}, found the end of the data")))?;
        self.pos += 1;
        Ok(b)
    }

    /// `n` bytes.
    pub fn bytes(&mut self, n: u64, what: &str) -> BResult<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.err(format!(
                "expected {what} of {n} bytes, but only {} remain",
                self.remaining()
            )));
        }
        let s = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// A sub-cursor over the next `n` bytes.
    pub fn sub(&mut self, n: u64, what: &str) -> BResult<Cursor<'a>> {
        let base = self.offset();
        let data = self.bytes(n, what)?;
        Ok(Cursor::new(data, base))
    }

    /// A prefix varint: the count of trailing zero bits of the first byte is the number
    /// of extra bytes; a first byte of 0 means eight extra bytes.
    pub fn varint(&mut self, what: &str) -> BResult<u64> {
        let start = self.offset();
        let first = self.byte(what)?;
        if first & 1 == 1 {
            return Ok((first >> 1) as u64);
        }
        let extra = if first == 0 {
            8
        } else {
            first.trailing_zeros() as usize
        };
        if extra > self.remaining() {
            return Err(Cursor::err_at(
                start,
                format!(
                    "expected {what}: a {}-byte varint runs past the end",
                    extra + 1
                ),
            ));
        }
        let mut buf = [0u8; 9];
        buf[0] = first;
        buf[1..=extra].copy_from_slice(&self.data[self.pos..self.pos + extra]);
        self.pos += extra;
        if first == 0 {
            return Ok(u64::from_le_bytes(buf[1..9].try_into().unwrap_or([0; 8])));
        }
        let mut v = 0u64;
        for (i, b) in buf[..=extra].iter().enumerate() {
            v |= (*b as u64) << (8 * i);
        }
        Ok(v >> (extra + 1))
    }

    /// A zigzag-encoded signed varint.
    pub fn svarint(&mut self, what: &str) -> BResult<i64> {
        let v = self.varint(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A varint whose low bit is a flag: `(value << 1) | flag`.
    pub fn varint_flag(&mut self, what: &str) -> BResult<(u64, bool)> {
        let v = self.varint(what)?;
        Ok((v >> 1, v & 1 == 1))
    }

    /// A count of items that each take at least one byte: checked against the bytes left,
    /// so it can size a `Vec`.
    pub fn count(&mut self, what: &str) -> BResult<usize> {
        let start = self.offset();
        let n = self.varint(what)?;
        if n > self.remaining() as u64 {
            return Err(Cursor::err_at(
                start,
                format!(
                    "expected {what}: {n} is more than the {} bytes that remain",
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    /// A list of signed varints (count first).
    pub fn svarints(&mut self, what: &str) -> BResult<Vec<i64>> {
        let n = self.count(what)?;
        (0..n).map(|_| self.svarint(what)).collect()
    }

    /// A blob: a varint length, then the bytes.
    pub fn blob(&mut self, what: &str) -> BResult<&'a [u8]> {
        let n = self.varint(what)?;
        self.bytes(n, what)
    }

    /// A NUL-terminated string.
    pub fn cstr(&mut self, what: &str) -> BResult<&'a str> {
        let rest = &self.data[self.pos..];
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return Err(self.err(format!("expected {what} ending in a NUL byte")));
        };
        let s = std::str::from_utf8(&rest[..nul])
            .map_err(|_| self.err(format!("{what} is not UTF-8")))?;
        self.pos += nul + 1;
        Ok(s)
    }

    /// An `APInt` of a known bit width: one byte up to 8 bits, a signed varint up to 64,
    /// else a list of 64-bit words (least significant first).
    pub fn apint(&mut self, width: u32, what: &str) -> BResult<u128> {
        if width <= 8 {
            return Ok(self.byte(what)? as u128);
        }
        if width <= 64 {
            let v = self.svarint(what)? as u64;
            return Ok(mask(v as u128, width));
        }
        let start = self.offset();
        let n = self.count(what)?;
        if n > 2 {
            return Err(Cursor::err_at(
                start,
                format!("expected {what}: {n} words is wider than 128 bits"),
            ));
        }
        let mut v = 0u128;
        for i in 0..n {
            v |= (self.svarint(what)? as u64 as u128) << (64 * i);
        }
        Ok(mask(v, width.min(128)))
    }
}

fn mask(v: u128, width: u32) -> u128 {
    if width >= 128 {
        v
    } else {
        v & ((1u128 << width) - 1)
    }
}

/// Section ids.
pub mod section {
    /// The string table.
    pub const STRING: usize = 0;
    /// Dialects and op names.
    pub const DIALECT: usize = 1;
    /// Attribute and type entries.
    pub const ATTR_TYPE: usize = 2;
    /// Where each attribute and type entry is.
    pub const ATTR_TYPE_OFFSET: usize = 3;
    /// The operations.
    pub const IR: usize = 4;
    /// Op properties.
    pub const PROPERTIES: usize = 8;
    /// Number of section kinds.
    pub const COUNT: usize = 9;
    /// Names for errors.
    pub const NAMES: [&str; COUNT] = [
        "String",
        "Dialect",
        "AttrType",
        "AttrTypeOffset",
        "IR",
        "Resource",
        "ResourceOffset",
        "DialectVersions",
        "Properties",
    ];
}

/// Reads a section header and returns its id and contents. Alignment padding (`0xCB`)
/// is relative to the start of the file.
pub fn read_section<'a>(c: &mut Cursor<'a>) -> BResult<(usize, Cursor<'a>)> {
    let start = c.offset();
    let id_align = c.byte("a section id")?;
    let id = (id_align & 0x7f) as usize;
    if id >= section::COUNT {
        return Err(Cursor::err_at(
            start,
            format!("expected a section id 0..8, found {id}"),
        ));
    }
    let len = c.varint("a section length")?;
    if id_align & 0x80 != 0 {
        let align = c.varint("a section alignment")?;
        if !align.is_power_of_two() || align > 1 << 16 {
            return Err(c.err(format!("bad section alignment {align}")));
        }
        while !(c.offset() as u64).is_multiple_of(align) {
            let pad = c.byte("alignment padding")?;
            if pad != 0xCB {
                return Err(c.err(format!(
                    "expected alignment padding 0xCB, found 0x{pad:02X}"
                )));
            }
        }
    }
    let data = c.sub(len, &format!("the {} section", section::NAMES[id]))?;
    Ok((id, data))
}

/// The file header and its sections.
pub struct File<'a> {
    /// The bytecode version.
    pub version: u64,
    /// The producer string (`StableHLO_v1.17.0`).
    pub producer: &'a str,
    /// Each section's contents, by id.
    pub sections: [Option<Cursor<'a>>; section::COUNT],
}

/// Reads the header and the section table of a bytecode file.
pub fn read_file(bytes: &[u8]) -> BResult<File<'_>> {
    let mut c = Cursor::new(bytes, 0);
    let magic = c.bytes(4, "the magic number \"ML\\xEFR\"").map_err(|_| {
        Cursor::err_at(
            0,
            "expected the magic number \"ML\\xEFR\": the file is shorter than 4 bytes",
        )
    })?;
    if magic != MAGIC {
        return Err(Cursor::err_at(
            0,
            "expected the magic number \"ML\\xEFR\" of MLIR bytecode",
        ));
    }
    let at = c.offset();
    let version = c.varint("the bytecode version")?;
    if version != VERSION {
        return Err(Cursor::err_at(
            at,
            format!(
                "unsupported bytecode version {version}: xlac reads version {VERSION} (StableHLO targets 1.0.0 and later)"
            ),
        ).unsupported());
    }
    let producer = c.cstr("the producer string")?;
    let mut sections: [Option<Cursor<'_>>; section::COUNT] = Default::default();
    while !c.at_end() {
        let at = c.offset();
        let (id, data) = read_section(&mut c)?;
        if sections[id].is_some() {
            return Err(Cursor::err_at(
                at,
                format!("the {} section appears twice", section::NAMES[id]),
            ));
        }
        sections[id] = Some(data);
    }
    for id in [
        section::STRING,
        section::DIALECT,
        section::ATTR_TYPE,
        section::ATTR_TYPE_OFFSET,
        section::IR,
        section::PROPERTIES,
    ] {
        if sections[id].is_none() {
            return Err(Cursor::err_at(
                bytes.len(),
                format!(
                    "expected a {} section before the end of the file",
                    section::NAMES[id]
                ),
            ));
        }
    }
    Ok(File {
        version,
        producer,
        sections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let data = [0x03u8, 0x02, 0x01, 0xff, 0x00, 1, 2, 3, 4, 5, 6, 7, 8];
        let mut c = Cursor::new(&data, 0);
        assert_eq!(c.varint("x").unwrap(), 1);
        // 0x02 0x01: one extra byte, value (0x0102 >> 2).
        assert_eq!(c.varint("x").unwrap(), 0x0102 >> 2);
        assert_eq!(c.varint("x").unwrap(), 0x7f);
        assert_eq!(c.varint("x").unwrap(), 0x0807060504030201);
        assert!(c.at_end());
        let mut z = Cursor::new(&[0x03, 0x05], 0);
        assert_eq!(z.svarint("x").unwrap(), -1);
        assert_eq!(z.svarint("x").unwrap(), 1);
    }

    #[test]
    fn lengths_are_checked() {
        let mut c = Cursor::new(&[0x0b, 0x01], 10);
        let e = c.blob("a blob").unwrap_err();
        assert_eq!(e.offset, 11);
        assert!(e.message.contains("only 1 remain"), "{e}");
        let mut c = Cursor::new(&[0x00, 1, 2], 0);
        assert!(
            c.varint("x")
                .unwrap_err()
                .message
                .contains("runs past the end")
        );
        assert!(read_file(b"MLIR").err().unwrap().message.contains("magic"));
        assert!(
            read_file(b"ML\xefR\x0bx\0")
                .err()
                .unwrap()
                .message
                .contains("version 5")
        );
    }
}
