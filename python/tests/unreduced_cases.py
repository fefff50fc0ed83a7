"""Unreduced values (jax's `P(unreduced=...)`) on 4 xlac devices against JAX's CPU backend.

Run as a child process with `XLAC_PJRT_OPTIONS=devices:8` and
`XLA_FLAGS=--xla_force_host_platform_device_count=8` (see `test_unreduced.py`). Each case
runs on a 2x2 mesh of explicit axes ("x", "y") on both backends; the report holds, per
output, its sharding's spec, every device's shard values, and the collectives of the
compiled program. One JSON line on stdout.
"""

import json
import re
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")

A = np.arange(8.0, dtype=np.float32).reshape(2, 4)
B = np.arange(8.0, dtype=np.float32).reshape(4, 2)
C = np.arange(4.0, dtype=np.float32).reshape(2, 2)


def matmul_unreduced():
    """A shard_map whose body returns a partial matmul, out_specs unreduced along y."""

    @jax.jit
    @jax.shard_map(in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None, unreduced={"y"}))
    def f(a, b):
        return jnp.einsum("ab,bc->ac", a, b)

    return f, (jax.device_put(A, P("x", "y")), jax.device_put(B, P("y", None)))


def einsum_unreduced():
    """A dot split along its contracting dimension with an unreduced result: no all-reduce."""
    f = jax.jit(lambda a, b: jnp.einsum("ab,bc->ac", a, b, out_sharding=P("x", None, unreduced={"y"})))
    return f, (jax.device_put(A, P("x", "y")), jax.device_put(B, P("y", None)))


def reduce_sum_unreduced():
    """A sum over a dimension split along y with an unreduced result: no all-reduce."""
    f = jax.jit(lambda a: jax.lax.reduce_sum(a, [1], out_sharding=P("x", unreduced={"y"})))
    return f, (jax.device_put(A, P("x", "y")),)


def reshard_to_reduced():
    """An unreduced argument resharded to P('x', None): one all-reduce over the y pairs."""
    f, args = einsum_unreduced()
    partial = f(*args)
    return jax.jit(lambda o: jax.sharding.reshard(o, P("x", None))), (partial,)


def reshard_to_unreduced():
    """A complete value made unreduced: the first device of each pair keeps it, no collective."""
    f = jax.jit(lambda c: jax.sharding.reshard(c, P("x", None, unreduced={"y"})))
    return f, (jax.device_put(C, P("x", None)),)


def add_unreduced():
    """Two values unreduced along the same axis added: the sum stays unreduced."""
    f, args = einsum_unreduced()
    partial = f(*args)
    keep = jax.jit(lambda c: jax.sharding.reshard(c, P("x", None, unreduced={"y"})))
    other = keep(jax.device_put(C, P("x", None)))
    return jax.jit(lambda o, u: o + u), (partial, other)


def unreduced_then_sin():
    """An op with no unreduced rule after a reshard: the partial sums are summed first."""

    def g(o):
        return jnp.sin(jax.sharding.reshard(o, P("x", None)))

    f, args = einsum_unreduced()
    return jax.jit(g), (f(*args),)


CASES = {
    f.__name__: f
    for f in (
        matmul_unreduced,
        einsum_unreduced,
        reduce_sum_unreduced,
        reshard_to_reduced,
        reshard_to_unreduced,
        add_unreduced,
        unreduced_then_sin,
    )
}


def run(platform, name):
    devices = jax.devices(platform)[:4]
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2, devices=devices)
    with jax.set_mesh(mesh):
        f, args = CASES[name]()
        out = f(*args)
        text = f.lower(*args).compile().as_text()
    leaves = jax.tree.leaves(out)
    return {
        "specs": [str(leaf.sharding.spec) for leaf in leaves],
        "shards": [
            sorted((devices.index(s.device), np.asarray(s.data).tolist()) for s in leaf.addressable_shards)
            for leaf in leaves
        ],
        "collectives": sorted(c for c in COLLECTIVES if re.search(rf"\b{c}(-start)?\(", text)),
    }


def main(names):
    report = {}
    for name in names or list(CASES):
        entry = {}
        for platform in ("xlac", "cpu"):
            try:
                entry[platform] = run(platform, name)
            except Exception as e:
                entry[platform] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-2000:]}
        report[name] = entry
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
