"""xlac as a JAX backend.

JAX finds this module through the `jax_plugins` entry point (or as the namespace package
`jax_plugins.xlac`) and calls `initialize()`, which registers the PJRT plugin library that
sits next to this file under the backend name "xlac". With the default priority,
`jax.devices()` are xlac's devices and `jax.devices("xlac")` names them explicitly.

xlac is a CPU backend and says so: its devices' platform is "cpu", so JAX lowers programs
for it exactly as for XLA:CPU (the LAPACK custom calls, `lax.platform_dependent(cpu=...)`,
buffer donation, host callbacks). `jax.devices()[0].client.platform_version` starts with
"xlac", and the devices print as `XlacDevice(id=N)`.

Client create options use JAX's own syntax, `key:value` pairs separated by `;`, from the
`XLAC_PJRT_OPTIONS` environment variable or from
`jax.config.update("jax_pjrt_client_create_options", "dump_to:DIR;mode:interpreter")`
(a dict works there too):

- `dump_to:DIR`: one xlac dump folder per compile, `DIR/module_NNNN.NAME/`;
- `mode:compiled|interpreter`: xlac's compiled backend (default) or its reference
  interpreter;
- `threads:N`: the size of the pool kernels split their work over;
- `log_calls:1|PATH`: every PJRT call, in order, to stderr or appended to PATH.

A malformed `XLAC_PJRT_OPTIONS` or an unknown option makes the first use of JAX raise
`RuntimeError: Unable to initialize backend 'xlac': ...` naming the problem (never a silent
fall-back to another backend).

Host callbacks (`jax.debug.print`, `jax.pure_callback`, `io_callback`) reach Python through
a trampoline this module registers with the library (`_register_host_callback_trampoline`).
"""

from __future__ import annotations

import ctypes
import os
import pathlib

PLATFORM = "xlac"
LIBRARY_NAME = "libxlac_pjrt.so"
OPTIONS_VARIABLE = "XLAC_PJRT_OPTIONS"


def library_path() -> str:
    """The plugin library: `XLAC_PJRT_LIBRARY` if set, else the one packaged here."""
    override = os.environ.get("XLAC_PJRT_LIBRARY")
    if override:
        return override
    return str(pathlib.Path(__file__).resolve().parent / LIBRARY_NAME)


def parse_options(text: str, source: str = OPTIONS_VARIABLE) -> dict[str, str]:
    """Parses `key:value;key:value` (JAX's `jax_pjrt_client_create_options` syntax).

    Raises ValueError naming `source` and the offending item; the values are checked by the
    plugin itself, which names the options it knows."""
    options: dict[str, str] = {}
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition(":")
        key = key.strip()
        if not sep or not key:
            hint = ""
            if "=" in item:
                k, _, v = item.partition("=")
                hint = f" (write '{k.strip()}:{v.strip()}')"
            raise ValueError(
                f"{source}: '{item}' is not key:value{hint}; options are key:value pairs "
                "separated by ';', e.g. 'dump_to:/tmp/dump;threads:2'"
            )
        options[key] = value.strip()
    return options


def _options() -> dict[str, str]:
    """The create options from the environment, read when JAX creates the client, so that a
    bad value fails JAX's backend initialization loudly instead of being logged and
    skipped at plugin discovery."""
    return parse_options(os.environ.get(OPTIONS_VARIABLE, ""))


# ---- host callbacks ---------------------------------------------------------------------


class _HostArray(ctypes.Structure):
    """One operand or result of a host callback (`HostArray` in pjrt/src/host_callback.rs)."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("byte_size", ctypes.c_size_t),
        ("element_type", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
    ]


_TRAMPOLINE_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.POINTER(_HostArray),
    ctypes.c_size_t,
    ctypes.POINTER(_HostArray),
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_size_t,
)

# PJRT_Buffer_Type codes -> dtype names (numpy's, or ml_dtypes' for the narrow formats).
_PJRT_DTYPES = {
    1: "bool", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "uint8", 7: "uint16",
    8: "uint32", 9: "uint64", 10: "float16", 11: "float32", 12: "float64", 13: "bfloat16",
    14: "complex64", 15: "complex128", 16: "float8_e5m2", 17: "float8_e4m3fn",
    18: "float8_e4m3b11fnuz", 19: "float8_e5m2fnuz", 20: "float8_e4m3fnuz", 21: "int4",
    22: "uint4", 24: "int2", 25: "uint2", 26: "float8_e4m3", 27: "float8_e3m4",
    28: "float8_e8m0fnu", 29: "float4_e2m1fn",
}
_TOKEN = 23
# The 8-bit type xlac computes each 2/4-bit integer type in.
_WIDENED = {"int2": "int8", "int4": "int8", "uint2": "uint8", "uint4": "uint8"}


def _dtype(code: int):
    import ml_dtypes
    import numpy as np

    name = _PJRT_DTYPES.get(code)
    if name is None:
        raise TypeError(f"a host callback array of PJRT element type {code}")
    return np.dtype(getattr(ml_dtypes, name, name))


def _call_host_callback(callable_ptr, args, num_args, results, num_results, error, capacity):
    """Runs one callback (ctypes holds the GIL here): read-only numpy arguments, tokens as
    None, as jaxlib's CPU handler passes them; the results are checked against the
    program's shapes and written into xlac's buffers."""
    import numpy as np

    try:
        function = ctypes.cast(callable_ptr, ctypes.py_object).value
        operands = []
        for i in range(num_args):
            a = args[i]
            if a.element_type == _TOKEN:
                operands.append(None)
                continue
            dims = tuple(a.dims[d] for d in range(a.rank))
            raw = (ctypes.c_char * a.byte_size).from_address(a.data) if a.byte_size else b""
            array = np.frombuffer(raw, dtype=_dtype(a.element_type)).reshape(dims).copy()
            array.flags.writeable = False
            operands.append(array)
        outputs = function(*operands)
        for i in range(num_results):
            r = results[i]
            if r.element_type == _TOKEN:
                continue
            dims = tuple(r.dims[d] for d in range(r.rank))
            dtype = _dtype(r.element_type)
            value = np.asarray(outputs[i])
            if value.shape == dims and _WIDENED.get(value.dtype.name) == dtype.name:
                # xlac computes 2/4-bit integers widened to 8 bits: the same values.
                value = value.astype(dtype)
            if value.shape != dims or value.dtype != dtype:
                raise TypeError(
                    f"result {i} is {value.dtype}{list(value.shape)}; "
                    f"the program expects {dtype}{list(dims)}"
                )
            value = np.ascontiguousarray(value)
            if value.nbytes != r.byte_size:
                raise TypeError(f"result {i} has {value.nbytes} bytes, expected {r.byte_size}")
            if r.byte_size:
                ctypes.memmove(r.data, value.ctypes.data, r.byte_size)
        return 0
    except BaseException as e:  # noqa: BLE001 - reported to the run as its error
        message = f"{type(e).__name__}: {e}".encode("utf-8", "replace")[: capacity - 1]
        ctypes.memmove(error, message + b"\0", len(message) + 1)
        return 1


_trampoline = _TRAMPOLINE_TYPE(_call_host_callback)
_library = None


def _register_host_callback_trampoline(path: str) -> None:
    """Hands the library the function host callbacks go through. ctypes opens the same
    shared object JAX loaded (the loader returns the loaded copy), so both see one
    registration."""
    global _library
    _library = ctypes.CDLL(path)
    _library.xlac_pjrt_set_host_callback_trampoline.argtypes = [_TRAMPOLINE_TYPE]
    _library.xlac_pjrt_set_host_callback_trampoline.restype = None
    _library.xlac_pjrt_set_host_callback_trampoline(_trampoline)


def initialize() -> None:
    """Registers the plugin with JAX (called by JAX's plugin discovery)."""
    from jax._src import xla_bridge

    path = library_path()
    if not os.path.exists(path):
        raise FileNotFoundError(f"xlac PJRT plugin library not found at {path}")
    # jax calls every plugin but CUDA's and ROCm's "experimental" and warns so on every
    # start. xlac is a CPU backend measured against jax's own test suite (docs/jax.md),
    # so a plain `jax.jit` prints nothing.
    nonexperimental = getattr(xla_bridge, "_nonexperimental_plugins", None)
    if isinstance(nonexperimental, set):
        nonexperimental.add(PLATFORM)
    xla_bridge.register_plugin(PLATFORM, priority=400, library_path=path, options=_options)
    _register_host_callback_trampoline(path)
