//! The reader against the text parser on the checked-in corpus
//! (`testdata/bytecode/`, written by its `generate.py` with jaxlib): for every artifact,
//! reader(bytes) and text-parser(the text jaxlib reads the same bytes as) give the same
//! op tree, up to value names and the spelling differences of pretty and generic forms.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::read;
use crate::front::stablehlo::ast::{MlirModule, Operation, Region};
use crate::front::stablehlo::attributes::Attr;
use crate::front::stablehlo::dense::to_literal;
use crate::front::stablehlo::parse_mlir;

/// A canonical printing of a module: values renamed in definition order, attributes
/// sorted, integer lists in one form, dense literals by value, and every op's and
/// function argument's source location.
pub(crate) fn canonical(m: &MlirModule) -> String {
    canonical_with(m, true)
}

/// [`canonical`], without locations when `locations` is false (a text printed without
/// debug info against the artifact it came from).
pub(crate) fn canonical_with(m: &MlirModule, locations: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "module {:?}", m.name);
    let mut attrs: Vec<_> = m.attributes.iter().collect();
    attrs.sort_by(|a, b| a.0.cmp(&b.0));
    for (k, v) in attrs {
        let _ = writeln!(out, "  attr {k} = {}", canon_attr(v));
    }
    for (name, text) in &m.meshes {
        let _ = writeln!(out, "  mesh @{name} = {text}");
    }
    for f in &m.functions {
        let mut names = Names::default();
        names.push();
        let args: Vec<String> = f
            .arguments
            .iter()
            .map(|(n, t)| {
                names.define(n, 1);
                t.to_string()
            })
            .collect();
        let res: Vec<String> = f.results.iter().map(|t| t.to_string()).collect();
        let _ = writeln!(
            out,
            "func @{}({}) -> ({})",
            f.name,
            args.join(", "),
            res.join(", ")
        );
        // Argument and result attributes (shardings, donation, result names); an
        // argument without attributes prints nothing, however each side spells that.
        for (what, all) in [
            ("arg", &f.argument_attributes),
            ("res", &f.result_attributes),
        ] {
            for (i, attrs) in all.iter().enumerate() {
                if attrs.is_empty() {
                    continue;
                }
                let mut a: Vec<_> = attrs.iter().collect();
                a.sort_by(|x, y| x.0.cmp(&y.0));
                let a: Vec<String> = a
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", canon_attr(v)))
                    .collect();
                let _ = writeln!(out, "  {what} {i} {{{}}}", a.join(", "));
            }
        }
        if locations {
            for (i, l) in f.argument_locations.iter().enumerate() {
                let _ = writeln!(out, "  arg {i} loc({l})");
            }
        }
        for b in &f.body.blocks {
            for op in &b.operations {
                canon_op(op, &mut names, &mut out, 1, locations);
            }
        }
    }
    out
}

#[derive(Default)]
struct Names {
    scopes: Vec<HashMap<String, usize>>,
    next: usize,
}

impl Names {
    fn push(&mut self) {
        self.scopes.push(HashMap::new());
    }
    fn pop(&mut self) {
        self.scopes.pop();
    }
    fn define(&mut self, name: &str, count: usize) {
        let id = self.next;
        self.next += count;
        self.scopes.last_mut().unwrap().insert(name.to_string(), id);
    }
    fn get(&self, name: &str, index: usize) -> String {
        for s in self.scopes.iter().rev() {
            if let Some(id) = s.get(name) {
                return format!("%{}", id + index);
            }
        }
        format!("%?{name}#{index}")
    }
}

fn canon_region(r: &Region, names: &mut Names, out: &mut String, depth: usize, locs: bool) {
    names.push();
    for b in &r.blocks {
        let args: Vec<String> = b
            .arguments
            .iter()
            .map(|(n, t)| {
                names.define(n, 1);
                format!("{} {t}", names.get(n, 0))
            })
            .collect();
        let _ = writeln!(out, "{}^bb({})", "  ".repeat(depth), args.join(", "));
        for op in &b.operations {
            canon_op(op, names, out, depth + 1, locs);
        }
    }
    names.pop();
}

fn canon_op(op: &Operation, names: &mut Names, out: &mut String, depth: usize, locs: bool) {
    let operands: Vec<String> = op
        .operands
        .iter()
        .map(|v| names.get(&v.name, v.index))
        .collect();
    let mut attrs: Vec<_> = op.attributes.iter().collect();
    attrs.sort_by(|a, b| a.0.cmp(&b.0));
    let attrs: Vec<String> = attrs
        .iter()
        .map(|(k, v)| match (k.as_str(), v) {
            // The pretty form writes `@target`, the generic form a string.
            ("call_target_name", Attr::Symbol(s)) => format!("{k} = {s:?}"),
            _ => format!("{k} = {}", canon_attr(v)),
        })
        .collect();
    let ins: Vec<String> = op.operand_types.iter().map(|t| t.to_string()).collect();
    let outs: Vec<String> = op.result_types.iter().map(|t| t.to_string()).collect();
    let loc = if locs {
        format!(" loc({})", op.location)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{}{} = {}({}) {{{}}} : ({}) -> ({}){loc}",
        "  ".repeat(depth),
        op.result_count(),
        op.name,
        operands.join(", "),
        attrs.join(", "),
        ins.join(", "),
        outs.join(", ")
    );
    for r in &op.regions {
        canon_region(r, names, out, depth + 1, locs);
    }
    for g in &op.results {
        names.define(&g.name, g.count);
    }
}

fn canon_attr(a: &Attr) -> String {
    if let Some(v) = flat_ints(a) {
        return format!("ints{v:?}");
    }
    match a {
        Attr::Unit => "unit".into(),
        Attr::Bool(b) => format!("{b}"),
        Attr::Int(i) => format!("{i}"),
        Attr::Float(f) => format!("f{:x}", f.to_bits()),
        Attr::Str(s) => format!("{s:?}"),
        Attr::Symbol(s) => format!("@{s}"),
        Attr::Array(items) => format!(
            "[{}]",
            items.iter().map(canon_attr).collect::<Vec<_>>().join(", ")
        ),
        Attr::Ints(v) => format!("ints{v:?}"),
        Attr::Dense(d) => match to_literal(&d.value, &d.ty) {
            Ok(lit) => format!("dense<{lit:?}> : {}", d.ty),
            Err(e) => format!("dense<error {e}> : {}", d.ty),
        },
        Attr::Dict(entries, text) => {
            let mut e: Vec<_> = entries.iter().collect();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            let e: Vec<String> = e
                .iter()
                .map(|(k, v)| format!("{k} = {}", canon_attr(v)))
                .collect();
            format!("{{{}}} text {text:?}", e.join(", "))
        }
        Attr::Enum(s) => format!("#{s}"),
        Attr::Struct(n, fields) => {
            let mut f: Vec<_> = fields
                .iter()
                .filter(|(_, v)| flat_ints(v).is_none_or(|l| !l.is_empty()))
                .collect();
            f.sort_by(|a, b| a.0.cmp(&b.0));
            let f: Vec<String> = f
                .iter()
                .map(|(k, v)| format!("{k} = {}", canon_attr(v)))
                .collect();
            format!("#{n}<{}>", f.join(", "))
        }
        Attr::Conv(d) => format!("{d:?}"),
        Attr::Type(t) => format!("type {t}"),
        Attr::Opaque(s) => format!("opaque {s}"),
    }
}

/// Integer lists in any spelling: `[1, 2]`, `array<i64: 1, 2>`, `[[0, 0], [1, 1]]`, an
/// integer `dense<...>`.
fn flat_ints(a: &Attr) -> Option<Vec<i64>> {
    match a {
        Attr::Ints(v) => Some(v.clone()),
        Attr::Array(items)
            if items
                .iter()
                .all(|i| matches!(i, Attr::Int(_) | Attr::Array(_))) =>
        {
            let mut out = Vec::new();
            for i in items {
                match i {
                    Attr::Int(v) => out.push(i64::try_from(*v).ok()?),
                    other => out.extend(flat_ints(other)?),
                }
            }
            Some(out)
        }
        Attr::Dense(d) => {
            let t = d.ty.as_tensor()?;
            let p = t.elem.storage();
            if !(p.is_signed_integral() || p.is_unsigned_integral()) || t.dims.len() > 2 {
                return None;
            }
            d.value.as_ints(&d.ty)
        }
        _ => None,
    }
}

/// The corpus folder.
fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/bytecode")
}

/// The targets in the corpus, as file name parts.
const TARGETS: [&str; 4] = ["1.0.0", "1.13.7", "1.17.0", "jit"];

/// `NAME.TARGET.mlirbc` → (`NAME`, `TARGET`).
fn split_name(bc: &Path) -> (String, String) {
    let s = bc
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .trim_end_matches(".mlirbc");
    for t in TARGETS {
        if let Some(case) = s.strip_suffix(&format!(".{t}")) {
            return (case.to_string(), t.to_string());
        }
    }
    panic!("{}: not NAME.TARGET.mlirbc", bc.display())
}

/// The text paired with `NAME.TARGET.mlirbc`: `NAME.TARGET.mlir` if present, else `NAME.mlir`.
fn text_for(bc: &Path) -> PathBuf {
    let own = bc.with_extension("mlir");
    if own.exists() {
        return own;
    }
    bc.with_file_name(format!("{}.mlir", split_name(bc).0))
}

/// The target of `NAME.TARGET.mlirbc` (`1.17.0`, `jit`).
fn target_of(bc: &Path) -> String {
    split_name(bc).1
}

fn corpus_files(part: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus().join(part))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlirbc"))
        .collect();
    v.sort();
    v
}

/// Per target: (equal, rejected by both, mismatch descriptions).
type Stats = HashMap<String, (usize, usize, Vec<String>)>;

/// Compares reader and text parser on every artifact of `part`; returns the per-target
/// stats and the number of artifacts.
fn compare_part(part: &str) -> (Stats, usize) {
    let mut stats: Stats = HashMap::new();
    let files = corpus_files(part);
    for bc in &files {
        let target = target_of(bc);
        let text_path = text_for(bc);
        let text = std::fs::read_to_string(&text_path).unwrap();
        let bytes = std::fs::read(bc).unwrap();
        let from_text = parse_mlir(&text, "t", 0);
        let from_bytes = read(&bytes);
        let entry = stats.entry(target).or_default();
        // Locations are compared where the text was printed with them (debug info).
        let locations = text.contains("loc(");
        match (from_text, from_bytes) {
            (Ok(t), Ok(b)) => {
                let (ct, cb) = (canonical_with(&t, locations), canonical_with(&b, locations));
                if ct == cb {
                    entry.0 += 1;
                } else {
                    let diff = ct
                        .lines()
                        .zip(cb.lines())
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| format!("text:  {a}\nbytes: {b}"))
                        .unwrap_or_else(|| "(one is a prefix of the other)".into());
                    entry
                        .2
                        .push(format!("{}: op trees differ\n{diff}", bc.display()));
                }
            }
            (Err(_), Err(_)) => entry.1 += 1,
            (Ok(_), Err(e)) => entry
                .2
                .push(format!("{}: reader failed: {e}", bc.display())),
            (Err(e), Ok(_)) => entry.2.push(format!(
                "{}: text parser failed, reader did not: {e}",
                bc.display()
            )),
        }
    }
    (stats, files.len())
}

fn check_part(part: &str) {
    let (stats, n) = compare_part(part);
    assert!(n > 0, "no artifacts in testdata/bytecode/{part}");
    let mut report = String::new();
    let mut bad = 0;
    let mut targets: Vec<_> = stats.keys().cloned().collect();
    targets.sort();
    for t in &targets {
        let (eq, both, mism) = &stats[t];
        let _ = writeln!(
            report,
            "{part} {t}: {eq} equal, {both} rejected by both, {} mismatched",
            mism.len()
        );
        bad += mism.len();
    }
    eprintln!("{report}");
    if bad > 0 {
        let all: Vec<&String> = stats.values().flat_map(|s| s.2.iter()).take(40).collect();
        panic!(
            "{report}{}",
            all.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        );
    }
}

#[test]
fn programs_match_the_text_parser() {
    check_part("programs");
}

#[test]
fn sharded_and_donating_programs_match_the_text_parser() {
    check_part("attributes");
}

#[test]
fn conformance_cases_match_the_text_parser() {
    check_part("conformance");
}

#[test]
fn printed_text_parses_back_to_the_same_tree() {
    let mut files = corpus_files("programs");
    files.extend(corpus_files("conformance"));
    let mut bad = Vec::new();
    let mut n = 0;
    for bc in &files {
        let Ok(m) = read(&std::fs::read(bc).unwrap()) else {
            continue;
        };
        let text = crate::front::stablehlo::printer::print_module(&m);
        match parse_mlir(&text, "printed", 0) {
            // The printer writes no locations.
            Ok(back) if canonical_with(&back, false) == canonical_with(&m, false) => n += 1,
            Ok(back) => {
                let (a, b) = (canonical_with(&m, false), canonical_with(&back, false));
                let diff = a
                    .lines()
                    .zip(b.lines())
                    .find(|(x, y)| x != y)
                    .unwrap_or_default();
                bad.push(format!(
                    "{}: differs\n  read:    {}\n  printed: {}",
                    bc.display(),
                    diff.0,
                    diff.1
                ));
            }
            Err(e) => bad.push(format!(
                "{}: printed text does not parse: {e}",
                bc.display()
            )),
        }
    }
    eprintln!("{n} printed artifacts parse back to the same op tree");
    assert!(
        bad.is_empty(),
        "{}\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// A small artifact of the corpus (`jax.jit` of a softmax at target 1.17.0).
fn sample() -> Vec<u8> {
    std::fs::read(corpus().join("programs/softmax.1.17.0.mlirbc")).unwrap()
}

fn error_of(bytes: &[u8]) -> super::BytecodeError {
    match read(bytes) {
        Ok(_) => panic!("read accepted a broken artifact"),
        Err(e) => e,
    }
}

#[test]
fn bad_headers() {
    let e = error_of(b"MLIR\x0d");
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("magic"), "{e}");
    let e = error_of(b"ML\xefR");
    assert_eq!(
        (e.offset, e.message.contains("bytecode version")),
        (4, true),
        "{e}"
    );
    let mut v = sample();
    v[4] = 0x0b; // version 5
    let e = error_of(&v);
    assert!(e.message.contains("unsupported bytecode version 5"), "{e}");
    let e = error_of(b"ML\xefR\x0dStableHLO");
    assert!(e.message.contains("producer string"), "{e}");
    // A section whose length runs past the end of the file.
    let e = error_of(b"ML\xefR\x0dp\0\x00\x7f");
    assert!(e.message.contains("section"), "{e}");
    // A section length of 2^56: checked against the bytes left, never allocated.
    let e = error_of(b"ML\xefR\x0dp\0\x00\x00\0\0\0\0\0\0\x01\x00");
    assert!(e.message.contains("only"), "{e}");
}

/// MLIR's prefix varint for `v`, in the fewest bytes.
fn encode_varint(v: u64) -> Vec<u8> {
    for extra in 0..8u32 {
        if v < 1u64 << (7 * (extra + 1)) {
            let word = (v << (extra + 1)) | (1 << extra);
            return word.to_le_bytes()[..=extra as usize].to_vec();
        }
    }
    let mut out = vec![0];
    out.extend_from_slice(&v.to_le_bytes());
    out
}

/// `v` with the data of section `id` replaced by `f(data)`, its length re-encoded (the
/// corpus artifacts have no aligned sections, so the other sections move freely).
fn with_section(v: &[u8], id: u8, f: impl Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let mut c = super::encoding::Cursor::new(v, 0);
    c.bytes(4, "magic").unwrap();
    c.varint("version").unwrap();
    c.cstr("producer").unwrap();
    let mut out = v[..c.offset()].to_vec();
    let mut found = false;
    while !c.at_end() {
        let start = c.offset();
        let (sid, data) = super::encoding::read_section(&mut c).unwrap();
        let body = &v[c.offset() - data.remaining()..c.offset()];
        if sid == id as usize {
            found = true;
            assert_eq!(v[start] & 0x80, 0, "an aligned section");
            let new = f(body);
            out.push(id);
            out.extend(encode_varint(new.len() as u64));
            out.extend(new);
        } else {
            out.extend_from_slice(&v[start..c.offset()]);
        }
    }
    assert!(found, "no section {id}");
    out
}

/// A section's data with its leading count replaced by `n`.
fn with_count(data: &[u8], n: u64) -> Vec<u8> {
    let mut c = super::encoding::Cursor::new(data, 0);
    c.varint("count").unwrap();
    let mut out = encode_varint(n);
    out.extend_from_slice(&data[c.offset()..]);
    out
}

#[test]
fn oversized_counts_and_lengths_are_errors_not_allocations() {
    let v = sample();
    assert_eq!(
        with_section(&v, 0, <[u8]>::to_vec),
        v,
        "the rebuild is exact"
    );
    for (what, id, n, want) in [
        ("strings", 0, 1u64 << 40, "more than the"),
        ("strings", 0, u64::MAX, "more than the"),
        ("dialects", 1, 1 << 40, "more than the"),
    ] {
        let bad = with_section(&v, id, |d| with_count(d, n));
        let e = error_of(&bad);
        assert!(
            e.message.contains(want) && e.offset < bad.len(),
            "{what} count {n}: {e}"
        );
    }
    // One string length of 2^60: the lengths no longer add up to the data that follows.
    let bad = with_section(&v, 0, |d| {
        let mut c = super::encoding::Cursor::new(d, 0);
        let n = c.varint("count").unwrap();
        let mut out = encode_varint(n);
        out.extend(encode_varint(1 << 60));
        c.varint("first length").unwrap();
        out.extend_from_slice(&d[c.offset()..]);
        out
    });
    let e = error_of(&bad);
    assert!(e.message.contains("string data"), "{e}");
}

#[test]
fn every_truncation_is_an_error_with_an_offset_inside_the_file() {
    let v = sample();
    for len in 0..v.len() {
        let e = error_of(&v[..len]);
        assert!(
            e.offset <= len,
            "truncated at {len}: offset {} ({e})",
            e.offset
        );
    }
}

/// Finds `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn unknown_ops_and_codes_are_named() {
    // An op name this reader does not know (the string table holds the names).
    let mut v = sample();
    let at = find(&v, b"add_v1\0").unwrap();
    v[at + 5] = b'9';
    let e = error_of(&v);
    assert!(e.message.contains("'vhlo.add_v9': unknown VHLO op"), "{e}");
}

/// A deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `v`: bit flips, random bytes, truncation, insertion, deletion,
/// duplication, a 9-byte varint of a huge value, or a splice from another artifact.
fn mutate(rng: &mut Rng, v: &mut Vec<u8>, other: &[u8]) {
    let n = v.len().max(1);
    match rng.below(9) {
        0 => {
            let i = rng.below(n);
            if let Some(b) = v.get_mut(i) {
                *b ^= 1 << rng.below(8);
            }
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(n);
                if let Some(b) = v.get_mut(i) {
                    *b = rng.next() as u8;
                }
            }
        }
        2 => v.truncate(rng.below(n)),
        3 => {
            let i = rng.below(n);
            let k = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..k).map(|_| rng.next() as u8).collect();
            let i = i.min(v.len());
            v.splice(i..i, bytes);
        }
        4 => {
            let i = rng.below(n).min(v.len());
            let k = (1 + rng.below(16)).min(v.len() - i);
            v.drain(i..i + k);
        }
        5 => {
            let i = rng.below(n).min(v.len());
            let k = (1 + rng.below(32)).min(v.len() - i);
            let chunk = v[i..i + k].to_vec();
            v.splice(i..i, chunk);
        }
        6 => {
            // A varint marker byte of 0: eight little-endian bytes follow.
            let i = rng.below(n).min(v.len());
            let mut bytes = vec![0u8];
            bytes.extend((rng.next() | 1 << 62).to_le_bytes());
            v.splice(i..(i + 1).min(v.len()), bytes);
        }
        7 => {
            let i = rng.below(n);
            if let Some(b) = v.get_mut(i) {
                *b = [0x00, 0x01, 0xff, 0x7f, 0x80, 0x02][rng.below(6)];
            }
        }
        _ => {
            let i = rng.below(n).min(v.len());
            let j = rng.below(other.len().max(1)).min(other.len());
            let k = (1 + rng.below(64)).min(other.len() - j);
            v.splice(i..(i + k).min(v.len()), other[j..j + k].iter().copied());
        }
    }
}

/// At least 10,000 mutations of the corpus through the reader: no panic (each read is
/// caught), no hang and no huge allocation (the loop is bounded by count, and every
/// length field is checked against the bytes left, so a read costs about its input).
/// Deterministic: the seed is fixed.
#[test]
fn fuzz_mutations_of_the_corpus() {
    let mut files = corpus_files("programs");
    files.extend(corpus_files("conformance"));
    // Small artifacts first: more mutations per second, and every op kind appears.
    let mut corpus: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    corpus.sort_by_key(|v| v.len());
    corpus.truncate(600);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut errors) = (0, 0);
    let start = std::time::Instant::now();
    let mutations = 12_000;
    for i in 0..mutations {
        let base = &corpus[rng.below(corpus.len())];
        let other = &corpus[rng.below(corpus.len())];
        let mut v = base.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut rng, &mut v, other);
        }
        let r = std::panic::catch_unwind(|| read(&v).map(|m| canonical(&m).len()));
        match r {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                assert!(
                    e.offset <= v.len(),
                    "mutation {i}: offset {} past {} bytes ({e})",
                    e.offset,
                    v.len()
                );
                errors += 1;
            }
            Err(_) => {
                let path = std::env::temp_dir().join(format!("xlac-bytecode-fuzz-{i}.mlirbc"));
                let _ = std::fs::write(&path, &v);
                panic!(
                    "mutation {i} panicked the reader; input saved to {}",
                    path.display()
                );
            }
        }
    }
    eprintln!(
        "fuzz: {mutations} mutations, {ok} read, {errors} rejected with an error, in {:.1?}",
        start.elapsed()
    );
    assert_eq!(ok + errors, mutations);
}

#[test]
fn locations_are_the_same_from_text_and_bytecode() {
    // `testdata/locations/`: jax programs printed with debug info and their artifacts.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/locations");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let bc = e.unwrap().path();
        if bc.extension().is_none_or(|x| x != "mlirbc") {
            continue;
        }
        let text = std::fs::read_to_string(bc.with_extension("mlir")).unwrap();
        let t = parse_mlir(&text, "t", 0).unwrap();
        let b = read(&std::fs::read(&bc).unwrap()).unwrap();
        let (ct, cb) = (canonical(&t), canonical(&b));
        if let Some((x, y)) = ct.lines().zip(cb.lines()).find(|(x, y)| x != y) {
            panic!("{}: op trees differ\ntext:  {x}\nbytes: {y}", bc.display());
        }
        assert_eq!(ct, cb, "{}", bc.display());
        assert!(
            ct.contains("callsite("),
            "{}: no locations compared",
            bc.display()
        );
        n += 1;
    }
    assert!(n >= 5, "{n} artifacts");
}
