//! The all-reduce over processes on a reduce-scatter + all-gather schedule, which moves
//! about 2 (P-1)/P of the array per process instead of P-1 operands, folding in the same
//! member order as every other path.

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{MpiHybrid, buffer, count, displacements, mpi_calls};
use crate::ir::ArrayShape;
use crate::runtime::collectives::exchange::{self, Member, RawArray};
use crate::runtime::collectives::op::Pattern;
use crate::runtime::collectives::{
    CollectiveError, CollectiveKind, CollectiveOp, DeviceId, Reducer,
};

impl MpiHybrid {
    /// An all-reduce over processes on a reduce-scatter + all-gather schedule: process i
    /// of the group's P receives element chunk i of every member's operands (all-to-all),
    /// folds them in group order, and the reduced chunks are all-gathered. Each element is
    /// still folded member 0, 1, 2, ... by the same [`exchange::run`], so the bits equal
    /// the in-process run; each process receives about 2 (P-1)/P of the array where
    /// all-gathering the operands receives P-1 of them, and adds only its chunk.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn all_reduce(
        &self,
        group: &[DeviceId],
        procs: &[usize],
        local: &[Member],
        reducer: &dyn Reducer,
        comm: &SimpleCommunicator,
        what: &str,
        others: &[DeviceId],
    ) -> Result<(), CollectiveError> {
        let p = procs.len();
        let me = procs.iter().position(|&q| q == self.rank).unwrap_or(0);
        let members_of = |i: usize| {
            group
                .iter()
                .filter(|&&d| self.process(d) == procs[i])
                .count()
        };
        let operands = &local[0].operands;
        // Per operand: element size and the chunk boundaries (in elements).
        let sizes: Vec<usize> = operands
            .iter()
            .map(|o| o.shape.element_type.byte_size().max(1))
            .collect();
        let bounds: Vec<Vec<usize>> = operands
            .iter()
            .zip(&sizes)
            .map(|(o, &s)| (0..=p).map(|i| o.len / s * i / p).collect())
            .collect();
        // Bytes of chunk `i` of one member (every operand's chunk i, one after another).
        let chunk_bytes = |i: usize| -> usize {
            bounds
                .iter()
                .zip(&sizes)
                .map(|(b, &s)| (b[i + 1] - b[i]) * s)
                .sum()
        };
        // To process i: chunk i of every local member, in group order.
        let mut send = Vec::with_capacity(
            (local.len() * operands.iter().map(|o| o.len).sum::<usize>()).max(1),
        );
        let mut send_counts = Vec::with_capacity(p);
        for i in 0..p {
            for m in local {
                for ((o, b), &s) in m.operands.iter().zip(&bounds).zip(&sizes) {
                    // SAFETY: the member's owner waits in this rendezvous until it is done.
                    let bytes = unsafe { std::slice::from_raw_parts(o.ptr, o.len) };
                    send.extend_from_slice(&bytes[b[i] * s..b[i + 1] * s]);
                }
            }
            send_counts.push(count(local.len() * chunk_bytes(i))?);
        }
        let recv_counts: Vec<i32> = (0..p)
            .map(|i| count(members_of(i) * chunk_bytes(me)))
            .collect::<Result<_, _>>()?;
        let send_displs = displacements(&send_counts)?;
        let recv_displs = displacements(&recv_counts)?;
        let mut received = buffer(recv_counts.iter().map(|&c| c as usize).sum());
        let waited = {
            let send_part = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut recv_part =
                PartitionMut::new(&mut received[..], &recv_counts[..], &recv_displs[..]);
            mpi::request::scope(|scope| {
                let request = {
                    let _calls = mpi_calls();
                    comm.immediate_all_to_all_varcount_into(scope, &send_part, &mut recv_part)
                };
                self.wait(request, what, others)
            })
        };
        if let Err(e) = waited {
            // The abandoned collective may still read and write them.
            std::mem::forget((send, send_counts, send_displs));
            std::mem::forget((received, recv_counts, recv_displs));
            return Err(e);
        }
        // Fold this process's chunk over every member in group order.
        let mine = chunk_bytes(me);
        let mut reduced = buffer(mine);
        let chunk_shapes: Vec<ArrayShape> = operands
            .iter()
            .zip(&bounds)
            .map(|(o, b)| ArrayShape::new(o.shape.element_type, &[(b[me + 1] - b[me]) as i64]))
            .collect();
        let mut taken = vec![0usize; p];
        let mut members = Vec::with_capacity(group.len());
        for (k, &d) in group.iter().enumerate() {
            let i = procs
                .iter()
                .position(|&q| q == self.process(d))
                .unwrap_or(0);
            let mut at = recv_displs[i] as usize + taken[i] * mine;
            taken[i] += 1;
            let mut out_at = 0;
            let mut ops = Vec::with_capacity(operands.len());
            let mut results = Vec::with_capacity(operands.len());
            for (shape, (b, &s)) in chunk_shapes.iter().zip(bounds.iter().zip(&sizes)) {
                let len = (b[me + 1] - b[me]) * s;
                ops.push(RawArray {
                    shape: shape.clone(),
                    ptr: received[at..].as_ptr() as *mut u8,
                    len,
                });
                results.push(RawArray {
                    shape: shape.clone(),
                    ptr: if k == 0 {
                        reduced[out_at..].as_mut_ptr()
                    } else {
                        std::ptr::null_mut()
                    },
                    len,
                });
                at += len;
                out_at += len;
            }
            members.push(Member {
                operands: ops,
                results,
                elsewhere: k != 0,
            });
        }
        if mine > 0 {
            // Operands are read through these pointers while `received` lives; only
            // member 0's results, in `reduced`, are written.
            exchange::run(&fold_op(), &members, Some(reducer))
                .map_err(|m| CollectiveError::Mismatch(format!("{what}: {m}")))?;
        }
        drop(members);
        // Every process's reduced chunk, to every process.
        let lens: Vec<i32> = (0..p)
            .map(|i| count(chunk_bytes(i)))
            .collect::<Result<_, _>>()?;
        let (all, displs) = self.all_gather_varcount(comm, reduced, &lens, what, others)?;
        for m in local {
            for i in 0..p {
                let mut at = displs[i] as usize;
                for ((r, b), &s) in m.results.iter().zip(&bounds).zip(&sizes) {
                    let len = (b[i + 1] - b[i]) * s;
                    // SAFETY: the member's owner waits in this rendezvous; results of
                    // different members never overlap.
                    let out = unsafe { std::slice::from_raw_parts_mut(r.ptr, r.len) };
                    out[b[i] * s..b[i] * s + len].copy_from_slice(&all[at..at + len]);
                    at += len;
                }
            }
        }
        Ok(())
    }
}

/// The op the chunk fold runs: an all-reduce (its groups and name are not read).
fn fold_op() -> CollectiveOp {
    CollectiveOp {
        name: "chunk".into(),
        kind: CollectiveKind::AllReduce,
        pattern: Pattern::AllReduce,
        channel_id: None,
        groups: Vec::new(),
        reduction: None,
    }
}
