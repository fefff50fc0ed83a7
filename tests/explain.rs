//! `xlac explain`: the story of gelu's `tanh` in the transformer block, each claim checked
//! against the dump folder of the same compile (the fusion decisions, the final HLO, the
//! buffer assignment, the thunk sequence, the kernel's CLIF and assembly files), which the
//! explain code does not read. Plus the command line: the printed story, lookups by
//! `op_name` and source line, and the not-found error.

use std::path::{Path, PathBuf};
use std::process::Command;

use xlac::compiler::{CompileOptions, compile};
use xlac::explain::{Story, explain};
use xlac::front::hlo_text::parse_module;

const TRANSFORMER: &str = "testdata/bench/transformer_block/model.hlo";

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xlac-explain-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Compiles the transformer block with a dump and explains `query`. The math stays inline
/// (`--inline-math`): the story follows tanh's own CLIF and assembly, not a block routine.
fn explain_transformer(query: &str, dump: &Path) -> Vec<Story> {
    let text = std::fs::read_to_string(TRANSFORMER).unwrap();
    let input = parse_module(&text, TRANSFORMER).unwrap().module;
    let options = CompileOptions {
        dump_to: Some(dump.to_path_buf()),
        inline_math: true,
        ..CompileOptions::default()
    };
    let compiled = compile(input.clone(), &options).expect("compiles");
    explain(&input, &compiled, query).expect("finds the instruction")
}

#[test]
fn gelu_tanh_story_matches_the_dump() {
    // In the input, gelu's tanh is `tanh.1 = f32[8,128,1024]{2,1,0} tanh(mul.43)` (the only
    // tanh of the model; checked here rather than assumed).
    let text = std::fs::read_to_string(TRANSFORMER).unwrap();
    let tanhs: Vec<&str> = text.lines().filter(|l| l.contains(" tanh(")).collect();
    assert_eq!(tanhs.len(), 1, "{tanhs:?}");
    assert!(tanhs[0].trim_start().starts_with("tanh.1 = "));

    let dump = temp_dir("tanh");
    let stories = explain_transformer("tanh.1", &dump);
    assert_eq!(stories.len(), 1);
    let story = &stories[0];
    assert_eq!(story.locations.len(), 1, "{story}");
    let loc = &story.locations[0];

    // Fusion and rule: the decision line for tanh.1 in fusion-decisions.txt.
    let (fusion, kind) = loc.fusion.clone().expect("gelu's tanh is fused");
    let decisions = read(&dump, &story.dump_file("fusion-decisions.txt"));
    let line = decisions
        .lines()
        .find(|l| l.trim_start().starts_with("fused ") && l.contains(" tanh.1 -> "))
        .expect("a decision fused tanh.1");
    assert!(
        line.contains(&format!("(into {fusion})")),
        "{line} vs {fusion}"
    );
    let rule = loc.rule.clone().expect("the story names the rule");
    assert!(line.ends_with(&format!(": {rule}")), "{line} vs {rule}");

    // Final HLO: the fusion calls the computation that holds tanh.1, with that line.
    let hlo = read(&dump, &story.dump_file("cpu_after_optimizations.txt"));
    let fusion_line = hlo
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("%{fusion} = ")))
        .expect("the fusion is in the final HLO");
    assert!(
        fusion_line.contains(&format!("kind={kind}")),
        "{fusion_line}"
    );
    assert!(
        fusion_line.contains(&format!("calls=%{}", loc.computation)),
        "{fusion_line} vs {}",
        loc.computation
    );
    assert!(hlo.lines().any(|l| l.trim() == loc.hlo), "{}", loc.hlo);
    assert_eq!(loc.shape, "f32[8,128,1024]{2,1,0}");
    assert!(loc.in_registers, "tanh.1 is not the fusion's output");

    // Buffer: the fusion's value line in the buffer assignment, under its allocation.
    assert_eq!(loc.buffers.len(), 1, "{:?}", loc.buffers);
    let b = &loc.buffers[0];
    assert_eq!(b.value, fusion);
    let plan = read(
        &dump,
        &story.dump_file("cpu_after_optimizations-buffer-assignment.txt"),
    );
    let mut allocation = None;
    let mut seen = false;
    for l in plan.lines() {
        if let Some(rest) = l.strip_prefix("allocation ") {
            allocation = rest.split(':').next().and_then(|n| n.parse::<usize>().ok());
        }
        if l.contains(&format!(" {fusion}> (size={},offset={})", b.size, b.offset)) {
            assert_eq!(allocation, Some(b.allocation), "{l}");
            seen = true;
        }
    }
    assert!(seen, "no value line for {fusion} with {b:?}");

    // Kernel: a thunk runs it, and its dump files hold exactly the claimed lines.
    let kernel = loc.kernel.clone().expect("a kernel computes it");
    assert_eq!(kernel, fusion);
    let thunks = read(&dump, &story.dump_file("thunk-sequence.txt"));
    assert!(
        thunks
            .lines()
            // Its own kernel line, or the kernel half of an output fusion's line
            // (`output-fusion F: gemm f32 then kernel F (...)`): gelu's tanh fuses into
            // the epilogue of the dot that produces its operand.
            .any(|l| l.trim().starts_with(&format!("kernel {kernel} "))
                || l.contains(&format!(" then kernel {kernel} "))),
        "{thunks}"
    );
    for (claimed, suffix) in [
        (&loc.clif_no_opt, "ir-no-opt.clif"),
        (&loc.clif_with_opt, "ir-with-opt.clif"),
    ] {
        let file = read(&dump, &story.dump_file(&format!("{kernel}.{suffix}")));
        let expected: Vec<(usize, String)> = file
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with("; %tanh.1"))
            .map(|(i, l)| (i + 1, l.trim().to_string()))
            .collect();
        let got: Vec<(usize, String)> = claimed.iter().map(|c| (c.line, c.text.clone())).collect();
        assert!(!expected.is_empty(), "{suffix} has no line for tanh.1");
        assert_eq!(got, expected, "{suffix}");
    }
    let asm = read(&dump, &story.dump_file(&format!("{kernel}.asm")));
    assert!(!loc.asm.is_empty());
    assert_eq!(loc.asm, asm.lines().map(str::to_string).collect::<Vec<_>>());
    // The assembly lines named tanh.1 are lines of the file, a strict subset of it, and
    // include a division: tanh's rational approximation is the only CLIF of this kernel
    // that divides (checked on the CLIF file), so a `div` line must be tanh's.
    let asm_lines: Vec<&str> = asm.lines().collect();
    assert!(!loc.asm_computing.is_empty(), "{story}");
    assert!(loc.asm_computing.len() < asm_lines.len());
    for l in &loc.asm_computing {
        assert_eq!(asm_lines[l.line - 1].trim(), l.text);
    }
    let clif = read(
        &dump,
        &story.dump_file(&format!("{kernel}.ir-with-opt.clif")),
    );
    let fdivs: Vec<&str> = clif.lines().filter(|l| l.contains(" fdiv ")).collect();
    assert!(!fdivs.is_empty() && fdivs.iter().all(|l| l.trim_end().ends_with("; %tanh.1")));
    assert!(
        loc.asm_computing.iter().any(|l| l.text.contains("div")),
        "{:?}",
        loc.asm_computing
    );

    // The passes: the fusion step names the same fusion and rule.
    assert!(
        story
            .steps
            .iter()
            .any(|s| s.event.pass == "fusion-passes/fusion"
                && s.event
                    .to_string()
                    .contains(&format!("fused into %{fusion}: {rule}"))),
        "{story}"
    );
    let _ = std::fs::remove_dir_all(&dump);
}

#[test]
fn a_cse_d_duplicate_is_reported_by_its_pass() {
    // Two identical tanh: CSE keeps one and replaces the other; the story of the removed
    // one names cse and the survivor.
    let hlo = r#"HloModule dup

ENTRY main {
  p = f32[64] parameter(0)
  t.1 = f32[64] tanh(p)
  t.2 = f32[64] tanh(p)
  ROOT a = f32[64] add(t.1, t.2)
}
"#;
    let input = parse_module(hlo, "dup.hlo").unwrap().module;
    let options = CompileOptions {
        keep_kernel_artifacts: true,
        ..CompileOptions::default()
    };
    let compiled = compile(input.clone(), &options).unwrap();
    let story = &explain(&input, &compiled, "t.2").unwrap()[0];
    let text = story.to_string();
    assert!(
        story
            .steps
            .iter()
            .any(|s| s.event.pass.ends_with("/cse")
                && s.event.to_string().contains("replaced by %t.1")),
        "{text}"
    );
    // t.2's value is t.1's now, which lands in the add's fusion.
    assert_eq!(story.locations.len(), 1, "{text}");
    assert!(story.locations[0].fusion.is_some(), "{text}");
    assert!(!story.locations[0].clif_no_opt.is_empty(), "{text}");
}

fn xlac(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlac"))
        .args(args)
        .output()
        .expect("runs xlac");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_prints_the_story_and_finds_by_metadata() {
    let (code, out, err) = xlac(&["explain", TRANSFORMER, "%tanh.1"]);
    assert_eq!(code, 0, "{err}");
    for part in [
        "fusion-passes/fusion:",
        "fusion: %multiply_multiply_fusion (kOutput)",
        "kernel: multiply_multiply_fusion",
        "allocation ",
        "; %tanh.1",
        "assembly (module_0000.jit_f.multiply_multiply_fusion.asm), the ",
    ] {
        assert!(out.contains(part), "missing {part:?} in\n{out}");
    }

    let dir = temp_dir("meta");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("m.hlo");
    std::fs::write(
        &model,
        r#"HloModule m

ENTRY main {
  p = f32[16] parameter(0)
  th = f32[16] tanh(p), metadata={op_name="jit(f)/gelu/tanh" source_file="/x/model.py" source_line=12}
  ROOT e = f32[16] exponential(th), metadata={op_name="jit(f)/exp" source_file="/x/model.py" source_line=13}
}
"#,
    )
    .unwrap();
    let m = model.to_str().unwrap();
    let (code, out, err) = xlac(&["explain", m, "gelu/tanh"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("%th (computation main"), "{out}");
    assert!(out.contains("matched by op_name"), "{out}");
    let (code, out, err) = xlac(&["explain", m, "model.py:13"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("%e (computation main"), "{out}");

    let (code, out, err) = xlac(&["explain", m, "thx"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: ") && err.contains("close names: th"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A source-line query matches several instructions; each story points at its kernel's
/// listing instead of printing it, so the answer stays a page long (one constant of a
/// reduction has no machine instruction of its own, and its kernel's whole listing used to
/// be printed for it, and again for every other such instruction).
#[test]
fn source_line_query_does_not_repeat_the_kernel_listing() {
    let model = "testdata/locations/multi.mlirbc";
    let (code, out, err) = xlac(&["explain", model, "generate.py:78"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("instructions match `generate.py:78`"), "{out}");
    let stories = out.matches("\npasses (from the provenance log").count();
    assert!(stories > 1, "{out}");
    // No machine instruction line appears outside a numbered excerpt (`  NNN: text`).
    let bare_asm: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.starts_with("    ") && !l.trim_start().starts_with(|c: char| c.is_ascii_digit())
        })
        .collect();
    assert!(
        bare_asm.is_empty(),
        "a listing was printed whole: {:?}",
        &bare_asm[..bare_asm.len().min(3)]
    );
    assert!(out.contains("no machine instruction carries"), "{out}");
}
