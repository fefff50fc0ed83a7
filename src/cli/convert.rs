//! `xlac convert MODEL --to mlir|hlo`: prints the program as StableHLO text or HLO text,
//! so the bytes `jax.jit` sends (a portable artifact) become something to read. A
//! portable artifact prints as StableHLO text after a header line naming its producer
//! and bytecode version; StableHLO text prints as given; any input prints as HLO (as
//! ingested, before any pass). HLO text to StableHLO is not built yet.

use std::io::Write;

use super::{ConvertArgs, ConvertTo, Failure, model};
use crate::front::stablehlo::bytecode;

/// Runs `xlac convert`.
pub fn convert(args: &ConvertArgs) -> Result<(), Failure> {
    let file = args.model.display().to_string();
    let text = match args.to {
        ConvertTo::Hlo => model::load(&args.model, false)?.module.to_string(),
        ConvertTo::Mlir => {
            let bytes = std::fs::read(&args.model).map_err(|e| {
                Failure::error(format!(
                    "cannot read {file}: {}",
                    crate::io::io_error_text(&e)
                ))
            })?;
            if bytecode::is_bytecode(&bytes) {
                let ast = bytecode::read(&bytes)
                    .map_err(|e| Failure::error(bytecode::located(&file, e).to_string()))?;
                bytecode::to_text(&bytes, &ast)
                    .map_err(|e| Failure::error(bytecode::located(&file, e).to_string()))?
            } else {
                let loaded = model::load(&args.model, false)?;
                match loaded.stablehlo {
                    Some(text) => text,
                    None => {
                        return Err(Failure {
                            lines: vec![format!(
                                "{file}: converting HLO text to StableHLO is not supported yet (try --to hlo)"
                            )],
                            code: 2,
                        });
                    }
                }
            }
        }
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a message.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(())
}
