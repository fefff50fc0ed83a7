"""Programs through the PJRT plugin: xlac against JAX's CPU backend, in one process.

Each program is jitted once per backend with its arguments already on the device; the two
backends then run in alternating rounds, so a burst of load from elsewhere on the machine
falls on both sides. Two modes:

- `blocking`: one sample is one call and `block_until_ready` on its result;
- `pipelined`: one sample is `--depth` calls dispatched back to back, then one block on
  the last result, divided by `--depth` (how a training loop dispatches).

Prints, per program and mode, the median and minimum microseconds per call on each
backend and the xlac/cpu ratio of the medians, then the geometric mean of the ratios.
The results of both backends are compared once before timing (within a tolerance: the
two compilers may round differently).

    python python/bench_plugin.py [--rounds 7] [--calls 30] [--depth 8] [--only NAME,...]

Needs the plugin (`pip install ./python`, or `XLAC_PJRT_LIBRARY=... PYTHONPATH=python`)
next to jax==0.10.2 and jaxlib==0.10.2.
"""

import argparse
import math
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np


def layernorm(x):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5)


def mlp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def mlp_step(params, x, y):
    grads = jax.grad(mlp_loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def attention(q, k, v):
    s = jnp.einsum("hqd,hkd->hqk", q, k) / math.sqrt(q.shape[-1])
    return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, axis=-1), v)


def programs():
    """name -> (function, arguments as numpy)."""
    rng = np.random.default_rng(0)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    mlp_params = ((normal(784, 256) * 0.05, normal(256)), (normal(256, 10) * 0.05, normal(10)))
    return {
        "add f32[4]": (lambda x: x + 1.0, (np.arange(4, dtype=np.float32),)),
        "layernorm f32[1024,1024]": (layernorm, (normal(1024, 1024),)),
        "softmax f32[1024,1024]": (lambda x: jax.nn.softmax(x, axis=-1), (normal(1024, 1024),)),
        "mlp step 784-256-10 batch 128": (mlp_step, (mlp_params, normal(128, 784), labels)),
        "attention 8x256x64": (attention, (normal(8, 256, 64), normal(8, 256, 64), normal(8, 256, 64))),
        "column sum f32[1024,1024]": (lambda x: x.sum(axis=0), (normal(1024, 1024),)),
    }


def block(out):
    jax.tree.map(lambda a: a.block_until_ready(), out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=30, help="samples per backend per round")
    parser.add_argument("--depth", type=int, default=8, help="calls per pipelined sample")
    parser.add_argument("--only", default="", help="comma-separated program names (prefixes)")
    args = parser.parse_args()
    chosen = [p.strip() for p in args.only.split(",") if p.strip()]
    ratios = {"blocking": [], "pipelined": []}
    print(f"{'program':32} {'mode':9} {'xlac med':>9} {'cpu med':>9} {'xlac min':>9} {'cpu min':>9} {'ratio':>6}")
    for name, (f, host_args) in programs().items():
        if chosen and not any(name.startswith(c) for c in chosen):
            continue
        runs = {}
        for backend in ("xlac", "cpu"):
            device = jax.devices(backend)[0]
            placed = jax.device_put(host_args, device)
            g = jax.jit(f)
            block(g(*placed))  # compile
            runs[backend] = (g, placed)
        got = jax.tree.leaves(jax.device_get(runs["xlac"][0](*runs["xlac"][1])))
        want = jax.tree.leaves(jax.device_get(runs["cpu"][0](*runs["cpu"][1])))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5, err_msg=name)
        for mode in ("blocking", "pipelined"):
            depth = 1 if mode == "blocking" else args.depth
            samples = {"xlac": [], "cpu": []}
            for _ in range(args.rounds):
                for backend, (g, placed) in runs.items():
                    for _ in range(args.calls):
                        start = time.perf_counter()
                        for _ in range(depth - 1):
                            g(*placed)
                        block(g(*placed))
                        samples[backend].append((time.perf_counter() - start) / depth)
            med = {b: statistics.median(s) * 1e6 for b, s in samples.items()}
            low = {b: min(s) * 1e6 for b, s in samples.items()}
            ratio = med["xlac"] / med["cpu"]
            ratios[mode].append(ratio)
            print(
                f"{name:32} {mode:9} {med['xlac']:9.1f} {med['cpu']:9.1f} "
                f"{low['xlac']:9.1f} {low['cpu']:9.1f} {ratio:6.2f}"
            )
    for mode, r in ratios.items():
        if r:
            geo = math.exp(sum(math.log(x) for x in r) / len(r))
            print(f"geometric mean xlac/cpu ({mode}, medians): {geo:.2f}; worst {max(r):.2f}")


if __name__ == "__main__":
    main()
