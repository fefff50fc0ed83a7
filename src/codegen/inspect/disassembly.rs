//! What a learner reads about a kernel: its CLIF with every instruction annotated with the
//! HLO instruction it came from (`; %add.3`), and the host machine code (Capstone, AT&T
//! syntax as Cranelift configures it) with the trailing constant pool cut off (Capstone
//! would decode it as bogus instructions).

use std::fmt::{self, Write};

use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{Block, Function, Inst, Value};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::write::{FuncWriter, PlainWriter, decorate_function};

/// Writes CLIF with `; %name` comments: `names[srcloc]` is the HLO instruction that
/// emitted the CLIF instruction.
struct HloAnnotated<'a> {
    names: &'a [String],
}

impl FuncWriter for HloAnnotated<'_> {
    fn write_block_header(
        &mut self,
        w: &mut dyn Write,
        func: &Function,
        block: Block,
        indent: usize,
    ) -> fmt::Result {
        PlainWriter.write_block_header(w, func, block, indent)
    }

    fn write_instruction(
        &mut self,
        w: &mut dyn Write,
        func: &Function,
        aliases: &SecondaryMap<Value, Vec<Value>>,
        inst: Inst,
        indent: usize,
    ) -> fmt::Result {
        let mut line = String::new();
        PlainWriter.write_instruction(&mut line, func, aliases, inst, indent)?;
        let loc = func.srcloc(inst);
        let name = if loc.is_default() {
            None
        } else {
            self.names
                .get(loc.bits() as usize)
                .filter(|n| !n.is_empty())
        };
        match name {
            Some(name) => {
                let text = line.trim_end_matches('\n');
                let pad = 56usize.saturating_sub(text.len());
                writeln!(w, "{text}{:pad$} ; %{name}", "")
            }
            None => w.write_str(&line),
        }
    }
}

/// CLIF text of `func` annotated with HLO names.
pub fn annotated_clif(func: &Function, names: &[String]) -> String {
    let mut out = String::new();
    let _ = decorate_function(&mut HloAnnotated { names }, &mut out, func);
    out
}

/// Host disassembly of the last compiled function in `ctx`, without the constant pool.
pub fn host_asm(ctx: &cranelift_codegen::Context, isa: &dyn TargetIsa) -> String {
    let Some(code) = ctx.compiled_code() else {
        return String::new();
    };
    let text = match isa.to_capstone() {
        Ok(cs) => match code.disassemble(Some(&ctx.func.params), &cs) {
            Ok(t) => t,
            Err(e) => return format!("; disassembly failed: {e}\n"),
        },
        Err(e) => return format!("; no disassembler for this ISA: {e}\n"),
    };
    trim_constant_pool(&text)
}

/// Cuts the last block after its final `ret`/unconditional `jmp`: the bytes after it are the
/// constant pool.
fn trim_constant_pool(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let last_block = lines
        .iter()
        .rposition(|l| l.starts_with("block"))
        .unwrap_or(0);
    let cut = lines
        .iter()
        .enumerate()
        .skip(last_block)
        .filter(|(_, l)| {
            let t = l.trim_start();
            t.starts_with("ret") || t.starts_with("jmp ")
        })
        .map(|(i, _)| i)
        .next_back();
    let keep = cut.map(|i| i + 1).unwrap_or(lines.len());
    let mut out = lines[..keep].join("\n");
    out.push('\n');
    if keep < lines.len() {
        out.push_str("; (constant pool follows)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_after_the_last_return() {
        let text = "block0: ; offset 0x0\n  movl $1, %eax\nblock1: ; offset 0x5\n  retq\n  addb %al, (%rax)\n";
        let out = trim_constant_pool(text);
        assert!(out.contains("retq"));
        assert!(!out.contains("addb"));
    }
}
