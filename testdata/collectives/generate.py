"""Writes testdata/collectives/: shard_map programs on 8 simulated CPU devices whose devices
issue collectives in different orders (they stall: xlac must stop them with a per-device
report), the aligned variant (runs), and a program with every collective (for traces).

Regenerate from the repository root (jax 0.10.2, jaxlib 0.10.2 from PyPI):

    python3 -m venv V && V/bin/pip install jax==0.10.2 jaxlib==0.10.2
    V/bin/python testdata/collectives/generate.py

Per program `testdata/collectives/<name>/` (the layout of testdata/spmd/):
    model.hlo     jax.jit(f).lower(x) as HLO text (shard_map as sdy manual computation)
    model.mlir    the same lowering as StableHLO text
    xla_opt.hlo   XLA:CPU's optimized per-device module (compiled, never run when it stalls)
    inputs.npz    the global input arr_0
    expected.npz  XLA's global output arr_0 (programs that run only)
    shards.npz    in0_p<p>: partition p's input shard; out0_p<p>: its output shard (if run)
    meta.json     name, description, num_partitions, num_replicas, stalls, device_assignment
Deterministic: inputs from default_rng(crc32(name)); fixed zip timestamps.
"""

import io
import json
import os
import sys
import zipfile
import zlib

import jax

jax.config.update("jax_num_cpu_devices", 8)
jax.config.update("jax_enable_x64", False)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
N = 8
MESH = Mesh(np.array(jax.devices()[:N]), ("x",))
RING = [(i, (i + 1) % N) for i in range(N)]

PROGRAMS = {}


def program(name, description, stalls):
    def register(body):
        PROGRAMS[name] = (description, stalls, body)
        return body

    return register


def even():
    return lax.axis_index("x") % 2 == 0


@program("order_kinds", "lax.cond on axis_index: even devices psum, odd devices ppermute", True)
def order_kinds(x):
    return lax.cond(even(), lambda v: lax.psum(v, "x"), lambda v: lax.ppermute(v, "x", RING), x)


@program(
    "order_swapped",
    "lax.cond on axis_index: even devices all_gather(psum(x)), odd psum(all_gather(x)): "
    "the same two collectives in the other order",
    True,
)
def order_swapped(x):
    def a(v):
        return lax.all_gather(lax.psum(v, "x"), "x", tiled=True)[0:1]

    def b(v):
        return lax.psum(lax.all_gather(v, "x", tiled=True)[0:1], "x")

    return lax.cond(even(), a, b, x)


@program("order_loop", "fori_loop whose trip count is axis_index + 1, a psum per trip", True)
def order_loop(x):
    n = lax.axis_index("x") + 1
    return lax.fori_loop(0, n, lambda i, v: lax.psum(v, "x") * 0.125, x)


@program(
    "order_aligned",
    "lax.cond on axis_index: both branches psum then all_gather (different arithmetic): runs",
    False,
)
def order_aligned(x):
    def a(v):
        return lax.all_gather(lax.psum(v * 2.0, "x") + 1.0, "x", tiled=True)[0:1]

    def b(v):
        return lax.all_gather(lax.psum(v + 1.0, "x") * 3.0, "x", tiled=True)[0:1]

    return lax.cond(even(), a, b, x)


@program(
    "every_collective",
    "shard_map with psum, pmax, all_gather, ppermute (ring and pairs leaving devices out), "
    "all_to_all, psum_scatter, axis_index",
    False,
)
def every_collective(x):
    s = lax.psum(x, "x")
    m = lax.pmax(x, "x")
    g = lax.all_gather(x, "x", tiled=True)  # [8, 16]
    r = lax.ppermute(x, "x", RING)
    half = lax.ppermute(x, "x", [(0, 1), (2, 3), (4, 5)])  # 6, 7 and the odd sources get zeros
    t = lax.all_to_all(g, "x", 0, 0, tiled=True)  # [8, 16]
    rs = lax.psum_scatter(g, "x", scatter_dimension=0, tiled=True)  # [1, 16]
    i = lax.axis_index("x").astype(jnp.float32)
    return s + m + r + half + rs + t[0:1] * 0.5 + g[3:4] * 0.25 + i


def npz_bytes(named):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, a in named:
            b = io.BytesIO()
            np.lib.format.write_array(b, np.ascontiguousarray(a), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, b.getvalue())
    return buf.getvalue()


def hlo_text(module):
    opts = jax._src.lib.xla_client._xla.HloPrintOptions.short_parsable()
    opts.print_large_constants = True
    return module.to_string(opts)


def generate(name):
    description, stalls, body = PROGRAMS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = rng.standard_normal((N, 16)).astype(np.float32)
    f = jax.jit(
        jax.shard_map(body, mesh=MESH, in_specs=P("x"), out_specs=P("x"), check_vma=False)
    )
    xs = jax.device_put(x, NamedSharding(MESH, P("x")))
    lowered = f.lower(xs)
    compiled = lowered.compile()
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    blobs = {
        "model.hlo": lowered.as_text(dialect="hlo"),
        "model.mlir": lowered.as_text(),
        "xla_opt.hlo": compiled.as_text(),
    }
    shards = [(f"in0_p{p}", x[p : p + 1]) for p in range(N)]
    if not stalls:
        y = compiled(xs)
        yv = np.asarray(y)
        blobs["expected.npz"] = npz_bytes([("arr_0", yv)])
        by_device = {s.device.id: np.asarray(s.data) for s in y.addressable_shards}
        shards += [(f"out0_p{p}", by_device[MESH.devices.flat[p].id]) for p in range(N)]
    blobs["inputs.npz"] = npz_bytes([("arr_0", x)])
    blobs["shards.npz"] = npz_bytes(shards)
    meta = {
        "name": name,
        "description": description,
        "num_partitions": N,
        "num_replicas": 1,
        "stalls": stalls,
        "device_assignment": [int(d.id) for d in MESH.devices.flat],
    }
    blobs["meta.json"] = json.dumps(meta, indent=1) + "\n"
    for fname, data in blobs.items():
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(out, fname), mode) as fh:
            fh.write(data)
    print(name, "stalls" if stalls else "runs")


if __name__ == "__main__":
    for n in sys.argv[1:] or list(PROGRAMS):
        generate(n)
