//! Golden tests of the LAPACK custom calls: each `testdata/lapack/<case>/model.mlir` is a
//! jax function as jax lowers it for XLA:CPU (`lapack_?geqrf_ffi` with a complex `R`,
//! `?geqp3`, `?ormqr`/`?unmqr`, `?gesvd`, `?gehrd`, `?sytrd`/`?hetrd`, `?gees`, `?gtsv` and
//! `tridiagonal_solve_perturbed_ffi`), with XLA:CPU's outputs in `expected.npz`
//! (written by `scripts/golden_linalg.py`). Both the interpreter and the compiled backend
//! must match them. The cases return what LAPACK's conventions fix, so the factors
//! themselves are compared where they are unique.
//!
//! The `geev_*` and `gees_*` cases (`lax.linalg.eig`, `lax.linalg.schur`) hold LAPACK's own
//! outputs (scipy's `?geev`/`?gees`, the LAPACK jaxlib calls): eigenvalues in LAPACK's
//! order, eigenvectors, `T` and `Z` elementwise, each within a few ulps times `n` of the
//! output's largest entry.

use std::path::{Path, PathBuf};

use xlac::compiler::{CompileOptions, compile};
use xlac::eval::compare::{Tolerance, compare_arrays};
use xlac::eval::{EvalOptions, evaluate};
use xlac::front::stablehlo;
use xlac::io::arguments::{bind_arguments, entry_parameters};
use xlac::io::npz::read_npz;
use xlac::ir::verifier::verify;
use xlac::ir::{ArrayLiteral, Module, PrimitiveType};

/// The case folders, sorted.
fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/lapack");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/lapack is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.npz").exists())
        .collect();
    dirs.sort();
    dirs
}

fn load(dir: &Path) -> Result<Module, String> {
    let path = dir.join("model.mlir");
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let module = stablehlo::parse_module(&text, &path.display().to_string())
        .map_err(|e| format!("parse: {e}"))?
        .module;
    verify(&module).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        format!("verify: {}", lines.join("; "))
    })?;
    Ok(module)
}

/// Rounding differs from LAPACK's (other summation orders, faer's SVD): a factorization of
/// a well-conditioned 6×6 is good to a few hundred ulps of its largest entry.
fn tolerance(ty: PrimitiveType) -> Tolerance {
    match ty {
        PrimitiveType::F64 | PrimitiveType::C128 => Tolerance {
            rtol: 1e-9,
            atol: 1e-10,
        },
        _ => Tolerance {
            rtol: 1e-4,
            atol: 1e-4,
        },
    }
}

/// The bound for a `geev_*`/`gees_*` output: the rounding of another summation order
/// (OpenBLAS's kernels), [`ULPS_PER_N`] ulps per row of the matrix, relative to the
/// output's largest entry.
fn eigen_tolerance(want: &ArrayLiteral) -> Tolerance {
    let (eps, largest, n) = match want.element_type() {
        PrimitiveType::F32 => {
            let v = want.values::<f32>().unwrap_or(&[]);
            let big = v.iter().fold(0f64, |m, x| m.max(f64::from(x.abs())));
            (
                f64::from(f32::EPSILON),
                big,
                want.shape.dims.last().copied(),
            )
        }
        PrimitiveType::F64 => {
            let v = want.values::<f64>().unwrap_or(&[]);
            (
                f64::EPSILON,
                v.iter().fold(0f64, |m, x| m.max(x.abs())),
                want.shape.dims.last().copied(),
            )
        }
        PrimitiveType::C64 => {
            let v = want.values::<num_complex::Complex<f32>>().unwrap_or(&[]);
            let big = v.iter().fold(0f64, |m, x| m.max(f64::from(x.norm())));
            (
                f64::from(f32::EPSILON),
                big,
                want.shape.dims.last().copied(),
            )
        }
        _ => {
            let v = want.values::<num_complex::Complex<f64>>().unwrap_or(&[]);
            (
                f64::EPSILON,
                v.iter().fold(0f64, |m, x| m.max(x.norm())),
                want.shape.dims.last().copied(),
            )
        }
    };
    let n = n.unwrap_or(1).max(1) as f64;
    Tolerance {
        rtol: 0.0,
        atol: ULPS_PER_N * n * eps * largest.max(f64::MIN_POSITIVE),
    }
}

/// How many ulps per row a `geev_*`/`gees_*` output may differ by.
const ULPS_PER_N: f64 = 16.0;

/// Cases whose eigenvectors or Schur vectors LAPACK fixes only up to a unit factor per
/// column that rests on rounding noise: how many QR sweeps run before a deflation at noise
/// level (complex `Z`, and `T` with it, change phase; a real conjugate pair's vectors change
/// sign). Their matrices are compared by the moduli of their entries, which that factor
/// leaves alone; eigenvalues are still compared as they are.
const PHASE_ONLY: &[&str] = &[
    "gees_complex128_12",
    "gees_complex128_2",
    "gees_complex128_3",
    "gees_complex128_4",
    "gees_complex128_50",
    "gees_complex128_6",
    "gees_complex128_6_permuted",
    "gees_complex64_12",
    "gees_complex64_4",
    "gees_complex64_6",
    "gees_float32_12",
    "gees_float32_6",
    "geev_float32_12",
    "geev_float32_6",
    "geev_float64_50",
];

/// `|x|` of every entry, as f64.
fn moduli(a: &ArrayLiteral) -> ArrayLiteral {
    let m: Vec<f64> = match a.element_type() {
        PrimitiveType::F32 => a
            .values::<f32>()
            .unwrap_or(&[])
            .iter()
            .map(|x| f64::from(x.abs()))
            .collect(),
        PrimitiveType::F64 => a
            .values::<f64>()
            .unwrap_or(&[])
            .iter()
            .map(|x| x.abs())
            .collect(),
        PrimitiveType::C64 => a
            .values::<num_complex::Complex<f32>>()
            .unwrap_or(&[])
            .iter()
            .map(|x| f64::from(x.norm()))
            .collect(),
        _ => a
            .values::<num_complex::Complex<f64>>()
            .unwrap_or(&[])
            .iter()
            .map(|x| x.norm())
            .collect(),
    };
    ArrayLiteral::from_vec(&a.shape.dims, m)
}

/// Which backend runs the case.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Interpreter,
    Compiled,
}

/// Runs one case on one backend; one line per problem.
fn check(dir: &Path, backend: Backend) -> Vec<String> {
    let module = match load(dir) {
        Ok(m) => m,
        Err(e) => return vec![e],
    };
    let inputs = match read_npz(&dir.join("inputs.npz")) {
        Ok(i) => i,
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let args = match bind_arguments(&entry_parameters(&module), inputs, 0) {
        Ok(a) if a.randomized.is_empty() => a,
        Ok(_) => return vec!["inputs.npz has too few arrays".into()],
        Err(e) => return vec![format!("inputs: {}", e.message)],
    };
    let result = match backend {
        Backend::Interpreter => evaluate(&module, &args.literals, &EvalOptions::default())
            .map_err(|e| format!("eval: {e}")),
        Backend::Compiled => compile(module, &CompileOptions::default())
            .map_err(|e| format!("compile: {e}"))
            .and_then(|c| {
                let mut exe = c.executable;
                exe.execute(&args.literals)
                    .map_err(|e| format!("execute: {e}"))
            }),
    };
    let result = match result {
        Ok(r) => r,
        Err(e) => return vec![e],
    };
    let leaves: Vec<&ArrayLiteral> = result.leaves();
    let expected = read_npz(&dir.join("expected.npz")).expect("expected.npz");
    if leaves.len() != expected.len() {
        return vec![format!(
            "{} outputs, expected {}",
            leaves.len(),
            expected.len()
        )];
    }
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let from_lapack = name.starts_with("geev_") || name.starts_with("gees_");
    let mut problems = Vec::new();
    for (i, (actual, want)) in leaves.iter().zip(&expected).enumerate() {
        let tol = if from_lapack {
            eigen_tolerance(&want.literal)
        } else {
            tolerance(actual.element_type())
        };
        let compared = if PHASE_ONLY.contains(&name.as_ref()) && want.literal.shape.dims.len() == 2
        {
            compare_arrays(&moduli(actual), &moduli(&want.literal), tol)
        } else {
            compare_arrays(actual, &want.literal, tol)
        };
        match compared {
            Ok(c) if c.ok() => {}
            Ok(c) => problems.push(format!("output {i}: {c}")),
            Err(e) => problems.push(format!("output {i}: {e}")),
        }
    }
    problems
}

fn run_all(backend: Backend) {
    let dirs = cases();
    assert!(
        dirs.len() >= 30,
        "expected the LAPACK cases in testdata/lapack"
    );
    let mut problems = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        problems.extend(
            check(dir, backend)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(
        problems.is_empty(),
        "{backend:?}: {} of {} LAPACK cases differ from XLA:CPU:\n{}",
        problems.len(),
        dirs.len(),
        problems.join("\n")
    );
}

#[test]
fn lapack_cases_match_xla_on_the_interpreter() {
    run_all(Backend::Interpreter);
}

#[test]
fn lapack_cases_match_xla_compiled() {
    run_all(Backend::Compiled);
}

/// The compiled backend on threads that flush denormals (FTZ and DAZ), as jaxlib's are: a
/// thread starts with its creator's mode, so a pool built on such a thread flushes too.
/// The routines keep IEEE arithmetic whatever their thread's mode (a batch of complex SVDs
/// came out wrong for all but its last matrix under it).
#[test]
fn lapack_cases_match_xla_compiled_on_flushing_threads() {
    use xlac::ir::denormal_mode::{DenormalMode, with_denormal_mode};
    with_denormal_mode(DenormalMode::Flush, || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        pool.install(|| run_all(Backend::Compiled));
    });
}
