"""Sharded programs over 8 xlac devices against JAX's CPU backend on 8 devices.

The cases live in `sharded_cases.py`, which runs in a child process of its own (the device
counts are fixed when the backends start): `XLAC_PJRT_OPTIONS=devices:8` and
`XLA_FLAGS=--xla_force_host_platform_device_count=8`. This file runs it once and checks
each case: equal results, equal shard shapes per output, and every collective XLA's
compiled text has present in xlac's; the deadlock case, donation in place, bad input.
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
import sharded_cases  # noqa: E402  (the case names only; nothing runs at import)

# Collectives XLA's CPU compiler uses where xlac's partitioner chooses others for the same
# result, per case: (XLA's, why xlac differs).
COLLECTIVE_DIFFERENCES = {
    "mesh_2d": (
        ("all-reduce",),
        "xlac all-gathers the dot's operands where XLA keeps the contraction split and all-reduces",
    ),
}

# Cases whose output shards differ from XLA's, with the reason.
SHARD_DIFFERENCES = {
    "mesh_2d": "xlac's propagation leaves the dot's result split on 'a' only; XLA splits it on both mesh axes",
}

# Cases that fail on xlac today, with the reason (strict: a fix shows up as a pass).
KNOWN_FAILURES: dict[str, str] = {}


@pytest.fixture(scope="module")
def report():
    env = dict(os.environ)
    env["XLAC_PJRT_OPTIONS"] = "devices:8"
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
    env["JAX_PLATFORMS"] = "xlac,cpu"
    done = subprocess.run(
        [sys.executable, str(HERE / "sharded_cases.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_eight_devices_are_listed(report):
    assert len(report["devices"]) == 8


@pytest.mark.parametrize("name", list(sharded_cases.CASES))
def test_case_matches_cpu(report, name):
    if name in KNOWN_FAILURES:
        pytest.xfail(KNOWN_FAILURES[name])
    entry = report["cases"][name]
    got, want = entry["xlac"], entry["cpu"]
    assert "error" not in want, want
    assert "error" not in got, got.get("trace", got)
    assert len(got["results"]) == len(want["results"])
    for g, w in zip(got["results"], want["results"]):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=2e-5, atol=2e-5)
    if name not in SHARD_DIFFERENCES:
        assert got["shards"] == want["shards"]
    missing = set(want["collectives"]) - set(got["collectives"])
    expected_missing = set(COLLECTIVE_DIFFERENCES.get(name, ((), ""))[0])
    assert missing <= expected_missing, (got["collectives"], want["collectives"])


def test_deadlock_is_an_exception_naming_the_collectives(report):
    d = report["deadlock"]
    assert "crashed" not in d, d
    assert d["error"] is not None
    assert "all-reduce" in d["error"] and "collective-permute" in d["error"], d["error"]
    assert "device" in d["error"]
    assert d["seconds"] < 1.0
    assert d["after"] == [2.0, 2.0, 2.0]


def test_donation_consumes_the_sharded_input(report):
    d = report["donation"]
    assert d["deleted"] and d["equal"], d


def test_donation_in_place(report):
    assert report["donation"]["same_memory"]


def test_buffer_donors_are_paired_with_outputs_as_on_cpu(report):
    donors = report["donation"]["donors"]
    xlac, cpu = donors["xlac"], donors["cpu"]
    assert xlac["equal"], donors
    # The donor no output can reuse stays alive on both; the others are consumed.
    assert xlac["deleted"] == cpu["deleted"] == [True, True, False], donors
    # Every output of a donor's shape is computed in a donated buffer, as XLA pairs them.
    assert None not in xlac["reused"] and len(set(xlac["reused"])) == 2, donors


def test_bad_input_is_one_exception(report):
    b = report["bad_inputs"]
    assert "crashed" not in b, b
    for key in ("mesh_too_big", "does_not_divide", "wrong_device"):
        assert b[key] is not None, key
    assert b["after"] == [2.0, 2.0]
