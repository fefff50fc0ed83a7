#!/usr/bin/env python3
"""LU, QR, SVD and eigh at 64/256/1024 (f32): XLA:CPU's LAPACK (through jax) beside xlac,
timed in one run on the same machine with the same inputs.

    python3 scripts/bench_lapack.py --xlac target/release/xlac [--iters 5] [--sizes 64,256,1024]
                                    [--criterion]

Needs the pinned jax of testdata/requirements.txt. For each function and size the script
lowers the jax program (`jnp.linalg.lu`-style factor, `qr`, `svd`, `eigh`) to HLO, then
alternates rounds: a third of the runs of XLA (after a warm-up, block_until_ready), then one
`xlac bench MODEL.hlo --input inputs.npz --iters N --json`, and again, so a burst of load
from other tenants falls on both sides. It prints a markdown table of medians and the
ratio xlac / XLA. Timings are never asserted anywhere; on a loaded machine quote ratios.

With --criterion the same run first does `cargo bench --bench lapack` (benches/lapack.rs:
the routines alone, on an f32 matrix of each size, no program around them) and adds its
median per routine as a column, so the table shows how much of xlac's time is the
factorization itself.
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

# The criterion benchmark (benches/lapack.rs) of each function's routines.
CRITERION = {"lu": "getrf", "qr": "geqrf_orgqr", "svd": "gesdd", "eigh": "syevd"}


def criterion_medians(sizes):
    """Runs benches/lapack.rs; {(routine, n): median ms} from criterion's estimates."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["cargo", "bench", "--bench", "lapack", "--", "--noplot"], cwd=root,
                   check=True, stdout=subprocess.DEVNULL)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    out = {}
    for routine in CRITERION.values():
        for n in sizes:
            path = os.path.join(target, "criterion", "lapack", f"{routine}_{n}", "new",
                                "estimates.json")
            if os.path.exists(path):
                with open(path) as f:
                    out[(routine, n)] = json.load(f)["median"]["point_estimate"] / 1e6
    return out


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
    p.add_argument("--criterion", action="store_true",
                   help="also run benches/lapack.rs and add its medians")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    crit = criterion_medians(sizes) if args.criterion else None
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"jax {jax.__version__}")
    if crit is None:
        print("| routine | n | XLA:CPU ms | xlac ms | xlac / XLA |")
        print("|---|---|---|---|---|")
    else:
        print("| routine | n | XLA:CPU ms | xlac ms | xlac / XLA | criterion (routine alone) ms |")
        print("|---|---|---|---|---|---|")
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
                    row = f"| {name} | {n} | {mx:.3f} | {mo:.3f} | {mo / mx:.2f} |"
                    if crit is not None:
                        c = crit.get((CRITERION[name], n))
                        row += f" {c:.3f} |" if c is not None else " |"
                    print(row)
                sys.stdout.flush()


if __name__ == "__main__":
    main()
