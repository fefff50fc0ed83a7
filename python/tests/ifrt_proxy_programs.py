"""Stock jax programs on an `xlac serve --protocol ifrt-proxy` server, each compared with
jax's own CPU backend in the same process. Run by test_ifrt_proxy.py in a child process
(`python ifrt_proxy_programs.py grpc://127.0.0.1:PORT [--kill PID]`): the proxy backend
must be registered before jax starts any backend, which the pytest process has already
done for the plugin's tests. Prints one JSON line per program:
{"name", "ok", "detail"}."""

import json
import os
import sys
import traceback

os.environ.setdefault("IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS", "true")
os.environ["JAX_PLATFORMS"] = "proxy,cpu"

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax.extend.backend import ifrt_proxy  # noqa: E402

ADDRESS = sys.argv[1]
TOKEN = os.environ.get("XLAC_PROXY_TOKEN")


def proxy_factory():
    options = ifrt_proxy.ClientConnectionOptions()
    options.connection_timeout_in_seconds = 30
    if TOKEN:
        options.initialization_data = {"xlac_token": TOKEN}
    return ifrt_proxy.get_client(ADDRESS, options)


xla_bridge.register_backend_factory("proxy", proxy_factory, priority=-1, fail_quietly=False)


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


def rng(seed):
    return np.random.default_rng(seed)


def mlp_args():
    r = rng(0)
    params = [(r.standard_normal((16, 32), np.float32), r.standard_normal(32, np.float32)),
              (r.standard_normal((32, 8), np.float32), r.standard_normal(8, np.float32))]
    return params, r.standard_normal((4, 16), np.float32)


def loss(params, x):
    return jnp.sum(mlp(params, x) ** 2)


def scan_fn(xs):
    def step(c, x):
        c = c * 0.9 + x
        return c, c * 2
    return lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)


def while_fn(n):
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 3 + c[0]),
                          (jnp.int32(0), jnp.int32(1)))


def conv(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


PROGRAMS = {
    "mlp": (mlp, mlp_args),
    "grad": (jax.grad(loss), mlp_args),
    "scan": (scan_fn, lambda: (rng(1).standard_normal((10, 3), np.float32),)),
    "while": (while_fn, lambda: (np.int32(7),)),
    "sort": (lambda x: (jnp.sort(x), jnp.argsort(x)),
             lambda: (rng(2).standard_normal(33).astype(np.float32),)),
    "integers": (lambda a, b: (a * b + (a >> 2), a // jnp.maximum(b, 1), a % 7, a ^ b),
                 lambda: (rng(3).integers(-1000, 1000, (5, 6), dtype=np.int32),
                          rng(4).integers(-50, 50, (5, 6), dtype=np.int32))),
    "bf16": (lambda a, b: (a.astype(jnp.bfloat16) * b.astype(jnp.bfloat16)).astype(jnp.float32),
             lambda: (rng(5).standard_normal((8, 8), np.float32),
                      rng(6).standard_normal((8, 8), np.float32))),
    "conv": (conv, lambda: (rng(7).standard_normal((2, 9, 9, 3), np.float32),
                            rng(8).standard_normal((3, 3, 3, 4), np.float32))),
    "bool_and_u8": (lambda m, u: (jnp.where(m, u, u + 1), jnp.any(m)),
                    lambda: (rng(9).integers(0, 2, (7,)).astype(bool),
                             rng(10).integers(0, 255, (7,), dtype=np.uint8))),
    "f64": (lambda x: jnp.cumsum(x), lambda: (rng(11).standard_normal(12),)),
}


def run(name, proxy, cpu):
    fn, make_args = PROGRAMS[name]
    args = make_args()
    got = jax.jit(fn, device=proxy)(*jax.device_put(args, proxy))
    want = jax.jit(fn, device=cpu)(*jax.device_put(args, cpu))
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves), (len(got_leaves), len(want_leaves))
    for g, w in zip(got_leaves, want_leaves):
        assert g.devices() == {proxy}, g.devices()
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        if np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


def sharded_step(proxies, cpu):
    """A data-parallel training step over every proxy device, against the CPU backend."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(proxies), ("x",))
    params, _ = mlp_args()
    x = rng(12).standard_normal((8 * len(proxies), 16), np.float32)

    def step(params, x):
        g = jax.grad(loss)(params, x)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g)

    rep = NamedSharding(mesh, P())
    got = jax.jit(step)(jax.device_put(params, rep),
                        jax.device_put(x, NamedSharding(mesh, P("x"))))
    want = jax.jit(step, device=cpu)(params, x)
    # The step ran on every proxy device: its results live on all of them.
    assert all(leaf.sharding.device_set == set(proxies) for leaf in jax.tree.leaves(got))
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)


def kill_rank(proxies, cpu, pid):
    """The sharded step, then rank PID is killed and the step runs again: the second must fail
    with an error that names the dead rank, within the collectives deadline."""
    import signal
    import time
    sharded_step(proxies, cpu)
    os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    try:
        sharded_step(proxies, cpu)
    except Exception as e:  # noqa: BLE001 - the failure is the result
        return {"name": "rank_killed", "ok": True, "seconds": time.monotonic() - started,
                "detail": str(e)[-2000:]}
    return {"name": "rank_killed", "ok": False, "detail": "the step ran with a dead rank"}


def main():
    proxies = jax.devices("proxy")
    cpu = jax.devices("cpu")[0]
    if len(sys.argv) > 3 and sys.argv[2] == "--kill":
        print(json.dumps(kill_rank(proxies, cpu, int(sys.argv[3]))), flush=True)
        return
    print(json.dumps({"name": "devices", "ok": True,
                      "detail": [str(d) for d in proxies] + [proxies[0].platform]}), flush=True)
    names = list(PROGRAMS)
    if len(proxies) > 1:
        names.append("sharded_step")
    for name in names:
        try:
            if name == "sharded_step":
                sharded_step(proxies, cpu)
            else:
                run(name, proxies[0], cpu)
            print(json.dumps({"name": name, "ok": True, "detail": ""}), flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, then the next runs
            detail = "".join(traceback.format_exception_only(e)).strip()[-2000:]
            print(json.dumps({"name": name, "ok": False, "detail": detail}), flush=True)


if __name__ == "__main__":
    main()
