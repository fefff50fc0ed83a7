//! `xlac explain MODEL INSTR [--dump-to DIR]`: compile MODEL and print the story of one
//! instruction of the input (by HLO name, `op_name` metadata substring or `file:line`):
//! the passes that rewrote it, its fusion and rule, layout, buffer, kernel, CLIF lines and
//! assembly. The work is in [`crate::explain`]; this file parses and prints.

use super::{ExplainArgs, Failure, model};

/// Runs `xlac explain`.
pub fn explain(args: &ExplainArgs) -> Result<(), Failure> {
    let loaded = model::load(&args.model, false)?;
    let input = loaded.module.clone();
    let file = loaded.file.clone();
    // Look the instruction up before compiling: a typo should not cost a compile.
    crate::explain::find_instructions(&input, &args.instruction)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
    let mut options = super::prepare::compile_options(&args.passes, args.dump_to.clone(), false)?;
    options.keep_kernel_artifacts = true;
    let compiled = super::prepare::compile_loaded(loaded, &options)?;
    let stories = crate::explain::explain(&input, &compiled, &args.instruction)
        .map_err(|e| Failure::error(format!("{file}: {e}")))?;
    if stories.len() > 1 {
        println!(
            "{} instructions match `{}`\n",
            stories.len(),
            args.instruction
        );
    }
    for (n, story) in stories.iter().enumerate() {
        if n > 0 {
            println!("\n{}\n", "-".repeat(72));
        }
        print!("{story}");
    }
    Ok(())
}
