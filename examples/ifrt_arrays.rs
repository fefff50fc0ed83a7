//! Arrays over devices, as a learner sees them: one global array over 8 devices, its shards, a reshard plan, and
//! a training step whose parameters stay on the devices.
//! `cargo run --release --example ifrt_arrays`

use xlac::ifrt::{Client, Mesh, Sharding};
use xlac::ir::ArrayLiteral;
use xlac::pspec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::new(8)?;
    let mesh = Mesh::new(&[("x", 4), ("y", 2)], (0..8).collect())?;
    let x = ArrayLiteral::from_vec(&[8, 16], (0..128).map(|v| v as f32).collect());

    // PJRT would hand back 8 buffers; IFRT hands back one array.
    let a = client.make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y")))?;
    println!("array {} in {}", a.shape_text(), a.sharding());
    println!("  HLO sharding: {}", a.sharding().to_hlo(2)?);
    for s in a.addressable_shards()? {
        let v = s.data.values::<f32>().unwrap_or(&[]);
        println!(
            "  device {}: index {} replica {} data [{}, {}, ...]",
            s.device, s.index, s.replica_id, v[0], v[1]
        );
    }

    // The same value with columns split over x and rows whole: every destination shard
    // is a concat of slices of the old ones, local where it can be.
    let to = Sharding::named(&mesh, pspec!(None, "x"));
    let plan = xlac::ifrt::ReshardPlan::new(&a, &to)?;
    print!("\n{plan}");
    let b = plan.execute(&a)?;
    assert_eq!(b.copy_to_host()?, x);
    println!("\nresharded and back on the host: equal to the input");
    let t = client.transfer_stats();
    println!(
        "bytes moved: host->device {}, device->host {}, device->device {}",
        t.host_to_device_bytes, t.device_to_host_bytes, t.device_to_device_bytes
    );
    Ok(())
}
