//! The corpus files that need more than "run and apply the checks" (conformance README §3.5):
//!
//! * `api_input_arguments.mlir`: `@main` takes the arguments of the RUN line's
//!   `--args="[dense<1> : tensor<2xi32>, ...]"`, and its result must equal the value the
//!   `// CHECK:` lines print (`tensor<2xi32> {` then `[3, 3]`).
//! * `printing.mlir`: each `// CHECK-DENSE: dense<...> : T` (or `CHECK-DENSE{LITERAL}`)
//!   line of a case is one returned value, in order, compared exactly. Cases without such
//!   lines (the `run_parallel` + `interpreter.print` one) only have to run.
//! * `probe.mlir` needs nothing here: `interpreter.probe` and `check.expect_serialized_eq`
//!   are in the check handler.
//!
//! Literals written in these comments are read by the case's own loader, as the constant of
//! a one-line program, so they follow exactly the loader's `dense<...>` syntax.

use super::Status;
use super::expectations::expect_eq;
use super::loader::Loader;
use crate::eval::evaluate;
use crate::ir::Literal;

/// What is special about a file.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Special {
    /// Nothing: no arguments, results ignored.
    None,
    /// `api_input_arguments.mlir`: entry arguments and the expected result (literal text).
    InputArguments {
        args: Vec<String>,
        expected: Option<String>,
    },
    /// `printing.mlir`: results compared with the `CHECK-DENSE` lines.
    Printing,
}

impl Special {
    /// What `name` (with content `text`) needs.
    pub(super) fn of(name: &str, text: &str) -> Special {
        let base = name.rsplit('/').next().unwrap_or(name);
        match base {
            "api_input_arguments.mlir" => Special::InputArguments {
                args: run_line_args(text).unwrap_or_default(),
                expected: printed_result(text),
            },
            "printing.mlir" => Special::Printing,
            _ => Special::None,
        }
    }

    /// The entry's arguments.
    pub(super) fn arguments(&self, loader: Loader, file: &str) -> Result<Vec<Literal>, Status> {
        match self {
            Special::InputArguments { args, .. } => {
                args.iter().map(|a| load_literal(a, loader, file)).collect()
            }
            _ => Ok(Vec::new()),
        }
    }

    /// The status of a case that ran without a failing check, given its result.
    pub(super) fn compare_outputs(
        &self,
        chunk: &str,
        result: &Literal,
        loader: Loader,
        file: &str,
    ) -> Status {
        let expected: Vec<String> = match self {
            Special::None => return Status::Pass,
            Special::InputArguments { expected, .. } => match expected {
                Some(e) => vec![e.clone()],
                None => return Status::Error("no expected result in the CHECK lines".into()),
            },
            Special::Printing => dense_checks(chunk),
        };
        if expected.is_empty() {
            return Status::Pass;
        }
        let actual: Vec<&Literal> = match result {
            Literal::Tuple(t) if expected.len() != 1 || t.len() == 1 => t.iter().collect(),
            r => vec![r],
        };
        if actual.len() != expected.len() {
            return Status::Fail(format!(
                "the entry returns {} values, the CHECK lines expect {}",
                actual.len(),
                expected.len()
            ));
        }
        for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
            let e = match load_literal(e, loader, file) {
                Ok(e) => e,
                Err(status) => return status,
            };
            if let Err(why) = expect_eq(a, &e) {
                return Status::Fail(format!("result {i}: {why}"));
            }
        }
        Status::Pass
    }
}

/// The values of the first `--args="[...]"` on a RUN line not run under `not`.
fn run_line_args(text: &str) -> Option<Vec<String>> {
    let line = text
        .lines()
        .filter(|l| l.trim_start().starts_with("// RUN:"))
        .find(|l| l.contains("--args=\"[") && !l.contains("RUN: not"))?;
    let start = line.find("--args=\"[")? + "--args=\"[".len();
    let end = start + line[start..].find("]\"")?;
    Some(
        split_top_level(&line[start..end])
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

/// The expected result of `api_input_arguments.mlir` from its `// CHECK:` lines
/// (`tensor<2xi32> {`, `[3, 3]`, `}`) as `dense<[3, 3]> : tensor<2xi32>`.
fn printed_result(text: &str) -> Option<String> {
    let mut lines = text.lines().map(str::trim).filter_map(|l| {
        l.strip_prefix("// CHECK:")
            .or_else(|| l.strip_prefix("// CHECK-NEXT:"))
            .map(str::trim)
    });
    let ty = lines.next()?.strip_suffix('{')?.trim().to_string();
    let values = lines.next()?.to_string();
    Some(format!("dense<{values}> : {ty}"))
}

/// The literals of a chunk's `// CHECK-DENSE:` lines, in order.
fn dense_checks(chunk: &str) -> Vec<String> {
    chunk
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            l.strip_prefix("// CHECK-DENSE:")
                .or_else(|| l.strip_prefix("// CHECK-DENSE{LITERAL}:"))
                .map(|v| v.trim().to_string())
        })
        .collect()
}

/// Evaluates `dense<...> : T` by loading a program that returns it as a constant.
fn load_literal(text: &str, loader: Loader, file: &str) -> Result<Literal, Status> {
    let (_, ty) = text
        .rsplit_once(" : ")
        .ok_or_else(|| Status::Error(format!("cannot read the literal `{text}`")))?;
    let program = format!(
        "func.func @main() -> {ty} {{\n  %0 = stablehlo.constant {text}\n  func.return %0 : {ty}\n}}\n"
    );
    let module = loader(&program, file, 0).map_err(|e| {
        let why = format!("literal `{text}`: {}", e.message);
        if e.is_unsupported() {
            Status::Unsupported(why)
        } else {
            Status::Error(why)
        }
    })?;
    evaluate(&module, &[], &super::reference_semantics())
        .map_err(|e| Status::Error(format!("literal `{text}`: {e}")))
}

/// Splits on commas outside `<>`, `[]` and `()`.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_api_input_arguments_file() {
        let text = "// RUN: stablehlo-translate %s --interpret --args=\"[dense<1> : tensor<2xi32>, dense<[2, 3]> : tensor<2xi32>]\" | FileCheck %s\n\n// RUN: not stablehlo-translate %s --interpret --args=\"[4.0 : f32]\" 2>&1\n// CHECK-ERROR-NOT-DENSE: expected dense\nfunc.func @main() {}\n// CHECK:      tensor<2xi32> {\n// CHECK-NEXT:   [3, 3]\n// CHECK-NEXT: }\n";
        assert_eq!(
            Special::of("stablehlo-interpret/api_input_arguments.mlir", text),
            Special::InputArguments {
                args: vec![
                    "dense<1> : tensor<2xi32>".into(),
                    "dense<[2, 3]> : tensor<2xi32>".into()
                ],
                expected: Some("dense<[3, 3]> : tensor<2xi32>".into()),
            }
        );
    }

    #[test]
    fn reads_check_dense_lines() {
        let chunk = "  // CHECK:      tensor<4xi8> {\n  // CHECK-DENSE: dense<[1, 2, -3, -4]> : tensor<4xi8>\n  // CHECK-DENSE{LITERAL}: dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>\n";
        assert_eq!(
            dense_checks(chunk),
            vec![
                "dense<[1, 2, -3, -4]> : tensor<4xi8>",
                "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"
            ]
        );
        assert_eq!(Special::of("x/printing.mlir", ""), Special::Printing);
        assert_eq!(Special::of("x/add.mlir", ""), Special::None);
    }

    /// A loader that ignores its text and returns the constant `s32[2] {3, 3}`: enough to
    /// follow the comparison without a StableHLO parser.
    fn three_three(
        _: &str,
        _: &str,
        _: usize,
    ) -> Result<crate::ir::Module, super::super::LoadError> {
        let text = "HloModule k\nENTRY e {\n  ROOT c = s32[2] constant({3, 3})\n}\n";
        super::super::loader::hlo_text(text, "k", 0)
    }

    #[test]
    fn compares_returned_values() {
        use crate::ir::ArrayLiteral;
        let special = Special::InputArguments {
            args: vec!["dense<1> : tensor<2xi32>".into()],
            expected: Some("dense<[3, 3]> : tensor<2xi32>".into()),
        };
        assert_eq!(special.arguments(three_three, "f").unwrap().len(), 1);
        let good: Literal = ArrayLiteral::from_vec(&[2], vec![3i32, 3]).into();
        let bad: Literal = ArrayLiteral::from_vec(&[2], vec![3i32, 4]).into();
        assert_eq!(
            special.compare_outputs("", &good, three_three, "f"),
            Status::Pass
        );
        assert_eq!(
            special.compare_outputs("", &bad, three_three, "f").label(),
            "FAIL"
        );
        // printing.mlir: one CHECK-DENSE line per returned value, in order.
        let chunk =
            "// CHECK-DENSE: dense<3> : tensor<2xi32>\n// CHECK-DENSE: dense<3> : tensor<2xi32>\n";
        let two = Literal::Tuple(vec![good.clone(), good.clone()]);
        assert_eq!(
            Special::Printing.compare_outputs(chunk, &two, three_three, "f"),
            Status::Pass
        );
        let mixed = Literal::Tuple(vec![good.clone(), bad]);
        assert!(
            Special::Printing
                .compare_outputs(chunk, &mixed, three_three, "f")
                .reason()
                .starts_with("result 1:")
        );
        // No CHECK-DENSE lines: the case only has to run.
        assert_eq!(
            Special::Printing.compare_outputs("", &two, three_three, "f"),
            Status::Pass
        );
    }
}
