//! Shardy's forms (`#sdy.mesh`, `#sdy.sharding`, the frontend attributes JAX writes into
//! HLO) and their conversion to tile assignments.
//!
//! Shardy: `docs/sharding_representation.md`.

use super::cursor::{Cur, MAX_SHARDING_TEXT, checked_product};
use super::{
    HloSharding, SResult, ShardingError, SubgroupKind, TileAssignment, err, iota_transposed,
};

/// `sdy.mesh @name = <["x"=4, "y"=2]>` / `#sdy.mesh<[...]>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdyMesh {
    /// The mesh's symbol name, without `@`.
    pub name: String,
    /// Axes, major to minor, with their sizes.
    pub axes: Vec<(String, i64)>,
    /// `device_ids=[...]`; `None` for iota order.
    pub device_ids: Option<Vec<i64>>,
}

/// One dimension of a `#sdy.sharding`: the axes it is split over, major first.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SdyDim {
    /// Axis names.
    pub axes: Vec<String>,
    /// `?`: open (propagation may shard it further).
    pub open: bool,
}

/// `#sdy.sharding<@mesh, [{"x"}, {}]>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdySharding {
    /// The mesh name, without `@`.
    pub mesh: String,
    /// One entry per array dimension.
    pub dims: Vec<SdyDim>,
    /// `replicated={...}`: axes explicitly replicated.
    pub replicated: Vec<String>,
    /// `unreduced={...}`: axes along which the devices hold partial values (the array is
    /// their sum).
    pub unreduced: Vec<String>,
}

impl SdyMesh {
    /// Parses `<["x"=4, "y"=2]>`, `#sdy.mesh<[...]>`, or `<[...], device_ids=[...]>`;
    /// `name` is the symbol it is bound to.
    pub fn parse(name: &str, text: &str) -> SResult<SdyMesh> {
        if text.len() > MAX_SHARDING_TEXT {
            return err("mesh text too long");
        }
        let mut c = Cur::new(text);
        c.eat("#sdy.mesh");
        c.expect("<")?;
        c.expect("[")?;
        let mut axes = Vec::new();
        if !c.eat("]") {
            loop {
                let n = c.quoted()?.to_string();
                c.expect("=")?;
                let size = c.int()?;
                if size <= 0 {
                    return err(format!("mesh axis `{n}` has size {size}"));
                }
                axes.push((n, size));
                if c.eat("]") {
                    break;
                }
                c.expect(",")?;
            }
        }
        let mut device_ids = None;
        if c.eat(",") {
            c.expect("device_ids=")?;
            device_ids = Some(c.int_list("[", "]")?);
        }
        c.expect(">")?;
        let mesh = SdyMesh {
            name: name.to_string(),
            axes,
            device_ids,
        };
        let count = checked_product(&mesh.axes.iter().map(|a| a.1).collect::<Vec<_>>())?;
        if let Some(ids) = &mesh.device_ids
            && ids.len() as i64 != count
        {
            return err(format!(
                "mesh @{name}: {} device ids for {count} devices",
                ids.len()
            ));
        }
        Ok(mesh)
    }

    /// The number of devices.
    pub fn size(&self) -> i64 {
        self.axes.iter().map(|a| a.1).product()
    }

    fn axis(&self, name: &str) -> SResult<usize> {
        self.axes
            .iter()
            .position(|a| a.0 == name)
            .ok_or_else(|| ShardingError(format!("mesh has no axis \"{name}\"")))
    }
}

/// Reads `[{"x"}, {"y", "z"}, {?}]` with `q` as the quote character.
pub(super) fn parse_sdy_dims(c: &mut Cur<'_>, q: char) -> SResult<Vec<SdyDim>> {
    let _ = q;
    c.expect("[")?;
    let mut dims = Vec::new();
    if c.eat("]") {
        return Ok(dims);
    }
    loop {
        c.expect("{")?;
        let mut d = SdyDim::default();
        loop {
            if c.eat("}") {
                break;
            }
            if c.eat("?") {
                d.open = true;
            } else {
                let name = c.quoted()?.to_string();
                if c.peek() == Some(b':') {
                    return err(format!("sub-axis \"{name}\":(...) is not supported"));
                }
                d.axes.push(name);
            }
            if c.eat("}") {
                break;
            }
            c.expect(",")?;
        }
        // Priorities `p0` are read and dropped.
        if c.peek() == Some(b'p') {
            c.pos += 1;
            c.int()?;
        }
        dims.push(d);
        if dims.len() > 64 {
            return err("too many sharded dimensions");
        }
        if c.eat("]") {
            return Ok(dims);
        }
        c.expect(",")?;
    }
}

impl SdySharding {
    /// Parses `#sdy.sharding<@mesh, [{"x"}, {}]>` or the bare `<@mesh, [...]>` of
    /// `sdy.sharding_constraint` / `in_shardings=[...]`.
    pub fn parse(text: &str) -> SResult<SdySharding> {
        if text.len() > MAX_SHARDING_TEXT {
            return err("sharding text too long");
        }
        let mut c = Cur::new(text);
        let s = parse_sdy_sharding(&mut c)?;
        if !c.at_end() {
            return err(format!("unexpected `{}` after the sharding", c.rest()));
        }
        Ok(s)
    }

    /// Parses `#sdy.sharding_per_value<[<@mesh, ...>, ...]>`.
    pub fn parse_per_value(text: &str) -> SResult<Vec<SdySharding>> {
        if text.len() > MAX_SHARDING_TEXT {
            return err("sharding text too long");
        }
        let mut c = Cur::new(text);
        c.eat("#sdy.sharding_per_value");
        c.expect("<")?;
        let v = parse_sdy_list(&mut c)?;
        c.expect(">")?;
        if !c.at_end() {
            return err(format!("unexpected `{}` after the shardings", c.rest()));
        }
        Ok(v)
    }

    /// Parses a bracketed list `[<@mesh, ...>, ...]` (`in_shardings=` / `out_shardings=`).
    pub fn parse_list(text: &str) -> SResult<Vec<SdySharding>> {
        if text.len() > MAX_SHARDING_TEXT {
            return err("sharding text too long");
        }
        let mut c = Cur::new(text);
        let v = parse_sdy_list(&mut c)?;
        if !c.at_end() {
            return err(format!("unexpected `{}` after the shardings", c.rest()));
        }
        Ok(v)
    }

    /// The GSPMD sharding of this Shardy sharding on `mesh` (note: for each dimension its
    /// axes in order; the unreduced axes become a trailing unreduced dimension and the axes
    /// nothing uses a trailing replicated one, in that order, as jax writes them).
    pub fn to_hlo(&self, mesh: &SdyMesh) -> SResult<HloSharding> {
        let sizes: Vec<i64> = mesh.axes.iter().map(|a| a.1).collect();
        let mut used = vec![false; sizes.len()];
        let mut order = Vec::new();
        let mut tile_dims = Vec::new();
        for d in &self.dims {
            let mut t = 1;
            for a in &d.axes {
                let i = mesh.axis(a)?;
                if used[i] {
                    return err(format!("axis \"{a}\" shards two dimensions"));
                }
                used[i] = true;
                order.push(i);
                t *= sizes[i];
            }
            tile_dims.push(t);
        }
        let mut partial = 1;
        for a in &self.unreduced {
            let i = mesh.axis(a)?;
            if used[i] {
                return err(format!("axis \"{a}\" is both sharding and unreduced"));
            }
            used[i] = true;
            order.push(i);
            partial *= sizes[i];
        }
        let rest: Vec<usize> = (0..sizes.len()).filter(|&i| !used[i]).collect();
        let replicas: i64 = rest.iter().map(|&i| sizes[i]).product();
        order.extend(&rest);
        if tile_dims.iter().all(|&t| t == 1) {
            if partial == 1 {
                return Ok(HloSharding::Replicated);
            }
            if replicas == 1 {
                return Ok(HloSharding::Unreduced);
            }
        }
        let mut dims = tile_dims;
        let mut kinds = Vec::new();
        if partial > 1 {
            dims.push(partial);
            kinds.push(SubgroupKind::Unreduced);
            if replicas > 1 {
                dims.push(replicas);
                kinds.push(SubgroupKind::Replicated);
            }
        } else if replicas > 1 {
            dims.push(replicas);
        }
        let tiles = match &mesh.device_ids {
            Some(ids) if ids.iter().enumerate().any(|(i, &d)| d != i as i64) => {
                // The permuted device list, then the transpose.
                let perm_ids = iota_transposed(&sizes, &order);
                TileAssignment::Explicit {
                    dims,
                    devices: perm_ids.iter().map(|&i| ids[i as usize]).collect(),
                }
            }
            _ => TileAssignment::iota(dims, &sizes, &order),
        };
        Ok(HloSharding::tiled(
            tiles,
            partial == 1 && replicas > 1,
            kinds,
        ))
    }
}

fn parse_sdy_sharding(c: &mut Cur<'_>) -> SResult<SdySharding> {
    c.eat("#sdy.sharding");
    c.expect("<")?;
    c.expect("@")?;
    let mesh = c.word().to_string();
    c.expect(",")?;
    let dims = parse_sdy_dims(c, '"')?;
    let mut replicated = Vec::new();
    let mut unreduced = Vec::new();
    while c.eat(",") {
        let key = c.word();
        c.expect("=")?;
        c.expect("{")?;
        let mut names = Vec::new();
        while !c.eat("}") {
            names.push(c.quoted()?.to_string());
            c.eat(",");
        }
        match key {
            "replicated" => replicated = names,
            "unreduced" => unreduced = names,
            _ => return err(format!("`{key}=` in a sharding is not supported")),
        }
    }
    c.expect(">")?;
    Ok(SdySharding {
        mesh,
        dims,
        replicated,
        unreduced,
    })
}

fn parse_sdy_list(c: &mut Cur<'_>) -> SResult<Vec<SdySharding>> {
    c.expect("[")?;
    let mut v = Vec::new();
    if c.eat("]") {
        return Ok(v);
    }
    loop {
        v.push(parse_sdy_sharding(c)?);
        if v.len() > 1 << 16 {
            return err("too many shardings");
        }
        if c.eat("]") {
            return Ok(v);
        }
        c.expect(",")?;
    }
}

/// Parses `#sdy<manual_axes{"x", "y"}>` or `{"x"}` into axis names.
pub fn parse_manual_axes(text: &str) -> SResult<Vec<String>> {
    let mut c = Cur::new(text);
    c.eat("#sdy<manual_axes");
    c.expect("{")?;
    let mut names = Vec::new();
    while !c.eat("}") {
        names.push(c.quoted()?.to_string());
        if names.len() > 64 {
            return err("too many manual axes");
        }
        c.eat(",");
    }
    c.eat(">");
    if !c.at_end() {
        return err(format!("unexpected `{}` after the manual axes", c.rest()));
    }
    Ok(names)
}

/// Reads the meshes of an HLO module's `frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<[...]>, ...}}`
/// (the text inside `xla.sdy.meshes={...}`, or the whole attribute value).
pub fn parse_frontend_meshes(text: &str) -> SResult<Vec<SdyMesh>> {
    let Some(start) = text.find("xla.sdy.meshes=") else {
        return Ok(Vec::new());
    };
    let mut c = Cur::new(&text[start + "xla.sdy.meshes=".len()..]);
    // Either `{name = #sdy.mesh<...>, ...}` or a quoted string with the same inside.
    let quoted = c.eat("\"");
    c.expect("{")?;
    let mut meshes = Vec::new();
    loop {
        if c.eat("}") {
            break;
        }
        let name = c.word().to_string();
        c.expect("=")?;
        let begin = c.pos;
        // The mesh text runs to its closing `>`.
        let mut depth = 0;
        while c.pos < c.s.len() {
            match c.s[c.pos] {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        c.pos += 1;
                        break;
                    }
                }
                _ => {}
            }
            c.pos += 1;
        }
        let body = std::str::from_utf8(&c.s[begin..c.pos]).unwrap_or("");
        meshes.push(SdyMesh::parse(&name, &body.replace("\\\"", "\""))?);
        if meshes.len() > 64 {
            return err("too many meshes");
        }
        c.eat(",");
    }
    let _ = quoted;
    Ok(meshes)
}

/// The value of `key` in an HLO `frontend_attributes={k="v",...}` text, unescaped.
pub fn frontend_attribute(text: &str, key: &str) -> Option<String> {
    let pat = format!("{key}=\"");
    let start = text.find(&pat)? + pat.len();
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if i + 1 < bytes.len() => {
                out.push(bytes[i + 1] as char);
                i += 2;
            }
            b'"' => return Some(out),
            b => {
                out.push(b as char);
                i += 1;
            }
        }
    }
    None
}
