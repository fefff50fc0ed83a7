//! Buffers that live on devices between runs: what a PJRT client's device buffers are,
//! for the simulated devices of one process. Each buffer is an immutable array on one
//! device, named by a [`BufferId`]; a run borrows them as its arguments
//! ([`crate::compiler::LoadedDevices::execute`]) and its results become new buffers.
//! Several handles may share one buffer's storage (`ifrt`'s disassembled arrays share the
//! assembled one's), so storage is reference-counted and freed when the last handle goes.
//! XLA: `xla/pjrt/cpu/cpu_client.h` (`TfrtCpuBuffer`), `xla/pjrt/pjrt_client.h`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::ir::Literal;

/// A buffer's handle in a [`DeviceMemory`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(u64);

impl std::fmt::Display for BufferId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "buffer{}", self.0)
    }
}

#[derive(Default)]
struct State {
    next: u64,
    buffers: HashMap<BufferId, (usize, Arc<Literal>)>,
}

/// Every device's buffers.
pub struct DeviceMemory {
    devices: usize,
    state: Mutex<State>,
}

impl DeviceMemory {
    /// Memory for `devices` devices, empty.
    pub fn new(devices: usize) -> DeviceMemory {
        DeviceMemory {
            devices,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere cannot leave the map half-updated: every update is one insert
        // or remove.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Places `value` on `device`; `None` if there is no such device.
    pub fn insert(&self, device: usize, value: Arc<Literal>) -> Option<BufferId> {
        if device >= self.devices {
            return None;
        }
        let mut s = self.state();
        let id = BufferId(s.next);
        s.next += 1;
        s.buffers.insert(id, (device, value));
        Some(id)
    }

    /// The device and storage of buffer `id`, if it is live.
    pub fn get(&self, id: BufferId) -> Option<(usize, Arc<Literal>)> {
        self.state().buffers.get(&id).cloned()
    }

    /// Frees handle `id`; false if it was not live.
    pub fn remove(&self, id: BufferId) -> bool {
        self.state().buffers.remove(&id).is_some()
    }

    /// Live handles on `device`.
    pub fn buffers_on(&self, device: usize) -> usize {
        self.state()
            .buffers
            .values()
            .filter(|(d, _)| *d == device)
            .count()
    }

    /// Live handles on every device.
    pub fn live_buffers(&self) -> usize {
        self.state().buffers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ArrayLiteral;

    #[test]
    fn buffers_are_placed_shared_and_freed() {
        let m = DeviceMemory::new(2);
        let v = Arc::new(Literal::Array(ArrayLiteral::from_vec(
            &[2],
            vec![1f32, 2.0],
        )));
        let a = m.insert(1, v.clone()).unwrap();
        let b = m.insert(1, v.clone()).unwrap();
        assert!(m.insert(2, v).is_none());
        assert_ne!(a, b);
        assert_eq!(m.buffers_on(1), 2);
        assert!(m.remove(a));
        assert!(!m.remove(a));
        assert_eq!(m.get(b).unwrap().0, 1);
        assert_eq!(m.live_buffers(), 1);
    }
}
