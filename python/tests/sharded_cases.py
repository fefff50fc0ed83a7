"""Sharded programs run on 8 xlac devices and on JAX's CPU backend with 8 devices, in one
process, compared: results, each output's shard shapes, and the collectives in
`compiled.as_text()`.

It needs its own process (the device counts are fixed when the backends start), so
`test_sharded.py` runs it as a script with `XLAC_PJRT_OPTIONS=devices:8` and
`XLA_FLAGS=--xla_force_host_platform_device_count=8`, and reads the one JSON object it
prints: per case, what each backend gave.
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

DEVICES = 8
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def mesh_of(platform, shape=(DEVICES,), names=("x",)):
    devices = np.array(jax.devices(platform)[: int(np.prod(shape))]).reshape(shape)
    return Mesh(devices, names)


def data(*shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype)


def shard_map(f, mesh, in_specs, out_specs, check_vma=True):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma)


@case
def elementwise_rows(mesh):
    s = NamedSharding(mesh, P("x"))
    return jax.jit(lambda a: jnp.sin(a) * 2 + 1, in_shardings=s, out_shardings=s), (data(16, 4),)


@case
def matmul_rows_replicated_weights(mesh):
    x = NamedSharding(mesh, P("x", None))
    r = NamedSharding(mesh, P())
    return jax.jit(lambda a, w: a @ w, in_shardings=(x, r), out_shardings=x), (
        data(16, 8),
        data(8, 4, seed=1),
    )


@case
def sum_over_sharded_axis(mesh):
    x = NamedSharding(mesh, P("x"))
    return jax.jit(lambda a: jnp.sum(a, axis=0), in_shardings=x), (data(16, 4),)


@case
def contracting_dim_sharded(mesh):
    a = NamedSharding(mesh, P(None, "x"))
    b = NamedSharding(mesh, P("x", None))
    return jax.jit(lambda p, q: p @ q, in_shardings=(a, b)), (data(4, 16), data(16, 4, seed=2))


@case
def reshard_rows_to_columns(mesh):
    return jax.jit(
        lambda a: a * 3,
        in_shardings=NamedSharding(mesh, P("x", None)),
        out_shardings=NamedSharding(mesh, P(None, "x")),
    ), (data(8, 16),)


@case
def sharding_constraint(mesh):
    def f(a):
        b = jnp.exp(a)
        b = jax.lax.with_sharding_constraint(b, NamedSharding(mesh, P("x")))
        return b + 1

    return jax.jit(f), (data(16, 2),)


@case
def unconstrained_input_takes_users_sharding(mesh):
    # No in_shardings: the parameter's sharding comes from the constraint on its user.
    def f(a):
        return jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P("x")))

    return jax.jit(f), (data(8, 8),)


@case
def mesh_2d(mesh):
    m = Mesh(np.array(mesh.devices).reshape(4, 2), ("a", "b"))
    s = NamedSharding(m, P("a", "b"))
    return jax.jit(lambda a: jnp.tanh(a) @ a.T, in_shardings=s), (data(8, 8),)


def _shard_map_case(body, in_spec=P("x"), out_spec=P("x"), shape=(16, 4), check_vma=True):
    def build(mesh):
        f = jax.jit(shard_map(body, mesh, (in_spec,), out_spec, check_vma))
        return f, (data(*shape),)

    return build


CASES["shard_map_psum"] = _shard_map_case(lambda a: jax.lax.psum(a, "x"), out_spec=P())
CASES["shard_map_pmean"] = _shard_map_case(lambda a: jax.lax.pmean(a, "x"), out_spec=P())
CASES["shard_map_all_gather"] = _shard_map_case(
    lambda a: jax.lax.all_gather(a, "x", tiled=True), out_spec=P(), check_vma=False
)
CASES["shard_map_psum_scatter"] = _shard_map_case(
    lambda a: jax.lax.psum_scatter(a, "x", tiled=True), in_spec=P(), shape=(16, 4)
)
CASES["shard_map_ppermute"] = _shard_map_case(
    lambda a: jax.lax.ppermute(a, "x", [(i, (i + 1) % DEVICES) for i in range(DEVICES)])
)
CASES["shard_map_all_to_all"] = _shard_map_case(
    lambda a: jax.lax.all_to_all(a, "x", 0, 0, tiled=True), in_spec=P("x"), shape=(64, 2)
)
CASES["shard_map_axis_index"] = _shard_map_case(
    lambda a: a + jax.lax.axis_index("x").astype(a.dtype)
)

# A host callback on every device's shard (jax.pure_callback inside shard_map).
CASES["shard_map_pure_callback"] = _shard_map_case(
    lambda a: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(a.shape, a.dtype), a) * 2.0
)


@case
def pmap_psum(mesh):
    devices = list(mesh.devices.flat)
    f = jax.pmap(lambda a: jax.lax.psum(a, "i") * a, axis_name="i", devices=devices)
    return f, (data(DEVICES, 3),)


@case
def roll_rows(mesh):
    """jnp.roll along the split rows: a rotate, moved between neighbours (collective-permute)."""
    s = NamedSharding(mesh, P("x"))
    return jax.jit(lambda a: jnp.roll(a, 3, axis=0), in_shardings=s, out_shardings=s), (data(32, 4),)


@case
def slice_shift_rows(mesh):
    """x[1:] - x[:-1] over split rows: one row from the next partition (collective-permute)."""
    s = NamedSharding(mesh, P("x"))
    return jax.jit(lambda a: a[1:] - a[:-1], in_shardings=s), (data(32, 4),)


@case
def conv_spatial_rows(mesh):
    """A 3x3 SAME convolution with the image rows split: halos from both neighbours."""
    x = NamedSharding(mesh, P(None, "x"))
    r = NamedSharding(mesh, P())

    def f(a, k):
        return jax.lax.conv_general_dilated(a, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return jax.jit(f, in_shardings=(x, r)), (data(2, 32, 8, 3), data(3, 3, 3, 4, seed=1))


@case
def argmax_explicit_axes(mesh):
    """argmax/argmin over a mesh with Explicit axes: jax writes sharding constraints inside
    the reducer's body (on scalars)."""
    m = Mesh(
        np.array(list(mesh.devices.flat)[:4]).reshape(2, 2),
        ("x", "y"),
        axis_types=(AxisType.Explicit,) * 2,
    )
    x = jax.device_put(data(8, 2), NamedSharding(m, P("x", "y")))
    return jax.jit(lambda a: (jnp.argmax(a, axis=0), jnp.argmin(a, axis=1))), (x,)


@case
def shard_map_ordered_io_callback(mesh):
    """An ordered io_callback inside shard_map: the program returns the effect's token beside
    its result, and the token's type reaches the compiler in StableHLO's own bytecode."""

    def body(x, y):
        io_callback(lambda v: None, (), x, ordered=True)
        return x + y[..., jnp.newaxis]

    f = jax.jit(shard_map(body, mesh, (P(None, "x"), P(None)), P(None, "x")))
    return f, (data(2, 16), data(2, seed=1))


def shard_shapes(out):
    return [
        sorted((s.device.id, tuple(s.data.shape)) for s in leaf.addressable_shards)
        for leaf in jax.tree.leaves(out)
    ]


def collectives(text):
    return sorted(c for c in COLLECTIVES if re.search(rf"\b{c}(-start)?\(", text))


def run(platform, name):
    mesh = mesh_of(platform)
    f, args = CASES[name](mesh)
    out = f(*args)
    try:
        text = f.lower(*args).compile().as_text() if hasattr(f, "lower") else ""
    except Exception:  # pmap's lowering needs more than the arguments on some versions
        text = ""
    return {
        "results": [np.asarray(leaf).tolist() for leaf in jax.tree.leaves(out)],
        "shards": shard_shapes(out),
        "collectives": collectives(text),
    }


def deadlock():
    """Devices calling different collectives: device 0 a psum, the others a ppermute."""
    mesh = mesh_of("xlac")

    def body(a):
        i = jax.lax.axis_index("x")
        return jax.lax.cond(
            i == 0,
            lambda v: jax.lax.psum(v, "x"),
            lambda v: jax.lax.ppermute(v, "x", [(j, (j + 1) % DEVICES) for j in range(DEVICES)]),
            a,
        )

    f = jax.jit(shard_map(body, mesh, (P("x"),), P("x"), check_vma=False))
    start = time.monotonic()
    try:
        jax.block_until_ready(f(data(16, 2)))
        error = None
    except Exception as e:  # the exception JAX raises from the plugin's error
        error = f"{type(e).__name__}: {e}"
    seconds = time.monotonic() - start
    # The client stays usable.
    after = np.asarray(jax.jit(lambda a: a + 1)(jax.device_put(np.ones(3), jax.devices("xlac")[0])))
    return {"error": error, "seconds": seconds, "after": after.tolist()}


def donation():
    mesh = mesh_of("xlac")
    s = NamedSharding(mesh, P("x"))
    x = jax.device_put(data(16, 4), s)
    pointers = [sh.data.unsafe_buffer_pointer() for sh in x.addressable_shards]
    want = np.asarray(x) * 2
    y = jax.jit(lambda a: a * 2, donate_argnums=0, in_shardings=s, out_shardings=s)(x)
    got = np.asarray(y)
    return {
        "deleted": x.is_deleted(),
        "equal": bool(np.array_equal(got, want)),
        "same_memory": [sh.data.unsafe_buffer_pointer() for sh in y.addressable_shards]
        == pointers,
        "donors": {p: buffer_donors(p) for p in ("xlac", "cpu")},
    }


def buffer_donors(platform):
    """Donation with no output shardings given: jax marks the arguments `jax.buffer_donor`
    and leaves the pairing to the compiler. `a` and `b` have outputs of their shape; `c`
    (whose only output, `c @ c.T`, has another shape) is not donated and stays alive."""
    mesh = mesh_of(platform)
    s = NamedSharding(mesh, P("x"))
    a = jax.device_put(data(16, 4), s)
    b = jax.device_put(data(16, 4, seed=1), s)
    c = jax.device_put(data(16, 2, seed=2), s)
    pointers = {
        n: [sh.data.unsafe_buffer_pointer() for sh in v.addressable_shards]
        for n, v in (("a", a), ("b", b))
    }
    want = (np.asarray(a) + np.asarray(b), np.asarray(b) * 3)
    out = jax.jit(lambda a, b: (a + b, b * 3), donate_argnums=(0, 1))(a, b)
    outer = jax.jit(lambda c: c @ c.T, donate_argnums=0)(c)
    outer.block_until_ready()
    return {
        "deleted": [a.is_deleted(), b.is_deleted(), c.is_deleted()],
        "equal": all(np.array_equal(np.asarray(o), w) for o, w in zip(out, want)),
        # Which donated argument's memory each output reuses (None: memory of its own).
        "reused": [
            next((n for n, p in pointers.items() if p == [sh.data.unsafe_buffer_pointer() for sh in o.addressable_shards]), None)
            for o in out
        ],
    }


def bad_inputs():
    out = {}
    xlac = jax.devices("xlac")

    def attempt(key, fn):
        try:
            fn()
            out[key] = None
        except Exception as e:
            out[key] = f"{type(e).__name__}: {e}"

    attempt("mesh_too_big", lambda: jax.make_mesh((2 * len(xlac),), ("x",), devices=xlac))
    mesh = mesh_of("xlac")
    attempt(
        "does_not_divide",
        lambda: jax.device_put(np.ones(7, np.float32), NamedSharding(mesh, P("x"))),
    )

    def wrong_device():
        # A compiled executable for devices 0..3, handed an array committed to device 7.
        small = Mesh(np.array(xlac[:4]), ("x",))
        s = NamedSharding(small, P("x"))
        f = jax.jit(lambda a: a + 1, in_shardings=s).lower(np.ones(8, np.float32)).compile()
        f(jax.device_put(np.ones(8, np.float32), xlac[7]))

    attempt("wrong_device", wrong_device)
    # The client still works after each.
    out["after"] = np.asarray(jax.jit(lambda a: a * 2)(jax.device_put(np.ones(2), xlac[3]))).tolist()
    return out


def main(names):
    report = {"devices": [str(d) for d in jax.devices("xlac")], "cases": {}}
    for name in names or list(CASES):
        entry = {}
        for platform in ("xlac", "cpu"):
            try:
                entry[platform] = run(platform, name)
            except Exception as e:
                entry[platform] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-2000:]}
        report["cases"][name] = entry
    for name, fn in (("deadlock", deadlock), ("donation", donation), ("bad_inputs", bad_inputs)):
        try:
            report[name] = fn()
        except Exception as e:
            report[name] = {"crashed": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-2000:]}
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
