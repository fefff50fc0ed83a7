"""xlac is the CPU it is: jax lowers for it with its CPU rules, so what users write on CPU
runs on xlac with CPU's results: random samplers (sharding annotations on one device),
`lax.platform_dependent`, host callbacks (`jax.debug.print`, `pure_callback`,
`io_callback`), and the narrow element types at the buffer boundary."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax
from jax._src import core as jax_core  # the Token class, as api_test.py imports it
from jax.experimental import io_callback

from conftest import compare, run_on


@pytest.mark.jit
def test_random_normal_is_cpus_bit_for_bit(xlac, cpu):
    compare(xlac, cpu, lambda k: jax.random.normal(k, (3,)), jax.random.PRNGKey(0))
    compare(xlac, cpu, lambda k: jax.random.uniform(k, (2, 5), dtype=jnp.float32), jax.random.PRNGKey(7))


@pytest.mark.jit
def test_sharding_constraint_on_one_device_is_the_identity(xlac, cpu):
    mesh = jax.sharding.Mesh(np.array([xlac]), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))

    def f(a):
        return jax.lax.with_sharding_constraint(a * 2.0, sharding) + 1.0

    x = jax.device_put(np.arange(8, dtype=np.float32), xlac)
    out = jax.jit(f, out_shardings=sharding)(x)
    np.testing.assert_array_equal(np.asarray(out), np.arange(8, dtype=np.float32) * 2.0 + 1.0)


@pytest.mark.jit
def test_platform_dependent_takes_the_cpu_branch(xlac):
    def f(x):
        return lax.platform_dependent(x, cpu=lambda x: x + 1.0, default=lambda x: x - 1.0)

    got = run_on(xlac, f, np.zeros(3, np.float32))
    np.testing.assert_array_equal(got, np.ones(3, np.float32))


@pytest.mark.jit
def test_debug_print_inside_jit_prints(xlac, capfd):
    def f(x):
        jax.debug.print("x is {x}", x=x)
        return x * 2

    x = jax.device_put(np.arange(3, dtype=np.int32), xlac)
    out = jax.jit(f)(x)
    jax.effects_barrier()
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
    assert "x is [0 1 2]" in capfd.readouterr().out


@pytest.mark.jit
def test_pure_callback_computes_on_the_host(xlac, cpu):
    def host_sinc(x):
        return np.sinc(x).astype(x.dtype)

    def f(x):
        y = jax.pure_callback(host_sinc, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 2)
        return y + 1

    compare(xlac, cpu, f, np.linspace(-2, 2, 7, dtype=np.float32))


@pytest.mark.jit
def test_io_callback_runs_once_per_call_in_order(xlac):
    seen = []

    def record(v):
        seen.append(int(v))
        return np.int32(v * 10)

    def f(x):
        a = io_callback(record, jax.ShapeDtypeStruct((), np.int32), x, ordered=True)
        b = io_callback(record, jax.ShapeDtypeStruct((), np.int32), x + 1, ordered=True)
        return a + b

    g = jax.jit(f)
    for i in range(3):
        out = g(jax.device_put(np.int32(i), xlac))
        assert int(out) == 10 * i + 10 * (i + 1)
    jax.effects_barrier()
    assert seen == [0, 1, 1, 2, 2, 3]


@pytest.mark.jit
def test_a_failing_callback_raises_and_the_next_call_works(xlac):
    def boom(x):
        raise ValueError("the host refuses")

    def f(x):
        return jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    x = jax.device_put(np.ones(2, np.float32), xlac)
    with pytest.raises(jax.errors.JaxRuntimeError, match="the host refuses"):
        jax.jit(f)(x).block_until_ready()
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v * 3)(x)), [3.0, 3.0])


@pytest.mark.jit
def test_a_callback_of_the_wrong_shape_is_an_error(xlac):
    def f(x):
        return jax.pure_callback(lambda v: np.zeros(5, np.float32), jax.ShapeDtypeStruct((2,), np.float32), x)

    x = jax.device_put(np.ones(2, np.float32), xlac)
    with pytest.raises(jax.errors.JaxRuntimeError, match="Incorrect output shape"):
        jax.jit(f)(x).block_until_ready()


@pytest.mark.parametrize(
    "dtype", [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4, ml_dtypes.uint4]
)
def test_narrow_types_cross_the_buffer_boundary(xlac, dtype):
    host = np.array([0, 1, 2, 3, 4, 5], dtype=np.float32).astype(dtype)
    on_xlac = jax.device_put(host, xlac)
    assert on_xlac.dtype == dtype
    np.testing.assert_array_equal(np.asarray(on_xlac).view(np.uint8), host.view(np.uint8))


@pytest.mark.jit
@pytest.mark.parametrize("dtype", [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.int4])
def test_narrow_types_convert_as_on_cpu(xlac, cpu, dtype):
    x = np.linspace(-6, 6, 13, dtype=np.float32)
    compare(xlac, cpu, lambda v: v.astype(dtype), x)
    compare(xlac, cpu, lambda v: v.astype(jnp.float32) * 2, x.astype(dtype))


@pytest.mark.jit
def test_spacing_of_a_bf16_zero_is_the_denormal_cpu_gives(xlac, cpu):
    # jaxlib compiles on thread-pool workers that flush denormals; xlac's constant folding
    # must keep them as XLA's does (XLA:CPU gives 9.18e-41 here).
    x = np.array([0.0, -0.0, 1.0], dtype=jnp.bfloat16)
    got = compare(xlac, cpu, jnp.spacing, x)
    assert float(got[0]) != 0.0


@pytest.mark.jit
def test_a_created_token_runs_as_on_cpu(xlac, cpu):
    # jax.lax.create_token lowers to the deprecated stablehlo.create_token.
    for device in (xlac, cpu):
        x = jax.device_put(np.float32(1.0), device)
        token = jax.jit(jax.lax.create_token)(x)
        assert isinstance(token, jax_core.Token), type(token)
        y, token = jax.jit(lambda a: (a + 2.0, jax.lax.create_token(a)))(x)
        assert float(y) == 3.0 and isinstance(token, jax_core.Token)


@pytest.mark.jit
def test_compiler_options_are_checked_as_cpu_checks_them(xlac, cpu):
    def f(x):
        return jnp.sqrt(x**2) + 1.0

    for device in (xlac, cpu):
        x = jax.device_put(np.float32(1.0), device)
        lowered = jax.jit(f).lower(x)
        assert float(lowered.compile(compiler_options={"xla_embed_ir_in_executable": True})(x)) == 2.0
        with pytest.raises(jax.errors.JaxRuntimeError, match="No such compile option: 'invalid_key'"):
            lowered.compile(compiler_options={"invalid_key": "invalid_value"})
        with pytest.raises(jax.errors.JaxRuntimeError, match="is not a valid bool value"):
            lowered.compile(compiler_options={"xla_embed_ir_in_executable": "invalid_value"})
