//! A compile's option overrides: `jax.jit(f, compiler_options={...})` reaches the plugin as
//! `CompileOptionsProto.env_option_overrides` (field 7), a map from an option's name to an
//! `OptionOverrideProto` (`string_field` = 1, `bool_field` = 2, `int_field` = 3,
//! `double_field` = 4). XLA's PJRT clients apply each to the `DebugOptions` field of that
//! name, or to one of a few build options, and refuse the compile when the name is unknown or
//! the value does not fit the field: JAX users rely on both errors to catch a typo. xlac
//! checks them the same way; it honours none of XLA's debug options (its own are the
//! client's create options), so a valid override changes nothing. The list of fields is
//! jaxlib's own (`debug_options.txt`, written by `scripts/xla_debug_options.py`).
//! XLA: `xla/pjrt/pjrt_executable.cc` (`CompileOptions::ApplyOption`).

use crate::error::{Error, Result};

/// An override's value, as the proto's `oneof` carries it.
#[derive(Clone, Debug, PartialEq)]
pub enum OverrideValue {
    /// `string_field`: parsed as the field's type.
    String(String),
    /// `bool_field`.
    Bool(bool),
    /// `int_field`.
    Int(i64),
    /// `double_field`.
    Double(f64),
}

/// The type of a `DebugOptions` field, as far as checking a value needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FieldType {
    Bool,
    Int,
    Float,
    String,
    Enum,
    /// A message or repeated field: XLA cannot set those from an override.
    Unsettable,
}

/// jaxlib's `DebugOptions` fields: `name single|repeated type` per line.
const DEBUG_OPTIONS: &str = include_str!("debug_options.txt");

/// Build options XLA sets from overrides besides the debug options.
const BUILD_OPTIONS: [(&str, FieldType); 4] = [
    ("exec_time_optimization_effort", FieldType::Float),
    ("memory_fitting_effort", FieldType::Float),
    ("optimization_level", FieldType::Enum),
    ("memory_fitting_level", FieldType::Enum),
];

fn field_type(name: &str) -> Option<FieldType> {
    if let Some((_, t)) = BUILD_OPTIONS.iter().find(|(n, _)| *n == name) {
        return Some(*t);
    }
    DEBUG_OPTIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let mut parts = line.split_whitespace();
            (parts.next()? == name).then_some(())?;
            let label = parts.next()?;
            let ty = parts.next()?;
            Some(match (label, ty) {
                ("repeated", _) | (_, "message") => FieldType::Unsettable,
                (_, "bool") => FieldType::Bool,
                (_, "int32" | "int64" | "uint32" | "uint64" | "sint32" | "sint64") => {
                    FieldType::Int
                }
                (_, "float" | "double") => FieldType::Float,
                (_, "enum") => FieldType::Enum,
                _ => FieldType::String,
            })
        })
}

/// absl's `SimpleAtob`: the spellings XLA takes for a bool given as a string.
fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "t" | "yes" | "y" | "1" => Some(true),
        "false" | "f" | "no" | "n" | "0" => Some(false),
        _ => None,
    }
}

/// Checks one override as XLA would apply it: an error names the option and what is wrong.
pub fn check(key: &str, value: &OverrideValue) -> Result<()> {
    let Some(ty) = field_type(key) else {
        return Err(Error::invalid(format!("No such compile option: '{key}'")));
    };
    let fits = match (ty, value) {
        (FieldType::Unsettable, _) => {
            return Err(Error::invalid(format!(
                "compile option '{key}' is a repeated or message field, which an override \
                 cannot set"
            )));
        }
        (FieldType::Bool, OverrideValue::String(s)) => {
            if parse_bool(s).is_none() {
                return Err(Error::invalid(format!(
                    "While setting option {key}, '{s}' is not a valid bool value."
                )));
            }
            true
        }
        (FieldType::Int, OverrideValue::String(s)) => {
            if s.trim().parse::<i64>().is_err() {
                return Err(Error::invalid(format!(
                    "While setting option {key}, '{s}' is not a valid integer value."
                )));
            }
            true
        }
        (FieldType::Float, OverrideValue::String(s)) => {
            if s.trim().parse::<f64>().is_err() {
                return Err(Error::invalid(format!(
                    "While setting option {key}, '{s}' is not a valid float value."
                )));
            }
            true
        }
        (FieldType::String | FieldType::Enum, OverrideValue::String(_)) => true,
        (FieldType::Bool, OverrideValue::Bool(_)) => true,
        (FieldType::Int | FieldType::Enum, OverrideValue::Int(_)) => true,
        (FieldType::Float, OverrideValue::Double(_) | OverrideValue::Int(_)) => true,
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "compile option '{key}' is a {ty:?} option; the value {value:?} does not fit it"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_are_checked_as_xla_checks_them() {
        use OverrideValue::*;
        for (key, value) in [
            ("xla_embed_ir_in_executable", Bool(true)),
            ("xla_embed_ir_in_executable", String("false".into())),
            ("xla_cpu_enable_fast_math", String("TRUE".into())),
            ("exec_time_optimization_effort", Double(0.0)),
            ("optimization_level", Int(1)),
            ("xla_dump_to", String("/tmp/x".into())),
        ] {
            check(key, &value).unwrap_or_else(|e| panic!("{key}: {}", e.message));
        }
        let message = |key: &str, value: OverrideValue| check(key, &value).unwrap_err().message;
        assert!(
            message("invalid_key", String("invalid_value".into()))
                .contains("No such compile option: 'invalid_key'")
        );
        assert!(message("exec_time_compilation_effort", Double(0.0)).contains("No such"));
        assert!(
            message("xla_embed_ir_in_executable", String("invalid_value".into()))
                .contains("is not a valid bool value.")
        );
        assert!(message("xla_embed_ir_in_executable", Double(1.0)).contains("does not fit"));
    }

    #[test]
    fn the_field_list_is_jaxlibs() {
        let fields = DEBUG_OPTIONS
            .lines()
            .filter(|l| !l.starts_with('#'))
            .count();
        assert!(fields > 300, "{fields}");
        assert_eq!(
            field_type("xla_embed_ir_in_executable"),
            Some(FieldType::Bool)
        );
        assert_eq!(field_type("xla_dump_to"), Some(FieldType::String));
    }
}
