//! The host buffer store: bytes by (session, handle), which the client uploads
//! (`HostBufferStore`) before a make-array request names them, and downloads
//! (`HostBufferLookup`) after a copy-to-host request put them there. The two travel on
//! different calls, so a request may name a buffer that has not arrived yet: readers wait
//! for it, up to a deadline. The store holds at most a set number of bytes.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::convert::ProxyError;

/// Buffers by session and handle.
pub struct HostBufferStore {
    state: Mutex<State>,
    arrived: Condvar,
    max_bytes: u64,
}

#[derive(Default)]
struct State {
    buffers: HashMap<(u64, u64), Arc<Vec<u8>>>,
    bytes: u64,
}

impl HostBufferStore {
    /// An empty store holding at most `max_bytes` bytes at once.
    pub fn new(max_bytes: u64) -> HostBufferStore {
        HostBufferStore {
            state: Mutex::new(State::default()),
            arrived: Condvar::new(),
            max_bytes,
        }
    }

    /// The most bytes the store holds.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves only whole entries behind.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores `bytes` under `handle`; refused if the handle is taken or the store is full.
    pub fn put(&self, session: u64, handle: u64, bytes: Vec<u8>) -> Result<(), ProxyError> {
        let mut s = self.lock();
        let n = bytes.len() as u64;
        if s.buffers.contains_key(&(session, handle)) {
            return Err(ProxyError::invalid(format!(
                "host buffer {handle} exists already"
            )));
        }
        if s.bytes.saturating_add(n) > self.max_bytes {
            return Err(ProxyError::exhausted(format!(
                "host buffer {handle} of {n} bytes: the store holds {} of at most {} bytes",
                s.bytes, self.max_bytes
            )));
        }
        s.bytes += n;
        s.buffers.insert((session, handle), Arc::new(bytes));
        drop(s);
        self.arrived.notify_all();
        Ok(())
    }

    /// Reserves room for `n` bytes before they are received (released by `release`).
    pub fn reserve(&self, n: u64) -> Result<(), ProxyError> {
        let mut s = self.lock();
        if s.bytes.saturating_add(n) > self.max_bytes {
            return Err(ProxyError::exhausted(format!(
                "a host buffer of {n} bytes: the store holds {} of at most {} bytes",
                s.bytes, self.max_bytes
            )));
        }
        s.bytes += n;
        Ok(())
    }

    /// Gives back room taken by [`reserve`](Self::reserve).
    pub fn release(&self, n: u64) {
        let mut s = self.lock();
        s.bytes = s.bytes.saturating_sub(n);
    }

    fn wait(
        &self,
        session: u64,
        handle: u64,
        wait: Duration,
        remove: bool,
    ) -> Result<Arc<Vec<u8>>, ProxyError> {
        let deadline = Instant::now() + wait;
        let mut s = self.lock();
        loop {
            if remove {
                if let Some(b) = s.buffers.remove(&(session, handle)) {
                    s.bytes = s.bytes.saturating_sub(b.len() as u64);
                    return Ok(b);
                }
            } else if let Some(b) = s.buffers.get(&(session, handle)) {
                return Ok(b.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(ProxyError::not_found(format!(
                    "host buffer {handle} did not arrive in {} s",
                    wait.as_secs()
                )));
            }
            s = self
                .arrived
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Takes the buffer under `handle` out of the store, waiting up to `wait` for it.
    pub fn take(
        &self,
        session: u64,
        handle: u64,
        wait: Duration,
    ) -> Result<Arc<Vec<u8>>, ProxyError> {
        self.wait(session, handle, wait, true)
    }

    /// The buffer under `handle`, left in the store, waiting up to `wait` for it.
    pub fn lookup(
        &self,
        session: u64,
        handle: u64,
        wait: Duration,
    ) -> Result<Arc<Vec<u8>>, ProxyError> {
        self.wait(session, handle, wait, false)
    }

    /// Removes the buffer under `handle`; false if there was none.
    pub fn delete(&self, session: u64, handle: u64) -> bool {
        let mut s = self.lock();
        match s.buffers.remove(&(session, handle)) {
            Some(b) => {
                s.bytes = s.bytes.saturating_sub(b.len() as u64);
                true
            }
            None => false,
        }
    }

    /// Drops every buffer of `session` (when it ends).
    pub fn drop_session(&self, session: u64) {
        let mut s = self.lock();
        let mut freed = 0;
        s.buffers.retain(|&(sid, _), b| {
            if sid == session {
                freed += b.len() as u64;
            }
            sid != session
        });
        s.bytes = s.bytes.saturating_sub(freed);
    }

    /// How many buffers the store holds.
    pub fn len(&self) -> usize {
        self.lock().buffers.len()
    }

    /// True if the store holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
