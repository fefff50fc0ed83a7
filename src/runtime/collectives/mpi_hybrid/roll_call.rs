//! Waiting under a deadline, and what happens past it: the roll call on the world
//! communicator that names the processes that are gone, or, when every process answers,
//! the stall report and `MPI_Abort` (see "A process that dies" in the module doc of
//! `mpi_hybrid.rs`).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mpi::topology::Communicator;
use mpi::traits::*;

use super::{JOB_LOST, MpiHybrid, job_lost, mpi_calls, processes_of};
use crate::runtime::collectives::op::format_group;
use crate::runtime::collectives::{CollectiveError, DeviceId, ProcessesGone};

/// The roll call's tag on the world communicator; nothing else sends on the world.
const ROLL_CALL_TAG: i32 = 0x7c1;
/// One roll call at a time in a process: two at once would each take only part of the
/// peers' answers. Later ones reuse the first's [`JOB_LOST`].
static ROLL_CALL: Mutex<()> = Mutex::new(());
/// The longest a roll call waits for the other processes' answers.
const ROLL_CALL_GRACE: Duration = Duration::from_secs(5);

impl MpiHybrid {
    /// Says where this process waits and stops the job: a pending MPI collective cannot be
    /// cancelled, and the other processes wait in it too.
    pub(super) fn stall(&self, what: &str, waiting_for: &str) -> ! {
        eprintln!(
            "error: collectives stalled: process {} (devices {}) waited more than {} s in {what} for {waiting_for}; stopping the job",
            self.rank,
            format_group(&self.local),
            self.deadline.as_secs_f64()
        );
        self.world.0.abort(3)
    }

    /// Waits for `request`, one MPI call at a time, against the deadline; `others` are the
    /// devices of other processes it waits for. Past the deadline, the request is abandoned
    /// (its buffers must then be leaked by the caller) and a roll call names the processes
    /// that are gone; when none is, the job stops.
    pub(super) fn wait<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
        &self,
        mut request: mpi::request::Request<'a, D, S>,
        what: &str,
        others: &[DeviceId],
    ) -> Result<(), CollectiveError> {
        let start = Instant::now();
        loop {
            let tested = {
                let _calls = mpi_calls();
                request.test()
            };
            match tested {
                Ok(_) => return Ok(()),
                Err(r) => request = r,
            }
            if start.elapsed() > self.deadline {
                // SAFETY: the request is never completed, tested or freed again; the
                // caller leaks the buffers MPI may still touch.
                let _abandoned = unsafe { request.into_raw() };
                return Err(self.processes_gone(what, others));
            }
            // Open MPI moves a large message only while some call drives its progress, so
            // keep testing; yielding leaves the core to devices that still compute.
            std::thread::yield_now();
        }
    }

    /// After a wait in `what` for `others` passed the deadline: the processes of `others`
    /// that do not answer a roll call, as the process's lasting failure. When every one
    /// answers, nothing is gone and the job stops.
    pub(super) fn processes_gone(&self, what: &str, others: &[DeviceId]) -> CollectiveError {
        let _one = ROLL_CALL.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(lost) = job_lost() {
            return lost.clone();
        }
        let silent = self.roll_call();
        let ranks: Vec<usize> = processes_of(&self.grid, others)
            .into_iter()
            .filter(|p| silent.contains(p))
            .collect();
        if ranks.is_empty() {
            let waiting_for = format!(
                "devices {} (every process answered a roll call)",
                format_group(others)
            );
            self.stall(what, &waiting_for);
        }
        let mut ranks = ranks;
        ranks.sort_unstable();
        let gone = CollectiveError::ProcessesGone(ProcessesGone {
            devices: others
                .iter()
                .copied()
                .filter(|&d| ranks.contains(&self.process(d)))
                .collect(),
            ranks,
            job_size: self.size,
            grace: self.grace(),
            collective: what.to_string(),
        });
        JOB_LOST.get_or_init(|| gone).clone()
    }

    pub(super) fn grace(&self) -> Duration {
        self.deadline.min(ROLL_CALL_GRACE)
    }

    /// Sends one byte to every other process of the world on [`ROLL_CALL_TAG`] and waits
    /// up to the grace for theirs; returns the processes not heard from. The peers' bytes
    /// may have arrived long before (they timed out first): MPI keeps them until received.
    pub(super) fn roll_call(&self) -> Vec<usize> {
        use mpi::ffi;
        static TOKEN: [u8; 1] = [1];
        let world = self.world.0.as_raw();
        let peers: Vec<usize> = (0..self.size).filter(|&p| p != self.rank).collect();
        // Leaked: a receive that is cancelled late could still write into it.
        let inbox: &'static mut [u8] = Box::leak(vec![0u8; self.size].into_boxed_slice());
        // SAFETY (every block below): plain MPI calls under `MPI_CALLS` on live handles;
        // the buffers are static or leaked, so outlive the requests.
        let null = unsafe { ffi::RSMPI_REQUEST_NULL };
        let mut receives = vec![null; self.size];
        let mut sends = vec![null; self.size];
        {
            let _calls = mpi_calls();
            for &p in &peers {
                unsafe {
                    ffi::MPI_Irecv(
                        inbox[p..].as_mut_ptr().cast(),
                        1,
                        ffi::RSMPI_UINT8_T,
                        p as i32,
                        ROLL_CALL_TAG,
                        world,
                        &mut receives[p],
                    );
                    ffi::MPI_Isend(
                        TOKEN.as_ptr().cast(),
                        1,
                        ffi::RSMPI_UINT8_T,
                        p as i32,
                        ROLL_CALL_TAG,
                        world,
                        &mut sends[p],
                    );
                }
            }
        }
        let start = Instant::now();
        let mut heard = vec![false; self.size];
        loop {
            {
                let _calls = mpi_calls();
                for &p in &peers {
                    if !heard[p] {
                        let mut flag = 0;
                        unsafe {
                            ffi::MPI_Test(&mut receives[p], &mut flag, ffi::RSMPI_STATUS_IGNORE)
                        };
                        heard[p] = flag != 0;
                    }
                    if sends[p] != null {
                        let mut flag = 0;
                        unsafe {
                            ffi::MPI_Test(&mut sends[p], &mut flag, ffi::RSMPI_STATUS_IGNORE)
                        };
                    }
                }
            }
            if peers.iter().all(|&p| heard[p]) || start.elapsed() > self.grace() {
                break;
            }
            std::thread::yield_now();
        }
        // Leave no receive pending that a later message could match; sends still pending
        // go to processes that are gone.
        let _calls = mpi_calls();
        for &p in &peers {
            unsafe {
                if receives[p] != null {
                    ffi::MPI_Cancel(&mut receives[p]);
                    ffi::MPI_Request_free(&mut receives[p]);
                }
                if sends[p] != null {
                    ffi::MPI_Request_free(&mut sends[p]);
                }
            }
        }
        peers.into_iter().filter(|&p| !heard[p]).collect()
    }
}
