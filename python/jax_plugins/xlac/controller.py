"""A small Python client of `xlac serve` workers: a single controller.

The controller (this process) holds the program text and the arrays' metadata; the workers
hold the shards and run their device's program when told to. It speaks the protocol of
xlac's `src/distributed/protocol.rs` (little-endian; every message a length-prefixed frame),
one request per call::

    from jax_plugins.xlac.controller import Controller
    c = Controller(["127.0.0.1:7000"], token=open("token", "rb").read().strip())
    exe = c.compile(open("model.hlo").read())          # every worker compiles its device
    x = c.put([np.ones((4,), np.float32)])               # one shard per worker
    (y,) = c.execute(exe, [x])
    print(c.fetch(y))                                    # the shards, per worker
    c.close()

Arrays are per-worker shards here: cut and assemble them with numpy (the Rust controller,
`xlac::distributed::Controller`, does shardings for you).
"""

import socket
import struct

import numpy as np

PROTOCOL_VERSION = 1

# HLO element type names and their numpy types.
DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128,
}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}
ERROR_KINDS = {1: "unauthenticated", 2: "busy", 3: "bad message", 4: "not found", 5: "failed"}


class WorkerError(RuntimeError):
    """A worker refused a request: `kind` is one of ERROR_KINDS' values."""

    def __init__(self, worker, kind, message):
        super().__init__(f"worker {worker} refused ({kind}): {message}")
        self.worker, self.kind, self.message = worker, kind, message


# ---- encoding ---------------------------------------------------------------------------

def _u32(v):
    return struct.pack("<I", v)


def _u64(v):
    return struct.pack("<Q", v)


def _bytes(b):
    return _u64(len(b)) + b


def _str(s):
    return _bytes(s.encode())


def _ids(ids):
    return _u64(len(ids)) + b"".join(_u64(i) for i in ids)


def _array(a):
    a = np.ascontiguousarray(a)
    if a.dtype not in NAMES:
        raise TypeError(f"no xlac element type for {a.dtype}")
    dims = _u64(a.ndim) + b"".join(struct.pack("<q", d) for d in a.shape)
    return _str(NAMES[a.dtype]) + dims + _bytes(a.tobytes())


def hello(token):
    return b"\x01" + _u32(PROTOCOL_VERSION) + _bytes(token)


def compile_request(executable, program):
    return b"\x02" + _u64(executable) + _str(program)


def make_array(array, data):
    return b"\x03" + _u64(array) + _array(data)


def execute(executable, arguments, results):
    return b"\x04" + _u64(executable) + _ids(arguments) + _ids(results)


def fetch(array):
    return b"\x05" + _u64(array)


def delete(array):
    return b"\x06" + _u64(array)


def bye():
    return b"\x08"


# ---- decoding ---------------------------------------------------------------------------

class _Reader:
    def __init__(self, b):
        self.b, self.at = b, 0

    def take(self, n):
        if len(self.b) - self.at < n:
            raise ValueError(f"a reply cut short at byte {self.at}")
        s = self.b[self.at:self.at + n]
        self.at += n
        return s

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def bytes(self):
        return self.take(self.u64())

    def str(self):
        return self.bytes().decode()

    def dims(self):
        return tuple(struct.unpack("<q", self.take(8))[0] for _ in range(self.u64()))

    def shard_types(self):
        return [(self.str(), self.dims()) for _ in range(self.u64())]

    def array(self):
        dtype, dims = self.str(), self.dims()
        return np.frombuffer(self.bytes(), dtype=DTYPES[dtype]).reshape(dims).copy()


def decode_response(b):
    r = _Reader(b)
    tag = r.u8()
    if tag == 0:
        kind = ERROR_KINDS.get(r.u8(), "unknown")
        return ("error", kind, r.str())
    if tag == 1:
        return ("welcome", r.u32(), r.u32())
    if tag == 2:
        return ("compiled", r.u32(), r.shard_types(), r.shard_types())
    if tag == 3:
        return ("done",)
    if tag == 4:
        return ("executed", r.shard_types())
    if tag == 5:
        return ("array", r.array())
    raise ValueError(f"a reply tag {tag}")


# ---- the client -------------------------------------------------------------------------

class Executable:
    """A program compiled on every worker: per worker, its parameter and result shard types."""

    def __init__(self, id, parameters, results):
        self.id, self.parameters, self.results = id, parameters, results


class Array:
    """An array's id; its shards are on the workers."""

    def __init__(self, id):
        self.id = id


class Controller:
    """Connected to every worker of a job (`addrs` as "host:port", in any order)."""

    def __init__(self, addrs, token, timeout=120):
        self.log = []
        self.next_id = 1
        conns = {}
        workers = None
        for a in addrs:
            host, port = a.rsplit(":", 1)
            s = socket.create_connection((host, int(port)), timeout=timeout)
            self._send(s, hello(token))
            reply = self._receive(s, a)
            if reply[0] != "welcome":
                raise WorkerError(a, reply[1], reply[2]) if reply[0] == "error" else ValueError(reply)
            conns[reply[1]] = s
            workers = reply[2]
        if workers != len(addrs) or sorted(conns) != list(range(workers)):
            raise ValueError(f"the job has {workers} workers; {len(addrs)} addresses were given")
        self.workers = [conns[w] for w in range(workers)]
        self.log.append(f"connect {workers} workers")

    @staticmethod
    def _send(s, body):
        s.sendall(_u64(len(body)) + body)

    @staticmethod
    def _receive(s, who):
        def exactly(n):
            out = b""
            while len(out) < n:
                chunk = s.recv(n - len(out))
                if not chunk:
                    raise ConnectionError(f"worker {who}: the connection closed")
                out += chunk
            return out

        (n,) = struct.unpack("<Q", exactly(8))
        return decode_response(exactly(n))

    def _round(self, requests):
        """Sends every (worker, body) before reading any reply: the workers run at once."""
        for w, body in requests:
            self._send(self.workers[w], body)
        replies = []
        for w, _ in requests:
            r = self._receive(self.workers[w], w)
            if r[0] == "error":
                raise WorkerError(w, r[1], r[2])
            replies.append(r)
        return replies

    def _id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def compile(self, program):
        """Compiles HLO text on every worker."""
        e = self._id()
        replies = self._round([(w, compile_request(e, program)) for w in range(len(self.workers))])
        self.log.append(f"compile e{e} on {len(self.workers)} workers")
        return Executable(e, [r[2] for r in replies], [r[3] for r in replies])

    def put(self, shards):
        """One numpy array per worker, in worker order, as one array's shards."""
        if len(shards) != len(self.workers):
            raise ValueError(f"{len(shards)} shards for {len(self.workers)} workers")
        a = self._id()
        self._round([(w, make_array(a, x)) for w, x in enumerate(shards)])
        self.log.append(f"make-array a{a}: {len(shards)} shards")
        return Array(a)

    def execute(self, exe, args):
        """Runs `exe` on `args`; returns one Array per result."""
        results = [self._id() for _ in exe.results[0]]
        body = execute(exe.id, [a.id for a in args], results)
        self._round([(w, body) for w in range(len(self.workers))])
        self.log.append(f"execute e{exe.id} -> {len(results)} arrays")
        return [Array(r) for r in results]

    def fetch(self, a):
        """The shards of `a`, one numpy array per worker."""
        replies = self._round([(w, fetch(a.id)) for w in range(len(self.workers))])
        self.log.append(f"fetch a{a.id}")
        return [r[1] for r in replies]

    def delete(self, a):
        self._round([(w, delete(a.id)) for w in range(len(self.workers))])
        self.log.append(f"delete a{a.id}")

    def close(self):
        self._round([(w, bye()) for w in range(len(self.workers))])
        for s in self.workers:
            s.close()
        self.log.append("bye")
