#!/usr/bin/env python3
"""Generates xlac's benchmark programs (issue #7) from real JAX code.

Run from the repository root with the pinned versions of testdata/requirements.txt:

    python3 testdata/generate_bench.py              # every benchmark program
    python3 testdata/generate_bench.py matmul mlp   # only the named ones

Every program is written to testdata/bench/<name>/ with the files generate.py writes for a
golden program (model.hlo, model.mlir, xla_opt.hlo, meta.json), but WITHOUT inputs.npz and
expected.npz: at these sizes they would add hundreds of megabytes to the repository.
scripts/bench_vs_xla.py makes the inputs at run time with the same `make(rng)` functions
and the same seed (numpy's default_rng seeded with the CRC-32 of the name), runs XLA:CPU
on them, and compares xlac's outputs with XLA's. testdata/bench/README.md is rewritten
from the programs.

This is not a golden test: nothing in `cargo test` reads testdata/bench/. The programs
are the ones issue #7 names, at exactly its sizes, all f32.

Deterministic like generate.py. The stack-frame tables in xla_opt.hlo carry line numbers
of this file and of generate.py, so rerun this script after editing either.
"""

import json
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate as G  # noqa: E402  (the golden generator: its writer and helpers)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

BENCH_DIR = os.path.join(HERE, "bench")
BENCH = {}
# bench_vs_xla.py does not need these: it makes the inputs itself.
NOT_WRITTEN = frozenset(("inputs.npz", "expected.npz"))


def bench(name, description, memory_bound):
    """Registers `make(rng) -> (fn, args)` like generate.program; `memory_bound` marks the
    programs whose speed is set by memory bandwidth (bench_vs_xla.py reports their GB/s)."""

    def register(make):
        assert name not in BENCH, name
        BENCH[name] = dict(name=name, description=description, x64=False, make=make,
                           meta={"memory_bound": memory_bound})
        return make

    return register


def dense(rng, fan_in, fan_out):
    """A weight matrix with the variance of a standard initializer (1 / fan_in)."""
    return G.normal(rng, (fan_in, fan_out), 1.0 / np.sqrt(fan_in))


# --------------------------------------------------------------------------------------
# Memory-bound programs
# --------------------------------------------------------------------------------------


@bench("elementwise", "elementwise chain with tanh and sigmoid, f32[4096,1024] x2 -> 1",
       memory_bound=True)
def _(rng):
    def f(x, y):
        h = x * 0.5 + y
        return jnp.tanh(h) * jax.nn.sigmoid(x - y) + h

    return f, [G.normal(rng, (4096, 1024)), G.normal(rng, (4096, 1024))]


@bench("softmax", "jax.nn.softmax over the last axis of f32[4096,1024]", memory_bound=True)
def _(rng):
    def f(x):
        return jax.nn.softmax(x, axis=-1)

    return f, [G.normal(rng, (4096, 1024), 2.0)]


@bench("layernorm", "layer normalization of f32[8192,512] with scale and offset",
       memory_bound=True)
def _(rng):
    def f(x, g, b):
        return G.layer_norm(x, g, b)

    return f, [G.normal(rng, (8192, 512), 3.0) + 1.0, 1.0 + G.normal(rng, (512,), 0.1),
               G.normal(rng, (512,), 0.1)]


@bench("column_sum", "sum over axis 0 of f32[4096,2048] (a column reduction)",
       memory_bound=True)
def _(rng):
    def f(x):
        return jnp.sum(x, axis=0)

    return f, [G.normal(rng, (4096, 2048))]


@bench("transpose_add", "x.T + y for f32[2048,2048]", memory_bound=True)
def _(rng):
    def f(x, y):
        return x.T + y

    return f, [G.normal(rng, (2048, 2048)), G.normal(rng, (2048, 2048))]


# --------------------------------------------------------------------------------------
# Compute-bound programs
# --------------------------------------------------------------------------------------


@bench("matmul", "f32[1024,1024] @ f32[1024,1024]", memory_bound=False)
def _(rng):
    def f(a, b):
        return a @ b

    return f, [G.normal(rng, (1024, 1024)), G.normal(rng, (1024, 1024))]


@bench("mlp", "MLP 512x1024 -> 2048 (relu) -> 256: two dots with bias", memory_bound=False)
def _(rng):
    def f(x, w1, b1, w2, b2):
        return jax.nn.relu(x @ w1 + b1) @ w2 + b2

    return f, [G.normal(rng, (512, 1024)), dense(rng, 1024, 2048), G.normal(rng, (2048,), 0.1),
               dense(rng, 2048, 256), G.normal(rng, (256,), 0.1)]


@bench("transformer_block",
       "pre-LN transformer block: batch 8, 128 tokens, width 256, 4 causal heads, "
       "tanh-gelu MLP 256 -> 1024 -> 256", memory_bound=False)
def _(rng):
    heads = 4

    def f(x, ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2):
        bsz, t, d = x.shape
        hd = d // heads
        h = G.layer_norm(x, ln1_g, ln1_b)

        def split(a):
            return a.reshape(bsz, t, heads, hd).transpose(0, 2, 1, 3)

        q, k, v = split(h @ wq), split(h @ wk), split(h @ wv)
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(hd).astype(np.float32)
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        s = jnp.where(causal, s, jnp.finfo(jnp.float32).min)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bhqk,bhkd->bhqd", p, v).transpose(0, 2, 1, 3).reshape(bsz, t, d)
        x = x + o @ wo
        h = G.layer_norm(x, ln2_g, ln2_b)
        h = jax.nn.gelu(h @ w1 + b1, approximate=True) @ w2 + b2
        return x + h

    d, ff = 256, 1024
    return f, [G.normal(rng, (8, 128, d)),
               1.0 + G.normal(rng, (d,), 0.1), G.normal(rng, (d,), 0.1),
               dense(rng, d, d), dense(rng, d, d), dense(rng, d, d), dense(rng, d, d),
               1.0 + G.normal(rng, (d,), 0.1), G.normal(rng, (d,), 0.1),
               dense(rng, d, ff), G.normal(rng, (ff,), 0.1),
               dense(rng, ff, d), G.normal(rng, (d,), 0.1)]


@bench("cnn", "CNN on f32[16,64,64,3] NHWC: 3x3 conv (16) + relu + 2x2 max pool, "
       "3x3 conv (32) + relu + 2x2 max pool, dense 8192 -> 10", memory_bound=False)
def _(rng):
    dn = ("NHWC", "HWIO", "NHWC")

    def f(x, k1, c1, k2, c2, w, b):
        h = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn) + c1
        h = G.max_pool(jax.nn.relu(h), (1, 2, 2, 1), (1, 2, 2, 1))
        h = lax.conv_general_dilated(h, k2, (1, 1), "SAME", dimension_numbers=dn) + c2
        h = G.max_pool(jax.nn.relu(h), (1, 2, 2, 1), (1, 2, 2, 1))
        return h.reshape(h.shape[0], -1) @ w + b

    return f, [G.normal(rng, (16, 64, 64, 3)), G.normal(rng, (3, 3, 3, 16), 1 / np.sqrt(27)),
               G.normal(rng, (16,), 0.1), G.normal(rng, (3, 3, 16, 32), 1 / np.sqrt(144)),
               G.normal(rng, (32,), 0.1), dense(rng, 16 * 16 * 32, 10),
               G.normal(rng, (10,), 0.1)]


@bench("train_step", "MLP 784-512-10 training step, batch 256: relu, softmax cross-entropy "
       "with one-hot f32 labels, jax.value_and_grad, SGD update", memory_bound=False)
def _(rng):
    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        logits = jax.nn.relu(x @ w1 + b1) @ w2 + b2
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=-1))

    def f(w1, b1, w2, b2, x, y):
        params = (w1, b1, w2, b2)
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        new = tuple(p - 0.1 * g for p, g in zip(params, grads))
        return new, loss

    labels = rng.integers(0, 10, size=256)
    return f, [dense(rng, 784, 512), np.zeros((512,), np.float32), dense(rng, 512, 10),
               np.zeros((10,), np.float32), G.uniform(rng, (256, 784), 0.0, 1.0),
               np.eye(10, dtype=np.float32)[labels]]


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


def make_inputs(name):
    """(fn, args) of a benchmark program, with the seed generate() uses for it."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    fn, args = BENCH[name]["make"](rng)
    return fn, [np.asarray(a) for a in args]


def write_readme():
    rows = []
    for name in BENCH:
        path = os.path.join(BENCH_DIR, name, "meta.json")
        if not os.path.isfile(path):
            continue
        meta = json.loads(G.read(path))
        shapes = " ".join(f"{x['dtype']}{x['shape']}".replace(" ", "") for x in meta["inputs"])
        rows.append(f"| `{name}` | {meta['description']} | {'yes' if meta['memory_bound'] else ''}"
                    f" | {shapes} | {meta['xla_temp_size_in_bytes']} | {meta['xla_kernel_count']} |")
    text = """# testdata/bench: benchmark programs

Written by `testdata/generate_bench.py`; do not edit by hand. Each folder holds `model.hlo`,
`model.mlir`, `xla_opt.hlo` and `meta.json` exactly as `testdata/generate.py` writes them for
a golden program (see ../README.md), and `meta.json` also says `memory_bound`. There are no
`inputs.npz`/`expected.npz`: `scripts/bench_vs_xla.py` makes the inputs at run time from
the program's `make(rng)` in `generate_bench.py` with numpy's `default_rng(crc32(name))`,
times XLA:CPU (through jax) and `xlac bench` on them, and compares the outputs.

```
python3 testdata/generate_bench.py                        # rewrite this folder
python3 scripts/bench_vs_xla.py --xlac target/release/xlac   # the timing table
```

The script times both sides in one run on the same inputs (medians of >= 30 warm runs),
measures the machine's bandwidth with a STREAM-style triad on arrays far larger than the
caches, and reports memory-bound programs' bytes of inputs + outputs per second against
it. Each program's arrays (at most 48 MiB) may fit in a large last-level cache, so such a
program can beat the triad. On a machine shared with other work, compare medians with
minimums before trusting a ratio.

## Programs

`xla temp` is XLA:CPU's preallocated temp buffer in bytes (`memory_analysis()`), `xla kernels`
the ENTRY instructions of `xla_opt.hlo` that launch work (see ../README.md).

| name | what | memory-bound | inputs | xla temp | xla kernels |
|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n"
    with open(os.path.join(BENCH_DIR, "README.md"), "w") as fh:
        fh.write(text)


def main(argv):
    names = argv or list(BENCH)
    unknown = [n for n in names if n not in BENCH]
    if unknown:
        sys.exit(f"unknown benchmark(s): {' '.join(unknown)}; known: {' '.join(BENCH)}")
    for n in names:
        G.generate(n, programs=BENCH, root=BENCH_DIR, keep=NOT_WRITTEN)
        for fname in ("model.hlo", "xla_opt.hlo"):
            size = os.path.getsize(os.path.join(BENCH_DIR, n, fname))
            assert size < 200_000, f"{n}/{fname} is {size} bytes: a large constant?"
    write_readme()


if __name__ == "__main__":
    main(sys.argv[1:])
