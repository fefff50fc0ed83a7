//! Shardings as `OpSharding` (tile assignments as iota or explicit device lists, the
//! subgroup types), the form XLA's `HloSharding::FromProto` reads.
//!
//! XLA: `xla/xla_data.proto` (`OpSharding`).

use prost::Message;

use super::messages::*;
use crate::ir::sharding::{HloSharding, SubgroupKind};

/// `OpSharding.Type` numbers.
const SHARDING_REPLICATED: i32 = 0;
const SHARDING_MAXIMAL: i32 = 1;
const SHARDING_TUPLE: i32 = 2;
const SHARDING_OTHER: i32 = 3;
const SHARDING_MANUAL: i32 = 4;
const SHARDING_UNKNOWN: i32 = 5;
const SHARDING_UNREDUCED: i32 = 6;

/// `s` as a serialized `xla.OpSharding` (what PJRT's Shardings extension hands out).
pub fn op_sharding_bytes(s: &HloSharding) -> Vec<u8> {
    op_sharding(s).encode_to_vec()
}

/// `s` as an `xla.OpSharding`.
pub fn op_sharding(s: &HloSharding) -> OpSharding {
    let of_type = |t| OpSharding {
        r#type: t,
        ..OpSharding::default()
    };
    match s {
        HloSharding::Replicated => of_type(SHARDING_REPLICATED),
        HloSharding::Manual => of_type(SHARDING_MANUAL),
        HloSharding::Unknown => of_type(SHARDING_UNKNOWN),
        HloSharding::Unreduced => of_type(SHARDING_UNREDUCED),
        HloSharding::Maximal { device } => OpSharding {
            r#type: SHARDING_MAXIMAL,
            tile_assignment_dimensions: vec![1],
            tile_assignment_devices: vec![*device],
            ..OpSharding::default()
        },
        HloSharding::Tiled(t) => OpSharding {
            r#type: SHARDING_OTHER,
            tile_assignment_dimensions: t.tiles.dims().to_vec(),
            tile_assignment_devices: t.tiles.devices(),
            replicate_on_last_tile_dim: t.last_tile_dim_replicate,
            last_tile_dims: t
                .last_tile_dims
                .iter()
                .map(|k| match k {
                    SubgroupKind::Manual => SHARDING_MANUAL,
                    SubgroupKind::Replicated => SHARDING_REPLICATED,
                    SubgroupKind::Maximal => SHARDING_MAXIMAL,
                    SubgroupKind::Unreduced => SHARDING_UNREDUCED,
                })
                .collect(),
            ..OpSharding::default()
        },
        HloSharding::Tuple(elements) => OpSharding {
            r#type: SHARDING_TUPLE,
            tuple_shardings: elements.iter().map(op_sharding).collect(),
            ..OpSharding::default()
        },
    }
}
