#!/usr/bin/env python3
"""The collectives benchmark (`cargo bench --bench collectives`) beside the machine's
memory bandwidth, in one run: a STREAM triad before and after the benchmark (numpy, the
same code as scripts/bench_vs_xla.py), then one table of criterion's medians with each
64 MiB row as a share of the best triad seen. The machine is shared: read the ratios.

    python3 scripts/bench_collectives.py [--bench-args 'all-reduce/8dev']
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_vs_xla  # noqa: E402  (the triad)

SIZES = ["4KiB", "256KiB", "4096KiB", "65536KiB"]


def touched_bytes(op, devices, size_kib):
    """The bytes the benchmark counts as its throughput (see benches/collectives.rs)."""
    s = size_kib * 1024
    return 2 * devices * s if op == "all-reduce" else s + devices * s


def median_ns(op, devices, size):
    path = os.path.join(ROOT, "target", "criterion", op, f"{devices}dev", size, "new",
                        "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def fmt_time(ns):
    return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-args", default="", help="a criterion filter, e.g. all-reduce")
    ap.add_argument("--triad-mib", type=int, default=256)
    ap.add_argument("--triad-runs", type=int, default=5)
    args = ap.parse_args()
    triads = [bench_vs_xla.stream(args.triad_mib, args.triad_runs, 2)["triad_best_gbs"]]
    cmd = ["cargo", "bench", "--bench", "collectives", "--"] + args.bench_args.split()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    triads.append(bench_vs_xla.stream(args.triad_mib, args.triad_runs, 2)["triad_best_gbs"])
    triad = max(triads)
    print(f"2-thread triad best {triads[0]:.2f} GB/s before, {triads[1]:.2f} after")
    print()
    print("| op | devices | " + " | ".join(s.replace("KiB", " KiB") for s in SIZES)
          + " | 64 MiB vs triad |")
    print("|---|---|" + "---|" * (len(SIZES) + 1))
    for op in ("all-reduce", "all-gather"):
        for n in (2, 4, 8):
            cells, last = [], None
            for size in SIZES:
                try:
                    ns = median_ns(op, n, size)
                except FileNotFoundError:
                    cells.append("")
                    continue
                gbs = touched_bytes(op, n, int(size[:-3])) / ns
                cells.append(f"{fmt_time(ns)}, {gbs:.1f} GB/s")
                last = gbs
            share = f"{100 * last / triad:.0f}%" if last and cells[-1] else ""
            print(f"| {op} | {n} | " + " | ".join(cells) + f" | {share} |")


if __name__ == "__main__":
    main()
