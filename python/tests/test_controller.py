"""The Python client of the single controller (`jax_plugins.xlac.controller`) against a real
`xlac serve` worker (a job of one: the four-worker job over MPI is tested in Rust,
tests/serve_mpi.rs). The expected values come from numpy."""

import os
import pathlib
import socket
import struct
import subprocess

import numpy as np
import pytest

from jax_plugins.xlac.controller import Controller, WorkerError, read_token

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


def serve(*flags):
    env = dict(os.environ, XLAC_SERVE_TOKEN=TOKEN.decode())
    p = subprocess.Popen([xlac_binary(), "serve", "--quiet", *flags], env=env,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("xlac serve: worker 0 of 1"), line
    return p, line.split()[-1]


@pytest.fixture
def worker():
    p, addr = serve("--once")
    yield addr
    p.kill()
    p.wait()


@pytest.fixture
def lasting_worker():
    p, addr = serve()
    yield addr
    p.kill()
    p.wait()


SCALAR = """HloModule scalar

ENTRY main {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
"""

# `p` counts up while `p == p`: a loop that never ends by itself.
ENDLESS = """HloModule spin

cond {
  p = s32[] parameter(0)
  ROOT same = pred[] compare(p, p), direction=EQ
}

body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
"""


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


def test_scalars_keep_their_shape(worker):
    c = Controller([worker], TOKEN)
    exe = c.compile(SCALAR)
    assert exe.parameters == [[("f32", ())]]
    (y,) = c.execute(exe, [c.put([np.float32(3)])])
    (got,) = c.fetch(y)
    assert got.shape == () and got == np.float32(-3)
    c.close()


def test_a_timeout_hangs_up_so_no_stale_reply_is_read_and_the_worker_recovers(lasting_worker):
    c = Controller([lasting_worker], TOKEN, timeout=1)
    exe = c.compile(ENDLESS)
    x = c.put([np.int32(0)])
    with pytest.raises(TimeoutError):
        c.execute(exe, [x])
    # The late reply (if any ever came) is not read as the answer to this fetch.
    with pytest.raises(ConnectionError):
        c.fetch(x)
    assert c.log[-1] == "hang up"
    # The worker saw the hang-up, stopped the loop and serves the next controller.
    for _ in range(60):
        try:
            d = Controller([lasting_worker], TOKEN, timeout=30)
            break
        except WorkerError as e:
            assert e.kind == "busy"
    else:
        pytest.fail("the worker stayed busy with the abandoned loop")
    d.close()


class _FakeWorker:
    """One end of a socket pair that answers each request with a canned reply."""

    def __init__(self, replies):
        self.ours, self.theirs = socket.socketpair()
        self.replies = list(replies)

    def answer(self):
        (n,) = struct.unpack("<Q", self.theirs.recv(8, socket.MSG_WAITALL))
        self.theirs.recv(n, socket.MSG_WAITALL)
        body = self.replies.pop(0)
        self.theirs.sendall(struct.pack("<Q", len(body)) + body)


def _error(message):
    m = message.encode()
    return b"\x00\x05" + struct.pack("<Q", len(m)) + m


def test_every_reply_is_read_before_an_error_is_raised():
    done = b"\x03"
    first = _FakeWorker([_error("worker 0 failed"), done])
    second = _FakeWorker([_error("worker 1 failed too"), done])
    c = object.__new__(Controller)
    c.log, c.next_id, c.workers = [], 1, [first.ours, second.ours]
    # Both fake workers have their replies on the wire before the controller reads.
    import threading
    t = threading.Thread(target=lambda: (first.answer(), second.answer()))
    t.start()
    with pytest.raises(WorkerError) as e:
        c.delete(type("A", (), {"id": 7})())
    t.join()
    assert e.value.worker == 0
    # The next round reads the next replies, not worker 1's leftover error.
    t = threading.Thread(target=lambda: (first.answer(), second.answer()))
    t.start()
    c.delete(type("A", (), {"id": 8})())
    t.join()


def test_the_token_file_is_read_as_the_worker_reads_it(tmp_path):
    for text, token in [(b"0123456789abcdef\n", b"0123456789abcdef"),
                        (b"0123456789abcdef\r\n", b"0123456789abcdef"),
                        (b"0123456789abcdef \n\n", b"0123456789abcdef \n"),
                        (b" 0123456789abcdef", b" 0123456789abcdef")]:
        f = tmp_path / "token"
        f.write_bytes(text)
        assert read_token(f) == token
