//! Parsing `sharding=` values (and `mhlo.sharding` strings), as XLA's `ParseSharding`.
//!
//! XLA: `xla/hlo/parser/hlo_parser.cc` (`ParseSharding`).

use super::cursor::{Cur, MAX_SHARDING_TEXT, checked_product};
use super::print::join;
use super::sdy::{SdyMesh, SdySharding, parse_sdy_dims};
use super::{HloSharding, MAX_DEVICES, SResult, SubgroupKind, TileAssignment, TiledSharding, err};

impl HloSharding {
    /// Parses a `sharding=` value as XLA prints it: `{replicated}`, `{manual}`,
    /// `{maximal device=N}`, `{devices=[4,2]<=[8]}`, `{devices=[2,1,4]<=[4,2]T(1,0)
    /// last_tile_dim_replicate}`, `{devices=[2,2]0,2,1,3}`, `{devices=[...] last_tile_dims={manual}}`,
    /// the mesh form `{mesh['x'=4,'y'=2], [{'x'}, {}]}`, and tuples `{{...}, /*index=5*/{...}}`.
    /// `shard_as N` / `shard_like N` and a trailing `metadata={...}` are read and dropped.
    pub fn parse(text: &str) -> SResult<HloSharding> {
        if text.len() > MAX_SHARDING_TEXT {
            return err(format!(
                "a sharding of {} bytes (limit {MAX_SHARDING_TEXT})",
                text.len()
            ));
        }
        let mut c = Cur::new(text);
        let s = parse_braced(&mut c, 0)?;
        if !c.at_end() {
            return err(format!("unexpected `{}` after the sharding", c.rest()));
        }
        Ok(s)
    }
}

fn parse_braced(c: &mut Cur<'_>, depth: usize) -> SResult<HloSharding> {
    if depth > 8 {
        return err("sharding tuples nested too deeply");
    }
    c.expect("{")?;
    // A tuple: `{{...}, ...}` or the empty tuple `{}`.
    if c.peek() == Some(b'{') || c.peek() == Some(b'/') {
        let mut v = Vec::new();
        loop {
            if c.eat("/*") {
                while !c.eat("*/") {
                    if c.at_end() {
                        return err("unterminated comment");
                    }
                    c.pos += 1;
                }
            }
            v.push(parse_braced(c, depth + 1)?);
            if v.len() as i64 > MAX_DEVICES {
                return err("too many tuple shardings");
            }
            if c.eat("}") {
                return Ok(HloSharding::Tuple(v));
            }
            c.expect(",")?;
        }
    }
    if c.eat("}") {
        return Ok(HloSharding::Tuple(Vec::new()));
    }
    let s = parse_single(c)?;
    loop {
        if c.eat("shard_as") || c.eat("shard_like") {
            c.int()?;
        } else if c.eat("metadata=") {
            c.skip_braced()?;
        } else {
            break;
        }
    }
    c.expect("}")?;
    Ok(s)
}

fn parse_single(c: &mut Cur<'_>) -> SResult<HloSharding> {
    if c.eat("replicated") {
        return Ok(HloSharding::Replicated);
    }
    if c.eat("manual") {
        return Ok(HloSharding::Manual);
    }
    if c.eat("unknown") {
        return Ok(HloSharding::Unknown);
    }
    if c.eat("unreduced") {
        return Ok(HloSharding::Unreduced);
    }
    if c.eat("maximal") {
        c.expect("device=")?;
        return Ok(HloSharding::Maximal { device: c.int()? });
    }
    if c.eat("mesh") {
        return parse_mesh_form(c);
    }
    c.expect("devices=")?;
    let dims = c.int_list("[", "]")?;
    let count = checked_product(&dims)?;
    let tiles = if c.eat("<=") {
        let reshape = c.int_list("[", "]")?;
        if checked_product(&reshape)? != count {
            return err(format!(
                "iota tile assignment [{}]<=[{}] has mismatched sizes",
                join(&dims),
                join(&reshape)
            ));
        }
        let mut perm = Vec::new();
        if c.eat("T") {
            let p = c.int_list("(", ")")?;
            let mut seen = vec![false; reshape.len()];
            for &d in &p {
                match usize::try_from(d).ok().and_then(|i| seen.get_mut(i)) {
                    Some(s) if !*s => *s = true,
                    _ => return err(format!("bad transpose T({})", join(&p))),
                }
            }
            if p.len() != reshape.len() {
                return err(format!("bad transpose T({})", join(&p)));
            }
            perm = p.into_iter().map(|d| d as usize).collect();
        }
        TileAssignment::Iota {
            dims,
            reshape,
            perm,
        }
    } else {
        let mut devices = Vec::new();
        loop {
            devices.push(c.int()?);
            if devices.len() as i64 > count {
                break;
            }
            if !c.eat(",") {
                break;
            }
        }
        if devices.len() as i64 != count {
            return err(format!(
                "tile assignment [{}] lists {} devices, expected {count}",
                join(&dims),
                devices.len()
            ));
        }
        TileAssignment::Explicit { dims, devices }
    };
    let mut last_tile_dim_replicate = false;
    let mut last_tile_dims = Vec::new();
    loop {
        if c.eat("last_tile_dim_replicate") {
            last_tile_dim_replicate = true;
        } else if c.eat("last_tile_dims=") {
            c.expect("{")?;
            loop {
                let kind = match c.word() {
                    "manual" => SubgroupKind::Manual,
                    "replicated" => SubgroupKind::Replicated,
                    "maximal" => SubgroupKind::Maximal,
                    "unreduced" => SubgroupKind::Unreduced,
                    w => return err(format!("unknown subgroup kind `{w}`")),
                };
                last_tile_dims.push(kind);
                if c.eat("}") {
                    break;
                }
                c.expect(",")?;
            }
        } else {
            break;
        }
    }
    let t = TiledSharding {
        tiles,
        last_tile_dim_replicate,
        last_tile_dims,
    };
    if t.tiles.dims().len() < t.subgroup_dims() {
        return err("more subgroup dimensions than tile dimensions");
    }
    Ok(HloSharding::Tiled(t))
}

/// XLA's V3 print: `mesh['x'=4,'y'=2], [{'x'}, {}]` (after `mesh`), or `mesh[], replicated`.
fn parse_mesh_form(c: &mut Cur<'_>) -> SResult<HloSharding> {
    c.expect("[")?;
    let mut axes = Vec::new();
    if !c.eat("]") {
        loop {
            let name = c.quoted()?.to_string();
            c.expect("=")?;
            axes.push((name, c.int()?));
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    let mut device_ids = None;
    c.expect(",")?;
    if c.eat("device_ids=") {
        device_ids = Some(c.int_list("[", "]")?);
        c.expect(",")?;
    }
    let mesh = SdyMesh {
        name: String::new(),
        axes,
        device_ids,
    };
    if c.eat("replicated") {
        return Ok(HloSharding::Replicated);
    }
    if c.eat("maximal") {
        return err("maximal mesh shardings are not supported");
    }
    let dims = parse_sdy_dims(c, '\'')?;
    let sdy = SdySharding {
        mesh: String::new(),
        dims,
        replicated: Vec::new(),
        unreduced: Vec::new(),
    };
    sdy.to_hlo(&mesh)
}
