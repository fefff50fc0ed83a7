//! The differential harness: compile a module's entry fusion with `compile_kernels`, run the
//! kernel on buffers built from random (seeded) literals in PHYSICAL layout order, and compare
//! with the reference interpreter (`eval::evaluate`) on the same module: integers and `pred`
//! exactly, floats within [`ULP_BOUND`] units in the last place (NaN matches any NaN,
//! denormals count as zeros of their sign on both sides, as XLA:CPU flushes them). Each
//! kernel runs twice: once over the whole range and once split into three calls, which
//! checks that work units own disjoint outputs.

use half::{bf16, f16};

use crate::codegen::denormals::with_flushed_denormals;
use crate::codegen::elemental::convert::literal_bytes;
use crate::codegen::{CodegenOptions, compile_kernels};
use crate::eval::{EvalOptions, SplitMix64, evaluate};
use crate::ir::{
    ArrayData, ArrayLiteral, ArrayShape, FusionKind, Literal, Module, Op, Opcode, PrimitiveType,
};

/// Floats may differ by this many ULPs of their type (the libcalls are the interpreter's own
/// functions, so most results agree bit for bit).
pub const ULP_BOUND: u64 = 2;

/// A random literal of `shape` (row-major values, then stored in `shape`'s layout): normal
/// values, with special values (NaN, ±inf, ±0, denormals, extremes) mixed in.
pub fn random_literal(shape: &ArrayShape, rng: &mut SplitMix64, specials: bool) -> ArrayLiteral {
    let n = shape.element_count();
    let mut row_major = shape.clone();
    row_major.layout = crate::ir::Layout::row_major(shape.rank());
    let special = |rng: &mut SplitMix64| specials && rng.next_u64().is_multiple_of(8);
    let float = |rng: &mut SplitMix64| -> f64 {
        if special(rng) {
            let s = [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.0,
                -0.0,
                1e-40,
                -1e-310,
                1.0,
                -1.0,
                0.5,
                -2.5,
                3e38,
                -1e300,
                2.5,
            ];
            s[(rng.next_u64() % s.len() as u64) as usize]
        } else {
            (rng.next_f64() - 0.5) * 8.0
        }
    };
    let int = |rng: &mut SplitMix64| -> u64 {
        match rng.next_u64() % 4 {
            0 => rng.next_u64(),
            1 => [0u64, 1, u64::MAX, 1 << 63, (1 << 31), 1 << 15, 1 << 7, 255]
                [(rng.next_u64() % 8) as usize],
            _ => (rng.next_u64() % 14).wrapping_sub(3),
        }
    };
    macro_rules! fill {
        ($f:expr) => {
            (0..n).map(|_| $f(&mut *rng)).collect()
        };
    }
    use PrimitiveType as P;
    let data = match shape.element_type {
        P::Pred => ArrayData::Pred(fill!(|r: &mut SplitMix64| r.next_u64() & 1 == 1)),
        P::S8 => ArrayData::S8(fill!(|r: &mut SplitMix64| int(r) as i8)),
        P::S16 => ArrayData::S16(fill!(|r: &mut SplitMix64| int(r) as i16)),
        P::S32 => ArrayData::S32(fill!(|r: &mut SplitMix64| int(r) as i32)),
        P::S64 => ArrayData::S64(fill!(|r: &mut SplitMix64| int(r) as i64)),
        P::U8 => ArrayData::U8(fill!(|r: &mut SplitMix64| int(r) as u8)),
        P::U16 => ArrayData::U16(fill!(|r: &mut SplitMix64| int(r) as u16)),
        P::U32 => ArrayData::U32(fill!(|r: &mut SplitMix64| int(r) as u32)),
        P::U64 => ArrayData::U64(fill!(|r: &mut SplitMix64| int(r))),
        P::F16 => ArrayData::F16(fill!(|r: &mut SplitMix64| f16::from_f64(float(r)))),
        P::BF16 => ArrayData::BF16(fill!(|r: &mut SplitMix64| bf16::from_f64(float(r)))),
        P::F32 => ArrayData::F32(fill!(|r: &mut SplitMix64| float(r) as f32)),
        P::F64 => ArrayData::F64(fill!(float)),
        t => panic!("no random literals of {t}"),
    };
    ArrayLiteral {
        shape: row_major,
        data,
    }
    .with_layout(&shape.layout)
}

/// Little-endian physical bytes back into a literal of `shape`.
fn literal_from_bytes(shape: &ArrayShape, bytes: &[u8]) -> ArrayLiteral {
    let data = crate::eval::from_le_bytes(bytes, shape.element_type)
        .unwrap_or_else(|e| panic!("no literals of {}: {e}", shape.element_type));
    ArrayLiteral {
        shape: shape.clone(),
        data,
    }
}

/// A buffer of 8-byte words (so every element type is aligned) holding `bytes`.
fn buffer_of(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)];
    // SAFETY: `words` has at least `bytes.len()` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr() as *mut u8, bytes.len())
    };
    words
}

fn bytes_of(words: &[u64], len: usize) -> Vec<u8> {
    // SAFETY: `words` holds at least `len` bytes.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, len) }.to_vec()
}

/// Compiles and runs the entry's fusion of `text` on seeded random inputs (or `inputs`
/// where given) and compares every output with the interpreter. Panics with a description
/// on mismatch.
pub fn check_hlo(text: &str, seed: u64) {
    check_hlo_with(text, seed, &[]);
}

/// As [`check_hlo`], with some parameters given explicitly (`None`: random).
pub fn check_hlo_with(text: &str, seed: u64, given: &[Option<Literal>]) {
    check(text, seed, given, true, None);
}

/// For float reductions: no special values, and a relative tolerance instead of ULPs. The
/// interpreter sums single-input float `add` reductions in f64 (HloEvaluator's
/// `use_fast_add`) while kernels accumulate in the element type as XLA:CPU does, so the
/// results differ by accumulated rounding (`rtol` 1e-4, or 3e-2 for bf16/f16).
pub fn check_hlo_reduction(text: &str, seed: u64) {
    check_hlo_reduction_with(text, seed, &[]);
}

/// As [`check_hlo_reduction`], with some parameters given explicitly (`None`: random).
pub fn check_hlo_reduction_with(text: &str, seed: u64, given: &[Option<Literal>]) {
    check(text, seed, given, false, Some(1e-4));
}

/// For chains of transcendental ops whose result cancels: no special values, relative
/// tolerance 1e-4 (the ulp differences of each op grow through the cancellation).
pub fn check_hlo_close(text: &str, seed: u64) {
    check(text, seed, &[], false, Some(1e-4));
}

fn check(text: &str, seed: u64, given: &[Option<Literal>], specials: bool, rtol: Option<f64>) {
    let module = crate::front::hlo_text::parse_module(text, "test")
        .unwrap_or_else(|e| panic!("parse error: {e:?}\n{text}"))
        .module;
    let entry = module.entry_computation();
    let mut rng = SplitMix64::new(seed);
    let args: Vec<Literal> = entry
        .parameter_shapes()
        .iter()
        .enumerate()
        .map(|(i, s)| match given.get(i).cloned().flatten() {
            Some(l) => l,
            None => Literal::Array(random_literal(
                s.as_array().expect("array parameter"),
                &mut rng,
                specials,
            )),
        })
        .collect();
    // The kernels contract multiply-adds where the host has FMA; so does the reference.
    let reference = EvalOptions {
        fp_contraction: crate::codegen::isa::host_contracts_fma(),
        ..EvalOptions::default()
    };
    let expected = evaluate(&module, &args, &reference)
        .unwrap_or_else(|e| panic!("interpreter failed: {e:?}\n{text}"));
    let kernels = compile_kernels(
        &module,
        &CodegenOptions {
            keep_artifacts: true,
            block_math: true,
            no_fp_contraction: false,
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let (fusion_id, fusion) = entry
        .iter()
        .find(|(_, i)| i.opcode() == Opcode::Fusion)
        .expect("the entry has a fusion");
    let kernel = kernels
        .get(module.entry, fusion_id)
        .expect("a kernel for the fusion");
    assert_eq!(entry.root, fusion_id, "the fusion must be the entry root");

    // Input buffers: the fusion's operands are entry parameters.
    let mut inputs: Vec<Vec<u64>> = Vec::new();
    for &o in &fusion.operands {
        let Op::Parameter { number } = entry.instr(o).op else {
            panic!("fusion operands must be parameters");
        };
        let shape = entry.instr(o).shape.as_array().unwrap();
        let lit = args[number].as_array().unwrap().with_layout(&shape.layout);
        inputs.push(buffer_of(&literal_bytes(&lit).unwrap()));
    }
    let Op::Fusion { kind, calls } = &fusion.op else {
        unreachable!()
    };
    if *kind == FusionKind::Output {
        inputs.push(library_result(
            &module,
            *calls,
            &args,
            &fusion.operands,
            entry,
        ));
    }
    let outputs: Vec<ArrayShape> = fusion.shape.leaves().into_iter().cloned().collect();
    let fused = module.computation(*calls);
    let in_place = fused.root_instr().opcode() == Opcode::DynamicUpdateSlice
        && matches!(
            fused.instr(fused.root_instr().operands[0]).op,
            Op::Parameter { .. }
        );
    let fresh_outputs = || -> Vec<Vec<u64>> {
        outputs
            .iter()
            .map(|s| {
                if in_place {
                    inputs[0].clone()
                } else {
                    // A sentinel pattern: an element the kernel forgets to write shows up.
                    vec![0x7ff4_dead_7ff4_deadu64; s.byte_size().div_ceil(8).max(1)]
                }
            })
            .collect()
    };
    let run = |ranges: &[(u64, u64)]| -> Vec<ArrayLiteral> {
        let mut outs = fresh_outputs();
        let mut table: Vec<*mut u8> = inputs.iter().map(|b| b.as_ptr() as *mut u8).collect();
        table.extend(outs.iter_mut().map(|b| b.as_mut_ptr() as *mut u8));
        // Scratch after the outputs (a column reduction's partial rows), garbage-filled: a
        // kernel must not read what it did not write there.
        let mut scratch =
            vec![0x7ff4_dead_7ff4_deadu64; (kernel.scratch_bytes as usize).div_ceil(8)];
        if kernel.scratch_bytes > 0 {
            table.push(scratch.as_mut_ptr() as *mut u8);
        }
        with_flushed_denormals(|| {
            for &(lo, hi) in ranges {
                // SAFETY: the table holds one valid buffer per operand and output, sized by
                // their shapes; ranges lie within 0..work_units.
                unsafe { (kernel.entry)(table.as_ptr(), lo, hi) };
            }
        });
        outs.iter()
            .zip(&outputs)
            .map(|(b, s)| literal_from_bytes(s, &bytes_of(b, s.byte_size())).to_row_major())
            .collect()
    };
    let n = kernel.work_units;
    let whole = run(&[(0, n)]);
    let split = run(&[(0, n / 3), (n / 3, 2 * n / 3), (2 * n / 3, n)]);
    let expected_leaves: Vec<&ArrayLiteral> = expected.leaves();
    assert_eq!(expected_leaves.len(), whole.len());
    for (k, ((got, again), want)) in whole.iter().zip(&split).zip(&expected_leaves).enumerate() {
        if let Some(msg) = compare(got, want, rtol) {
            panic!(
                "output {k} differs from the interpreter: {msg}\n{text}\n{}",
                kernel.artifacts.clif_no_opt
            );
        }
        assert!(
            literal_bytes(got) == literal_bytes(again),
            "split ranges gave a different result\n{text}"
        );
    }
}

/// The fused dot's value, computed by the interpreter, in the dot's layout.
fn library_result(
    module: &Module,
    fused: crate::ir::ComputationId,
    args: &[Literal],
    operands: &[crate::ir::InstrId],
    entry: &crate::ir::Computation,
) -> Vec<u64> {
    let mut m = module.clone();
    let comp = &mut m.computations[fused];
    let dot = comp
        .order
        .iter()
        .copied()
        .find(|&i| comp.instr(i).opcode() == Opcode::Dot)
        .expect("a dot");
    comp.root = dot;
    m.entry = fused;
    let fusion_args: Vec<Literal> = operands
        .iter()
        .map(|&o| match entry.instr(o).op {
            Op::Parameter { number } => args[number].clone(),
            _ => panic!("fusion operands must be parameters"),
        })
        .collect();
    let value = evaluate(&m, &fusion_args, &EvalOptions::default()).expect("dot evaluates");
    let shape = m.computations[fused]
        .instr(dot)
        .shape
        .as_array()
        .unwrap()
        .clone();
    let lit = value.as_array().unwrap().with_layout(&shape.layout);
    buffer_of(&literal_bytes(&lit).unwrap())
}

/// `None` if equal under the harness's rules, else a description of the first difference.
fn compare(got: &ArrayLiteral, want: &ArrayLiteral, rtol: Option<f64>) -> Option<String> {
    if got.shape.dims != want.shape.dims || got.element_type() != want.element_type() {
        return Some(format!("shape {:?} vs {:?}", got.shape, want.shape));
    }
    let bytes_got = literal_bytes(got)?;
    let bytes_want = literal_bytes(want)?;
    let t = got.element_type();
    let w = t.byte_size();
    for (i, (a, b)) in bytes_got.chunks(w).zip(bytes_want.chunks(w)).enumerate() {
        let mut ra = [0u8; 8];
        let mut rb = [0u8; 8];
        ra[..w].copy_from_slice(a);
        rb[..w].copy_from_slice(b);
        let (x, y) = (u64::from_le_bytes(ra), u64::from_le_bytes(rb));
        let ok = if let (Some(rtol), true) = (rtol, t.is_float()) {
            let (a, b) = (value(t, x), value(t, y));
            let rtol = if t.byte_size() == 2 {
                rtol.max(3e-2)
            } else {
                rtol
            };
            (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * (1.0 + b.abs())
        } else if t.is_float() {
            float_close(t, x, y)
        } else {
            x == y
        };
        if !ok {
            return Some(format!(
                "element {i} (row-major): got {} want {} (bits {x:#x} vs {y:#x})",
                show(t, x),
                show(t, y)
            ));
        }
    }
    None
}

fn value(t: PrimitiveType, bits: u64) -> f64 {
    match t {
        PrimitiveType::F32 => f64::from(f32::from_bits(bits as u32)),
        PrimitiveType::F64 => f64::from_bits(bits),
        PrimitiveType::F16 => f16::from_bits(bits as u16).to_f64(),
        _ => bf16::from_bits(bits as u16).to_f64(),
    }
}

fn show(t: PrimitiveType, bits: u64) -> String {
    match t {
        PrimitiveType::F32 => format!("{}", f32::from_bits(bits as u32)),
        PrimitiveType::F64 => format!("{}", f64::from_bits(bits)),
        PrimitiveType::F16 => format!("{}", f16::from_bits(bits as u16)),
        PrimitiveType::BF16 => format!("{}", bf16::from_bits(bits as u16)),
        _ => format!("{}", bits as i64),
    }
}

/// Float bits (of type `t`) equal within [`ULP_BOUND`], NaN = NaN, denormals = signed 0.
fn float_close(t: PrimitiveType, x: u64, y: u64) -> bool {
    let (bits, exp_bits, man_bits) = match t {
        PrimitiveType::F64 => (64, 11, 52),
        PrimitiveType::F32 => (32, 8, 23),
        PrimitiveType::F16 => (16, 5, 10),
        _ => (16, 8, 7),
    };
    let sign = 1u64 << (bits - 1);
    let exp_mask = ((1u64 << exp_bits) - 1) << man_bits;
    let man_mask = (1u64 << man_bits) - 1;
    let is_nan = |v: u64| v & exp_mask == exp_mask && v & man_mask != 0;
    // bf16 and f32 denormals flush (XLA:CPU's FTZ); f16 denormals are normal f32 values.
    let flush = |v: u64| {
        if t != PrimitiveType::F16 && v & exp_mask == 0 {
            v & sign
        } else {
            v
        }
    };
    let (x, y) = (flush(x), flush(y));
    if is_nan(x) || is_nan(y) {
        return is_nan(x) && is_nan(y);
    }
    // Map to a monotonic integer line and measure the distance.
    let key = |v: u64| -> i128 {
        if v & sign != 0 {
            -((v & !sign) as i128)
        } else {
            v as i128
        }
    };
    (key(x) - key(y)).unsigned_abs() <= u128::from(ULP_BOUND)
}
