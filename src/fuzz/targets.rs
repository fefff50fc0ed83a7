//! The fuzz targets: each takes arbitrary bytes and must return (whatever it made of them)
//! without panicking, aborting or hanging. Errors are the expected outcome for most
//! inputs and are ignored.

use crate::compiler::{CompileOptions, compile};
use crate::io::random_inputs::try_random_literal;
use crate::ir::{Module, Op, Opcode, verifier};

/// HLO text: parse, then verify.
pub fn hlo_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(parsed) = crate::front::hlo_text::parse_module(text, "fuzz.hlo") {
        let _ = verifier::verify(&parsed.module);
        // The printer must handle whatever the parser accepted.
        let _ = parsed.module.to_string();
    }
}

/// StableHLO MLIR text: parse and convert to HLO, then verify.
pub fn stablehlo_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(parsed) = crate::front::stablehlo::parse_module(text, "fuzz.mlir") {
        let _ = verifier::verify(&parsed.module);
        // Metadata and stack frames made from locations must print.
        let _ = parsed.module.to_string();
    }
}

/// A StableHLO portable artifact (MLIR bytecode): read, print as text, convert to HLO,
/// then verify.
pub fn bytecode(data: &[u8]) {
    let Ok(ast) = crate::front::stablehlo::bytecode::read(data) else {
        return;
    };
    // The printer must handle whatever the reader accepted.
    let _ = crate::front::stablehlo::bytecode::to_text(data, &ast);
    if let Ok(module) = crate::front::stablehlo::bytecode::to_module(&ast, "fuzz.mlirbc") {
        let _ = verifier::verify(&module);
        let _ = module.to_string();
    }
}

/// A message a controller sends an `xlac serve` worker (`distributed::protocol`), as framed
/// on the wire and as decoded: whatever decodes must encode back to the same bytes, and a
/// reply decoder must not fail on the same bytes either.
pub fn serve_request(data: &[u8]) {
    use crate::distributed::frame::{HELLO_LIMIT, read_frame};
    use crate::distributed::protocol::{Request, Response};
    if let Ok(request) = Request::decode(data) {
        assert_eq!(
            request.encode(),
            data,
            "a request must encode back to its bytes"
        );
    }
    let _ = Response::decode(data);
    // The same bytes as a stream of frames under the handshake's limit.
    let mut stream = data;
    while let Ok(frame) = read_frame(&mut stream, HELLO_LIMIT) {
        let _ = Request::decode(&frame);
    }
}

/// One IFRT proxy request (`xlac serve --protocol ifrt-proxy`), as protobuf bytes: decoded
/// and answered by a fresh session after its InitRequest, with small limits and no wait
/// for host buffers (one request cannot name an executable, so nothing runs for long).
pub fn ifrt_proxy_request(data: &[u8]) {
    use crate::distributed::ifrt_proxy::host_buffers::HostBufferStore;
    use crate::distributed::ifrt_proxy::proto::{IfrtRequest, InitRequest, Request};
    use crate::distributed::ifrt_proxy::session::{Session, SessionConfig};
    use std::sync::Arc;
    let config = SessionConfig {
        session_id: 1,
        devices: 2,
        max_array_bytes: 1 << 16,
        host_buffer_wait: std::time::Duration::ZERO,
        job: None,
    };
    let Ok(mut session) = Session::new(config, Arc::new(HostBufferStore::new(1 << 20))) else {
        return;
    };
    let _ = session.handle_bytes(data);
    session.handle_request(IfrtRequest {
        request_metadata: None,
        request: Some(Request::Init(InitRequest {})),
    });
    let _ = session.handle_bytes(data);
}

/// `.npy` and `.npz` bytes, as `--input` reads them.
pub fn npy_npz(data: &[u8]) {
    let _ = crate::io::npz::read_arrays_bytes("fuzz.npz", data);
}

/// A whole model: parse (HLO or StableHLO, by content), verify, compile, and run once on
/// random inputs when the module is small and has no loop (a loop may legitimately run
/// for ever).
pub fn compile_module(data: &[u8]) {
    let Some(module) = parse_and_verify(data) else {
        return;
    };
    // Keep each case cheap: compile time grows with the module, run time with its arrays.
    let instructions: usize = module.computations.values().map(|c| c.order.len()).sum();
    if instructions > 2000 || total_bytes(&module) > 256 << 20 {
        return;
    }
    let runnable = small_and_loop_free(&module);
    let params = crate::io::arguments::entry_parameters(&module);
    let options = CompileOptions {
        autotune: crate::autotune::AutotuneMode::Off,
        ..CompileOptions::default()
    };
    let Ok(mut compiled) = compile(module, &options) else {
        return;
    };
    if !runnable {
        return;
    }
    let mut args = Vec::with_capacity(params.len());
    for p in &params {
        match try_random_literal(&p.shape, 0, p.number) {
            Ok(a) => args.push(a),
            Err(_) => return,
        }
    }
    let _ = compiled.executable.execute(&args);
}

/// Parses by content (HLO text or StableHLO) and verifies; `None` on any error.
pub fn parse_and_verify(data: &[u8]) -> Option<Module> {
    let text = std::str::from_utf8(data).ok()?;
    let module = match crate::cli::detect_model_format(text).ok()? {
        crate::cli::ModelFormat::HloText => {
            crate::front::hlo_text::parse_module(text, "fuzz.hlo")
                .ok()?
                .module
        }
        crate::cli::ModelFormat::StableHlo => {
            crate::front::stablehlo::parse_module(text, "fuzz.mlir")
                .ok()?
                .module
        }
    };
    verifier::verify(&module).ok()?;
    Some(module)
}

/// Every array at most 64 KiB and no `while`, custom call or infeed: one run is cheap and
/// ends.
fn small_and_loop_free(module: &Module) -> bool {
    module.computations.values().all(|c| {
        c.iter().all(|(_, i)| {
            let small = crate::ir::size::check_shape(&i.shape).is_ok_and(|b| b <= 64 << 10);
            let ends = !matches!(i.op, Op::While { .. } | Op::CustomCall(_))
                && !matches!(
                    i.opcode(),
                    Opcode::Infeed | Opcode::Outfeed | Opcode::Send | Opcode::Recv
                );
            small && ends
        })
    })
}

/// The bytes of every instruction's value, summed: what compiling may allocate at most.
fn total_bytes(module: &Module) -> u64 {
    module
        .computations
        .values()
        .flat_map(|c| {
            c.iter()
                .map(|(_, i)| crate::ir::size::check_shape(&i.shape).unwrap_or(u64::MAX))
        })
        .fold(0u64, u64::saturating_add)
}
