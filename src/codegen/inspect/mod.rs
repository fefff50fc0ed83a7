//! What a learner reads about the generated code, beside the code itself: the annotated
//! CLIF and host disassembly (`disassembly.rs`), the HLO instruction behind each assembly
//! line (`asm_map.rs`), and the same kernels compiled for other ISAs (`cross_isa.rs`).
//! Nothing here changes what runs.

pub mod asm_map;
pub mod cross_isa;
pub mod disassembly;
