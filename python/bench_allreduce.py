"""A 4-process all-reduce, timed: run as every rank of

    XLAC_PJRT_OPTIONS=devices:1 mpirun -np 4 python python/bench_allreduce.py      # xlac
    JAX_PLATFORMS=cpu mpirun -np 4 python python/bench_allreduce.py                # jax CPU, gloo

Each process holds one device; a jitted `shard_map` sums an f32 array of each size across the
processes (`lax.psum`). Rank 0 prints, per size, the median and minimum time of one call
(after a warm-up call) as one JSON line per size.
"""

import json
import sys
import time

import jax
import numpy as np

SIZES = [1 << 20, 64 << 20]  # bytes
ITERS = 20


def main():
    if jax.config.jax_platforms == "cpu":
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize()
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()), ("p",))
    n = jax.process_count()
    f = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, "p"), mesh=mesh, in_specs=P("p"),
                              out_specs=P("p")))
    backend = "xlac" if repr(jax.devices()[0]).startswith("Xlac") else "cpu"
    for size in SIZES:
        local = np.full(size // 4, jax.process_index() + 1, np.float32)
        x = multihost_utils.host_local_array_to_global_array(local, mesh, P("p"))
        f(x).block_until_ready()
        times = []
        for _ in range(ITERS):
            multihost_utils.sync_global_devices("bench")
            t = time.perf_counter()
            y = f(x)
            y.block_until_ready()
            times.append(time.perf_counter() - t)
        first = np.asarray(y.addressable_shards[0].data)[:1]
        assert first[0] == n * (n + 1) / 2, first
        if jax.process_index() == 0:
            print(json.dumps({"backend": backend, "processes": n, "bytes": size,
                              "median_ms": 1e3 * float(np.median(times)),
                              "min_ms": 1e3 * min(times)}), flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    sys.exit(main())
