//! Executables that take and return arrays (IFRT's `LoadedExecutable`,
//! `xla/python/ifrt/executable.h`; jax's compiled `jit`). A global SPMD program is
//! partitioned and compiled once for its devices ([`crate::compiler::load_on_devices`]:
//! the collectives runtime of `xlac run --partitions`, no second one); every
//! [`LoadedExecutable::execute`] then runs the per-device programs on the arguments'
//! shards where they lie and returns the results as new arrays whose shards stay on the
//! devices. Nothing crosses to the host unless the caller asks (`copy_to_host`).

use std::sync::{Arc, Mutex};

use super::array::Shard;
use super::{Array, Client, DeviceId, IfrtError, Result, Sharding};
use crate::compiler::{DeviceBackend, DeviceRunOptions, LoadedDevices, load_on_devices};
use crate::ir::sharding::HloSharding;
use crate::ir::{Literal, Module, PrimitiveType, Shape};
use crate::runtime::collectives::DeviceGrid;
use crate::spmd::run::{global_dims, parameter_shardings, result_shardings};
use crate::spmd::{SpmdOptions, devices_in_shardings, is_partitioned, needs_partitioning};

/// A parameter or result: global type and sharding.
#[derive(Clone, Debug, PartialEq)]
pub struct ArraySpec {
    /// Element type.
    pub dtype: PrimitiveType,
    /// Global dimensions.
    pub dims: Vec<i64>,
    /// Where its shards go.
    pub sharding: Sharding,
}

impl ArraySpec {
    fn shape_text(&self) -> String {
        super::shape_text(self.dtype, &self.dims)
    }
}

/// A program compiled for a set of devices.
pub struct LoadedExecutable {
    client: Client,
    name: String,
    devices: Vec<DeviceId>,
    parameters: Vec<ArraySpec>,
    results: Vec<ArraySpec>,
    loaded: Mutex<LoadedDevices>,
}

/// The array leaves of `shape` with their shardings.
fn specs(
    shape: &[&Shape],
    shardings: &[HloSharding],
    devices: &[DeviceId],
    partitioned: bool,
    what: &str,
) -> Result<Vec<ArraySpec>> {
    shape
        .iter()
        .zip(shardings)
        .enumerate()
        .map(|(i, (s, h))| {
            let Shape::Array(a) = s else {
                return Err(IfrtError::Unsupported(format!("{what} {i} is a tuple")));
            };
            let dims = if partitioned {
                global_dims(&a.dims, h)
            } else {
                a.dims.clone()
            };
            Ok(ArraySpec {
                dtype: a.element_type,
                dims,
                sharding: Sharding::Hlo {
                    devices: devices.to_vec(),
                    sharding: h.clone(),
                },
            })
        })
        .collect()
}

/// What a global program needs before it is compiled: its devices, the global types and
/// shardings of its parameters and results, and how to compile it for them. The in-process
/// [`LoadedExecutable`] and the single controller (`crate::distributed::controller`) both
/// start from one.
#[derive(Clone, Debug)]
pub struct ProgramPlan {
    /// The devices, partition `p` on `devices[p]`.
    pub devices: Vec<DeviceId>,
    /// The parameters.
    pub parameters: Vec<ArraySpec>,
    /// The result leaves, depth-first.
    pub results: Vec<ArraySpec>,
    /// The grid the per-device programs run on.
    pub grid: DeviceGrid,
    /// How each device's program is compiled.
    pub options: DeviceRunOptions,
}

impl ProgramPlan {
    /// The plan of `module` on `devices` (`None`: as many as the module declares or its
    /// shardings name, on devices `0..n`).
    pub fn new(module: &Module, devices: Option<&[DeviceId]>) -> Result<ProgramPlan> {
        let declared = module
            .config
            .num_partitions
            .filter(|&n| n > 0)
            .map(|n| n as usize);
        let partitions = match devices {
            Some(d) => d.len(),
            None => declared
                .or_else(|| devices_in_shardings(module))
                .unwrap_or(1),
        };
        // A module's counts are the sender's word: checked before anything is sized by them.
        let replicas = module.config.replica_count.filter(|&r| r > 0).unwrap_or(1);
        crate::runtime::collectives::checked_device_count(replicas as u64, partitions as u64)
            .map_err(IfrtError::Grid)?;
        if let Some(m) = declared
            && m != partitions
        {
            return Err(IfrtError::DeviceMismatch(format!(
                "the module has num_partitions={m}, {partitions} devices were given"
            )));
        }
        let devices: Vec<DeviceId> = match devices {
            Some(d) => d.to_vec(),
            None => (0..partitions).collect(),
        };
        Sharding::Hlo {
            devices: devices.clone(),
            sharding: HloSharding::Replicated,
        }
        .index_domains(&[])?; // devices distinct
        let spmd = SpmdOptions {
            num_partitions: partitions,
            num_replicas: 1,
        };
        let partitioned = is_partitioned(module);
        // The entry's shardings come from the partitioned module, before the CPU pipeline
        // rewrites its root (as `xlac run --partitions` reads them).
        let reference = if needs_partitioning(module) && !partitioned {
            crate::spmd::partition(module.clone(), spmd).map_err(IfrtError::Compile)?
        } else {
            module.clone()
        };
        let param_shapes: Vec<Shape> = reference.entry_computation().parameter_shapes();
        let param_refs: Vec<&Shape> = param_shapes.iter().collect();
        // Global parameter and result types: the unpartitioned module's.
        let global_params: Vec<Shape> = module.entry_computation().parameter_shapes();
        let global_param_refs: Vec<&Shape> = global_params.iter().collect();
        let parameters = specs(
            if partitioned {
                &param_refs
            } else {
                &global_param_refs
            },
            &parameter_shardings(&reference),
            &devices,
            partitioned,
            "parameter",
        )?;
        let result_shape = module.result_shape().clone();
        let leaves: Vec<Shape> = result_shape
            .leaves()
            .into_iter()
            .map(|a| Shape::Array(a.clone()))
            .collect();
        let leaf_refs: Vec<&Shape> = leaves.iter().collect();
        let results = specs(
            &leaf_refs,
            &result_shardings(&reference),
            &devices,
            partitioned,
            "result",
        )?;
        let options = DeviceRunOptions {
            backend: DeviceBackend::Compiled,
            compile: crate::compiler::CompileOptions {
                spmd: (needs_partitioning(module) && !partitioned).then_some(spmd),
                ..Default::default()
            },
            ..Default::default()
        };
        let grid = DeviceGrid {
            replicas: 1,
            partitions: partitions as u32,
            device_assignment: Some(devices.iter().map(|&d| d as u32).collect()),
        };
        Ok(ProgramPlan {
            devices,
            parameters,
            results,
            grid,
            options,
        })
    }
}

impl LoadedExecutable {
    pub(crate) fn compile(
        client: &Client,
        module: Module,
        devices: Option<&[DeviceId]>,
    ) -> Result<LoadedExecutable> {
        let plan = ProgramPlan::new(&module, devices)?;
        client.check_devices(&Sharding::Hlo {
            devices: plan.devices.clone(),
            sharding: HloSharding::Replicated,
        })?;
        let name = module.name.clone();
        let loaded = load_on_devices(&[module], &plan.grid, &plan.options)
            .map_err(|e| IfrtError::Compile(e.to_string()))?;
        Ok(LoadedExecutable {
            client: client.clone(),
            name,
            devices: plan.devices,
            parameters: plan.parameters,
            results: plan.results,
            loaded: Mutex::new(loaded),
        })
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The devices, partition `p` on `devices()[p]`.
    pub fn devices(&self) -> &[DeviceId] {
        &self.devices
    }

    /// The parameters: global types and the shardings the arguments must have.
    pub fn parameters(&self) -> &[ArraySpec] {
        &self.parameters
    }

    /// The results (tuple leaves, depth-first): global types and shardings.
    pub fn results(&self) -> &[ArraySpec] {
        &self.results
    }

    /// Runs on `args` (one array per parameter, each in an equivalent sharding) and
    /// returns one array per result leaf, its shards on the devices.
    pub fn execute(&self, args: &[Array]) -> Result<Vec<Array>> {
        if args.len() != self.parameters.len() {
            return Err(IfrtError::ArgumentCount {
                expected: self.parameters.len(),
                given: args.len(),
            });
        }
        // Per partition, its shard of every argument.
        let mut per_device: Vec<Vec<Arc<Literal>>> = vec![Vec::new(); self.devices.len()];
        for (i, (a, p)) in args.iter().zip(&self.parameters).enumerate() {
            let what = format!("argument {i}");
            if !Arc::ptr_eq(&a.client().state, &self.client.state) {
                return Err(IfrtError::DeviceMismatch(format!(
                    "{what} belongs to another client"
                )));
            }
            let values = a.shard_values(&what)?;
            if a.dtype() != p.dtype || a.dims() != p.dims.as_slice() {
                return Err(IfrtError::ShapeMismatch {
                    what,
                    expected: p.shape_text(),
                    given: a.shape_text(),
                });
            }
            if !a.sharding().is_equivalent(&p.sharding, &p.dims) {
                return Err(IfrtError::ShardingMismatch {
                    parameter: i,
                    expected: p.sharding.to_string(),
                    given: a.sharding().to_string(),
                });
            }
            for (slot, d) in per_device.iter_mut().zip(&self.devices) {
                let (_, v) = values.iter().find(|(s, _)| s.device == *d).ok_or_else(|| {
                    IfrtError::DeviceMismatch(format!("{what} has no shard on device {d}"))
                })?;
                slot.push(v.clone());
            }
        }
        let run = {
            let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            loaded
                .execute(&per_device)
                .map_err(|e| IfrtError::Execute(e.to_string()))?
        };
        self.wrap_results(run.results)
    }

    /// Each result leaf of every device becomes that device's shard of a result array.
    fn wrap_results(&self, per_device: Vec<Literal>) -> Result<Vec<Array>> {
        let mut shards: Vec<Vec<Shard>> = vec![Vec::new(); self.results.len()];
        let domains: Vec<Vec<(DeviceId, super::IndexDomain)>> = self
            .results
            .iter()
            .map(|r| r.sharding.index_domains(&r.dims))
            .collect::<Result<_>>()?;
        for (p, value) in per_device.iter().enumerate() {
            let leaves = value.leaves();
            if leaves.len() != self.results.len() {
                return Err(IfrtError::Execute(format!(
                    "device {} returned {} arrays, the executable has {} results",
                    self.devices[p],
                    leaves.len(),
                    self.results.len()
                )));
            }
            for (i, leaf) in leaves.into_iter().enumerate() {
                // A maximal result lives on one device; the others' copies are dropped.
                let Some((device, domain)) =
                    domains[i].iter().find(|d| d.0 == self.devices[p]).cloned()
                else {
                    continue;
                };
                let leaf = leaf.to_row_major();
                if leaf.shape.dims != domain.dims() {
                    return Err(IfrtError::ShapeMismatch {
                        what: format!("result {i} on device {device}"),
                        expected: super::shape_text(self.results[i].dtype, &domain.dims()),
                        given: super::shape_text(leaf.shape.element_type, &leaf.shape.dims),
                    });
                }
                let buffer = self.client.put(device, Arc::new(Literal::Array(leaf)))?;
                shards[i].push(Shard {
                    device,
                    domain,
                    buffer,
                });
            }
        }
        Ok(self
            .results
            .iter()
            .zip(shards)
            .map(|(spec, s)| {
                Array::from_shards(
                    &self.client,
                    spec.dtype,
                    spec.dims.clone(),
                    spec.sharding.clone(),
                    s,
                )
            })
            .collect())
    }
}

impl std::fmt::Display for LoadedExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "LoadedExecutable {} on devices {:?}",
            self.name, self.devices
        )?;
        for (i, p) in self.parameters.iter().enumerate() {
            writeln!(f, "  parameter {i}: {} {}", p.shape_text(), p.sharding)?;
        }
        for (i, r) in self.results.iter().enumerate() {
            writeln!(f, "  result {i}: {} {}", r.shape_text(), r.sharding)?;
        }
        Ok(())
    }
}
