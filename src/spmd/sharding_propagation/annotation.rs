//! An instruction's own sharding, the one propagation must not change: `sharding=`, the
//! Shardy frontend attributes JAX writes (`xla.sdy.sharding`, `xla.sdy.FuncResultSharding`,
//! the shard_map boundaries) read with the module's meshes, checked against the shape and
//! the partition count.

use super::{Sh, cc_target, check, err, whole};
use crate::ir::sharding::{
    HloSharding, SdyMesh, SdySharding, frontend_attribute, parse_manual_axes,
};
use crate::ir::{Instruction, Op, Shape};
use crate::pipeline::PassError;

/// The sdy sharding(s) in `instr`'s frontend attribute `key`, as one HLO sharding.
fn sdy_attribute(
    instr: &Instruction,
    key: &str,
    meshes: &[SdyMesh],
) -> Result<Option<HloSharding>, PassError> {
    let Some(fa) = instr
        .raw_attributes
        .iter()
        .find(|a| a.name == "frontend_attributes")
    else {
        return Ok(None);
    };
    let Some(text) = frontend_attribute(&fa.value, key) else {
        return Ok(None);
    };
    let list = SdySharding::parse_per_value(&text).map_err(|e| err(instr, e))?;
    let mut out = Vec::new();
    for s in &list {
        let mesh = meshes
            .iter()
            .find(|m| m.name == s.mesh)
            .ok_or_else(|| err(instr, format!("no mesh @{} in xla.sdy.meshes", s.mesh)))?;
        out.push(s.to_hlo(mesh).map_err(|e| err(instr, e))?);
    }
    // A shard_map over some mesh axes only keeps its in- and out-shardings (global, along
    // the manual axes); `manual::regions` finds its groups.
    if let Some(axes) = frontend_attribute(&fa.value, "xla.sdy.manual_axes") {
        parse_manual_axes(&axes).map_err(|e| err(instr, e))?;
    }
    Ok(Some(match out.len() {
        1 => out.pop().unwrap(),
        _ => HloSharding::Tuple(out),
    }))
}

/// An instruction's own sharding (closed to propagation), checked against its shape and
/// the partition count, and how it is stored back.
pub(super) fn annotation(
    instr: &Instruction,
    comp: &crate::ir::Computation,
    meshes: &[SdyMesh],
    n: usize,
) -> Result<Option<(Sh, HloSharding)>, PassError> {
    // Shardy's custom calls carry their sharding in frontend attributes.
    let mut annotated = instr.sharding.clone();
    if let Op::CustomCall(cc) = &instr.op {
        let key = match cc.target.as_str() {
            "xla.sdy.FuncResultSharding" => Some("xla.sdy.sharding"),
            "xla.sdy.GlobalToLocalShape" => Some("xla.sdy.in_shardings"),
            "xla.sdy.LocalToGlobalShape" => Some("xla.sdy.out_shardings"),
            _ => None,
        };
        if let Some(key) = key
            && let Some(s) = sdy_attribute(instr, key, meshes)?
        {
            annotated = Some(s);
        }
    }
    if n == 1 {
        // One partition: every split is the whole array.
        annotated = annotated.map(|s| whole(&s));
    }
    let Some(s) = annotated else {
        return Ok(None);
    };
    let shape = match cc_target(instr) {
        // The in-shardings describe the operands (global shapes).
        Some("xla.sdy.GlobalToLocalShape") => {
            let ops: Vec<Shape> = instr
                .operands
                .iter()
                .map(|o| comp.instrs[*o].shape.clone())
                .collect();
            if ops.len() == 1 {
                ops[0].clone()
            } else {
                Shape::Tuple(ops)
            }
        }
        _ => instr.shape.clone(),
    };
    check(instr, &s, &shape, n)?;
    let sh = match cc_target(instr) {
        Some("xla.sdy.GlobalToLocalShape" | "SPMDFullToShardShape") => Sh::Manual,
        _ => Sh::of(&s, &instr.shape, n),
    };
    Ok(Some((sh, s)))
}
