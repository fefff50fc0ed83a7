"""The Python client of the single controller (`jax_plugins.xlac.controller`) against a real
`xlac serve` worker (a job of one: the four-worker job over MPI is tested in Rust,
tests/serve_mpi.rs). The expected values come from numpy."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

from jax_plugins.xlac.controller import Controller, WorkerError

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOKEN = b"the python client's 32-byte key."

PROGRAM = """HloModule axpy

ENTRY main {
  x = f32[8]{0} parameter(0)
  n = s32[2,3]{1,0} parameter(1)
  two = f32[] constant(2)
  b = f32[8]{0} broadcast(two), dimensions={}
  m = f32[8]{0} multiply(x, b)
  one = f32[] constant(1)
  o = f32[8]{0} broadcast(one), dimensions={}
  y = f32[8]{0} add(m, o)
  k = s32[2,3]{1,0} negate(n)
  ROOT t = (f32[8]{0}, s32[2,3]{1,0}) tuple(y, k)
}
"""


def xlac_binary():
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "xlac"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build --release`")
    return path


@pytest.fixture
def worker():
    env = dict(os.environ, XLAC_SERVE_TOKEN=TOKEN.decode())
    p = subprocess.Popen([xlac_binary(), "serve", "--once", "--quiet"], env=env,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("xlac serve: worker 0 of 1"), line
    yield line.split()[-1]
    p.kill()
    p.wait()


def test_compile_put_execute_fetch(worker):
    c = Controller([worker], TOKEN)
    exe = c.compile(PROGRAM)
    assert exe.parameters == [[("f32", (8,)), ("s32", (2, 3))]]
    assert exe.results == [[("f32", (8,)), ("s32", (2, 3))]]
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    n = np.arange(6, dtype=np.int32).reshape(2, 3)
    y, k = c.execute(exe, [c.put([x]), c.put([n])])
    (got_y,) = c.fetch(y)
    (got_k,) = c.fetch(k)
    np.testing.assert_array_equal(got_y, x * np.float32(2) + np.float32(1))
    np.testing.assert_array_equal(got_k, -n)
    c.delete(y)
    with pytest.raises(WorkerError) as e:
        c.fetch(y)
    assert e.value.kind == "not found" and "was deleted" in e.value.message
    c.close()
    assert [l.split()[0] for l in c.log] == [
        "connect", "compile", "make-array", "make-array", "execute", "fetch", "fetch", "delete",
        "bye"]


def test_a_wrong_token_is_refused_and_the_worker_serves_the_next(worker):
    with pytest.raises(WorkerError) as e:
        Controller([worker], b"not the worker's token, 32 bytes")
    assert e.value.kind == "unauthenticated"
    c = Controller([worker], TOKEN)
    with pytest.raises(WorkerError) as e:
        c.compile("HloModule broken\nENTRY {")
    assert e.value.kind == "failed"
    c.close()
