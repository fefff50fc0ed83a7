//! The Shardy (`sdy`) dialect's attributes in their bytecode encoding, which `jax.jit`
//! writes for a plugin (mixed serialization keeps `sdy` in its own binary form): meshes,
//! tensor shardings, per-value shardings and manual axes. Each decodes into [`Sdy`] and
//! prints as MLIR prints it (`#sdy.sharding<@mesh, [{"x"}, {}]>`), so the reader hands
//! the conversion the same text the text parser keeps for these attributes.
//! Shardy: `shardy/dialect/sdy/ir/bytecode.td` (the kind codes, 0-17) and `attrs.td`
//! (the assembly formats).

use std::fmt::Write as _;
use std::rc::Rc;

use super::attr_table::{A, Tables};
use super::encoding::{BResult, Cursor};

/// A decoded Shardy attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Sdy {
    /// `#sdy<manual_axes{"x", "y"}>` (code 0).
    ManualAxes(Vec<String>),
    /// `"x"=2` (code 1).
    MeshAxis(String, i64),
    /// `#sdy.mesh<["x"=2, "y"=4], device_ids=[...]>` (code 2).
    Mesh {
        /// Axis names and sizes.
        axes: Vec<(String, i64)>,
        /// Explicit device order (empty: iota).
        device_ids: Vec<i64>,
    },
    /// `(pre_size)size` of a sub-axis (code 3).
    SubAxis(i64, i64),
    /// `"x"` or `"x":(1)2` (code 4).
    AxisRef(String, Option<(i64, i64)>),
    /// `{"x", ?}p1` (code 5).
    Dim {
        /// The axes, major to minor.
        axes: Vec<Rc<Sdy>>,
        /// Closed (`{"x"}`) or open (`{"x", ?}`).
        closed: bool,
        /// `p<N>`.
        priority: Option<u64>,
    },
    /// `#sdy.sharding<@mesh, [...], replicated={...}, unreduced={...}>` (codes 6, 15, 17).
    Tensor {
        /// `@mesh` or an inline mesh.
        mesh: MeshOrRef,
        /// One per dimension.
        dims: Vec<Rc<Sdy>>,
        /// `replicated={...}`.
        replicated: Vec<Rc<Sdy>>,
        /// `unreduced={...}`.
        unreduced: Vec<Rc<Sdy>>,
    },
    /// `#sdy.sharding_per_value<[<...>, ...]>` (codes 7, 16).
    PerValue(Vec<Rc<Sdy>>),
    /// `{"x", "y"}` as a list of axis refs (code 11).
    AxisRefList(Vec<Rc<Sdy>>),
    /// A list of axis-ref lists (code 12).
    ListOfAxisRefLists(Vec<Rc<Sdy>>),
}

/// A sharding's mesh: a symbol or an inline mesh.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshOrRef {
    /// `@name`.
    Ref(String),
    /// An inline `mesh<...>` (an [`Sdy::Mesh`]).
    Inline(Rc<Sdy>),
}

/// Decodes a Shardy attribute (after its dialect was chosen).
pub fn attr(t: &mut Tables<'_>, c: &mut Cursor<'_>) -> BResult<A> {
    let at = c.offset();
    let code = c.varint("a Shardy attribute code")?;
    let s = match code {
        0 => {
            let names = t.read_attrs(c, "the manual axes")?;
            Sdy::ManualAxes(
                names
                    .iter()
                    .map(|a| match &**a {
                        A::Str(s) => Ok(s.clone()),
                        _ => Err(c.err("expected a manual axis name (a string)")),
                    })
                    .collect::<BResult<_>>()?,
            )
        }
        1 => {
            let name = t.read_string(c, "a mesh axis name")?;
            Sdy::MeshAxis(name, c.svarint("a mesh axis size")?)
        }
        2 => {
            let axes = t
                .read_attrs(c, "the mesh axes")?
                .iter()
                .map(|a| match sdy_of(a) {
                    Some(Sdy::MeshAxis(n, s)) => Ok((n.clone(), *s)),
                    _ => Err(c.err("expected a mesh axis")),
                })
                .collect::<BResult<_>>()?;
            Sdy::Mesh {
                axes,
                device_ids: c.svarints("the mesh device ids")?,
            }
        }
        3 => {
            let pre = c.svarint("a sub-axis pre-size")?;
            Sdy::SubAxis(pre, c.svarint("a sub-axis size")?)
        }
        4 => {
            let name = t.read_string(c, "an axis name")?;
            let at = c.offset();
            let (i, present) = c.varint_flag("an optional sub-axis")?;
            let sub = if present {
                let sub = t.attr(i, at)?;
                match sdy_of(&sub) {
                    Some(Sdy::SubAxis(p, s)) => Some((*p, *s)),
                    _ => return Err(Cursor::err_at(at, "expected a sub-axis info")),
                }
            } else {
                None
            };
            Sdy::AxisRef(name, sub)
        }
        5 => {
            let axes = sdy_list(t, c, "the axes of a dimension sharding")?;
            // A bool is one byte.
            let closed = c.byte("is_closed")? != 0;
            let (p, present) = c.varint_flag("an optional priority")?;
            Sdy::Dim {
                axes,
                closed,
                priority: present.then_some(p),
            }
        }
        6 | 15 | 17 => {
            let m_at = c.offset();
            let mesh = match &*t.read_attr(c, "a sharding's mesh")? {
                A::Symbol(s) => MeshOrRef::Ref(s.clone()),
                a => match sdy_of(a) {
                    Some(m @ Sdy::Mesh { .. }) => MeshOrRef::Inline(Rc::new(m.clone())),
                    _ => return Err(Cursor::err_at(m_at, "expected a mesh or a mesh symbol")),
                },
            };
            let dims = sdy_list(t, c, "the dimension shardings")?;
            let replicated = sdy_list(t, c, "the replicated axes")?;
            let unreduced = if code == 6 {
                Vec::new()
            } else {
                sdy_list(t, c, "the unreduced axes")?
            };
            if code == 17 {
                // The reduction of unreduced axes: the text form has no spelling for it and
                // xlac sums unreduced values (jax's only kind).
                c.svarint("a reduction op")?;
            }
            Sdy::Tensor {
                mesh,
                dims,
                replicated,
                unreduced,
            }
        }
        7 | 16 => Sdy::PerValue(sdy_list(t, c, "the per-value shardings")?),
        11 => Sdy::AxisRefList(sdy_list(t, c, "an axis-ref list")?),
        12 => Sdy::ListOfAxisRefLists(sdy_list(t, c, "a list of axis-ref lists")?),
        8 | 9 | 10 | 13 | 14 => {
            // Sharding rules and collective parameters: xlac does not read them (its
            // partitioner has its own rules); kept opaque, like any unknown attribute.
            c.bytes(c.remaining() as u64, "a Shardy attribute")?;
            return Ok(A::Text(format!("#sdy<kind {code}, not read by xlac>")));
        }
        other => {
            return Err(Cursor::err_at(
                at,
                format!("unknown Shardy attribute code {other}"),
            ));
        }
    };
    Ok(A::Sdy(Rc::new(s)))
}

fn sdy_of(a: &A) -> Option<&Sdy> {
    match a {
        A::Sdy(s) => Some(s),
        _ => None,
    }
}

/// A list of attribute indexes that must all be Shardy attributes.
fn sdy_list(t: &mut Tables<'_>, c: &mut Cursor<'_>, what: &str) -> BResult<Vec<Rc<Sdy>>> {
    let at = c.offset();
    t.read_attrs(c, what)?
        .into_iter()
        .map(|a| match &*a {
            A::Sdy(s) => Ok(s.clone()),
            _ => Err(Cursor::err_at(
                at,
                format!("expected {what} to be Shardy attributes"),
            )),
        })
        .collect()
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\{b:02X}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn join(items: &[Rc<Sdy>]) -> String {
    items
        .iter()
        .map(|s| s.body())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Sdy {
    /// The attribute as MLIR prints it on its own (`#sdy.sharding<...>`).
    pub fn text(&self) -> String {
        match self {
            Sdy::ManualAxes(_) => format!("#sdy<manual_axes{}>", self.body()),
            Sdy::Mesh { .. } => format!("#sdy.mesh{}", self.body()),
            Sdy::Tensor { .. } => format!("#sdy.sharding{}", self.body()),
            Sdy::PerValue(_) => format!("#sdy.sharding_per_value<{}>", self.body()),
            Sdy::MeshAxis(..) => format!("#sdy.mesh_axis<{}>", self.body()),
            Sdy::SubAxis(..) => format!("#sdy.sub_axis_info<{}>", self.body()),
            Sdy::AxisRef(..) => format!("#sdy.axis_ref<{}>", self.body()),
            Sdy::Dim { .. } => format!("#sdy.dimension_sharding<{}>", self.body()),
            Sdy::AxisRefList(_) => format!("#sdy<axis_ref_list{}>", self.body()),
            Sdy::ListOfAxisRefLists(_) => {
                format!("#sdy<list_of_axis_ref_lists{}>", self.body())
            }
        }
    }

    /// The attribute as it is printed inside another one or in an op's custom syntax
    /// (`<@mesh, [{"x"}]>`, `[<...>, <...>]`, `{"x", "y"}`).
    pub fn body(&self) -> String {
        match self {
            Sdy::ManualAxes(names) => format!(
                "{{{}}}",
                names
                    .iter()
                    .map(|n| quote(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Sdy::MeshAxis(n, s) => format!("{}={s}", quote(n)),
            Sdy::Mesh { axes, device_ids } => {
                let axes: Vec<String> = axes
                    .iter()
                    .map(|(n, s)| format!("{}={s}", quote(n)))
                    .collect();
                if device_ids.is_empty() {
                    format!("<[{}]>", axes.join(", "))
                } else {
                    let ids: Vec<String> = device_ids.iter().map(|d| d.to_string()).collect();
                    format!("<[{}], device_ids=[{}]>", axes.join(", "), ids.join(", "))
                }
            }
            Sdy::SubAxis(pre, size) => format!("({pre}){size}"),
            Sdy::AxisRef(n, None) => quote(n),
            Sdy::AxisRef(n, Some((pre, size))) => format!("{}:({pre}){size}", quote(n)),
            Sdy::Dim {
                axes,
                closed,
                priority,
            } => {
                let mut s = String::from("{");
                s.push_str(&join(axes));
                if !closed {
                    s.push_str(if axes.is_empty() { "?" } else { ", ?" });
                }
                s.push('}');
                if let Some(p) = priority {
                    let _ = write!(s, "p{p}");
                }
                s
            }
            Sdy::Tensor {
                mesh,
                dims,
                replicated,
                unreduced,
            } => {
                let mesh = match mesh {
                    MeshOrRef::Ref(n) => format!("@{n}"),
                    MeshOrRef::Inline(m) => format!("mesh{}", m.body()),
                };
                let mut s = format!("<{mesh}, [{}]", join(dims));
                if !replicated.is_empty() {
                    let _ = write!(s, ", replicated={{{}}}", join(replicated));
                }
                if !unreduced.is_empty() {
                    let _ = write!(s, ", unreduced={{{}}}", join(unreduced));
                }
                s.push('>');
                s
            }
            Sdy::PerValue(v) => format!("[{}]", join(v)),
            Sdy::AxisRefList(v) => format!("{{{}}}", join(v)),
            Sdy::ListOfAxisRefLists(v) => format!("[{}]", join(v)),
        }
    }
}
