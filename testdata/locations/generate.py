#!/usr/bin/env python3
"""Generates xlac's source-location corpus: jax programs lowered with debug info, as
StableHLO text and as the portable artifact jax.jit's compile hands a plugin, with the HLO
XLA's own translation makes of them (its `before_optimizations` dump) as the golden
metadata.

Run from the repository root with the pinned jax (`pip install jax==0.10.2 jaxlib==0.10.2`):

    python3 testdata/locations/generate.py

Written under testdata/locations/ (locations name this script as
`testdata/locations/generate.py`, relative, so the files do not depend on the checkout):

    NAME.mlirbc   `jax.jit(f).lower(...).as_text(debug_info=True)` serialized by jaxlib's
                  XLA-side serializer (the one jax.jit's compile runs), VHLO 1.17.0
    NAME.mlir     the text jaxlib reads that artifact as, printed with debug info
                  (locations as `#locN` aliases after the module)
    NAME.xla.txt  XLA's HLO before optimizations of the same jit, with op metadata and
                  stack frames

Python gives jax absolute file names; the repository's absolute path is cut from every
location before serializing (and from XLA's FileNames), so they read
`testdata/locations/generate.py`.
"""

import glob
import os
import shutil
import sys
import tempfile

DUMP = tempfile.mkdtemp(prefix="xlac-locations-")
os.environ["XLA_FLAGS"] = f"--xla_dump_to={DUMP} --xla_dump_hlo_as_text"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax._src.lib import _jax  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402

jax.config.update("jax_platforms", "cpu")
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}
for pkg, version in PINNED.items():
    got = __import__(pkg).__version__
    assert got == version, f"{pkg} {got} is not the pinned {version}"

HERE = os.path.join("testdata", "locations")
assert os.path.isdir(HERE), "run from the repository root"
ROOT = os.path.abspath(".") + os.sep


def relative(text):
    return text.replace(ROOT, "")


def to_text(artifact):
    """The StableHLO text jaxlib reads an artifact as, with its locations."""
    ctx = ir.Context()
    stablehlo.register_dialect(ctx)
    module = stablehlo.deserialize_portable_artifact(ctx, artifact)
    text = module.operation.get_asm(enable_debug_info=True)
    return text if text.endswith("\n") else text + "\n"


def helper(x):
    return jnp.sin(x) * 2.0


def nested(x, y):
    z = helper(x) + y
    return jnp.sum(z * z, axis=0)


def multi(x, y):
    a = jnp.broadcast_to(y[0], (3, 4))
    b = x * 3.0
    return jnp.tanh(a + b), jnp.exp(x).sum()


def loops(x):
    i = jnp.argmax(x, axis=0)

    def body(c):
        return c[0] + 1, c[1] * 2.0

    y = jax.lax.while_loop(lambda c: c[0] < 3, body, (0, x))
    return i, y[1], jnp.sort(x, axis=0)


def mlp(x, w):
    h = jax.nn.relu(x @ w)
    return jax.nn.softmax(h, axis=-1)


def cond(x):
    return jax.lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: -v, x)


F32 = np.float32
PROGRAMS = {
    "nested": (nested, [np.ones((3, 4), F32), np.ones((3, 4), F32)]),
    "multi": (multi, [np.ones((3, 4), F32), np.ones((3, 4), F32)]),
    "loops": (loops, [np.ones((3, 4), F32)]),
    "mlp": (mlp, [np.ones((2, 8), F32), np.ones((8, 4), F32)]),
    "cond": (cond, [np.ones((4,), F32)]),
}


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as fh:
        fh.write(data)


def main():
    for name, (fn, args) in PROGRAMS.items():
        lowered = jax.jit(fn).lower(*args)
        artifact = _jax.mlir.serialize_portable_artifact(
            relative(lowered.as_text(debug_info=True)), "1.17.0")
        write(os.path.join(HERE, name + ".mlirbc"), artifact)
        text = to_text(artifact)
        assert ROOT not in text and "loc(" in text
        write(os.path.join(HERE, name + ".mlir"), text)
        before = set(glob.glob(os.path.join(DUMP, "*before_optimizations.txt")))
        lowered.compile()
        (new,) = set(glob.glob(os.path.join(DUMP, "*before_optimizations.txt"))) - before
        with open(new) as fh:
            write(os.path.join(HERE, name + ".xla.txt"), relative(fh.read()))
        print(f"{name}: {len(text)} chars of text", flush=True)
    shutil.rmtree(DUMP)


if __name__ == "__main__":
    sys.exit(main())
