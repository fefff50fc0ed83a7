//! Shardings: how an array is laid out over the partitions of an SPMD program.
//! XLA: `xla/hlo/ir/hlo_sharding.{h,cc}` (`ToString`), `tile_assignment.{h,cc}`,
//! `xla/hlo/parser/hlo_parser.cc` (`ParseSharding`); Shardy:
//! `docs/sharding_representation.md` for the `#sdy.*` forms.
//!
//! A tiled sharding names a device array (the tile assignment) with one dimension per array
//! dimension, plus optional trailing dimensions: `last_tile_dim_replicate` (the last one lists
//! replicas of each tile) or `last_tile_dims={manual, replicated, ...}` (subgroups of those
//! kinds). Device ids are partition ids `0..N`. [`HloSharding::tile_coordinates`] and
//! [`index_domain`] are the semantics every user (the partitioner, the runtime's shard
//! slicing) goes through.
//!
//! Sizes are bounded: a tile assignment has at most [`MAX_DEVICES`] devices, so a bad
//! sharding cannot make the parser allocate without limit.

use std::fmt;

/// The most devices a tile assignment may name.
pub const MAX_DEVICES: i64 = 1 << 16;

/// A sharding error: what is wrong, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardingError(pub String);

impl fmt::Display for ShardingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardingError {}

type SResult<T> = Result<T, ShardingError>;

fn err<T>(msg: impl Into<String>) -> SResult<T> {
    Err(ShardingError(msg.into()))
}

/// The device array of a tiled sharding (XLA's `TileAssignment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileAssignment {
    /// `[dims]<=[reshape]T(perm)`: `iota(prod(reshape)).reshape(reshape).transpose(perm)
    /// .reshape(dims)`; `perm` is empty for the identity (no `T(...)` printed).
    Iota {
        /// The device array's dimensions.
        dims: Vec<i64>,
        /// The iota's shape before the transpose.
        reshape: Vec<i64>,
        /// The transpose; empty for none.
        perm: Vec<usize>,
    },
    /// `[dims]d0,d1,...`: the devices in row-major order.
    Explicit {
        /// The device array's dimensions.
        dims: Vec<i64>,
        /// The devices, row-major over `dims`.
        devices: Vec<i64>,
    },
}

impl TileAssignment {
    /// The device array's dimensions.
    pub fn dims(&self) -> &[i64] {
        match self {
            TileAssignment::Iota { dims, .. } | TileAssignment::Explicit { dims, .. } => dims,
        }
    }

    /// The number of devices.
    pub fn count(&self) -> i64 {
        self.dims().iter().product()
    }

    /// The devices in row-major order over [`dims`](Self::dims).
    pub fn devices(&self) -> Vec<i64> {
        match self {
            TileAssignment::Explicit { devices, .. } => devices.clone(),
            TileAssignment::Iota { reshape, perm, .. } => iota_transposed(reshape, perm),
        }
    }

    /// An iota assignment of `dims` over `reshape` transposed by `perm`, in XLA's canonical
    /// printed form: size-1 dimensions of the reshape dropped, adjacent dimensions that stay
    /// adjacent after the transpose merged, and an identity transpose omitted.
    pub fn iota(dims: Vec<i64>, reshape: &[i64], perm: &[usize]) -> TileAssignment {
        let (reshape, perm) = canonical_iota(reshape, perm);
        TileAssignment::Iota {
            dims,
            reshape,
            perm,
        }
    }
}

/// `iota(prod(reshape)).reshape(reshape).transpose(perm)` flattened.
fn iota_transposed(reshape: &[i64], perm: &[usize]) -> Vec<i64> {
    let count: i64 = reshape.iter().product();
    if perm.is_empty() {
        return (0..count).collect();
    }
    let mut strides = vec![1i64; reshape.len()];
    for d in (0..reshape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * reshape[d + 1];
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| reshape[p]).collect();
    let mut index = vec![0i64; tdims.len()];
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        out.push(index.iter().zip(perm).map(|(&i, &p)| i * strides[p]).sum());
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < tdims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// XLA's canonical iota form (see [`TileAssignment::iota`]).
fn canonical_iota(reshape: &[i64], perm: &[usize]) -> (Vec<i64>, Vec<usize>) {
    let perm: Vec<usize> = if perm.is_empty() {
        (0..reshape.len()).collect()
    } else {
        perm.to_vec()
    };
    // Drop size-1 dimensions.
    let keep: Vec<usize> = (0..reshape.len()).filter(|&d| reshape[d] != 1).collect();
    let renum = |d: usize| keep.iter().position(|&k| k == d);
    let mut dims: Vec<i64> = keep.iter().map(|&d| reshape[d]).collect();
    let mut perm: Vec<usize> = perm.iter().filter_map(|&p| renum(p)).collect();
    // Merge runs p, p+1 that stay adjacent after the transpose.
    while let Some(i) = (0..perm.len().saturating_sub(1)).find(|&i| perm[i + 1] == perm[i] + 1) {
        let a = perm[i];
        dims[a] *= dims[a + 1];
        dims.remove(a + 1);
        perm.remove(i + 1);
        for p in perm.iter_mut() {
            if *p > a {
                *p -= 1;
            }
        }
    }
    if dims.is_empty() {
        dims.push(1);
        perm = vec![0];
    }
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        perm.clear();
    }
    (dims, perm)
}

/// The kind of a trailing subgroup dimension (`last_tile_dims={...}`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubgroupKind {
    /// `manual`: each device of the subgroup runs its own (manual) code.
    Manual,
    /// `replicated`: the devices hold the same tile.
    Replicated,
    /// `maximal`.
    Maximal,
    /// `unreduced`: partial values still to be summed.
    Unreduced,
}

impl SubgroupKind {
    fn name(self) -> &'static str {
        match self {
            SubgroupKind::Manual => "manual",
            SubgroupKind::Replicated => "replicated",
            SubgroupKind::Maximal => "maximal",
            SubgroupKind::Unreduced => "unreduced",
        }
    }
}

/// A tiled sharding: `devices=[...]... [last_tile_dim_replicate] [last_tile_dims={...}]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledSharding {
    /// The device array: one dimension per array dimension, then the subgroup dimensions.
    pub tiles: TileAssignment,
    /// `last_tile_dim_replicate`: the last device-array dimension lists replicas.
    pub last_tile_dim_replicate: bool,
    /// `last_tile_dims={...}`: the kinds of the trailing subgroup dimensions.
    pub last_tile_dims: Vec<SubgroupKind>,
}

impl TiledSharding {
    /// How many trailing device-array dimensions are not array dimensions.
    pub fn subgroup_dims(&self) -> usize {
        usize::from(self.last_tile_dim_replicate) + self.last_tile_dims.len()
    }

    /// The number of array dimensions the sharding tiles.
    pub fn data_rank(&self) -> usize {
        self.tiles.dims().len().saturating_sub(self.subgroup_dims())
    }

    /// True if one of the subgroups is manual.
    pub fn has_manual_subgroup(&self) -> bool {
        self.last_tile_dims.contains(&SubgroupKind::Manual)
    }
}

/// A sharding as XLA's `HloSharding` (the `sharding=` attribute of an instruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HloSharding {
    /// `{replicated}`: every device holds the whole array.
    Replicated,
    /// `{manual}`: the program is already per-device here (shard_map bodies).
    Manual,
    /// `{unknown}`: to be decided by propagation.
    Unknown,
    /// `{unreduced}`: every device holds a partial value.
    Unreduced,
    /// `{maximal device=N}`: one device holds the array.
    Maximal {
        /// The device.
        device: i64,
    },
    /// `{devices=...}`.
    Tiled(TiledSharding),
    /// `{{...}, {...}}`: one sharding per tuple leaf, depth-first.
    Tuple(Vec<HloSharding>),
}

impl HloSharding {
    /// A tiled sharding from its parts; `[1,..,1]` tiles with only replication become
    /// `{replicated}`, as XLA normalizes them.
    pub fn tiled(
        tiles: TileAssignment,
        last_tile_dim_replicate: bool,
        last_tile_dims: Vec<SubgroupKind>,
    ) -> HloSharding {
        let t = TiledSharding {
            tiles,
            last_tile_dim_replicate,
            last_tile_dims,
        };
        if t.last_tile_dims.is_empty() && t.tiles.dims()[..t.data_rank()].iter().all(|&d| d == 1) {
            return HloSharding::Replicated;
        }
        HloSharding::Tiled(t)
    }

    /// True for `{replicated}`, and for tilings whose array dimensions are all 1.
    pub fn is_replicated(&self) -> bool {
        match self {
            HloSharding::Replicated => true,
            HloSharding::Tiled(t) => {
                t.last_tile_dims
                    .iter()
                    .all(|&k| k == SubgroupKind::Replicated)
                    && t.tiles.dims()[..t.data_rank()].iter().all(|&d| d == 1)
            }
            HloSharding::Tuple(v) => v.iter().all(HloSharding::is_replicated),
            _ => false,
        }
    }

    /// True for `{manual}` and tilings with a manual subgroup.
    pub fn is_manual(&self) -> bool {
        match self {
            HloSharding::Manual => true,
            HloSharding::Tiled(t) => t.has_manual_subgroup(),
            HloSharding::Tuple(v) => !v.is_empty() && v.iter().all(HloSharding::is_manual),
            _ => false,
        }
    }

    /// True if some part holds partial values still to be summed (`{unreduced}`, or an
    /// unreduced subgroup: `last_tile_dims={unreduced}`).
    pub fn has_unreduced(&self) -> bool {
        match self {
            HloSharding::Unreduced => true,
            HloSharding::Tiled(t) => t.last_tile_dims.contains(&SubgroupKind::Unreduced),
            HloSharding::Tuple(v) => v.iter().any(HloSharding::has_unreduced),
            _ => false,
        }
    }

    /// The tuple element `index` of a tuple sharding (a non-tuple sharding applies to every
    /// element).
    pub fn element(&self, index: usize) -> Option<&HloSharding> {
        match self {
            HloSharding::Tuple(v) => v.get(index),
            s => Some(s),
        }
    }

    /// The number of tiles along each of the `rank` array dimensions.
    pub fn tile_counts(&self, rank: usize) -> Vec<i64> {
        match self {
            HloSharding::Tiled(t) if t.data_rank() == rank => t.tiles.dims()[..rank].to_vec(),
            _ => vec![1; rank],
        }
    }

    /// Checks that the sharding fits an array of `rank` dimensions on `num_devices`
    /// partitions: every device `0..num_devices` exactly once, the right number of
    /// device-array dimensions. Tuple shardings are checked by the caller, per leaf.
    pub fn validate(&self, rank: usize, num_devices: i64) -> SResult<()> {
        match self {
            HloSharding::Maximal { device } => {
                if *device < 0 || *device >= num_devices {
                    return err(format!(
                        "device {device} is outside the {num_devices} partitions"
                    ));
                }
                Ok(())
            }
            HloSharding::Tiled(t) => {
                let dims = t.tiles.dims();
                if t.data_rank() != rank || dims.len() < t.subgroup_dims() {
                    return err(format!(
                        "sharding {self} has {} tile dimensions, an array of rank {rank} needs {}",
                        dims.len(),
                        rank + t.subgroup_dims()
                    ));
                }
                if t.tiles.count() != num_devices {
                    return err(format!(
                        "sharding {self} names {} devices, the program has {num_devices} partitions",
                        t.tiles.count()
                    ));
                }
                let mut seen = vec![false; num_devices as usize];
                for d in t.tiles.devices() {
                    match usize::try_from(d).ok().and_then(|i| seen.get_mut(i)) {
                        Some(s) if !*s => *s = true,
                        Some(_) => return err(format!("sharding {self} names device {d} twice")),
                        None => {
                            return err(format!(
                                "sharding {self}: device {d} is outside the {num_devices} partitions"
                            ));
                        }
                    }
                }
                Ok(())
            }
            HloSharding::Tuple(_) => err("a tuple sharding on an array"),
            _ => Ok(()),
        }
    }

    /// For each device `0..num_devices`, the coordinates of the tile it holds (one per array
    /// dimension). Replicated, maximal and manual shardings put every device on tile 0.
    /// The sharding must be valid ([`validate`](Self::validate)).
    pub fn tile_coordinates(&self, rank: usize, num_devices: i64) -> Vec<Vec<i64>> {
        let mut out = vec![vec![0i64; rank]; num_devices as usize];
        if let HloSharding::Tiled(t) = self {
            if t.data_rank() != rank {
                return out;
            }
            let dims = t.tiles.dims();
            for (flat, d) in t.tiles.devices().into_iter().enumerate() {
                let mut rem = flat as i64;
                let mut coord = vec![0i64; dims.len()];
                for k in (0..dims.len()).rev() {
                    coord[k] = rem % dims[k];
                    rem /= dims[k];
                }
                if let Some(slot) = out.get_mut(d as usize) {
                    *slot = coord[..rank].to_vec();
                }
            }
        }
        out
    }
}

impl HloSharding {
    /// For each device `0..num_devices`, its coordinate in its unreduced group (the devices
    /// holding partial values of the same tile), or `None` when the sharding has no
    /// unreduced part. `{unreduced}` makes every device one group, in device order.
    pub fn unreduced_coordinates(&self, rank: usize, num_devices: i64) -> Option<Vec<i64>> {
        match self {
            HloSharding::Unreduced => Some((0..num_devices).collect()),
            HloSharding::Tiled(t) if t.data_rank() == rank => {
                let k = t
                    .last_tile_dims
                    .iter()
                    .position(|&k| k == SubgroupKind::Unreduced)?;
                let dims = t.tiles.dims();
                let axis = dims.len() - t.last_tile_dims.len() + k;
                let mut out = vec![0i64; num_devices as usize];
                for (flat, d) in t.tiles.devices().into_iter().enumerate() {
                    let mut rem = flat as i64;
                    for j in (axis + 1..dims.len()).rev() {
                        rem /= dims[j];
                    }
                    if let Some(slot) = out.get_mut(d as usize) {
                        *slot = rem % dims[axis];
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// The sharding with its unreduced part replicated instead (the summed value's layout).
    pub fn without_unreduced(&self) -> HloSharding {
        match self {
            HloSharding::Unreduced => HloSharding::Replicated,
            HloSharding::Tuple(v) => {
                HloSharding::Tuple(v.iter().map(HloSharding::without_unreduced).collect())
            }
            HloSharding::Tiled(t) if t.last_tile_dims.contains(&SubgroupKind::Unreduced) => {
                let mut kinds: Vec<SubgroupKind> = t
                    .last_tile_dims
                    .iter()
                    .map(|&k| match k {
                        SubgroupKind::Unreduced => SubgroupKind::Replicated,
                        k => k,
                    })
                    .collect();
                // Two replicated subgroups are one: merge them into the last dimension.
                let dims = t.tiles.dims().to_vec();
                let reps: Vec<usize> = kinds
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| **k == SubgroupKind::Replicated)
                    .map(|(i, _)| dims.len() - kinds.len() + i)
                    .collect();
                let mut tiles = t.tiles.clone();
                if reps.len() == 2 && reps[1] == reps[0] + 1 {
                    let mut nd = dims.clone();
                    nd[reps[0]] *= nd[reps[1]];
                    nd.remove(reps[1]);
                    tiles = TileAssignment::Explicit {
                        dims: nd,
                        devices: t.tiles.devices(),
                    };
                    kinds.pop();
                }
                let only_replicated = kinds == [SubgroupKind::Replicated];
                if only_replicated {
                    kinds.clear();
                }
                HloSharding::tiled(tiles, only_replicated, kinds)
            }
            s => s.clone(),
        }
    }
}

/// The part of dimension `size` that tile `index` of `tiles` holds: `[start, end)`, with
/// XLA's padding rule (every tile is `ceil(size / tiles)` long; the last ones may be short
/// or empty).
pub fn tile_range(size: i64, tiles: i64, index: i64) -> (i64, i64) {
    let per = shard_size(size, tiles);
    ((index * per).min(size), ((index + 1) * per).min(size))
}

/// The padded length of one tile: `ceil(size / tiles)`.
pub fn shard_size(size: i64, tiles: i64) -> i64 {
    if tiles <= 1 {
        size
    } else {
        (size + tiles - 1) / tiles
    }
}

/// The index domain (`[start, end)` per dimension) device `device` holds of an array of
/// `dims` under `sharding` (which must be valid for them).
pub fn index_domain(
    sharding: &HloSharding,
    dims: &[i64],
    num_devices: i64,
    device: i64,
) -> Vec<(i64, i64)> {
    let counts = sharding.tile_counts(dims.len());
    let coords = sharding.tile_coordinates(dims.len(), num_devices);
    let coord = coords
        .get(device as usize)
        .cloned()
        .unwrap_or_else(|| vec![0; dims.len()]);
    (0..dims.len())
        .map(|i| tile_range(dims[i], counts[i], coord[i]))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Printing, as XLA's HloSharding::ToString
// ---------------------------------------------------------------------------------------

fn join(v: &[i64]) -> String {
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

// ---------------------------------------------------------------------------------------
// Parsing `sharding=` values
// ---------------------------------------------------------------------------------------

/// The longest sharding text the parsers read.
pub const MAX_SHARDING_TEXT: usize = 1 << 20;

/// A small cursor over sharding text (HLO `sharding=` values, `mhlo.sharding` strings and
/// the `#sdy` forms).
struct Cur<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Cur<'a> {
    fn new(s: &'a str) -> Cur<'a> {
        Cur {
            s: s.as_bytes(),
            pos: 0,
        }
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(t.as_bytes()) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }

    fn rest(&self) -> String {
        let end = (self.pos + 24).min(self.s.len());
        String::from_utf8_lossy(&self.s[self.pos..end]).into_owned()
    }

    fn expect(&mut self, t: &str) -> SResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            err(format!("expected `{t}` at `{}`", self.rest()))
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn int(&mut self) -> SResult<i64> {
        self.ws();
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| ShardingError(format!("expected an integer at `{}`", self.rest())))
    }

    fn word(&mut self) -> &'a str {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || b"_.-".contains(&self.s[self.pos]))
        {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("")
    }

    /// `[a,b,...]` (possibly empty).
    fn int_list(&mut self, open: &str, close: &str) -> SResult<Vec<i64>> {
        self.expect(open)?;
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.int()?);
            if v.len() as i64 > MAX_DEVICES {
                return err(format!("more than {MAX_DEVICES} numbers in a list"));
            }
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }

    /// A quoted string (`"x"` or `'x'`), without escapes.
    fn quoted(&mut self) -> SResult<&'a str> {
        self.ws();
        let q = match self.peek() {
            Some(q @ (b'"' | b'\'')) => q,
            _ => return err(format!("expected a quoted name at `{}`", self.rest())),
        };
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != q {
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return err("unterminated quoted name");
        }
        let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        self.pos += 1;
        Ok(t)
    }

    /// Skips a balanced `{...}` block (sharding metadata).
    fn skip_braced(&mut self) -> SResult<()> {
        self.expect("{")?;
        let mut depth = 1;
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                b'"' => {
                    self.pos += 1;
                    while self.pos < self.s.len() && self.s[self.pos] != b'"' {
                        if self.s[self.pos] == b'\\' {
                            self.pos += 1;
                        }
                        self.pos += 1;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        err("unterminated `{`")
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }
}

fn checked_product(v: &[i64]) -> SResult<i64> {
    let mut p: i64 = 1;
    for &d in v {
        if d <= 0 {
            return err(format!("tile dimension {d} is not positive"));
        }
        p = p
            .checked_mul(d)
            .filter(|&p| p <= MAX_DEVICES)
            .ok_or_else(|| ShardingError(format!("more than {MAX_DEVICES} devices")))?;
    }
    Ok(p)
}

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

// ---------------------------------------------------------------------------------------
// Shardy: #sdy.mesh, #sdy.sharding, and their conversion to tile assignments
// ---------------------------------------------------------------------------------------

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
fn parse_sdy_dims(c: &mut Cur<'_>, q: char) -> SResult<Vec<SdyDim>> {
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

#[cfg(test)]
mod tests;

/// Custom calls that only carry sharding information (GSPMD's and Shardy's annotations and
/// the partitioner's shard barriers): on one device each is its operand unchanged.
pub fn is_sharding_only_custom_call(target: &str) -> bool {
    matches!(
        target,
        "Sharding"
            | "SPMDFullToShardShape"
            | "SPMDShardToFullShape"
            | "xla.sdy.FuncResultSharding"
            | "xla.sdy.GlobalToLocalShape"
            | "xla.sdy.LocalToGlobalShape"
            | "xla.sdy.ShardingGroup"
            | "xla.sdy.PropagationBarrier"
            | "ShardBarrierFrom"
            | "ShardBarrierTo"
    )
}
