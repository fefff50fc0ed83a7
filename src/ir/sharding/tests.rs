use super::*;
use std::path::{Path, PathBuf};

fn spmd_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/spmd");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("meta.json").exists())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 16,
        "testdata/spmd has {} programs",
        dirs.len()
    );
    dirs
}

/// Every `sharding={...}` value in `text` (balanced braces).
fn sharding_values(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("sharding={") {
        let start = i + "sharding=".len();
        let bytes = rest.as_bytes();
        let mut depth = 0;
        let mut end = start;
        for (k, &b) in bytes[start..].iter().enumerate() {
            if b == b'{' {
                depth += 1;
            } else if b == b'}' {
                depth -= 1;
                if depth == 0 {
                    end = start + k + 1;
                    break;
                }
            }
        }
        out.push(&rest[start..end]);
        rest = &rest[end..];
    }
    out
}

#[test]
fn every_fixture_sharding_round_trips() {
    let mut count = 0;
    for dir in spmd_dirs() {
        for file in [
            "xla_opt.hlo",
            "model.hlo",
            "model.gspmd.hlo",
            "xla.after_spmd-partitioning.hlo",
            "xla.after_shardy-xla.hlo",
            "xla.after_sharding-propagation.hlo",
        ] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            for v in sharding_values(&text) {
                let s = HloSharding::parse(v)
                    .unwrap_or_else(|e| panic!("{}/{file}: {v}: {e}", dir.display()));
                assert_eq!(s.to_string(), v, "{}/{file}", dir.display());
                count += 1;
            }
        }
    }
    assert!(count > 500, "only {count} shardings");
}

#[test]
fn sdy_shardings_convert_to_the_gspmd_ones_beside_them() {
    // model.hlo carries both annotations on parameters; they must agree.
    let mut checked = 0;
    for dir in spmd_dirs() {
        let text = std::fs::read_to_string(dir.join("model.hlo")).unwrap();
        let header = text.lines().next().unwrap();
        let meshes = parse_frontend_meshes(header).unwrap();
        for line in text.lines() {
            let (Some(sh), Some(sdy)) = (
                sharding_values(line).first().copied(),
                frontend_attribute(line, "xla.sdy.sharding"),
            ) else {
                continue;
            };
            if sdy.starts_with("#sdy.sharding_per_value") {
                // Shardy's per-result form on a custom call: checked by propagation.
                continue;
            }
            let sdy = SdySharding::parse(&sdy).unwrap();
            let mesh = meshes.iter().find(|m| m.name == sdy.mesh).unwrap();
            assert_eq!(sdy.to_hlo(mesh).unwrap().to_string(), sh, "{line}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} pairs");
}

#[test]
fn index_domains_equal_jax_shard_indices() {
    for dir in spmd_dirs() {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        let n = meta["num_partitions"].as_i64().unwrap();
        for kind in ["inputs", "outputs"] {
            for v in meta[kind].as_array().unwrap() {
                let dims: Vec<i64> = v["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64().unwrap())
                    .collect();
                let s = HloSharding::parse(v["sharding"].as_str().unwrap()).unwrap();
                s.validate(dims.len(), n).unwrap();
                for p in 0..n {
                    let want: Vec<(i64, i64)> = v["index"][p as usize]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| (r[0].as_i64().unwrap(), r[1].as_i64().unwrap()))
                        .collect();
                    assert_eq!(
                        index_domain(&s, &dims, n, p),
                        want,
                        "{} {kind} {s} partition {p}",
                        dir.display()
                    );
                }
            }
        }
    }
}

#[test]
fn parses_every_printed_form() {
    for text in [
        "{replicated}",
        "{manual}",
        "{unknown}",
        "{maximal device=3}",
        "{devices=[4,2]<=[8]}",
        "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
        "{devices=[2,2]0,2,1,3}",
        "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
        "{devices=[1,1,4,2]<=[8] last_tile_dims={manual, replicated}}",
        "{devices=[2,4]<=[8] last_tile_dims={manual}}",
        "{{replicated}, {devices=[8,1]<=[8]}}",
        "{{manual}, {manual}, {manual}, {manual}, {manual}, /*index=5*/{manual}}",
    ] {
        assert_eq!(HloSharding::parse(text).unwrap().to_string(), text);
    }
    // Dropped annotations.
    assert_eq!(
        HloSharding::parse("{replicated metadata={op_name=\"a\"}}")
            .unwrap()
            .to_string(),
        "{replicated}"
    );
    assert_eq!(
        HloSharding::parse("{devices=[2]<=[2] shard_as 1}").unwrap(),
        HloSharding::parse("{devices=[2]<=[2]}").unwrap()
    );
    // The mesh (V3) form converts to the iota form.
    assert_eq!(
        HloSharding::parse("{mesh['x'=4,'y'=2], [{'y'}, {}]}")
            .unwrap()
            .to_string(),
        "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}"
    );
    assert_eq!(
        HloSharding::parse("{mesh[], replicated}").unwrap(),
        HloSharding::Replicated
    );
}

#[test]
fn tile_coordinates_follow_the_device_array() {
    // b = P('y', None) on x=4,y=2: rows 0..16 on {0,2,4,6}, 16..32 on {1,3,5,7}.
    let s = HloSharding::parse("{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}").unwrap();
    for d in 0..8 {
        let want = if d % 2 == 0 { (0, 16) } else { (16, 32) };
        assert_eq!(index_domain(&s, &[32, 16], 8, d)[0], want);
    }
    // Uneven: 10 on 4 tiles is 3,3,3,1.
    let s = HloSharding::parse("{devices=[4]<=[4]}").unwrap();
    let got: Vec<(i64, i64)> = (0..4).map(|d| index_domain(&s, &[10], 4, d)[0]).collect();
    assert_eq!(got, vec![(0, 3), (3, 6), (6, 9), (9, 10)]);
    let s = HloSharding::parse("{devices=[2,2]3,2,1,0}").unwrap();
    assert_eq!(index_domain(&s, &[4, 4], 4, 0), vec![(2, 4), (2, 4)]);
}

#[test]
fn bad_shardings_are_errors() {
    for bad in [
        "",
        "{",
        "{devices=}",
        "{devices=[4,2]<=[7]}",
        "{devices=[2,2]0,1,2}",
        "{devices=[2,2]0,1,2,3,4}",
        "{devices=[2]<=[2]T(0,0)}",
        "{devices=[2]<=[2]T(1)}",
        "{devices=[0]<=[0]}",
        "{devices=[65536,65536]<=[4294967296]}",
        "{maximal}",
        "{devices=[2] last_tile_dims={bogus}}",
        "{replicated} trailing",
        "{devices=[2]<=[2] last_tile_dim_replicate last_tile_dims={manual}}",
        "{{{{{{{{{{replicated}}}}}}}}}}",
        "{mesh['x'=2], [{'z'}]}",
    ] {
        let parsed = HloSharding::parse(bad);
        let valid = parsed.as_ref().map(|s| s.validate(1, 2));
        assert!(
            parsed.is_err() || matches!(valid, Ok(Err(_))),
            "accepted {bad:?}: {parsed:?}"
        );
    }
    let s = HloSharding::parse("{devices=[4,2]<=[8]}").unwrap();
    assert!(s.validate(2, 4).is_err(), "8 devices on 4 partitions");
    assert!(s.validate(1, 8).is_err(), "rank mismatch");
    let s = HloSharding::parse("{devices=[2]0,5}").unwrap();
    assert!(s.validate(1, 2).is_err(), "device 5 of 2");
    assert!(
        HloSharding::parse("{maximal device=9}")
            .unwrap()
            .validate(1, 8)
            .is_err()
    );
    assert!(SdySharding::parse("#sdy.sharding<@mesh, [{\"x\":(1)2}]>").is_err());
    assert!(SdyMesh::parse("m", "<[\"x\"=0]>").is_err());
    assert!(SdyMesh::parse("m", "<[\"x\"=2], device_ids=[0]>").is_err());
}

/// A bounded fuzz loop: random byte edits of valid shardings never panic.
#[test]
fn fuzzed_shardings_never_panic() {
    let seeds = [
        "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
        "{{replicated}, {devices=[2,2]0,2,1,3}, /*index=2*/{manual}}",
        "{devices=[1,1,4,2]<=[8] last_tile_dims={manual, replicated}}",
        "{mesh['x'=4,'y'=2], [{'y'}, {}]}",
    ];
    let sdy = "#sdy.sharding<@mesh, [{\"x\", \"y\"}, {?}]>";
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"{}[]<>=,T()0123456789-_ \"'devicsrplatm/*";
    for round in 0..4000 {
        let base = if round % 5 == 4 {
            sdy
        } else {
            seeds[round % 4]
        };
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..(1 + next() % 4) {
            let at = (next() as usize) % (bytes.len() + 1);
            match next() % 3 {
                0 if at < bytes.len() => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                _ if at < bytes.len() => bytes[at] = alphabet[(next() as usize) % alphabet.len()],
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(s) = HloSharding::parse(&text) {
            let _ = s.validate(2, 8);
            if s.validate(2, 8).is_ok() {
                let _ = index_domain(&s, &[16, 16], 8, 3);
            }
            let _ = s.to_string();
        }
        let _ = SdySharding::parse(&text);
    }
}
