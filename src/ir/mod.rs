//! The HLO IR: one module flows through every stage of xlac.
//!
//! A [`Module`] holds [`Computation`]s; one is the entry, the others are called by
//! instructions (`to_apply=` reducers and comparators, `calls=` fused computations, while
//! bodies, conditional branches). Computations are stored in an arena and named by
//! [`ComputationId`]; print order puts callees first, the entry last.
//!
//! A [`Computation`] holds [`Instruction`]s in an arena indexed by [`InstrId`], plus `order`
//! (operands before users; this is what the printer walks and what "live" means) and a
//! `root`. Parameters are instructions with `Op::Parameter { number }`.
//!
//! An [`Instruction`] is `name = shape opcode(operands), attributes`. Its typed attributes
//! are inside [`Op`]; attributes xlac does not model are kept verbatim in `raw_attributes`.
//!
//! A [`Shape`] is an array (`f32[2,3]{1,0}`), a tuple, a token or opaque. The layout
//! `{1,0}` lists dimensions minor-to-major (fastest-varying first), so `{1,0}` is row-major.
//! [`Literal`]s store their elements in that physical order.
//!
//! A fusion instruction (`Op::Fusion`) calls a fused computation whose parameters are the
//! fusion's operands; evaluating the fusion means evaluating that computation.

#[macro_use]
mod spelled_enum;
mod attributes;
mod builder;
mod error_kind;
mod instruction;
mod literal;
mod module;
mod opcode;
mod primitive_type;
mod rewrite;
mod shape;
pub mod sharding;

pub use attributes::*;
pub use builder::ComputationBuilder;
pub(crate) use error_kind::impl_unsupported;
pub use error_kind::{ErrorKind, Refusal};
pub use instruction::{CalledComputations, CustomCall, Instruction, Op};
pub use literal::{ArrayData, ArrayLiteral, Literal, NativeType};
pub use module::{
    BufferDonor, Computation, ComputationId, FileLocation, InputOutputAlias, InstrId, Module,
    ModuleConfig, ProgramShape, Span, StackFrame, StackFrameIndex,
};
pub use opcode::{Arity, OpCategory, Opcode};
pub use primitive_type::{PrimitiveType, TypeKind};
pub use shape::{ArrayShape, Layout, Shape, ShapeIndex};
pub use sharding::HloSharding;

pub mod denormal_mode;
pub mod fp_contraction;
/// HLO modules as XLA's `HloModuleProto` (the PJRT plugin's optimized program).
pub mod kernel_ops;
pub mod provenance;
pub mod replica_groups;
pub mod shape_inference;
pub mod size;
/// StableHLO (MLIR text) ingestion: parser, conversion to HLO, CHLO decompositions.
pub mod verifier;
