//! Prints, per testdata model, xlac's preallocated temp bytes against XLA:CPU's, with the
//! totals (issue 5's memory yardstick): `cargo run --release --example memory_table`.

fn main() {
    let rows = xlac::layout::memory_table::temp_bytes_table();
    print!("{}", xlac::layout::memory_table::temp_bytes_markdown(&rows));
}
