"""Asynchronous execution through the plugin: a one-device call returns before its run
ends, and what follows (dependent calls, reads, deletes, donation, callbacks) sees the
run's results or its error. jax's CPU backend in the same process is the oracle."""

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def _step(x, w):
    return jnp.tanh(x @ w) + 0.5 * x


def _chain(device, steps, x, w, donate=False):
    f = jax.jit(_step, donate_argnums=(0,) if donate else ())
    x = jax.device_put(x, device)
    w = jax.device_put(w, device)
    outs = []
    for _ in range(steps):
        x = f(x, w)
        if not donate:
            outs.append(x)
    return x, outs


def _data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    w = (rng.standard_normal((64, 64)) / 8).astype(np.float32)
    return x, w


def test_a_chain_of_dependent_calls_comes_back_right(xlac, cpu):
    x, w = _data()
    got, got_all = _chain(xlac, 40, x, w)
    want, want_all = _chain(cpu, 40, x, w)
    # Every intermediate is read after the whole chain was dispatched.
    for k, (g, c) in enumerate(zip(got_all, want_all)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(c), rtol=2e-5, atol=2e-5, err_msg=f"step {k}")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)


def test_deleting_intermediates_while_calls_are_in_flight(xlac, cpu):
    x, w = _data()
    f = jax.jit(_step)
    xs = jax.device_put(x, xlac)
    ws = jax.device_put(w, xlac)
    for _ in range(30):
        y = f(xs, ws)
        # The run just queued may still read `xs`: deleting it must not disturb it.
        xs.delete()
        xs = y
    # Many outputs in flight, then dropped unread.
    dropped = [f(xs, ws) for _ in range(16)]
    del dropped
    want, _ = _chain(cpu, 30, x, w)
    np.testing.assert_allclose(np.asarray(xs), np.asarray(want), rtol=2e-5, atol=2e-5)


def test_donation_under_pipelining(xlac, cpu):
    x, w = _data()
    got, _ = _chain(xlac, 30, x, w, donate=True)
    want, _ = _chain(cpu, 30, x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)


def test_a_donated_input_read_by_a_call_in_flight_keeps_its_value(xlac, cpu):
    """`a` is read by `g` (queued), then donated to `f`: `g` sees the value `a` had."""
    x, w = _data()
    g = jax.jit(lambda a, w: (a @ w).sum())
    f = jax.jit(lambda a: a * 3.0 - 1.0, donate_argnums=0)
    results = []
    for device in (xlac, cpu):
        a = jax.device_put(x, device)
        ws = jax.device_put(w, device)
        s = g(a, ws)
        b = f(a)
        results.append((np.asarray(s), np.asarray(b)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-4)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_an_error_in_a_run_surfaces_when_blocking(xlac):
    def fail(x):
        raise ValueError("xlac async test: the callback fails")

    def f(x):
        y = jax.pure_callback(fail, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y + 1

    x, w = _data()
    step = jax.jit(_step)
    xs = jax.device_put(x, xlac)
    ws = jax.device_put(w, xlac)
    # Calls in flight before and after the failing one.
    before = [step(xs, ws) for _ in range(8)]
    with pytest.raises(Exception, match="the callback fails"):
        jax.block_until_ready(jax.jit(f)(jax.device_put(np.ones(4, np.float32), xlac)))
    after = [step(xs, ws) for _ in range(8)]
    want = np.asarray(step(jax.device_put(x, jax.devices("cpu")[0]), jax.device_put(w, jax.devices("cpu")[0])))
    for y in before + after:
        np.testing.assert_allclose(np.asarray(y), want, rtol=2e-5, atol=2e-5)


def test_host_callbacks_in_a_pipeline_see_the_values_in_order(xlac):
    seen = []

    def record(v):
        seen.append(float(v))

    @jax.jit
    def f(x):
        jax.debug.callback(record, x.sum(), ordered=True)
        return x + 1.0

    x = jax.device_put(np.zeros(4, np.float32), xlac)
    for _ in range(10):
        x = f(x)
    jax.effects_barrier()
    np.testing.assert_array_equal(np.asarray(x), np.full(4, 10.0, np.float32))
    assert seen == [4.0 * k for k in range(10)]


def test_synchronous_option_gives_the_same_results(tmp_path):
    """`asynchronous:0` (XLAC_PJRT_OPTIONS) runs every call before Execute returns."""
    script = textwrap.dedent(
        """
        import jax, jax.numpy as jnp, numpy as np
        f = jax.jit(lambda x: jnp.sin(x) * 2.0 + x)
        x = jax.device_put(np.linspace(0, 1, 256, dtype=np.float32), jax.devices("xlac")[0])
        for _ in range(20):
            x = f(x)
        c = jax.device_put(np.linspace(0, 1, 256, dtype=np.float32), jax.devices("cpu")[0])
        for _ in range(20):
            c = f(c)
        np.testing.assert_allclose(np.asarray(x), np.asarray(c), rtol=1e-5)
        print("ok")
        """
    )
    env = dict(os.environ, XLAC_PJRT_OPTIONS="asynchronous:0")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    env = dict(os.environ, XLAC_PJRT_OPTIONS="asynchronous:sometimes")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    assert "asynchronous:sometimes" in out.stderr


def test_two_devices_wait_for_each_others_runs():
    """With `devices:2`: runs queued on device 0 feed copies to device 1, runs there, and a
    program sharded over both; every result matches jax's CPU backend."""
    script = textwrap.dedent(
        """
        import jax, jax.numpy as jnp, numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        d0, d1 = jax.devices("xlac")
        cpu = jax.devices("cpu")[0]
        rng = np.random.default_rng(3)
        x = rng.standard_normal((128, 128)).astype(np.float32)
        w = (rng.standard_normal((128, 128)) / 16).astype(np.float32)
        step = jax.jit(lambda x, w: jnp.tanh(x @ w) + 0.5 * x)

        def run(a, b):
            xs, ws = jax.device_put(x, a), jax.device_put(w, a)
            for _ in range(10):
                xs = step(xs, ws)
            moved = jax.device_put(xs, b)
            wb = jax.device_put(w, b)
            for _ in range(10):
                moved = step(moved, wb)
            return xs, moved

        got0, got1 = run(d0, d1)
        want0, want1 = run(cpu, cpu)
        mesh = Mesh(np.array([d0, d1]), ("x",))
        sharded = jax.device_put(got1, NamedSharding(mesh, P("x")))
        total = jax.jit(lambda a: (a * 2.0).sum(axis=0))(sharded)
        np.testing.assert_allclose(np.asarray(got0), np.asarray(want0), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(got1), np.asarray(want1), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(total), (np.asarray(want1) * 2.0).sum(axis=0), rtol=1e-4, atol=1e-3)
        print("ok")
        """
    )
    env = dict(os.environ, XLAC_PJRT_OPTIONS="devices:2")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"


_WORKER_PROBE = textwrap.dedent(
    """
    import os, sys, jax, jax.numpy as jnp, numpy as np

    def workers():
        names = []
        for t in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{t}/comm") as f:
                names.append(f.read().strip())
        # Thread names are cut to 15 bytes: "xlac-pjrt-device-0" reads "xlac-pjrt-devic".
        return sum(n.startswith("xlac-pjrt-devic") for n in names)

    d = jax.devices("xlac")[0]
    small = jax.device_put(np.ones(4, np.float32), d)
    jax.jit(lambda x: x + 1)(small).block_until_ready()
    after_small = workers()
    big = jax.device_put(np.ones((256, 256), np.float32), d)
    jax.jit(lambda x: jnp.tanh(x @ x))(big).block_until_ready()
    print(after_small, workers())
    """
)


@pytest.mark.parametrize("options, want", [("", "0 1"), ("asynchronous:0", "0 0")])
def test_a_larger_program_runs_on_the_device_worker(options, want):
    """A cheap program runs inside the call (no worker thread); a larger one on the
    device's worker, unless `asynchronous:0`."""
    env = dict(os.environ, XLAC_PJRT_OPTIONS=options)
    out = subprocess.run([sys.executable, "-c", _WORKER_PROBE], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == want
