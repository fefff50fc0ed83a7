//! The attribute and type table: where each entry is (AttrTypeOffset section), and its
//! decoded value, read lazily on first use and cached (entries refer to each other by
//! index, in any order). An entry is either custom-encoded by its dialect (`builtin.rs`,
//! `vhlo.rs`) or its textual assembly (read by the MLIR text parser). The decoded forms
//! [`A`] and [`T`] keep what VHLO and the builtin dialect say, before the reshaping into
//! StableHLO's attributes (`legalize.rs`).
//! MLIR: `mlir/lib/Bytecode/Reader/BytecodeReader.cpp` (`AttrTypeReader`).

use std::rc::Rc;
use std::sync::Arc;

use super::encoding::{BResult, Cursor};
use super::tables::{Dialects, Strings};
use super::{builtin, sdy, vhlo};
pub use crate::front::stablehlo::location::Location;
use crate::ir::PrimitiveType;

/// Nesting of attributes and types deeper than this is an error (it also stops cycles).
const MAX_DEPTH: usize = 100;

/// A VHLO enum attribute's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumKind {
    /// `#stablehlo<comparison_direction EQ>`
    ComparisonDirection,
    /// `#stablehlo<comparison_type FLOAT>`
    ComparisonType,
    /// `custom_call`'s `api_version`
    CustomCallApiVersion,
    /// `#stablehlo<fft_type FFT>`
    FftType,
    /// `#stablehlo<precision DEFAULT>`
    Precision,
    /// `#stablehlo<rng_algorithm THREE_FRY>`
    RngAlgorithm,
    /// `#stablehlo<rng_distribution UNIFORM>`
    RngDistribution,
    /// `#stablehlo<transpose NO_TRANSPOSE>`
    Transpose,
    /// `#stablehlo<result_accuracy_mode DEFAULT>`
    ResultAccuracyMode,
}

/// A decoded attribute (builtin or VHLO).
#[derive(Clone, Debug, PartialEq)]
pub enum A {
    /// `[a, b]` (builtin `ArrayAttr`, `vhlo.array_v1`).
    Array(Vec<Rc<A>>),
    /// `{name = value}` (builtin `DictionaryAttr`, `vhlo.dict_v1`).
    Dict(Vec<(String, Rc<A>)>),
    /// A string (builtin `StringAttr`, `vhlo.string_v1`).
    Str(String),
    /// `@name` (the last part of a nested reference).
    Symbol(String),
    /// A type as an attribute.
    Type(Rc<T>),
    /// `unit`.
    Unit,
    /// `true` / `false` (`vhlo.bool_v1`).
    Bool(bool),
    /// An integer of a type (value as the type's bits, sign-extended when signed).
    Int(Rc<T>, i128),
    /// A float of a type.
    Float(Rc<T>, f64),
    /// `array<i64: ...>` (builtin `DenseArrayAttr`).
    DenseArray(Rc<T>, Vec<i64>),
    /// `dense<...> : type`: raw little-endian elements (one for a splat; `i1` one byte each).
    Tensor(Rc<T>, Rc<Vec<u8>>),
    /// A VHLO enum.
    Enum(EnumKind, u64),
    /// `#stablehlo.type_extensions<bounds = [...]>`.
    TypeExtensions(Vec<i64>),
    /// `#stablehlo.output_operand_alias<...>`.
    OutputOperandAlias {
        /// `output_tuple_indices`
        output: Vec<i64>,
        /// `operand_index`
        operand: i64,
        /// `operand_tuple_indices`
        operand_tuple: Vec<i64>,
    },
    /// `#stablehlo.result_accuracy<...>`.
    ResultAccuracy {
        /// `atol`
        atol: f64,
        /// `rtol`
        rtol: f64,
        /// `ulps`
        ulps: i64,
        /// `mode` (an enum attribute)
        mode: Rc<A>,
    },
    /// A location.
    Loc(Arc<Location>),
    /// A Shardy attribute (mesh, sharding, manual axes).
    Sdy(Rc<sdy::Sdy>),
    /// An attribute stored as its textual assembly.
    Text(String),
}

/// A decoded type (builtin or VHLO).
#[derive(Clone, Debug, PartialEq)]
pub enum T {
    /// An integer type: width and signedness (None = signless).
    Int(u32, Option<bool>),
    /// `i1` in VHLO.
    Bool,
    /// `index`.
    Index,
    /// A float type.
    Float(PrimitiveType),
    /// `complex<T>`.
    Complex(Rc<T>),
    /// `tensor<dims x elem>` (a dimension below 0 is dynamic), with an optional encoding.
    Tensor(Vec<i64>, Rc<T>, Option<Rc<A>>),
    /// `tensor<*xelem>`.
    Unranked(Rc<T>),
    /// `tuple<...>`.
    Tuple(Vec<Rc<T>>),
    /// `!stablehlo.token`.
    Token,
    /// `(ins) -> outs`.
    Function(Vec<Rc<T>>, Vec<Rc<T>>),
    /// `!quant.uniform<...>` (per tensor, or per axis with `axis`).
    Quant {
        /// Bit 0: signed storage.
        flags: u64,
        /// The storage type.
        storage: Rc<T>,
        /// The expressed type.
        expressed: Rc<T>,
        /// The quantized dimension (per-axis only).
        axis: Option<u64>,
        /// Scales.
        scales: Vec<f64>,
        /// Zero points.
        zero_points: Vec<i64>,
        /// Storage range.
        storage_min: i64,
        /// Storage range.
        storage_max: i64,
    },
    /// `none`.
    None,
    /// `!stablehlo.witness` and other types xlac does not model, by name.
    Other(&'static str),
    /// A type stored as its textual assembly.
    Text(String),
}

impl T {
    /// The element type as an HLO primitive type (integers, floats, complex, bool).
    pub fn prim(&self) -> Option<PrimitiveType> {
        use PrimitiveType as P;
        Some(match self {
            T::Bool => P::Pred,
            T::Int(1, _) => P::Pred,
            T::Int(w, Some(false)) => match w {
                1 => P::U1,
                2 => P::U2,
                4 => P::U4,
                8 => P::U8,
                16 => P::U16,
                32 => P::U32,
                64 => P::U64,
                _ => return None,
            },
            T::Int(w, _) => match w {
                2 => P::S2,
                4 => P::S4,
                8 => P::S8,
                16 => P::S16,
                32 => P::S32,
                64 => P::S64,
                _ => return None,
            },
            T::Index => P::S64,
            T::Float(p) => *p,
            T::Complex(e) => match e.prim()? {
                P::F32 => P::C64,
                P::F64 => P::C128,
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Bits of one element of this scalar type (`index` is 64).
    pub fn bit_width(&self) -> Option<u32> {
        match self {
            T::Int(w, _) => Some(*w),
            T::Bool => Some(1),
            T::Index => Some(64),
            T::Float(p) => Some(p.bit_width() as u32),
            _ => None,
        }
    }
}

/// Where one entry is.
#[derive(Clone, Copy)]
struct Entry {
    dialect: usize,
    start: usize,
    len: usize,
    custom: bool,
}

/// The decoded entries of a section (attributes or types), each filled on first use.
type Cache<V> = Vec<Option<Rc<V>>>;

/// The attribute/type table with its caches, and the string and dialect tables.
pub struct Tables<'a> {
    /// The strings.
    pub strings: Strings<'a>,
    /// Dialects and op names.
    pub dialects: Dialects<'a>,
    data: Cursor<'a>,
    attrs: Vec<Entry>,
    types: Vec<Entry>,
    attr_cache: Cache<A>,
    type_cache: Cache<T>,
    depth: usize,
}

impl<'a> Tables<'a> {
    /// Reads the AttrTypeOffset section over the AttrType section's data.
    pub fn new(
        strings: Strings<'a>,
        dialects: Dialects<'a>,
        data: Cursor<'a>,
        mut offsets: Cursor<'a>,
    ) -> BResult<Tables<'a>> {
        let n_attrs = offsets.count("the number of attributes")?;
        let n_types = offsets.count("the number of types")?;
        let mut pos = 0usize;
        let mut read_group = |offsets: &mut Cursor<'a>, out: &mut Vec<Entry>, want: usize| {
            while out.len() < want {
                let at = offsets.offset();
                let d = offsets.varint("a dialect index")? as usize;
                if d >= dialects.names.len() {
                    return Err(Cursor::err_at(
                        at,
                        format!(
                            "expected a dialect index below {}, found {d}",
                            dialects.names.len()
                        ),
                    ));
                }
                let k = offsets.count("the number of entries of a dialect")?;
                if out.len() + k > want {
                    return Err(Cursor::err_at(
                        at,
                        "more attribute/type entries than announced",
                    ));
                }
                for _ in 0..k {
                    let at = offsets.offset();
                    let (size, custom) = offsets.varint_flag("an entry size")?;
                    if size > (data.remaining() - pos) as u64 {
                        return Err(Cursor::err_at(
                            at,
                            format!(
                                "an attribute/type entry of {size} bytes runs past the end of the AttrType section"
                            ),
                        ));
                    }
                    out.push(Entry {
                        dialect: d,
                        start: pos,
                        len: size as usize,
                        custom,
                    });
                    pos += size as usize;
                }
            }
            Ok(())
        };
        let mut attrs = Vec::with_capacity(n_attrs);
        read_group(&mut offsets, &mut attrs, n_attrs)?;
        let mut types = Vec::with_capacity(n_types);
        read_group(&mut offsets, &mut types, n_types)?;
        if !offsets.at_end() {
            return Err(offsets.err("unexpected bytes at the end of the AttrTypeOffset section"));
        }
        Ok(Tables {
            strings,
            dialects,
            data,
            attr_cache: vec![None; attrs.len()],
            type_cache: vec![None; types.len()],
            attrs,
            types,
            depth: 0,
        })
    }

    fn entry_cursor(&self, e: Entry) -> Cursor<'a> {
        let mut c = self.data;
        // In range: checked when the offsets were read.
        let _ = c.bytes(e.start as u64, "");
        c.sub(e.len as u64, "").unwrap_or(c)
    }

    /// Reads an attribute index and decodes the attribute.
    pub fn read_attr(&mut self, c: &mut Cursor<'_>, what: &str) -> BResult<Rc<A>> {
        let at = c.offset();
        let i = c.varint(what)?;
        self.attr(i, at)
    }

    /// Reads a type index and decodes the type.
    pub fn read_type(&mut self, c: &mut Cursor<'_>, what: &str) -> BResult<Rc<T>> {
        let at = c.offset();
        let i = c.varint(what)?;
        self.ty(i, at)
    }

    /// Attribute `index` (`at` is where the index was read, for errors).
    pub fn attr(&mut self, index: u64, at: usize) -> BResult<Rc<A>> {
        self.decoded(
            index,
            at,
            "an attribute",
            |t| (&t.attrs, &mut t.attr_cache),
            Self::decode_attr,
        )
    }

    /// Type `index`.
    pub fn ty(&mut self, index: u64, at: usize) -> BResult<Rc<T>> {
        self.decoded(
            index,
            at,
            "a type",
            |t| (&t.types, &mut t.type_cache),
            Self::decode_type,
        )
    }

    /// Entry `index` of a section (its entries and its cache), decoded on first use.
    fn decoded<V>(
        &mut self,
        index: u64,
        at: usize,
        what: &str,
        section: fn(&mut Self) -> (&[Entry], &mut Cache<V>),
        decode: fn(&mut Self, Entry, &mut Cursor<'a>) -> BResult<V>,
    ) -> BResult<Rc<V>> {
        let (entries, cache) = section(self);
        let Some(&e) = entries.get(index as usize) else {
            return Err(Cursor::err_at(
                at,
                format!(
                    "expected {what} index below {}, found {index}",
                    entries.len()
                ),
            ));
        };
        if let Some(v) = &cache[index as usize] {
            return Ok(v.clone());
        }
        let mut c = self.entry_cursor(e);
        self.enter(c.offset())?;
        let r = decode(self, e, &mut c);
        self.depth -= 1;
        let v = Rc::new(r?);
        section(self).1[index as usize] = Some(v.clone());
        Ok(v)
    }

    fn enter(&mut self, at: usize) -> BResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(Cursor::err_at(
                at,
                format!("attributes and types nest deeper than {MAX_DEPTH} (a cycle?)"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn decode_attr(&mut self, e: Entry, c: &mut Cursor<'a>) -> BResult<A> {
        let dialect = self.dialects.names[e.dialect];
        if !e.custom {
            return Ok(A::Text(c.cstr("an attribute's text")?.to_string()));
        }
        let a = match dialect {
            "builtin" => builtin::attr(self, c)?,
            "vhlo" => vhlo::attr(self, c)?,
            "sdy" => sdy::attr(self, c)?,
            other => {
                return Err(c.err(format!(
                    "an attribute of dialect '{other}' is in its own binary encoding, which xlac does not read"
                )));
            }
        };
        if !c.at_end() {
            return Err(c.err(format!("unexpected bytes after a {dialect} attribute")));
        }
        Ok(a)
    }

    fn decode_type(&mut self, e: Entry, c: &mut Cursor<'a>) -> BResult<T> {
        let dialect = self.dialects.names[e.dialect];
        if !e.custom {
            return Ok(T::Text(c.cstr("a type's text")?.to_string()));
        }
        let t = match dialect {
            "builtin" => builtin::ty(self, c)?,
            "vhlo" => vhlo::ty(self, c)?,
            // StableHLO's own encoding has one type, the token (code 0). jax's mixed
            // serialization leaves it unconverted where a function's signature carries
            // one (an ordered `io_callback` inside `shard_map`).
            "stablehlo" => {
                let at = c.offset();
                match c.varint("a StableHLO type code")? {
                    0 => T::Token,
                    code => {
                        return Err(Cursor::err_at(
                            at,
                            format!("unknown StableHLO type code {code}"),
                        ));
                    }
                }
            }
            other => {
                return Err(c.err(format!(
                    "a type of dialect '{other}' is in its own binary encoding, which xlac does not read"
                )));
            }
        };
        if !c.at_end() {
            return Err(c.err(format!("unexpected bytes after a {dialect} type")));
        }
        Ok(t)
    }

    /// Reads a list of attribute indexes.
    pub fn read_attrs(&mut self, c: &mut Cursor<'_>, what: &str) -> BResult<Vec<Rc<A>>> {
        let n = c.count(what)?;
        (0..n).map(|_| self.read_attr(c, what)).collect()
    }

    /// Reads a dictionary: a count, then (string attribute index, attribute index) pairs
    /// (the builtin `DictionaryAttr` and VHLO's `DictionaryV1Attr` share this encoding).
    pub fn read_dictionary(&mut self, c: &mut Cursor<'_>) -> BResult<Vec<(String, Rc<A>)>> {
        let n = c.count("the number of dictionary entries")?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.offset();
            let name = self.read_attr(c, "a dictionary key")?;
            let A::Str(name) = &*name else {
                return Err(Cursor::err_at(
                    at,
                    "expected a dictionary key to be a string",
                ));
            };
            let value = self.read_attr(c, "a dictionary value")?;
            entries.push((name.clone(), value));
        }
        Ok(entries)
    }

    /// Reads a list of type indexes.
    pub fn read_types(&mut self, c: &mut Cursor<'_>, what: &str) -> BResult<Vec<Rc<T>>> {
        let n = c.count(what)?;
        (0..n).map(|_| self.read_type(c, what)).collect()
    }

    /// Reads a string index.
    pub fn read_string(&self, c: &mut Cursor<'_>, what: &str) -> BResult<String> {
        Ok(self.strings.read_ref(c, what)?.to_string())
    }

    /// Reads a location attribute.
    pub fn read_loc(&mut self, c: &mut Cursor<'_>, what: &str) -> BResult<Arc<Location>> {
        let at = c.offset();
        let a = self.read_attr(c, what)?;
        as_loc(&a).ok_or_else(|| Cursor::err_at(at, format!("expected {what} to be a location")))
    }
}

/// The location inside a location attribute.
pub fn as_loc(a: &A) -> Option<Arc<Location>> {
    match a {
        A::Loc(l) => Some(l.clone()),
        _ => None,
    }
}
