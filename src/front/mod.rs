//! The front ends: the formats a program arrives in, read into the one IR (`crate::ir`)
//! and written back out. Set apart from the IR core as naga's `front/` is: the IR knows
//! nothing of any format, and each reader here depends only on `ir`.
//!
//! - `hlo_text`: XLA's HLO text, parsed and printed (the dump's format, what XLA's own
//!   parser accepts);
//! - `stablehlo`: StableHLO as MLIR text and as a portable artifact (MLIR bytecode, VHLO),
//!   with CHLO's decompositions and the conversion to HLO;
//! - `hlo_proto`: `HloModuleProto` in protobuf wire format (what a PJRT client hands over
//!   for an HLO program).

pub mod hlo_proto;
pub mod hlo_text;
pub mod stablehlo;
