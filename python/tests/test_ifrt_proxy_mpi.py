"""Stock jax driving four processes it never entered: `mpirun -np 4 xlac serve --protocol
ifrt-proxy`, rank 0 the proxy front jax connects to, every rank one device. The programs of
test_ifrt_proxy.py (MLP, grad, scan, while, sort, integers, bf16, conv, ...) run on rank 0's
device and a data-parallel step over all four ranks, each compared with jax's CPU backend in
the same process; each worker logs the requests it serves, never the script. A rank killed
with SIGKILL makes the next step fail with an error naming it.

Needs Open MPI's mpirun and an xlac built with `--features mpi` (XLAC_MPI_BINARY, or
target/release/xlac when it is that build); without them the tests skip and say why.
scripts/test-all.sh provides both."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = ["mlp", "grad", "scan", "while", "sort", "integers", "bf16", "conv", "bool_and_u8",
            "f64"]
RANKS = 4
MPIRUN = ["mpirun", "--oversubscribe", "--allow-run-as-root",
          # A dead rank must not take the job down before the front has named it.
          "--enable-recovery",
          "--mca", "btl_vader_single_copy_mechanism", "none", "-np", str(RANKS)]


def xlac_binary():
    given = os.environ.get("XLAC_MPI_BINARY")
    if given:
        return pathlib.Path(given)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "xlac"


class Job:
    """`mpirun -np 4 xlac serve --protocol ifrt-proxy --once`, its front's address and the
    ranks' pids."""

    def __init__(self, log_path, deadline):
        if shutil.which("mpirun") is None:
            pytest.skip("mpirun is not installed (scripts/test-all.sh installs openmpi-bin)")
        binary = xlac_binary()
        if not binary.exists():
            pytest.skip(f"{binary} is missing: build it with `cargo build --release "
                        "--features mpi` (or set XLAC_MPI_BINARY)")
        self.log_path = log_path
        log = open(log_path, "w")
        self.process = subprocess.Popen(
            MPIRUN + [str(binary), "serve", "--protocol", "ifrt-proxy", "--once",
                      "--collectives-deadline", str(deadline), "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=log, text=True)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.wait(30)
            text = self.log()
            if "built without MPI" in text:
                pytest.skip(f"{binary} was built without MPI (cargo build --release "
                            "--features mpi)")
            pytest.fail(f"no listening line: {line!r}\n{text[-3000:]}")
        self.address = line.split()[-1]
        # Every rank's worker line: "xlac serve: rank R of 4 (pid P): worker of device R ..."
        self.pids = {}
        deadline_at = time.monotonic() + 30
        while len(self.pids) < RANKS and time.monotonic() < deadline_at:
            for m in re.finditer(r"rank (\d+) of \d+ \(pid (\d+)\)", self.log()):
                self.pids[int(m.group(1))] = int(m.group(2))
            time.sleep(0.05)
        if len(self.pids) != RANKS:
            self.stop()
            pytest.fail(f"{len(self.pids)} of {RANKS} ranks said they listen:\n"
                        f"{self.log()[-3000:]}")

    def log(self):
        return pathlib.Path(self.log_path).read_text()

    def stop(self):
        """Ends the job: SIGTERM lets mpirun stop its ranks; SIGKILL only if it does not."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def wait(self, seconds):
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.stop()
            return None

    def run(self, *extra):
        env = dict(os.environ, IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS="true",
                   JAX_PLATFORMS="proxy,cpu", XLA_FLAGS="")
        env.pop("XLAC_PROXY_TOKEN", None)
        child = subprocess.run([sys.executable, str(HERE / "ifrt_proxy_programs.py"),
                                f"grpc://{self.address}", *extra],
                               env=env, capture_output=True, text=True, timeout=600)
        results = {}
        for line in child.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                results[r["name"]] = r
        return results, child


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    job = Job(tmp_path_factory.mktemp("proxy_mpi") / "job.log", deadline=30)
    try:
        results, child = job.run()
    finally:
        # --once: the job ends with the session (when the child exits).
        status = job.wait(60)
    return results, child, job.log(), status


def check(results, child, log, name):
    if name not in results:
        pytest.fail(f"{name} did not run; child exit {child.returncode}\n"
                    f"stderr tail:\n{child.stderr[-3000:]}\njob log tail:\n{log[-3000:]}")
    r = results[name]
    assert r["ok"], f"{name}: {r['detail']}\njob log tail:\n{log[-2000:]}"


def test_four_ranks_are_the_proxys_devices_and_the_job_ends_with_the_session(programs):
    results, child, log, status = programs
    check(results, child, log, "devices")
    assert len(results["devices"]["detail"]) == RANKS + 1
    assert status == 0, f"mpirun exit {status}\n{log[-3000:]}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_on_rank_0_matches_jax_cpu(programs, name):
    check(*programs[:3], name)


def test_sharded_step_over_the_four_ranks_matches_jax_cpu(programs):
    results, child, log, _ = programs
    check(results, child, log, "sharded_step")
    # Every rank's worker compiled the step's partition and ran it: one log line per request.
    for rank in range(RANKS):
        compiled = re.findall(rf"worker {rank}: request \d+: compile e\d+ on workers "
                              rf"\[0, 1, 2, 3\] \(\d+ bytes of HLO\): ok", log)
        executed = re.findall(rf"worker {rank}: request \d+: execute e\d+ .*: ok", log)
        assert compiled and executed, f"rank {rank}\n{log[-3000:]}"


def test_the_workers_see_requests_never_the_script(programs):
    _, _, log, _ = programs
    worker_lines = [l for l in log.splitlines() if re.match(r"xlac serve: worker \d: ", l)]
    assert len(worker_lines) > 40, log[-3000:]
    kinds = {re.sub(r"^xlac serve: worker \d: (request \d+: )?([a-z-]+).*", r"\2", l)
             for l in worker_lines}
    assert {"compile", "make-array", "execute", "fetch", "delete", "bye"} <= kinds, kinds
    source = (HERE / "ifrt_proxy_programs.py").read_text()
    for needle in ["ifrt_proxy_programs", "def mlp", "sharded_step", "jnp."]:
        assert needle in source and needle not in log, needle


def test_a_killed_rank_is_named(tmp_path):
    # Whether the job then ends by itself is not asserted: after a rank dies, some ranks
    # sometimes stay in MPI past the session (seen under load); the job is stopped here.
    job = Job(tmp_path / "job.log", deadline=5)
    try:
        results, child = job.run("--kill", str(job.pids[2]))
    finally:
        job.wait(20)
    log = job.log()
    r = results.get("rank_killed")
    assert r is not None, f"child exit {child.returncode}\n{child.stderr[-3000:]}\n{log[-3000:]}"
    assert r["ok"], r["detail"]
    assert "rank 2" in r["detail"], r["detail"]
    assert "rank 2 of the MPI job is gone" in log, log[-3000:]
