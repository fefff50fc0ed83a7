#!/usr/bin/env python3
"""Exports your own JAX function for xlac: the program (HLO with source metadata, and
StableHLO), its inputs, and XLA:CPU's outputs to compare against.

Needs jax and jaxlib (tested with the pinned jax==0.10.2, jaxlib==0.10.2 of
testdata/requirements.txt: `python3 -m venv venv && venv/bin/pip install -r
testdata/requirements.txt`). Run it from the folder that holds your module (or put that
folder on PYTHONPATH):

    python3 scripts/export_jax.py my_model:predict --arg 'f32[8,16]' --arg 'f32[16]' --out out/
    python3 scripts/export_jax.py my_model:predict --inputs my_inputs.npz --out out/

`module:function` names the function (`pkg.mod:f`; `pkg.mod:obj.method` works too). Its
arguments are either given as shapes (`--arg`, in XLA's spelling: `f32[8,16]`, `s32[]`,
`bf16[4]`, `pred[3]`; random values from `--seed`: floats standard normal, integers in
[0, 4) so they are valid indices, booleans at random), or read from an .npz whose arrays
(`arr_0`, `arr_1`, ... as `numpy.savez(path, *args)` writes them) are the arguments in
order. It writes into `--out`:

    model.hlo      HLO text with metadata (op names, source file and line: `xlac explain
                   model.hlo my_model.py:12` finds an instruction by its line)
    model.mlir     the same program as StableHLO text
    inputs.npz     the arguments' array leaves, in order (arr_0, ...); bf16 as float32
    expected.npz   XLA:CPU's outputs, the result's leaves flattened depth-first; bf16 as
                   float32

Then: `xlac run out/model.hlo --input out/inputs.npz --expected out/expected.npz`.
"""

import argparse
import importlib
import os
import re
import sys

import numpy as np

DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": "bfloat16",
}


def parse_arg(spec):
    m = re.fullmatch(r"\s*([a-z0-9]+)\[([0-9,\s]*)\]\s*", spec)
    if not m or m.group(1) not in DTYPES:
        sys.exit(f"error: --arg {spec!r}: expected TYPE[d0,d1,...] with TYPE one of {', '.join(DTYPES)}")
    dims = [int(d) for d in m.group(2).split(",") if d.strip()]
    return m.group(1), dims


def random_array(rng, dtype, dims):
    if dtype == "pred":
        return rng.integers(0, 2, size=dims).astype(np.bool_)
    if dtype[0] in "su":
        return rng.integers(0, 4, size=dims).astype(DTYPES[dtype])
    values = rng.standard_normal(size=dims).astype(np.float32)
    if dtype == "bf16":
        import ml_dtypes
        return values.astype(ml_dtypes.bfloat16)
    return values.astype(DTYPES[dtype])


def storable(a):
    """numpy has no bf16: store it as float32 (exact), as xlac reads it."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def resolve(target):
    if ":" not in target:
        sys.exit(f"error: {target!r}: expected module:function")
    module_name, attr = target.split(":", 1)
    sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(module_name)
    except ImportError as e:
        sys.exit(f"error: cannot import {module_name}: {e}")
    for part in attr.split("."):
        if not hasattr(obj, part):
            sys.exit(f"error: {module_name} has no {attr}")
        obj = getattr(obj, part)
    if not callable(obj):
        sys.exit(f"error: {target} is not callable")
    return obj


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("function", help="module:function")
    p.add_argument("--arg", action="append", default=[], metavar="TYPE[DIMS]",
                   help="one argument's type and shape, in order (repeat)")
    p.add_argument("--inputs", metavar="FILE.npz", help="the arguments, as numpy.savez writes them")
    p.add_argument("--seed", type=int, default=0, help="seed of the random arguments")
    p.add_argument("--x64", action="store_true", help="enable 64-bit types (jax_enable_x64)")
    p.add_argument("--out", required=True, metavar="DIR")
    opts = p.parse_args(argv)
    if bool(opts.arg) == bool(opts.inputs):
        sys.exit("error: give the arguments either as --arg shapes or as --inputs FILE.npz")

    import jax
    jax.config.update("jax_platforms", "cpu")
    if opts.x64:
        jax.config.update("jax_enable_x64", True)
    # Source paths in metadata become base names, so the files do not depend on where
    # the function's file lives.
    jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")
    from jax._src.lib import hlo as hlo_lib

    fn = resolve(opts.function)
    if opts.inputs:
        with np.load(opts.inputs) as z:
            names = sorted(z.files, key=lambda n: (len(n), n)) if all(
                re.fullmatch(r"arr_\d+", n) for n in z.files) else list(z.files)
            args = [z[n] for n in names]
    else:
        rng = np.random.default_rng(opts.seed)
        args = [random_array(rng, *parse_arg(a)) for a in opts.arg]

    jitted = jax.jit(fn)
    lowered = jitted.lower(*args)
    print_options = hlo_lib.HloPrintOptions.short_parsable()
    print_options.print_metadata = True
    print_options.print_large_constants = True
    hlo = lowered._lowering.hlo().as_hlo_module().to_string(print_options)
    mlir = lowered.as_text(debug_info=True)
    outputs = jax.tree_util.tree_leaves(jitted(*args))
    leaves = jax.tree_util.tree_leaves(args)

    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "model.hlo"), "w") as fh:
        fh.write(hlo if hlo.endswith("\n") else hlo + "\n")
    with open(os.path.join(opts.out, "model.mlir"), "w") as fh:
        fh.write(mlir if mlir.endswith("\n") else mlir + "\n")
    np.savez(os.path.join(opts.out, "inputs.npz"), *[storable(a) for a in leaves])
    np.savez(os.path.join(opts.out, "expected.npz"), *[storable(o) for o in outputs])
    print(f"wrote {opts.out}/model.hlo, model.mlir, inputs.npz ({len(leaves)} arrays), "
          f"expected.npz ({len(outputs)} arrays)")


if __name__ == "__main__":
    main(sys.argv[1:])
