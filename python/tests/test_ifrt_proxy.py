"""Stock jax on `xlac serve --protocol ifrt-proxy` (a single controller): jaxlib's
own IFRT proxy client, registered as the `proxy` backend, runs jit programs (MLP, grad, scan,
while, sort, integers, bf16, conv, ...) on an xlac server in another process, compared with
jax's CPU backend in the same process; with 8 devices behind the server, a data-parallel
training step too. The jax side runs in a child process (ifrt_proxy_programs.py): the proxy
backend has to be registered before jax starts its backends, which this pytest process has
already done for the plugin's tests."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = ["mlp", "grad", "scan", "while", "sort", "integers", "bf16", "conv", "bool_and_u8",
            "f64"]


def xlac_binary():
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "xlac"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build --release`")
    return path


def serve(devices, log_path):
    log = open(log_path, "w")
    p = subprocess.Popen([xlac_binary(), "serve", "--protocol", "ifrt-proxy", "--devices",
                          str(devices), "--listen", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=log, text=True)
    line = p.stdout.readline()
    assert "listening on" in line, line
    return p, line.split()[-1]


def run_programs(devices, tmp_path_factory):
    log_path = tmp_path_factory.mktemp("proxy") / "server.log"
    server, address = serve(devices, log_path)
    try:
        env = dict(os.environ, IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS="true",
                   JAX_PLATFORMS="proxy,cpu", XLA_FLAGS="")
        env.pop("XLAC_PROXY_TOKEN", None)
        child = subprocess.run([sys.executable, str(HERE / "ifrt_proxy_programs.py"),
                                f"grpc://{address}"],
                               env=env, capture_output=True, text=True, timeout=900)
    finally:
        server.kill()
        server.wait()
    results = {}
    for line in child.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            results[r["name"]] = r
    log = pathlib.Path(log_path).read_text()
    return results, child, log


@pytest.fixture(scope="module")
def one_device(tmp_path_factory):
    return run_programs(1, tmp_path_factory)


@pytest.fixture(scope="module")
def eight_devices(tmp_path_factory):
    return run_programs(8, tmp_path_factory)


def check(results, child, log, name):
    if name not in results:
        pytest.fail(f"{name} did not run; child exit {child.returncode}\n"
                    f"stderr tail:\n{child.stderr[-3000:]}\nserver log tail:\n{log[-3000:]}")
    r = results[name]
    assert r["ok"], f"{name}: {r['detail']}\nserver log tail:\n{log[-2000:]}"


def test_the_proxy_devices_are_xlacs(one_device):
    results, child, log = one_device
    check(results, child, log, "devices")
    assert results["devices"]["detail"][-1] == "cpu"
    # The server logs the requests, one line each, never the script.
    assert "compile: ok" in log and "loaded_executable_execute: ok" in log


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_jax_cpu(one_device, name):
    check(*one_device, name)


def test_sharded_step_over_eight_devices(eight_devices):
    results, child, log = eight_devices
    check(results, child, log, "devices")
    assert len(results["devices"]["detail"]) == 9
    check(results, child, log, "sharded_step")
