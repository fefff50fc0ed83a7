"""Per-call dispatch overhead: a jit of `x + 1` on f32[4], xlac against JAX's CPU backend.

Prints the median of N calls for each backend (default 1,000), timed in alternating rounds
so a burst of load from elsewhere on the machine falls on both sides. One call is the
dispatch of the jitted function on an array already on the device, and
`block_until_ready` on its result.

    python python/bench_overhead.py [--calls 1000] [--rounds 5]

Needs the plugin installed (`pip install ./python`) next to jax==0.10.2 and jaxlib==0.10.2.
"""

import argparse
import statistics
import time

import jax
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    x = np.arange(4, dtype=np.float32)
    samples = {}
    functions = {}
    for name in ("xlac", "cpu"):
        device = jax.devices(name)[0]
        f = jax.jit(lambda v: v + 1.0)
        placed = jax.device_put(x, device)
        f(placed).block_until_ready()  # compile
        functions[name] = (f, placed)
        samples[name] = []
    per_round = max(1, args.calls // args.rounds)
    for _ in range(args.rounds):
        for name, (f, placed) in functions.items():
            for _ in range(per_round):
                start = time.perf_counter()
                f(placed).block_until_ready()
                samples[name].append(time.perf_counter() - start)
    for name, s in samples.items():
        print(f"{name}: median {statistics.median(s) * 1e6:.1f} us, min {min(s) * 1e6:.1f} us over {len(s)} calls")
    ratio = statistics.median(samples["xlac"]) / statistics.median(samples["cpu"])
    print(f"xlac/cpu median ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
