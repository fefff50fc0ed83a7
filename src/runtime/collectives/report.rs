//! What a stopped run says: per device, the collective it waits in (op, group, channel,
//! sequence number, who has not arrived), or that it returned, and the last collective it
//! completed. XLA:CPU only learns of a stall from a rendezvous timeout ("only 4 of them
//! arrived"); every device of an in-process grid is visible, so the report names them all.

use std::fmt;

use super::DeviceId;
use super::op::format_group;

/// Why the run stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Cause {
    /// No device can run and no group is complete.
    Deadlock,
    /// A device waited longer than the threaded scheduler's deadline.
    Deadline {
        /// The device that gave up first.
        device: DeviceId,
        /// The deadline, in seconds.
        seconds: f64,
    },
}

/// The collective a device waits in.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// `all-reduce %psum.5`.
    pub op: String,
    /// Its group.
    pub group: Vec<DeviceId>,
    /// Its channel id.
    pub channel: Option<i64>,
    /// How many collectives this device ran with this group before.
    pub sequence: u64,
    /// Members of the group not at this rendezvous.
    pub missing: Vec<DeviceId>,
}

/// Where one device is.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceState {
    /// Waiting in a collective.
    Waiting(Waiting),
    /// Its program returned.
    Returned,
    /// Its program failed.
    Failed(String),
    /// Running (threaded mode: it has not reached a collective).
    Running,
}

/// One device's line.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceLine {
    /// The device.
    pub device: DeviceId,
    /// Its replica and partition.
    pub replica: u32,
    /// See `replica`.
    pub partition: u32,
    /// Where it is.
    pub state: DeviceState,
    /// Collectives it completed.
    pub completed: u64,
    /// The last of them (`all-gather %all_gather.1 #0`).
    pub last_completed: Option<String>,
}

/// The report of a stopped run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Why.
    pub cause: Cause,
    /// Every device, in order.
    pub devices: Vec<DeviceLine>,
}

impl Report {
    /// The first line.
    pub fn headline(&self) -> String {
        let waiting = self
            .devices
            .iter()
            .filter(|d| matches!(d.state, DeviceState::Waiting(_)))
            .count();
        let returned = self
            .devices
            .iter()
            .filter(|d| d.state == DeviceState::Returned)
            .count();
        match &self.cause {
            Cause::Deadlock => {
                let mut ops: Vec<&str> = self
                    .devices
                    .iter()
                    .filter_map(|d| match &d.state {
                        DeviceState::Waiting(w) => Some(w.op.as_str()),
                        _ => None,
                    })
                    .collect();
                ops.sort();
                ops.dedup();
                format!(
                    "collectives deadlock: {waiting} device{} wait{} ({}){}, and no group can complete",
                    if waiting == 1 { "" } else { "s" },
                    if waiting == 1 { "s" } else { "" },
                    ops.join(" vs "),
                    if returned > 0 {
                        format!(", {returned} returned")
                    } else {
                        String::new()
                    }
                )
            }
            Cause::Deadline { device, seconds } => format!(
                "collectives stalled: device {device} waited more than {seconds} s; {waiting} device{} wait{}",
                if waiting == 1 { "" } else { "s" },
                if waiting == 1 { "s" } else { "" },
            ),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())?;
        for d in &self.devices {
            write!(
                f,
                "\n  device {} (replica {}, partition {}): ",
                d.device, d.replica, d.partition
            )?;
            match &d.state {
                DeviceState::Waiting(w) => {
                    write!(f, "waits in {} #{}", w.op, w.sequence)?;
                    if let Some(c) = w.channel {
                        write!(f, " (channel {c}, group {}", format_group(&w.group))?;
                    } else {
                        write!(f, " (group {}", format_group(&w.group))?;
                    }
                    if !w.missing.is_empty() {
                        write!(f, "; not there: {}", format_group(&w.missing))?;
                    }
                    f.write_str(")")?;
                }
                DeviceState::Returned => write!(f, "returned")?,
                DeviceState::Failed(m) => write!(f, "failed: {m}")?,
                DeviceState::Running => write!(f, "running")?,
            }
            match &d.last_completed {
                Some(l) => write!(f, "; {} completed, last {l}", d.completed)?,
                None => write!(f, "; none completed")?,
            }
        }
        Ok(())
    }
}
