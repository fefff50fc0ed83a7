//! Which HLO instruction each line of a kernel's host assembly listing computes. Cranelift
//! carries every CLIF instruction's source location (xlac sets it to the HLO instruction
//! that emitted it, see `disassembly.rs`) into the machine code as ranges of code offsets
//! (`MachBufferFinalized::get_srclocs_sorted`); this file disassembles the code the way
//! `CompiledCode::disassemble` does (block by block, so the instructions come in the same
//! order as the listing's lines) and names each instruction by the range holding its
//! address. `xlac explain` and `report.html` read the result; the `.asm` file is unchanged.
//!
//! What it is not: exact for every line. Instructions Cranelift adds itself (prologue,
//! spills, moves inserted by the register allocator, loop control) have no source location
//! and get `None`.

use cranelift_codegen::Context;
use cranelift_codegen::isa::TargetIsa;

/// For each line of `disassembly::host_asm`'s listing of the function compiled in `ctx`,
/// the HLO instruction (`names[srcloc]`) it computes, or `None` (block headers, code with
/// no source location). Empty when the ISA has no disassembler.
pub fn line_names(ctx: &Context, isa: &dyn TargetIsa, names: &[String]) -> Vec<Option<String>> {
    let Some(code) = ctx.compiled_code() else {
        return Vec::new();
    };
    let Ok(cs) = isa.to_capstone() else {
        return Vec::new();
    };
    let srclocs = code.buffer.get_srclocs_sorted();
    let name_at = |offset: u64| -> Option<String> {
        let r = srclocs
            .iter()
            .find(|r| u64::from(r.start) <= offset && offset < u64::from(r.end))?;
        if r.loc.is_default() {
            return None;
        }
        names
            .get(r.loc.bits() as usize)
            .filter(|n| !n.is_empty())
            .cloned()
    };
    let data = code.buffer.data();
    let mut starts: Vec<u32> = Vec::new();
    if code.bb_starts.first().copied() != Some(0) {
        starts.push(0);
    }
    starts.extend_from_slice(&code.bb_starts);
    starts.push(data.len() as u32);
    let mut out = Vec::new();
    for w in starts.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        out.push(None); // the `blockN: ; offset 0x..` header line
        let Ok(insns) = cs.disasm_all(&data[start..end], start as u64) else {
            return Vec::new();
        };
        for i in insns.iter() {
            out.push(name_at(i.address()));
        }
    }
    out
}
