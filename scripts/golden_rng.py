"""Golden values for xlac's `rng-bit-generator` tests (src/eval/rng.rs).

Two paths into XLA:CPU (jax/jaxlib 0.10.2):
  * `jax.lax.rng_bit_generator(key, shape, dtype, algorithm=...)` for u64[2] states;
  * a hand-written StableHLO module compiled by the CPU client for u64[3] philox states,
    which `jax.lax` refuses.
Prints, per case: algorithm, initial state, shape, dtype, new state, bits (row-major).
Usage: python3 scripts/golden_rng.py
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax._src import xla_bridge
from jax._src.lib import xla_client as xc

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

ALG = {
    "three_fry": jax.lax.RandomAlgorithm.RNG_THREE_FRY,
    "philox": jax.lax.RandomAlgorithm.RNG_PHILOX,
    "default": jax.lax.RandomAlgorithm.RNG_DEFAULT,
}
MLIR_ALG = {"three_fry": "THREE_FRY", "philox": "PHILOX", "default": "DEFAULT"}
MLIR_TY = {"uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64"}

CASES = [
    # (algorithm, state, shape, dtype)
    ("three_fry", [1, 2], (2, 3), "uint32"),
    ("three_fry", [0x123456789ABCDEF0, 0xFFFFFFFFFFFFFFFF], (5,), "uint32"),
    ("three_fry", [7, 42], (), "uint32"),
    ("three_fry", [7, 42], (3, 5), "uint32"),
    ("three_fry", [7, 42], (2, 1, 4), "uint64"),
    ("three_fry", [7, 42], (4,), "uint8"),
    ("three_fry", [7, 42], (4,), "uint16"),
    ("philox", [1, 2], (2, 3), "uint32"),
    ("philox", [0x123456789ABCDEF0, 0xFFFFFFFFFFFFFFFF], (5,), "uint32"),
    ("philox", [7, 42], (), "uint32"),
    ("philox", [7, 42], (3, 5), "uint32"),
    ("philox", [7, 42], (2, 1, 3), "uint64"),
    ("philox", [7, 42], (5,), "uint8"),
    ("philox", [7, 42], (5,), "uint16"),
    ("philox", [7, 42, 9], (2, 3), "uint32"),
    ("philox", [7, 0xFFFFFFFFFFFFFFFE, 9], (5,), "uint64"),
    ("default", [1, 2], (2, 3), "uint32"),
    ("default", [7, 42, 9], (3,), "uint64"),
]


def run_jax(alg, state, shape, dtype):
    key = jnp.array(state, dtype=jnp.uint64)
    f = jax.jit(lambda k: jax.lax.rng_bit_generator(k, shape, jnp.dtype(dtype), algorithm=ALG[alg]))
    return f(key)


def run_stablehlo(alg, state, shape, dtype):
    backend = xla_bridge.get_backend("cpu")
    n = len(state)
    t = "".join(f"{d}x" for d in shape) + MLIR_TY[dtype]
    src = f"""
module @m {{
  func.func public @main(%k: tensor<{n}xui64>) -> (tensor<{n}xui64>, tensor<{t}>) {{
    %s, %b = stablehlo.rng_bit_generator %k, algorithm = {MLIR_ALG[alg]} : (tensor<{n}xui64>) -> (tensor<{n}xui64>, tensor<{t}>)
    return %s, %b : tensor<{n}xui64>, tensor<{t}>
  }}
}}
"""
    devices = xc.DeviceList(tuple(backend.devices()[:1]))
    exe = backend.compile_and_load(src, devices, xc.CompileOptions())
    return exe.execute([jax.device_put(np.array(state, dtype=np.uint64))])


def main():
    for alg, state, shape, dtype in CASES:
        run = run_jax if len(state) == 2 else run_stablehlo
        new_state, bits = run(alg, state, shape, dtype)
        print(f"{alg} state={list(map(hex, state))} shape={shape} dtype={dtype} via {run.__name__}")
        print("  new_state =", [hex(int(x)) for x in np.asarray(new_state)])
        print("  bits =", [int(x) for x in np.asarray(bits).reshape(-1)])


if __name__ == "__main__":
    main()
