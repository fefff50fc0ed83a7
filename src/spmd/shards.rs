//! Global arrays and their per-partition shards: what `xlac run --partitions N` feeds
//! each device and how it puts the results back together. A shard is the partition's
//! index domain of the global array ([`crate::ir::sharding::index_domain`]), padded at
//! the high end to the per-partition shape as XLA pads uneven splits.

use crate::ir::sharding::{HloSharding, index_domain, shard_size};
use crate::ir::{ArrayData, ArrayLiteral, ArrayShape};

/// Flat row-major index of `idx` in `dims`.
fn flat(idx: &[i64], dims: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

/// Calls `f(local, global)` for every element of a `local_dims` shard whose domain starts
/// at `start` and is `extent` long (positions past the extent are padding: `global` None).
fn for_each(
    local_dims: &[i64],
    start: &[i64],
    extent: &[i64],
    mut f: impl FnMut(&[i64], Option<Vec<i64>>),
) {
    let count: i64 = local_dims.iter().product();
    let mut idx = vec![0i64; local_dims.len()];
    for _ in 0..count {
        let inside = idx.iter().zip(extent).all(|(&i, &e)| i < e);
        let g = inside.then(|| idx.iter().zip(start).map(|(&i, &s)| i + s).collect());
        f(&idx, g);
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < local_dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The per-partition shape of `dims` under `sharding`.
pub fn shard_dims(sharding: &HloSharding, dims: &[i64]) -> Vec<i64> {
    let counts = sharding.tile_counts(dims.len());
    dims.iter()
        .zip(&counts)
        .map(|(&n, &t)| shard_size(n, t))
        .collect()
}

/// Partition `p`'s shard of `global` (row-major result; padding repeats element 0, whose
/// value the partitioned program never reads).
pub fn shard(
    global: &ArrayLiteral,
    sharding: &HloSharding,
    partitions: i64,
    p: i64,
) -> ArrayLiteral {
    let g = global.to_row_major();
    let dims = g.shape.dims.clone();
    let domain = index_domain(sharding, &dims, partitions, p);
    let local = shard_dims(sharding, &dims);
    let start: Vec<i64> = domain.iter().map(|r| r.0).collect();
    let extent: Vec<i64> = domain.iter().map(|r| r.1 - r.0).collect();
    let mut indices = Vec::with_capacity(local.iter().product::<i64>() as usize);
    for_each(&local, &start, &extent, |_, gi| {
        indices.push(gi.map_or(0, |gi| flat(&gi, &dims)));
    });
    let data = if g.data.is_empty() {
        ArrayData::zeros(g.shape.element_type, indices.len())
    } else {
        g.data.gather(&indices)
    };
    ArrayLiteral {
        shape: ArrayShape::new(g.shape.element_type, &local),
        data,
    }
}

fn copy_elements(dst: &mut ArrayData, src: &ArrayData, pairs: &[(usize, usize)]) -> bool {
    macro_rules! copy {
        ($($v:ident),*) => {
            match (dst, src) {
                $( (ArrayData::$v(d), ArrayData::$v(s)) => {
                    for &(di, si) in pairs {
                        d[di] = s[si];
                    }
                    true
                } )*
                _ => false,
            }
        };
    }
    copy!(
        Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128, Raw
    )
}

/// The global array of `dims` from every partition's shard (`shards[p]`), each element
/// taken from the first partition that holds it.
pub fn assemble(
    shards: &[ArrayLiteral],
    sharding: &HloSharding,
    dims: &[i64],
) -> Result<ArrayLiteral, String> {
    let n = shards.len() as i64;
    let ty = shards
        .first()
        .map(|s| s.shape.element_type)
        .ok_or("no shards")?;
    let count: i64 = dims.iter().product();
    let mut out = ArrayData::zeros(ty, count as usize);
    let mut filled = vec![false; count as usize];
    let local = shard_dims(sharding, dims);
    for (p, s) in shards.iter().enumerate() {
        let s = s.to_row_major();
        if s.shape.dims != local {
            return Err(format!(
                "partition {p} returned {:?}, the shard of {:?} under {sharding} is {:?}",
                s.shape.dims, dims, local
            ));
        }
        let domain = index_domain(sharding, dims, n, p as i64);
        let start: Vec<i64> = domain.iter().map(|r| r.0).collect();
        let extent: Vec<i64> = domain.iter().map(|r| r.1 - r.0).collect();
        let mut pairs = Vec::new();
        for_each(&local, &start, &extent, |li, gi| {
            if let Some(gi) = gi {
                let g = flat(&gi, dims);
                if !filled[g] {
                    filled[g] = true;
                    pairs.push((g, flat(li, &local)));
                }
            }
        });
        if !copy_elements(&mut out, &s.data, &pairs) {
            return Err(format!("partition {p}: element type differs"));
        }
    }
    if filled.iter().any(|f| !f) {
        return Err(format!("the shards under {sharding} do not cover {dims:?}"));
    }
    Ok(ArrayLiteral {
        shape: ArrayShape::new(ty, dims),
        data: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_round_trip_even_and_uneven() {
        let g = ArrayLiteral::from_vec(&[10, 3], (0..30).map(|x| x as f32).collect());
        for text in [
            "{devices=[4,1]<=[4]}",
            "{devices=[2,2]<=[4]}",
            "{devices=[1,2,2]<=[4] last_tile_dim_replicate}",
            "{replicated}",
        ] {
            let s = HloSharding::parse(text).unwrap();
            let shards: Vec<ArrayLiteral> = (0..4).map(|p| shard(&g, &s, 4, p)).collect();
            assert_eq!(assemble(&shards, &s, &[10, 3]).unwrap(), g, "{text}");
        }
        let s = HloSharding::parse("{devices=[4,1]<=[4]}").unwrap();
        let last = shard(&g, &s, 4, 3);
        assert_eq!(last.shape.dims, vec![3, 3]);
        assert_eq!(
            &last.data.gather(&[0, 1, 2]),
            &ArrayData::F32(vec![27.0, 28.0, 29.0])
        );
    }
}
