"""Shared helpers: run a function through jax.jit on xlac and on JAX's own CPU backend, in
the same process, and compare.

Run with the package installed (`pip install ./python`): JAX then finds xlac through the
`jax_plugins` entry point with no environment variables.
"""

import jax
import numpy as np
import pytest

# Cases that fail on xlac today, by test id (`file.py::test[param]`), each with its reason
# in one line. They run as strict xfails: a fix shows up as an unexpected pass, and the
# entry then goes.
KNOWN_FAILURES = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "jit: the test compiles a program through jax.jit on xlac")


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = KNOWN_FAILURES.get(item.nodeid.rsplit("/", 1)[-1])
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.fixture(scope="session")
def xlac():
    devices = jax.devices("xlac")
    assert len(devices) == 1
    return devices[0]


@pytest.fixture(scope="session")
def cpu():
    return jax.devices("cpu")[0]


def run_on(device, f, *args, **jit_kwargs):
    """`jax.jit(f)(*args)` with the arguments committed to `device`; numpy results."""
    placed = jax.tree.map(lambda a: jax.device_put(a, device), args)
    with jax.default_device(device):
        out = jax.jit(f, **jit_kwargs)(*placed)
    leaves = jax.tree.leaves(out)
    for leaf in leaves:
        assert leaf.devices() == {device}, (leaf.devices(), device)
    return jax.tree.map(np.asarray, out)


def compare(xlac_device, cpu_device, f, *args, rtol=0.0, atol=0.0, **jit_kwargs):
    """Runs `f` on both backends and asserts the results agree: bit-exact when both
    tolerances are 0 (NaNs equal), else within them."""
    got = run_on(xlac_device, f, *args, **jit_kwargs)
    want = run_on(cpu_device, f, *args, **jit_kwargs)
    got_leaves, got_tree = jax.tree.flatten(got)
    want_leaves, want_tree = jax.tree.flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape, (g.shape, w.shape)
        if rtol == 0.0 and atol == 0.0:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(
                g.astype(np.float64) if g.dtype.kind == "V" or str(g.dtype) == "bfloat16" else g,
                w.astype(np.float64) if w.dtype.kind == "V" or str(w.dtype) == "bfloat16" else w,
                rtol=rtol,
                atol=atol,
            )
    return got
