//! Shardings: which part of a global array each device holds. Three kinds, as in IFRT
//! (`xla/python/ifrt/sharding.h`) and jax (`jax.sharding`): one device
//! ([`Sharding::SingleDevice`]), a named sharding over a device mesh with a partition spec
//! ([`Sharding::Named`], jax's `NamedSharding(mesh, P("x", "y"))`), and an HLO sharding
//! over a device list ([`Sharding::Hlo`], IFRT's `HloSharding`). Every kind comes down to
//! the same thing, [`Sharding::index_domains`]: per device, the box of the global array it
//! holds (jax's `devices_indices_map`, IFRT's `IndexDomains`).
//!
//! A named sharding becomes an HLO sharding over *mesh positions* (partition ids) with the
//! mesh's device list as the device assignment, as jax lowers it: the Shardy conversion of
//! `crate::ir::sharding` (`SdySharding::to_hlo`) does the arithmetic.

use std::fmt;

use super::{DeviceId, IfrtError, Result};
use crate::ir::sharding::{HloSharding, SdyDim, SdyMesh, SdySharding, index_domain, shard_size};

/// A box of a global array: `[start, end)` per dimension (jax's `shard.index`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IndexDomain(pub Vec<(i64, i64)>);

impl IndexDomain {
    /// The whole of an array of `dims`.
    pub fn full(dims: &[i64]) -> IndexDomain {
        IndexDomain(dims.iter().map(|&d| (0, d)).collect())
    }

    /// Its extent per dimension.
    pub fn dims(&self) -> Vec<i64> {
        self.0.iter().map(|r| r.1 - r.0).collect()
    }

    /// Its start per dimension.
    pub fn start(&self) -> Vec<i64> {
        self.0.iter().map(|r| r.0).collect()
    }

    /// The overlap with `other`, if not empty.
    pub fn intersect(&self, other: &IndexDomain) -> Option<IndexDomain> {
        let mut out = Vec::with_capacity(self.0.len());
        for (a, b) in self.0.iter().zip(&other.0) {
            let lo = a.0.max(b.0);
            let hi = a.1.min(b.1);
            if lo >= hi {
                return None;
            }
            out.push((lo, hi));
        }
        Some(IndexDomain(out))
    }

    /// This box relative to `origin` (the start of a shard): coordinates in that shard.
    pub fn relative_to(&self, origin: &IndexDomain) -> IndexDomain {
        IndexDomain(
            self.0
                .iter()
                .zip(&origin.0)
                .map(|(a, o)| (a.0 - o.0, a.1 - o.0))
                .collect(),
        )
    }

    /// Number of elements.
    pub fn element_count(&self) -> i64 {
        self.dims().iter().product()
    }
}

/// Prints as numpy slices: `[0:4, 8:16]` (`[]` for a scalar).
impl fmt::Display for IndexDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, (a, b)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}:{b}")?;
        }
        f.write_str("]")
    }
}

/// A logical mesh of devices with named axes (jax's `Mesh`): `axes` major to minor, and the
/// devices in row-major mesh order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    axes: Vec<(String, usize)>,
    devices: Vec<DeviceId>,
}

impl Mesh {
    /// A mesh of `axes` (name, size) over `devices` in row-major mesh order; the sizes must
    /// multiply to the device count, names and devices must be distinct.
    pub fn new(axes: &[(&str, usize)], devices: Vec<DeviceId>) -> Result<Mesh> {
        let count = axes
            .iter()
            .try_fold(1usize, |acc, a| acc.checked_mul(a.1))
            .unwrap_or(usize::MAX);
        if count != devices.len() || axes.iter().any(|a| a.1 == 0) {
            return Err(IfrtError::BadMesh(format!(
                "mesh axes {} hold {count} devices, {} were given",
                axes_text(axes.iter().map(|a| (a.0, a.1))),
                devices.len()
            )));
        }
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.0 == a.0) {
                return Err(IfrtError::BadMesh(format!(
                    "mesh axis '{}' is named twice",
                    a.0
                )));
            }
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(d) = devices.iter().find(|&&d| !seen.insert(d)) {
            return Err(IfrtError::BadMesh(format!(
                "device {d} is in the mesh twice"
            )));
        }
        Ok(Mesh {
            axes: axes.iter().map(|a| (a.0.to_string(), a.1)).collect(),
            devices,
        })
    }

    /// Axes (name, size), major to minor.
    pub fn axes(&self) -> &[(String, usize)] {
        &self.axes
    }

    /// Devices in row-major mesh order.
    pub fn devices(&self) -> &[DeviceId] {
        &self.devices
    }

    fn sdy(&self) -> SdyMesh {
        SdyMesh {
            name: "mesh".into(),
            axes: self
                .axes
                .iter()
                .map(|(n, s)| (n.clone(), *s as i64))
                .collect(),
            // Positions, not device ids: the device list is the assignment.
            device_ids: None,
        }
    }
}

fn axes_text<'a>(axes: impl Iterator<Item = (&'a str, usize)>) -> String {
    let v: Vec<String> = axes.map(|(n, s)| format!("'{n}': {s}")).collect();
    v.join(", ")
}

/// Prints as jax does: `Mesh('x': 4, 'y': 2)`.
impl fmt::Display for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Mesh({})",
            axes_text(self.axes.iter().map(|(n, s)| (n.as_str(), *s)))
        )
    }
}

/// One dimension of a [`PartitionSpec`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionDim {
    /// `None`: not split.
    Replicated,
    /// Split over these mesh axes, major first (`"x"`, or `("x", "y")`).
    Axes(Vec<String>),
}

/// How each array dimension maps onto mesh axes (jax's `PartitionSpec`, `P(...)`); dims
/// past its length are not split. Build one with [`crate::pspec!`].
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PartitionSpec(pub Vec<PartitionDim>);

/// `P(...)` as jax writes it: `pspec!("x", "y")`, `pspec!(None, "x")`,
/// `pspec!(("x", "y"))`, `pspec!()` (replicated).
#[macro_export]
macro_rules! pspec {
    (@dim None) => { $crate::ifrt::PartitionDim::Replicated };
    (@dim ($($a:literal),+ $(,)?)) => {
        $crate::ifrt::PartitionDim::Axes(vec![$($a.to_string()),+])
    };
    (@dim $a:literal) => { $crate::ifrt::PartitionDim::Axes(vec![$a.to_string()]) };
    ($($d:tt),* $(,)?) => {
        $crate::ifrt::PartitionSpec(vec![$($crate::pspec!(@dim $d)),*])
    };
}

/// Prints as jax does: `P('x', None)`, `P(('x', 'y'),)`... without the trailing comma.
impl fmt::Display for PartitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("P(")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match d {
                PartitionDim::Replicated => f.write_str("None")?,
                PartitionDim::Axes(a) if a.len() == 1 => write!(f, "'{}'", a[0])?,
                PartitionDim::Axes(a) => {
                    let v: Vec<String> = a.iter().map(|n| format!("'{n}'")).collect();
                    write!(f, "({})", v.join(", "))?
                }
            }
        }
        f.write_str(")")
    }
}

/// Where the parts of an array live.
#[derive(Clone, Debug, PartialEq)]
pub enum Sharding {
    /// The whole array on one device (IFRT's `SingleDeviceSharding`).
    SingleDevice {
        /// The device.
        device: DeviceId,
    },
    /// jax's `NamedSharding(mesh, spec)`.
    Named {
        /// The mesh.
        mesh: Mesh,
        /// The partition spec.
        spec: PartitionSpec,
    },
    /// An XLA sharding over a device list: partition `p` of `sharding` is on `devices[p]`
    /// (IFRT's `HloSharding`; what an executable's parameters and results carry).
    Hlo {
        /// The device of each partition.
        devices: Vec<DeviceId>,
        /// The sharding over partitions `0..devices.len()`.
        sharding: HloSharding,
    },
}

impl Sharding {
    /// `NamedSharding(mesh, spec)`.
    pub fn named(mesh: &Mesh, spec: PartitionSpec) -> Sharding {
        Sharding::Named {
            mesh: mesh.clone(),
            spec,
        }
    }

    /// The devices, in partition order.
    pub fn devices(&self) -> &[DeviceId] {
        match self {
            Sharding::SingleDevice { device } => std::slice::from_ref(device),
            Sharding::Named { mesh, .. } => mesh.devices(),
            Sharding::Hlo { devices, .. } => devices,
        }
    }

    /// The HLO sharding of an array of `rank` dimensions over partitions `0..n`, with
    /// [`devices`](Self::devices) as the assignment (jax's `_to_xla_hlo_sharding`).
    pub fn to_hlo(&self, rank: usize) -> Result<HloSharding> {
        match self {
            Sharding::SingleDevice { .. } => Ok(HloSharding::Replicated),
            Sharding::Hlo { sharding, devices } => {
                sharding
                    .validate(rank, devices.len() as i64)
                    .map_err(|e| IfrtError::BadSharding(format!("{self}: {e}")))?;
                Ok(sharding.clone())
            }
            Sharding::Named { mesh, spec } => {
                if spec.0.len() > rank {
                    return Err(IfrtError::BadSharding(format!(
                        "{spec} has {} dimensions, the array has {rank}",
                        spec.0.len()
                    )));
                }
                let mut dims: Vec<SdyDim> = spec
                    .0
                    .iter()
                    .map(|d| SdyDim {
                        axes: match d {
                            PartitionDim::Replicated => Vec::new(),
                            PartitionDim::Axes(a) => a.clone(),
                        },
                        open: false,
                    })
                    .collect();
                dims.resize(rank, SdyDim::default());
                let sdy = SdySharding {
                    mesh: "mesh".into(),
                    dims,
                    replicated: Vec::new(),
                    unreduced: Vec::new(),
                };
                sdy.to_hlo(&mesh.sdy())
                    .map_err(|e| IfrtError::BadSharding(format!("{self}: {e}")))
            }
        }
    }

    /// Per device (in [`devices`](Self::devices) order), the box of an array of `dims` it
    /// holds. Every split must be even, as jax requires of `device_put`.
    pub fn index_domains(&self, dims: &[i64]) -> Result<Vec<(DeviceId, IndexDomain)>> {
        let hlo = self.to_hlo(dims.len())?;
        let devices = self.devices();
        let mut seen = std::collections::HashSet::new();
        if let Some(d) = devices.iter().find(|&&d| !seen.insert(d)) {
            return Err(IfrtError::BadSharding(format!(
                "{self} lists device {d} twice"
            )));
        }
        if !matches!(
            hlo,
            HloSharding::Replicated | HloSharding::Tiled(_) | HloSharding::Maximal { .. }
        ) {
            return Err(IfrtError::Unsupported(format!(
                "arrays in the {hlo} sharding"
            )));
        }
        if let HloSharding::Tiled(t) = &hlo
            && !t.last_tile_dims.is_empty()
        {
            return Err(IfrtError::Unsupported(format!(
                "arrays in the {hlo} sharding (subgroups other than replicated)"
            )));
        }
        let counts = hlo.tile_counts(dims.len());
        for (dim, (&size, &parts)) in dims.iter().zip(&counts).enumerate() {
            if parts > 1 && size % parts != 0 {
                return Err(IfrtError::UnevenSharding {
                    sharding: self.to_string(),
                    dim,
                    size,
                    parts,
                });
            }
            debug_assert_eq!(shard_size(size, parts) * parts, size);
        }
        if let HloSharding::Maximal { device } = hlo {
            // Only the named partition holds the array.
            let d = usize::try_from(device)
                .ok()
                .and_then(|p| devices.get(p))
                .ok_or_else(|| {
                    IfrtError::BadSharding(format!("{self}: partition {device} has no device"))
                })?;
            return Ok(vec![(*d, IndexDomain::full(dims))]);
        }
        let n = devices.len() as i64;
        Ok(devices
            .iter()
            .enumerate()
            .map(|(p, &d)| (d, IndexDomain(index_domain(&hlo, dims, n, p as i64))))
            .collect())
    }

    /// The shape of one shard of an array of `dims`.
    pub fn shard_dims(&self, dims: &[i64]) -> Result<Vec<i64>> {
        let domains = self.index_domains(dims)?;
        Ok(domains
            .first()
            .map(|d| d.1.dims())
            .unwrap_or_else(|| dims.to_vec()))
    }

    /// True if both put the same box on the same devices for an array of `dims` (IFRT's
    /// equivalence: the kind and spelling may differ).
    pub fn is_equivalent(&self, other: &Sharding, dims: &[i64]) -> bool {
        let sorted = |s: &Sharding| {
            s.index_domains(dims).ok().map(|mut v| {
                v.sort();
                v
            })
        };
        match (sorted(self), sorted(other)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}

/// Prints as jax and IFRT do: `NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x', 'y'))`,
/// `SingleDeviceSharding(device=3)`, `HloSharding({devices=[4,2]<=[8]}, devices=[0,...])`.
impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sharding::SingleDevice { device } => write!(f, "SingleDeviceSharding(device={device})"),
            Sharding::Named { mesh, spec } => {
                write!(f, "NamedSharding(mesh={mesh}, spec={spec}")?;
                if mesh.devices.iter().enumerate().any(|(i, &d)| i != d) {
                    write!(f, ", devices={:?}", mesh.devices)?;
                }
                f.write_str(")")
            }
            Sharding::Hlo { devices, sharding } => {
                write!(f, "HloSharding({sharding}, devices={devices:?})")
            }
        }
    }
}
