#!/usr/bin/env python3
"""LU, QR, SVD and eigh at 64/256/1024 (f32): XLA:CPU's LAPACK (through jax) beside xlac,
timed in one run on the same machine with the same inputs.

    python3 scripts/bench_lapack.py --xlac target/release/xlac [--iters 5] [--sizes 64,256,1024]

Needs the pinned jax of testdata/requirements.txt. For each function and size the script
lowers the jax program (`jnp.linalg.lu`-style factor, `qr`, `svd`, `eigh`) to HLO, then
alternates rounds: a third of the runs of XLA (after a warm-up, block_until_ready), then one
`xlac bench MODEL.hlo --input inputs.npz --iters N --json`, and again, so a burst of load
from other tenants falls on both sides. It prints a markdown table of medians and the
ratio xlac / XLA. Timings are never asserted anywhere; on a loaded machine quote ratios.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_platforms", "cpu")

FUNCS = {
    "lu": lambda a: jax.lax.linalg.lu(a)[0],
    "qr": lambda a: jnp.linalg.qr(a),
    "svd": lambda a: jnp.linalg.svd(a),
    "eigh": lambda a: jnp.linalg.eigh(a),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--xlac", default="target/release/xlac")
    p.add_argument("--iters", type=int, default=6)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sizes", default="64,256,1024")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"jax {jax.__version__}")
    print("| routine | n | XLA:CPU ms | xlac ms | xlac / XLA |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for name, f in FUNCS.items():
            for n in sizes:
                a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
                if name == "eigh":
                    a = (a + a.T) / 2
                jitted = jax.jit(f)
                hlo = jitted.lower(a).as_text(dialect="hlo")
                model = os.path.join(tmp, f"{name}_{n}.hlo")
                with open(model, "w") as fh:
                    fh.write(hlo)
                inputs = os.path.join(tmp, f"{name}_{n}.npz")
                np.savez(inputs, a)
                jax.block_until_ready(jitted(a))
                xla, ours = [], []
                per = max(1, args.iters // args.rounds)
                err = None
                for _ in range(args.rounds):
                    for _ in range(per):
                        t = time.perf_counter()
                        jax.block_until_ready(jitted(a))
                        xla.append((time.perf_counter() - t) * 1e3)
                    r = subprocess.run([args.xlac, "bench", model, "--input", inputs,
                                        "--iters", str(per), "--json"],
                                       capture_output=True, text=True)
                    if r.returncode != 0:
                        err = (r.stderr.strip().splitlines() or ["?"])[0]
                        break
                    out = json.loads(r.stdout.strip().splitlines()[-1])
                    ours.extend(out.get("run_ms", [out["run_ms_median"]]))
                mx = statistics.median(xla)
                if err:
                    print(f"| {name} | {n} | {mx:.3f} | xlac bench failed: {err} | |")
                else:
                    mo = statistics.median(ours)
                    print(f"| {name} | {n} | {mx:.3f} | {mo:.3f} | {mo / mx:.2f} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
