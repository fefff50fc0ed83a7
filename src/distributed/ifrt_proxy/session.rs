//! One IFRT proxy session: the state behind one `IfrtSession` stream (arrays, loaded
//! executables, futures by handle) and the answer to each `IfrtRequest`, in order. Every
//! operation runs to completion before its answer, so every future is ready when it is
//! named; a failed operation's status is kept under its future's handle, as the IFRT
//! proxy server keeps it, for `CheckFuture` to report.
//!
//! The session owns an [`ifrt::Client`](crate::ifrt::Client) of `N` devices: arrays and
//! executables are the library's own, so `N` devices run through the same partitioner
//! and collectives runtime as `xlac run --partitions`. Behind an MPI job ([`super::job`])
//! its executables are compiled and run on the job's ranks instead, one device each.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use prost::Message;

use super::convert::{self, ProxyError};
use super::host_buffers::HostBufferStore;
use super::job::{Job, JobWorkers, Loaded};
use super::proto::*;
use crate::ifrt::{self, Array, Sharding};

/// Handles the server makes up start here; the client's stay below (IFRT proxy's
/// `kServerGeneratedHandlesMinValue`).
pub const SERVER_HANDLES_START: u64 = 1 << 48;

/// How long a request waits by default for a host buffer the client is still uploading.
pub const HOST_BUFFER_WAIT: Duration = Duration::from_secs(60);

/// What the server tells the client about itself.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The session's id (the host buffer service's key).
    pub session_id: u64,
    /// How many devices the session's client has.
    pub devices: usize,
    /// The most bytes one array may have.
    pub max_array_bytes: u64,
    /// How long a request waits for a host buffer the client is still uploading.
    pub host_buffer_wait: Duration,
    /// The MPI job whose ranks run the programs (`None`: this process runs them).
    pub job: Option<JobWorkers>,
}

/// One session's state.
pub struct Session {
    config: SessionConfig,
    client: ifrt::Client,
    host_buffers: Arc<HostBufferStore>,
    arrays: HashMap<u64, Array>,
    executables: HashMap<u64, Arc<Loaded>>,
    /// The job's workers, when programs run on an MPI job's ranks.
    job: Option<Job>,
    /// Futures by handle: `Ok` or the failure of the operation they stand for.
    futures: HashMap<u64, Result<(), ProxyError>>,
    next_handle: u64,
    initialized: bool,
}

/// The platform name the client sees (jax lowers for it: the CPU rules apply).
pub const PLATFORM_NAME: &str = "cpu";

impl Session {
    /// A session over a new client of `config.devices` devices.
    pub fn new(
        config: SessionConfig,
        host_buffers: Arc<HostBufferStore>,
    ) -> Result<Session, String> {
        let client = ifrt::Client::new(config.devices).map_err(|e| e.to_string())?;
        let job = match &config.job {
            Some(workers) => {
                let job = Job::connect(workers).map_err(|e| e.message)?;
                if job.devices() != config.devices {
                    return Err(format!(
                        "the MPI job has {} ranks; the session was set up for {} devices",
                        job.devices(),
                        config.devices
                    ));
                }
                Some(job)
            }
            None => None,
        };
        Ok(Session {
            job,
            config,
            client,
            host_buffers,
            arrays: HashMap::new(),
            executables: HashMap::new(),
            futures: HashMap::new(),
            next_handle: SERVER_HANDLES_START,
            initialized: false,
        })
    }

    /// Ends the session: the job's workers (if any) drop what it left on them.
    pub fn close(mut self) -> Result<(), ProxyError> {
        match self.job.take() {
            Some(job) => job.close(),
            None => Ok(()),
        }
    }

    /// Live arrays (for the log and tests).
    pub fn array_count(&self) -> usize {
        self.arrays.len()
    }

    fn handle(&mut self) -> u64 {
        self.next_handle += 1;
        self.next_handle
    }

    /// A handle the client chose (or a new one when it left it 0), refused when it is taken.
    fn result_handle(&mut self, chosen: u64) -> Result<u64, ProxyError> {
        if chosen == 0 {
            return Ok(self.handle());
        }
        if self.arrays.contains_key(&chosen) {
            return Err(ProxyError::invalid(format!(
                "array handle {chosen} is in use"
            )));
        }
        Ok(chosen)
    }

    fn array(&self, handle: u64) -> Result<&Array, ProxyError> {
        self.arrays
            .get(&handle)
            .ok_or_else(|| ProxyError::not_found(format!("no array with handle {handle}")))
    }

    fn executable(&self, handle: u64) -> Result<Arc<Loaded>, ProxyError> {
        self.executables
            .get(&handle)
            .cloned()
            .ok_or_else(|| ProxyError::not_found(format!("no executable with handle {handle}")))
    }

    /// A future that is ready with `result`.
    fn future(&mut self, result: Result<(), ProxyError>) -> u64 {
        let h = self.handle();
        self.futures.insert(h, result);
        h
    }

    /// Answers one request; a failure becomes the response's status. Returns the response
    /// and the one-line summary for the log.
    pub fn handle_request(&mut self, request: IfrtRequest) -> (IfrtResponse, String) {
        let op_id = request.request_metadata.as_ref().map_or(0, |m| m.op_id);
        let name = request
            .request
            .as_ref()
            .map_or("(none)", convert::request_name);
        let result = match request.request {
            None => Err(ProxyError::invalid("a request with no request in it")),
            Some(r) => self.dispatch(r),
        };
        let (response, status, line) = match result {
            Ok(r) => (Some(r), None, format!("op {op_id} {name}: ok")),
            Err(e) => {
                let line = format!("op {op_id} {name}: {e}");
                (None, Some(e.to_status()), line)
            }
        };
        (
            IfrtResponse {
                response_metadata: Some(ResponseMetadata { op_id, status }),
                response,
            },
            line,
        )
    }

    /// Decodes and answers one encoded request (what the fuzz target drives).
    pub fn handle_bytes(&mut self, bytes: &[u8]) -> Result<(IfrtResponse, String), ProxyError> {
        let request = IfrtRequest::decode(bytes)
            .map_err(|e| ProxyError::invalid(format!("not an IfrtRequest: {e}")))?;
        Ok(self.handle_request(request))
    }

    fn dispatch(&mut self, request: Request) -> Result<Response, ProxyError> {
        if !self.initialized && !matches!(request, Request::Init(_)) {
            return Err(ProxyError::failed_precondition(
                "the session's first request must be InitRequest",
            ));
        }
        match request {
            Request::Init(_) => {
                self.initialized = true;
                Ok(Response::Init(self.init_response()))
            }
            Request::CheckFuture(r) => match self.futures.remove(&r.future_handle) {
                Some(Ok(())) => Ok(Response::CheckFuture(Empty {})),
                Some(Err(e)) => Err(e),
                None => Err(ProxyError::not_found(format!(
                    "no future with handle {}",
                    r.future_handle
                ))),
            },
            Request::CheckValueReady(r) => {
                for h in &r.value_handles {
                    if !self.arrays.contains_key(h) && !self.executables.contains_key(h) {
                        return Err(ProxyError::not_found(format!("no value with handle {h}")));
                    }
                }
                Ok(Response::CheckValueReady(Empty {}))
            }
            Request::MakeArrayFromHostBuffer(r) => self.make_array(r),
            Request::MakeArraysFromHostBufferShards(r) => self.make_arrays_from_shards(r),
            Request::Assemble(r) => self.assemble(r),
            Request::Disassemble(r) => self.disassemble(r),
            Request::CopyToHostBuffer(r) => self.copy_to_host(r),
            Request::DeleteArray(r) => {
                let mut result = Ok(());
                for h in &r.array_handle {
                    match self.arrays.get(h) {
                        Some(a) => a.delete(),
                        None => {
                            result = Err(ProxyError::not_found(format!("no array with handle {h}")))
                        }
                    }
                }
                let deletion_future_handle = self.future(result);
                Ok(Response::DeleteArray(DeleteArrayResponse {
                    deletion_future_handle,
                }))
            }
            Request::IsArrayDeleted(r) => Ok(Response::IsArrayDeleted(IsArrayDeletedResponse {
                deleted: self.array(r.array_handle)?.is_deleted(),
            })),
            Request::DestructArray(r) => {
                for h in &r.array_handle {
                    self.arrays.remove(h);
                }
                Ok(Response::DestructArray(Empty {}))
            }
            Request::CopyArrays(r) => self.copy_arrays(r),
            Request::ReshardArrays(r) => self.reshard_arrays(r),
            Request::FullyReplicatedShard(r) => self.fully_replicated_shard(r),
            Request::Compile(r) => self.compile(r),
            Request::ExecutableMetadata(r) => self.executable_metadata(r.loaded_executable_handle),
            Request::Execute(r) => self.execute(r),
            Request::ExecutableDelete(r) => {
                let exists = self.executables.contains_key(&r.loaded_executable_handle);
                let result = if exists {
                    Ok(())
                } else {
                    Err(ProxyError::not_found(format!(
                        "no executable with handle {}",
                        r.loaded_executable_handle
                    )))
                };
                let future_handle = self.future(result);
                Ok(Response::ExecutableDelete(FutureResponse { future_handle }))
            }
            Request::ExecutableIsDeleted(r) => {
                Ok(Response::ExecutableIsDeleted(ExecutableIsDeletedResponse {
                    is_deleted: !self.executables.contains_key(&r.loaded_executable_handle),
                }))
            }
            Request::ExecutableDestruct(r) => {
                let gone = self.executables.remove(&r.loaded_executable_handle);
                if let (Some(Loaded::Job(exe)), Some(job)) = (gone.as_deref(), self.job.as_mut()) {
                    job.delete_executable(exe)?;
                }
                Ok(Response::ExecutableDestruct(Empty {}))
            }
            Request::CostAnalysis(r) => {
                self.executable(r.loaded_executable_handle)?;
                Ok(Response::CostAnalysis(StatusResultResponse {
                    status: Some(
                        ProxyError::unimplemented("xlac gives no cost analysis").to_status(),
                    ),
                }))
            }
            Request::HumanReadableProgramText(r) => {
                self.executable(r.loaded_executable_handle)?;
                Ok(Response::HumanReadableProgramText(StatusResultResponse {
                    status: Some(
                        ProxyError::unimplemented("xlac gives no program text here").to_status(),
                    ),
                }))
            }
            Request::FetchExecuteResult(_) => Ok(Response::FetchExecuteResult(Empty {})),
            Request::DefaultDeviceAssignment(r) => self.default_device_assignment(r),
            other => Err(ProxyError::unimplemented(format!(
                "xlac's IFRT proxy server does not serve {}",
                convert::request_name(&other)
            ))),
        }
    }

    fn init_response(&self) -> InitResponse {
        let n = self.config.devices as i32;
        let all_devices = (0..n)
            .map(|id| InitDevice {
                id,
                local_hardware_id: id,
                local_device_id: id,
                device_kind: "cpu".into(),
                platform_name: PLATFORM_NAME.into(),
                debug_string: format!("TFRT_CPU_{id}"),
                to_string: format!("CpuDevice(id={id})"),
                default_memory_id: Some(id),
                memory_ids: vec![id],
                attributes: None,
            })
            .collect();
        let memories = (0..n)
            .map(|id| InitMemory {
                id,
                memory_space_kind: convert::MEMORY_KIND.into(),
                kind_id: 0,
                device_ids: vec![id],
                debug_string: format!("MEMORY_SPACE_{id}"),
                to_string: format!("MEMORY_SPACE_{id}"),
            })
            .collect();
        InitResponse {
            session_id: self.config.session_id,
            platform_name: PLATFORM_NAME.into(),
            platform_version: format!("xlac {}", env!("CARGO_PKG_VERSION")),
            platform_id: 0,
            process_index: 0,
            runtime_type: "xlac".into(),
            all_devices,
            addressable_device_ids: (0..n).collect(),
            primary_device_ids: (0..n).collect(),
            memories,
            client_attributes: None,
        }
    }

    fn make_array(&mut self, r: MakeArrayFromHostBufferRequest) -> Result<Response, ProxyError> {
        let dtype = convert::dtype(r.dtype.as_ref())?;
        let dims = convert::dims(r.shape.as_ref(), self.config.max_array_bytes, dtype)?;
        let sharding = convert::sharding(r.sharding.as_ref(), self.config.devices)?;
        let bytes = self.host_buffers.take(
            self.config.session_id,
            r.host_buffer_handle,
            self.config.host_buffer_wait,
        )?;
        let literal = convert::literal_from_bytes(dtype, &dims, &bytes, r.byte_strides.as_ref())?;
        let array = self.client.make_array_from_host(&literal, sharding)?;
        let h = self.result_handle(r.array_handle.unwrap_or(0))?;
        self.arrays.insert(h, array);
        Ok(Response::MakeArrayFromHostBuffer(ArrayHandleResponse {
            array_handle: h,
        }))
    }

    fn make_arrays_from_shards(
        &mut self,
        r: MakeArraysFromHostBufferShardsRequest,
    ) -> Result<Response, ProxyError> {
        if !r.array_handles.is_empty() && r.array_handles.len() != r.specs.len() {
            return Err(ProxyError::invalid(format!(
                "{} array handles for {} arrays",
                r.array_handles.len(),
                r.specs.len()
            )));
        }
        let mut handles = Vec::new();
        for (i, spec) in r.specs.into_iter().enumerate() {
            let a = spec
                .array_spec
                .as_ref()
                .ok_or_else(|| ProxyError::invalid("an array spec is missing"))?;
            let dtype = convert::dtype(a.dtype.as_ref())?;
            let dims = convert::dims(a.shape.as_ref(), self.config.max_array_bytes, dtype)?;
            let sharding = convert::sharding(a.sharding.as_ref(), self.config.devices)?;
            // The shards of one array as single-device arrays, in the sharding's order.
            let domains = sharding.index_domains(&dims)?;
            let mut per_device: Vec<Option<Array>> = vec![None; domains.len()];
            if spec.addressable_shard_indices.len() != spec.host_buffers.len() {
                return Err(ProxyError::invalid(
                    "shard index lists and host buffers differ in number",
                ));
            }
            for (indices, hb) in spec
                .addressable_shard_indices
                .iter()
                .zip(&spec.host_buffers)
            {
                let hdtype = convert::dtype(hb.dtype.as_ref())?;
                let hdims = convert::dims(hb.shape.as_ref(), self.config.max_array_bytes, hdtype)?;
                if hdtype != dtype {
                    return Err(ProxyError::invalid(
                        "a host buffer's dtype is not the array's",
                    ));
                }
                let bytes = self.host_buffers.take(
                    self.config.session_id,
                    hb.host_buffer_handle,
                    self.config.host_buffer_wait,
                )?;
                let literal =
                    convert::literal_from_bytes(dtype, &hdims, &bytes, hb.byte_strides.as_ref())?;
                for &k in &indices.indices {
                    let slot = usize::try_from(k)
                        .ok()
                        .and_then(|k| per_device.get_mut(k))
                        .ok_or_else(|| {
                            ProxyError::invalid(format!("shard index {k} out of range"))
                        })?;
                    let device = domains[k as usize].0;
                    *slot = Some(
                        self.client
                            .make_array_from_host(&literal, Sharding::SingleDevice { device })?,
                    );
                }
            }
            let shards: Vec<Array> = per_device
                .into_iter()
                .enumerate()
                .map(|(k, a)| {
                    a.ok_or_else(|| ProxyError::invalid(format!("shard {k} has no host buffer")))
                })
                .collect::<Result<_, _>>()?;
            let array = self
                .client
                .assemble_array_from_single_device_arrays(&dims, sharding, &shards)?;
            let h = self.result_handle(r.array_handles.get(i).copied().unwrap_or(0))?;
            self.arrays.insert(h, array);
            handles.push(h);
        }
        Ok(Response::MakeArraysFromHostBufferShards(
            ArrayHandlesResponse {
                array_handles: handles,
            },
        ))
    }

    fn assemble(&mut self, r: AssembleRequest) -> Result<Response, ProxyError> {
        let sharding = convert::sharding(r.sharding.as_ref(), self.config.devices)?;
        let shards: Vec<Array> = r
            .single_device_array_handles
            .iter()
            .map(|&h| self.array(h).cloned())
            .collect::<Result<_, _>>()?;
        let first = shards
            .first()
            .ok_or_else(|| ProxyError::invalid("no single-device arrays to assemble"))?;
        let dims = convert::dims(r.shape.as_ref(), self.config.max_array_bytes, first.dtype())?;
        let array = self
            .client
            .assemble_array_from_single_device_arrays(&dims, sharding, &shards)?;
        let h = self.result_handle(r.result_handle)?;
        self.arrays.insert(h, array);
        Ok(Response::Assemble(ArrayHandleResponse { array_handle: h }))
    }

    fn disassemble(&mut self, r: DisassembleRequest) -> Result<Response, ProxyError> {
        let parts = self.array(r.array_handle)?.disassemble()?;
        if !r.result_handles.is_empty() && r.result_handles.len() != parts.len() {
            return Err(ProxyError::invalid(format!(
                "{} result handles for {} shards",
                r.result_handles.len(),
                parts.len()
            )));
        }
        let mut handles = Vec::new();
        for (i, a) in parts.into_iter().enumerate() {
            let h = self.result_handle(r.result_handles.get(i).copied().unwrap_or(0))?;
            self.arrays.insert(h, a);
            handles.push(h);
        }
        Ok(Response::Disassemble(ArrayHandlesResponse {
            array_handles: handles,
        }))
    }

    fn copy_to_host(&mut self, r: CopyToHostBufferRequest) -> Result<Response, ProxyError> {
        let literal = self.array(r.array_handle)?.copy_to_host()?;
        let bytes = convert::literal_to_bytes(&literal, r.byte_strides.as_ref())?;
        self.host_buffers
            .put(self.config.session_id, r.host_buffer_handle, bytes)?;
        Ok(Response::CopyToHostBuffer(Empty {}))
    }

    fn copy_arrays(&mut self, r: CopyArraysRequest) -> Result<Response, ProxyError> {
        if !r.result_handles.is_empty() && r.result_handles.len() != r.array_handles.len() {
            return Err(ProxyError::invalid(
                "result handles and arrays differ in number",
            ));
        }
        let devices = convert::device_ids(&r.device_ids, self.config.devices)?;
        let mut handles = Vec::new();
        for (i, &h) in r.array_handles.iter().enumerate() {
            let a = self.array(h)?;
            let to = convert::on_devices(a.sharding(), &devices)?;
            let moved = a.reshard(to)?;
            let out = self.result_handle(r.result_handles.get(i).copied().unwrap_or(0))?;
            self.arrays.insert(out, moved);
            handles.push(out);
        }
        Ok(Response::CopyArrays(ArrayHandlesResponse {
            array_handles: handles,
        }))
    }

    fn reshard_arrays(&mut self, r: ReshardArraysRequest) -> Result<Response, ProxyError> {
        if r.array_specs.len() != r.array_handles.len()
            || (!r.result_handles.is_empty() && r.result_handles.len() != r.array_handles.len())
        {
            return Err(ProxyError::invalid(
                "arrays, specs and result handles differ in number",
            ));
        }
        let mut handles = Vec::new();
        for (i, (&h, spec)) in r.array_handles.iter().zip(&r.array_specs).enumerate() {
            let to = convert::sharding(spec.sharding.as_ref(), self.config.devices)?;
            let moved = self.array(h)?.reshard(to)?;
            let out = self.result_handle(r.result_handles.get(i).copied().unwrap_or(0))?;
            self.arrays.insert(out, moved);
            handles.push(out);
        }
        Ok(Response::ReshardArrays(ArrayHandlesResponse {
            array_handles: handles,
        }))
    }

    fn fully_replicated_shard(
        &mut self,
        r: FullyReplicatedShardRequest,
    ) -> Result<Response, ProxyError> {
        let a = self.array(r.array_handle)?;
        let replicated = a.sharding().to_hlo(a.dims().len())?.is_replicated();
        if !replicated {
            return Err(ProxyError::invalid(format!(
                "array {} is not fully replicated",
                r.array_handle
            )));
        }
        let first = a
            .disassemble()?
            .into_iter()
            .next()
            .ok_or_else(|| ProxyError::invalid("an array with no shards"))?;
        let h = self.result_handle(r.result_handle)?;
        self.arrays.insert(h, first);
        Ok(Response::FullyReplicatedShard(ArrayHandleResponse {
            array_handle: h,
        }))
    }

    fn compile(&mut self, r: CompileRequest) -> Result<Response, ProxyError> {
        if !r.host_callbacks.is_empty() {
            return Err(ProxyError::unimplemented(
                "host callbacks (jax.debug.print, pure_callback) are not served by xlac's IFRT proxy",
            ));
        }
        let module = convert::program(r.program.as_ref())?;
        let devices = convert::compile_devices(r.compile_options.as_ref(), self.config.devices)?;
        let exe = match (&mut self.job, &devices) {
            (Some(job), d) => Loaded::Job(job.compile(&module, d.as_deref())?),
            (None, Some(d)) => Loaded::Local(self.client.compile_on(module, d)?),
            (None, None) => Loaded::Local(self.client.compile(module)?),
        };
        let ids: Vec<i32> = exe.devices().iter().map(|&d| d as i32).collect();
        let name = exe.name().to_string();
        let h = self.handle();
        self.executables.insert(h, Arc::new(exe));
        let ready = self.future(Ok(()));
        Ok(Response::Compile(CompileResponse {
            loaded_executable_handle: h,
            name,
            num_devices: ids.len() as i32,
            addressable_device_ids: ids.clone(),
            device_ids: ids,
            fingerprint_value: None,
            ready_future_handle: Some(ready),
        }))
    }

    fn executable_metadata(&mut self, handle: u64) -> Result<Response, ProxyError> {
        let exe = self.executable(handle)?;
        let op = |specs: &[ifrt::ArraySpec]| -> Result<ShardingList, ProxyError> {
            Ok(ShardingList {
                shardings: specs
                    .iter()
                    .map(|s| Ok(convert::op_sharding(&s.sharding.to_hlo(s.dims.len())?)))
                    .collect::<Result<_, ProxyError>>()?,
            })
        };
        let unimplemented = |what: &str| Some(ProxyError::unimplemented(what).to_status());
        Ok(Response::ExecutableMetadata(ExecutableMetadataResponse {
            parameter_shardings: Some(op(exe.parameters())?),
            output_shardings: Some(op(exe.results())?),
            output_memory_kinds: Some(OutputMemoryKind {
                status: None,
                memory_kind_lists: vec![MemoryKindList {
                    memory_kinds: vec![convert::MEMORY_KIND.into(); exe.results().len()],
                }],
            }),
            parameter_layouts_error: unimplemented("xlac reports no parameter layouts"),
            output_layouts_error: unimplemented("xlac reports no output layouts"),
            donated_input_indices_error: unimplemented("xlac reports no donated inputs"),
            compiled_memory_stats_error: unimplemented("xlac reports no memory stats here"),
        }))
    }

    fn execute(&mut self, r: ExecuteRequest) -> Result<Response, ProxyError> {
        let exe = self.executable(r.loaded_executable_handle)?;
        let args: Vec<Array> = r
            .args_handles
            .iter()
            .map(|&h| self.array(h).cloned())
            .collect::<Result<_, _>>()?;
        let outputs = match (&*exe, &mut self.job) {
            (Loaded::Local(e), _) => e.execute(&args)?,
            (Loaded::Job(e), Some(job)) => job.execute(&self.client, e, &args)?,
            (Loaded::Job(_), None) => {
                return Err(ProxyError::failed_precondition(
                    "an executable of an MPI job in a session without one",
                ));
            }
        };
        if !r.result_array_handle.is_empty() && r.result_array_handle.len() != outputs.len() {
            return Err(ProxyError::invalid(format!(
                "{} result handles for {} results",
                r.result_array_handle.len(),
                outputs.len()
            )));
        }
        let fill_status = r.execute_options.as_ref().is_some_and(|o| o.fill_status);
        let mut out = Vec::new();
        for (i, a) in outputs.into_iter().enumerate() {
            let h = self.result_handle(r.result_array_handle.get(i).copied().unwrap_or(0))?;
            out.push(ExecuteOutput {
                dtype: Some(convert::dtype_proto(a.dtype())?),
                shape: Some(ShapeProto {
                    dims: a.dims().to_vec(),
                    version_number: 0,
                }),
                sharding: Some(convert::sharding_proto(a.sharding(), a.dims().len())?),
                array_handle: h,
            });
            self.arrays.insert(h, a);
        }
        let status_handle = if !fill_status {
            0
        } else if r.result_status_handle != 0 {
            self.futures.insert(r.result_status_handle, Ok(()));
            r.result_status_handle
        } else {
            self.future(Ok(()))
        };
        Ok(Response::Execute(ExecuteResponse {
            status_handle,
            outputs: out,
        }))
    }

    fn default_device_assignment(
        &mut self,
        r: DefaultDeviceAssignmentRequest,
    ) -> Result<Response, ProxyError> {
        let total = r.num_replicas.checked_mul(r.num_partitions);
        if total.is_none_or(|t| t == 0 || t > self.config.devices as u64) {
            return Err(ProxyError::invalid(format!(
                "{} replicas x {} partitions on {} devices",
                r.num_replicas, r.num_partitions, self.config.devices
            )));
        }
        let (reps, parts) = (r.num_replicas as i64, r.num_partitions as i64);
        Ok(Response::DefaultDeviceAssignment(
            DefaultDeviceAssignmentResponse {
                device_assignment: Some(DeviceAssignmentProto {
                    replica_count: reps as i32,
                    computation_count: parts as i32,
                    computation_devices: (0..parts)
                        .map(|p| ComputationDevice {
                            replica_device_ids: (0..reps).map(|rep| rep * parts + p).collect(),
                        })
                        .collect(),
                }),
            },
        ))
    }
}
