//! What a run of a thunk sequence carries besides the thunks: the addresses, the
//! reference interpreter, the device it is and the `rng` counters.

use crate::eval::Evaluator;

use super::memory::Memory;

/// What a run needs besides the thunks.
pub struct Context<'m> {
    /// Addresses.
    pub memory: Memory,
    /// The reference implementation, for library thunks that use it (and its rng state).
    pub evaluator: Evaluator<'m>,
    /// The device this run is, and the runtime its collectives go to.
    pub device: DeviceBinding,
    /// The counters of the run's `rng` instructions.
    pub rng: super::library::rng::RngCounters,
}

/// Which device of which grid a run is.
#[derive(Clone)]
pub struct DeviceBinding {
    /// The runtime.
    pub collectives: std::sync::Arc<dyn crate::runtime::collectives::Collectives>,
    /// This device.
    pub device: crate::runtime::collectives::DeviceId,
}
