"""The soak (`python/soak.py`) in small: 2,000 `jax.jit` calls from 8 threads with every kind
of call (compile-cache hits and misses, deletes, donation, host callbacks), then
`jax.clear_caches()`, one more call and a clean process exit. The memory figure of the long
run (100,000 calls, docs/testing.md) is not asserted here: a short run is mostly warm-up.
"""

import json
import os
import pathlib
import subprocess
import sys

SOAK = pathlib.Path(__file__).resolve().parent.parent / "soak.py"


def test_a_short_soak_is_right_and_exits_cleanly():
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "xlac,cpu"  # pure_callback places its inputs on a CPU device
    done = subprocess.run(
        [
            sys.executable,
            # -P: the script's folder, python/, must not shadow the installed plugin (its
            # jax_plugins has no library).
            "-P",
            str(SOAK),
            "--calls", "2000",
            "--miss-every", "50",
            "--callback-every", "100",
            # Growth is the long run's figure; here only a runaway fails.
            "--max-growth", "1.0",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # A crash at exit (after the report) shows as a signal or a non-zero status.
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["errors"] == [], report
    assert report["calls"] == 2000
    # Per thread, 250 calls: a miss at every 50th, a callback at 1, 101 and 201.
    assert report["compiles"] == 8 * 5, report
    assert report["callbacks"] == 8 * 3, report
