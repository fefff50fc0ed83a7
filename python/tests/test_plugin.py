"""The plugin as JAX sees it: discovery, threads, errors, create options."""

import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def test_default_backend_is_xlac_and_a_cpu():
    (device,) = jax.devices()
    assert device == jax.devices("xlac")[0]
    assert device.platform == "cpu" and device.device_kind == "cpu"
    assert jax.default_backend() == "cpu"
    assert "xlac" in device.client.platform_version, device.client.platform_version
    assert repr(device) == "XlacDevice(id=0)"
    # jax's own CPU backend is still there, and is another client.
    assert jax.devices("cpu")[0].client is not device.client


@pytest.mark.jit
def test_eight_threads_times_one_hundred_calls(xlac, cpu):
    """One jitted function called from 8 threads at once, 100 calls each, every result
    against JAX's CPU backend on the same inputs (tanh: within a few ulps)."""
    f = jax.jit(lambda x, k: jnp.tanh(x) * k + k)

    def inputs(t, i):
        return np.linspace(-2.0, 2.0, 16, dtype=np.float32) * (0.01 * i), np.float32(t)

    want = {(t, i): np.asarray(f(*(jax.device_put(a, cpu) for a in inputs(t, i)))) for t in range(8) for i in range(100)}
    errors = []

    def worker(t):
        try:
            for i in range(100):
                got = np.asarray(f(*(jax.device_put(a, xlac) for a in inputs(t, i))))
                assert got.dtype == np.float32 and got.shape == (16,)
                np.testing.assert_allclose(got, want[t, i], rtol=2e-6, atol=1e-7)
        except Exception as e:  # noqa: BLE001 - collected and reported below
            errors.append((t, repr(e)))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def _unknown_custom_call(x):
    return jax.ffi.ffi_call("xlac_test_no_such_target", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


@pytest.mark.jit
def test_a_bad_program_raises_and_the_next_call_works(xlac):
    x = jax.device_put(np.ones(4, np.float32), xlac)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        jax.jit(_unknown_custom_call)(x).block_until_ready()
    message = str(info.value)
    assert "error:" in message, message
    assert "xlac_test_no_such_target" in message, message
    assert "\n" not in message.strip(), message
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v + 1.0)(x)), np.full(4, 2.0, np.float32))


@pytest.mark.jit
def test_compiled_memory_and_cost_analysis(xlac):
    compiled = jax.jit(lambda a, b: a @ b).lower(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)).compile()
    cost = compiled.cost_analysis()
    assert cost["flops"] == 2 * 8 * 8 * 8, cost
    memory = compiled.memory_analysis()
    assert memory.argument_size_in_bytes == 2 * 8 * 8 * 4
    assert memory.output_size_in_bytes == 8 * 8 * 4


SCRIPT = textwrap.dedent(
    """
    import sys
    import jax, numpy as np
    jax.config.update("jax_pjrt_client_create_options", sys.argv[1])
    f = jax.jit(lambda x: x * 2.0 + 1.0)
    print(np.asarray(f(np.arange(4, dtype=np.float32))).tolist())
    g = jax.jit(lambda x: x.sum())
    print(float(g(np.arange(4, dtype=np.float32))))
    """
)


def _run(options, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLAC_PJRT")}
    return subprocess.run(
        [sys.executable, str(script), options], capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.jit
def test_dump_to_writes_one_folder_per_compile(tmp_path):
    dump = tmp_path / "dump"
    result = _run(f"dump_to:{dump}", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[1.0, 3.0, 5.0, 7.0]", "6.0"]
    folders = sorted(p.name for p in dump.iterdir())
    assert len(folders) >= 2, folders
    assert folders[0].startswith("module_0000.jit_"), folders
    first = dump / folders[0]
    names = [p.name for p in first.iterdir()]
    assert any(n.endswith(".cpu_after_optimizations.txt") for n in names), names
    assert any(n.endswith(".before_optimizations.txt") for n in names), names


@pytest.mark.jit
def test_log_calls_shows_the_call_sequence(tmp_path):
    log = tmp_path / "calls.log"
    result = _run(f"log_calls:{log}", tmp_path)
    assert result.returncode == 0, result.stderr
    calls = [line.split()[-1] for line in log.read_text().splitlines() if line.startswith("xlac-pjrt ")]
    for expected in ["PJRT_Client_Compile", "PJRT_Client_BufferFromHostBuffer", "PJRT_LoadedExecutable_Execute"]:
        assert expected in calls, calls
    assert calls.index("PJRT_Client_Compile") < calls.index("PJRT_LoadedExecutable_Execute")


@pytest.mark.jit
def test_interpreter_mode_and_threads(tmp_path):
    result = _run("mode:interpreter;threads:2", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[1.0, 3.0, 5.0, 7.0]", "6.0"]


def test_a_bad_create_option_is_reported(tmp_path):
    result = _run("mode:fastest", tmp_path)
    assert result.returncode != 0
    assert "mode:fastest" in result.stderr, result.stderr


def _run_env(options_variable, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLAC_PJRT")}
    env["XLAC_PJRT_OPTIONS"] = options_variable
    return subprocess.run(
        [sys.executable, str(script), ""], capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.jit
def test_options_from_the_environment_in_jax_syntax(tmp_path):
    dump = tmp_path / "dump"
    result = _run_env(f"dump_to:{dump};threads:2", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[1.0, 3.0, 5.0, 7.0]", "6.0"]
    assert any(dump.iterdir())


@pytest.mark.parametrize(
    "options, says",
    [
        ("dump_to=out/dump", "write 'dump_to:out/dump'"),
        ("threads", "'threads' is not key:value"),
        ("speed:11", "unknown create option 'speed' (xlac takes dump_to, mode, threads, log_calls"),
    ],
)
def test_bad_environment_options_fail_loudly(tmp_path, options, says):
    """Never a traceback swallowed at discovery and a silent run on jax's CPU backend: the
    first use of JAX raises, naming the problem."""
    result = _run_env(options, tmp_path)
    assert result.returncode != 0, result.stdout
    assert "Unable to initialize backend 'xlac'" in result.stderr, result.stderr
    assert says in result.stderr, result.stderr


@pytest.mark.jit
def test_a_plain_jit_prints_no_warning(tmp_path):
    # Compiles two programs (with source locations and stack frames in their modules) and
    # runs them: stderr stays empty. jax's "experimental platform" notice and XLA's
    # "Cycle detected in stack_frame_id" were printed here before.
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLAC_PJRT")}
    env["JAX_PLATFORMS"] = "xlac"
    result = subprocess.run(
        [sys.executable, str(script), "threads:1"], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[1.0, 3.0, 5.0, 7.0]", "6.0"]
    assert result.stderr.strip() == "", result.stderr
