"""jax.jit on xlac against JAX's CPU backend in the same process.

Tolerances: integer, boolean, data-movement and plain arithmetic results are bit-exact
(`EXACT`); transcendental math is within a few float32 ulps (`ULPS`); reductions,
matmuls and whole models, whose summation order differs between backends, within `SUMS`.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import compare

EXACT = dict()
ULPS = dict(rtol=2e-6, atol=1e-7)
SUMS = dict(rtol=2e-5, atol=2e-6)
LOOSE = dict(rtol=1e-4, atol=1e-5)

rng = np.random.default_rng(0)


def f32(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def i32(*shape, lo=-100, hi=100):
    return rng.integers(lo, hi, size=shape, dtype=np.int32)


def mlp_params(sizes=(8, 16, 4)):
    return [(f32(a, b) * 0.3, f32(b) * 0.1) for a, b in zip(sizes[:-1], sizes[1:])]


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


def attention_block(x, wq, wk, wv, wo, w1, w2):
    def layernorm(h):
        m = h.mean(-1, keepdims=True)
        v = ((h - m) ** 2).mean(-1, keepdims=True)
        return (h - m) * jax.lax.rsqrt(v + 1e-5)

    h = layernorm(x)
    q, k, v = h @ wq, h @ wk, h @ wv
    s = jax.nn.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1)
    x = x + (s @ v) @ wo
    return x + jax.nn.gelu(layernorm(x) @ w1) @ w2


def cnn(x, k1, k2):
    y = jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = jax.lax.conv_general_dilated(y, k2, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.lax.reduce_window(y, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0


BIG = rng.standard_normal(512 * 512).astype(np.float32).reshape(512, 512)  # 1 MiB


CASES = {
    "add_one": (lambda x: x + 1.0, (f32(4),), EXACT),
    "arithmetic": (lambda x, y: (x * y - x / (y + 3.0)) * 0.5, (f32(3, 5), f32(3, 5)), EXACT),
    "min_max_abs_neg": (lambda x, y: (jnp.maximum(x, y), jnp.minimum(x, y), jnp.abs(x), -y), (f32(7), f32(7)), EXACT),
    "exp_log": (lambda x: (jnp.exp(x), jnp.log(jnp.abs(x) + 0.1), jnp.log1p(jnp.abs(x)), jnp.expm1(x)), (f32(64),), ULPS),
    "trig": (lambda x: (jnp.sin(x), jnp.cos(x), jnp.tanh(x), jnp.arctan2(x, 1.5)), (f32(64),), ULPS),
    "sqrt_rsqrt_pow": (lambda x: (jnp.sqrt(x), jax.lax.rsqrt(x), x ** 1.7), (f32(64, lo=0.1, hi=5.0),), ULPS),
    "logistic": (jax.nn.sigmoid, (f32(33),), ULPS),
    "int32_math": (lambda a, b: (a + b, a * b, a // jnp.where(b == 0, 1, b), a % jnp.where(b == 0, 1, b)), (i32(20), i32(20)), EXACT),
    "int_bitops": (lambda a, b: (a & b, a | b, a ^ b, a << 3, a >> 2, ~a), (i32(16), i32(16)), EXACT),
    "uint_ops": (lambda a: (a * np.uint32(2654435761), a >> np.uint32(7)), (rng.integers(0, 2**32, 16, dtype=np.uint32),), EXACT),
    "bool_logic": (lambda a, b: (a & b, a | ~b, jnp.logical_xor(a, b)), (rng.random(9) > 0.5, rng.random(9) > 0.5), EXACT),
    "compare_select": (lambda x, y: jnp.where(x > y, x, y * 2.0), (f32(4, 4), f32(4, 4)), EXACT),
    "reduce_sum_axes": (lambda x: (x.sum(), x.sum(0), x.sum(1)), (f32(16, 24),), SUMS),
    "reduce_max_min_prod": (lambda x: (x.max(0), x.min(1), jnp.prod(x[:3], 0)), (f32(5, 6),), SUMS),
    "mean_var": (lambda x: (x.mean(-1), x.var(-1)), (f32(8, 32),), SUMS),
    "matmul": (lambda a, b: a @ b, (f32(32, 48), f32(48, 16)), SUMS),
    "batched_einsum": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (f32(3, 8, 5), f32(3, 5, 7)), SUMS),
    "softmax": (lambda x: jax.nn.softmax(x, axis=-1), (f32(6, 40),), SUMS),
    "layernorm": (lambda x: (x - x.mean(-1, keepdims=True)) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-5), (f32(4, 64),), SUMS),
    "mlp_forward": (mlp, (mlp_params(), f32(5, 8)), SUMS),
    "mlp_grad": (jax.grad(loss), (mlp_params(), f32(5, 8), f32(5, 4)), LOOSE),
    "transformer_block": (attention_block, (f32(6, 16), *(f32(16, 16) * 0.2 for _ in range(4)), f32(16, 32) * 0.2, f32(32, 16) * 0.2), LOOSE),
    "cnn_pooling": (cnn, (f32(2, 8, 8, 3), f32(3, 3, 3, 4) * 0.3, f32(2, 2, 4, 5) * 0.3), LOOSE),
    "while_loop": (lambda x: jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x))[1], (f32(4),), ULPS),
    "fori_loop": (lambda x: jax.lax.fori_loop(0, 7, lambda i, a: a + i * a, x), (f32(3),), EXACT),
    "scan": (lambda xs: jax.lax.scan(lambda c, x: (c + x, c * x), 0.0, xs), (f32(12),), ULPS),
    "cond": (lambda p, x: jax.lax.cond(p, lambda v: v * 2.0, lambda v: v - 1.0, x), (np.bool_(True), f32(5)), EXACT),
    "switch": (lambda i, x: jax.lax.switch(i, [lambda v: v + 1.0, lambda v: v * v, lambda v: -v], x), (np.int32(1), f32(5)), EXACT),
    "random_normal": (lambda k: jax.random.normal(jax.random.wrap_key_data(k), (16,)), (np.array([0, 42], np.uint32),), ULPS),
    "random_uniform_bits": (lambda k: (jax.random.uniform(jax.random.wrap_key_data(k), (8,)), jax.random.bits(jax.random.wrap_key_data(k), (8,))), (np.array([1, 7], np.uint32),), EXACT),
    "gather_indexing": (lambda x, i: (x[i], x[:, 1::2], x[i, 2]), (f32(6, 5), np.array([3, 0, 5, 5], np.int32)), EXACT),
    "scatter_set_add": (lambda x, i, v: (x.at[i].set(v), x.at[i].add(v), x.at[i].max(v)), (f32(10), np.array([1, 4, 4, 9], np.int32), f32(4)), EXACT),
    "dynamic_slices": (lambda x, s: (jax.lax.dynamic_slice(x, (s, 1), (3, 2)), jax.lax.dynamic_update_slice(x, jnp.ones((2, 2)), (s, s))), (f32(6, 6), np.int32(2)), EXACT),
    "sort": (lambda x: (jnp.sort(x), jnp.sort(x, axis=0)), (f32(5, 7),), EXACT),
    "argsort": (lambda x: jnp.argsort(x), (f32(19),), EXACT),
    "top_k": (lambda x: jax.lax.top_k(x, 3), (f32(4, 10),), EXACT),
    "cumsum": (lambda x: (jnp.cumsum(x), jnp.cumsum(x.reshape(4, 6), axis=1)), (f32(24),), SUMS),
    "cumprod_cummax": (lambda x: (jnp.cumprod(x), jax.lax.cummax(x)), (f32(10, lo=0.5, hi=1.5),), SUMS),
    "argmax_argmin": (lambda x: (jnp.argmax(x, 0), jnp.argmin(x, 1)), (f32(6, 9),), EXACT),
    "bf16_mix": (lambda x, y: (x.astype(jnp.bfloat16) * y.astype(jnp.bfloat16)).astype(jnp.float32) + y, (f32(16), f32(16)), EXACT),
    "f16_mix": (lambda x: (x.astype(jnp.float16) + jnp.float16(1.5)) * jnp.float16(0.25), (f32(16),), EXACT),
    "int_float_converts": (lambda x, i: (x.astype(jnp.int32), i.astype(jnp.float32), (x > 0).astype(jnp.int8)), (f32(12, lo=-50, hi=50), i32(12)), EXACT),
    "erf": (jax.scipy.special.erf, (f32(40),), ULPS),
    "erfinv": (jax.scipy.special.erfinv, (f32(40, lo=-0.99, hi=0.99),), dict(rtol=1e-5, atol=1e-6)),
    "logsumexp": (lambda x: jax.scipy.special.logsumexp(x, axis=-1), (f32(4, 30),), SUMS),
    "zero_d": (lambda x, y: x * y + 1.0, (np.float32(3.0), np.float32(-2.0)), EXACT),
    "zero_size": (lambda x: (x * 2.0, x.sum(0)), (np.zeros((0, 3), np.float32),), EXACT),
    "captured_constant_1mib": (lambda x: (BIG @ x)[:4], (f32(512),), LOOSE),
    "multiple_outputs_pytree": (lambda x: {"a": x + 1.0, "b": (x * 2.0, x.astype(jnp.int32))}, (f32(5, lo=0, hi=9),), EXACT),
    "reshape_transpose_concat_pad": (lambda x: (jnp.concatenate([x, x.T[:2].T], 1), jnp.pad(x, ((1, 0), (0, 2))), x[::-1], x.reshape(-1)), (f32(3, 4),), EXACT),
    "one_hot": (lambda i: jax.nn.one_hot(i, 6), (np.array([0, 5, 2, 2], np.int32),), EXACT),
}


@pytest.mark.jit
@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_cpu(xlac, cpu, name):
    f, args, tol = CASES[name]
    compare(xlac, cpu, f, *args, **tol)


def spd(n):
    a = f32(n, n)
    return a @ a.T + n * np.eye(n, dtype=np.float32)


LINALG = {
    "cholesky": (jnp.linalg.cholesky, (spd(5),), LOOSE),
    "solve": (jnp.linalg.solve, (spd(4), f32(4, 2)), LOOSE),
    "inv": (jnp.linalg.inv, (spd(4),), LOOSE),
    "qr": (lambda a: jnp.abs(jnp.linalg.qr(a)[1]), (f32(5, 3),), LOOSE),
    "eigh": (lambda a: jnp.linalg.eigh(a)[0], (spd(4),), LOOSE),
    "svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), (f32(5, 3),), LOOSE),
}


@pytest.mark.jit
@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(xlac, cpu, name):
    f, args, tol = LINALG[name]
    compare(xlac, cpu, f, *args, **tol)


@pytest.mark.jit
def test_donated_inputs(xlac, cpu):
    f = lambda x, y: (x * 2.0 + y, y)
    x, y = f32(8), f32(8)
    got = []
    for device in (xlac, cpu):
        xd, yd = jax.device_put(x, device), jax.device_put(y, device)
        out = jax.jit(f, donate_argnums=(0,))(xd, yd)
        got.append(np.asarray(out[0]))
        assert np.asarray(yd).shape == (8,)
    np.testing.assert_array_equal(got[0], got[1])


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, jnp.bfloat16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (7,), (2, 3, 4)], ids=str)
def test_device_put_round_trip(xlac, dtype, shape):
    with jax.enable_x64(True):
        raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
        if np.dtype(dtype) == np.bool_:
            raw &= 1
        host = raw.view(np.dtype(dtype)).reshape(shape)
        on_xlac = jax.device_put(host, xlac)
        assert on_xlac.devices() == {xlac}
        assert on_xlac.dtype == host.dtype
        back = np.asarray(on_xlac)
        assert back.tobytes() == host.tobytes()


@pytest.mark.jit
def test_zero_copy_view_outlives_the_array(xlac):
    y = jax.jit(lambda x: x * 3.0)(jax.device_put(f32(1000), xlac))
    view = np.asarray(y)
    want = view.copy()
    del y
    np.testing.assert_array_equal(view, want)
