#!/usr/bin/env python3
"""Writes XLA:CPU's own dump folder (`--xla_dump_to`) for every golden program, so that
`xlac diff-dump` and its tests can put xlac's decisions beside XLA's without Python.

Run from the repository root with the pinned versions of testdata/requirements.txt
(jax==0.10.2, jaxlib==0.10.2; e.g. `python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip
install -r testdata/requirements.txt`):

    python3 testdata/generate_xla_dumps.py               # every program
    python3 testdata/generate_xla_dumps.py mlp softmax   # only these

Each program `testdata/<name>/` gets `xla_dump/`, holding only the files `xlac diff-dump`
reads, as XLA wrote them:

    module_0000.NAME.before_optimizations.txt                  the module XLA was given
    module_0000.NAME.cpu_after_optimizations.txt               XLA:CPU's final HLO
    module_0000.NAME.cpu_after_optimizations-buffer-assignment.txt   its buffer plan
    module_0000.NAME.SSSS.PIPELINE.after_PASS.before_NEXT.txt  every pass that changed the
                                                               module (PASS_FILES only)

XLA numbers modules per process (`module_0003...`); the files are renamed to
`module_0000` so they do not depend on the order programs are dumped in. The numbered
pass files are kept only for the programs in PASS_FILES (the README's walk-through): they
are a whole module each, about 1 MB per program. Programs come from generate.py (the same
functions and inputs, so `before_optimizations` is `model.hlo`'s module), which also makes
metadata source paths base names; line numbers refer to generate.py and to this file.
"""

import os
import re
import shutil
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate as G  # noqa: E402  (the golden programs and their inputs)

import jax  # noqa: E402

# Programs whose numbered per-pass files are kept.
PASS_FILES = {"transformer_block"}

KEEP = re.compile(
    r"\.(before_optimizations|cpu_after_optimizations|cpu_after_optimizations-buffer-assignment)\.txt$"
)
PASS_FILE = re.compile(r"\.\d{4}\.[^.]+\.after_.*\.txt$")


def dump(name):
    spec = G.PROGRAMS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = os.path.join(HERE, name, "xla_dump")
    with tempfile.TemporaryDirectory() as tmp, jax.enable_x64(spec["x64"]):
        fn, args = spec["make"](rng)
        args = [np.asarray(a) for a in args]
        options = {"xla_dump_to": tmp}
        if name in PASS_FILES:
            options["xla_dump_hlo_pass_re"] = ".*"
        lowered = jax.jit(fn, keep_unused=True).lower(*args)
        lowered.compile(compiler_options=options)
        files = sorted(os.listdir(tmp))
        prefixes = sorted({f.split(".")[0] for f in files if f.startswith("module_")})
        assert len(prefixes) == 1, f"{name}: {len(prefixes)} modules dumped: {prefixes}"
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        kept = 0
        for f in files:
            if KEEP.search(f) or (name in PASS_FILES and PASS_FILE.search(f)):
                target = "module_0000" + f[len(prefixes[0]):]
                shutil.copyfile(os.path.join(tmp, f), os.path.join(out, target))
                kept += 1
    print(f"{name}: {kept} files", flush=True)


def main(argv):
    names = argv or sorted(G.PROGRAMS)
    unknown = [n for n in names if n not in G.PROGRAMS]
    if unknown:
        sys.exit(f"unknown program(s): {' '.join(unknown)}")
    for n in names:
        dump(n)


if __name__ == "__main__":
    main(sys.argv[1:])
