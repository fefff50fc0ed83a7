//! The IFRT-like API (`src/ifrt/`) against jax itself: `testdata/ifrt/generate.py` (jax
//! 0.10.2, 8 simulated CPU devices) wrote, for 33 NamedShardings (every mesh and spec of
//! the SPMD fixtures, and a few more), the global array and each addressable shard's
//! device, index, replica id and data; and a data-parallel training step with jax's five
//! losses. No Python is needed here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use xlac::front::hlo_text::parse_module;
use xlac::ifrt::{
    Array, Client, IfrtError, IndexDomain, Mesh, PartitionDim, PartitionSpec, Sharding, StepKind,
};
use xlac::io::npz::read_npz;
use xlac::ir::ArrayLiteral;
use xlac::ir::sharding::HloSharding;
use xlac::pspec;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ifrt")
}

fn npz(name: &str) -> HashMap<String, ArrayLiteral> {
    read_npz(&dir().join(name))
        .unwrap()
        .into_iter()
        .map(|a| (a.name, a.literal))
        .collect()
}

struct Case {
    name: String,
    mesh: Mesh,
    spec: PartitionSpec,
    hlo: String,
    dims: Vec<i64>,
    /// (device, index, replica_id) in jax's `addressable_shards` order.
    shards: Vec<(usize, IndexDomain, usize)>,
}

fn mesh_of(m: &serde_json::Value) -> Mesh {
    let axes: Vec<(String, usize)> = m["axes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a[0].as_str().unwrap().to_string(),
                a[1].as_u64().unwrap() as usize,
            )
        })
        .collect();
    let axes: Vec<(&str, usize)> = axes.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let devices = m["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    Mesh::new(&axes, devices).unwrap()
}

fn spec_of(s: &serde_json::Value) -> PartitionSpec {
    PartitionSpec(
        s.as_array()
            .unwrap()
            .iter()
            .map(|d| match d {
                serde_json::Value::Null => PartitionDim::Replicated,
                serde_json::Value::String(a) => PartitionDim::Axes(vec![a.clone()]),
                serde_json::Value::Array(v) => {
                    PartitionDim::Axes(v.iter().map(|a| a.as_str().unwrap().to_string()).collect())
                }
                other => panic!("bad spec entry {other}"),
            })
            .collect(),
    )
}

fn dims_of(v: &serde_json::Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect()
}

fn meta() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir().join("shardings.json")).unwrap()).unwrap()
}

fn cases() -> Vec<Case> {
    let meta = meta();
    let cases: Vec<Case> = meta["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_string(),
            mesh: mesh_of(&c["mesh"]),
            spec: spec_of(&c["spec"]),
            hlo: c["hlo_sharding"].as_str().unwrap().to_string(),
            dims: dims_of(&c["shape"]),
            shards: c["shards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let index = s["index"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| (r[0].as_i64().unwrap(), r[1].as_i64().unwrap()))
                        .collect();
                    (
                        s["device"].as_u64().unwrap() as usize,
                        IndexDomain(index),
                        s["replica_id"].as_u64().unwrap() as usize,
                    )
                })
                .collect(),
        })
        .collect();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    cases
}

fn named(c: &Case) -> Sharding {
    Sharding::named(&c.mesh, c.spec.clone())
}

/// The array's shards equal jax's shards of case `c`: devices in order, index, replica id
/// and data, bit for bit.
fn assert_shards_equal_jax(a: &Array, c: &Case, data: &HashMap<String, ArrayLiteral>, what: &str) {
    let shards = a.addressable_shards().unwrap();
    let got: Vec<(usize, IndexDomain, usize)> = shards
        .iter()
        .map(|s| (s.device, s.index.clone(), s.replica_id))
        .collect();
    assert_eq!(got, c.shards, "{what}: devices, index, replica_id");
    for s in &shards {
        assert_eq!(
            s.data,
            data[&format!("{}_d{}", c.name, s.device)],
            "{what}: data of the shard on device {}",
            s.device
        );
    }
}

#[test]
fn make_array_from_host_equals_jax_addressable_shards() {
    let data = npz("shardings.npz");
    let client = Client::new(8).unwrap();
    for c in cases() {
        let s = named(&c);
        assert_eq!(
            s.to_hlo(c.dims.len()).unwrap().to_string(),
            c.hlo,
            "{}: HLO sharding",
            c.name
        );
        let x = &data[&c.name];
        let a = client.make_array_from_host(x, s.clone()).unwrap();
        assert_eq!(a.dims(), c.dims.as_slice());
        assert_shards_equal_jax(&a, &c, &data, &c.name);
        assert_eq!(&a.copy_to_host().unwrap(), x, "{}: copy_to_host", c.name);
        // The same layout as an HLO sharding over the mesh's devices.
        let hlo = Sharding::Hlo {
            devices: c.mesh.devices().to_vec(),
            sharding: HloSharding::parse(&c.hlo).unwrap(),
        };
        assert!(hlo.is_equivalent(&s, &c.dims), "{}", c.name);
        let b = client.make_array_from_host(x, hlo).unwrap();
        assert_shards_equal_jax(&b, &c, &data, &format!("{} as HloSharding", c.name));
    }
}

#[test]
fn uneven_splits_are_refused_as_jax_refuses_them() {
    let meta = meta();
    let client = Client::new(8).unwrap();
    let refused = meta["refused"].as_array().unwrap();
    assert!(!refused.is_empty());
    for r in refused {
        let dims = dims_of(&r["shape"]);
        let x = ArrayLiteral::zeros(xlac::ir::ArrayShape::new(
            xlac::ir::PrimitiveType::F32,
            &dims,
        ));
        let s = Sharding::named(&mesh_of(&r["mesh"]), spec_of(&r["spec"]));
        match client.make_array_from_host(&x, s) {
            Err(IfrtError::UnevenSharding { size, parts, .. }) => {
                // jax: "... partitioned 4 times, but the dimension size is 10 ..."
                let msg = r["jax_error"].as_str().unwrap();
                assert!(msg.contains(&format!("partitioned {parts} times")), "{msg}");
                assert!(msg.contains(&format!("dimension size is {size}")), "{msg}");
            }
            other => panic!("{}: {other:?}", r["name"]),
        }
    }
}

#[test]
fn reshard_between_every_pair_equals_jax_and_round_trips() {
    let data = npz("shardings.npz");
    let client = Client::new(8).unwrap();
    let cases = cases();
    let mut pairs = 0;
    for a in &cases {
        for b in &cases {
            let (xa, xb) = (&data[&a.name], &data[&b.name]);
            if a.dims != b.dims || xa != xb {
                continue;
            }
            let what = format!("{} -> {}", a.name, b.name);
            let src = client.make_array_from_host(xa, named(a)).unwrap();
            let plan = xlac::ifrt::ReshardPlan::new(&src, &named(b)).unwrap();
            // Every element of every destination shard is written exactly once.
            for (device, domain) in &plan.destinations {
                let covered: i64 = plan
                    .steps
                    .iter()
                    .filter(|s| s.dst_device == *device)
                    .map(|s| s.global.element_count())
                    .sum();
                assert_eq!(covered, domain.element_count(), "{what}: device {device}");
            }
            if a.spec == PartitionSpec::default() {
                let on_source = |d: usize| a.mesh.devices().contains(&d);
                assert!(
                    plan.steps
                        .iter()
                        .all(|s| (s.kind == StepKind::LocalCopy) == on_source(s.dst_device)),
                    "{what}: from replicated, every device of the source copies locally\n{plan}"
                );
            }
            let moved = plan.execute(&src).unwrap();
            assert_shards_equal_jax(&moved, b, &data, &what);
            let back = moved.reshard(named(a)).unwrap();
            assert_shards_equal_jax(&back, a, &data, &format!("{what} -> back"));
            assert_eq!(&back.copy_to_host().unwrap(), xa, "{what}");
            pairs += 1;
        }
    }
    assert!(pairs >= 28 * 28, "{pairs} pairs");
}

#[test]
fn reshard_plan_prints_its_steps() {
    let client = Client::new(8).unwrap();
    let mesh = Mesh::new(&[("x", 4), ("y", 2)], (0..8).collect()).unwrap();
    let x = ArrayLiteral::from_vec(&[8, 16], (0..128).map(|v| v as f32).collect());
    let a = client
        .make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y")))
        .unwrap();
    let plan =
        xlac::ifrt::ReshardPlan::new(&a, &Sharding::named(&mesh, pspec!(None, "x"))).unwrap();
    let text = plan.to_string();
    // Device 0 holds rows 0:2, columns 0:8 and needs all rows of columns 0:4: four
    // slices, one its own, three from devices 2, 4 and 6.
    assert!(
        text.contains("device 0: x[0:8, 0:4] (f32[8,4]) = concat of 4 slices"),
        "{text}"
    );
    assert!(
        text.contains("copy     x[0:2, 0:4]: device 0 shard[0:2, 0:4] -> device 0 shard[0:2, 0:4]"),
        "{text}"
    );
    assert!(
        text.contains("transfer x[2:4, 0:4]: device 2 shard[0:2, 0:4] -> device 0 shard[2:4, 0:4]"),
        "{text}"
    );
    // Device (i, j) of the mesh needs columns 4i:4i+4, which lie in the source shards of
    // y = i/2: it holds one of the four itself when j = i/2 (devices 0, 2, 5, 7), so 4
    // devices make 3 transfers and 4 make 4, each of a 2x4 f32 slice.
    assert_eq!(plan.steps.len(), 32);
    assert_eq!(plan.transfer_bytes(), 28 * 8 * 4);
}

#[test]
fn disassemble_and_assemble_share_the_shards() {
    let data = npz("shardings.npz");
    let client = Client::new(8).unwrap();
    for c in cases() {
        let a = client
            .make_array_from_host(&data[&c.name], named(&c))
            .unwrap();
        let before = client.transfer_stats();
        let parts = a.disassemble().unwrap();
        assert_eq!(parts.len(), c.shards.len());
        let again = client
            .assemble_array_from_single_device_arrays(&c.dims, named(&c), &parts)
            .unwrap();
        assert_eq!(client.transfer_stats(), before, "{}: no data moved", c.name);
        for (p, (device, _, _)) in parts.iter().zip(&c.shards) {
            assert_eq!(p.sharding(), &Sharding::SingleDevice { device: *device });
            assert_eq!(
                p.copy_to_host().unwrap(),
                data[&format!("{}_d{device}", c.name)]
            );
        }
        assert_shards_equal_jax(&again, &c, &data, &c.name);
    }
}

fn dp_module() -> xlac::ir::Module {
    let text = std::fs::read_to_string(dir().join("dp_step.hlo")).unwrap();
    parse_module(&text, "dp_step.hlo").unwrap().module
}

#[test]
fn execute_keeps_parameters_on_devices_and_the_losses_equal_jax() {
    let data = npz("dp_step.npz");
    let client = Client::new(8).unwrap();
    let exe = client.compile(dp_module()).unwrap();
    assert_eq!(exe.parameters().len(), 6);
    assert_eq!(exe.results().len(), 5);
    let mesh = Mesh::new(&[("x", 8)], (0..8).collect()).unwrap();
    let replicated = Sharding::named(&mesh, pspec!());
    let batch = Sharding::named(&mesh, pspec!("x"));
    let mut params: Vec<Array> = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| {
            client
                .make_array_from_host(&data[*n], replicated.clone())
                .unwrap()
        })
        .collect();
    let param_bytes: u64 = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| data[*n].shape.byte_size() as u64 * 8)
        .sum();
    assert_eq!(client.transfer_stats().host_to_device_bytes, param_bytes);
    let initial = params.clone();
    let mut losses = Vec::new();
    let mut live = None;
    for k in 0..5 {
        let x = client
            .make_array_from_host(&data[&format!("x{k}")], batch.clone())
            .unwrap();
        let y = client
            .make_array_from_host(&data[&format!("y{k}")], batch.clone())
            .unwrap();
        let mut args = params.clone();
        args.extend([x, y]);
        let mut out = exe.execute(&args).unwrap();
        drop(args);
        let loss = out.remove(0);
        losses.push(loss.copy_to_host().unwrap().values::<f32>().unwrap()[0]);
        drop(loss);
        // The old parameters are gone with the last handle; the new ones are on the devices.
        params = out;
        assert!(
            params
                .iter()
                .all(|p| p.sharding().is_equivalent(&replicated, p.dims()))
        );
        let now = client.live_buffers();
        assert_eq!(*live.get_or_insert(now), now, "step {k}: buffers leak");
    }
    let t = client.transfer_stats();
    // The runs read their arguments in place and never wrote them.
    for (p, n) in initial.iter().zip(["w1", "b1", "w2", "b2"]) {
        assert_eq!(&p.copy_to_host().unwrap(), &data[n], "{n} was overwritten");
    }
    // Only the batches went in after the parameters, and only the five losses came out
    // (one f32 each): the parameters never visited the host between steps.
    let batches: u64 = (0..5)
        .map(|k| {
            (data[&format!("x{k}")].shape.byte_size() + data[&format!("y{k}")].shape.byte_size())
                as u64
        })
        .sum();
    assert_eq!(t.host_to_device_bytes, param_bytes + batches);
    assert_eq!(t.device_to_host_bytes, 5 * 4);
    drop(initial);
    assert_eq!(t.device_to_device_bytes, 0);
    let want = data["loss"].values::<f32>().unwrap().to_vec();
    for (k, (g, w)) in losses.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs(),
            "step {k}: loss {g}, jax {w}"
        );
    }
    for (p, n) in params.iter().zip(["w1", "b1", "w2", "b2"]) {
        let got = p.copy_to_host().unwrap();
        let want = &data[&format!("{n}_final")];
        let (g, w) = (got.values::<f32>().unwrap(), want.values::<f32>().unwrap());
        let worst = g
            .iter()
            .zip(w)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(
            worst <= 1e-5,
            "{n} after 5 steps: max |xlac - jax| = {worst}"
        );
    }
    let ulps: Vec<i64> = losses
        .iter()
        .zip(&want)
        .map(|(g, w)| (g.to_bits() as i64 - w.to_bits() as i64).abs())
        .collect();
    eprintln!("losses: xlac {losses:?}, jax {want:?}, ulps apart {ulps:?}");
}

#[test]
fn the_stablehlo_export_trains_the_same() {
    let text = std::fs::read_to_string(dir().join("dp_step.mlir")).unwrap();
    let module = xlac::front::stablehlo::parse_module(&text, "dp_step.mlir")
        .unwrap()
        .module;
    let data = npz("dp_step.npz");
    let client = Client::new(8).unwrap();
    let exe = client.compile(module).unwrap();
    let mesh = Mesh::new(&[("x", 8)], (0..8).collect()).unwrap();
    let (rep, batch) = (
        Sharding::named(&mesh, pspec!()),
        Sharding::named(&mesh, pspec!("x")),
    );
    let mut params: Vec<Array> = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| client.make_array_from_host(&data[*n], rep.clone()).unwrap())
        .collect();
    let want = data["loss"].values::<f32>().unwrap().to_vec();
    for (k, w) in want.iter().enumerate() {
        let mut args = params.clone();
        for n in ["x", "y"] {
            let v = &data[&format!("{n}{k}")];
            args.push(client.make_array_from_host(v, batch.clone()).unwrap());
        }
        let mut out = exe.execute(&args).unwrap();
        let loss = out
            .remove(0)
            .copy_to_host()
            .unwrap()
            .values::<f32>()
            .unwrap()[0];
        assert!(
            (loss - w).abs() <= 1e-5 * w.abs(),
            "step {k}: loss {loss}, jax {w}"
        );
        params = out;
    }
}

#[test]
fn bad_input_is_one_typed_error() {
    let client = Client::new(8).unwrap();
    assert!(matches!(Client::new(0), Err(IfrtError::DeviceCount { .. })));
    assert!(matches!(
        Client::new(100_000),
        Err(IfrtError::DeviceCount { .. })
    ));
    assert!(matches!(
        Mesh::new(&[("x", 4)], vec![0, 1, 2]),
        Err(IfrtError::BadMesh(_))
    ));
    assert!(matches!(
        Mesh::new(&[("x", 2), ("x", 2)], vec![0, 1, 2, 3]),
        Err(IfrtError::BadMesh(_))
    ));
    assert!(matches!(
        Mesh::new(&[("x", 2)], vec![1, 1]),
        Err(IfrtError::BadMesh(_))
    ));
    let mesh = Mesh::new(&[("x", 4), ("y", 2)], (0..8).collect()).unwrap();
    let x = ArrayLiteral::from_vec(&[8, 4], (0..32).map(|v| v as f32).collect());
    let e = client
        .make_array_from_host(&x, Sharding::named(&mesh, pspec!("z")))
        .unwrap_err();
    assert!(matches!(e, IfrtError::BadSharding(_)), "{e}");
    let e = client
        .make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y", None)))
        .unwrap_err();
    assert!(matches!(e, IfrtError::BadSharding(_)), "{e}");
    let e = client
        .make_array_from_host(&x, Sharding::SingleDevice { device: 9 })
        .unwrap_err();
    assert_eq!(e.to_string(), "device 9 does not exist (the client has 8)");
    let wide = Mesh::new(&[("x", 16)], (0..16).collect()).unwrap();
    assert!(matches!(
        client.make_array_from_host(&x, Sharding::named(&wide, pspec!())),
        Err(IfrtError::NoSuchDevice { .. })
    ));
    // A deleted array: one clear error wherever it is used.
    let a = client
        .make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y")))
        .unwrap();
    let alias = a.clone();
    a.delete();
    assert!(alias.is_deleted());
    for e in [
        alias.copy_to_host().unwrap_err(),
        alias.reshard(Sharding::named(&mesh, pspec!())).unwrap_err(),
        alias.disassemble().unwrap_err(),
    ] {
        assert!(matches!(e, IfrtError::ArrayDeleted { .. }), "{e}");
        assert!(e.to_string().ends_with("was deleted"), "{e}");
    }
    // Assembling from the wrong pieces.
    let b = client
        .make_array_from_host(&x, Sharding::named(&mesh, pspec!("x", "y")))
        .unwrap();
    let mut parts = b.disassemble().unwrap();
    parts.swap(0, 1);
    assert!(matches!(
        client.assemble_array_from_single_device_arrays(&[8, 4], b.sharding().clone(), &parts),
        Err(IfrtError::DeviceMismatch(_))
    ));
    assert!(matches!(
        client.assemble_array_from_single_device_arrays(&[8, 4], b.sharding().clone(), &parts[..3]),
        Err(IfrtError::DeviceMismatch(_))
    ));
}

#[test]
fn execute_rejects_bad_arguments() {
    let data = npz("dp_step.npz");
    let client = Client::new(8).unwrap();
    let exe = client.compile(dp_module()).unwrap();
    let mesh = Mesh::new(&[("x", 8)], (0..8).collect()).unwrap();
    let rep = Sharding::named(&mesh, pspec!());
    let batch = Sharding::named(&mesh, pspec!("x"));
    let put = |n: &str, s: &Sharding| client.make_array_from_host(&data[n], s.clone()).unwrap();
    let good = vec![
        put("w1", &rep),
        put("b1", &rep),
        put("w2", &rep),
        put("b2", &rep),
        put("x0", &batch),
        put("y0", &batch),
    ];
    assert!(matches!(
        exe.execute(&good[..5]),
        Err(IfrtError::ArgumentCount {
            expected: 6,
            given: 5
        })
    ));
    let mut wrong_shape = good.clone();
    wrong_shape[0] = put("w2", &rep);
    let e = exe.execute(&wrong_shape).unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument 0 is f32[32,4], expected f32[16,32]"
    );
    let mut wrong_sharding = good.clone();
    wrong_sharding[4] = put("x0", &rep);
    assert!(matches!(
        exe.execute(&wrong_sharding),
        Err(IfrtError::ShardingMismatch { parameter: 4, .. })
    ));
    let other = Client::new(8).unwrap();
    let mut foreign = good.clone();
    foreign[1] = other
        .make_array_from_host(&data["b1"], rep.clone())
        .unwrap();
    assert!(matches!(
        exe.execute(&foreign),
        Err(IfrtError::DeviceMismatch(_))
    ));
    good[5].delete();
    assert!(matches!(
        exe.execute(&good),
        Err(IfrtError::ArrayDeleted { .. })
    ));
    // Too few devices for the program.
    let small = Client::new(4).unwrap();
    assert!(matches!(
        small.compile(dp_module()),
        Err(IfrtError::NoSuchDevice { .. })
    ));
}
