//! The IR section: operations, their regions and blocks, value numbering, properties
//! and use-list orders (read, then ignored). Values are numbered in definition order
//! within the nearest isolated-from-above op (block arguments, then results, in
//! pre-order); a region reserves its values' numbers when it starts and frees them when
//! it ends. Regions of isolated ops are wrapped in a nested IR section (lazy loading).
//! The result is a raw op tree with VHLO names and decoded attributes; `legalize.rs`
//! turns it into StableHLO.
//! MLIR: `mlir/lib/Bytecode/Reader/BytecodeReader.cpp` (`parseIRSection`, `parseRegions`,
//! `parseOpWithoutRegions`, `ValueScope`).

use std::rc::Rc;
use std::sync::Arc;

use super::attr_table::{A, Location, T, Tables};
use super::encoding::{BResult, Cursor, read_section, section};
use super::ops;

/// Regions nest at most this deep.
const MAX_DEPTH: usize = 64;

/// What an op's properties hold.
#[derive(Clone, Debug)]
pub enum Props {
    /// None.
    None,
    /// VHLO's inherent attributes, by name.
    Named(Vec<(&'static str, Rc<A>)>),
    /// An unregistered op's properties (an attribute; no StableHLO op is unregistered).
    Attr(#[allow(dead_code)] Rc<A>),
}

/// An operation as stored.
#[derive(Clone, Debug)]
pub struct RawOp {
    /// `vhlo.add_v1`, `builtin.module`, `sdy.mesh`.
    pub name: String,
    /// Where it came from.
    pub loc: Arc<Location>,
    /// Its attribute dictionary (discardable attributes).
    pub attrs: Vec<(String, Rc<A>)>,
    /// Its properties (inherent attributes).
    pub props: Props,
    /// Result names and types.
    pub results: Vec<(String, Rc<T>)>,
    /// Operand names.
    pub operands: Vec<String>,
    /// Regions.
    pub regions: Vec<RawRegion>,
    /// File offset of the op's encoding (for errors).
    pub offset: usize,
}

/// A region.
#[derive(Clone, Debug, Default)]
pub struct RawRegion {
    /// Its blocks.
    pub blocks: Vec<RawBlock>,
}

/// A block.
#[derive(Clone, Debug, Default)]
pub struct RawBlock {
    /// Argument names and types.
    pub args: Vec<(String, Rc<T>)>,
    /// Each argument's location (unknown when the file gives none).
    pub arg_locs: Vec<Arc<Location>>,
    /// Operations.
    pub ops: Vec<RawOp>,
}

/// The values of one isolated-from-above op.
struct Scope {
    prefix: String,
    defined: Vec<bool>,
    next: Vec<usize>,
    /// Uses of values not defined yet: (value number, file offset).
    forward: Vec<(usize, usize)>,
}

impl Scope {
    fn new(prefix: String) -> Scope {
        Scope {
            prefix,
            defined: Vec::new(),
            next: vec![0],
            forward: Vec::new(),
        }
    }

    fn name(&self, id: usize) -> String {
        format!("{}{id}", self.prefix)
    }

    fn define(&mut self, n: usize, at: usize) -> BResult<Vec<String>> {
        let Some(next) = self.next.last_mut() else {
            return Err(Cursor::err_at(at, "a value defined outside any region"));
        };
        let start = *next;
        if start + n > self.defined.len() {
            return Err(Cursor::err_at(
                at,
                format!(
                    "value numbers {start}..{} are outside the {} the region announced",
                    start + n,
                    self.defined.len()
                ),
            ));
        }
        *next += n;
        for d in &mut self.defined[start..start + n] {
            *d = true;
        }
        Ok((start..start + n).map(|i| self.name(i)).collect())
    }

    /// Checks that every use of a value numbered `from` or above was defined.
    fn check_forward(&mut self, from: usize) -> BResult<()> {
        let mut keep = Vec::new();
        for &(id, at) in &self.forward {
            if id >= from {
                if !self.defined.get(id).copied().unwrap_or(false) {
                    return Err(Cursor::err_at(
                        at,
                        format!("value {id} is used but never defined in its region"),
                    ));
                }
            } else {
                keep.push((id, at));
            }
        }
        self.forward = keep;
        Ok(())
    }
}

/// Reads operations from the IR section.
pub struct IrReader<'a, 't> {
    /// The tables.
    pub tables: &'t mut Tables<'a>,
    props: Vec<Cursor<'a>>,
    scopes: Vec<Scope>,
    scope_count: usize,
}

impl<'a, 't> IrReader<'a, 't> {
    /// A reader with the properties section `props`.
    pub fn new(tables: &'t mut Tables<'a>, mut props: Cursor<'a>) -> BResult<IrReader<'a, 't>> {
        let mut entries = Vec::new();
        if !props.at_end() {
            let n = props.count("the number of properties")?;
            for _ in 0..n {
                let len = props.varint("a properties length")?;
                entries.push(props.sub(len, "properties")?);
            }
            if !props.at_end() {
                return Err(props.err("unexpected bytes after the properties"));
            }
        }
        Ok(IrReader {
            tables,
            props: entries,
            scopes: Vec::new(),
            scope_count: 0,
        })
    }

    /// Reads the IR section: one block of top-level ops (a `builtin.module`).
    pub fn read_top(&mut self, mut c: Cursor<'a>) -> BResult<Vec<RawOp>> {
        let mut scope = Scope::new(String::new());
        scope.next = vec![0];
        self.scopes.push(scope);
        let (n_ops, has_args) = c.varint_flag("the top-level block header")?;
        if has_args {
            return Err(c.err("the top-level block has arguments"));
        }
        if n_ops > c.remaining() as u64 {
            return Err(c.err(format!("{n_ops} top-level ops in {} bytes", c.remaining())));
        }
        let mut ops = Vec::new();
        for _ in 0..n_ops {
            ops.push(self.read_op(&mut c, 0)?);
        }
        if !c.at_end() {
            return Err(c.err("unexpected bytes after the top-level operations"));
        }
        self.scopes.pop();
        Ok(ops)
    }

    fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a value scope")
    }

    fn read_op(&mut self, c: &mut Cursor<'a>, depth: usize) -> BResult<RawOp> {
        let offset = c.offset();
        let idx = c.varint("an op name index")?;
        let Some(op_name) = self.tables.dialects.ops.get(idx as usize).cloned() else {
            return Err(Cursor::err_at(
                offset,
                format!(
                    "expected an op name index below {}, found {idx}",
                    self.tables.dialects.ops.len()
                ),
            ));
        };
        let mask = c.byte("an op's encoding mask")?;
        if mask & 0x80 != 0 {
            return Err(Cursor::err_at(
                c.offset() - 1,
                format!("bad op encoding mask 0x{mask:02X}"),
            ));
        }
        let loc = self.tables.read_loc(c, "an op's location")?;
        let mut op = RawOp {
            name: op_name.full.clone(),
            loc,
            attrs: Vec::new(),
            props: Props::None,
            results: Vec::new(),
            operands: Vec::new(),
            regions: Vec::new(),
            offset,
        };
        if mask & 0x01 != 0 {
            let at = c.offset();
            let d = self.tables.read_attr(c, "an op's attribute dictionary")?;
            match &*d {
                A::Dict(entries) => op.attrs = entries.clone(),
                _ => return Err(Cursor::err_at(at, "expected an attribute dictionary")),
            }
        }
        if mask & 0x40 != 0 {
            op.props = self.read_props(c, &op_name.full, op_name.name, op_name.registered)?;
        }
        if mask & 0x02 != 0 {
            let n = c.count("the number of results")?;
            let types = (0..n)
                .map(|_| self.tables.read_type(c, "a result type"))
                .collect::<BResult<Vec<_>>>()?;
            op.results = types.into_iter().map(|t| (String::new(), t)).collect();
        }
        if mask & 0x04 != 0 {
            let n = c.count("the number of operands")?;
            for _ in 0..n {
                let at = c.offset();
                let id = c.varint("an operand value")?;
                let scope = self.scope();
                if id >= scope.defined.len() as u64 {
                    return Err(Cursor::err_at(
                        at,
                        format!(
                            "expected a value number below {}, found {id}",
                            scope.defined.len()
                        ),
                    ));
                }
                let id = id as usize;
                if !scope.defined[id] {
                    scope.forward.push((id, at));
                }
                op.operands.push(scope.name(id));
            }
        }
        if mask & 0x08 != 0 {
            let n = c.count("the number of successors")?;
            for _ in 0..n {
                c.varint("a successor block")?;
            }
            return Err(Cursor::err_at(
                offset,
                format!(
                    "'{}' has successor blocks, which StableHLO does not use",
                    op.name
                ),
            ));
        }
        if mask & 0x20 != 0 {
            skip_use_lists(c, op.results.len())?;
        }
        let mut regions = (0, false);
        if mask & 0x10 != 0 {
            let (n, isolated) = c.varint_flag("the number of regions")?;
            if n > c.remaining() as u64 {
                return Err(c.err(format!("{n} regions in {} bytes", c.remaining())));
            }
            regions = (n as usize, isolated);
        }
        if !op.results.is_empty() {
            let names = self.scope().define(op.results.len(), offset)?;
            for (r, n) in op.results.iter_mut().zip(names) {
                r.0 = n;
            }
        }
        if regions.0 > 0 {
            if depth >= MAX_DEPTH {
                return Err(Cursor::err_at(
                    offset,
                    format!("regions nest deeper than {MAX_DEPTH}"),
                ));
            }
            op.regions = if regions.1 {
                let at = c.offset();
                let (id, mut sub) = read_section(c)?;
                if id != section::IR {
                    return Err(Cursor::err_at(
                        at,
                        format!(
                            "expected an IR section holding the regions, found a {} section",
                            section::NAMES[id]
                        ),
                    ));
                }
                self.scope_count += 1;
                let prefix = if self.scope_count == 1 {
                    String::new()
                } else {
                    format!("s{}_", self.scope_count)
                };
                self.scopes.push(Scope::new(prefix));
                let r = self.read_regions(&mut sub, regions.0, depth)?;
                let at_end = sub.offset();
                let mut scope = self.scopes.pop().expect("scope");
                scope.check_forward(0)?;
                if !sub.at_end() {
                    return Err(Cursor::err_at(
                        at_end,
                        "unexpected bytes after an op's regions",
                    ));
                }
                r
            } else {
                self.read_regions(c, regions.0, depth)?
            };
        }
        Ok(op)
    }

    fn read_regions(
        &mut self,
        c: &mut Cursor<'a>,
        n: usize,
        depth: usize,
    ) -> BResult<Vec<RawRegion>> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.read_region(c, depth)?);
        }
        Ok(out)
    }

    fn read_region(&mut self, c: &mut Cursor<'a>, depth: usize) -> BResult<RawRegion> {
        let n_blocks = c.count("the number of blocks")?;
        if n_blocks == 0 {
            return Ok(RawRegion::default());
        }
        let n_values = c.count("the number of values of a region")?;
        let base = {
            let s = self.scope();
            let base = s.defined.len();
            s.defined.resize(base + n_values, false);
            s.next.push(base);
            base
        };
        let mut region = RawRegion::default();
        for _ in 0..n_blocks {
            let at = c.offset();
            let (n_ops, has_args) = c.varint_flag("a block header")?;
            if n_ops > c.remaining() as u64 {
                return Err(Cursor::err_at(
                    at,
                    format!("{n_ops} ops in {} bytes", c.remaining()),
                ));
            }
            let mut block = RawBlock::default();
            if has_args {
                let n = c.count("the number of block arguments")?;
                let mut types = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = c.offset();
                    let (ty, has_loc) = c.varint_flag("a block argument type")?;
                    types.push(self.tables.ty(ty, at)?);
                    block.arg_locs.push(if has_loc {
                        self.tables.read_loc(c, "a block argument location")?
                    } else {
                        Arc::new(Location::Unknown)
                    });
                }
                let names = self.scope().define(n, at)?;
                block.args = names.into_iter().zip(types).collect();
                let has_use_lists = c.byte("a block's use-list flag")?;
                if has_use_lists != 0 {
                    skip_use_lists(c, n)?;
                }
            }
            for _ in 0..n_ops {
                block.ops.push(self.read_op(c, depth + 1)?);
            }
            region.blocks.push(block);
        }
        let s = self.scope();
        s.check_forward(base)?;
        s.defined.truncate(base);
        s.next.pop();
        Ok(region)
    }

    fn read_props(
        &mut self,
        c: &mut Cursor<'a>,
        full: &str,
        name: &str,
        registered: bool,
    ) -> BResult<Props> {
        if !registered {
            return Ok(Props::Attr(self.tables.read_attr(c, "an op's properties")?));
        }
        let at = c.offset();
        let idx = c.varint("a properties index")?;
        let Some(&blob) = self.props.get(idx as usize) else {
            return Err(Cursor::err_at(
                at,
                format!(
                    "expected a properties index below {}, found {idx}",
                    self.props.len()
                ),
            ));
        };
        let mut p = blob;
        let mut out = Vec::new();
        if full == "builtin.module" {
            for key in ["sym_name", "sym_visibility"] {
                let at = p.offset();
                let (i, present) = p.varint_flag("an optional property")?;
                if present {
                    out.push((key, self.tables.attr(i, at)?));
                }
            }
        } else if full.starts_with("vhlo.") {
            let Some(names) = ops::attributes(name) else {
                return Err(Cursor::err_at(
                    at,
                    format!("unknown VHLO op '{full}' (an op version newer than StableHLO 1.20?)"),
                ));
            };
            for key in names {
                out.push((*key, self.tables.read_attr(&mut p, "a property")?));
            }
        } else if let Some(names) = sdy_properties(full) {
            // Shardy ops store their inherent attributes as properties too, one
            // attribute index each, sorted by name.
            for key in names {
                out.push((*key, self.tables.read_attr(&mut p, "a property")?));
            }
        } else {
            return Err(Cursor::err_at(
                at,
                format!("the properties of '{full}' are not understood"),
            ));
        }
        if !p.at_end() {
            return Err(p.err(format!("unexpected bytes after the properties of '{full}'")));
        }
        Ok(Props::Named(out))
    }
}

/// The properties of the Shardy ops xlac reads, in their order (sorted by name).
fn sdy_properties(full: &str) -> Option<&'static [&'static str]> {
    Some(match full {
        "sdy.mesh" => &["mesh", "sym_name"],
        "sdy.sharding_constraint" => &["sharding"],
        "sdy.manual_computation" => &["in_shardings", "manual_axes", "out_shardings"],
        "sdy.return" => &[],
        _ => return None,
    })
}

/// Use-list orders: parsed and ignored (they only say in which order uses are listed).
fn skip_use_lists(c: &mut Cursor<'_>, n_values: usize) -> BResult<()> {
    let count = if n_values > 1 {
        c.count("the number of use-list orders")?
    } else {
        1
    };
    for _ in 0..count {
        if n_values > 1 {
            c.varint("a use-list value index")?;
        }
        let (n, _) = c.varint_flag("a use-list length")?;
        if n > c.remaining() as u64 {
            return Err(c.err(format!(
                "a use list of {n} entries in {} bytes",
                c.remaining()
            )));
        }
        for _ in 0..n {
            c.varint("a use-list index")?;
        }
    }
    Ok(())
}
