"""Golden values for xlac's CHLO decomposition tests (src/front/stablehlo/chlo/).

Runs each function through real JAX/XLA:CPU (jax/jaxlib 0.10.2), where `jax.lax.<op>` lowers
to the `chlo.<op>` under test, and writes `src/front/stablehlo/chlo/golden.rs`: one `Golden`
per (op, element type) with its inputs and XLA's outputs, all as f64 (f32 values are exact
in f64; nan and inf are spelled out).
Usage: python3 scripts/golden_chlo.py
"""
import math
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

OUT = pathlib.Path(__file__).resolve().parent.parent / "src/front/stablehlo/chlo/golden.rs"

INF, NAN = float("inf"), float("nan")
GENERAL = [-3.5, -1.0, -0.25, 0.0, 1e-3, 0.3, 1.0, 2.5, 7.0, 30.0]
UNIT = [-1.0, -0.999, -0.9, -0.5, -1e-4, 0.0, 0.2, 0.7, 0.99, 1.0, 1.5, NAN]
GAMMA = [-4.5, -3.0, -2.2, -1.5, -0.5, 0.0, 1e-5, 0.5, 1.0, 1.5, 2.0, 3.3, 10.0, 100.0, 1e6, INF, -INF, NAN]
ERF = [-10.0, -3.0, -1.5, -1.0, -0.99, -0.3, 0.0, 1e-6, 0.2, 0.5, 0.999, 1.0, 1.7, 2.5, 5.0, 9.0, 27.0, INF]
TRIG = [-1.0, -0.8, -0.3, -1e-5, 0.0, 0.4, 0.6, 0.95, 1.0]
HYPER = [-90.0, -20.0, -3.0, -1.0, -0.5, -1e-4, 0.0, 0.01, 0.9, 1.0, 1.5, 5.0, 88.0, 1e19, 1e30]
ACOSH = [0.5, 1.0, 1.0001, 1.5, 2.0, 10.0, 1e5, 1e20, 3e38, INF, NAN]

UNARY = [
    # (name in Rust, chlo op, jax function, inputs)
    ("ERF", "chlo.erf", jax.lax.erf, ERF),
    ("ERFC", "chlo.erfc", jax.lax.erfc, ERF),
    ("ERF_INV", "chlo.erf_inv", jax.lax.erf_inv, UNIT),
    ("LGAMMA", "chlo.lgamma", jax.lax.lgamma, GAMMA),
    ("DIGAMMA", "chlo.digamma", jax.lax.digamma, GAMMA),
    ("BESSEL_I1E", "chlo.bessel_i1e", jax.lax.bessel_i1e, [-50.0, -8.5, -8.0, -2.0, -0.1, 0.0, 0.3, 1.0, 7.9, 8.0, 12.0, 100.0, 1e4]),
    ("ACOS", "chlo.acos", jax.lax.acos, TRIG + [1.5]),
    ("ASIN", "chlo.asin", jax.lax.asin, TRIG + [1.5]),
    ("ATAN", "chlo.atan", jax.lax.atan, GENERAL + [1e30, -INF]),
    ("ACOSH", "chlo.acosh", jax.lax.acosh, ACOSH),
    ("ASINH", "chlo.asinh", jax.lax.asinh, HYPER + [-1e30]),
    ("ATANH", "chlo.atanh", jax.lax.atanh, TRIG + [1.5, -2.0]),
    ("COSH", "chlo.cosh", jax.lax.cosh, HYPER[:-2] + [-88.5]),
    ("SINH", "chlo.sinh", jax.lax.sinh, HYPER[:-2] + [-88.5]),
    ("TAN", "chlo.tan", jax.lax.tan, GENERAL),
]

BINARY = [
    ("NEXT_AFTER", "chlo.next_after", jax.lax.nextafter,
     [0.0, 0.0, -0.0, 1.0, 1.0, -1.0, 3.0, -2.5, 1e-30, INF, NAN, 5.0, 0.0],
     [1.0, -1.0, 0.0, 2.0, 0.0, 5.0, 3.0, -3.0, -1.0, 0.0, 1.0, NAN, 0.0]),
    ("ZETA", "chlo.zeta", jax.lax.zeta,
     [1.0, 1.5, 2.0, 2.0, 3.0, 4.0, 7.5, 0.5, 2.0, 2.0, 3.0, 20.0],
     [1.0, 1.0, 1.0, 2.5, 0.3, 10.0, 2.0, 1.0, -1.0, -1.5, -2.0, 1.0]),
    ("POLYGAMMA", "chlo.polygamma", jax.lax.polygamma,
     [0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 1.0, 4.0, 0.5, -1.0],
     [0.5, 3.0, 0.5, 4.0, 1.5, 2.0, 30.0, 0.7, 2.0, 2.0]),
]

DTYPES = [("F32", np.float32), ("F64", np.float64)]


def lit(v):
    v = float(v)
    if math.isnan(v):
        return "f64::NAN"
    if math.isinf(v):
        return "f64::INFINITY" if v > 0 else "f64::NEG_INFINITY"
    r = repr(v)
    return r if ("." in r or "e" in r) else r + ".0"


def arr(vs):
    return "&[" + ", ".join(lit(v) for v in vs) + "]"


def main():
    lines = [
        "//! Golden values from real JAX/XLA:CPU (jax 0.10.2), written by",
        "//! `scripts/golden_chlo.py`; do not edit by hand. Each entry names the producing call.",
        "",
        "// XLA's outputs are data, not approximations of named constants.",
        "#![allow(clippy::approx_constant, clippy::excessive_precision)]",
        "",
        "use super::tests::Golden;",
        "",
    ]
    for name, op, fn, xs in UNARY:
        for tname, dt in DTYPES:
            x = np.array(xs, dtype=dt)
            y = np.asarray(jax.jit(fn)(x))
            lines.append(f"/// `jax.lax.{fn.__name__}(x)` on {tname.lower()}.")
            lines.append("#[rustfmt::skip]")
            lines.append(f"pub(super) const {name}_{tname}: Golden = Golden {{")
            lines.append(f'    op: "{op}",')
            lines.append(f"    a: {arr(x)},")
            lines.append("    b: &[],")
            lines.append(f"    expected: {arr(y)},")
            lines.append("};")
    for name, op, fn, xs, ys in BINARY:
        for tname, dt in DTYPES:
            a = np.array(xs, dtype=dt)
            b = np.array(ys, dtype=dt)
            y = np.asarray(jax.jit(fn)(a, b))
            lines.append(f"/// `jax.lax.{fn.__name__}(a, b)` on {tname.lower()}.")
            lines.append("#[rustfmt::skip]")
            lines.append(f"pub(super) const {name}_{tname}: Golden = Golden {{")
            lines.append(f'    op: "{op}",')
            lines.append(f"    a: {arr(a)},")
            lines.append(f"    b: {arr(b)},")
            lines.append(f"    expected: {arr(y)},")
            lines.append("};")
    # top_k: values and indices of the 3 largest per row, ties and nan included.
    x = np.array([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 7.0, 1.0, 8.0, 2.0, 8.0],
                  [-1.0, NAN, 0.0, -INF, 6.0, -0.0]], dtype=np.float32)
    v, i = jax.jit(lambda t: jax.lax.top_k(t, 3))(x)
    lines.append("/// `jax.lax.top_k(x, 3)` on f32[3,6]: input, values, indices (row-major).")
    lines.append("#[rustfmt::skip]")
    lines.append(f"pub(super) const TOP_K_F32: (&[f64], &[f64], &[i32]) = ({arr(x.ravel())}, "
                 f"{arr(np.asarray(v).ravel())}, &[{', '.join(str(int(t)) for t in np.asarray(i).ravel())}]);")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
