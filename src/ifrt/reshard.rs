//! Resharding: the same global value from one sharding to another (IFRT's `Reshard`,
//! jax's `device_put(x, new_sharding)`). The plan comes from the two shardings' index
//! maps alone: every destination shard is the concatenation of its overlaps with the
//! distinct source boxes, each overlap a slice of one source shard, copied locally when
//! the destination device holds that box itself and transferred from the first device
//! holding it otherwise. [`ReshardPlan`] is the typed list of those steps; its `Display`
//! is the picture of a reshard a learner reads.

use std::fmt;
use std::sync::Arc;

use super::array::{Shard, literal_array};
use super::copy::copy_box;
use super::{Array, DeviceId, IfrtError, IndexDomain, Result, Sharding};
use crate::ir::{ArrayShape, Literal, PrimitiveType};

/// Whether a step stays on one device.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Source and destination shard are on the same device.
    LocalCopy,
    /// The slice moves from one device to another.
    Transfer,
}

/// One step: a slice of a source shard into a region of a destination shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReshardStep {
    /// Local copy or transfer.
    pub kind: StepKind,
    /// The box of the global array that moves.
    pub global: IndexDomain,
    /// The device holding the source shard.
    pub src_device: DeviceId,
    /// The slice of the source shard (its own coordinates).
    pub src_slice: IndexDomain,
    /// The device of the destination shard.
    pub dst_device: DeviceId,
    /// Where the slice goes in the destination shard (its own coordinates).
    pub dst_region: IndexDomain,
}

/// Every step that turns an array in one sharding into the same array in another.
#[derive(Clone, Debug, PartialEq)]
pub struct ReshardPlan {
    dtype: PrimitiveType,
    dims: Vec<i64>,
    from: Sharding,
    to: Sharding,
    /// Each destination shard: its device and box, in the destination's device order.
    pub destinations: Vec<(DeviceId, IndexDomain)>,
    /// The steps, grouped by destination in that order.
    pub steps: Vec<ReshardStep>,
}

impl ReshardPlan {
    /// The plan that moves `array` into `to`.
    pub fn new(array: &Array, to: &Sharding) -> Result<ReshardPlan> {
        array.client().check_devices(to)?;
        let sources = array.shards("the array to reshard")?;
        ReshardPlan::between(array.dtype(), array.dims(), array.sharding(), &sources, to)
    }

    /// The plan for an array of `dims` whose shards are `sources` (the source sharding's
    /// index map) into `to`.
    fn between(
        dtype: PrimitiveType,
        dims: &[i64],
        from: &Sharding,
        sources: &[Shard],
        to: &Sharding,
    ) -> Result<ReshardPlan> {
        let destinations = to.index_domains(dims)?;
        // The distinct source boxes, each with its holders in device order.
        let mut boxes: Vec<(IndexDomain, Vec<DeviceId>)> = Vec::new();
        for s in sources {
            match boxes.iter_mut().find(|b| b.0 == s.domain) {
                Some(b) => b.1.push(s.device),
                None => boxes.push((s.domain.clone(), vec![s.device])),
            }
        }
        let mut steps = Vec::new();
        for (dst_device, dst_box) in &destinations {
            for (src_box, holders) in &boxes {
                let Some(global) = src_box.intersect(dst_box) else {
                    continue;
                };
                let (kind, src_device) = if holders.contains(dst_device) {
                    (StepKind::LocalCopy, *dst_device)
                } else {
                    (StepKind::Transfer, holders[0])
                };
                steps.push(ReshardStep {
                    kind,
                    src_slice: global.relative_to(src_box),
                    dst_region: global.relative_to(dst_box),
                    global,
                    src_device,
                    dst_device: *dst_device,
                });
            }
        }
        Ok(ReshardPlan {
            dtype,
            dims: dims.to_vec(),
            from: from.clone(),
            to: to.clone(),
            destinations,
            steps,
        })
    }

    /// Bytes that cross between devices.
    pub fn transfer_bytes(&self) -> u64 {
        self.steps
            .iter()
            .filter(|s| s.kind == StepKind::Transfer)
            .map(|s| s.global.element_count() as u64 * self.dtype.byte_size() as u64)
            .sum()
    }

    /// Runs the plan on `array` (whose sharding it was made from).
    pub fn execute(&self, array: &Array) -> Result<Array> {
        let client = array.client();
        let sources = array.shard_values("the array to reshard")?;
        let source_of = |device: DeviceId, global: &IndexDomain| {
            sources.iter().find(|(s, _)| {
                s.device == device && s.domain.intersect(global).as_ref() == Some(global)
            })
        };
        let mut shards = Vec::with_capacity(self.destinations.len());
        for (device, domain) in &self.destinations {
            let dims = domain.dims();
            let mut out = crate::ir::ArrayLiteral::zeros(ArrayShape::new(self.dtype, &dims));
            for step in self.steps.iter().filter(|s| s.dst_device == *device) {
                let (_, value) = source_of(step.src_device, &step.global).ok_or_else(|| {
                    IfrtError::DeviceMismatch(format!(
                        "the plan reads {} from device {}, which does not hold it",
                        step.global, step.src_device
                    ))
                })?;
                let src = literal_array(value)?;
                if !copy_box(&mut out, &step.dst_region, src, &step.src_slice) {
                    return Err(IfrtError::DeviceMismatch(format!(
                        "the shard of {} on device {} is not a {} array",
                        step.global, step.src_device, self.dtype
                    )));
                }
            }
            shards.push(Shard {
                device: *device,
                domain: domain.clone(),
                buffer: client.put(*device, Arc::new(Literal::Array(out)))?,
            });
        }
        client.count(|t| t.device_to_device_bytes += self.transfer_bytes());
        Ok(Array::from_shards(
            client,
            self.dtype,
            self.dims.clone(),
            self.to.clone(),
            shards,
        ))
    }
}

/// The reshard plan as text: one line per destination shard, then its steps.
impl fmt::Display for ReshardPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = super::shape_text(self.dtype, &self.dims);
        let transfers = self
            .steps
            .iter()
            .filter(|s| s.kind == StepKind::Transfer)
            .count();
        writeln!(f, "reshard {shape}")?;
        writeln!(f, "  from {}", self.from)?;
        writeln!(f, "  to   {}", self.to)?;
        writeln!(
            f,
            "  {} steps: {} local copies, {transfers} transfers ({} bytes between devices)",
            self.steps.len(),
            self.steps.len() - transfers,
            self.transfer_bytes()
        )?;
        for (device, domain) in &self.destinations {
            let mine: Vec<&ReshardStep> = self
                .steps
                .iter()
                .filter(|s| s.dst_device == *device)
                .collect();
            let how = if mine.len() == 1 {
                "one slice".to_string()
            } else {
                format!("concat of {} slices", mine.len())
            };
            writeln!(
                f,
                "  device {device}: x{domain} ({}) = {how}",
                super::shape_text(self.dtype, &domain.dims())
            )?;
            for s in mine {
                let kind = match s.kind {
                    StepKind::LocalCopy => "copy    ",
                    StepKind::Transfer => "transfer",
                };
                writeln!(
                    f,
                    "    {kind} x{}: device {} shard{} -> device {} shard{}",
                    s.global, s.src_device, s.src_slice, s.dst_device, s.dst_region
                )?;
            }
        }
        Ok(())
    }
}
