#!/usr/bin/env python3
"""Generates the golden data of xlac's IFRT-like arrays (src/ifrt/) from jax itself.

Run from the repository root with the pinned versions of testdata/requirements.txt
(jax==0.10.2, jaxlib==0.10.2; `python3 -m venv V && V/bin/pip install -r testdata/requirements.txt`):

    V/bin/python testdata/ifrt/generate.py

It writes, into testdata/ifrt/:

    shardings.json   one case per sharding: the mesh (axis names and sizes, device ids in
                     mesh order), the PartitionSpec (null / "x" / ["x", "y"] per dimension),
                     the SPMD fixture it comes from, jax's HLO sharding text, the global shape
                     and dtype, and per addressable shard its device id, `index` ([start, stop)
                     per dimension) and replica_id, in jax's `addressable_shards` order;
                     also the shardings jax refuses (uneven splits) with its message
    shardings.npz    per case `<case>` (the global array: the same for every case of one shape
                     and dtype) and `<case>_d<device>` (the data of
                     the shard on that device: `shard.data` of jax.device_put)
    dp_step.hlo      a data-parallel training step (a small MLP; params replicated, the batch
                     sharded over 'x' of an 8-device mesh), `jax.jit(...).lower(...)` as HLO
                     text, the way testdata/spmd/ exports its programs
    dp_step.mlir     the same lowering as StableHLO text
    dp_step.npz      `w1`, `b1`, `w2`, `b2` (the initial parameters), `x<k>`, `y<k>` (the batch of
                     step k, k = 0..4), `loss` (jax's five losses, f32[5]), `w1_final`, ... (the
                     parameters after five steps)
    dp_step_4.*      the same step over a 4-device mesh (the single controller's fixture: four
                     worker processes)

Deterministic: numpy generators with fixed seeds, fixed zip timestamps.
"""

import io
import json
import os
import sys
import zipfile

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

HERE = os.path.dirname(os.path.abspath(__file__))
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}

# (mesh shape, axis names, device ids in mesh order or None for 0..n)
MESH_4x2 = ((4, 2), ("x", "y"), None)
MESH_2x4 = ((2, 4), ("x", "y"), None)
MESH_8 = ((8,), ("d",), None)
MESH_DATA8 = ((8,), ("data",), None)
MESH_4 = ((4,), ("d",), None)
MESH_2x2 = ((2, 2), ("x", "y"), None)
MESH_DM = ((2, 4), ("data", "model"), None)
MESH_3D = ((2, 2, 2), ("a", "b", "c"), None)
MESH_PERM = ((2, 4), ("x", "y"), [0, 2, 4, 6, 1, 3, 5, 7])

# (case name, mesh, spec, from which SPMD fixture or why, shape, dtype)
CASES = [
    ("xy_4x2", MESH_4x2, P("x", "y"), "mesh2d_*, reduce_sharded, wsc_reshard, transpose_reshape", (8, 16), "float32"),
    ("y_none_4x2", MESH_4x2, P("y", None), "mesh2d_out_*", (8, 16), "float32"),
    ("none_y_4x2", MESH_4x2, P(None, "y"), "mesh2d_gather_lhs", (8, 16), "float32"),
    ("x_none_4x2", MESH_4x2, P("x", None), "shard_map_2d out", (8, 16), "float32"),
    ("none_x_4x2", MESH_4x2, P(None, "x"), "wsc_reshard", (8, 16), "float32"),
    ("yx_4x2", MESH_4x2, P("y", "x"), "axes swapped", (8, 16), "float32"),
    ("x_and_y_4x2", MESH_4x2, P(("x", "y"), None), "two_axes_one_dim", (8, 16), "float32"),
    ("y_and_x_4x2", MESH_4x2, P(("y", "x"), None), "two axes, minor first", (8, 16), "float32"),
    ("x_partial_4x2", MESH_4x2, P("x"), "partially replicated (over y)", (8, 16), "float32"),
    ("replicated_4x2", MESH_4x2, P(), "replicated", (8, 16), "float32"),
    ("d_8", MESH_8, P("d"), "rep_to_shard, batch_dot, pjit_inout", (8, 16), "float32"),
    ("none_d_8", MESH_8, P(None, "d"), "dot_contracting, dot_rs", (8, 16), "float32"),
    ("data_8", MESH_DATA8, P("data"), "dp_mlp batch", (8, 16), "float32"),
    ("replicated_8", MESH_8, P(), "dp_mlp params", (8, 16), "float32"),
    ("d_4", MESH_4, P("d", None), "shard_map_4", (8, 16), "float32"),
    ("xy_2x2", MESH_2x2, P("x", "y"), "matmul_2x2, shard_map_2x2", (8, 16), "float32"),
    ("y_none_2x2", MESH_2x2, P("y", None), "matmul_2x2", (8, 16), "float32"),
    ("x_none_2x2", MESH_2x2, P("x", None), "matmul_2x2 out", (8, 16), "float32"),
    ("xy_2x4", MESH_2x4, P("x", "y"), "shard_map_2d (2x4)", (8, 16), "float32"),
    ("none_y_2x4", MESH_2x4, P(None, "y"), "int_elementwise", (8, 16), "float32"),
    ("data_none_dm", MESH_DM, P("data", None), "megatron_ffn", (8, 16), "float32"),
    ("none_model_dm", MESH_DM, P(None, "model"), "megatron_ffn", (8, 16), "float32"),
    ("model_none_dm", MESH_DM, P("model", None), "megatron_ffn", (8, 16), "float32"),
    ("ab_3d", MESH_3D, P("a", "b"), "mesh3d", (8, 16), "float32"),
    ("bc_3d", MESH_3D, P("b", "c"), "mesh3d", (8, 16), "float32"),
    ("ac_3d", MESH_3D, P("a", "c"), "mesh3d", (8, 16), "float32"),
    ("xy_perm", MESH_PERM, P("x", "y"), "permuted_mesh", (8, 16), "float32"),
    ("y_perm", MESH_PERM, P(None, "y"), "permuted mesh, partially replicated", (8, 16), "float32"),
    # Other ranks and types.
    ("d_vec_4", MESH_4, P("d"), "shard_map_4 (rank 1)", (16,), "float32"),
    ("model_vec_dm", MESH_DM, P("model"), "megatron_ffn b1 (rank 1)", (16,), "float32"),
    ("y_vec_2x4", MESH_2x4, P("y"), "int_elementwise r (s32)", (16,), "int32"),
    ("x_vec_2x4", MESH_2x4, P("x"), "rank 1, s32", (16,), "int32"),
    ("xyz_3d", MESH_3D, P("a", None, ("b", "c")), "rank 3, two axes on the last", (2, 3, 8), "float32"),
]

# Splits jax refuses in device_put: the message it gives.
UNEVEN = [
    ("uneven_10_on_4", MESH_4, P("d"), (10,), "float32"),
    ("uneven_rows_4x2", MESH_4x2, P("x", "y"), (6, 16), "float32"),
]


def make_mesh(m):
    shape, names, ids = m
    devs = jax.devices()
    ids = list(range(int(np.prod(shape)))) if ids is None else ids
    return Mesh(np.array([devs[i] for i in ids]).reshape(shape), names)


def mesh_json(m):
    shape, names, ids = m
    return {"axes": [[n, s] for n, s in zip(names, shape)],
            "devices": list(range(int(np.prod(shape)))) if ids is None else ids}


def spec_json(spec):
    out = []
    for d in spec:
        if d is None:
            out.append(None)
        elif isinstance(d, tuple):
            out.append(list(d))
        else:
            out.append(d)
    return out


def index_json(index, shape):
    out = []
    for s, n in zip(index, shape):
        start, stop, _ = s.indices(n)
        out.append([start, stop])
    return out


def global_array(shape, dtype):
    # One array per shape and type, so that every case of a shape holds the same values
    # and a reshard between two cases can be checked against jax's shards of the other.
    rng = np.random.default_rng(sum(shape) * 131 + len(shape) + (7 if dtype == "int32" else 0))
    if dtype == "int32":
        return rng.integers(-1000, 1000, size=shape, dtype=np.int32)
    return rng.standard_normal(shape).astype(np.float32)


def npz_bytes(named):
    """numpy.savez's layout with fixed zip timestamps; `named` is a list of (name, array)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, a in named:
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            with zf.open(info, "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(a).reshape(np.shape(a)),
                                          allow_pickle=False)
    return buf.getvalue()


def shardings():
    cases, arrays = [], []
    for name, m, spec, origin, shape, dtype in CASES:
        mesh = make_mesh(m)
        sharding = NamedSharding(mesh, spec)
        x = global_array(shape, dtype)
        a = jax.device_put(x, sharding)
        arrays.append((name, x))
        shards = []
        for s in a.addressable_shards:
            shards.append({"device": s.device.id, "index": index_json(s.index, shape),
                           "replica_id": s.replica_id})
            arrays.append((f"{name}_d{s.device.id}", np.asarray(s.data)))
        cases.append({"name": name, "from": origin, "mesh": mesh_json(m), "spec": spec_json(spec),
                      "hlo_sharding": str(sharding._to_xla_hlo_sharding(len(shape))),
                      "shape": list(shape), "dtype": {"float32": "f32", "int32": "s32"}[dtype],
                      "shards": shards})
    refused = []
    for name, m, spec, shape, dtype in UNEVEN:
        mesh = make_mesh(m)
        try:
            jax.device_put(np.zeros(shape, dtype), NamedSharding(mesh, spec))
            raise SystemExit(f"jax accepted {name}; expected a refusal")
        except ValueError as e:
            refused.append({"name": name, "mesh": mesh_json(m), "spec": spec_json(spec),
                            "shape": list(shape), "jax_error": str(e)})
    meta = {"generator": "testdata/ifrt/generate.py", "versions": PINNED, "cases": cases,
            "refused": refused}
    with open(os.path.join(HERE, "shardings.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")
    with open(os.path.join(HERE, "shardings.npz"), "wb") as fh:
        fh.write(npz_bytes(arrays))


def mlp_step(w1, b1, w2, b2, x, y):
    def loss_fn(p):
        w1, b1, w2, b2 = p
        h = jnp.tanh(x @ w1 + b1)
        out = h @ w2 + b2
        return jnp.mean((out - y) ** 2)

    params = (w1, b1, w2, b2)
    loss, grads = jax.value_and_grad(loss_fn)(params)
    return (loss,) + tuple(p - 0.1 * g for p, g in zip(params, grads))


def dp_step(devices=8, name="dp_step"):
    rng = np.random.default_rng(11)
    mesh = make_mesh(((devices,), ("x",), None))
    rep = NamedSharding(mesh, P())
    batch = NamedSharding(mesh, P("x"))
    params = [(rng.standard_normal(s) * sc).astype(np.float32)
              for s, sc in [((16, 32), 0.3), ((32,), 0.1), ((32, 4), 0.3), ((4,), 0.1)]]
    batches = [(rng.standard_normal((64, 16)).astype(np.float32),
                rng.standard_normal((64, 4)).astype(np.float32)) for _ in range(5)]
    step = jax.jit(mlp_step, in_shardings=(rep,) * 4 + (batch, batch),
                   out_shardings=(rep,) * 5, keep_unused=True)
    lowered = step.lower(*params, *batches[0])
    with open(os.path.join(HERE, f"{name}.hlo"), "w") as fh:
        fh.write(lowered.as_text(dialect="hlo"))
    with open(os.path.join(HERE, f"{name}.mlir"), "w") as fh:
        fh.write(lowered.as_text())
    # Five steps, the parameters staying on the devices (jax arrays) between them.
    p = [jax.device_put(w, rep) for w in params]
    losses = []
    for x, y in batches:
        out = step(*p, jax.device_put(x, batch), jax.device_put(y, batch))
        losses.append(np.asarray(out[0]))
        p = list(out[1:])
    named = [(n, w) for n, w in zip(["w1", "b1", "w2", "b2"], params)]
    for k, (x, y) in enumerate(batches):
        named += [(f"x{k}", x), (f"y{k}", y)]
    named.append(("loss", np.array(losses, dtype=np.float32)))
    named += [(f"{n}_final", np.asarray(w)) for n, w in zip(["w1", "b1", "w2", "b2"], p)]
    with open(os.path.join(HERE, f"{name}.npz"), "wb") as fh:
        fh.write(npz_bytes(named))
    print("losses:", [float(v) for v in losses])


def main():
    for k, v in PINNED.items():
        have = jax.__version__ if k == "jax" else jax.lib.__version__
        if have != v:
            sys.exit(f"{k} {have} is installed; this generator is pinned to {v}")
    assert len(jax.devices()) == 8, jax.devices()
    shardings()
    dp_step()
    dp_step(4, "dp_step_4")


if __name__ == "__main__":
    main()
