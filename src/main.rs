//! The `xlac` command: see `xlac --help` and design.md §4.

fn main() {
    let code = xlac::cli::main_with_args(std::env::args().collect());
    std::process::exit(code);
}
