"""xlac as a JAX backend.

JAX finds this module through the `jax_plugins` entry point (or as the namespace package
`jax_plugins.xlac`) and calls `initialize()`, which registers the PJRT plugin library that
sits next to this file. With the default priority, `jax.default_backend() == "xlac"`.

Client create options (passed as `jax.config.update("jax_pjrt_client_create_options",
"dump_to:DIR;mode:interpreter")` or a dict; `XLAC_PJRT_OPTIONS` in the same `k:v;k:v`
form is read here too):

- `dump_to=DIR`: one xlac dump folder per compile, `DIR/module_NNNN.NAME/`;
- `mode=compiled|interpreter`: xlac's compiled backend (default) or its reference
  interpreter;
- `threads=N`: the size of the pool kernels split their work over;
- `log_calls=1|PATH`: every PJRT call, in order, to stderr or appended to PATH.

Besides the library, `initialize()` registers lowerings for platform "xlac" where JAX has
none for an unknown platform: `eigh`, `eig` and `svd` reuse JAX's CPU rules, so they become
the LAPACK custom calls xlac's runtime implements. It also adds "xlac" to the platforms JAX
lowers buffer donation for, so `jax.jit(f, donate_argnums=...)` marks the donated arguments
(`tf.aliasing_output`, `jax.buffer_donor`) and the plugin consumes their buffers, computing
the aliased outputs in their memory.
"""

from __future__ import annotations

import os
import pathlib

PLATFORM = "xlac"
LIBRARY_NAME = "libxlac_pjrt.so"


def library_path() -> str:
    """The plugin library: `XLAC_PJRT_LIBRARY` if set, else the one packaged here."""
    override = os.environ.get("XLAC_PJRT_LIBRARY")
    if override:
        return override
    return str(pathlib.Path(__file__).resolve().parent / LIBRARY_NAME)


def _options_from_env() -> dict[str, str]:
    options = {}
    for item in filter(None, os.environ.get("XLAC_PJRT_OPTIONS", "").split(";")):
        key, sep, value = item.partition(":")
        if not sep:
            raise ValueError(f"XLAC_PJRT_OPTIONS: '{item}' is not key:value")
        options[key.strip()] = value.strip()
    return options


# Primitives JAX has no lowering for on an unknown platform; their CPU rules emit the
# LAPACK FFI custom calls (lapack_ssyevd_ffi, lapack_sgesdd_ffi, lapack_sgeev_ffi, ...).
_CPU_RULES_REUSED = ("eigh_p", "eig_p", "svd_p")


def _register_lowerings() -> None:
    from jax._src.interpreters import mlir
    from jax._src.lax import linalg

    cpu = mlir._platform_specific_lowerings["cpu"]
    for name in _CPU_RULES_REUSED:
        prim = getattr(linalg, name, None)
        entry = cpu.get(prim) if prim is not None else None
        if entry is not None:
            mlir.register_lowering(prim, entry.rule, platform=PLATFORM, inline=entry.inline)


def _enable_donation() -> None:
    """Puts "xlac" in the list JAX reads at every lowering to decide whether donated
    arguments get aliasing attributes (else it warns "Donation is not implemented"). The
    list is mutated in place: `jax._src.interpreters.mlir` reads its own module global
    when it lowers, so rebinding a name elsewhere would not be seen."""
    from jax._src.interpreters import mlir

    platforms = mlir._platforms_with_donation
    if PLATFORM not in platforms:
        platforms.append(PLATFORM)


def initialize() -> None:
    """Registers the plugin with JAX (called by JAX's plugin discovery)."""
    from jax._src import xla_bridge

    path = library_path()
    if not os.path.exists(path):
        raise FileNotFoundError(f"xlac PJRT plugin library not found at {path}")
    options = _options_from_env() or None
    xla_bridge.register_plugin(PLATFORM, priority=400, library_path=path, options=options)
    _register_lowerings()
    _enable_donation()
