//! A bounded fuzz loop over the C boundary: `Client_Compile` with mutated program bytes and
//! mutated compile options, and `BufferFromHostBuffer` with made-up types and dimensions.
//! Every call must return (success or an error with a one-line message); a panic inside
//! the plugin would surface here as an INTERNAL error, which fails the test.

mod common;

use common::{args, load};
use xlac_pjrt::abi::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut m = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        if m.is_empty() {
            break;
        }
        let i = rng.below(m.len());
        match rng.below(4) {
            0 => m[i] ^= 1 << rng.below(8),
            1 => m[i] = rng.next() as u8,
            2 => {
                m.remove(i);
            }
            _ => m.truncate(i),
        }
    }
    m
}

const PROGRAM: &str = "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>) {\n    %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n    %0 = stablehlo.convert %arg1 : (tensor<4xi32>) -> tensor<4xf32>\n    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>\n    %2 = stablehlo.reduce(%1 init: %c) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n     reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n      %3 = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %3 : tensor<f32>\n    }\n    return %1, %2 : tensor<4xf32>, tensor<f32>\n  }\n}\n";

/// JAX-shaped compile options: build options (field 3) with device_ordinal -1, one
/// replica and partition, and the single-device assignment.
fn options() -> Vec<u8> {
    let mut build = vec![0x08];
    build.extend_from_slice(&[0xff; 9]);
    build.push(0x01);
    build.extend_from_slice(&[0x20, 0x01, 0x28, 0x01, 0x4a, 0x09]);
    build.extend_from_slice(&xlac_pjrt::compile_options::SINGLE_DEVICE_ASSIGNMENT);
    let mut top = vec![0x1a, build.len() as u8];
    top.extend(build);
    top
}

#[test]
fn mutated_programs_and_options_never_crash() {
    let p = load();
    let client = p.client(&[("mode", "interpreter")]).unwrap();
    // The seeds themselves compile.
    let exe = p
        .compile(client, PROGRAM.as_bytes(), &options())
        .expect("seed program");
    p.destroy_loaded(exe);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..600 {
        let (program, opts) = if i % 2 == 0 {
            (mutate(&mut rng, PROGRAM.as_bytes()), options())
        } else {
            (PROGRAM.as_bytes().to_vec(), mutate(&mut rng, &options()))
        };
        match p.compile(client, &program, &opts) {
            Ok(exe) => {
                ok += 1;
                p.destroy_loaded(exe);
            }
            Err(e) => {
                failed += 1;
                assert_ne!(
                    e.code, 13,
                    "INTERNAL (a panic?) on mutation {i}: {}",
                    e.message
                );
                assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
            }
        }
    }
    assert!(ok > 0 && failed > 0, "ok {ok}, failed {failed}");
    p.destroy_client(client);
}

#[test]
fn made_up_buffers_are_rejected_or_round_trip() {
    let p = load();
    let client = p.client(&[]).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let data = vec![0u8; 4096];
    for _ in 0..2000 {
        let ty = rng.below(40) as i32 - 2;
        let rank = rng.below(5);
        let dims: Vec<i64> = (0..rank)
            .map(|_| match rng.below(6) {
                0 => -1,
                1 => i64::MAX / 3,
                _ => rng.below(6) as i64,
            })
            .collect();
        let count = dims
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d))
            .unwrap_or(-1);
        let fits = count >= 0 && count * 16 <= data.len() as i64;
        if !fits && dims.iter().all(|&d| d >= 0) && count >= 0 {
            // Too big for our host array: a real caller would have the memory.
            continue;
        }
        let mut a: PJRT_Client_BufferFromHostBuffer_Args = args();
        a.client = client;
        a.data = data.as_ptr().cast();
        a.type_ = ty;
        a.dims = dims.as_ptr();
        a.num_dims = dims.len();
        match p.call("Client_BufferFromHostBuffer", &mut a) {
            Ok(()) => {
                p.destroy_event(a.done_with_host_buffer);
                let back = p.to_host(a.buffer).unwrap();
                assert!(back.iter().all(|&b| b == 0));
                p.destroy_buffer(a.buffer);
            }
            Err(e) => assert!(matches!(e.code, 3 | 8 | 12), "{e:?}"),
        }
    }
    p.destroy_client(client);
}

/// Execute of a donating program on made-up argument lists: handles drawn from a pool
/// (repeated, already donated, of the wrong type) and random `non_donatable_input_indices`
/// (negative, out of range, repeated). Every call succeeds or fails with an ordinary
/// error; a successful call gives jax-correct values (`x + y`, `y * z`, `z - 1` of the
/// data the arguments held before), and a donated buffer reads as deleted afterwards.
#[test]
fn made_up_donations_never_crash_or_corrupt() {
    let p = load();
    let client = p.client(&[]).unwrap();
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/bytecode/attributes");
    let code = std::fs::read(dir.join("donate_two_of_three.jit.mlirbc")).unwrap();
    let exe = p.compile(client, &code, &[]).expect("compile");
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let (mut ok, mut failed) = (0, 0);
    for round in 0..300 {
        // A pool of four f32[16,8] buffers (values k + i/128) and one of the wrong shape.
        let values: Vec<Vec<f32>> = (0..4)
            .map(|k| (0..128).map(|i| k as f32 + i as f32 / 128.0).collect())
            .collect();
        let bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let mut pool: Vec<_> = values
            .iter()
            .map(|v| p.buffer(client, 11, &[16, 8], &bytes(v)).unwrap())
            .collect();
        pool.push(p.buffer(client, 11, &[4], &[0u8; 16]).unwrap());
        if round % 5 == 0 {
            // An already deleted buffer in the pool.
            let mut d: PJRT_Buffer_Delete_Args = args();
            d.buffer = pool[3];
            p.call("Buffer_Delete", &mut d).unwrap();
        }
        let n = if rng.below(8) == 0 { rng.below(5) } else { 3 };
        let picks: Vec<usize> = (0..n)
            .map(|_| {
                let range = if rng.below(6) == 0 { 5 } else { 3 };
                rng.below(range)
            })
            .collect();
        let handles: Vec<_> = picks.iter().map(|&k| pool[k]).collect();
        let kept: Vec<i64> = (0..rng.below(3)).map(|_| rng.below(7) as i64 - 2).collect();
        match p.execute_with(exe, &handles, &kept) {
            Ok(outputs) => {
                ok += 1;
                let [x, y, z] = [&values[picks[0]], &values[picks[1]], &values[picks[2]]];
                let want: [Vec<f32>; 3] = [
                    x.iter().zip(y).map(|(a, b)| a + b).collect(),
                    y.iter().zip(z).map(|(a, b)| a * b).collect(),
                    z.iter().map(|a| a - 1.0).collect(),
                ];
                for (o, w) in outputs.iter().zip(&want) {
                    assert_eq!(
                        p.to_host(*o).unwrap(),
                        bytes(w),
                        "round {round}: {picks:?} kept {kept:?}"
                    );
                }
                for (i, &h) in handles.iter().enumerate() {
                    if (i == 0 || i == 2) && !kept.contains(&(i as i64)) {
                        assert!(p.is_deleted(h), "round {round}: argument {i} was donated");
                    }
                }
                outputs.into_iter().for_each(|b| p.destroy_buffer(b));
            }
            Err(e) => {
                failed += 1;
                assert_ne!(
                    e.code, 13,
                    "INTERNAL (a panic?) in round {round}: {}",
                    e.message
                );
                assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
            }
        }
        pool.into_iter().for_each(|b| p.destroy_buffer(b));
    }
    assert!(ok > 0 && failed > 0, "ok {ok}, failed {failed}");
    p.destroy_loaded(exe);
    p.destroy_client(client);
}

/// What another process put in the key-value store as the global topology, mutated: every
/// value decodes to a consistent topology (4 processes, XLA:CPU ids) or is refused with
/// one line; none panics.
#[test]
fn mutated_global_topologies_are_refused_or_consistent() {
    use prost::Message;
    use xlac_pjrt::topology::{GlobalTopology, LocalTopology, decode_global};
    let seed = GlobalTopology::build((0..4).map(|n| LocalTopology::new(n, 2, None)).collect(), 4)
        .unwrap()
        .encode_to_vec();
    assert!(decode_global(&seed, 4).is_ok());
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..3000 {
        let m = mutate(&mut rng, &seed);
        match decode_global(&m, 4) {
            Ok(g) => {
                ok += 1;
                for (p, l) in g.processes.iter().enumerate() {
                    for (o, d) in l.devices.iter().enumerate() {
                        assert_eq!(d.global_device_id as usize, p * 2048 + o, "mutation {i}");
                    }
                }
            }
            Err(e) => {
                failed += 1;
                assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
            }
        }
    }
    assert!(ok > 0 && failed > 0, "ok {ok}, failed {failed}");
}
