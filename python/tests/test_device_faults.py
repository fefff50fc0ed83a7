"""A device that fails in the middle of a sharded call, through the plugin's fleet.

Two xlac devices (`XLAC_PJRT_OPTIONS=devices:2`) run a `shard_map` whose body hands each
shard to a host callback and then sums across devices: the callback raises on device 1 only,
while device 0 waits for it in the all-reduce. The call must raise an exception naming
device 1 (no hang, no crash), and the same jitted function must then run correctly.

Device counts are fixed when the backend starts, so the scenario runs in a child process of
its own (as `test_sharded.py` does) and prints one JSON line.
"""

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import json

    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = jax.devices("xlac")
    mesh = Mesh(np.array(devices[:2]), ("d",))
    armed = [True]

    def host(x):
        # Device 1's shard is [2, 3].
        if armed[0] and x[0] >= 2:
            raise ValueError("the host failed on the second shard")
        return x * 10

    def body(x):
        y = jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return jax.lax.psum(y, "d")

    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("d"), out_specs=P()))
    x = jax.device_put(np.arange(4, dtype=np.float32), NamedSharding(mesh, P("d")))
    report = {"devices": len(devices)}
    try:
        report["first"] = np.asarray(f(x)).tolist()
    except Exception as e:  # noqa: BLE001 - the error is what is checked
        report["error"] = f"{type(e).__name__}: {e}"
    armed[0] = False
    report["after"] = [np.asarray(f(x)).tolist() for _ in range(2)]
    print(json.dumps(report))
    """
)


def test_a_failing_device_raises_naming_it_and_the_next_call_works():
    env = dict(os.environ)
    env["XLAC_PJRT_OPTIONS"] = "devices:2"
    env["JAX_PLATFORMS"] = "xlac,cpu"  # pure_callback places its inputs on a CPU device
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["devices"] == 2
    assert "first" not in report, report
    error = report["error"]
    assert "device 1" in error, error
    assert "the host failed on the second shard" in error, error
    # 10 * ([0, 1] + [2, 3]), on every call after the failure.
    assert report["after"] == [[20.0, 40.0], [20.0, 40.0]], report
