//! `xlac explain MODEL INSTR`: one instruction's story through the compiler, from facts the
//! stages recorded: the passes that rewrote it (the provenance log the passes write,
//! `crate::ir::provenance`), the fusion it landed in and the rule (the fusion pass's
//! decision), its layout (the final HLO), its buffer and offset (buffer assignment), its
//! kernel, the CLIF lines that compute it (the `; %name` comments codegen writes from the
//! Cranelift source locations) and that kernel's assembly.
//!
//! What it is not: a guess from names. An instruction the log loses track of (a pass that
//! rebuilt it from scratch without a rewrite helper) is reported as "no longer in the final
//! module" rather than matched by name. XLA has no such tool; the closest are the pass
//! dumps and `HloInstruction::metadata`.
//!
//! Files: `lookup.rs` finds the instruction, `trace.rs` follows it through the log,
//! `story.rs` gathers what the later stages say about it and prints it.

mod lookup;
mod story;
mod trace;

pub use lookup::{Found, closest_names, find_instructions};
pub use story::{BufferFact, ClifLine, Location, Story};
pub use trace::{Step, follow};

use crate::compiler::Compiled;
use crate::ir::Module;

/// The story of every instruction of `input` (the module as given, before any pass) that
/// `query` names, in the compile `compiled` (which must have been compiled from `input`
/// with kernel artifacts kept). `Err` says nothing matched and lists close names.
pub fn explain(input: &Module, compiled: &Compiled, query: &str) -> Result<Vec<Story>, String> {
    let found = find_instructions(input, query)?;
    Ok(found
        .iter()
        .map(|f| story::tell(input, f, compiled))
        .collect())
}
