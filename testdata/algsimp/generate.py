#!/usr/bin/env python3
"""XLA:CPU's algebraic-simplifier rewrites that change what a program computes, one case each.

Run from the repository root with the pinned jax of testdata/requirements.txt:

    python3 testdata/algsimp/generate.py

For every rewrite the case holds jit's HLO text (before XLA's optimizations), inputs chosen
so that the rewrite is visible, and two outputs, both from jax 0.10.2 on CPU:

    xla    the jitted program: XLA:CPU's optimizer applied the rewrite
    eager  the same function under `jax.disable_jit()`: every primitive runs as its own
           XLA:CPU computation, so no rewrite spans two ops: what HloEvaluator computes

Inputs avoid values where exp, log and rsqrt themselves round differently in xlac and
XLA:CPU (an ulp), which is not what these cases test; so `div(a, sqrt(b)) => mul(a,
rsqrt(b))`, which xlac applies too, has no case: it shows only as such an ulp.
The generator checks that the two differ (else the inputs do not show the rewrite).
`tests/algsimp_observable.rs` requires xlac's compiled path to give `xla` and its
interpreter the output the README's table names for the rule. Writes cases.json and
arrays.npz (`{i}_in{j}`, `{i}_xla{j}`, `{i}_eager{j}`) beside this file, deterministically.
"""

import io
import json
import os
import zipfile

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_platforms", "cpu")
HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32


def a32(*v):
    return np.array(v, f32)


# (rule as xlac's algsimp names it, jax function, inputs[, the function to run eagerly])
CASES = [
    ("mul(x, convert(p)) => select(p, x, 0)",
     lambda a, x: a * (x > 2).astype(jnp.float32),
     [a32(np.nan, np.inf, -np.inf, 1.5, np.nan), a32(1, 1, 3, 1, 3)]),
    ("mul(convert(p), x) => select(p, x, 0)",
     lambda a, x: (x > 2).astype(jnp.float32) * a,
     [a32(np.nan, np.inf, 1.5), a32(1, 1, 3)]),
    ("mul(exp(a), exp(b)) => exp(add(a, b))",
     lambda a, b: jnp.exp(a) * jnp.exp(b),
     [a32(100, 89, 0.5), a32(-100, -89, 0.25)]),
    ("log(exp(x)) => x",
     lambda a: jnp.log(jnp.exp(a)),
     [a32(100, -200, 0)]),
    ("log(pow(a, b)) => select(b == 0, 0, mul(b, log(abs(a))))",
     lambda a, b: jnp.log(lax.pow(a, b)),
     [a32(1e20, -2, 3, np.nan), a32(3, 3, 2, 0)]),
    ("mul(mul(x, c1), c2) => mul(x, mul(c1, c2))",
     lambda a: (a * f32(1e30)) * f32(1e-30),
     [a32(1e10, 2, -3e9)]),
    # Eagerly, a Python scalar divisor would be a constant inside the one-op computation
    # (and XLA would rewrite it there too): the eager side divides by an array of them.
    ("div(x, c) => mul(x, 1 / c)",
     lambda a: a / f32(10.0),
     [a32(3, 7, 9, 13, 33, 1)],
     lambda a: a / jnp.full(a.shape, 10.0, jnp.float32)),
    ("add(x, 0) => x",
     lambda a: a + f32(0.0),
     [a32(-0.0, 1.0)]),
]


def run(fn, args, eager):
    if eager:
        with jax.disable_jit():
            # jax arrays, so each operation is an XLA:CPU computation (not numpy's).
            out = fn(*[jnp.asarray(a) for a in args])
    else:
        out = jax.jit(fn)(*args)
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


def main():
    entries, arrays = [], {}
    for i, (rule, fn, args, *eager_fn) in enumerate(CASES):
        hlo = jax.jit(fn).lower(*args).as_text(dialect="hlo")
        xla, eager = run(fn, args, False), run((eager_fn or [fn])[0], args, True)
        differs = any(x.tobytes() != e.tobytes() for x, e in zip(xla, eager))
        assert differs, f"{rule}: the inputs do not show the rewrite"
        entries.append({"rule": rule, "hlo": hlo, "inputs": len(args), "outputs": len(xla)})
        for j, a in enumerate(args):
            arrays[f"{i}_in{j}"] = a
        for j, (x, e) in enumerate(zip(xla, eager)):
            arrays[f"{i}_xla{j}"] = x
            arrays[f"{i}_eager{j}"] = e
        print(f"{rule}: xla {xla[0]} eager {eager[0]}")
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump({"jax": jax.__version__, "cases": entries}, f, indent=1)
        f.write("\n")
    with zipfile.ZipFile(os.path.join(HERE, "arrays.npz"), "w", zipfile.ZIP_STORED) as z:
        for k in sorted(arrays, key=lambda s: (int(s.split("_")[0]), s)):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.require(arrays[k], requirements="C"),
                                      allow_pickle=False)
            z.writestr(zipfile.ZipInfo(k + ".npy", date_time=(1980, 1, 1, 0, 0, 0)),
                       buf.getvalue())


if __name__ == "__main__":
    main()
