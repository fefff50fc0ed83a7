//! Compiling a program for this worker's device: parse, plan the partitions onto the job's
//! workers, compile, and (under MPI) split the collectives once, in the order every worker
//! compiles.

#[cfg(feature = "mpi")]
use std::sync::Arc;

use super::{LoadedProgram, Refusal, ServeOptions, Transport, shard_types};
use crate::distributed::protocol::ErrorKind;
use crate::ifrt::ProgramPlan;
use crate::ir::Shape;
#[cfg(feature = "mpi")]
use crate::runtime::collectives::Collectives;

/// Parses, plans and compiles `program` for this worker's device: with `devices`, partition
/// `p` runs on worker `devices[p]`; without, partition `w` on worker `w` of every worker.
#[cfg_attr(not(feature = "mpi"), allow(unused_variables))]
pub(super) fn compile(
    program: &str,
    devices: Option<&[u64]>,
    transport: &Transport,
    options: &ServeOptions,
) -> Result<LoadedProgram, Refusal> {
    let failed = |m: String| Refusal::new(ErrorKind::Failed, m);
    let parsed = crate::front::hlo_text::parse_module(program, "<program>")
        .map_err(|e| failed(e.to_string()))?;
    let module = parsed.module;
    crate::ir::verifier::verify(&module).map_err(|errors| {
        failed(
            errors
                .first()
                .map_or("the verifier rejected the module".into(), |e| e.to_string()),
        )
    })?;
    let (me, workers) = (transport.worker(), transport.workers());
    let assignment: Option<Vec<usize>> = devices
        .map(|d| {
            d.iter()
                .map(|&w| {
                    usize::try_from(w)
                        .ok()
                        .filter(|&w| w < workers)
                        .ok_or_else(|| failed(format!("worker {w}: this job has {workers}")))
                })
                .collect::<Result<_, _>>()
        })
        .transpose()?;
    let plan =
        ProgramPlan::new(&module, assignment.as_deref()).map_err(|e| failed(e.to_string()))?;
    if assignment.is_none() && plan.devices.len() != workers {
        return Err(failed(format!(
            "{} runs on {} devices; this job has {workers} worker{} (one device each)",
            module.name,
            plan.devices.len(),
            if workers == 1 { "" } else { "s" }
        )));
    }
    let Some(device) = plan.devices.iter().position(|&d| d == me) else {
        return Err(failed(format!(
            "{} runs on workers {:?}, not on worker {me}",
            module.name, plan.devices
        )));
    };
    let name = module.name.clone();
    let loaded =
        crate::compiler::load_on_devices(std::slice::from_ref(&module), &plan.grid, &plan.options)
            .map_err(|e| failed(e.to_string()))?;
    // Communicators are split over the whole MPI world, every rank in the same order: only
    // a program on every worker can have them. One without collectives needs none.
    let collectives = match transport {
        Transport::Alone => None,
        #[cfg(feature = "mpi")]
        Transport::Mpi(_) if !has_collectives(loaded.module(device)) => None,
        #[cfg(feature = "mpi")]
        Transport::Mpi(world) => {
            use crate::runtime::collectives::mpi::{Mpi, MpiOptions};
            if plan.devices.len() != workers {
                return Err(failed(format!(
                    "{} has collectives and runs on {} of the job's {workers} workers; xlac runs a program with collectives on every worker of its job",
                    name,
                    plan.devices.len()
                )));
            }
            let mpi = Mpi::new(
                world,
                &[loaded.module(0)],
                &plan.grid,
                MpiOptions {
                    check_order: false,
                    deadline: options.collectives_deadline,
                },
            )
            .map_err(|e| failed(e.to_string()))?;
            debug_assert_eq!(mpi.device(), device);
            Some(Arc::new(mpi) as Arc<dyn Collectives>)
        }
    };
    let per_device = loaded.module(device);
    let parameters = shard_types(
        &per_device.entry_computation().parameter_shapes(),
        "parameter",
    )?;
    let result_leaves: Vec<Shape> = per_device
        .result_shape()
        .leaves()
        .into_iter()
        .map(|a| Shape::Array(a.clone()))
        .collect();
    let results = shard_types(&result_leaves, "result")?;
    Ok(LoadedProgram {
        name,
        loaded,
        device,
        parameters,
        results,
        collectives,
    })
}

/// Whether any computation of `module` has a collective.
#[cfg(feature = "mpi")]
fn has_collectives(module: &crate::ir::Module) -> bool {
    use crate::runtime::collectives::CollectiveKind;
    module.order.iter().any(|&c| {
        module
            .computation(c)
            .iter()
            .any(|(_, i)| CollectiveKind::of(i.opcode()).is_some())
    })
}
