//! The `xlac` command: see `xlac --help` and design.md §4.

fn main() {
    // Turns a panic (always a bug) into one `error: internal error: ...` line.
    xlac::cli::install_panic_hook();
    xlac::cli::install_interrupt_handler();
    let code = xlac::cli::main_with_args(std::env::args().collect());
    std::process::exit(code);
}
