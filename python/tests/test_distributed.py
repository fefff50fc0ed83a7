"""Multi-controller JAX on xlac: `jax.distributed.initialize` in several processes.

Part 1 needs no MPI:

Four processes of two devices each call `jax.distributed.initialize` on a local
coordinator, once with xlac as their backend and once with jax's own CPU backend, and each
prints what it sees: `jax.process_index()`, `jax.process_count()`, `jax.devices()` and
`jax.local_devices()` (ids and owners). Both backends must report the same job. Each
process also runs a program on its own devices, and a program without collectives over
the whole job (each process computes its own shards); a program whose collectives cross
processes gets one clear error on xlac when the processes were not started by mpirun (no
hang, no crash): xlac moves the data between processes over MPI.

Part 2 needs `mpirun` and the plugin built with MPI (`XLAC_MPI=1 pip install ./python`):
`distributed_train.py` runs one data-parallel training step as 4 ranks of one device each,
and as 4 ranks of two devices each, whose gradients cross processes; the parameters it
gathers must equal, bit for bit, the same step on 4 (8) xlac devices in one process, and be
within 1e-5 of jax's CPU backend (gloo collectives) running the same job.
`distributed_groups.py` runs collectives whose groups lie inside a process, cross
processes, or mix both, at 4 ranks x 2 devices: bit-equal to 8 devices in one process, and
within 1e-5 of jax's CPU backend. A rank that dies between two steps (under
`mpirun --enable-recovery`, `collectives_timeout:5`): every other rank's second step raises
an exception naming it, later runs raise the same at once, and nothing hangs.
"""

import ctypes
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import textwrap

import numpy as np
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
        # No collective: every process computes its own shards alone.
        z = jax.jit(lambda: jax.numpy.arange(8.0) * 2, out_shardings=NamedSharding(mesh, P("d")))()
        report["job_elementwise"] = [np.asarray(s.data).tolist() for s in z.addressable_shards]
        # A sum across processes, which were not started by mpirun.
        try:
            jax.jit(lambda a: a.sum(), out_shardings=NamedSharding(mesh, P()))(z)
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


def test_a_program_without_collectives_runs_over_the_job(jobs):
    xlac, _ = jobs
    for i, x in enumerate(xlac):
        # Shard k of arange(8) * 2 is [2k]; process i holds shards 2i and 2i + 1.
        assert x["job_elementwise"] == [[4.0 * i], [4.0 * i + 2]], x["job_elementwise"]


def test_collectives_across_processes_without_mpirun_are_one_clear_error(jobs):
    xlac, _ = jobs
    for x in xlac:
        assert "span processes" in x["job_program"], x["job_program"]
        assert "mpirun" in x["job_program"], x["job_program"]


# ---- part 2: collectives across processes, under mpirun ----------------------------------

TRAIN = pathlib.Path(__file__).resolve().parent / "distributed_train.py"


def plugin_has_mpi():
    from jax_plugins import xlac

    try:
        return hasattr(ctypes.CDLL(xlac.library_path()), "MPI_Init")
    except OSError:
        return False


needs_mpi = pytest.mark.skipif(
    shutil.which("mpirun") is None or not plugin_has_mpi(),
    reason="needs mpirun and the plugin built with MPI (XLAC_MPI=1 pip install ./python)",
)


GROUPS = pathlib.Path(__file__).resolve().parent / "distributed_groups.py"


def run_train(mode, out, backend, ranks=4, extra_env=None, per_process=1, script=TRAIN,
              options="", mpirun_flags=()):
    """`script` as an mpirun job of `ranks` ranks of `per_process` devices ("job"), or in
    one process over `ranks * per_process` devices ("local"); `options` are more xlac
    create options (`;k:v`)."""
    env = dict(os.environ)
    env.update(extra_env or {})
    devices = ranks * per_process if mode == "local" else per_process
    if backend == "xlac":
        env["JAX_PLATFORMS"] = "xlac"
        env["XLAC_PJRT_OPTIONS"] = f"devices:{devices}{options}"
    else:
        env["JAX_PLATFORMS"] = "cpu"
    command = [sys.executable, str(script), mode, str(out), str(devices)]
    if mode != "local":
        command = ["mpirun", "--oversubscribe", "--allow-run-as-root", *mpirun_flags, "-np",
                   str(ranks)] + command
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def run_three(tmp_path, per_process, script):
    """The xlac job, the same program in one xlac process, and the jax CPU job."""
    runs = {}
    for name, mode, backend in [
        ("job", "job", "xlac"),
        ("local", "local", "xlac"),
        ("cpu", "job", "cpu"),
    ]:
        done = run_train(mode, tmp_path / f"{name}.npz", backend, per_process=per_process,
                         script=script)
        assert done.returncode == 0, f"{name}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        runs[name] = dict(np.load(tmp_path / f"{name}.npz"))
        if mode == "job":
            # mpirun interleaves the ranks' lines: find each rank's line anywhere.
            logged = sorted(re.findall(r"rank (\d)/4: devices", done.stdout))
            assert logged == ["0", "1", "2", "3"], done.stdout
    return runs


def assert_equal_to_local_and_close_to_cpu(runs):
    for key in runs["job"]:
        np.testing.assert_array_equal(runs["job"][key], runs["local"][key], err_msg=key)
        np.testing.assert_allclose(runs["job"][key], runs["cpu"][key], rtol=1e-5, atol=1e-5,
                                   err_msg=key)


@needs_mpi
def test_a_training_step_across_processes_equals_one_process_and_jax_cpu(tmp_path):
    runs = run_three(tmp_path, 1, TRAIN)
    assert set(runs["job"]) == {"w1", "b1", "w2", "loss"}
    assert_equal_to_local_and_close_to_cpu(runs)


@needs_mpi
def test_a_training_step_over_two_devices_per_process_equals_eight_in_one(tmp_path):
    runs = run_three(tmp_path, 2, TRAIN)
    assert set(runs["job"]) == {"w1", "b1", "w2", "loss"}
    assert_equal_to_local_and_close_to_cpu(runs)


@needs_mpi
def test_groups_inside_across_and_mixing_processes_equal_eight_in_one(tmp_path):
    runs = run_three(tmp_path, 2, GROUPS)
    assert set(runs["job"]) == {
        "psum_l", "psum_p", "psum_all", "gather_p", "scatter_p", "shift_p", "psum_pairs"
    }
    assert_equal_to_local_and_close_to_cpu(runs)


@needs_mpi
def test_a_rank_that_dies_is_named_by_every_other_rank(tmp_path):
    # --enable-recovery keeps the job running when rank 2 exits after the first step; with
    # a 5 s collectives timeout, the second step's all-reduce raises on every other rank.
    done = run_train("job", tmp_path / "out.npz", "xlac", per_process=2,
                     extra_env={"XLAC_TEST_KILL_RANK": "2"}, options=";collectives_timeout:5",
                     mpirun_flags=("--enable-recovery",))
    text = done.stdout + done.stderr
    assert "rank 2: exiting after the first step" in done.stdout, text[-3000:]
    for rank in (0, 1, 3):
        raised = re.search(rf"rank {rank}: raised after [\d.]+ s: (.*)", done.stdout)
        assert raised, f"rank {rank} did not raise:\n{text[-3000:]}"
        assert re.search(
            r"UNAVAILABLE: .*rank 2 of the MPI job \(4 ranks\) is gone \(no reply within 5 s\)"
            r" in all-reduce .*\(group \{0,1,2,3,4,5,6,7\}\), which waits for devices \{4,5\}",
            raised.group(1),
        ), raised.group(1)
        assert f"rank {rank}: ran again, raised after" in done.stdout, text[-3000:]
        assert re.search(rf"rank {rank}: ran again, .* the same error: True", done.stdout)
    assert "the second step returned" not in done.stdout
    assert "stopping the job" not in text  # no MPI_Abort
    assert not (tmp_path / "out.npz").exists()
