"""Unreduced values over xlac devices against JAX's CPU backend (`unreduced_cases.py`, run
once in a child process): per output, the same sharding spec (`unreduced=` included), the
same values on every device (partial sums where the value is unreduced), and the same
collectives in the compiled program (none where XLA keeps the partial sums).
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import unreduced_cases  # noqa: E402  (the case names only; nothing runs at import)


@pytest.fixture(scope="module")
def report():
    env = dict(os.environ)
    env["XLAC_PJRT_OPTIONS"] = "devices:8"
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
    env["JAX_PLATFORMS"] = "xlac,cpu"
    done = subprocess.run(
        [sys.executable, str(HERE / "unreduced_cases.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(unreduced_cases.CASES))
def test_case_matches_cpu(report, name):
    got, want = report[name]["xlac"], report[name]["cpu"]
    assert "error" not in want, want
    assert "error" not in got, got.get("trace", got)
    assert got["specs"] == want["specs"]
    assert len(got["shards"]) == len(want["shards"])
    for g, w in zip(got["shards"], want["shards"]):
        assert [d for d, _ in g] == [d for d, _ in w]
        for (_, gv), (_, wv) in zip(g, w):
            np.testing.assert_allclose(np.array(gv), np.array(wv), rtol=1e-6, atol=1e-6)
    assert got["collectives"] == want["collectives"]


def test_matmul_unreduced_shards_are_the_partial_products(report):
    # jax's own test_matmul_unreduced reads these.
    shards = report["matmul_unreduced"]["xlac"]["shards"][0]
    assert [v for _, v in shards] == [[[2, 3]], [[26, 31]], [[10, 19]], [[66, 79]]]
