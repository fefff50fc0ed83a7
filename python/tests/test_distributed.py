"""Multi-controller JAX on xlac: `jax.distributed.initialize` in several processes.

Four processes of two devices each call `jax.distributed.initialize` on a local
coordinator, once with xlac as their backend and once with jax's own CPU backend, and each
prints what it sees: `jax.process_index()`, `jax.process_count()`, `jax.devices()` and
`jax.local_devices()` (ids and owners). Both backends must report the same job. Each
process also runs a program on its own devices; a program over the whole job gets one
clear error on xlac (no hang, no crash) until cross-process collectives land.
"""

import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest

PROCESSES = 4
DEVICES = 2

WORKER = textwrap.dedent(
    """
    import json, sys
    import jax
    import numpy as np

    backend, port, n, pid, ndev = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:6])
    if backend == "cpu":
        jax.config.update("jax_num_cpu_devices", ndev)
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=n, process_id=pid)
    report = {
        "process_index": jax.process_index(),
        "process_count": jax.process_count(),
        "devices": [(d.id, d.process_index) for d in jax.devices()],
        "local_devices": [(d.id, d.process_index) for d in jax.local_devices()],
        "xlac": repr(jax.devices()[0]).startswith("XlacDevice"),
    }
    y = jax.jit(lambda a: a * 2 + 1, device=jax.local_devices()[-1])(np.arange(4.0))
    report["local_program"] = np.asarray(y).tolist()
    if backend == "xlac":
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        mesh = Mesh(np.array(jax.devices()), ("d",))
        try:
            jax.jit(lambda: jax.numpy.zeros(8), out_shardings=NamedSharding(mesh, P("d")))()
            report["job_program"] = "ran"
        except Exception as e:
            report["job_program"] = f"{type(e).__name__}: {e}"
    print("REPORT " + json.dumps(report), flush=True)
    jax.distributed.shutdown()
    """
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_job(backend):
    """Starts the processes, waits for all, returns their reports in process order."""
    env = dict(os.environ)
    if backend == "xlac":
        env["JAX_PLATFORMS"] = "xlac"
        env["XLAC_PJRT_OPTIONS"] = f"devices:{DEVICES}"
    else:
        env["JAX_PLATFORMS"] = "cpu"
    port = free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, backend, str(port), str(PROCESSES), str(i),
             str(DEVICES)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(PROCESSES)
    ]
    reports = []
    for i, p in enumerate(procs):
        try:
            out, err = p.communicate(timeout=240)
        finally:
            for q in procs:
                if q.poll() is None and p.returncode is None:
                    q.kill()
        assert p.returncode == 0, f"{backend} process {i} exit {p.returncode}:\n{err[-3000:]}"
        lines = [l for l in out.splitlines() if l.startswith("REPORT ")]
        assert lines, f"{backend} process {i} printed no report:\n{out}\n{err[-3000:]}"
        reports.append(json.loads(lines[-1][len("REPORT "):]))
    return reports


@pytest.fixture(scope="module")
def jobs():
    return run_job("xlac"), run_job("cpu")


def test_the_job_looks_as_on_jax_cpu(jobs):
    xlac, cpu = jobs
    ids = [0, 1, 2048, 2049, 4096, 4097, 6144, 6145]
    for i, (x, c) in enumerate(zip(xlac, cpu)):
        assert x["xlac"] and not c["xlac"]
        for key in ("process_index", "process_count", "devices", "local_devices"):
            assert x[key] == c[key], (i, key, x[key], c[key])
        assert x["process_index"] == i
        assert x["process_count"] == PROCESSES
        assert [d for d, _ in x["devices"]] == ids
        assert x["local_devices"] == [[ids[2 * i], i], [ids[2 * i + 1], i]]


def test_each_process_runs_programs_on_its_own_devices(jobs):
    xlac, cpu = jobs
    for x, c in zip(xlac, cpu):
        assert x["local_program"] == c["local_program"] == [1.0, 3.0, 5.0, 7.0]


def test_a_program_over_the_job_is_one_clear_error(jobs):
    xlac, _ = jobs
    for i, x in enumerate(xlac):
        assert "belongs to another process" in x["job_program"], x["job_program"]
        assert f"this is process {i}" in x["job_program"], x["job_program"]
