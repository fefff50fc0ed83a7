use super::*;

#[test]
fn bad_programs_are_one_error_line() {
    for (code, format, word) in [
        (&b"\xff\xfe"[..], "mlir", "invalid UTF-8"),
        (b"hello", "mlir", "program.mlir:1:1"),
        (b"  // c\n", "mlir", "empty"),
        (b"module {", "mlir", "program.mlir:1:"),
        (b"HloModule m\n", "hlo", "program.hlo"),
        (b"module {}", "xla", "format 'xla'"),
        (
            b"ML\xefR\x0dStableHLO_v1.17.0\x00\x01",
            "mlir",
            "program.mlirbc: byte ",
        ),
    ] {
        let e = read_program(code, format).err().expect("an error");
        assert!(e.message.starts_with("error: "), "{}", e.message);
        assert!(e.message.contains(word), "{word}: {}", e.message);
        assert!(!e.message.contains('\n'), "{}", e.message);
    }
}

#[test]
fn portable_artifacts_are_read_and_kept_as_text_for_the_dump() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/bytecode/programs/softmax.jit.mlirbc"
    );
    let code = std::fs::read(path).unwrap();
    let p = read_program(&code, "mlir").unwrap();
    assert_eq!(p.module.entry_computation().parameters().len(), 1);
    let text = p.stablehlo_text.unwrap();
    assert!(
        text.starts_with("// StableHLO portable artifact: producer StableHLO_v"),
        "{}",
        text.lines().next().unwrap_or_default()
    );
}

#[test]
fn small_programs_without_loops_are_cheap() {
    let program = |text: &str| read_program(text.as_bytes(), "mlir").unwrap().module;
    let add = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  \
               %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n  \
               %0 = stablehlo.add %a, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    assert!(is_cheap(&program(add)));
    let big = add.replace("4xf32", "1024x1024xf32");
    assert!(!is_cheap(&program(&big)));
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/bytecode/programs/fori_loop.jit.mlirbc"
    );
    let code = std::fs::read(path).unwrap();
    assert!(!is_cheap(&read_program(&code, "mlir").unwrap().module));
}

#[test]
fn text_programs_are_read() {
    let text = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  \
                %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
    let p = read_program(text.as_bytes(), "mlir").unwrap();
    assert_eq!(p.module.entry_computation().parameters().len(), 1);
    assert!(p.stablehlo_text.is_some());
}
