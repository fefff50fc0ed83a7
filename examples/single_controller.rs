//! The single controller from the controller's side: drive the workers of an `xlac serve` job through
//! five steps of the data-parallel training step, then print the losses and the controller's
//! log (one line per IFRT call).
//!
//! ```text
//! export XLAC_SERVE_TOKEN=$(head -c 24 /dev/urandom | base64)
//! mpirun -np 4 target/release/xlac serve --once      # prints 4 `listening on` lines
//! cargo run --release --example single_controller -- ADDR0 ADDR1 ADDR2 ADDR3
//! ```

use std::collections::HashMap;
use std::net::SocketAddr;

use xlac::distributed::{Controller, RemoteArray, Token};
use xlac::front::hlo_text::parse_module;
use xlac::ifrt::{Mesh, Sharding};
use xlac::pspec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addrs: Vec<SocketAddr> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ifrt");
    let data: HashMap<String, _> = xlac::io::npz::read_npz(&root.join("dp_step_4.npz"))?
        .into_iter()
        .map(|a| (a.name, a.literal))
        .collect();
    let text = std::fs::read_to_string(root.join("dp_step_4.hlo"))?;
    let module = parse_module(&text, "dp_step_4.hlo")?.module;

    let mut c = Controller::connect(&addrs, &Token::configured(None)?)?;
    let mesh = Mesh::new(&[("x", c.devices())], (0..c.devices()).collect())?;
    let (replicated, batch) = (
        Sharding::named(&mesh, pspec!()),
        Sharding::named(&mesh, pspec!("x")),
    );
    let exe = c.compile(&module)?;
    let mut params: Vec<RemoteArray> = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| c.make_array_from_host(&data[*n], replicated.clone()))
        .collect::<Result<_, _>>()?;
    for k in 0..5 {
        let x = c.make_array_from_host(&data[&format!("x{k}")], batch.clone())?;
        let y = c.make_array_from_host(&data[&format!("y{k}")], batch.clone())?;
        let mut args: Vec<&RemoteArray> = params.iter().collect();
        args.extend([&x, &y]);
        let mut out = c.execute(&exe, &args)?;
        let loss = out.remove(0);
        println!(
            "step {k}: loss {}",
            c.copy_to_host(&loss)?.values::<f32>().ok_or("f32")?[0]
        );
        for a in params.iter().chain([&x, &y, &loss]) {
            c.delete(a)?;
        }
        params = out;
    }
    println!("\ncontroller log:");
    for line in c.log() {
        println!("  {line}");
    }
    c.close()?;
    Ok(())
}
