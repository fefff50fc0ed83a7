"""Collectives whose groups lie inside one process, across processes, and both at once.

Run as every rank of `mpirun -np 4 python distributed_groups.py job OUT 2` (xlac with
`devices:2`, or jax's CPU backend with `JAX_PLATFORMS=cpu`): 8 devices, 2 per process.
`python distributed_groups.py local OUT 8` runs the same programs on 8 devices of one
process (xlac with `devices:8`), the reference the job must equal bit for bit.

Over the job's devices as a (4, 2) mesh ("p": one row per process, "l": the devices of a
process), `shard_map` programs take per-device f32 blocks and return:

- `psum_l`: a sum over "l", whose groups are the two devices of each process;
- `psum_p`: a sum over "p", whose groups ({0,2,4,6} and {1,3,5,7}) cross every process, and
  each process is in two of them;
- `psum_all`: a sum over both axes, one group of all 8;
- `gather_p`: an all-gather over "p";
- `scatter_p`: a reduce-scatter (`psum_scatter`) over "p";
- `shift_p`: a `ppermute` one step along "p";
- `psum_pairs`: a sum over "q" of a (2, 4) mesh whose groups {0..3} and {4..7} each hold
  two processes' devices, local and remote members mixed.

Rank 0 writes every result, gathered over the job, to OUT.npz.
"""

import sys

import jax
import numpy as np


def main(mode, out, per_process):
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    if mode == "job":
        if jax.config.jax_platforms == "cpu":
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
            jax.config.update("jax_num_cpu_devices", per_process)
        jax.distributed.initialize()
    devices = jax.devices()
    assert len(devices) == 8, devices
    assert len(jax.local_devices()) == per_process, jax.local_devices()
    rng = np.random.default_rng(1)
    # Values whose sums depend on the order they are added in.
    x = (rng.standard_normal((8, 64)) * 10.0 ** rng.integers(-3, 4, (8, 64))).astype(np.float32)

    def run(mesh_shape, axes, spec, body, out_spec):
        mesh = Mesh(np.array(devices).reshape(mesh_shape), axes)
        sharding = NamedSharding(mesh, spec)
        xs = jax.make_array_from_callback(x.shape, sharding, lambda i: x[i])
        f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=out_spec))
        return multihost_utils.process_allgather(f(xs), tiled=True)

    grid = ((4, 2), ("p", "l"), P(("p", "l")))
    results = {
        "psum_l": run(*grid, lambda a: jax.lax.psum(a, "l"), P(("p", "l"))),
        "psum_p": run(*grid, lambda a: jax.lax.psum(a, "p"), P(("p", "l"))),
        "psum_all": run(*grid, lambda a: jax.lax.psum(a, ("p", "l")), P(("p", "l"))),
        "gather_p": run(*grid, lambda a: jax.lax.all_gather(a, "p", tiled=True),
                        P(("p", "l"))),
        "scatter_p": run(*grid,
                         lambda a: jax.lax.psum_scatter(a, "p", scatter_dimension=1,
                                                        tiled=True),
                         P(("p", "l"))),
        "shift_p": run(*grid,
                       lambda a: jax.lax.ppermute(a, "p", [(i, (i + 1) % 4) for i in range(4)]),
                       P(("p", "l"))),
        "psum_pairs": run((2, 4), ("r", "q"), P(("r", "q")),
                          lambda a: jax.lax.psum(a, "q"), P(("r", "q"))),
    }
    rank = jax.process_index()
    print(f"rank {rank}/{jax.process_count()}: devices "
          f"{[d.id for d in jax.local_devices()]}, {len(results)} programs", flush=True)
    if rank == 0:
        np.savez(out, **{k: np.asarray(v) for k, v in results.items()})
    if mode == "job":
        jax.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
