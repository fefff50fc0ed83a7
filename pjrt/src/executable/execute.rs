//! `PJRT_LoadedExecutable_Execute`: the execute options and host callbacks, taking the
//! argument buffers (waiting for the runs that make them, donation), and the run itself:
//! inside the call for cheap programs with ready inputs, on the device's worker queue
//! otherwise (outputs pending until the run ends), synchronously for sharded programs.

use super::*;

/// The most `non_donatable_input_indices` an Execute call may list.
const MAX_NON_DONATABLE: usize = 1 << 20;

/// The host callbacks the framework put in the options' execute context, if any.
///
/// # Safety
/// `options` must be NULL or the framework's valid options.
unsafe fn host_callbacks(
    options: *mut PJRT_ExecuteOptions,
) -> Result<Option<Arc<dyn xlac::eval::CustomCallHandler>>> {
    // SAFETY: the caller's contract.
    let Some(o) = (unsafe { options.as_ref() }) else {
        return Ok(None);
    };
    if !has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, context),
        std::mem::size_of::<usize>(),
    ) {
        return Ok(None);
    }
    // SAFETY: a context from `PJRT_ExecuteContext_Create`, or NULL.
    match unsafe { crate::host_callback::context_ref(o.context)? } {
        Some(context) => context.host_callbacks(),
        None => Ok(None),
    }
}

/// Checks the execute options and reads `non_donatable_input_indices` (arguments the
/// caller keeps even where the program donates them), if the struct has them.
///
/// # Safety
/// `options` must be NULL or valid for its declared size.
unsafe fn execute_options_ok(options: *mut PJRT_ExecuteOptions) -> Result<Vec<i64>> {
    // SAFETY: the caller's contract.
    let Some(o) = (unsafe { options.as_ref() }) else {
        return Ok(Vec::new());
    };
    if has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, num_send_ops),
        16,
    ) && (o.num_send_ops != 0 || o.num_recv_ops != 0)
    {
        return Err(Error::unimplemented(
            "error: xlac does not run host send/recv callbacks",
        ));
    }
    if !has_field(
        o.struct_size,
        std::mem::offset_of!(PJRT_ExecuteOptions, num_non_donatable_input_indices),
        std::mem::size_of::<usize>(),
    ) || o.num_non_donatable_input_indices == 0
    {
        return Ok(Vec::new());
    }
    if o.num_non_donatable_input_indices > MAX_NON_DONATABLE {
        return Err(Error::invalid(format!(
            "{} non-donatable input indices; at most {MAX_NON_DONATABLE}",
            o.num_non_donatable_input_indices
        )));
    }
    // SAFETY: the framework's array of `num_non_donatable_input_indices` indices.
    let indices = unsafe {
        slice(
            o.non_donatable_input_indices,
            o.num_non_donatable_input_indices,
            "non_donatable_input_indices",
        )?
    };
    Ok(indices.to_vec())
}

/// One argument of an Execute, as taken from its buffer: where its data is (perhaps the
/// output of a run still in flight) and whether the run may own it.
pub struct Taken {
    source: Source,
    donated: bool,
    /// A token parameter: whatever was passed, the run gets a token.
    token: bool,
}

impl Taken {
    /// True if the data is there (no run in flight produces it).
    fn is_ready(&self) -> bool {
        self.source.is_ready()
    }

    /// Waits for the data (the producing run's failure if it failed) and makes it an
    /// input: owned if donated and nothing else shares it, else shared.
    fn wait(self, i: usize) -> Result<Input> {
        let data = self.source.wait().map_err(|e| {
            Error::new(
                e.code,
                format!(
                    "error: argument {i} comes from a run that failed: {}",
                    e.message
                ),
            )
        })?;
        if self.token {
            return Ok(Input::Kept(Arc::new(Literal::Token)));
        }
        Ok(if self.donated {
            match Arc::try_unwrap(data) {
                Ok(owned) => Input::Donated(owned),
                Err(l) => Input::Kept(l),
            }
        } else {
            Input::Kept(data)
        })
    }
}

/// Waits for every argument of one run.
fn wait_all(args: Vec<Taken>) -> Result<Vec<Input>> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| a.wait(i))
        .collect()
}

/// The arguments of one Execute: where each buffer's data is, shared, or taken out of a
/// donated buffer (which counts as deleted from then on). Nothing waits here: an argument
/// may be the output of a run still in flight. A buffer under an external reference
/// (a zero-copy numpy view) is not donated: it stays alive and the run reads it, the
/// aliased output getting memory of its own, as XLA:CPU refuses such a donation. A
/// donated buffer passed more than once is refused with XLA's INVALID_ARGUMENT messages,
/// nothing consumed; the run owns a donated buffer's data only when nothing else shares
/// it by the time it starts.
fn take_arguments(
    state: &ExecutableState,
    handles: &[*mut c_void],
    non_donatable: &[i64],
) -> Result<Vec<Taken>> {
    let buffers = handles
        .iter()
        // SAFETY: live buffers from this plugin.
        .map(|&h| unsafe { buffer_ref(h) })
        .collect::<Result<Vec<_>>>()?;
    for (i, b) in buffers.iter().enumerate() {
        b.source()
            .map_err(|e| Error::new(e.code, format!("error: argument {i}: {}", e.message)))?;
    }
    // A token parameter takes whatever jax passes for it: a token from an earlier run, or
    // the `bool[0]` array it starts an ordered effect with.
    let token = |i: usize| matches!(state.parameters.get(i), Some(Shape::Token));
    let given: Vec<Shape> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| if token(i) { Shape::Token } else { b.shape() })
        .collect();
    state.check_shapes(&given)?;
    let donate = |i: usize| {
        state.donates(i)
            && !non_donatable.contains(&(i as i64))
            && !buffers[i].has_external_references()
    };
    // A donated buffer may be passed once only, as XLA's PJRT client checks (with its
    // messages), before anything is consumed.
    for (i, &h) in handles.iter().enumerate() {
        let Some(first) = handles[..i].iter().position(|&g| g == h) else {
            continue;
        };
        let example = match (donate(first), donate(i)) {
            (false, false) => continue,
            (true, true) => "Attempt to donate the same buffer twice in Execute()",
            (true, false) => {
                "Attempt to use a buffer that was previously donated in the same call to Execute()"
            }
            (false, true) => {
                "Attempt to donate a buffer which is also used by the same call to Execute()"
            }
        };
        let toy = match (donate(first), donate(i)) {
            (true, true) => "f(donate(a), donate(a))",
            (true, false) => "f(donate(a), a)",
            _ => "f(a, donate(a))",
        };
        return Err(Error::new(
            Code::InvalidArgument,
            format!(
                "{example} (flattened argument {i}, replica 0, partition 0, first use: {first}). Toy example for this bug: `{toy}`."
            ),
        ));
    }
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Ok(Taken {
                source: if donate(i) { b.take()? } else { b.source()? },
                donated: donate(i),
                token: token(i),
            })
        })
        .collect()
}

/// A client pointer a worker thread may hold: the client shuts its queues down (waiting
/// for the runs in flight) before it goes.
struct ClientRef(*const Client);

// SAFETY: the client is `Sync` and outlives every queued run (see above).
unsafe impl Send for ClientRef {}

/// Queues one run of a one-device program on the worker of local device `device` and
/// returns at once with the output buffers (pending until the run ends) and the signal of
/// its end.
fn execute_async(
    client: &Client,
    state: &Arc<ExecutableState>,
    device: usize,
    args: Vec<Taken>,
) -> Result<(Vec<Buffer>, Arc<Signal>)> {
    let run = Signal::pending();
    let produced: Vec<Arc<Produced>> = state
        .outputs
        .iter()
        .map(|_| Produced::new(run.clone()))
        .collect();
    let buffers = state
        .outputs
        .iter()
        .zip(&produced)
        .map(|(shape, p)| Buffer::pending(client, device, shape.as_ref(), p.clone()))
        .collect();
    let job_state = state.clone();
    let job_run = run.clone();
    let job_client = ClientRef(client);
    client.queues.enqueue(
        device,
        Box::new(move || {
            let job_client = job_client;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: the client outlives its queued runs.
                let client = unsafe { &*job_client.0 };
                let inputs = wait_all(args)?;
                let leaves = job_state.execute(client, inputs, None)?;
                for (p, leaf) in produced.iter().zip(leaves) {
                    p.set(leaf);
                }
                Ok(())
            }))
            .unwrap_or_else(|_| {
                Err(Error::new(
                    Code::Internal,
                    format!("error: {}: the run panicked", job_state.name),
                ))
            });
            job_run.fire(outcome.map_err(|e: Error| Failure::of(&e)));
        }),
    )?;
    Ok((buffers, run))
}

entry_points! {
    fn loaded_executable_execute(a: PJRT_LoadedExecutable_Execute_Args) {
        // SAFETY: a live loaded executable whose client outlives it.
        let l = unsafe { loaded_of(a.executable)? };
        let client = unsafe { &*l.client };
        if l.deleted.load(Ordering::Acquire) {
            return Err(Error::new(
                Code::FailedPrecondition,
                "the executable has been deleted",
            ));
        }
        let devices = &l.state.devices;
        if a.num_devices != devices.len() {
            return Err(Error::invalid(format!(
                "error: {}: execute on {} devices; the program runs on {} ({:?})",
                l.state.name,
                a.num_devices,
                devices.len(),
                devices
            )));
        }
        if let Some(d) = crate::client::check_device(client, a.execute_device)?
            && (devices.len() != 1 || devices[0] != d)
        {
            return Err(Error::invalid(format!(
                "error: {}: execute on device {d}; the program runs on devices {devices:?}",
                l.state.name
            )));
        }
        if devices.is_empty() {
            // A program over other processes' devices only: they run it; nothing here.
            return Ok(());
        }
        // SAFETY: the framework's options.
        let non_donatable = unsafe { execute_options_ok(a.options)? };
        // SAFETY: `argument_lists[d]` holds `num_args` buffers for each device.
        let lists = unsafe { slice(a.argument_lists, devices.len(), "argument_lists")? };
        let mut rows = Vec::with_capacity(devices.len());
        for (row, (&list, &device)) in lists.iter().zip(devices).enumerate() {
            let handles = unsafe { slice(list, a.num_args, "argument_lists[d]")? };
            for (i, &h) in handles.iter().enumerate() {
                // SAFETY: live buffers from this plugin.
                let b = unsafe { buffer_ref(h)? };
                if b.device() != device {
                    return Err(Error::invalid(format!(
                        "error: {}: argument {i} for device {device} (execution {row}) is on device {}: put it on device {device} first",
                        l.state.name,
                        b.device()
                    )));
                }
            }
            rows.push(handles);
        }
        // SAFETY: `output_lists[d]` has room for `NumOutputs` buffers per device.
        let out_lists = unsafe { slice(a.output_lists, devices.len(), "output_lists")? };
        if out_lists.iter().any(|l| l.is_null()) && !l.state.outputs.is_empty() {
            return Err(Error::invalid("output_lists[d] is NULL"));
        }
        let host = unsafe { host_callbacks(a.options)? };
        let mut taken = Vec::with_capacity(rows.len());
        for handles in rows {
            taken.push(take_arguments(&l.state, handles, &non_donatable)?);
        }
        // One device, no host callbacks: queue the run and return (a cheap run whose inputs
        // are there runs here: the hand-off would cost more than the run). Host callbacks run
        // Python under the GIL, which the caller may hold while it waits for the plugin
        // (XLA's own clients run such programs synchronously too); programs over several
        // devices run together and synchronously.
        let inline = l.state.cheap && taken.iter().flatten().all(Taken::is_ready);
        let asynchronous = client.options.asynchronous
            && devices.len() == 1
            && host.is_none()
            && !inline
            && !matches!(l.state.runner, Runner::Devices(_));
        let (outputs, complete) = if asynchronous {
            let args = taken.pop().unwrap_or_default();
            let (buffers, run) = execute_async(client, &l.state, devices[0], args)?;
            (vec![buffers], Some(run))
        } else {
            let inputs = taken.into_iter().map(wait_all).collect::<Result<Vec<_>>>()?;
            let outputs = l.state.execute_all(client, inputs, host)?;
            let buffers = outputs
                .into_iter()
                .zip(devices)
                .map(|(leaves, &device)| {
                    leaves
                        .into_iter()
                        .map(|leaf| match leaf {
                            Literal::Array(a) => Buffer::new(client, device, a),
                            _ => Buffer::token(client, device),
                        })
                        .collect()
                })
                .collect();
            (buffers, None)
        };
        for (&list, buffers) in out_lists.iter().zip(outputs) {
            for (i, buffer) in buffers.into_iter().enumerate() {
                // SAFETY: index within the pre-sized list.
                unsafe { *list.add(i) = buffer.into_raw() };
            }
        }
        if !a.device_complete_events.is_null() {
            for d in 0..devices.len() {
                let event = match &complete {
                    Some(run) => Event::on(run.clone()),
                    None => Event::ready(),
                };
                // SAFETY: room for one event per device.
                unsafe { *a.device_complete_events.add(d) = event };
            }
        }
        Ok(())
    }
}
