//! Every collective each device ran: when it arrived, when the data moved, how many bytes.
//! Written by the dump as `collectives.trace.json` (Chrome trace event format: one lane per
//! device, a `wait` span from arrival to the moment the group was complete, then the
//! transfer span) and `collectives.txt` (a table per device).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::op::format_group;
use super::{DeviceGrid, DeviceId};

/// One collective on one device.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The device.
    pub device: DeviceId,
    /// `all-reduce %psum.5`.
    pub op: String,
    /// Its group.
    pub group: Vec<DeviceId>,
    /// How many collectives the device ran with this group before.
    pub sequence: u64,
    /// Bytes of the device's operands.
    pub bytes_in: u64,
    /// Bytes of its results.
    pub bytes_out: u64,
    /// Microseconds since the run began: arrival at the rendezvous.
    pub arrive_us: f64,
    /// The group was complete; the transfer began.
    pub start_us: f64,
    /// The results were written.
    pub end_us: f64,
}

/// The collectives of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The grid.
    pub grid: Option<DeviceGrid>,
    /// `deterministic` or `threaded`.
    pub mode: String,
    /// In completion order.
    pub events: Vec<Event>,
}

impl Trace {
    /// The Chrome trace (`chrome://tracing`, Perfetto): process 0 is the grid, thread d is
    /// device d.
    pub fn chrome_json(&self) -> String {
        let devices = self.grid.as_ref().map_or(0, DeviceGrid::count);
        let mut events: Vec<Value> = vec![json!({
            "name": "process_name", "ph": "M", "pid": 0,
            "args": {"name": format!("xlac devices ({})", self.mode)}
        })];
        for d in 0..devices {
            let (r, p) = self
                .grid
                .as_ref()
                .map_or((0, 0), |g| (g.replica(d), g.partition(d)));
            events.push(json!({
                "name": "thread_name", "ph": "M", "pid": 0, "tid": d,
                "args": {"name": format!("device {d} (replica {r}, partition {p})")}
            }));
            events.push(json!({
                "name": "thread_sort_index", "ph": "M", "pid": 0, "tid": d,
                "args": {"sort_index": d}
            }));
        }
        for e in &self.events {
            let args = json!({
                "group": format_group(&e.group),
                "sequence": e.sequence,
                "bytes_in": e.bytes_in,
                "bytes_out": e.bytes_out,
            });
            events.push(json!({
                "name": format!("wait {}", e.op), "cat": "wait", "ph": "X", "pid": 0,
                "tid": e.device, "ts": e.arrive_us, "dur": (e.start_us - e.arrive_us).max(0.0),
                "args": args.clone()
            }));
            events.push(json!({
                "name": e.op, "cat": "transfer", "ph": "X", "pid": 0, "tid": e.device,
                "ts": e.start_us, "dur": (e.end_us - e.start_us).max(0.0), "args": args
            }));
        }
        let doc = json!({"traceEvents": events, "displayTimeUnit": "ms"});
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    }

    /// The text table: per device, every collective with its group, bytes and wait time.
    pub fn table(&self) -> String {
        let devices = self.grid.as_ref().map_or(0, DeviceGrid::count);
        self.table_of(0..devices)
    }

    /// The table of some devices only (an MPI rank knows its own device's collectives).
    pub fn table_of(&self, which: impl IntoIterator<Item = DeviceId>) -> String {
        let mut out = String::new();
        let devices = self.grid.as_ref().map_or(0, DeviceGrid::count);
        let _ = writeln!(
            out,
            "collectives on {devices} device{} ({} scheduler); times in microseconds since the run began",
            if devices == 1 { "" } else { "s" },
            self.mode
        );
        for d in which {
            let (r, p) = self
                .grid
                .as_ref()
                .map_or((0, 0), |g| (g.replica(d), g.partition(d)));
            let _ = writeln!(out, "\ndevice {d} (replica {r}, partition {p})");
            let _ = writeln!(
                out,
                "  {:<40} {:>4} {:<20} {:>12} {:>12} {:>10} {:>10}",
                "op", "seq", "group", "bytes in", "bytes out", "wait", "transfer"
            );
            for e in self.events.iter().filter(|e| e.device == d) {
                let _ = writeln!(
                    out,
                    "  {:<40} {:>4} {:<20} {:>12} {:>12} {:>10.1} {:>10.1}",
                    e.op,
                    e.sequence,
                    format_group(&e.group),
                    e.bytes_in,
                    e.bytes_out,
                    (e.start_us - e.arrive_us).max(0.0),
                    (e.end_us - e.start_us).max(0.0)
                );
            }
        }
        out
    }
}
