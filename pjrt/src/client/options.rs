//! The client's create options: what `XLAC_PJRT_OPTIONS` and the framework's named values
//! may set (`devices`, `mode`, `asynchronous`, the `jax.distributed` ids, ...), each typed
//! and checked, with an error naming a bad one.

use super::*;

/// How a client runs compiled programs (`mode=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// xlac's whole pipeline down to Cranelift machine code (the default).
    Compiled,
    /// The reference interpreter on the module as ingested.
    Interpreter,
}

/// The client create options (`PJRT_Client_Create.create_options`, which JAX fills from
/// `register_plugin(options=...)` and `jax_pjrt_client_create_options`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClientOptions {
    /// `dump_to=DIR`: one xlac dump folder per compile, `DIR/module_NNNN.NAME/`.
    pub dump_to: Option<PathBuf>,
    /// `mode=compiled|interpreter`.
    pub mode: Mode,
    /// `threads=N`: the size of the pool kernels split their work over (default: rayon's).
    pub threads: Option<usize>,
    /// `log_calls=1|PATH`: the call log (see [`crate::call_log`]).
    pub log_calls: Option<String>,
    /// `devices=N`: simulated devices, ids 0..N-1 (default 1), sharing the pool.
    pub devices: usize,
    /// `node_id`, `num_nodes` (and `partition_index`): this process's place in a
    /// `jax.distributed` job, which jax sends when it has a distributed client.
    pub distributed: Option<Distributed>,
    /// `collectives_timeout=SECONDS`: how long a process waits in one collective across
    /// processes before it looks for the processes that are gone (default 60 s).
    pub collectives_timeout: Duration,
    /// `asynchronous=1|0`: a one-device Execute returns once its run is queued on the
    /// device's worker thread (the default), or only when the run has ended (`0`).
    pub asynchronous: bool,
}

/// How long a process waits in one collective across processes by default: with the roll
/// call's grace (at most 5 s) it stays under `jax.distributed`'s heartbeat timeout (100 s),
/// after which jax ends every process before xlac's error could reach Python.
pub const DEFAULT_COLLECTIVES_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest `collectives_timeout` accepted, in seconds (a day).
const MAX_COLLECTIVES_TIMEOUT_S: f64 = 86_400.0;

/// A process's place in a multi-process job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distributed {
    /// This process (jax's `process_id`), below `num_nodes`.
    pub node_id: usize,
    /// How many processes the job has.
    pub num_nodes: usize,
    /// `partition_index` (`JAX_PARTITION_INDEX`), recorded in the local topology.
    pub partition_index: Option<i32>,
}

impl Default for ClientOptions {
    fn default() -> ClientOptions {
        ClientOptions {
            dump_to: None,
            mode: Mode::Compiled,
            threads: None,
            log_calls: None,
            devices: 1,
            distributed: None,
            collectives_timeout: DEFAULT_COLLECTIVES_TIMEOUT,
            asynchronous: true,
        }
    }
}

/// One create option's value as the framework sent it.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    /// `kString`
    Str(String),
    /// `kInt64`
    Int(i64),
    /// `kInt64List`
    IntList(Vec<i64>),
    /// `kFloat`
    Float(f32),
    /// `kBool`
    Bool(bool),
}

impl OptionValue {
    /// As text: JAX's `"k:v;k:v"` form sends every value as a string.
    fn text(&self) -> String {
        match self {
            OptionValue::Str(s) => s.clone(),
            OptionValue::Int(i) => i.to_string(),
            OptionValue::Bool(b) => if *b { "1" } else { "0" }.to_string(),
            OptionValue::Float(f) => f.to_string(),
            OptionValue::IntList(l) => format!("{l:?}"),
        }
    }
}

/// Longest option name or string value accepted (a bound on what the caller can make us
/// copy).
const MAX_OPTION_BYTES: usize = 4096;
/// Most create options accepted.
const MAX_OPTIONS: usize = 64;

/// Reads `PJRT_NamedValue`s into `(name, value)` pairs.
///
/// # Safety
/// `values` must point at `count` valid named values.
pub unsafe fn read_named_values(
    values: *const PJRT_NamedValue,
    count: usize,
) -> Result<Vec<(String, OptionValue)>> {
    if count > MAX_OPTIONS {
        return Err(Error::invalid(format!(
            "{count} create options; at most {MAX_OPTIONS} are accepted"
        )));
    }
    // SAFETY: the caller's contract.
    let values = unsafe { slice(values, count, "create_options")? };
    let mut out = Vec::with_capacity(count);
    for v in values {
        if v.name_size > MAX_OPTION_BYTES || v.value_size > MAX_OPTION_BYTES {
            return Err(Error::invalid(format!(
                "a create option's name or value is longer than {MAX_OPTION_BYTES} bytes"
            )));
        }
        // SAFETY: the named value's pointers are valid for their sizes.
        let name = unsafe { bytes(v.name, v.name_size, "an option name")? };
        let name = String::from_utf8_lossy(name).into_owned();
        let value = match v.type_ {
            // SAFETY: `type_` says which union member is set.
            PJRT_NamedValue_kString => OptionValue::Str(
                String::from_utf8_lossy(unsafe {
                    bytes(v.value.string_value, v.value_size, "an option value")?
                })
                .into_owned(),
            ),
            PJRT_NamedValue_kInt64 => OptionValue::Int(unsafe { v.value.int64_value }),
            PJRT_NamedValue_kInt64List => OptionValue::IntList(
                unsafe { slice(v.value.int64_array_value, v.value_size, "an option value")? }
                    .to_vec(),
            ),
            PJRT_NamedValue_kFloat => OptionValue::Float(unsafe { v.value.float_value }),
            PJRT_NamedValue_kBool => OptionValue::Bool(unsafe { v.value.bool_value }),
            other => {
                return Err(Error::invalid(format!(
                    "create option '{name}' has unknown value type {other}"
                )));
            }
        };
        out.push((name, value));
    }
    Ok(out)
}

impl ClientOptions {
    /// Interprets the create options; an unknown name or a bad value is an error naming it.
    pub fn parse(values: &[(String, OptionValue)]) -> Result<ClientOptions> {
        let mut o = ClientOptions::default();
        let (mut node_id, mut num_nodes, mut partition_index) = (None, None, None);
        let number = |name: &str, text: &str, limit: usize| -> Result<usize> {
            text.parse::<usize>()
                .ok()
                .filter(|&n| n < limit)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "create option {name}={text}: expected a number from 0 to {}",
                        limit - 1
                    ))
                })
        };
        for (name, value) in values {
            let text = value.text();
            match name.as_str() {
                "dump_to" => o.dump_to = (!text.is_empty()).then(|| PathBuf::from(&text)),
                "mode" => {
                    o.mode = match text.as_str() {
                        "compiled" => Mode::Compiled,
                        "interpreter" | "interpret" => Mode::Interpreter,
                        _ => {
                            return Err(Error::invalid(format!(
                                "create option mode:{text}: expected compiled or interpreter"
                            )));
                        }
                    }
                }
                "threads" => {
                    let n: usize = text
                        .parse()
                        .ok()
                        .filter(|&n| (1..=1024).contains(&n))
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "create option threads:{text}: expected a number from 1 to 1024"
                            ))
                        })?;
                    o.threads = Some(n);
                }
                "log_calls" => o.log_calls = Some(text),
                "devices" => {
                    o.devices = text
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_DEVICES).contains(n))
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "create option devices={text}: expected a number from 1 to {MAX_DEVICES}"
                            ))
                        })?;
                }
                "collectives_timeout" => {
                    let seconds: f64 = text
                        .parse()
                        .ok()
                        .filter(|s: &f64| *s > 0.0 && *s <= MAX_COLLECTIVES_TIMEOUT_S)
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "create option collectives_timeout={text}: expected seconds, more than 0 and at most {MAX_COLLECTIVES_TIMEOUT_S}"
                            ))
                        })?;
                    o.collectives_timeout = Duration::from_secs_f64(seconds);
                }
                "asynchronous" => {
                    o.asynchronous = match text.as_str() {
                        "1" | "true" | "True" => true,
                        "0" | "false" | "False" => false,
                        _ => {
                            return Err(Error::invalid(format!(
                                "create option asynchronous:{text}: expected 1 or 0"
                            )));
                        }
                    }
                }
                "node_id" => node_id = Some(number(name, &text, MAX_PROCESSES)?),
                "num_nodes" => num_nodes = Some(number(name, &text, MAX_PROCESSES + 1)?),
                "partition_index" => {
                    partition_index = Some(number(name, &text, i32::MAX as usize)? as i32)
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "unknown create option '{name}' (xlac takes dump_to, mode, threads, log_calls, devices, collectives_timeout, asynchronous, and node_id, num_nodes, partition_index from jax.distributed)"
                    )));
                }
            }
        }
        o.distributed = match (node_id, num_nodes) {
            (None, None) if partition_index.is_none() => None,
            (Some(node_id), Some(num_nodes)) if node_id < num_nodes => Some(Distributed {
                node_id,
                num_nodes,
                partition_index,
            }),
            (Some(node_id), Some(num_nodes)) => {
                return Err(Error::invalid(format!(
                    "create option node_id={node_id} is not below num_nodes={num_nodes}"
                )));
            }
            _ => {
                return Err(Error::invalid(
                    "create options node_id and num_nodes come together (jax.distributed sends both); partition_index needs them too",
                ));
            }
        };
        Ok(o)
    }
}
