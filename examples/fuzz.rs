//! The fuzz engine's command line (`xlac::fuzz`):
//!
//! ```text
//! cargo run --release --example fuzz -- TARGET --seconds 60 [--seed N]
//! cargo run --release --example fuzz -- --list
//! ```
//!
//! Exit 0 when the run found nothing, 1 when it saved findings under `target/fuzz/TARGET/`.

fn main() {
    std::process::exit(xlac::fuzz::cli_main(xlac::fuzz::TARGETS));
}
