//! The `xlac` command line: argument parsing and printing only (design.md §4).

/// Runs the command line and returns the process exit code.
pub fn main_with_args(args: Vec<String>) -> i32 {
    let _ = args;
    eprintln!("error: xlac is being built; no commands yet");
    2
}
