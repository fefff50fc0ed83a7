//! Prints the time of every tunable thunk of a model under each of its candidate choices
//! (medians over a few rounds), to see where a program's run time goes. Inputs are
//! small deterministic values of the entry parameters' shapes.
//! Run: `cargo run --release --example thunk_times -- path/to/model.hlo [rounds]`.

use xlac::compiler::{CompileOptions, compile};
use xlac::front::hlo_text::parse_module;
use xlac::io::arguments::entry_parameters;
use xlac::ir::{ArrayLiteral, Literal};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: thunk_times MODEL.hlo [rounds]");
        return;
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(9);
    let text = std::fs::read_to_string(&path).expect("read model");
    let parsed = parse_module(&text, &path).expect("parse");
    let params = entry_parameters(&parsed.module);
    let inputs: Vec<Literal> = params
        .iter()
        .map(|p| {
            let a = p.shape.as_array().expect("array parameter");
            let n = a.element_count();
            let v: Vec<f32> = (0..n).map(|i| ((i % 17) as f32 - 8.0) * 0.01).collect();
            Literal::Array(ArrayLiteral::from_vec(&a.dims, v))
        })
        .collect();
    let mut compiled = compile(parsed.module, &CompileOptions::default()).expect("compile");
    let exe = &mut compiled.executable;
    let mut total = 0.0;
    for t in exe.tunables() {
        let times = exe
            .race_thunk(&inputs, t.index, &t.candidates, rounds)
            .expect("race");
        let med: Vec<String> = times
            .iter()
            .zip(&t.candidates)
            .map(|(ts, c)| {
                let mut ts = ts.clone();
                ts.sort_by(f64::total_cmp);
                format!("{c}={:.3}", ts[ts.len() / 2])
            })
            .collect();
        let mut d = times[0].clone();
        d.sort_by(f64::total_cmp);
        total += d[d.len() / 2];
        println!(
            "{:3} {:40} {:12} {}",
            t.index,
            t.name,
            t.kind,
            med.join("  ")
        );
    }
    println!("sum of defaults: {total:.3} ms");
}
