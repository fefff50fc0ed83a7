"""Buffer donation through the plugin: `jax.jit(f, donate_argnums=...)` on xlac consumes the
donated arrays, computes the aliased outputs in their memory, and gives jax CPU's values."""

import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def test_donation_lowers_in_a_fresh_process():
    """In a new interpreter a donating jit on xlac lowers with aliasing and without JAX's
    "Donation is not implemented" warning: xlac's platform is "cpu", which JAX lowers
    donation for."""
    script = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("error")
        import jax
        import numpy as np
        x = jax.device_put(np.ones(4, np.float32), jax.devices("xlac")[0])
        text = jax.jit(lambda x: x + 1, donate_argnums=0).lower(x).as_text()
        assert "tf.aliasing_output = 0" in text, text
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert "Donation is not implemented" not in out.stderr


def _put(device, a):
    return jax.device_put(np.asarray(a), device)


def test_donated_input_is_deleted_and_its_memory_is_the_output(xlac, cpu):
    f = lambda x: x * 2.0 + 1.0  # noqa: E731
    host = np.linspace(-3, 3, 1024, dtype=np.float32)
    x = _put(xlac, host)
    pointer = x.unsafe_buffer_pointer()
    y = jax.jit(f, donate_argnums=0)(x)
    assert x.is_deleted()
    with pytest.raises(RuntimeError):
        np.asarray(x)
    assert y.unsafe_buffer_pointer() == pointer
    want = np.asarray(jax.jit(f)(_put(cpu, host)))
    np.testing.assert_array_equal(np.asarray(y), want)


def test_a_non_donated_argument_is_untouched(xlac, cpu):
    f = lambda x, y: x * y - y  # noqa: E731
    a = np.arange(64, dtype=np.float32) / 8
    b = np.arange(64, dtype=np.float32)[::-1].copy()
    x, y = _put(xlac, a), _put(xlac, b)
    pointer = x.unsafe_buffer_pointer()
    out = jax.jit(f, donate_argnums=0)(x, y)
    assert x.is_deleted() and not y.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), b)
    assert out.unsafe_buffer_pointer() == pointer
    np.testing.assert_array_equal(np.asarray(out), np.asarray(jax.jit(f)(_put(cpu, a), _put(cpu, b))))


def test_donation_of_two_of_three(xlac, cpu):
    f = lambda x, y, z: (x + y, y * z, z - 1.0)  # noqa: E731
    host = [np.arange(128, dtype=np.float32).reshape(16, 8) / (k + 1) for k in range(3)]
    args = [_put(xlac, h) for h in host]
    pointers = [a.unsafe_buffer_pointer() for a in args]
    out = jax.jit(f, donate_argnums=(0, 2))(*args)
    assert [a.is_deleted() for a in args] == [True, False, True]
    # jax pairs donors with outputs of the same type in order: x -> out[0], z -> out[1].
    assert out[0].unsafe_buffer_pointer() == pointers[0]
    assert out[1].unsafe_buffer_pointer() == pointers[2]
    assert out[2].unsafe_buffer_pointer() not in pointers
    want = jax.jit(f)(*[_put(cpu, h) for h in host])
    for g, w in zip(out, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    np.testing.assert_array_equal(np.asarray(args[1]), host[1])


def test_an_int_tuple(xlac, cpu):
    f = lambda x, y: (x + 1, y * 2)  # noqa: E731
    a, b = np.arange(6, dtype=np.int32), np.arange(6, dtype=np.int32) - 3
    x, y = _put(xlac, a), _put(xlac, b)
    pointer = y.unsafe_buffer_pointer()
    out = jax.jit(f, donate_argnums=1)(x, y)
    assert y.is_deleted() and not x.is_deleted()
    assert out[0].unsafe_buffer_pointer() == pointer
    want = jax.jit(f)(_put(cpu, a), _put(cpu, b))
    for g, w in zip(out, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("donate", [(0,), (1,), (0, 1)])
def test_a_donated_buffer_passed_twice_is_refused_as_xla_refuses_it(xlac, cpu, donate):
    """`f(donate(a), a)` and its mirror images: jax's CPU backend refuses the call with
    INVALID_ARGUMENT and a message of its own; xlac gives the same message, consumes
    nothing, and the next call works."""
    f = jax.jit(lambda x, y: (x + y, x * y), donate_argnums=donate)
    host = np.arange(32, dtype=np.float32) - 5
    messages = []
    for device in (cpu, xlac):
        x = _put(device, host)
        with pytest.raises(jax.errors.JaxRuntimeError) as e:
            f(x, x)
        messages.append(str(e.value))
        assert not x.is_deleted()
        np.testing.assert_array_equal(np.asarray(x), host)
    assert messages[1] == messages[0]
    assert messages[0].startswith("INVALID_ARGUMENT: Attempt to")
    s, p = f(_put(xlac, host), _put(xlac, host))
    np.testing.assert_array_equal(np.asarray(s), host + host)


def test_a_viewed_buffer_is_not_donated(xlac):
    """With a zero-copy numpy view alive the buffer is kept (as XLA:CPU keeps it): the view
    still reads the input and the output has memory of its own."""
    host = np.arange(16, dtype=np.float32)
    x = _put(xlac, host)
    view = np.asarray(x)
    y = jax.jit(lambda x: x * 3.0, donate_argnums=0)(x)
    assert not x.is_deleted()
    np.testing.assert_array_equal(view, host)
    np.testing.assert_array_equal(np.asarray(y), host * 3.0)
    assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()


def test_donation_inside_a_loop_keeps_values(xlac, cpu):
    """A donated state carried through repeated calls, as an optimizer step does."""
    step = jax.jit(lambda w, g: w - 0.5 * jnp.tanh(g) * w, donate_argnums=0)
    g = _put(xlac, np.linspace(-1, 1, 256, dtype=np.float32))
    w = _put(xlac, np.ones(256, np.float32))
    w_cpu = _put(cpu, np.ones(256, np.float32))
    g_cpu = _put(cpu, np.linspace(-1, 1, 256, dtype=np.float32))
    step_cpu = jax.jit(lambda w, g: w - 0.5 * jnp.tanh(g) * w)
    for _ in range(5):
        pointer = w.unsafe_buffer_pointer()
        w = step(w, g)
        assert w.unsafe_buffer_pointer() == pointer
        w_cpu = step_cpu(w_cpu, g_cpu)
    np.testing.assert_allclose(np.asarray(w), np.asarray(w_cpu), rtol=2e-6, atol=1e-7)
