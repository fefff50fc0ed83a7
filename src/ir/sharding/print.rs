//! Printing shardings as XLA's `HloSharding::ToString` does (`{devices=[2,1]0,1}`,
//! `{replicated}`, iota tile assignments as `<=[4]`).

use std::fmt;

use super::{HloSharding, TileAssignment};

pub(super) fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

impl fmt::Display for TileAssignment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileAssignment::Iota {
                dims,
                reshape,
                perm,
            } => {
                write!(f, "[{}]<=[{}]", join(dims), join(reshape))?;
                if !perm.is_empty() {
                    let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                    write!(f, "T({})", join(&p))?;
                }
                Ok(())
            }
            TileAssignment::Explicit { dims, devices } => {
                write!(f, "[{}]{}", join(dims), join(devices))
            }
        }
    }
}

impl HloSharding {
    fn write_single(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HloSharding::Replicated => f.write_str("replicated"),
            HloSharding::Manual => f.write_str("manual"),
            HloSharding::Unknown => f.write_str("unknown"),
            HloSharding::Unreduced => f.write_str("unreduced"),
            HloSharding::Maximal { device } => write!(f, "maximal device={device}"),
            HloSharding::Tiled(t) => {
                write!(f, "devices={}", t.tiles)?;
                if t.last_tile_dim_replicate {
                    f.write_str(" last_tile_dim_replicate")?;
                }
                if !t.last_tile_dims.is_empty() {
                    let kinds: Vec<&str> = t.last_tile_dims.iter().map(|k| k.name()).collect();
                    write!(f, " last_tile_dims={{{}}}", kinds.join(", "))?;
                }
                Ok(())
            }
            HloSharding::Tuple(_) => unreachable!("tuples are printed by Display"),
        }
    }
}

impl fmt::Display for HloSharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HloSharding::Tuple(v) => {
                f.write_str("{")?;
                for (i, s) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if i > 0 && i % 5 == 0 {
                        write!(f, "/*index={i}*/")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str("}")
            }
            s => {
                f.write_str("{")?;
                s.write_single(f)?;
                f.write_str("}")
            }
        }
    }
}
