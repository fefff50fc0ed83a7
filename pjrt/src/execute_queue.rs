//! Per-device in-order queues for asynchronous executes.
//!
//! Each local device gets one worker thread, started by the first asynchronous execute on
//! it. Execute queues a job and returns; the worker runs the device's jobs one after the
//! other, in the order they were queued, so a run that reads the output of the run queued
//! before it on the same device finds it computed. (A job still waits on its inputs'
//! signals: an input may come from a run that failed, whose failure it passes on.)
//! The client shuts the queues down before it goes: the jobs already queued run first.

use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;

use crate::error::{Code, Error, Result};

/// A queued job. It reports its own outcome (through the signals it fires), so it
/// returns nothing.
pub type Job = Box<dyn FnOnce() + Send>;

struct Worker {
    jobs: Sender<Job>,
    thread: JoinHandle<()>,
}

/// One in-order worker per local device, started on first use.
pub struct ExecuteQueues {
    workers: Mutex<Vec<Option<Worker>>>,
}

impl ExecuteQueues {
    /// Queues for `devices` local devices, none started.
    pub fn new(devices: usize) -> ExecuteQueues {
        ExecuteQueues {
            workers: Mutex::new((0..devices).map(|_| None).collect()),
        }
    }

    /// Queues `job` on `device`'s worker (starting it if need be).
    pub fn enqueue(&self, device: usize, job: Job) -> Result<()> {
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        let slot = workers.get_mut(device).ok_or_else(|| {
            Error::new(
                Code::Internal,
                format!("no execute queue for local device {device}"),
            )
        })?;
        if slot.is_none() {
            let (jobs, incoming) = channel::<Job>();
            let thread = std::thread::Builder::new()
                .name(format!("xlac-pjrt-device-{device}"))
                .spawn(move || {
                    // Ends when the client drops the sender, after the jobs queued so far.
                    for job in incoming {
                        job();
                    }
                })
                .map_err(|e| {
                    Error::new(
                        Code::ResourceExhausted,
                        format!("cannot start the worker thread of device {device}: {e}"),
                    )
                })?;
            *slot = Some(Worker { jobs, thread });
        }
        let worker = slot.as_ref().expect("started above");
        worker.jobs.send(job).map_err(|_| {
            Error::new(
                Code::Internal,
                format!("the worker thread of device {device} has stopped"),
            )
        })
    }

    /// Lets every worker finish its queued jobs, then joins it.
    pub fn shut_down(&self) {
        let workers: Vec<Worker> = self
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        for Worker { jobs, thread } in workers {
            drop(jobs);
            // A job's panic is caught inside the job; a join error has nothing left to do.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn jobs_run_in_order_and_shut_down_waits_for_them() {
        let q = ExecuteQueues::new(2);
        let seen = Arc::new(Mutex::new(Vec::new()));
        for i in 0..50 {
            let seen = seen.clone();
            q.enqueue(i % 2, Box::new(move || seen.lock().unwrap().push(i)))
                .unwrap();
        }
        q.shut_down();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 50);
        for d in 0..2 {
            let per_device: Vec<usize> = seen.iter().copied().filter(|i| i % 2 == d).collect();
            let expected: Vec<usize> = (0..50).filter(|i| i % 2 == d).collect();
            assert_eq!(per_device, expected);
        }
        assert_eq!(
            q.enqueue(2, Box::new(|| {})).unwrap_err().code,
            Code::Internal
        );
    }
}
