#!/usr/bin/env python3
"""The op sweep: every jax.lax primitive family and the jnp.linalg, jnp.fft, jax.nn,
jax.random and jax.scipy.special functions of jax 0.10.2, over the dtypes XLA:CPU supports
and over their parameters (dimension numbers, padding, strides, batch dimensions, modes),
rank-0 and zero-size shapes included, each lowered by jax and run by XLA:CPU.

Venv (Python 3.11, the pinned versions of testdata/requirements.txt):

    python3 -m venv target/sweep-venv
    target/sweep-venv/bin/pip install -r testdata/requirements.txt
    target/sweep-venv/bin/python testdata/sweep/generate.py          # every case
    target/sweep-venv/bin/python testdata/sweep/generate.py 'qr|svd'  # only matching ones

Writes, in this folder:

    cases.json   one entry per case: name, family, the HLO text (`as_text(dialect="hlo")`,
                 metadata dropped), the StableHLO text (`as_text()`), the numbers of inputs
                 and outputs, and a tolerance where the default per-type one is too tight
                 (results of different but equally valid algorithms)
    arrays.npz   `{case}_in{j}` and `{case}_out{j}`: the inputs and XLA:CPU's flattened
                 outputs; bf16 stored as float32

`tests/sweep.rs` runs every case on xlac's compiled backend from the HLO text, on the
interpreter, and on the compiled backend from the StableHLO text, and compares with the
outputs. Where results are unique only up to signs or phases (eigenvectors, singular
vectors, Q of QR) the case's program computes what is unique (`U Σ Vᴴ`, `Vᴴ V`, `A V - V Λ`,
sorted eigenvalues) from the raw results, inside the program, so the comparison is
still of jax's raw custom calls. The run is deterministic (numpy generators seeded per
case, fixed zip timestamps).
"""

import io
import json
import os
import re
import sys
import zipfile

import numpy as np
import ml_dtypes

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.lax.linalg import geqrf  # the primitive jnp.linalg.qr starts with

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))
BF16 = ml_dtypes.bfloat16

FLOATS = ["bfloat16", "float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
SINTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINTS + UINTS
ALL = ["bool"] + INTS + FLOATS + COMPLEX
SHAPES = [(2, 3), (), (0, 3)]

CASES = []


def dt(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def rng_for(name):
    return np.random.default_rng(abs(hash_str(name)) % (2**32))


def hash_str(s):
    h = 1469598103934665603
    for c in s.encode():
        h = ((h ^ c) * 1099511628211) % (2**64)
    return h


def rand(rng, shape, dtype, lo=-3.0, hi=3.0):
    """Random values of `dtype` in [lo, hi) (integers: a small range fitting the type)."""
    d = dt(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in SINTS:
        return rng.integers(max(-20, int(lo * 7)), min(20, int(hi * 7)) + 1, shape).astype(d)
    if dtype in UINTS:
        return rng.integers(0, 40, shape).astype(d)
    if dtype in COMPLEX:
        return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(d)
    return rng.uniform(lo, hi, shape).astype(np.float32 if dtype == "bfloat16" else d).astype(d)


def add(family, name, fn, args, tol=None):
    CASES.append((family, name, fn, args, tol))


# --------------------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------------------

# (name, function, dtypes, input range)
UNARY = [
    ("neg", lax.neg, INTS[:4] + FLOATS + COMPLEX, None),
    ("abs", lax.abs, SINTS + FLOATS + COMPLEX, None),
    ("sign", lax.sign, SINTS + FLOATS + COMPLEX, None),
    ("floor", lax.floor, FLOATS, None),
    ("ceil", lax.ceil, FLOATS, None),
    ("round_afz", lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), FLOATS, None),
    ("round_even", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), FLOATS, None),
    ("is_finite", lax.is_finite, FLOATS, None),
    ("exp", lax.exp, FLOATS + COMPLEX, None),
    ("exp2", lax.exp2, FLOATS + COMPLEX, None),
    ("expm1", lax.expm1, FLOATS + COMPLEX, None),
    ("log", lax.log, FLOATS + COMPLEX, (0.1, 4.0)),
    ("log1p", lax.log1p, FLOATS + COMPLEX, (-0.5, 3.0)),
    ("sqrt", lax.sqrt, FLOATS + COMPLEX, (0.0, 4.0)),
    ("rsqrt", lax.rsqrt, FLOATS + COMPLEX, (0.1, 4.0)),
    ("cbrt", lax.cbrt, FLOATS, None),
    ("sin", lax.sin, FLOATS + COMPLEX, None),
    ("cos", lax.cos, FLOATS + COMPLEX, None),
    ("tan", lax.tan, FLOATS + COMPLEX, (-1.2, 1.2)),
    ("asin", lax.asin, FLOATS + COMPLEX, (-0.95, 0.95)),
    ("acos", lax.acos, FLOATS + COMPLEX, (-0.95, 0.95)),
    ("atan", lax.atan, FLOATS + COMPLEX, None),
    ("sinh", lax.sinh, FLOATS + COMPLEX, None),
    ("cosh", lax.cosh, FLOATS + COMPLEX, None),
    ("tanh", lax.tanh, FLOATS + COMPLEX, None),
    ("asinh", lax.asinh, FLOATS + COMPLEX, None),
    ("acosh", lax.acosh, FLOATS + COMPLEX, (1.1, 4.0)),
    ("atanh", lax.atanh, FLOATS + COMPLEX, (-0.9, 0.9)),
    ("logistic", lax.logistic, FLOATS + COMPLEX, None),
    ("erf", lax.erf, FLOATS, None),
    ("erfc", lax.erfc, FLOATS, None),
    ("erf_inv", lax.erf_inv, FLOATS, (-0.95, 0.95)),
    ("lgamma", lax.lgamma, FLOATS, (0.1, 5.0)),
    ("digamma", lax.digamma, FLOATS, (0.1, 5.0)),
    ("bessel_i0e", lax.bessel_i0e, FLOATS, None),
    ("bessel_i1e", lax.bessel_i1e, FLOATS, None),
    ("not", lax.bitwise_not, ["bool"] + INTS, None),
    ("population_count", lax.population_count, INTS, None),
    ("clz", lax.clz, INTS, None),
    ("real", lax.real, COMPLEX, None),
    ("imag", lax.imag, COMPLEX, None),
    ("conj", lax.conj, COMPLEX, None),
    ("square", lax.square, SINTS + FLOATS + COMPLEX, None),
    ("integer_pow3", lambda x: lax.integer_pow(x, 3), SINTS + FLOATS + COMPLEX, None),
    ("integer_pow_neg2", lambda x: lax.integer_pow(x, -2), FLOATS + COMPLEX, (0.5, 3.0)),
    ("reciprocal", lambda x: lax.div(jnp.ones_like(x), x), FLOATS + COMPLEX, (0.5, 3.0)),
]

# Transcendentals: xlac's and XLA's approximations may differ by a few ulps.
LOOSE = {"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5),
         "float64": (1e-9, 1e-12), "complex128": (1e-9, 1e-12)}
EXACTISH = {"neg", "abs", "sign", "floor", "ceil", "round_afz", "round_even", "is_finite",
            "not", "population_count", "clz", "real", "imag", "conj"}


def elementwise():
    for name, f, dtypes, rng_range in UNARY:
        lo, hi = rng_range or (-3.0, 3.0)
        for d in dtypes:
            for shape in SHAPES:
                cname = f"{name}_{d}_{'x'.join(map(str, shape)) or 'scalar'}"
                rng = rng_for(cname)
                tol = None if name in EXACTISH else LOOSE.get(d)
                add("unary", cname, f, [rand(rng, shape, d, lo, hi)], tol)

    BINARY = [
        ("add", lax.add, ["bool"][:0] + INTS + FLOATS + COMPLEX),
        ("sub", lax.sub, INTS + FLOATS + COMPLEX),
        ("mul", lax.mul, INTS + FLOATS + COMPLEX),
        ("div", lax.div, INTS + FLOATS + COMPLEX),
        ("rem", lax.rem, INTS + FLOATS),
        ("pow", lax.pow, FLOATS + COMPLEX),
        ("max", lax.max, ["bool"] + INTS + FLOATS + COMPLEX),
        ("min", lax.min, ["bool"] + INTS + FLOATS + COMPLEX),
        ("atan2", lax.atan2, FLOATS),
        ("nextafter", lax.nextafter, FLOATS[1:]),
        ("and", lax.bitwise_and, ["bool"] + INTS),
        ("or", lax.bitwise_or, ["bool"] + INTS),
        ("xor", lax.bitwise_xor, ["bool"] + INTS),
        ("shift_left", lax.shift_left, INTS),
        ("shift_right_arithmetic", lax.shift_right_arithmetic, INTS),
        ("shift_right_logical", lax.shift_right_logical, INTS),
        ("eq", lax.eq, ["bool"] + INTS + FLOATS + COMPLEX),
        ("ne", lax.ne, INTS + FLOATS + COMPLEX),
        ("lt", lax.lt, ["bool"] + INTS + FLOATS),
        ("le", lax.le, INTS + FLOATS),
        ("gt", lax.gt, INTS + FLOATS),
        ("ge", lax.ge, INTS + FLOATS),
        ("complex", lax.complex, ["float32", "float64"]),
    ]
    for name, f, dtypes in BINARY:
        for d in dtypes:
            for shape in [(2, 3), ()]:
                cname = f"{name}_{d}_{'x'.join(map(str, shape)) or 'scalar'}"
                rng = rng_for(cname)
                a = rand(rng, shape, d)
                b = rand(rng, shape, d)
                if name in ("div", "rem") and d in INTS:
                    b = np.where(b == 0, 3, b).astype(b.dtype)
                if name.startswith("shift"):
                    bits = np.dtype(d).itemsize * 8
                    b = rng.integers(0, bits + 2, shape).astype(dt(d))
                if name == "pow":
                    a = rand(rng, shape, d, 0.2, 2.5)
                    b = rand(rng, shape, d, -2.0, 2.0)
                tol = None if name in ("add", "sub", "mul", "max", "min", "and", "or",
                                       "xor", "eq", "ne", "lt", "le", "gt", "ge",
                                       "complex", "nextafter") else LOOSE.get(d)
                add("binary", cname, f, [a, b], tol)
        # Zero-size, once per op.
        d = dtypes[-1]
        z = np.zeros((0, 3), dt(d))
        add("binary", f"{name}_{d}_0x3", f, [z, z])

    for d in FLOATS + INTS:
        rng = rng_for("clamp" + d)
        x = rand(rng, (2, 3), d)
        add("ternary", f"clamp_{d}", lambda lo, x, hi: lax.clamp(lo, x, hi),
            [np.array(rand(rng, (), d, -1, 0)), x, np.array(rand(rng, (), d, 0, 1))])
        add("ternary", f"select_{d}", lambda p, a, b: lax.select(p, a, b),
            [rng.random((2, 3)) < 0.5, x, rand(rng, (2, 3), d)])
    for d in ["float32", "int32"]:
        rng = rng_for("select_n" + d)
        add("ternary", f"select_n3_{d}", lambda w, a, b, c: lax.select_n(w, a, b, c),
            [rng.integers(0, 3, (2, 3)).astype(np.int32), rand(rng, (2, 3), d),
             rand(rng, (2, 3), d), rand(rng, (2, 3), d)])

    # Special values through the ops whose edge cases XLA defines.
    specials = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, -1e30, 0.5],
                        np.float32)
    for name, f in [("exp", lax.exp), ("log", lax.log), ("sqrt", lax.sqrt),
                    ("tanh", lax.tanh), ("logistic", lax.logistic), ("sign", lax.sign),
                    ("floor", lax.floor), ("abs", lax.abs), ("is_finite", lax.is_finite),
                    ("round_even", lambda x: lax.round(x, 1)), ("neg", lax.neg),
                    ("max", lambda x: lax.max(x, x[::-1])), ("min", lambda x: lax.min(x, x[::-1])),
                    ("add", lambda x: x + x[::-1]), ("mul", lambda x: x * x[::-1]),
                    ("div", lambda x: x / x[::-1]), ("rem", lambda x: lax.rem(x, x[::-1])),
                    ("atan2", lambda x: lax.atan2(x, x[::-1])),
                    ("eq", lambda x: x == x[::-1]), ("lt", lambda x: x < x[::-1])]:
        for d in ["float32", "float64"]:
            add("special", f"{name}_special_{d}", f, [specials.astype(d)],
                LOOSE.get(d) if name not in ("max", "min", "eq", "lt", "add", "mul", "neg", "abs") else None)

    for src in ALL:
        for dst in ALL:
            cname = f"convert_{src}_to_{dst}"
            rng = rng_for(cname)
            x = rand(rng, (2, 3), src, -3.0, 40.0 if src in UINTS else 3.0)
            add("convert", cname, lambda x, dst=dst: lax.convert_element_type(x, dt(dst)), [x])
    pairs = [("float32", "int32"), ("int32", "float32"), ("float32", "uint32"),
             ("float64", "int64"), ("int64", "float64"), ("float64", "uint64"),
             ("float16", "int16"), ("bfloat16", "uint16"), ("int16", "float16"),
             ("uint8", "int8"), ("int8", "uint8"), ("float64", "float32"),
             ("complex64", "float64"), ("float32", "uint8"), ("float64", "int32")]
    for src, dst in pairs:
        cname = f"bitcast_{src}_to_{dst}"
        rng = rng_for(cname)
        add("bitcast", cname, lambda x, dst=dst: lax.bitcast_convert_type(x, dt(dst)),
            [rand(rng, (2, 4), src)])
    for d in ["float32", "float64", "bfloat16"]:
        for e, m in [(5, 10), (8, 7), (4, 3), (11, 52)]:
            cname = f"reduce_precision_{d}_e{e}m{m}"
            add("convert", cname, lambda x, e=e, m=m: lax.reduce_precision(x, e, m),
                [rand(rng_for(cname), (2, 3), d, -300.0, 300.0)])


# --------------------------------------------------------------------------------------
# shapes, data movement, indexing
# --------------------------------------------------------------------------------------


def data_movement():
    for d in ["float32", "int8", "bool", "complex64", "bfloat16", "float64", "uint32"]:
        rng = rng_for("dm" + d)
        x = rand(rng, (2, 3, 4), d)
        F = [
            ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 5, 3, 4), (0, 2, 3))),
            ("broadcast", lambda x: lax.broadcast(x, (2,))),
            ("reshape", lambda x: lax.reshape(x, (4, 6))),
            ("reshape_dims", lambda x: lax.reshape(x, (6, 4), dimensions=(2, 1, 0))),
            ("transpose", lambda x: lax.transpose(x, (2, 0, 1))),
            ("rev", lambda x: lax.rev(x, (0, 2))),
            ("slice", lambda x: lax.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 2))),
            ("slice_empty", lambda x: lax.slice(x, (0, 1, 0), (2, 1, 4))),
            ("pad", lambda x: lax.pad(x, jnp.zeros((), x.dtype), ((1, 0, 0), (0, 2, 1), (-1, 1, 0)))),
            ("pad_interior", lambda x: lax.pad(x, jnp.ones((), x.dtype), ((0, 0, 2), (1, 1, 0), (0, -2, 1)))),
            ("concatenate", lambda x: lax.concatenate([x, x[:, :1]], 1)),
            ("squeeze", lambda x: lax.squeeze(x[:1], (0,))),
            ("expand_dims", lambda x: lax.expand_dims(x, (1, 3))),
            ("dynamic_slice", lambda x: lax.dynamic_slice(x, (1, 2, 3), (2, 2, 2))),
            ("dynamic_update_slice", lambda x: lax.dynamic_update_slice(x, x[:1, :2, :2], (1, 2, 3))),
            ("iota_like", lambda x: x.reshape(-1)[jnp.arange(5) * 2]),
            ("gather_take", lambda x: jnp.take(x, jnp.array([2, 0, -1, 5]), axis=1, mode="clip")),
            ("gather_fill", lambda x: jnp.take(x, jnp.array([2, 0, 7]), axis=2, mode="fill", fill_value=0)),
            ("gather_fancy", lambda x: x[jnp.array([1, 0]), :, jnp.array([3, 1])]),
            ("scatter_set", lambda x: x.at[:, jnp.array([0, 2])].set(x[:, :2])),
            ("scatter_drop", lambda x: x.at[jnp.array([0, 5])].set(x[:2], mode="drop")),
            ("rot", lambda x: jnp.rot90(x, axes=(1, 2))),
            ("tile", lambda x: jnp.tile(x[0], (2, 1))),
            ("roll", lambda x: jnp.roll(x, 2, axis=2)),
            ("flip_all", lambda x: jnp.flip(x)),
        ]
        for name, f in F:
            add("data_movement", f"{name}_{d}", f, [x])
        if d not in ("bool",):
            for name, f in [
                ("scatter_add", lambda x: x.at[jnp.array([0, 1, 0])].add(x[jnp.array([1, 1, 0])])),
                ("scatter_mul", lambda x: x.at[:, jnp.array([2, 2])].multiply(x[:, :2])),
                ("scatter_min", lambda x: x.at[jnp.array([1, 1])].min(x[:2])),
                ("scatter_max", lambda x: x.at[jnp.array([1, 0])].max(x[:2])),
            ]:
                if d.startswith("complex") and name in ("scatter_min", "scatter_max"):
                    continue
                add("scatter", f"{name}_{d}", f, [x])
    for n in [0, 1, 7]:
        for d in ["float32", "int32", "uint8", "float16"]:
            add("iota", f"iota_{d}_{n}", lambda x, n=n, d=d: x + lax.iota(dt(d), n),
                [np.zeros((n,), dt(d))])
    # Zero-size shapes through data movement.
    z = np.zeros((0, 3), np.float32)
    for name, f in [("transpose", lambda x: x.T), ("pad", lambda x: jnp.pad(x, ((1, 1), (0, 0)))),
                    ("concat", lambda x: jnp.concatenate([x, x])), ("reshape", lambda x: x.reshape(3, 0)),
                    ("broadcast", lambda x: jnp.broadcast_to(x, (2, 0, 3))),
                    ("slice", lambda x: x[:, 1:]), ("rev", lambda x: x[::-1])]:
        add("zero_size", f"{name}_zero", f, [z])
    for d in ["float32", "int32"]:
        rng = rng_for("dyn" + d)
        x = rand(rng, (5, 4), d)
        add("dynamic", f"dynamic_slice_oob_{d}", lambda x, i: lax.dynamic_slice(x, (i, i), (3, 3)),
            [x, np.int32(4)])
        add("dynamic", f"dynamic_slice_neg_{d}", lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 2)),
            [x, np.int32(-3)])
        add("dynamic", f"dynamic_update_oob_{d}",
            lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)), [x, x[:2, :2], np.int32(9)])
        add("dynamic", f"gather_dynamic_{d}", lambda x, i: x[i], [x, np.array([4, 0, 2], np.int32)])
        add("dynamic", f"scatter_dynamic_{d}", lambda x, i: x.at[i].add(1),
            [x, np.array([4, 0, 4], np.int32)])


def reductions():
    for d in ["float32", "float64", "int32", "uint8", "bool", "bfloat16", "float16",
              "complex64", "int64", "int8"]:
        rng = rng_for("red" + d)
        x = rand(rng, (3, 4, 5), d)
        fs = [("sum", jnp.sum), ("max", jnp.max), ("min", jnp.min), ("prod", jnp.prod),
              ("argmax", jnp.argmax), ("argmin", jnp.argmin), ("any", jnp.any), ("all", jnp.all),
              ("mean", jnp.mean)]
        for name, f in fs:
            if d.startswith("complex") and name in ("max", "min", "argmax", "argmin"):
                continue
            if d == "bool" and name in ("mean", "prod"):
                continue
            for axis in [None, 1, (0, 2)]:
                if name in ("argmax", "argmin") and isinstance(axis, tuple):
                    continue
                tol = (1e-2, 1e-2) if name in ("prod", "mean", "sum") and d in ("float16", "bfloat16") else None
                add("reduce", f"{name}_{d}_axis{axis}".replace(" ", ""), lambda x, f=f, axis=axis: f(x, axis=axis), [x], tol)
        if d not in ("bool",):
            add("reduce", f"sum_zero_size_{d}", lambda x: jnp.sum(x, axis=0), [rand(rng, (0, 3), d)])
            if not d.startswith("complex"):
                add("reduce", f"max_zero_size_{d}", lambda x: jnp.max(x, axis=0, initial=0), [rand(rng, (0, 3), d)])
        add("reduce", f"sum_scalar_{d}", lambda x: jnp.sum(x), [rand(rng, (), d)])
    for d in ["float32", "float64"]:
        rng = rng_for("var" + d)
        x = rand(rng, (4, 6), d)
        for name, f in [("var", jnp.var), ("std", jnp.std), ("logsumexp", jax.nn.logsumexp),
                        ("norm", jnp.linalg.norm), ("median", jnp.median)]:
            add("reduce", f"{name}_{d}", lambda x, f=f: f(x, axis=1), [x], LOOSE[d])
        add("reduce", f"variadic_argmax_nan_{d}", lambda x: jnp.argmax(x, axis=0),
            [np.array([[1, np.nan], [np.nan, 2], [3, 1]], d)])
    for d in ["float32", "int32", "float64", "float16"]:
        rng = rng_for("cum" + d)
        x = rand(rng, (3, 5), d, -1.5, 1.5)
        for name, f in [("cumsum", lax.cumsum), ("cumprod", lax.cumprod), ("cummax", lax.cummax),
                        ("cummin", lax.cummin)]:
            for rev in [False, True]:
                add("cumulative", f"{name}_{d}_rev{rev}",
                    lambda x, f=f, rev=rev: f(x, axis=1, reverse=rev), [x],
                    (1e-2, 1e-2) if d == "float16" else None)
        if d.startswith("float"):
            add("cumulative", f"cumlogsumexp_{d}", lambda x: lax.cumlogsumexp(x, axis=0), [x],
                (1e-2, 1e-2) if d == "float16" else LOOSE.get(d))
    # reduce_window: sum / max / min, strides, padding, dilation.
    for d in ["float32", "int32", "float64", "bfloat16"]:
        rng = rng_for("rw" + d)
        x = rand(rng, (2, 6, 7), d)
        for op, init in [(lax.add, 0), (lax.max, -np.inf if d != "int32" else np.iinfo(np.int32).min),
                         (lax.min, np.inf if d != "int32" else np.iinfo(np.int32).max)]:
            for dims, strides, pad, bd, wd in [
                ((1, 2, 3), (1, 1, 1), "VALID", None, None),
                ((1, 3, 2), (1, 2, 2), "SAME", None, None),
                ((1, 2, 2), (1, 1, 2), ((0, 0), (1, 2), (2, 0)), None, None),
                ((1, 2, 2), (1, 1, 1), "VALID", (1, 2, 1), (1, 1, 2)),
            ]:
                cname = f"reduce_window_{op.__name__}_{d}_{dims}_{strides}_{pad}_{bd}_{wd}"
                cname = re.sub(r"[^A-Za-z0-9_]", "", cname.replace(", ", "_").replace(",", "_"))
                add("reduce_window", cname,
                    lambda x, op=op, init=init, dims=dims, strides=strides, pad=pad, bd=bd, wd=wd:
                    lax.reduce_window(x, np.array(init, x.dtype), op, dims, strides, pad,
                                      base_dilation=bd, window_dilation=wd), [x],
                    (1e-2, 1e-2) if d == "bfloat16" else None)


def sorting():
    for d in ["float32", "int32", "uint8", "float64", "bfloat16", "int64", "float16", "bool"]:
        rng = rng_for("sort" + d)
        x = rand(rng, (3, 6), d)
        add("sort", f"sort_last_{d}", lambda x: lax.sort(x, dimension=1), [x])
        add("sort", f"sort_first_{d}", lambda x: lax.sort(x, dimension=0), [x])
        add("sort", f"argsort_stable_{d}", lambda x: jnp.argsort(x, axis=1, stable=True), [x])
        if d != "bool":
            add("sort", f"sort_descending_{d}", lambda x: jnp.sort(x, axis=1, descending=True), [x])
            add("sort", f"top_k_{d}", lambda x: lax.top_k(x, 3), [x])
        add("sort", f"sort_two_keys_{d}",
            lambda x, y: lax.sort((x, y), dimension=1, num_keys=2, is_stable=True),
            [x, rand(rng, (3, 6), "int32")])
    for d in ["float32", "float64", "bfloat16", "int32"]:
        x = rand(rng_for("approx" + d), (3, 16), d) if d != "int32" else np.random.default_rng(5).permutation(48).reshape(3, 16).astype(np.int32)
        if d != "int32":
            x = np.unique(x.ravel().astype(np.float32))[:48]
            x = np.random.default_rng(3).permutation(np.resize(x, 48)).reshape(3, 16).astype(dt(d))
        add("sort", f"approx_max_k_{d}", lambda x: lax.approx_max_k(x, 4), [x])
        add("sort", f"approx_min_k_dim0_{d}", lambda x: lax.approx_min_k(x, 2, reduction_dimension=0), [x])
    nan = np.array([[3.0, np.nan, -0.0, 0.0, -np.inf, 1.0, np.nan, -2.0]], np.float32)
    add("sort", "sort_nan_f32", lambda x: jnp.sort(x, axis=1), [nan])
    add("sort", "argsort_nan_f32", lambda x: jnp.argsort(x, axis=1), [nan])
    add("sort", "sort_zero_size", lambda x: jnp.sort(x, axis=0), [np.zeros((0, 3), np.float32)])
    add("sort", "sort_scalar_rank1", lambda x: jnp.sort(x), [np.zeros((1,), np.float32)])
    for d in ["float32", "int32"]:
        x = rand(rng_for("searchsorted" + d), (10,), d)
        add("sort", f"searchsorted_{d}", lambda a, v: jnp.searchsorted(jnp.sort(a), v),
            [x, rand(rng_for("ss2" + d), (4,), d)])


def dots_and_convs():
    combos = [("float32", "float32", None), ("float64", "float64", None),
              ("bfloat16", "bfloat16", None), ("float16", "float16", None),
              ("bfloat16", "bfloat16", "float32"), ("int8", "int8", "int32"),
              ("int32", "int32", None), ("int64", "int64", None), ("uint8", "uint8", "uint32"),
              ("complex64", "complex64", None), ("complex128", "complex128", None),
              ("float32", "complex64", None), ("bool", "bool", None), ("int8", "int8", None),
              ("float16", "float16", "float32")]
    for a, b, pref in combos:
        rng = rng_for(f"dot{a}{b}{pref}")
        tol = {"bfloat16": (1e-2, 1e-2), "float16": (1e-2, 1e-2)}.get(a, LOOSE.get(a))
        for name, ls, rs, dn in [
            ("matmul", (3, 4), (4, 5), (((1,), (0,)), ((), ()))),
            ("vecmat", (4,), (4, 5), (((0,), (0,)), ((), ()))),
            ("dotvec", (4,), (4,), (((0,), (0,)), ((), ()))),
            ("batched", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
            ("contract_first", (4, 3), (4, 5), (((0,), (0,)), ((), ()))),
            ("two_contract", (2, 3, 4), (3, 4, 2), (((1, 2), (0, 1)), ((), ()))),
            ("batch_mid", (3, 2, 4), (4, 2, 5), (((2,), (0,)), ((1,), (1,)))),
            ("zero_k", (3, 0), (0, 2), (((1,), (0,)), ((), ()))),
            ("outer", (3,), (2,), (((), ()), ((), ()))),
        ]:
            x = rand(rng, ls, a, -2, 2)
            y = rand(rng, rs, b, -2, 2)
            add("dot_general", f"dot_{name}_{a}_{b}_{pref}",
                lambda x, y, dn=dn, pref=pref: lax.dot_general(
                    x, y, dn, preferred_element_type=None if pref is None else dt(pref)),
                [x, y], tol)
    add("dot_general", "einsum_f32", lambda x, y: jnp.einsum("bij,bjk->bik", x, y),
        [rand(rng_for("e1"), (2, 3, 4), "float32"), rand(rng_for("e2"), (2, 4, 2), "float32")],
        LOOSE["float32"])
    for d, pref in [("float32", None), ("float64", None), ("bfloat16", None), ("float16", None),
                    ("int32", None), ("int8", "int32"), ("complex64", None), ("bfloat16", "float32")]:
        rng = rng_for("conv" + d)
        tol = {"bfloat16": (2e-2, 2e-2), "float16": (1e-2, 1e-2)}.get(d, LOOSE.get(d))
        for name, lhs, rhs, kw in [
            ("nchw", (2, 3, 6, 6), (4, 3, 3, 3), dict(window_strides=(1, 1), padding="VALID")),
            ("strided_same", (1, 2, 7, 5), (3, 2, 3, 2), dict(window_strides=(2, 1), padding="SAME")),
            ("pad_dilate", (1, 2, 5, 5), (2, 2, 2, 2), dict(window_strides=(1, 1), padding=((1, 2), (0, 1)),
                                                           lhs_dilation=(2, 1), rhs_dilation=(1, 2))),
            ("grouped", (1, 4, 5, 5), (6, 2, 3, 3), dict(window_strides=(1, 1), padding="SAME",
                                                        feature_group_count=2)),
            ("batch_group", (2, 2, 4, 4), (4, 2, 2, 2), dict(window_strides=(1, 1), padding="VALID",
                                                            batch_group_count=2)),
            ("conv1d", (2, 3, 9), (2, 3, 4), dict(window_strides=(2,), padding="SAME")),
            ("nhwc", (1, 5, 5, 3), (3, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME",
                                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))),
        ]:
            x = rand(rng, lhs, d, -1, 1)
            w = rand(rng, rhs, d, -1, 1)
            add("conv", f"conv_{name}_{d}_{pref}",
                lambda x, w, kw=kw, pref=pref: lax.conv_general_dilated(
                    x, w, preferred_element_type=None if pref is None else dt(pref), **kw), [x, w], tol)


def control_flow():
    for d in ["float32", "int32", "float64"]:
        rng = rng_for("cf" + d)
        x = rand(rng, (3,), d)
        add("control_flow", f"fori_{d}", lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2 + i, x), [x])
        add("control_flow", f"while_{d}", lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] + c[1]), (0, x))[1], [x])
        add("control_flow", f"cond_{d}", lambda p, x: lax.cond(p > 0, lambda v: v + 1, lambda v: v * 3, x),
            [np.int32(1), x])
        add("control_flow", f"switch_{d}", lambda i, x: lax.switch(i, [lambda v: v, lambda v: -v, lambda v: v * v], x),
            [np.int32(2), x])
        add("control_flow", f"scan_{d}", lambda x: lax.scan(lambda c, v: (c + v, c * v), jnp.zeros((), x.dtype), x), [x])
        add("control_flow", f"map_{d}", lambda x: lax.map(lambda v: v * 2 + 1, x), [x])
        add("control_flow", f"assoc_scan_{d}", lambda x: lax.associative_scan(jnp.add, x), [x])
    add("control_flow", "optimization_barrier", lambda x: lax.optimization_barrier(x) + 1,
        [np.arange(3, dtype=np.float32)])


def fft():
    for d in ["complex64", "complex128"]:
        rng = rng_for("fft" + d)
        tol = (1e-4, 1e-4) if d == "complex64" else (1e-9, 1e-9)
        for name, f, shape in [
            ("fft", jnp.fft.fft, (8,)), ("ifft", jnp.fft.ifft, (2, 8)), ("fft_odd", jnp.fft.fft, (3, 5)),
            ("fft2", jnp.fft.fft2, (2, 4, 4)), ("fftn", jnp.fft.fftn, (2, 3, 4)),
            ("ifftn", jnp.fft.ifftn, (4, 6)), ("fftshift", lambda x: jnp.fft.fftshift(jnp.fft.fft(x)), (6,)),
        ]:
            add("fft", f"{name}_{d}", f, [rand(rng, shape, d, -1, 1)], tol)
    for d in ["float32", "float64"]:
        rng = rng_for("rfft" + d)
        tol = (1e-4, 1e-4) if d == "float32" else (1e-9, 1e-9)
        for name, f, shape in [
            ("rfft", jnp.fft.rfft, (8,)), ("rfft_odd", jnp.fft.rfft, (2, 7)), ("rfft2", jnp.fft.rfft2, (3, 4, 6)),
            ("rfftn", jnp.fft.rfftn, (4, 4)),
            ("irfft", lambda x: jnp.fft.irfft(jnp.fft.rfft(x)), (2, 8)),
            ("irfftn", lambda x: jnp.fft.irfftn(jnp.fft.rfftn(x)), (4, 6)),
            ("hfft", lambda x: jnp.fft.hfft(x.astype(jnp.complex64 if d == "float32" else jnp.complex128)), (5,)),
        ]:
            add("fft", f"{name}_{d}", f, [rand(rng, shape, d, -1, 1)], tol)


def nn_and_special():
    for d in ["float32", "float64", "bfloat16", "float16"]:
        rng = rng_for("nn" + d)
        x = rand(rng, (3, 5), d)
        tol = (2e-2, 2e-2) if d in ("bfloat16", "float16") else LOOSE[d]
        for name, f in [
            ("relu", jax.nn.relu), ("relu6", jax.nn.relu6), ("sigmoid", jax.nn.sigmoid),
            ("softplus", jax.nn.softplus), ("silu", jax.nn.silu), ("gelu_tanh", lambda x: jax.nn.gelu(x, True)),
            ("gelu_exact", lambda x: jax.nn.gelu(x, False)), ("elu", jax.nn.elu), ("celu", jax.nn.celu),
            ("selu", jax.nn.selu), ("leaky_relu", jax.nn.leaky_relu), ("hard_tanh", jax.nn.hard_tanh),
            ("hard_sigmoid", jax.nn.hard_sigmoid), ("hard_swish", jax.nn.hard_swish),
            ("log_sigmoid", jax.nn.log_sigmoid), ("softmax", lambda x: jax.nn.softmax(x, axis=-1)),
            ("log_softmax", lambda x: jax.nn.log_softmax(x, axis=0)), ("glu", lambda x: jax.nn.glu(x[:, :4])),
            ("standardize", lambda x: jax.nn.standardize(x, axis=-1)), ("logsumexp", lambda x: jax.nn.logsumexp(x, axis=1)),
            ("mish", jax.nn.mish), ("squareplus", jax.nn.squareplus), ("sparse_plus", jax.nn.sparse_plus),
            ("soft_sign", jax.nn.soft_sign), ("tanh", jax.nn.tanh),
            ("one_hot", lambda x: jax.nn.one_hot(jnp.argmax(x, axis=1), 5, dtype=x.dtype)),
        ]:
            add("nn", f"{name}_{d}", f, [x], tol)
    for d in ["float32", "float64"]:
        rng = rng_for("sp" + d)
        x = rand(rng, (2, 4), d, 0.1, 3.0)
        y = rand(rng, (2, 4), d, 0.1, 3.0)
        u = rand(rng, (2, 4), d, 0.05, 0.95)
        tol = (1e-3, 1e-5) if d == "float32" else (1e-8, 1e-10)
        S = jax.scipy.special
        for name, f, args in [
            ("erf", S.erf, [x]), ("erfc", S.erfc, [x]), ("erfinv", S.erfinv, [u]),
            ("gammaln", S.gammaln, [x]), ("digamma", S.digamma, [x]), ("xlogy", S.xlogy, [x, y]),
            ("xlog1py", S.xlog1py, [x, y]), ("logit", S.logit, [u]), ("expit", S.expit, [x]),
            ("ndtr", S.ndtr, [x]), ("ndtri", S.ndtri, [u]), ("log_ndtr", S.log_ndtr, [x]),
            ("i0e", S.i0e, [x]), ("i1e", S.i1e, [x]), ("i0", S.i0, [x]), ("i1", S.i1, [x]),
            ("gammainc", S.gammainc, [x, y]), ("gammaincc", S.gammaincc, [x, y]),
            ("betainc", lambda a, b, z: S.betainc(a, b, z), [x, y, u]), ("entr", S.entr, [u]),
            ("kl_div", S.kl_div, [x, y]), ("rel_entr", S.rel_entr, [x, y]),
            ("logsumexp", lambda x: S.logsumexp(x, axis=0), [x]), ("zeta", S.zeta, [x + 1.5, y]),
            ("polygamma", lambda x: S.polygamma(1, x), [x]), ("gamma", S.gamma, [x]),
            ("beta", S.beta, [x, y]), ("betaln", S.betaln, [x, y]), ("factorial", S.factorial, [x]),
            ("exp1", S.exp1, [x]), ("expi", S.expi, [x]), ("expn", lambda x: S.expn(2, x), [x]),
            ("spence", S.spence, [x]), ("bernoulli", lambda x: x + S.bernoulli(4)[2], [x]),
            ("sph_harm_y_free", lambda x: S.lpmn_values(2, 2, u[0] * 2 - 1, False)[0, 1] * 0 + x, [x]),
        ]:
            add("scipy_special", f"{name}_{d}", f, args, tol)
    for d in ["float32", "float64"]:
        rng = rng_for("lax_special" + d)
        x = rand(rng, (2, 4), d, 0.2, 3.0)
        y = rand(rng, (2, 4), d, 0.2, 3.0)
        u = rand(rng, (2, 4), d, 0.05, 0.95)
        tol = (1e-3, 1e-5) if d == "float32" else (1e-8, 1e-10)
        for name, f, args in [
            ("igamma", lax.igamma, [x, y]), ("igammac", lax.igammac, [x, y]),
            ("random_gamma_grad", lax.random_gamma_grad, [x, y]), ("polygamma", lax.polygamma, [np.full_like(x, 2), x]),
            ("zeta", lax.zeta, [x + 1.2, y]), ("betainc", jax.scipy.special.betainc, [x, y, u]),
            ("igamma_grad_a", lax.igamma_grad_a, [x, y]),
        ]:
            add("lax_special", f"{name}_{d}", f, args, tol)


def random():
    key = np.array([0, 42], np.uint32)
    R = jax.random
    for d in ["float32", "float64", "bfloat16", "float16"]:
        tol = (2e-2, 2e-2) if d in ("bfloat16", "float16") else LOOSE[d]
        for name, f in [
            ("uniform", lambda k, d=d: R.uniform(k, (3, 4), dt(d))),
            ("normal", lambda k, d=d: R.normal(k, (5,), dt(d))),
            ("truncated_normal", lambda k, d=d: R.truncated_normal(k, -1.0, 2.0, (4,), dt(d))),
            ("exponential", lambda k, d=d: R.exponential(k, (4,), dt(d))),
            ("laplace", lambda k, d=d: R.laplace(k, (4,), dt(d))),
            ("logistic", lambda k, d=d: R.logistic(k, (4,), dt(d))),
            ("cauchy", lambda k, d=d: R.cauchy(k, (4,), dt(d))),
            ("gumbel", lambda k, d=d: R.gumbel(k, (4,), dt(d))),
            ("rademacher", lambda k, d=d: R.rademacher(k, (6,), dt(d))),
            ("gamma", lambda k, d=d: R.gamma(k, 2.5, (3,), dt(d))),
            ("beta", lambda k, d=d: R.beta(k, 2.0, 3.0, (3,), dt(d))),
            ("dirichlet", lambda k, d=d: R.dirichlet(k, jnp.ones(3, dt(d)), (2,), dt(d))),
            ("t", lambda k, d=d: R.t(k, 3.0, (3,), dt(d))),
            ("chisquare", lambda k, d=d: R.chisquare(k, 3.0, (3,), dt(d))),
            ("weibull_min", lambda k, d=d: R.weibull_min(k, 1.0, 2.0, (3,), dt(d))),
            ("pareto", lambda k, d=d: R.pareto(k, 3.0, (3,), dt(d))),
            ("ball", lambda k, d=d: R.ball(k, 3, shape=(2,), dtype=dt(d))),
            ("orthogonal", lambda k, d=d: R.orthogonal(k, 3, dtype=dt(d)) if d in ("float32", "float64") else R.uniform(k, (1,), dt(d))),
            ("multivariate_normal", lambda k, d=d: R.multivariate_normal(k, jnp.zeros(2, dt(d)), jnp.eye(2, dtype=dt(d)), (3,), dtype=dt(d)) if d in ("float32", "float64") else R.uniform(k, (1,), dt(d))),
        ]:
            add("random", f"{name}_{d}", f, [key], tol)
    for name, f in [
        ("bits32", lambda k: R.bits(k, (4,), jnp.uint32)), ("bits64", lambda k: R.bits(k, (3,), jnp.uint64)),
        ("bits8", lambda k: R.bits(k, (5,), jnp.uint8)), ("bits16", lambda k: R.bits(k, (5,), jnp.uint16)),
        ("randint", lambda k: R.randint(k, (6,), -5, 17)), ("randint64", lambda k: R.randint(k, (4,), 0, 2**40, jnp.int64)),
        ("bernoulli", lambda k: R.bernoulli(k, 0.3, (8,))), ("categorical", lambda k: R.categorical(k, jnp.log(jnp.array([0.2, 0.5, 0.3])), shape=(6,))),
        ("permutation", lambda k: R.permutation(k, 7)), ("choice", lambda k: R.choice(k, 10, (4,), replace=False)),
        ("shuffle_array", lambda k: R.permutation(k, jnp.arange(6.0))), ("split", lambda k: R.split(k, 3)),
        ("fold_in", lambda k: R.fold_in(k, 7)), ("poisson", lambda k: R.poisson(k, 3.0, (5,))),
        ("binomial", lambda k: R.binomial(k, 10, 0.4, (3,))), ("geometric", lambda k: R.geometric(k, 0.3, (4,))),
        ("key_data", lambda k: R.key_data(R.wrap_key_data(k))),
        ("rbg", lambda k: lax.rng_bit_generator(jnp.concatenate([k, k]), (3, 2), dtype=jnp.uint32)[1]),
        ("rbg_philox", lambda k: lax.rng_bit_generator(jnp.concatenate([k, k]), (4,), dtype=jnp.uint64, algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1]),
        ("rng_uniform", lambda k: lax.rng_uniform(jnp.float32(0), jnp.float32(1), (2,)) * 0 + k[0]),
    ]:
        add("random", name, f, [key], LOOSE["float32"])


# --------------------------------------------------------------------------------------
# linear algebra: what is unique about each result, computed inside the program
# --------------------------------------------------------------------------------------


def hermitian(x):
    return 0.5 * (x + jnp.conj(jnp.swapaxes(x, -1, -2)))


def H(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def mm(a, b):
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def linalg():
    L = jnp.linalg
    for d in ["float32", "float64", "complex64", "complex128"]:
        tol = (2e-3, 2e-4) if d in ("float32", "complex64") else (1e-9, 1e-10)
        for shape in [(4, 4), (2, 3, 3), (0, 3, 3), (1, 1)]:
            sname = "x".join(map(str, shape))
            rng = rng_for(f"la{d}{sname}")
            n = shape[-1]
            a = rand(rng, shape, d, -1, 1)
            well = (a + (n + 1) * np.eye(n, dtype=a.dtype)).astype(a.dtype)
            spd = np.asarray(mm(np.asarray(a), H(np.asarray(a)))) + n * np.eye(n, dtype=a.dtype)
            spd = spd.astype(a.dtype)
            b = rand(rng, shape[:-1] + (2,), d, -1, 1)
            for name, f, args in [
                ("solve", lambda a, b: L.solve(a, b), [well, b]),
                ("inv", L.inv, [well]),
                ("det", L.det, [well]),
                ("slogdet", lambda a: L.slogdet(a), [well]),
                ("lu", lambda a: jax.scipy.linalg.lu(a), [a]),
                ("lu_factor", lambda a: jax.scipy.linalg.lu_factor(a), [a]),
                ("cholesky", L.cholesky, [spd]),
                ("eigh", lambda a: (lambda w, v: (w, mm(v * w[..., None, :], H(v)), mm(H(v), v)))(*L.eigh(a)), [a]),
                ("eigvalsh", lambda a: L.eigvalsh(a), [a]),
                ("eigvalsh_upper", lambda a: L.eigvalsh(a, UPLO="U"), [a]),
                ("eig", lambda a: (lambda w, v: (mm(a.astype(v.dtype), v) - v * w[..., None, :],
                                                  jnp.linalg.norm(v, axis=-2)))(*L.eig(a)), [a]),
                ("eigvals", lambda a: (lambda w: jnp.sort_complex(w) if w.shape[-1] else w)(L.eigvals(a)), [a]),
                ("matrix_power3", lambda a: L.matrix_power(a, 3), [a]),
                ("matrix_power_neg2", lambda a: L.matrix_power(a, -2), [well]),
                ("pinv", L.pinv, [well]),
                ("matrix_rank", lambda a: L.matrix_rank(a), [well]),
                ("cond", lambda a: L.cond(a), [well]),
                ("norm2", lambda a: L.norm(a, ord=2, axis=(-2, -1)), [a]),
                ("tensorinv_free", lambda a: L.inv(a) @ a, [well]),
                ("cho_solve", lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a), b), [spd, b]),
                ("solve_triangular", lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True), [well, b]),
                ("solve_triangular_t", lambda a, b: jax.scipy.linalg.solve_triangular(a, b, trans="C", unit_diagonal=True), [well, b]),
                ("expm", lambda a: jax.scipy.linalg.expm(a * 0.3), [a]),
                ("tridiagonal_solve", lambda a, b: lax.linalg.tridiagonal_solve(
                    a[..., 0] * jnp.arange(n).clip(0, 1), a[..., 1] + 4, a[..., 2] * (jnp.arange(n) < n - 1), b), [a, b]),
            ]:
                if name in ("tridiagonal_solve",) and n < 3:
                    continue
                add("linalg", f"{name}_{d}_{sname}", f, args, tol)
        for shape in [(4, 3), (3, 4), (2, 5, 3), (2, 0, 3)]:
            sname = "x".join(map(str, shape))
            rng = rng_for(f"lar{d}{sname}")
            a = rand(rng, shape, d, -1, 1)
            b = rand(rng, shape[:-1] + (2,), d, -1, 1)
            for name, f, args in [
                ("qr_reduced", lambda a: (lambda q, r: (mm(q, r), mm(H(q), q), jnp.abs(r)))(*L.qr(a)), [a]),
                ("qr_complete", lambda a: (lambda q, r: (mm(q, r), mm(H(q), q), jnp.abs(r)))(*L.qr(a, mode="complete")), [a]),
                ("qr_r", lambda a: jnp.abs(L.qr(a, mode="r")), [a]),
                ("svd_full", lambda a: (lambda u, s, vh: (s, mm(u[..., :, :s.shape[-1]] * s[..., None, :], vh[..., :s.shape[-1], :]),
                                                          mm(H(u), u), mm(vh, H(vh))))(*L.svd(a)), [a]),
                ("svd_reduced", lambda a: (lambda u, s, vh: (s, mm(u * s[..., None, :], vh), mm(H(u), u)))(*L.svd(a, full_matrices=False)), [a]),
                ("svdvals", lambda a: L.svd(a, compute_uv=False), [a]),
                ("pinv_rect", L.pinv, [a]),
                ("lu_rect", lambda a: jax.scipy.linalg.lu(a), [a]),
                ("householder_product", lambda a: (lambda r, t: jnp.abs(lax.linalg.householder_product(r, t)))(*geqrf(a)) if a.shape[-2] >= a.shape[-1] else a, [a]),
                ("geqrf_r", lambda a: jnp.abs(jnp.triu(geqrf(a)[0])), [a]),
            ]:
                add("linalg", f"{name}_{d}_{sname}", f, args, tol)
            if len(shape) == 2 and shape[0] >= shape[1]:
                add("linalg", f"lstsq_{d}_{sname}", lambda a, b: L.lstsq(a, b)[0], [a, b], tol)
        rng = rng_for(f"hess{d}")
        a = rand(rng, (4, 4), d, -1, 1)
        for name, f in [
            ("hessenberg", lambda a: (lambda h, q: (mm(mm(q, h), H(q)), mm(H(q), q)))(*jax.scipy.linalg.hessenberg(a, calc_q=True))),
            ("schur", lambda a: (lambda t, z: (mm(mm(z, t), H(z)), mm(H(z), z)))(*jax.scipy.linalg.schur(a))),
            ("tridiagonal", lambda a: jnp.abs(lax.linalg.tridiagonal(hermitian(a))[1])),
            ("eigh_tridiagonal", lambda a: jax.scipy.linalg.eigh_tridiagonal(jnp.real(a[0]), jnp.real(a[1, :3]), eigvals_only=True)),
            ("sqrtm_free", lambda a: jax.scipy.linalg.expm(a * 0.1)),
            ("polar", lambda a: (lambda u, p: mm(u, p))(*jax.scipy.linalg.polar(a + 4 * jnp.eye(4, dtype=a.dtype)))),
        ]:
            add("linalg", f"{name}_{d}", f, [a], tol)
    # Half precision: XLA:CPU has no f16/bf16 solver; it expands the solve and computes in f32.
    for d in ["float16", "bfloat16"]:
        for shape in [(4, 4), (2, 3, 3), (0, 3, 3)]:
            sname = "x".join(map(str, shape))
            rng = rng_for(f"la{d}{sname}")
            n = shape[-1]
            a = rand(rng, shape, d, -1, 1)
            well = (a.astype(np.float32) + (n + 1) * np.eye(n, dtype=np.float32)).astype(a.dtype)
            b = rand(rng, shape[:-1] + (2,), d, -1, 1)
            add("linalg", f"solve_triangular_{d}_{sname}",
                lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True), [well, b])
            add("linalg", f"solve_triangular_t_{d}_{sname}",
                lambda a, b: jax.scipy.linalg.solve_triangular(a, b, trans="T", unit_diagonal=True), [well, b])


def keep(family, name, hlo, mlir):
    """Bounds the checked-in size: rank-0 and zero-size variants of the unary ops for one
    type per kind, and no case whose texts exceed 60 kB (jax's rejection samplers in
    16-bit types, which repeat their f32 program)."""
    if family == "unary" and not name.endswith("_2x3"):
        if not any(f"_{d}_" in name for d in ("float32", "complex64", "int32", "uint8", "bool")):
            return False
    return len(hlo) + len(mlir) <= 60000


def generate(only=None):
    elementwise()
    data_movement()
    reductions()
    sorting()
    dots_and_convs()
    control_flow()
    fft()
    nn_and_special()
    random()
    linalg()

    old = {}
    if only:
        # Regenerate only the matching cases; keep the others as checked in.
        with open(os.path.join(HERE, "cases.json")) as f:
            entries = json.load(f)["cases"]
        with np.load(os.path.join(HERE, "arrays.npz")) as z:
            for i, e in enumerate(entries):
                ins = [z[f"{i}_in{j}"] for j in range(e["inputs"])]
                outs = [z[f"{i}_out{j}"] for j in range(e["outputs"])]
                old[e["name"]] = (e, ins, outs)
    entries = []
    arrays = {}
    skipped = []
    seen = set()
    for family, name, fn, args, tol in CASES:
        if name in seen:
            name = f"{family}_{name}"
        assert name not in seen, name
        seen.add(name)
        if only and not re.search(only, name):
            if name in old and keep(family, name, old[name][0]["hlo"], old[name][0]["mlir"]):
                e, ins, outs = old[name]
                i = len(entries)
                for j, a in enumerate(ins):
                    arrays[f"{i}_in{j}"] = a
                for j, o in enumerate(outs):
                    arrays[f"{i}_out{j}"] = o
                entries.append(e)
            continue
        try:
            jitted = jax.jit(fn)
            lowered = jitted.lower(*args)
            hlo = lowered.as_text(dialect="hlo")
            mlir = lowered.as_text()
            outs = jax.tree_util.tree_leaves(jitted(*args))
        except Exception as e:  # a dtype or parameter jax does not take
            skipped.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            continue
        hlo = re.sub(r", metadata=\{[^}]*\}", "", hlo)
        if not keep(family, name, hlo, mlir):
            continue
        i = len(entries)
        for j, a in enumerate(args):
            a = np.asarray(a)
            arrays[f"{i}_in{j}"] = a.astype(np.float32) if a.dtype == BF16 else a
        for j, o in enumerate(outs):
            o = np.asarray(o)
            arrays[f"{i}_out{j}"] = o.astype(np.float32) if o.dtype == BF16 else o
        entry = {"name": name, "family": family, "inputs": len(args), "outputs": len(outs),
                 "hlo": hlo, "mlir": mlir}
        if tol is not None:
            entry["rtol"], entry["atol"] = tol
        entries.append(entry)
        if len(entries) % 100 == 0:
            print(f"{len(entries)} cases", file=sys.stderr)
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump({"jax": jax.__version__, "cases": entries}, f, indent=0)
        f.write("\n")
    write_npz(os.path.join(HERE, "arrays.npz"), arrays)
    print(f"{len(entries)} cases, {len(skipped)} skipped (jax refused them):", file=sys.stderr)
    for s in skipped:
        print("  " + s, file=sys.stderr)


def write_npz(path, arrays):
    """numpy.savez's format with fixed timestamps (deterministic bytes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for k in sorted(arrays, key=lambda s: (int(s.split("_")[0]), s)):
            buf = io.BytesIO()
            # np.require keeps rank 0 (np.ascontiguousarray would make it shape (1,)).
            np.lib.format.write_array(buf, np.require(arrays[k], requirements="C"), allow_pickle=False)
            info = zipfile.ZipInfo(k + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, buf.getvalue())


if __name__ == "__main__":
    # `generate.py REGEX` regenerates only the cases whose names match.
    generate(sys.argv[1] if len(sys.argv) > 1 else None)
