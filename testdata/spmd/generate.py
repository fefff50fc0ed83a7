#!/usr/bin/env python3
"""Generates xlac's sharded (SPMD) golden programs from real JAX code on 8 simulated CPU devices.

Run from the repository root with the pinned versions of testdata/requirements.txt
(jax==0.10.2, jaxlib==0.10.2; `python3 -m venv V && V/bin/pip install -r testdata/requirements.txt`):

    python3 testdata/spmd/generate.py              # every program
    python3 testdata/spmd/generate.py dp_mlp       # only the named programs

Every program is written to testdata/spmd/<name>/:

    model.hlo          jit's HLO text (Shardy mode, the default: `sharding=` and `xla.sdy.*` side by side)
    model.mlir         jit's StableHLO text (`sdy.mesh`, `#sdy.sharding`, `sdy.manual_computation`)
    model.gspmd.hlo    the same program lowered in GSPMD mode (`SPMDFullToShardShape` for shard_map)
    model.gspmd.mlir   ... as StableHLO (`mhlo.sharding` strings)
    xla_opt.hlo        XLA:CPU's optimized per-device module (all constants printed)
    xla.after_shardy-xla.hlo            XLA's dump after propagation (Shardy mode, exported to GSPMD shardings)
    xla.after_sharding-propagation.hlo  XLA's dump after GSPMD `sharding-propagation` (GSPMD mode)
    xla.after_spmd-partitioning.hlo     XLA's dump after `spmd-partitioning` (Shardy mode)
    inputs.npz         the global entry parameters in order (arr_0, arr_1, ...)
    expected.npz       XLA's global outputs, flattened (arr_0, ...)
    shards.npz         per-partition shards: `in<i>_p<p>` / `out<i>_p<p>` (partition p runs on
                       device device_assignment[p])
    meta.json          name, description, num_partitions, num_replicas, mesh, device_assignment,
                       and per input/output: dtype, shape, XLA's HLO sharding, per-partition index
                       ([start, stop) per dimension)

Deterministic: inputs from numpy generators seeded by the program's name, fixed zip timestamps,
source file names reduced to base names.
"""

import glob
import io
import json
import os
import shutil
import sys
import tempfile
import zipfile
import zlib

DUMP = tempfile.mkdtemp(prefix="xlac-spmd-dump-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           f" --xla_dump_to={DUMP} --xla_dump_hlo_pass_re=.*(sharding|spmd|shardy).*")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402
from jax._src.lib import hlo as hlo_lib  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_num_cpu_devices", 8)
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

HERE = os.path.dirname(os.path.abspath(__file__))
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}

PROGRAMS = {}


def program(name, description):
    """Registers `make(rng) -> dict(fn, args, mesh, in_specs, out_specs or None)`; an
    in_spec of None leaves that input's sharding to XLA's propagation (meta.json records
    the sharding XLA chose)."""

    def register(make):
        assert name not in PROGRAMS, name
        PROGRAMS[name] = dict(name=name, description=description, make=make)
        return make

    return register


def mesh(shape, names, devices=None):
    devs = jax.devices()
    ids = list(range(int(np.prod(shape)))) if devices is None else devices
    return Mesh(np.array([devs[i] for i in ids]).reshape(shape), names)


def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# --------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------


def mlp_step(params, x, y):
    def loss_fn(p):
        w1, b1, w2, b2 = p
        h = jnp.tanh(x @ w1 + b1)
        out = h @ w2 + b2
        return jnp.mean((out - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return (loss,) + tuple(p - 0.1 * g for p, g in zip(params, grads))


def dp_mlp(n, batch):
    def make(rng):
        m = mesh((n,), ("data",))

        def f(w1, b1, w2, b2, x, y):
            return mlp_step((w1, b1, w2, b2), x, y)

        args = [normal(rng, (16, 32), 0.3), normal(rng, (32,), 0.1), normal(rng, (32, 4), 0.3),
                normal(rng, (4,), 0.1), normal(rng, (batch, 16)), normal(rng, (batch, 4))]
        return dict(fn=f, args=args, mesh=m,
                    in_specs=[P(), P(), P(), P(), P("data"), P("data")], out_specs=None)
    return make


program("dp_mlp", "data-parallel MLP training step on 8 devices: params replicated, batch "
                  "sharded, 5 unspecified results")(dp_mlp(8, 64))
program("dp_mlp_4", "the data-parallel MLP step on 4 devices")(dp_mlp(4, 32))


def mesh2d_matmul(out_spec, b_spec=P("y", None)):
    def make(rng):
        m = mesh((4, 2), ("x", "y"))

        def f(a, b):
            return a @ b

        return dict(fn=f, args=[normal(rng, (64, 32)), normal(rng, (32, 16))], mesh=m,
                    in_specs=[P("x", "y"), b_spec], out_specs=out_spec)
    return make


program("mesh2d_out_replicated", "4x2 mesh: P('x','y') @ P('y',None), result replicated")(
    mesh2d_matmul(P()))
program("mesh2d_out_xy", "4x2 mesh: P('x','y') @ P('y',None), result P('x','y')")(
    mesh2d_matmul(P("x", "y")))
program("mesh2d_out_auto", "4x2 mesh: P('x','y') @ P('y',None), result left to propagation")(
    mesh2d_matmul(None))
program("mesh2d_gather_lhs", "4x2 mesh: P('x','y') @ P(None,'y') -> P('x','y'): the lhs is "
                             "all-gathered along y")(mesh2d_matmul(P("x", "y"), P(None, "y")))


@program("matmul_2x2", "2x2 mesh on 4 devices: P('x','y') @ P('y',None) -> P('x',None)")
def _(rng):
    m = mesh((2, 2), ("x", "y"))
    return dict(fn=lambda a, b: a @ b, args=[normal(rng, (32, 16)), normal(rng, (16, 8))], mesh=m,
                in_specs=[P("x", "y"), P("y", None)], out_specs=P("x", None))


@program("dot_free_same_axis", "8 devices: P('x',None) @ P(None,'x'), both free dimensions "
                               "split on 'x'; the result left to propagation (XLA keeps the "
                               "lhs's rows split and gathers the rhs)")
def _(rng):
    m = mesh((8,), ("x",))
    return dict(fn=lambda a, b: a @ b, args=[normal(rng, (16, 4)), normal(rng, (4, 16))], mesh=m,
                in_specs=[P("x", None), P(None, "x")], out_specs=None)


@program("dot_free_same_axis_2d", "4x2 mesh: x @ x.T with x P('x','y'): the free dimensions "
                                  "on 'x', the contraction on 'y'; the result left to "
                                  "propagation")
def _(rng):
    m = mesh((4, 2), ("x", "y"))
    x = normal(rng, (8, 2))
    return dict(fn=lambda a, b: a @ b, args=[x, x.T.copy()], mesh=m,
                in_specs=[P("x", "y"), P("y", "x")], out_specs=None)


def contracting(out_spec):
    def make(rng):
        m = mesh((8,), ("d",))
        return dict(fn=lambda a, b: a @ b, args=[normal(rng, (16, 64)), normal(rng, (64, 32))],
                    mesh=m, in_specs=[P(None, "d"), P("d", None)], out_specs=out_spec)
    return make


program("dot_contracting", "contracting dimension sharded on 8 devices, result replicated "
                           "(local dot + all-reduce)")(contracting(P()))
program("dot_rs", "contracting dimension sharded, result row-sharded (a reduce-scatter: "
                  "all-reduce + dynamic-slice on CPU)")(contracting(P("d", None)))


@program("reduce_sharded", "reductions over sharded dimensions on a 4x2 mesh (sum over x, "
                           "max over y)")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(x):
        return jnp.sum(jnp.exp(x), axis=0), jnp.max(x, axis=1)

    return dict(fn=f, args=[normal(rng, (64, 16))], mesh=m, in_specs=[P("x", "y")],
                out_specs=None)


@program("wsc_reshard", "with_sharding_constraint moves the sharding from rows to columns")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(x):
        y = jax.lax.with_sharding_constraint(jnp.sin(x), NamedSharding(m, P(None, "x")))
        return y * 2.0

    return dict(fn=f, args=[normal(rng, (64, 32))], mesh=m, in_specs=[P("x", "y")],
                out_specs=None)


@program("rep_to_shard", "a replicated input computed on and returned row-sharded")
def _(rng):
    m = mesh((8,), ("d",))
    return dict(fn=lambda x: x * 2.0 + 1.0, args=[normal(rng, (64, 4))], mesh=m,
                in_specs=[P()], out_specs=P("d", None))


@program("uneven", "10 elements split over 4 devices by with_sharding_constraint: padded "
                   "to 12, masked in the reduction")
def _(rng):
    m = mesh((4,), ("d",))

    def f(x):
        y = jax.lax.with_sharding_constraint(jnp.sin(x), NamedSharding(m, P("d")))
        return jnp.sum(y), y * 3.0

    return dict(fn=f, args=[normal(rng, (10,))], mesh=m, in_specs=[P()], out_specs=(P(), P()))


@program("megatron_ffn", "Megatron feed-forward on a 2x4 (data, model) mesh: column-parallel "
                         "then row-parallel dot, one all-reduce")
def _(rng):
    m = mesh((2, 4), ("data", "model"))

    def f(x, w1, b1, w2):
        return jax.nn.relu(x @ w1 + b1) @ w2

    return dict(fn=f, args=[normal(rng, (16, 32)), normal(rng, (32, 64), 0.2),
                            normal(rng, (64,), 0.1), normal(rng, (64, 32), 0.2)], mesh=m,
                in_specs=[P("data", None), P(None, "model"), P("model"), P("model", None)],
                out_specs=P("data", None))


def shard_map_1d(n):
    def make(rng):
        m = mesh((n,), ("d",))

        def body(x):
            return (lax.psum(x, "d"), lax.all_gather(x, "d", tiled=True),
                    lax.ppermute(x, "d", perm=[(i, (i + 1) % n) for i in range(n)]),
                    lax.all_to_all(x, "d", split_axis=1, concat_axis=1, tiled=True),
                    lax.psum_scatter(x, "d", scatter_dimension=1, tiled=True),
                    lax.pmax(x, "d") + lax.axis_index("d").astype(jnp.float32))

        f = jax.shard_map(body, mesh=m, in_specs=P("d", None),
                          out_specs=(P(), P(), P("d"), P("d"), P("d"), P("d")),
                          check_vma=False)
        return dict(fn=f, args=[normal(rng, (n, 16))], mesh=m, in_specs=[P("d", None)],
                    out_specs=None)
    return make


program("shard_map_1d", "shard_map on 8 devices: psum, all_gather, ppermute, all_to_all, "
                        "psum_scatter, pmax, axis_index")(shard_map_1d(8))
program("shard_map_4", "shard_map on 4 devices with every collective")(shard_map_1d(4))


def shard_map_2d(shape):
    def make(rng):
        m = mesh(shape, ("x", "y"))
        nx, ny = shape

        def body(x):
            return (lax.psum(x, "y"), lax.all_gather(x, "x", tiled=True),
                    lax.ppermute(x, "x", perm=[(i, (i + 1) % nx) for i in range(nx)]),
                    lax.psum(x, ("x", "y")),
                    lax.all_to_all(x, "y", split_axis=1, concat_axis=1, tiled=True),
                    lax.psum_scatter(x, "x", scatter_dimension=1, tiled=True))

        f = jax.shard_map(body, mesh=m, in_specs=P("x", "y"),
                          out_specs=(P("x", None), P(None, "y"), P("x", "y"), P(),
                                     P("x", "y"), P("x", "y")), check_vma=False)
        return dict(fn=f, args=[normal(rng, (4 * nx, 8 * ny))], mesh=m, in_specs=[P("x", "y")],
                    out_specs=None)
    return make


program("shard_map_2d", "shard_map on a 4x2 mesh: per-axis psum, all_gather, ppermute, "
                        "all_to_all, psum_scatter and a psum over both axes")(shard_map_2d((4, 2)))
program("shard_map_2x2", "the 2-D shard_map collectives on a 2x2 mesh of 4 devices")(
    shard_map_2d((2, 2)))


@program("permuted_mesh", "a 2x4 mesh over devices [0,2,4,6,1,3,5,7]: elementwise and a "
                          "reduction across y")
def _(rng):
    m = mesh((2, 4), ("x", "y"), devices=[0, 2, 4, 6, 1, 3, 5, 7])

    def f(x, b):
        return jnp.sum(jnp.tanh(x) + b, axis=1)

    return dict(fn=f, args=[normal(rng, (8, 32)), normal(rng, (8, 32))], mesh=m,
                in_specs=[P("x", "y"), P("x", "y")], out_specs=None)


@program("two_axes_one_dim", "rows sharded over both axes of a 4x2 mesh, P(('x','y'), None), "
                             "times a replicated weight, then a full sum")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(x, w):
        h = x @ w
        return h, jnp.sum(h)

    return dict(fn=f, args=[normal(rng, (64, 16)), normal(rng, (16, 8))], mesh=m,
                in_specs=[P(("x", "y"), None), P()], out_specs=None)


@program("transpose_reshape", "transpose of a sharded matrix and a reshape splitting a "
                              "sharded dimension")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(x):
        return x.T + 1.0, jnp.sum(x.reshape(8, 8, 16), axis=1)

    return dict(fn=f, args=[normal(rng, (64, 16))], mesh=m, in_specs=[P("x", "y")],
                out_specs=None)


@program("pjit_inout", "jit(in_shardings=P('d'), out_shardings=P()): layer norm over "
                       "sharded rows, result gathered")
def _(rng):
    m = mesh((8,), ("d",))

    def f(x, g, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

    return dict(fn=f, args=[normal(rng, (32, 16)), normal(rng, (16,)), normal(rng, (16,))],
                mesh=m, in_specs=[P("d", None), P(), P()], out_specs=P())


@program("mesh3d", "2x2x2 mesh: P('a','b') @ P('b','c') -> P('a','c')")
def _(rng):
    m = mesh((2, 2, 2), ("a", "b", "c"))
    return dict(fn=lambda a, b: a @ b, args=[normal(rng, (16, 16)), normal(rng, (16, 8))],
                mesh=m, in_specs=[P("a", "b"), P("b", "c")], out_specs=P("a", "c"))


@program("batch_dot", "a batched dot with the batch dimension sharded on 8 devices and the "
                      "contracting dimension replicated")
def _(rng):
    m = mesh((8,), ("d",))

    def f(a, b):
        return jnp.einsum("bij,bjk->bik", a, b)

    return dict(fn=f, args=[normal(rng, (8, 4, 6)), normal(rng, (8, 6, 5))], mesh=m,
                in_specs=[P("d"), P("d")], out_specs=None)


@program("int_elementwise", "integer arithmetic on a column-sharded s32 array with a "
                            "broadcast row and an integer sum over the sharded dimension")
def _(rng):
    m = mesh((2, 4), ("x", "y"))

    def f(x, r):
        z = x * 3 + r
        return z, jnp.sum(z, axis=1)

    return dict(fn=f, args=[rng.integers(-100, 100, (8, 16), dtype=np.int32),
                            rng.integers(-5, 5, (16,), dtype=np.int32)], mesh=m,
                in_specs=[P(None, "y"), P("y")], out_specs=None)


# Inputs without a sharding (in_spec None): XLA's propagation decides them from their users.


@program("bwd_dot_weight", "4x2 mesh: P('x','y') @ an unsharded weight: the weight takes "
                           "P('y', None) from the dot (backward propagation)")
def _(rng):
    m = mesh((4, 2), ("x", "y"))
    return dict(fn=lambda a, b: a @ b, args=[normal(rng, (64, 32)), normal(rng, (32, 16))],
                mesh=m, in_specs=[P("x", "y"), None], out_specs=None)


@program("bwd_dot_result", "both dot operands unsharded, the result P('x','y'): the operands "
                           "take the result's row and column splits")
def _(rng):
    m = mesh((4, 2), ("x", "y"))
    return dict(fn=lambda a, b: a @ b, args=[normal(rng, (32, 16)), normal(rng, (16, 8))],
                mesh=m, in_specs=[None, None], out_specs=P("x", "y"))


@program("bwd_shape_ops", "unsharded inputs meeting a P('x','y') array through a transpose, "
                          "a reshape, a broadcast and an elementwise op")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(b, a, c, v, e):
        return a.T + b, c.reshape(64, 16) * b, b - v, jnp.sum(jnp.exp(e) * b, axis=0)

    return dict(fn=f, args=[normal(rng, (64, 16)), normal(rng, (16, 64)),
                            normal(rng, (8, 8, 16)), normal(rng, (16,)), normal(rng, (64, 16))],
                mesh=m, in_specs=[P("x", "y"), None, None, None, None], out_specs=None)


@program("bwd_dp_mlp", "the data-parallel MLP step with its parameters unsharded: "
                       "propagation replicates them")
def _(rng):
    m = mesh((8,), ("data",))

    def f(w1, b1, w2, b2, x, y):
        return mlp_step((w1, b1, w2, b2), x, y)

    args = [normal(rng, (16, 32), 0.3), normal(rng, (32,), 0.1), normal(rng, (32, 4), 0.3),
            normal(rng, (4,), 0.1), normal(rng, (64, 16)), normal(rng, (64, 4))]
    return dict(fn=f, args=args, mesh=m,
                in_specs=[None, None, None, None, P("data"), P("data")], out_specs=None)


@program("bwd_megatron", "Megatron feed-forward with the input and bias unsharded: they take "
                         "their splits from the sharded weights' dots")
def _(rng):
    m = mesh((2, 4), ("data", "model"))

    def f(x, w1, b1, w2):
        return jax.nn.relu(x @ w1 + b1) @ w2

    return dict(fn=f, args=[normal(rng, (16, 32)), normal(rng, (32, 64), 0.2),
                            normal(rng, (64,), 0.1), normal(rng, (64, 32), 0.2)], mesh=m,
                in_specs=[None, P(None, "model"), None, P("model", None)],
                out_specs=P("data", None))


# Sort, convolution, gather and scatter partitioned along the dimensions they leave alone.


@program("sort_rows", "sort along rows of a row-sharded matrix, and a two-operand sort "
                      "(values by keys) on a 4x2 mesh: the sort stays local")
def _(rng):
    m = mesh((4, 2), ("x", "y"))

    def f(x, v):
        k, w = lax.sort((x, v), dimension=1, num_keys=1)
        return jnp.sort(x, axis=1), k, w

    return dict(fn=f, args=[normal(rng, (16, 32)), normal(rng, (16, 32))], mesh=m,
                in_specs=[P("x", None), P("x", None)], out_specs=None)


@program("sort_sharded_dim", "sort along the sharded dimension: XLA moves the split to the "
                             "other dimension first")
def _(rng):
    m = mesh((8,), ("d",))
    return dict(fn=lambda x: jnp.sort(x, axis=1), args=[normal(rng, (16, 32))], mesh=m,
                in_specs=[P(None, "d")], out_specs=None)


@program("conv_batch", "a 2-D convolution (NHWC, HWIO) with the batch sharded on 8 devices")
def _(rng):
    m = mesh((8,), ("d",))

    def f(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return dict(fn=f, args=[normal(rng, (8, 6, 6, 3)), normal(rng, (3, 3, 3, 4))], mesh=m,
                in_specs=[P("d"), P()], out_specs=None)


@program("conv_feature", "a 2-D convolution on a 2x4 mesh: batch on x, output features on y")
def _(rng):
    m = mesh((2, 4), ("x", "y"))

    def f(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "VALID",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return dict(fn=f, args=[normal(rng, (4, 6, 6, 3)), normal(rng, (3, 3, 3, 8))], mesh=m,
                in_specs=[P("x"), P(None, None, None, "y")], out_specs=None)


@program("gather_passthrough", "a gather of columns (jnp.take along axis 1) from a "
                               "row-sharded matrix: the rows pass through, local")
def _(rng):
    m = mesh((8,), ("d",))
    idx = np.array([3, 0, 7, 7, 1], dtype=np.int32)

    def f(x):
        return jnp.take(x, idx, axis=1)

    return dict(fn=f, args=[normal(rng, (16, 8))], mesh=m, in_specs=[P("d", None)],
                out_specs=None)


@program("scatter_passthrough", "a scatter-add into columns of a row-sharded matrix with "
                                "row-sharded updates: local")
def _(rng):
    m = mesh((8,), ("d",))
    idx = np.array([3, 0, 7, 7, 1], dtype=np.int32)

    def f(x, u):
        return x.at[:, idx].add(u)

    return dict(fn=f, args=[normal(rng, (16, 8)), normal(rng, (16, 5))], mesh=m,
                in_specs=[P("d", None), P("d", None)], out_specs=None)


# Inputs without a sharding meeting sort, convolution, gather and scatter: XLA's propagation
# moves the result's split back to them.


@program("bwd_sort_conv", "unsharded inputs of a sort, a two-operand sort and a convolution "
                          "on a 2x4 mesh, only the results sharded: the sort operands take "
                          "the result's split, the convolution's input its batch split and "
                          "the kernel its output-feature split")
def _(rng):
    m = mesh((2, 4), ("x", "y"))

    def f(x, k, v, img, ker):
        s = jnp.sort(x, axis=1)
        sk, sv = lax.sort((k, v), dimension=0, num_keys=1)
        c = lax.conv_general_dilated(img, ker, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return s, sk, sv, c

    return dict(fn=f, args=[normal(rng, (16, 32)), normal(rng, (32, 8)), normal(rng, (32, 8)),
                            normal(rng, (4, 6, 6, 3)), normal(rng, (3, 3, 3, 8))], mesh=m,
                in_specs=[None, None, None, None, None],
                out_specs=(P("y", None), P(None, "y"), P(None, "y"), P("x", None, None, "y")))


@program("bwd_gather_scatter", "unsharded operands of a gather and a scatter-add on 8 "
                               "devices, only the results sharded: the operands take the "
                               "split of the passthrough dimension")
def _(rng):
    m = mesh((8,), ("d",))
    idx = np.array([3, 0, 7, 7, 1], dtype=np.int32)

    def f(x, y, u):
        return jnp.take(x, idx, axis=1), y.at[:, idx].add(u)

    return dict(fn=f, args=[normal(rng, (16, 8)), normal(rng, (16, 8)), normal(rng, (16, 5))],
                mesh=m, in_specs=[None, None, None], out_specs=(P("d", None), P("d", None)))


# shard_map over some mesh axes only (partially manual): the other axes stay ordinary
# tiled shardings inside the body, which XLA partitions along them.


@program("shard_map_partial_x", "shard_map on a 2x4 mesh manual over x only: inside the "
                                "body the rows are split further on y (a dot, tanh, a psum "
                                "over x and a sum over the y-split rows)")
def _(rng):
    m = mesh((2, 4), ("x", "y"))

    def body(a, w):
        a = jax.lax.with_sharding_constraint(a, NamedSharding(m, P("y", None)))
        h = jnp.tanh(a @ w)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("y", None)))
        return lax.psum(h, "x"), jnp.sum(h, axis=0)

    f = jax.shard_map(body, mesh=m, in_specs=(P("x", None), P()), out_specs=(P(), P("x")),
                      axis_names={"x"}, check_vma=False)
    return dict(fn=f, args=[normal(rng, (16, 8)), normal(rng, (8, 4))], mesh=m,
                in_specs=[P("x", None), P()], out_specs=(P("y", None), P("x")))


@program("shard_map_partial_y", "shard_map on a 2x4 mesh manual over y only: inside the "
                                "body the rows are split on x (exp, a scale and a psum "
                                "over y)")
def _(rng):
    m = mesh((2, 4), ("x", "y"))

    def body(a):
        a = jax.lax.with_sharding_constraint(a, NamedSharding(m, P("x", None)))
        b = jnp.exp(a) * 2.0
        return lax.psum(b, "y"), b

    f = jax.shard_map(body, mesh=m, in_specs=(P(None, "y"),), out_specs=(P(), P(None, "y")),
                      axis_names={"y"}, check_vma=False)
    return dict(fn=f, args=[normal(rng, (8, 16))], mesh=m, in_specs=[P(None, "y")],
                out_specs=(P("x", None), P("x", "y")))


@program("shard_map_partial_permuted", "shard_map_partial_x on a 2x4 mesh over devices "
                                       "[7,5,3,1,6,4,2,0]: the manual groups and the "
                                       "free-axis split follow the mesh's device order")
def _(rng):
    m = mesh((2, 4), ("x", "y"), devices=[7, 5, 3, 1, 6, 4, 2, 0])

    def body(a, w):
        a = jax.lax.with_sharding_constraint(a, NamedSharding(m, P("y", None)))
        h = jnp.tanh(a @ w)
        h = jax.lax.with_sharding_constraint(h, NamedSharding(m, P("y", None)))
        return lax.psum(h, "x"), jnp.sum(h, axis=0)

    f = jax.shard_map(body, mesh=m, in_specs=(P("x", None), P()), out_specs=(P(), P("x")),
                      axis_names={"x"}, check_vma=False)
    return dict(fn=f, args=[normal(rng, (16, 8)), normal(rng, (8, 4))], mesh=m,
                in_specs=[P("x", None), P()], out_specs=(P("y", None), P("x")))


# Loops, conditionals, data movement along split dimensions, bf16 collectives.


@program("scan_dp", "scan with a batch-sharded carry")
def _(rng):
    m = mesh((8,), ("d",))
    def f(w, xs, h0):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum(axis=1)
        h, ys = lax.scan(step, h0, xs)
        return h, ys
    return dict(fn=f, args=[normal(rng,(16,16),0.3), normal(rng,(5,32,16)), normal(rng,(32,16))], mesh=m,
                in_specs=[P(), P(None,"d"), P("d")], out_specs=None)


@program("fori_sharded", "fori_loop over a row-sharded array")
def _(rng):
    m = mesh((4,2), ("x","y"))
    def f(a):
        return lax.fori_loop(0, 3, lambda i, a: jnp.sin(a) * 1.5 + i, a)
    return dict(fn=f, args=[normal(rng,(16,8))], mesh=m, in_specs=[P("x","y")], out_specs=None)


@program("cond_sharded", "lax.cond on sharded operands")
def _(rng):
    m = mesh((8,), ("d",))
    def f(p, a):
        return lax.cond(p.sum() > 0, lambda a: a * 2.0, lambda a: a - 1.0, a)
    return dict(fn=f, args=[normal(rng,(4,)), normal(rng,(16,4))], mesh=m, in_specs=[P(), P("d")], out_specs=None)


@program("while_converge", "while_loop with a condition on sharded data")
def _(rng):
    m = mesh((8,), ("d",))
    def f(x):
        return lax.while_loop(lambda x: jnp.max(jnp.abs(x)) > 0.1, lambda x: x * 0.5, x)
    return dict(fn=f, args=[normal(rng,(64,))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("train_scan_dp", "data-parallel mlp trained 3 steps in a scan")
def _(rng):
    m = mesh((8,), ("d",))
    def f(w, x, y):
        def step(w, _):
            g_ = jax.grad(lambda w: jnp.mean((jnp.tanh(x@w)-y)**2))(w)
            return w - 0.1*g_, None
        w, _ = lax.scan(step, w, None, length=3)
        return w
    return dict(fn=f, args=[normal(rng,(8,4),0.3), normal(rng,(32,8)), normal(rng,(32,4))], mesh=m,
                in_specs=[P(), P("d"), P("d")], out_specs=None)


@program("grad_scan", "gradient through a scan with a sharded carry")
def _(rng):
    m = mesh((8,), ("d",))
    def f(w, xs):
        def loss(w):
            def step(h, x):
                h = jnp.tanh(h * w + x)
                return h, None
            h, _ = lax.scan(step, jnp.zeros_like(xs[0]), xs)
            return (h**2).sum()
        return jax.grad(loss)(w)
    return dict(fn=f, args=[normal(rng,(32,)), normal(rng,(4,32))], mesh=m, in_specs=[P("d"), P(None,"d")], out_specs=None)


@program("scan_layers_megatron", "scan over stacked layers, weights split on the model axis")
def _(rng):
    m = mesh((2,4), ("data","model"))
    def f(x, w1, w2):
        def layer(h, w):
            a, b = w
            return h + jnp.tanh(h @ a) @ b, None
        h, _ = lax.scan(layer, x, (w1, w2))
        return h
    return dict(fn=f, args=[normal(rng,(8,16)), normal(rng,(3,16,32),0.2), normal(rng,(3,32,16),0.2)], mesh=m,
                in_specs=[P("data"), P(None,None,"model"), P(None,"model",None)], out_specs=None)


@program("threefry_sharded", "jax's partitionable threefry bits added to a split array: the "
                            "counter iota and the hash's while loop follow the split backward")
def _(rng):
    from jax._src.random import threefry2x32
    m = mesh((8,), ("d",))
    def f(x):
        bits = threefry2x32.threefry_random_bits(jnp.array([0, 0], dtype="uint32"), 32, x.shape)
        return bits + x
    return dict(fn=f, args=[rng.integers(0, 1000, (64,), dtype=np.uint32)], mesh=m, in_specs=[P("d")],
                out_specs=None)


@program("concat_sharded", "concatenate of sharded arrays along the sharded dim")
def _(rng):
    m = mesh((4,), ("d",))
    return dict(fn=lambda a,b: jnp.concatenate([a,b],0)*2, args=[normal(rng,(8,4)), normal(rng,(16,4))], mesh=m,
                in_specs=[P("d"),P("d")], out_specs=None)


@program("roll_sharded", "jnp.roll on the sharded dim")
def _(rng):
    m = mesh((4,), ("d",))
    return dict(fn=lambda x: jnp.roll(x, 3, axis=0), args=[normal(rng,(16,4))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("cumsum_sharded", "cumsum along the sharded axis")
def _(rng):
    m = mesh((4,), ("d",))
    return dict(fn=lambda x: jnp.cumsum(x, axis=0), args=[normal(rng,(16,4))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("slice_shift", "x[1:] - x[:-1] on the sharded dim")
def _(rng):
    m = mesh((4,), ("d",))
    return dict(fn=lambda x: x[1:] - x[:-1], args=[normal(rng,(16,4))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("reshape_merge", "reshape merging two sharded dims")
def _(rng):
    m = mesh((2,4), ("x","y"))
    return dict(fn=lambda x: (x*2).reshape(64, 4), args=[normal(rng,(8,8,4))], mesh=m, in_specs=[P("x","y")], out_specs=None)


@program("conv_spatial", "conv with H sharded (halo)")
def _(rng):
    m = mesh((4,), ("d",))
    def f(x, k):
        return lax.conv_general_dilated(x, k, (1,1), "SAME", dimension_numbers=("NHWC","HWIO","NHWC"))
    return dict(fn=f, args=[normal(rng,(2,16,8,3)), normal(rng,(3,3,3,4))], mesh=m, in_specs=[P(None,"d"), P()], out_specs=None)


@program("topk_rows", "top_k along unsharded dim, rows sharded")
def _(rng):
    m = mesh((4,), ("d",))
    return dict(fn=lambda x: lax.top_k(x, 3), args=[normal(rng,(16,10))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("bf16_dot", "bf16 contracting-sharded dot")
def _(rng):
    m = mesh((8,), ("d",))
    return dict(fn=lambda a,b: (a.astype(jnp.bfloat16)@b.astype(jnp.bfloat16)).astype(jnp.float32),
                args=[normal(rng,(8,32)), normal(rng,(32,8))], mesh=m, in_specs=[P(None,"d"),P("d",None)], out_specs=None,
                one_device_rtol=1e-2)


@program("bf16_mlp_grad", "bf16 mixed precision data+model parallel grad")
def _(rng):
    m = mesh((2,4), ("data","model"))
    def f(w1, w2, x):
        def loss(ws):
            a, b = ws
            h = jax.nn.relu(x.astype(jnp.bfloat16) @ a.astype(jnp.bfloat16))
            return (h @ b.astype(jnp.bfloat16)).astype(jnp.float32).sum()
        return jax.grad(loss)((w1, w2))
    return dict(fn=f, args=[normal(rng,(16,32),0.3), normal(rng,(32,8),0.3), normal(rng,(8,16))], mesh=m,
                in_specs=[P(None,"model"), P("model",None), P("data")], out_specs=None,
                one_device_rtol=1e-2)


@program("dyn_slice", "dynamic_slice of a sharded operand")
def _(rng):
    m = mesh((4,), ("d",))
    def f(x, i):
        return lax.dynamic_slice(x, (i, 0), (4, 4))
    return dict(fn=f, args=[normal(rng,(16,4)), np.int32(5)], mesh=m, in_specs=[P("d"), P()], out_specs=None)


@program("argmax_sharded", "argmax over the sharded dim")
def _(rng):
    m = mesh((8,), ("d",))
    return dict(fn=lambda a: jnp.argmax(a, axis=0), args=[normal(rng,(32,6))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("attn_heads", "attention with heads sharded")
def _(rng):
    m = mesh((2,4), ("b","h"))
    def f(q,k,v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 4.0
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)
    a = lambda: normal(rng,(2,4,8,16))
    return dict(fn=f, args=[a(),a(),a()], mesh=m, in_specs=[P("b","h")]*3, out_specs=None)


@program("softmax_sharded", "softmax over a sharded axis")
def _(rng):
    m = mesh((4,2), ("x","y"))
    return dict(fn=lambda x: jax.nn.softmax(x, axis=-1), args=[normal(rng,(8,32))], mesh=m,
                in_specs=[P("x","y")], out_specs=None)


@program("shard_map_in_scan", "full shard_map inside a scan body")
def _(rng):
    m = mesh((4,), ("d",))
    body = jax.shard_map(lambda a: lax.psum(a, "d") * 0.25 + a, mesh=m, in_specs=P("d"), out_specs=P("d"))
    def f(x):
        def step(c, _):
            return body(c), None
        c, _ = lax.scan(step, x, None, length=3)
        return c
    return dict(fn=f, args=[normal(rng,(8,4))], mesh=m, in_specs=[P("d")], out_specs=None)


@program("mlp_train_loop", "2-layer MLP trained 3 steps in fori_loop, data x model")
def _(rng):
    m = mesh((2,4), ("data","model"))
    def f(w1, w2, x, y):
        def step(i, ws):
            w1, w2 = ws
            def loss(ws):
                a, b = ws
                return jnp.mean((jnp.tanh(x @ a) @ b - y) ** 2)
            g1, g2 = jax.grad(loss)((w1, w2))
            return (w1 - 0.1 * g1, w2 - 0.1 * g2)
        return lax.fori_loop(0, 3, step, (w1, w2))
    return dict(fn=f, args=[normal(rng,(8,16),0.3), normal(rng,(16,4),0.3), normal(rng,(16,8)), normal(rng,(16,4))], mesh=m,
                in_specs=[P(None,"model"), P("model",None), P("data"), P("data")], out_specs=None)


@program("switch_sharded", "lax.switch with 3 branches")
def _(rng):
    m = mesh((4,), ("d",))
    def f(i, a):
        return lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * 2], a)
    return dict(fn=f, args=[np.int32(1), normal(rng,(8,4))], mesh=m, in_specs=[P(), P("d")], out_specs=None)


@program("nested_scan", "scan in scan with a split carry")
def _(rng):
    m = mesh((4,), ("d",))
    def f(x):
        def outer(c, _):
            def inner(d, _):
                return jnp.sin(d) + 0.1, None
            c, _ = lax.scan(inner, c, None, length=2)
            return c * 0.9, None
        c, _ = lax.scan(outer, x, None, length=3)
        return c
    return dict(fn=f, args=[normal(rng,(16,4))], mesh=m, in_specs=[P("d")], out_specs=None)


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------

XLA_DTYPES = {"bool": "pred", "int8": "s8", "int32": "s32", "int64": "s64", "uint32": "u32",
              "float16": "f16", "float32": "f32", "float64": "f64"}


def npz_bytes(named):
    """numpy.savez's layout with fixed zip timestamps; `named` is a list of (name, array)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, a in named:
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            with zf.open(info, "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.ascontiguousarray(a).reshape(np.shape(a)), allow_pickle=False)
    return buf.getvalue()


def hlo_text(module, default_options):
    opts = (hlo_lib.HloPrintOptions() if default_options
            else hlo_lib.HloPrintOptions.short_parsable())
    if not default_options:
        opts.print_metadata = False
    opts.print_large_constants = True
    return module.to_string(opts)


def index_of(sharding, shape, device):
    idx = sharding.devices_indices_map(tuple(shape))[device]
    out = []
    for s, n in zip(idx, shape):
        start, stop, _ = s.indices(n)
        out.append([start, stop])
    return out


def new_dumps(before, suffix):
    found = sorted(set(glob.glob(os.path.join(DUMP, "*"))) - before)
    hits = [f for f in found if f.endswith(suffix)]
    assert len(hits) == 1, (suffix, found)
    with open(hits[0]) as fh:
        return fh.read()


def lower(spec, made, shardy):
    jax.config.update("jax_use_shardy_partitioner", shardy)
    m = made["mesh"]
    fn = made["fn"]
    named = lambda s: NamedSharding(m, s)  # noqa: E731
    specs = made["in_specs"]
    out = made["out_specs"]
    args = made["args"]
    if all(s is not None for s in specs):
        kwargs = dict(in_shardings=tuple(named(s) for s in specs), keep_unused=True)
    else:
        # An in_spec of None leaves that input's sharding to XLA's propagation: the input
        # goes in as an uncommitted numpy array, the others committed to their shardings.
        kwargs = dict(keep_unused=True)
        args = [a if s is None else jax.device_put(a, named(s)) for a, s in zip(args, specs)]
    if out is not None:
        kwargs["out_shardings"] = jax.tree_util.tree_map(named, out,
                                                         is_leaf=lambda x: isinstance(x, P))
    # The module's name is jit_<program name>, so dumps can be told apart.
    def wrapped(*a):
        return fn(*a)

    wrapped.__name__ = spec["name"]
    return jax.jit(wrapped, **kwargs).lower(*args)


def generate(name):
    spec = PROGRAMS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    made = spec["make"](rng)
    args = [np.asarray(a) for a in made["args"]]
    made["args"] = args
    files = {}

    # GSPMD mode: the sharding-propagation dump and the GSPMD-only texts.
    before = set(glob.glob(os.path.join(DUMP, "*")))
    lowered = lower(spec, made, shardy=False)
    files["model.gspmd.hlo"] = hlo_text(lowered._lowering.hlo().as_hlo_module(), False)
    files["model.gspmd.mlir"] = lowered.as_text()
    lowered.compile()
    files["xla.after_sharding-propagation.hlo"] = new_dumps(
        before, ".after_sharding-propagation.before_spmd-partitioning.txt")

    # Shardy mode (jax's default): what the fixtures' outputs come from.
    before = set(glob.glob(os.path.join(DUMP, "*")))
    lowered = lower(spec, made, shardy=True)
    files["model.hlo"] = hlo_text(lowered._lowering.hlo().as_hlo_module(), False)
    files["model.mlir"] = lowered.as_text()
    compiled = lowered.compile()
    files["xla.after_shardy-xla.hlo"] = new_dumps(before, ".after_shardy-xla.before_spmd-partitioning.txt")
    part = [f for f in sorted(set(glob.glob(os.path.join(DUMP, "*"))) - before)
            if ".after_spmd-partitioning." in f]
    assert len(part) == 1, part
    with open(part[0]) as fh:
        files["xla.after_spmd-partitioning.hlo"] = fh.read()
    modules = compiled._executable.xla_extension_executable().hlo_modules()
    assert len(modules) == 1
    files["xla_opt.hlo"] = hlo_text(modules[0], True)
    devices = list(compiled._executable.xla_extension_executable().local_devices())
    assignment = [d.id for d in devices]

    in_shardings = jax.tree_util.tree_leaves(compiled.input_shardings[0])
    placed = [jax.device_put(a, s) for a, s in zip(args, in_shardings)]
    outputs = jax.tree_util.tree_leaves(compiled(*placed))
    out_shardings = jax.tree_util.tree_leaves(compiled.output_shardings)
    assert len(out_shardings) == len(outputs)

    shards = []
    by_device = lambda arr: {s.device.id: np.asarray(s.data) for s in arr.addressable_shards}  # noqa: E731
    inputs_meta, outputs_meta = [], []
    for kind, arrays, shardings, metas in (("in", placed, in_shardings, inputs_meta),
                                           ("out", outputs, out_shardings, outputs_meta)):
        for i, (arr, sh) in enumerate(zip(arrays, shardings)):
            data = by_device(arr)
            for p, d in enumerate(devices):
                shards.append((f"{kind}{i}_p{p}", data[d.id]))
            metas.append(dict(dtype=XLA_DTYPES[np.dtype(arr.dtype).name], shape=list(arr.shape),
                              sharding=str(sh._to_xla_hlo_sharding(arr.ndim)),
                              index=[index_of(sh, arr.shape, d) for d in devices]))

    m = made["mesh"]
    meta = dict(name=name, description=spec["description"], num_partitions=len(devices),
                num_replicas=1,
                mesh=dict(axes=[[n, int(s)] for n, s in m.shape.items()],
                          devices=[int(d.id) for d in m.devices.flat]),
                device_assignment=assignment, inputs=inputs_meta, outputs=outputs_meta)
    if "one_device_rtol" in made:
        # bf16 results: the partitioned sum runs in another order than the one-device
        # dot's, and rounding to bf16 can then differ by an ulp (XLA's own runs alike).
        meta["one_device_rtol"] = made["one_device_rtol"]

    out_dir = os.path.join(HERE, name)
    os.makedirs(out_dir, exist_ok=True)
    blobs = {f: (t if t.endswith("\n") else t + "\n").encode() for f, t in files.items()}
    blobs["inputs.npz"] = npz_bytes([(f"arr_{i}", a) for i, a in enumerate(args)])
    blobs["expected.npz"] = npz_bytes([(f"arr_{i}", np.asarray(o)) for i, o in enumerate(outputs)])
    blobs["shards.npz"] = npz_bytes(shards)
    blobs["meta.json"] = (json.dumps(meta, indent=1) + "\n").encode()
    for fname, data in blobs.items():
        with open(os.path.join(out_dir, fname), "wb") as fh:
            fh.write(data)
    print(f"{name}: {len(devices)} partitions, {len(args)} inputs, {len(outputs)} outputs",
          flush=True)


def main(argv):
    names = argv or sorted(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        sys.exit(f"unknown program(s): {' '.join(unknown)}")
    try:
        for n in names:
            generate(n)
    finally:
        shutil.rmtree(DUMP, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
