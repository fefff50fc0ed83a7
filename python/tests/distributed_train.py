"""One data-parallel training step whose gradients cross processes.

Run as every rank of `mpirun -np 4 python distributed_train.py job OUT [K]` (xlac with
`devices:K`, or jax's CPU backend with `JAX_PLATFORMS=cpu`): each process holds K devices
(default 1) and a quarter of the batch, `jax.jit` over a Mesh of the job's devices takes the gradient of a small MLP's loss
(the partitioner sums the per-device gradients with an all-reduce across processes),
applies one SGD step, and rank 0 writes the updated parameters, gathered with
`multihost_utils.process_allgather`, to OUT.npz.

`python distributed_train.py local OUT [N]` runs the same program in one process over N
local devices (default 4; xlac with `devices:N`), the reference the job must equal bit for
bit.

Each rank logs one line: its rank, its devices, its batch rows and the loss.

With `XLAC_TEST_KILL_RANK=R` (run under `mpirun --enable-recovery`), rank R exits after a
first step; every other rank logs the exception the second step raised and exits at once
with code 3 (4 if the step returned).
"""

import os
import sys

import jax
import numpy as np

BATCH, FEATURES, HIDDEN = 32, 8, 16


def data():
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.standard_normal((FEATURES, HIDDEN)).astype(np.float32) * 0.3,
        "b1": np.zeros(HIDDEN, np.float32),
        "w2": rng.standard_normal((HIDDEN, 1)).astype(np.float32) * 0.3,
    }
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, 1)).astype(np.float32)
    return params, x, y


def loss(params, x, y):
    h = jax.numpy.tanh(x @ params["w1"] + params["b1"])
    return jax.numpy.mean((h @ params["w2"] - y) ** 2)


def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), value


def dies_mid_training(train, ps, xs, ys, rank, victim):
    """Rank `victim` dies between two steps; every other rank must raise from the second
    step's all-reduce naming it (within the collectives timeout), then exit with code 3."""
    import time

    ps, _ = jax.block_until_ready(train(ps, xs, ys))
    if rank == victim:
        print(f"rank {rank}: exiting after the first step", flush=True)
        os._exit(7)
    start = time.monotonic()
    try:
        jax.block_until_ready(train(ps, xs, ys))
    except Exception as e:  # the plugin's error, as jax raises it
        message = str(e).replace("\n", " ")
        print(
            f"rank {rank}: raised after {time.monotonic() - start:.1f} s: "
            f"{type(e).__module__}.{type(e).__name__}: {message}",
            flush=True,
        )
        # The client's later runs fail at once, with the same error.
        start = time.monotonic()
        try:
            jax.block_until_ready(train(ps, xs, ys))
            again = "returned"
        except Exception as e:
            again = str(e).replace("\n", " ")
        print(
            f"rank {rank}: ran again, raised after {time.monotonic() - start:.1f} s, "
            f"the same error: {again == message}",
            flush=True,
        )
        # Not sys.exit: jax.distributed's shutdown at exit waits for the dead task until
        # jax's heartbeat timeout, then aborts the process.
        os._exit(3)
    print(f"rank {rank}: the second step returned", flush=True)
    sys.exit(4)


def main(mode, out, per_process):
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    per_process = per_process or (1 if mode == "job" else 4)
    if mode == "job":
        if jax.config.jax_platforms == "cpu":
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
            jax.config.update("jax_num_cpu_devices", per_process)
        jax.distributed.initialize()
    params, x, y = data()
    devices = jax.devices()
    assert len(jax.local_devices()) == per_process, jax.local_devices()
    mesh = Mesh(np.array(devices), ("data",))
    replicated = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("data"))
    rank = jax.process_index()
    if mode == "job":
        per = BATCH // jax.process_count()
        mine = slice(rank * per, (rank + 1) * per)
        xs = multihost_utils.host_local_array_to_global_array(x[mine], mesh, P("data"))
        ys = multihost_utils.host_local_array_to_global_array(y[mine], mesh, P("data"))
        ps = jax.tree.map(
            lambda a: jax.make_array_from_callback(a.shape, replicated, lambda i: a[i]), params
        )
    else:
        mine = slice(0, BATCH)
        xs, ys = jax.device_put(x, rows), jax.device_put(y, rows)
        ps = jax.device_put(params, replicated)
    train = jax.jit(step, out_shardings=(replicated, replicated))
    kill = os.environ.get("XLAC_TEST_KILL_RANK")
    if kill is not None:
        dies_mid_training(train, ps, xs, ys, rank, int(kill))
    new, value = train(ps, xs, ys)
    gathered = multihost_utils.process_allgather(new, tiled=True)
    value = float(np.asarray(multihost_utils.process_allgather(value, tiled=True)))
    print(
        f"rank {rank}/{jax.process_count()}: devices {[d.id for d in jax.local_devices()]}, "
        f"rows {mine.start}..{mine.stop}, loss {value:.6f}",
        flush=True,
    )
    if rank == 0:
        np.savez(out, loss=np.float32(value), **{k: np.asarray(v) for k, v in gathered.items()})
    if mode == "job":
        jax.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
