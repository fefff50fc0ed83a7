//! `xlac check-collectives MODEL --partitions N [--replicas R]`: lists, per device, the
//! collectives the module would issue (walking conditionals on partition-id per device) and
//! flags sequences that can diverge, before running anything. The engine is
//! [`crate::check::collective_order`]. Exit 0 when no group can diverge
//! ("may diverge" findings, which depend on data, are printed but pass), 1 otherwise.

use std::io::Write;

use super::{CheckCollectivesArgs, Failure, model};
use crate::check::collective_order::{Severity, check_collectives};
use crate::runtime::collectives::DeviceGrid;

/// The most devices a check walks (each device is walked separately).
const MAX_DEVICES: u64 = 4096;

/// Runs `xlac check-collectives`.
pub fn check_collectives_command(args: &CheckCollectivesArgs) -> Result<(), Failure> {
    let loaded = model::load(&args.model, true)?;
    let (r, p) = (args.replicas.unwrap_or(1), args.partitions);
    if r == 0 || p == 0 || u64::from(r) * u64::from(p) > MAX_DEVICES {
        return Err(Failure::error(format!(
            "--replicas {r} --partitions {p}: the grid must have 1 to {MAX_DEVICES} devices"
        )));
    }
    let grid = DeviceGrid::new(r, p);
    let report = check_collectives(&loaded.module, &grid);
    let _ = write!(std::io::stdout().lock(), "{}", report.text());
    match report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Diverges)
    {
        Some(f) => Err(Failure::error(format!(
            "{}: collectives can diverge: {}",
            loaded.file, f.message
        ))),
        None => Ok(()),
    }
}
