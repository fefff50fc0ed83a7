//! Host callbacks (`xla_ffi_python_cpu_callback`, as jax lowers `jax.debug.print` and
//! `pure_callback` on CPU) on both backends: the compiled one runs them through the
//! evaluator's handler, the interpreter directly; the same host sees the same operands and
//! its results flow on. Without a host, both say so at run time.

use std::sync::{Arc, Mutex};

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::host_callback::{HostCallbackHandler, HostCallbacks};
use xlac::eval::{EvalOptions, evaluate, evaluate_with_handler};
use xlac::front::hlo_text;
use xlac::ir::{ArrayData, ArrayLiteral, ArrayShape, Literal, PrimitiveType, Shape};

/// The program jax 0.10.2 writes for `pure_callback(lambda x: x * 10, ...)` inside
/// `jax.debug.print`-style ordering: a token in, a token out, an f32 result used after.
const PROGRAM: &str = r#"HloModule callbacks

ENTRY main {
  x = f32[3] parameter(0)
  t = token[] after-all()
  y = f32[3] multiply(x, x)
  cb = (token[], f32[3]) custom-call(t, y), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config={index = 1 : ui64}
  r = f32[3] get-tuple-element(cb), index=1
  ROOT out = f32[3] add(r, x)
}
"#;

/// Host callable 1 multiplies by 10; callable 0 must not be called. Records every call.
#[derive(Default)]
struct TimesTen {
    calls: Mutex<Vec<(u64, Vec<f32>)>>,
}

impl HostCallbacks for TimesTen {
    fn call(
        &self,
        index: u64,
        operands: &[&Literal],
        results: &[Shape],
    ) -> Result<Vec<Literal>, String> {
        if index != 1 {
            return Err(format!("callable {index} was not registered"));
        }
        let [Literal::Token, Literal::Array(a)] = operands else {
            return Err(format!("unexpected operands {operands:?}"));
        };
        let ArrayData::F32(v) = &a.data else {
            return Err("not f32".into());
        };
        self.calls.lock().unwrap().push((index, v.clone()));
        assert_eq!(results.len(), 2);
        Ok(vec![
            Literal::Token,
            Literal::Array(ArrayLiteral {
                shape: ArrayShape::new(PrimitiveType::F32, &[3]),
                data: ArrayData::F32(v.iter().map(|x| x * 10.0).collect()),
            }),
        ])
    }
}

fn input() -> Literal {
    Literal::Array(ArrayLiteral {
        shape: ArrayShape::new(PrimitiveType::F32, &[3]),
        data: ArrayData::F32(vec![1.0, -2.0, 0.5]),
    })
}

fn f32s(l: &Literal) -> Vec<f32> {
    match l {
        Literal::Array(ArrayLiteral {
            data: ArrayData::F32(v),
            ..
        }) => v.clone(),
        other => panic!("not an f32 array: {other:?}"),
    }
}

fn module() -> xlac::ir::Module {
    hlo_text::parse_module(PROGRAM, "callbacks.hlo")
        .expect("parses")
        .module
}

#[test]
fn both_backends_call_the_host_and_use_its_result() {
    // x*x*10 + x for x = [1, -2, 0.5], computed by hand from the program's definition.
    let want = vec![11.0f32, 38.0, 3.0];
    let host = Arc::new(TimesTen::default());
    let handler = Arc::new(HostCallbackHandler(host.clone()));

    let interpreted = evaluate_with_handler(
        &module(),
        &[input()],
        &EvalOptions::default(),
        Some(handler.clone()),
    )
    .expect("interpreter");
    assert_eq!(f32s(&interpreted), want);

    let mut compiled = compile(module(), &CompileOptions::default())
        .expect("compiles")
        .executable;
    compiled.custom_call_handler = Some(handler);
    for _ in 0..2 {
        let out = compiled.execute(&[input()]).expect("compiled run");
        assert_eq!(f32s(&out), want);
    }
    // Once per run, with the squares: the side effect is neither dropped nor repeated.
    let calls = host.calls.lock().unwrap();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls.iter().all(|(i, v)| *i == 1 && v == &[1.0, 4.0, 0.25]));
}

#[test]
fn a_failing_callable_fails_the_run_with_its_message() {
    let program = PROGRAM.replace("index = 1", "index = 0");
    let module = hlo_text::parse_module(&program, "c.hlo").unwrap().module;
    let handler = Arc::new(HostCallbackHandler(Arc::new(TimesTen::default())));
    let mut compiled = compile(module.clone(), &CompileOptions::default())
        .unwrap()
        .executable;
    compiled.custom_call_handler = Some(handler.clone());
    let e = compiled.execute(&[input()]).unwrap_err().to_string();
    assert!(e.contains("callable 0 was not registered"), "{e}");
    let e = evaluate_with_handler(&module, &[input()], &EvalOptions::default(), Some(handler))
        .unwrap_err()
        .to_string();
    assert!(e.contains("host callback 0 failed"), "{e}");
}

#[test]
fn without_a_host_the_run_says_what_is_missing() {
    let e = evaluate(&module(), &[input()], &EvalOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("calls back into the host program"), "{e}");
    let mut compiled = compile(module(), &CompileOptions::default())
        .expect("a host callback compiles without a host")
        .executable;
    let e = compiled.execute(&[input()]).unwrap_err().to_string();
    assert!(e.contains("calls back into the host program"), "{e}");
}
