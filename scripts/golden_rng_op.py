"""Golden values for xlac's `rng` op (src/eval/rng.rs, src/runtime/library/rng.rs).

XLA:CPU (jax/jaxlib 0.10.2) expands `rng` (`rng-expander`) into Philox bits keyed by a
u64 constant and a per-instruction `rng-get-and-update-state` counter (0x7012395, advanced
by the number of 32-bit words of the result after every execution), then turns the bits
into the distribution. The key is the module's and the process's random generators
combined, so it depends on what the process compiled before: each case runs in a fresh
process, and its key is read from XLA's own dump after `rng-expander`.

Per case this prints one line: type, dims, distribution, a, b, the key, the result bits
of the first execution and those of the second (the counter advanced by one delta),
row-major, as unsigned integers of the element width.
Usage: python3 scripts/golden_rng_op.py > src/eval/rng/xla_rng_op.txt
"""
import os
import re
import subprocess
import sys
import tempfile

CASES = [
    # (element type, dims, distribution, a, b)
    ("f32", (7,), "UNIFORM", -2.0, 3.0),
    ("f32", (2, 3), "UNIFORM", 0.0, 1.0),
    ("f64", (5,), "UNIFORM", -1.0, 4.0),
    ("f16", (6,), "UNIFORM", -1.0, 2.0),
    ("bf16", (6,), "UNIFORM", 1.0, 5.0),
    ("i32", (9,), "UNIFORM", -5, 100),
    ("ui32", (5,), "UNIFORM", 3, 1000000),
    ("i64", (4,), "UNIFORM", -(10**12), 10**12),
    ("ui64", (3,), "UNIFORM", 7, 2**63 + 5),
    ("f32", (5,), "NORMAL", 1.0, 2.0),
    ("f64", (3,), "NORMAL", 0.0, 1.0),
]

NP = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
      "i32": "int32", "ui32": "uint32", "i64": "int64", "ui64": "uint64"}
UINT = {2: "uint16", 4: "uint32", 8: "uint64"}


def child(ty, dims, dist, a, b):
    import jax
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import ml_dtypes  # noqa: F401  (bfloat16 for numpy)
    import numpy as np
    from jax._src import xla_bridge
    from jax._src.lib import xla_client as xc
    backend = xla_bridge.get_backend("cpu")
    t = "".join(f"{d}x" for d in dims) + ty
    n = len(dims)
    src = f"""
module @m {{
  func.func public @main(%a: tensor<{ty}>, %b: tensor<{ty}>) -> tensor<{t}> {{
    %s = stablehlo.constant dense<{list(dims)}> : tensor<{n}xi64>
    %r = stablehlo.rng %a, %b, %s, distribution = {dist} : (tensor<{ty}>, tensor<{ty}>, tensor<{n}xi64>) -> tensor<{t}>
    return %r : tensor<{t}>
  }}
}}
"""
    exe = backend.compile_and_load(src, xc.DeviceList(tuple(backend.devices()[:1])),
                                   xc.CompileOptions())
    dtype = np.dtype(ml_dtypes.bfloat16) if ty == "bf16" else np.dtype(NP[ty])
    args = [jax.device_put(np.array(v).astype(dtype)) for v in (a, b)]
    for _ in range(2):
        (out,) = exe.execute(args)
        out = np.asarray(out).reshape(-1)
        print("bits", [int(x) for x in out.view(UINT[out.dtype.itemsize])])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        ty, dims, dist, a, b = eval(sys.argv[2])
        child(ty, dims, dist, a, b)
        return
    for case in CASES:
        with tempfile.TemporaryDirectory() as dump:
            env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={dump} --xla_dump_hlo_pass_re=rng-expander")
            out = subprocess.run([sys.executable, __file__, "--child", repr(case)], env=env,
                                 check=True, capture_output=True, text=True).stdout
            after = [f for f in os.listdir(dump) if "after_rng-expander" in f]
            text = open(os.path.join(dump, after[0])).read()
            entry = text[text.index("ENTRY"):]
            key = re.search(r"u64\[\] constant\((\d+)\)", entry).group(1)
        runs = [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("bits")]
        ty, dims, dist, a, b = case
        first, second = (",".join(r.strip("[]").split(", ")) for r in runs)
        dims = "x".join(map(str, dims)) or "scalar"
        print(f"{ty} {dims} {dist} {a} {b} key={key} first={first} second={second}")


if __name__ == "__main__":
    main()
