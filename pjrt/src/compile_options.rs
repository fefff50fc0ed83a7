//! What xlac reads of the serialized `CompileOptionsProto` the framework sends with each
//! compile: the replica and partition counts and the device assignment
//! (`executable_build_options` = field 3; in it `num_replicas` = 4, `num_partitions` = 5,
//! `use_spmd_partitioning` = 6, `allow_spmd_sharding_propagation_to_output` = 12 and
//! `_to_parameters` = 18 (repeated bools), `device_assignment` = 9, a `DeviceAssignmentProto` of `replica_count` = 1,
//! `computation_count` = 2 and `computation_devices` = 3, each holding
//! `replica_device_ids` = 1), and the option overrides (`env_option_overrides` = 7, each
//! checked by [`option_overrides::check`]). Everything else (debug options, layouts, ...)
//! is skipped.
//!
//! A protobuf message is a sequence of `(field << 3 | wire type)` varint keys, each
//! followed by a varint (type 0), 8 bytes (1), a varint length and that many bytes (2), or
//! 4 bytes (5). The walker below reads exactly that, bounded: the input size is capped,
//! and every length is checked against what is left. XLA: `xla/pjrt/proto/compile_options.proto`,
//! `xla/xla_data.proto`.

use crate::error::{Code, Error, Result};
use crate::option_overrides::{self, OverrideValue};

/// The largest options message accepted (JAX sends about 1 KB).
pub const MAX_COMPILE_OPTIONS_BYTES: usize = 1 << 20;
/// The most devices a device assignment may list.
const MAX_ASSIGNED_DEVICES: usize = 1 << 16;

/// What a compile was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// `num_replicas` (1 when absent).
    pub num_replicas: i64,
    /// `num_partitions` (1 when absent).
    pub num_partitions: i64,
    /// The device assignment: `devices[computation][replica]`, if one was given.
    pub device_assignment: Option<Vec<Vec<i64>>>,
    /// `use_spmd_partitioning`.
    pub use_spmd_partitioning: bool,
    /// `allow_spmd_sharding_propagation_to_parameters`: per parameter (or one for all),
    /// true where the caller left the sharding to the compiler.
    pub propagate_to_parameters: Vec<bool>,
    /// `allow_spmd_sharding_propagation_to_output`: the same for the outputs.
    pub propagate_to_output: Vec<bool>,
}

impl CompileOptions {
    /// The devices in execution order (`replica * partitions + partition`): the assignment's,
    /// or 0..N-1 without one. An error if the assignment's size is not the grid's.
    pub fn devices(&self) -> Result<Vec<i64>> {
        let (r, p) = (self.num_replicas, self.num_partitions);
        let bad = |m: String| Error::invalid(format!("error: {m}"));
        if r < 1 || p < 1 || r.saturating_mul(p) > MAX_ASSIGNED_DEVICES as i64 {
            return Err(bad(format!("{r} replicas x {p} partitions")));
        }
        let Some(a) = &self.device_assignment else {
            return Ok((0..r * p).collect());
        };
        if a.len() as i64 != p || a.iter().any(|c| c.len() as i64 != r) {
            return Err(bad(format!(
                "the device assignment {a:?} is not {p} computations of {r} replicas"
            )));
        }
        Ok((0..r as usize)
            .flat_map(|replica| a.iter().map(move |c| c[replica]))
            .collect())
    }
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            num_replicas: 1,
            num_partitions: 1,
            device_assignment: None,
            use_spmd_partitioning: false,
            propagate_to_parameters: Vec::new(),
            propagate_to_output: Vec::new(),
        }
    }
}

/// One field's value.
enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32,
}

impl Value<'_> {
    /// A fixed64 field read as a double.
    fn double(&self) -> Option<f64> {
        match self {
            Value::Fixed64(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }
}

/// Reads one message's fields in order.
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    /// Which message this is, for errors.
    what: &'static str,
}

impl<'a> Fields<'a> {
    fn new(data: &'a [u8], what: &'static str) -> Fields<'a> {
        Fields { data, pos: 0, what }
    }

    fn error(&self, message: &str) -> Error {
        Error::invalid(format!(
            "compile options: {} at byte {}: {message}",
            self.what, self.pos
        ))
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.error("truncated varint"));
            };
            self.pos += 1;
            if i == 9 && b > 1 {
                return Err(self.error("varint longer than 64 bits"));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.error("varint longer than 10 bytes"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| self.error(&format!("a field of {n} bytes runs past the end")))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// The next `(field number, value)`, or `None` at the end.
    fn next(&mut self) -> Result<Option<(u64, Value<'a>)>> {
        if self.pos == self.data.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let field = key >> 3;
        if field == 0 {
            return Err(self.error("field number 0"));
        }
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                let bytes = self.take(8)?;
                Value::Fixed64(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
            }
            2 => {
                let n = self.varint()?;
                let n =
                    usize::try_from(n).map_err(|_| self.error("length over the address space"))?;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Value::Fixed32
            }
            t => return Err(self.error(&format!("wire type {t} (groups are not used by XLA)"))),
        };
        Ok(Some((field, value)))
    }
}

/// Parses the serialized `CompileOptionsProto`. Empty bytes mean all defaults.
pub fn parse(bytes: &[u8]) -> Result<CompileOptions> {
    if bytes.len() > MAX_COMPILE_OPTIONS_BYTES {
        return Err(Error::new(
            Code::ResourceExhausted,
            format!(
                "compile options of {} bytes; at most {MAX_COMPILE_OPTIONS_BYTES} are accepted",
                bytes.len()
            ),
        ));
    }
    let mut options = CompileOptions::default();
    let mut top = Fields::new(bytes, "CompileOptionsProto");
    while let Some((field, value)) = top.next()? {
        match (field, value) {
            (3, Value::Bytes(build)) => read_build_options(build, &mut options)?,
            (7, Value::Bytes(entry)) => read_option_override(entry)?,
            _ => {}
        }
    }
    Ok(options)
}

/// One `env_option_overrides` map entry (key = 1, an `OptionOverrideProto` = 2), checked.
fn read_option_override(entry: &[u8]) -> Result<()> {
    let mut f = Fields::new(entry, "env_option_overrides");
    let mut key = String::new();
    let mut value = None;
    while let Some((field, v)) = f.next()? {
        match (field, v) {
            (1, Value::Bytes(k)) => {
                key = String::from_utf8(k.to_vec())
                    .map_err(|_| f.error("an option name is not UTF-8"))?;
            }
            (2, Value::Bytes(o)) => {
                let mut g = Fields::new(o, "OptionOverrideProto");
                while let Some((field, v)) = g.next()? {
                    value = Some(match (field, &v) {
                        (1, Value::Bytes(s)) => OverrideValue::String(
                            String::from_utf8(s.to_vec())
                                .map_err(|_| g.error("a string value is not UTF-8"))?,
                        ),
                        (2, Value::Varint(b)) => OverrideValue::Bool(*b != 0),
                        (3, Value::Varint(i)) => OverrideValue::Int(*i as i64),
                        (4, _) => OverrideValue::Double(
                            v.double()
                                .ok_or_else(|| g.error("double_field is not a fixed64"))?,
                        ),
                        _ => return Err(g.error(&format!("field {field} is not a value"))),
                    });
                }
            }
            _ => return Err(f.error(&format!("field {field} of a map entry"))),
        }
    }
    let value = value.ok_or_else(|| f.error(&format!("option '{key}' has no value")))?;
    option_overrides::check(&key, &value)
}

fn int(value: &Value<'_>, fields: &Fields<'_>, name: &str) -> Result<i64> {
    match value {
        Value::Varint(v) => Ok(*v as i64),
        _ => Err(fields.error(&format!("{name} is not a varint"))),
    }
}

fn read_build_options(bytes: &[u8], options: &mut CompileOptions) -> Result<()> {
    let mut f = Fields::new(bytes, "ExecutableBuildOptionsProto");
    while let Some((field, value)) = f.next()? {
        match field {
            4 => options.num_replicas = int(&value, &f, "num_replicas")?,
            5 => options.num_partitions = int(&value, &f, "num_partitions")?,
            6 => options.use_spmd_partitioning = int(&value, &f, "use_spmd_partitioning")? != 0,
            12 => bools(&value, &mut options.propagate_to_output)?,
            18 => bools(&value, &mut options.propagate_to_parameters)?,
            9 => {
                let Value::Bytes(da) = value else {
                    return Err(f.error("device_assignment is not a message"));
                };
                options.device_assignment = Some(read_device_assignment(da)?);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Appends a repeated bool field's values (one varint, or packed).
fn bools(value: &Value<'_>, out: &mut Vec<bool>) -> Result<()> {
    match value {
        Value::Varint(v) => out.push(*v != 0),
        Value::Bytes(packed) => {
            let mut p = Fields::new(packed, "repeated bool");
            while p.pos < packed.len() {
                out.push(p.varint()? != 0);
                if out.len() > MAX_ASSIGNED_DEVICES {
                    return Err(p.error("too many values"));
                }
            }
        }
        _ => return Err(Error::invalid("a repeated bool is not a varint")),
    }
    Ok(())
}

/// The serialized `DeviceAssignmentProto` of `devices` (in execution order, replica-major)
/// for `replicas x partitions`.
pub fn device_assignment_bytes(replicas: usize, partitions: usize, devices: &[i64]) -> Vec<u8> {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut out = Vec::new();
    out.push(0x08);
    varint(replicas as u64, &mut out);
    out.push(0x10);
    varint(partitions as u64, &mut out);
    for p in 0..partitions {
        let mut packed = Vec::new();
        for r in 0..replicas {
            varint(devices[r * partitions + p] as u64, &mut packed);
        }
        let mut computation = vec![0x0a];
        varint(packed.len() as u64, &mut computation);
        computation.extend(packed);
        out.push(0x1a);
        varint(computation.len() as u64, &mut out);
        out.extend(computation);
    }
    out
}

fn read_device_assignment(bytes: &[u8]) -> Result<Vec<Vec<i64>>> {
    let mut f = Fields::new(bytes, "DeviceAssignmentProto");
    let mut computations = Vec::new();
    let mut total = 0usize;
    while let Some((field, value)) = f.next()? {
        if field != 3 {
            continue;
        }
        let Value::Bytes(cd) = value else {
            return Err(f.error("computation_devices is not a message"));
        };
        let mut ids = Vec::new();
        let mut c = Fields::new(cd, "ComputationDevice");
        while let Some((field, value)) = c.next()? {
            if field != 1 {
                continue;
            }
            match value {
                Value::Varint(v) => ids.push(v as i64),
                // Packed repeated int64.
                Value::Bytes(packed) => {
                    let mut p = Fields::new(packed, "replica_device_ids");
                    while p.pos < packed.len() {
                        ids.push(p.varint()? as i64);
                        total += 1;
                        if total > MAX_ASSIGNED_DEVICES {
                            return Err(p.error("too many devices"));
                        }
                    }
                }
                _ => return Err(c.error("replica_device_ids is not an int64")),
            }
        }
        total += ids.len();
        if total > MAX_ASSIGNED_DEVICES {
            return Err(f.error("too many devices"));
        }
        computations.push(ids);
    }
    Ok(computations)
}

/// The serialized `DeviceAssignmentProto` of one replica and one computation on device 0:
/// `replica_count = 1`, `computation_count = 1`, `computation_devices { replica_device_ids: 0 }`.
pub const SINGLE_DEVICE_ASSIGNMENT: [u8; 9] =
    [0x08, 0x01, 0x10, 0x01, 0x1a, 0x03, 0x0a, 0x01, 0x00];

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn field_bytes(field: u64, bytes: &[u8], out: &mut Vec<u8>) {
        varint(field << 3 | 2, out);
        varint(bytes.len() as u64, out);
        out.extend_from_slice(bytes);
    }

    fn field_int(field: u64, v: u64, out: &mut Vec<u8>) {
        varint(field << 3, out);
        varint(v, out);
    }

    /// A message shaped like JAX's: device_ordinal -1, debug options, replicas, partitions,
    /// the device assignment, and top-level fields around it.
    fn jax_like(replicas: u64, partitions: u64) -> Vec<u8> {
        let mut build = Vec::new();
        field_int(1, u64::MAX, &mut build); // device_ordinal = -1
        field_bytes(3, &[0x08, 0x01, 0x10, 0x00, 0xa8, 0x01, 0x01], &mut build);
        field_int(4, replicas, &mut build);
        field_int(5, partitions, &mut build);
        field_int(6, 1, &mut build);
        field_bytes(9, &SINGLE_DEVICE_ASSIGNMENT, &mut build);
        let mut top = Vec::new();
        field_bytes(3, &build, &mut top);
        field_int(5, u64::MAX, &mut top);
        field_int(9, 1, &mut top);
        top
    }

    /// JAX's options with one `compiler_options` entry, `value` an `OptionOverrideProto`.
    fn with_override(key: &str, value: &[u8]) -> Vec<u8> {
        let mut entry = Vec::new();
        field_bytes(1, key.as_bytes(), &mut entry);
        field_bytes(2, value, &mut entry);
        let mut top = jax_like(1, 1);
        field_bytes(7, &entry, &mut top);
        top
    }

    #[test]
    fn option_overrides_are_checked() {
        // Bytes as jaxlib 0.10.2 writes them (`CompileOptions.env_option_overrides`).
        let string = |s: &str| {
            let mut v = Vec::new();
            field_bytes(1, s.as_bytes(), &mut v);
            v
        };
        parse(&with_override("xla_embed_ir_in_executable", &[0x10, 0x01])).unwrap();
        let mut effort = vec![0x21];
        effort.extend_from_slice(&0.5f64.to_le_bytes());
        parse(&with_override("exec_time_optimization_effort", &effort)).unwrap();
        let e = parse(&with_override("invalid_key", &string("invalid_value"))).unwrap_err();
        assert!(
            e.message.contains("No such compile option: 'invalid_key'"),
            "{}",
            e.message
        );
        let e = parse(&with_override(
            "xla_embed_ir_in_executable",
            &string("invalid_value"),
        ))
        .unwrap_err();
        assert!(
            e.message.contains("is not a valid bool value."),
            "{}",
            e.message
        );
        let e = parse(&with_override("exec_time_optimization_effort", &[0x21, 0])).unwrap_err();
        assert!(e.message.contains("runs past the end"), "{}", e.message);
    }

    #[test]
    fn device_assignment_bytes_round_trip() {
        assert_eq!(
            device_assignment_bytes(1, 1, &[0]),
            SINGLE_DEVICE_ASSIGNMENT.to_vec()
        );
        let bytes = device_assignment_bytes(2, 3, &[5, 4, 3, 2, 1, 0]);
        let o = CompileOptions {
            num_replicas: 2,
            num_partitions: 3,
            device_assignment: Some(read_device_assignment(&bytes).unwrap()),
            ..CompileOptions::default()
        };
        assert_eq!(o.devices().unwrap(), vec![5, 4, 3, 2, 1, 0]);
    }

    #[test]
    fn reads_replicas_partitions_and_assignment() {
        let o = parse(&jax_like(1, 1)).unwrap();
        assert_eq!(o.num_replicas, 1);
        assert_eq!(o.num_partitions, 1);
        assert_eq!(o.device_assignment, Some(vec![vec![0]]));
        let o = parse(&jax_like(2, 4)).unwrap();
        assert_eq!((o.num_replicas, o.num_partitions), (2, 4));
        assert_eq!(parse(&[]).unwrap(), CompileOptions::default());
    }

    #[test]
    fn bad_messages_are_errors_with_offsets() {
        let good = jax_like(1, 1);
        for cut in 1..good.len() {
            // Every strict prefix that ends inside a field is an error, never a panic.
            let _ = parse(&good[..cut]);
        }
        let e = parse(&good[..good.len() - 1]).unwrap_err();
        assert!(e.message.contains("at byte"), "{}", e.message);
        assert!(parse(&[0x0b]).unwrap_err().message.contains("wire type 3"));
        assert!(
            parse(&[0x00])
                .unwrap_err()
                .message
                .contains("field number 0")
        );
        assert!(parse(&[0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
        assert!(parse(&[0x08; 11]).is_err());
        let e = parse(&vec![0u8; MAX_COMPILE_OPTIONS_BYTES + 1]).unwrap_err();
        assert_eq!(e.code, Code::ResourceExhausted);
    }

    /// The plugin's entry for device counts: a grid over the cap (or one whose product
    /// overflows) is refused before any list of devices is made from it.
    #[test]
    fn a_huge_grid_is_refused_before_its_devices_are_listed() {
        let o = parse(&jax_like(1, 1_000_000_000)).unwrap();
        let e = o.devices().unwrap_err();
        assert!(
            e.message.contains("1 replicas x 1000000000 partitions"),
            "{}",
            e.message
        );
        let o = CompileOptions {
            num_replicas: i64::MAX,
            num_partitions: i64::MAX,
            ..CompileOptions::default()
        };
        assert!(o.devices().is_err());
        let o = CompileOptions {
            num_partitions: 0,
            ..CompileOptions::default()
        };
        assert!(o.devices().is_err());
    }

    /// A bounded fuzz loop: mutated JAX-like messages never panic.
    #[test]
    fn mutations_never_panic() {
        // With one override, so mutations reach its map entry and value too.
        let good = with_override("xla_embed_ir_in_executable", &[0x10, 0x01]);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut m = good.clone();
            let flips = 1 + (state % 4) as usize;
            for k in 0..flips {
                let i = ((state >> (8 * k)) as usize) % m.len();
                m[i] ^= (state >> (3 + k)) as u8 | 1;
            }
            if state.is_multiple_of(7) {
                m.truncate((state >> 20) as usize % m.len());
            }
            let _ = parse(&m);
        }
    }
}
