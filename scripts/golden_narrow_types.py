#!/usr/bin/env python3
"""Golden data for the narrow element types (f8, f4, s4/u4/s2/u2): programs, inputs and
XLA:CPU's outputs, written to testdata/narrow_types/<case>/ so `cargo test --test
narrow_types` needs no Python.

Run from the repository root with the pinned jax==0.10.2 / jaxlib==0.10.2:

    python3 scripts/golden_narrow_types.py

Each case folder holds model.hlo (jit's HLO text), inputs.npz and expected.npz (the result's
leaves, arr_0...). Narrow values cross the boundary as their bit patterns: inputs are u8
codes bitcast inside the program, narrow results are bitcast back to u8 (f4 and the sub-byte
integers through u4/u8 converts), so every file holds plain numpy types and every output is
compared bit for bit.
"""

import io
import os
import zipfile

import numpy as np

import jax
import jax.numpy as jnp
import ml_dtypes
from jax import lax

jax.config.update("jax_platforms", "cpu")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "narrow_types")

F8 = {
    "f8e5m2": jnp.float8_e5m2,
    "f8e4m3": jnp.float8_e4m3,
    "f8e4m3fn": jnp.float8_e4m3fn,
    "f8e4m3b11fnuz": jnp.float8_e4m3b11fnuz,
    "f8e5m2fnuz": jnp.float8_e5m2fnuz,
    "f8e4m3fnuz": jnp.float8_e4m3fnuz,
    "f8e3m4": jnp.float8_e3m4,
    "f8e8m0fnu": jnp.float8_e8m0fnu,
}
F4 = {"f4e2m1fn": jnp.float4_e2m1fn}
FLOATS = {**F8, **F4}
INTS = {"s4": jnp.int4, "u4": jnp.uint4, "s2": jnp.int2, "u2": jnp.uint2}


def from_codes(x, t):
    """u8 codes -> narrow float t (f4 through u4, as bitcast needs equal widths)."""
    if t in F4.values():
        return lax.bitcast_convert_type(x.astype(jnp.uint4), t)
    return lax.bitcast_convert_type(x, t)


def to_codes(v):
    """Narrow float -> its u8 code."""
    if v.dtype == jnp.float4_e2m1fn:
        return lax.bitcast_convert_type(v, jnp.uint4).astype(jnp.uint8)
    return lax.bitcast_convert_type(v, jnp.uint8)


def f32_sweep(t):
    """f32 values that probe every rounding rule of format t: every code's value, the
    midpoints between neighbours (ties) and values just off them, beyond max, specials,
    f32 subnormals, and random values over the format's range."""
    info = ml_dtypes.finfo(t)
    codes = np.arange(16 if t in F4.values() else 256, dtype=np.uint8)
    if t in F4.values():
        vals = codes.astype(ml_dtypes.uint4).view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    else:
        vals = codes.view(t).astype(np.float64)
    finite = np.unique(vals[np.isfinite(vals)])
    mids = (finite[:-1] + finite[1:]) / 2
    out = [finite, mids, np.nextafter(mids.astype(np.float32), np.float32(np.inf)),
           np.nextafter(mids.astype(np.float32), np.float32(-np.inf))]
    mx, tiny = float(info.max), float(info.smallest_subnormal)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, mx, -mx, mx * 1.0625, mx * 1.03,
                mx * 1.1, mx * 2, 1e30, -1e30, 3.0e38, tiny / 2, tiny / 2 * 1.01, tiny / 4,
                -tiny / 2, 1e-40, -1e-40, 1e-45, 1.0, -1.0, 0.1, 1 / 3]
    out.append(np.array(specials))
    rng = np.random.default_rng(0)
    out.append(rng.uniform(-mx, mx, 200))
    out.append(np.exp(rng.uniform(np.log(tiny) - 2, np.log(mx) + 1, 200)) * rng.choice([-1, 1], 200))
    x = np.concatenate(out).astype(np.float32)
    x[np.isnan(x)] = np.nan  # keep signs of the specials below
    x = np.concatenate([x, np.array([np.float32("nan"), -np.float32("nan")], np.float32)])
    return x


def case(name, fn, *args):
    folder = os.path.join(ROOT, name)
    os.makedirs(folder, exist_ok=True)
    args = [np.asarray(a) for a in args]
    lowered = jax.jit(fn).lower(*args)
    with open(os.path.join(folder, "model.hlo"), "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    out = jax.jit(fn)(*args)
    leaves = jax.tree_util.tree_leaves(out)
    save(os.path.join(folder, "inputs.npz"), args)
    save(os.path.join(folder, "expected.npz"), [np.asarray(l) for l in leaves])


def save(path, arrays):
    """numpy.savez with fixed timestamps, so reruns write identical files."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for i, a in enumerate(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(a), allow_pickle=False)
            info = zipfile.ZipInfo(f"arr_{i}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, buf.getvalue())


def main():
    rng = np.random.default_rng(45)
    f16_all = np.arange(65536, dtype=np.uint16).view(np.float16)
    ints = np.concatenate([np.arange(-600, 601), [2**16, 65519, 65520, -65520, 2**20, 2**31 - 1, -2**31]]).astype(np.int32)
    for name, t in FLOATS.items():
        n = 16 if t in F4.values() else 256
        codes = np.arange(n, dtype=np.uint8)

        def decode(x, t=t):
            v = from_codes(x, t)
            outs = [v.astype(jnp.float32), v.astype(jnp.float16), v.astype(jnp.bfloat16).astype(jnp.float32),
                    v.astype(jnp.int32), v.astype(jnp.uint8), v.astype(jnp.int4).astype(jnp.int32),
                    (v != 0)]
            outs += [to_codes(v.astype(u)) for u in FLOATS.values() if u != t]
            return tuple(outs)

        case(f"decode_{name}", decode, codes)
        case(f"encode_f32_{name}", lambda x, t=t: to_codes(x.astype(t)), f32_sweep(t))
        case(f"encode_f16_{name}", lambda x, t=t: to_codes(x.astype(t)), f16_all)
        case(f"encode_bf16_{name}", lambda x, t=t: to_codes(x.astype(jnp.bfloat16).astype(t)), f32_sweep(t))
        case(f"encode_s32_{name}", lambda x, t=t: to_codes(x.astype(t)), ints)
        case(f"encode_u8_{name}", lambda x, t=t: to_codes(x.astype(t)), np.arange(256, dtype=np.uint8))

        a = np.concatenate([codes, rng.integers(0, n, 256 - n if n < 256 else 0)]).astype(np.uint8)
        b = rng.integers(0, n, a.shape[0]).astype(np.uint8)

        def ops(x, y, t=t):
            u, v = from_codes(x, t), from_codes(y, t)
            m, k = u.reshape(16, 16), v.reshape(16, 16)
            return (to_codes(u + v), to_codes(u * v), to_codes(u - v), to_codes(u / v),
                    to_codes(jnp.maximum(u, v)), to_codes(jnp.minimum(u, v)), to_codes(-u),
                    to_codes(jnp.abs(u)), u < v, u == v, to_codes(jnp.where(u < v, u, v)),
                    to_codes(jnp.sum(m, axis=1)), to_codes(jnp.max(m, axis=0)),
                    to_codes(jnp.dot(m, k)), to_codes(m.T), to_codes(jnp.concatenate([u, v])),
                    (u + v).astype(jnp.float32), to_codes(jnp.sqrt(jnp.abs(u))))

        case(f"ops_{name}", ops, a, b)

    sweep_f = np.concatenate([np.arange(-20, 20, 0.25), [np.nan, np.inf, -np.inf, 1e10, -1e10, -0.0]]).astype(np.float32)
    for name, t in INTS.items():
        case(f"int_convert_{name}", lambda x, f, t=t: (
            x.astype(t).astype(jnp.int32), f.astype(t).astype(jnp.int32), x.astype(t).astype(jnp.float32),
            x.astype(t).astype(jnp.uint8), x.astype(t).astype(jnp.float8_e4m3fn).astype(jnp.float32),
            x.astype(t).astype(jnp.float4_e2m1fn).astype(jnp.float32)), ints, sweep_f)
        lo, hi = int(jnp.iinfo(t).min), int(jnp.iinfo(t).max)
        a = rng.integers(lo, hi + 1, 256).astype(np.int32)
        b = rng.integers(lo, hi + 1, 256).astype(np.int32)

        def iops(x, y, t=t):
            u, v = x.astype(t), y.astype(t)
            m, k = u.reshape(16, 16), v.reshape(16, 16)
            w = lambda r: r.astype(jnp.int32)
            return (w(u + v), w(u * v), w(u - v), w(-u), w(jnp.maximum(u, v)), u < v,
                    w(lax.div(u, v)), w(lax.rem(u, v)), w(u & v), w(u | v), w(u ^ v), w(~u),
                    w(lax.shift_left(u, v)), w(lax.shift_right_logical(u, v)),
                    w(lax.shift_right_arithmetic(u, v)), w(lax.population_count(u)), w(lax.clz(u)),
                    # XLA:CPU has no dot on s2/u2 ("unsupported operand type S2 in op dot").
                    *([w(lax.dot(m, k, preferred_element_type=t))] if t in (jnp.int4, jnp.uint4) else []),
                    w(jnp.sum(m, axis=1, dtype=t)), w(jnp.max(m, axis=0)),
                    w(jnp.where(u < v, u, v)))

        case(f"int_ops_{name}", iops, a, b)


if __name__ == "__main__":
    main()
