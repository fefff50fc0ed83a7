//! The leader's MPI exchange for one collective: the fixed-size header (fingerprint,
//! sequence number, byte counts) and the concatenated operands of the process's local
//! members, all-gathered over the group's communicator, then [`exchange::run`] on every
//! member's operands in group order.

use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::{
    HEADER, LABEL, MpiHybrid, buffer, count, displacements, fingerprint, mpi_calls, processes_of,
    truncated,
};
use crate::runtime::collectives::exchange::{self, Member, RawArray};
use crate::runtime::collectives::op::{Pattern, format_group};
use crate::runtime::collectives::{CollectiveError, CollectiveOp, DeviceId, Reducer};

impl MpiHybrid {
    /// All-gathers `mine` (the same length everywhere) over `comm`.
    pub(super) fn all_gather(
        &self,
        comm: &SimpleCommunicator,
        mine: Vec<u8>,
        what: &str,
        others: &[DeviceId],
    ) -> Result<Vec<u8>, CollectiveError> {
        let mut all = vec![0u8; mine.len() * comm.size() as usize];
        let waited = mpi::request::scope(|scope| {
            let request = {
                let _calls = mpi_calls();
                comm.immediate_all_gather_into(scope, &mine[..], &mut all[..])
            };
            self.wait(request, what, others)
        });
        if let Err(e) = waited {
            // The abandoned collective may still read and write them.
            std::mem::forget((mine, all));
            return Err(e);
        }
        Ok(all)
    }

    /// All-gathers `mine` over `comm` when every process's length is `lens[rank]`.
    pub(super) fn all_gather_varcount(
        &self,
        comm: &SimpleCommunicator,
        mine: Vec<u8>,
        lens: &[i32],
        what: &str,
        others: &[DeviceId],
    ) -> Result<(Vec<u8>, Vec<i32>), CollectiveError> {
        let displs = displacements(lens)?;
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = buffer(total);
        let waited = {
            let mut partition = PartitionMut::new(&mut all[..], lens, &displs[..]);
            mpi::request::scope(|scope| {
                let request = {
                    let _calls = mpi_calls();
                    comm.immediate_all_gather_varcount_into(scope, &mine[..], &mut partition)
                };
                self.wait(request, what, others)
            })
        };
        if let Err(e) = waited {
            // The abandoned collective may still read and write them (and the counts).
            std::mem::forget((mine, all, displs));
            return Err(e);
        }
        Ok((all, displs))
    }

    /// The leader's part: every member's operands in group order, from this process's
    /// `local` arrivals (in group order) and, for a group that spans processes, the others'
    /// over MPI; then the results of the local members.
    pub(super) fn exchange(
        &self,
        op: &CollectiveOp,
        group: &[DeviceId],
        seq: u64,
        local: &[Member],
        reducer: Option<&dyn Reducer>,
    ) -> Result<(), CollectiveError> {
        let label = op.label();
        let what = format!("{label} #{seq} (group {})", format_group(group));
        let procs = processes_of(&self.grid, group);
        if procs.len() == 1 {
            return exchange::run(op, local, reducer)
                .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")));
        }
        let comm = self.communicators()?.by_group.get(group).ok_or_else(|| {
            CollectiveError::BadOp(format!("{what}: the group was not split at load"))
        })?;
        let member_bytes: usize = local[0].operands.iter().map(|o| o.len).sum();
        let mine_len: usize = local
            .iter()
            .map(|m| m.operands.iter().map(|o| o.len).sum::<usize>())
            .sum();
        if mine_len != member_bytes * local.len() {
            return Err(CollectiveError::Mismatch(format!(
                "{what}: the local members' operands differ in size"
            )));
        }
        let others: Vec<DeviceId> = group
            .iter()
            .copied()
            .filter(|&d| self.process(d) != self.rank)
            .collect();
        // The header: what this process runs, and how much it sends.
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(&fingerprint(op).to_le_bytes());
        header.extend_from_slice(&seq.to_le_bytes());
        header.extend_from_slice(&(count(mine_len)? as u64).to_le_bytes());
        let mut text = [0u8; LABEL];
        let b = truncated(&label, LABEL).as_bytes();
        text[..b.len()].copy_from_slice(b);
        header.extend_from_slice(&text);
        let headers = self.all_gather(comm, header, &what, &others)?;
        let mut lens = Vec::with_capacity(procs.len());
        for (i, h) in headers.chunks_exact(HEADER).enumerate() {
            let word = |k: usize| u64::from_le_bytes(h[8 * k..8 * k + 8].try_into().unwrap());
            if word(0) != fingerprint(op) || word(1) != seq {
                let end = h[24..].iter().position(|&c| c == 0).unwrap_or(LABEL);
                let theirs = String::from_utf8_lossy(&h[24..24 + end]);
                return Err(CollectiveError::Mismatch(format!(
                    "{what}: process {} runs {theirs} #{} with this group while process {} runs {label} #{seq}",
                    procs[i],
                    word(1),
                    self.rank
                )));
            }
            let expected = member_bytes
                * group
                    .iter()
                    .filter(|&&d| self.process(d) == procs[i])
                    .count();
            if word(2) as usize != expected {
                return Err(CollectiveError::Mismatch(format!(
                    "{what}: process {} sent {} operand bytes, {expected} expected",
                    procs[i],
                    word(2)
                )));
            }
            lens.push(word(2) as i32);
        }
        if op.pattern == Pattern::AllReduce {
            let reducer = reducer.ok_or_else(|| {
                CollectiveError::BadOp(format!("{what}: all-reduce needs a reduction"))
            })?;
            for m in local {
                let same = m.results.len() == m.operands.len()
                    && m.results.iter().zip(&m.operands).all(|(r, o)| {
                        r.len == o.len && r.shape.element_type == o.shape.element_type
                    });
                if !same {
                    return Err(CollectiveError::Mismatch(format!(
                        "{what}: results are not shaped as the operands"
                    )));
                }
            }
            return self.all_reduce(group, &procs, local, reducer, comm, &what, &others);
        }
        let mut mine = Vec::with_capacity(mine_len.max(1));
        for m in local {
            for o in &m.operands {
                // SAFETY: the member's owner waits in this rendezvous until it is done.
                mine.extend_from_slice(unsafe { std::slice::from_raw_parts(o.ptr, o.len) });
            }
        }
        let (all, displs) = self.all_gather_varcount(comm, mine, &lens, &what, &others)?;
        // Every member in group order: local ones as they arrived, the others' operands
        // from the gathered bytes (their results are on their own processes).
        let mut taken = vec![0usize; procs.len()];
        let mut next_local = 0;
        let mut members = Vec::with_capacity(group.len());
        for &d in group {
            let p = self.process(d);
            if p == self.rank {
                members.push(local[next_local].clone());
                next_local += 1;
                continue;
            }
            let i = procs.iter().position(|&q| q == p).unwrap_or(0);
            let mut at = displs[i] as usize + taken[i] * member_bytes;
            taken[i] += 1;
            let operands = local[0]
                .operands
                .iter()
                .map(|o| {
                    let a = RawArray {
                        shape: o.shape.clone(),
                        ptr: all[at..].as_ptr() as *mut u8,
                        len: o.len,
                    };
                    at += o.len;
                    a
                })
                .collect();
            let results = local[0]
                .results
                .iter()
                .map(|r| RawArray {
                    shape: r.shape.clone(),
                    ptr: std::ptr::null_mut(),
                    len: r.len,
                })
                .collect();
            members.push(Member {
                operands,
                results,
                elsewhere: true,
            });
        }
        // Operands are read, never written, through these pointers: `all` outlives
        // `members`; results of members elsewhere are never dereferenced.
        exchange::run(op, &members, reducer)
            .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")))
    }
}
