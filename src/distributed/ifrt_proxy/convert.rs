//! Between the wire messages and the library: dtypes, shapes, shardings (IFRT's serialized
//! shardings and XLA's `OpSharding`), host bytes, programs and compile options. Every
//! conversion checks what it reads (counts, ranges, sizes before allocation) and fails
//! with a [`ProxyError`] that names what was wrong.

use std::fmt;

use prost::Message;

use super::proto::*;
use crate::ifrt::{DeviceId, IfrtError, Sharding};
use crate::ir::sharding::{HloSharding, SubgroupKind, TileAssignment};
use crate::ir::{ArrayLiteral, ArrayShape, Module, PrimitiveType};

/// The memory kind of every device's one memory.
pub const MEMORY_KIND: &str = "device";

/// absl's status codes, as `tensorflow.StatusProto.code` carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// INVALID_ARGUMENT.
    InvalidArgument = 3,
    /// NOT_FOUND.
    NotFound = 5,
    /// PERMISSION_DENIED.
    PermissionDenied = 7,
    /// RESOURCE_EXHAUSTED.
    ResourceExhausted = 8,
    /// FAILED_PRECONDITION.
    FailedPrecondition = 9,
    /// UNIMPLEMENTED.
    Unimplemented = 12,
    /// INTERNAL.
    Internal = 13,
    /// UNAVAILABLE: a rank of the MPI job behind the server is gone.
    Unavailable = 14,
    /// DATA_LOSS.
    DataLoss = 15,
}

/// A failed request: its status code and one line.
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyError {
    /// The status code.
    pub code: Code,
    /// What went wrong.
    pub message: String,
}

impl ProxyError {
    fn new(code: Code, message: impl Into<String>) -> ProxyError {
        ProxyError {
            code,
            message: message.into(),
        }
    }
    /// INVALID_ARGUMENT.
    pub fn invalid(m: impl Into<String>) -> ProxyError {
        Self::new(Code::InvalidArgument, m)
    }
    /// NOT_FOUND.
    pub fn not_found(m: impl Into<String>) -> ProxyError {
        Self::new(Code::NotFound, m)
    }
    /// UNIMPLEMENTED.
    pub fn unimplemented(m: impl Into<String>) -> ProxyError {
        Self::new(Code::Unimplemented, m)
    }
    /// FAILED_PRECONDITION.
    pub fn failed_precondition(m: impl Into<String>) -> ProxyError {
        Self::new(Code::FailedPrecondition, m)
    }
    /// RESOURCE_EXHAUSTED.
    pub fn exhausted(m: impl Into<String>) -> ProxyError {
        Self::new(Code::ResourceExhausted, m)
    }
    /// UNAVAILABLE.
    pub fn unavailable(m: impl Into<String>) -> ProxyError {
        Self::new(Code::Unavailable, m)
    }
    /// DATA_LOSS.
    pub fn data_loss(m: impl Into<String>) -> ProxyError {
        Self::new(Code::DataLoss, m)
    }
    /// As a status message.
    pub fn to_status(&self) -> StatusProto {
        StatusProto {
            code: self.code as i32,
            message: self.message.clone(),
        }
    }
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl std::error::Error for ProxyError {}

impl From<IfrtError> for ProxyError {
    fn from(e: IfrtError) -> ProxyError {
        let code = match &e {
            IfrtError::Compile(_) | IfrtError::Execute(_) => Code::InvalidArgument,
            IfrtError::Unsupported(_) => Code::Unimplemented,
            IfrtError::NoSuchDevice { .. } | IfrtError::ArrayDeleted { .. } => Code::NotFound,
            _ => Code::InvalidArgument,
        };
        ProxyError::new(code, e.to_string())
    }
}

/// The request's name as the proto spells it, for the log.
pub fn request_name(r: &Request) -> &'static str {
    match r {
        Request::Init(_) => "init",
        Request::CheckFuture(_) => "check_future",
        Request::MakeArrayFromHostBuffer(_) => "make_array_from_host_buffer",
        Request::Assemble(_) => "assemble_array_from_single_device_arrays",
        Request::CopyToHostBuffer(_) => "copy_to_host_buffer",
        Request::Disassemble(_) => "disassemble_into_single_device_arrays",
        Request::CheckValueReady(_) => "check_value_ready",
        Request::DeleteArray(_) => "delete_array",
        Request::IsArrayDeleted(_) => "is_array_deleted",
        Request::DestructArray(_) => "destruct_array",
        Request::Compile(_) => "compile",
        Request::ExecutableMetadata(_) => "loaded_executable_metadata",
        Request::Execute(_) => "loaded_executable_execute",
        Request::ExecutableDelete(_) => "loaded_executable_delete",
        Request::ExecutableIsDeleted(_) => "loaded_executable_is_deleted",
        Request::ExecutableDestruct(_) => "loaded_executable_destruct",
        Request::DefaultDeviceAssignment(_) => "get_default_device_assignment",
        Request::FullyReplicatedShard(_) => "fully_replicated_shard",
        Request::HostCallbackPoll(_) => "loaded_host_callback_poll",
        Request::HostCallbackReturn(_) => "loaded_host_callback_return",
        Request::RemapArrays(_) => "remap_arrays",
        Request::CopyArrays(_) => "copy_arrays",
        Request::MakeArraysFromHostBufferShards(_) => "make_arrays_from_host_buffer_shards",
        Request::MakeErrorArrays(_) => "make_error_arrays",
        Request::DefaultLayout(_) => "get_default_layout",
        Request::CostAnalysis(_) => "loaded_executable_cost_analysis",
        Request::HumanReadableProgramText(_) => "loaded_executable_human_readable_program_text",
        Request::MpmdMetadata(_) => "loaded_executable_mpmd_metadata",
        Request::MpmdCostAnalysis(_) => "loaded_executable_mpmd_cost_analysis",
        Request::FetchExecuteResult(_) => "loaded_executable_fetch_execute_result",
        Request::ReshardArrays(_) => "reshard_arrays",
        Request::BitcastArrays(_) => "bitcast_arrays",
    }
}

/// `DTypeProto.Kind` numbers and the types xlac stores.
const DTYPES: [(i32, PrimitiveType); 15] = [
    (1, PrimitiveType::Pred),
    (2, PrimitiveType::S8),
    (3, PrimitiveType::S16),
    (4, PrimitiveType::S32),
    (5, PrimitiveType::S64),
    (6, PrimitiveType::U8),
    (7, PrimitiveType::U16),
    (8, PrimitiveType::U32),
    (9, PrimitiveType::U64),
    (10, PrimitiveType::F16),
    (11, PrimitiveType::F32),
    (12, PrimitiveType::F64),
    (15, PrimitiveType::C64),
    (16, PrimitiveType::BF16),
    (18, PrimitiveType::C128),
];

/// The element type of a `DTypeProto`.
pub fn dtype(d: Option<&DTypeProto>) -> Result<PrimitiveType, ProxyError> {
    let kind = d
        .ok_or_else(|| ProxyError::invalid("a dtype is missing"))?
        .kind;
    DTYPES
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            ProxyError::unimplemented(format!("dtype kind {kind} is not served by xlac"))
        })
}

/// The `DTypeProto` of an element type.
pub fn dtype_proto(t: PrimitiveType) -> Result<DTypeProto, ProxyError> {
    DTYPES
        .iter()
        .find(|(_, p)| *p == t)
        .map(|(kind, _)| DTypeProto {
            kind: *kind,
            version_number: 0,
        })
        .ok_or_else(|| ProxyError::unimplemented(format!("no IFRT dtype for {}", t.name())))
}

/// The dimensions of a shape, checked: non-negative, and an array of `dtype` of at most
/// `max_bytes` bytes.
pub fn dims(
    s: Option<&ShapeProto>,
    max_bytes: u64,
    dtype: PrimitiveType,
) -> Result<Vec<i64>, ProxyError> {
    let dims = &s
        .ok_or_else(|| ProxyError::invalid("a shape is missing"))?
        .dims;
    if dims.len() > 64 || dims.iter().any(|&d| d < 0) {
        return Err(ProxyError::invalid(format!("shape {dims:?}")));
    }
    match crate::ir::size::byte_size(dtype, dims) {
        Some(b) if b <= max_bytes => Ok(dims.clone()),
        _ => Err(ProxyError::exhausted(format!(
            "a {} array is over the {max_bytes}-byte limit",
            crate::ifrt::shape_text(dtype, dims)
        ))),
    }
}

/// Device ids as the library's, each one of the session's `n` devices.
pub fn device_ids(ids: &[i32], n: usize) -> Result<Vec<DeviceId>, ProxyError> {
    ids.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < n)
                .ok_or_else(|| ProxyError::invalid(format!("device {d}: there are {n} devices")))
        })
        .collect()
}

fn device_list(d: Option<&DeviceListProto>, n: usize) -> Result<Vec<DeviceId>, ProxyError> {
    let ids = &d
        .ok_or_else(|| ProxyError::invalid("a device list is missing"))?
        .device_ids;
    if ids.is_empty() {
        return Err(ProxyError::invalid("an empty device list"));
    }
    device_ids(ids, n)
}

fn decode<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M, ProxyError> {
    M::decode(bytes).map_err(|e| ProxyError::invalid(format!("{what}: {e}")))
}

/// A serialized IFRT sharding as the library's.
pub fn sharding(s: Option<&ShardingProto>, n: usize) -> Result<Sharding, ProxyError> {
    let s = s
        .and_then(|s| s.serialized_sharding.as_ref())
        .ok_or_else(|| ProxyError::invalid("a sharding is missing"))?;
    let one_or_replicated = |devices: Vec<DeviceId>| match devices.as_slice() {
        [d] => Sharding::SingleDevice { device: *d },
        _ => Sharding::Hlo {
            devices,
            sharding: HloSharding::Replicated,
        },
    };
    match s.type_name.as_str() {
        "xla::ifrt::SingleDeviceSharding" => {
            let p: SingleDeviceShardingProto = decode(&s.data, "SingleDeviceSharding")?;
            let device = device_ids(&[p.device_id], n)?[0];
            Ok(Sharding::SingleDevice { device })
        }
        "xla::ifrt::OpaqueSharding" => {
            let p: OpaqueShardingProto = decode(&s.data, "OpaqueSharding")?;
            match device_list(p.devices.as_ref(), n)?.as_slice() {
                [d] => Ok(Sharding::SingleDevice { device: *d }),
                _ => Err(ProxyError::unimplemented(
                    "an opaque sharding over several devices",
                )),
            }
        }
        "xla::ifrt::ConcreteEvenSharding" => {
            let p: ConcreteEvenShardingProto = decode(&s.data, "ConcreteEvenSharding")?;
            let devices = device_list(p.devices.as_ref(), n)?;
            if p.is_fully_replicated || devices.len() == 1 {
                Ok(one_or_replicated(devices))
            } else {
                Err(ProxyError::unimplemented(
                    "a concrete even sharding that is not replicated",
                ))
            }
        }
        "xla::ifrt::HloSharding" => {
            let p: HloShardingProto = decode(&s.data, "HloSharding")?;
            let devices = device_list(p.devices.as_ref(), n)?;
            let op = p
                .xla_op_sharding
                .as_ref()
                .ok_or_else(|| ProxyError::invalid("an HloSharding with no OpSharding"))?;
            let hlo = hlo_sharding(op, 0)?;
            Ok(match hlo {
                HloSharding::Replicated => one_or_replicated(devices),
                sharding => Sharding::Hlo { devices, sharding },
            })
        }
        other => Err(ProxyError::unimplemented(format!(
            "sharding type {other:?} is not served by xlac"
        ))),
    }
}

/// `sharding` with its devices replaced by `devices`, one for one (IFRT's `CopyArrays`).
pub fn on_devices(sharding: &Sharding, devices: &[DeviceId]) -> Result<Sharding, ProxyError> {
    if sharding.devices().len() != devices.len() {
        return Err(ProxyError::invalid(format!(
            "{} devices given for an array on {}",
            devices.len(),
            sharding.devices().len()
        )));
    }
    Ok(match sharding {
        Sharding::SingleDevice { .. } => Sharding::SingleDevice { device: devices[0] },
        Sharding::Hlo { sharding, .. } => Sharding::Hlo {
            devices: devices.to_vec(),
            sharding: sharding.clone(),
        },
        Sharding::Named { .. } => {
            return Err(ProxyError::unimplemented("copying a named-sharded array"));
        }
    })
}

/// The serialized IFRT sharding of an array of `rank` dimensions in `s`.
pub fn sharding_proto(s: &Sharding, rank: usize) -> Result<ShardingProto, ProxyError> {
    let serialized = match s {
        Sharding::SingleDevice { device } => Serialized {
            type_name: "xla::ifrt::SingleDeviceSharding".into(),
            data: SingleDeviceShardingProto {
                device_id: *device as i32,
                memory_kind: Some(MEMORY_KIND.into()),
                version_number: 0,
            }
            .encode_to_vec(),
        },
        _ => Serialized {
            type_name: "xla::ifrt::HloSharding".into(),
            data: HloShardingProto {
                devices: Some(DeviceListProto {
                    device_ids: s.devices().iter().map(|&d| d as i32).collect(),
                    version_number: 0,
                }),
                xla_op_sharding: Some(op_sharding(&s.to_hlo(rank)?)),
                memory_kind: Some(MEMORY_KIND.into()),
                version_number: 0,
            }
            .encode_to_vec(),
        },
    };
    Ok(ShardingProto {
        serialized_sharding: Some(serialized),
    })
}

const REPLICATED: i32 = 0;
const MAXIMAL: i32 = 1;
const TUPLE: i32 = 2;
const OTHER: i32 = 3;
const MANUAL: i32 = 4;
const UNKNOWN: i32 = 5;
const UNREDUCED: i32 = 6;

fn subgroup(t: i32) -> Result<SubgroupKind, ProxyError> {
    Ok(match t {
        REPLICATED => SubgroupKind::Replicated,
        MAXIMAL => SubgroupKind::Maximal,
        MANUAL => SubgroupKind::Manual,
        UNREDUCED => SubgroupKind::Unreduced,
        _ => return Err(ProxyError::invalid(format!("last_tile_dims type {t}"))),
    })
}

/// The most devices a tile assignment may name (xlac's device limit, generously).
const MAX_TILES: i64 = 1 << 16;

/// XLA's `OpSharding` as xlac's.
pub fn hlo_sharding(op: &OpSharding, depth: usize) -> Result<HloSharding, ProxyError> {
    if depth > 8 {
        return Err(ProxyError::invalid("OpSharding tuples nested too deep"));
    }
    Ok(match op.r#type {
        REPLICATED => HloSharding::Replicated,
        MANUAL => HloSharding::Manual,
        UNKNOWN => HloSharding::Unknown,
        UNREDUCED => HloSharding::Unreduced,
        MAXIMAL => HloSharding::Maximal {
            device: *op
                .tile_assignment_devices
                .first()
                .ok_or_else(|| ProxyError::invalid("a maximal OpSharding with no device"))?,
        },
        TUPLE => HloSharding::Tuple(
            op.tuple_shardings
                .iter()
                .map(|t| hlo_sharding(t, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        OTHER => {
            let dims = op.tile_assignment_dimensions.clone();
            let count = dims
                .iter()
                .try_fold(1i64, |a, &d| if d > 0 { a.checked_mul(d) } else { None })
                .filter(|&c| c <= MAX_TILES && !dims.is_empty())
                .ok_or_else(|| ProxyError::invalid(format!("tile dimensions {dims:?}")))?;
            let tiles = if !op.iota_reshape_dims.is_empty() {
                let reshape = &op.iota_reshape_dims;
                let product = reshape
                    .iter()
                    .try_fold(1i64, |a, &d| if d > 0 { a.checked_mul(d) } else { None });
                let perm: Vec<usize> = op
                    .iota_transpose_perm
                    .iter()
                    .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
                    .collect();
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                let perm_ok = perm.is_empty() || sorted.iter().copied().eq(0..reshape.len());
                if product != Some(count) || !perm_ok {
                    return Err(ProxyError::invalid(format!(
                        "iota tile assignment {reshape:?} T{perm:?} for {dims:?}"
                    )));
                }
                TileAssignment::iota(dims, reshape, &perm)
            } else {
                if op.tile_assignment_devices.len() as i64 != count {
                    return Err(ProxyError::invalid(format!(
                        "{} tile devices for tile dimensions {dims:?}",
                        op.tile_assignment_devices.len()
                    )));
                }
                TileAssignment::Explicit {
                    dims,
                    devices: op.tile_assignment_devices.clone(),
                }
            };
            let last = op
                .last_tile_dims
                .iter()
                .map(|&t| subgroup(t))
                .collect::<Result<Vec<_>, _>>()?;
            let subgroups = usize::from(op.replicate_on_last_tile_dim) + last.len();
            if subgroups > tiles.dims().len() {
                return Err(ProxyError::invalid(
                    "more subgroup dimensions than tile dimensions",
                ));
            }
            HloSharding::tiled(tiles, op.replicate_on_last_tile_dim, last)
        }
        t => return Err(ProxyError::invalid(format!("OpSharding type {t}"))),
    })
}

/// xlac's sharding as XLA's `OpSharding` (the optimized-program writer's conversion).
pub use crate::front::hlo_proto::op_sharding;

/// Where each element of a row-major walk over `dims` sits in a host buffer laid out with
/// `strides` (IFRT proxy's minimal memory region: every stride of a dimension longer than 1
/// positive and a multiple of the element size, the region ending at the last element), and
/// the region's size. `None` when the strides are the dense row-major ones.
fn strided_offsets(
    strides: Option<&ByteStrides>,
    dtype: PrimitiveType,
    dims: &[i64],
) -> Result<Option<(Vec<usize>, usize)>, ProxyError> {
    let Some(s) = strides else { return Ok(None) };
    let size = dtype.byte_size() as i64;
    let count: i64 = dims.iter().product();
    if count == 0 {
        return Ok(Some((Vec::new(), 0)));
    }
    if s.strides.len() != dims.len() {
        return Err(ProxyError::invalid(format!(
            "byte strides {:?} for {} dimensions",
            s.strides,
            dims.len()
        )));
    }
    let mut dense = true;
    let mut step = size;
    let mut last = 0i64;
    for i in (0..dims.len()).rev() {
        let (d, st) = (dims[i], s.strides[i]);
        if d > 1 {
            if st <= 0 || st % size != 0 {
                return Err(ProxyError::unimplemented(format!(
                    "byte strides {:?}: each must be positive and a multiple of {size}",
                    s.strides
                )));
            }
            dense &= st == step;
            last = st
                .checked_mul(d - 1)
                .and_then(|o| o.checked_add(last))
                .filter(|&o| o <= 1 << 40)
                .ok_or_else(|| ProxyError::invalid(format!("byte strides {:?}", s.strides)))?;
        }
        step *= d;
    }
    if dense {
        return Ok(None);
    }
    let mut offsets = Vec::with_capacity(count as usize);
    let mut index = vec![0i64; dims.len()];
    for _ in 0..count {
        let o: i64 = index
            .iter()
            .zip(&s.strides)
            .zip(dims)
            .map(|((&k, &st), &d)| if d > 1 { k * st } else { 0 })
            .sum();
        offsets.push(o as usize);
        for j in (0..dims.len()).rev() {
            index[j] += 1;
            if index[j] < dims[j] {
                break;
            }
            index[j] = 0;
        }
    }
    Ok(Some((offsets, (last + size) as usize)))
}

/// An array literal from host bytes: dense row-major, or the minimal region of `strides`.
pub fn literal_from_bytes(
    dtype: PrimitiveType,
    dims: &[i64],
    bytes: &[u8],
    strides: Option<&ByteStrides>,
) -> Result<ArrayLiteral, ProxyError> {
    let element = dtype.byte_size();
    let gathered;
    let bytes = match strided_offsets(strides, dtype, dims)? {
        None => bytes,
        Some((offsets, region)) => {
            if bytes.len() != region {
                return Err(ProxyError::invalid(format!(
                    "a host buffer of {} bytes for {} with byte strides {:?} ({region} bytes)",
                    bytes.len(),
                    crate::ifrt::shape_text(dtype, dims),
                    strides.map(|s| &s.strides)
                )));
            }
            gathered = offsets
                .iter()
                .flat_map(|&o| &bytes[o..o + element])
                .copied()
                .collect::<Vec<u8>>();
            &gathered
        }
    };
    let want = crate::ir::size::byte_size(dtype, dims);
    if want != Some(bytes.len() as u64) {
        return Err(ProxyError::invalid(format!(
            "a host buffer of {} bytes for {} ({} bytes)",
            bytes.len(),
            crate::ifrt::shape_text(dtype, dims),
            want.map_or("too many".into(), |w| w.to_string())
        )));
    }
    let shape = ArrayShape::new(dtype, dims);
    if dtype == PrimitiveType::Pred {
        let bools: Vec<u8> = bytes.iter().map(|&b| u8::from(b != 0)).collect();
        // SAFETY: `bools` holds exactly `shape.byte_size()` bytes (checked above), each 0 or 1.
        return Ok(unsafe { crate::runtime::buffers::read_array(bools.as_ptr(), &shape) });
    }
    // SAFETY: `bytes` holds exactly `shape.byte_size()` bytes (checked above), row-major.
    Ok(unsafe { crate::runtime::buffers::read_array(bytes.as_ptr(), &shape) })
}

/// A literal's host bytes: dense row-major, or laid out with `strides` in their minimal
/// region.
pub fn literal_to_bytes(
    a: &ArrayLiteral,
    strides: Option<&ByteStrides>,
) -> Result<Vec<u8>, ProxyError> {
    let a = a.to_row_major();
    let dense = crate::runtime::buffers::literal_bytes(&a);
    let element = a.element_type().byte_size();
    match strided_offsets(strides, a.element_type(), &a.shape.dims)? {
        None => Ok(dense.to_vec()),
        Some((offsets, region)) => {
            let mut out = vec![0u8; region];
            for (k, &o) in offsets.iter().enumerate() {
                out[o..o + element].copy_from_slice(&dense[k * element..(k + 1) * element]);
            }
            Ok(out)
        }
    }
}

/// The module of a serialized `xla::ifrt::XlaProgram` (a StableHLO portable artifact).
pub fn program(p: Option<&Serialized>) -> Result<Module, ProxyError> {
    use crate::front::stablehlo::bytecode;
    let p = p.ok_or_else(|| ProxyError::invalid("a compile request with no program"))?;
    if p.type_name != "xla::ifrt::XlaProgram" {
        return Err(ProxyError::unimplemented(format!(
            "program type {:?}: xlac compiles xla::ifrt::XlaProgram",
            p.type_name
        )));
    }
    let file = "program.mlirbc";
    if !bytecode::is_bytecode(&p.data) {
        return Err(ProxyError::invalid("the program is not MLIR bytecode"));
    }
    let ast = bytecode::read(&p.data)
        .map_err(|e| ProxyError::invalid(bytecode::located(file, e).to_string()))?;
    let module = bytecode::to_module(&ast, file).map_err(|e| ProxyError::invalid(e.to_string()))?;
    if let Err(errors) = crate::ir::verifier::verify(&module) {
        let first = errors
            .first()
            .map_or("the verifier rejected the module".into(), |e| e.to_string());
        return Err(ProxyError::invalid(format!("{file}: {first}")));
    }
    Ok(module)
}

/// The devices of a compile (partition `p` on the `p`th), from serialized
/// `xla::ifrt::XlaCompileOptions`; `None` when the options name none.
pub fn compile_devices(
    o: Option<&Serialized>,
    n: usize,
) -> Result<Option<Vec<DeviceId>>, ProxyError> {
    let Some(o) = o else { return Ok(None) };
    if o.type_name != "xla::ifrt::XlaCompileOptions" {
        return Err(ProxyError::unimplemented(format!(
            "compile options type {:?}",
            o.type_name
        )));
    }
    let p: XlaCompileOptionsProto = decode(&o.data, "XlaCompileOptions")?;
    let Some(build) = p.compile_options.and_then(|c| c.executable_build_options) else {
        return Ok(None);
    };
    if build.num_replicas > 1 {
        return Err(ProxyError::unimplemented(format!(
            "{} replicas: xlac's IFRT proxy compiles partitions only",
            build.num_replicas
        )));
    }
    let Some(da) = build.device_assignment else {
        return Ok(None);
    };
    // computation_devices[p].replica_device_ids[0]: partition p's device.
    let ids: Vec<i32> = da
        .computation_devices
        .iter()
        .map(|c| {
            c.replica_device_ids
                .first()
                .and_then(|&d| i32::try_from(d).ok())
                .ok_or_else(|| ProxyError::invalid("a device assignment row with no device"))
        })
        .collect::<Result<_, _>>()?;
    if ids.is_empty() {
        return Ok(None);
    }
    device_ids(&ids, n).map(Some)
}
