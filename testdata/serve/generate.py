#!/usr/bin/env python3
"""Writes the seeds of the `serve_request` fuzz target (testdata/serve/*.req): one message
of each request kind, encoded by the Python client (python/jax_plugins/xlac/controller.py),
so tests/serve.rs also checks that the Python encoder and the Rust decoder agree.

    python3 testdata/serve/generate.py      (needs numpy only)
"""

import importlib.util
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location(
    "controller", HERE.parents[1] / "python" / "jax_plugins" / "xlac" / "controller.py")
controller = importlib.util.module_from_spec(spec)
spec.loader.exec_module(controller)

PROGRAM = (HERE.parent / "mlp" / "model.hlo").read_text()

SEEDS = {
    "hello": controller.hello(b"0123456789abcdef0123456789abcdef"),
    "compile": controller.compile_request(1, PROGRAM),
    "make_array_f32": controller.make_array(2, np.arange(12, dtype=np.float32).reshape(3, 4)),
    "make_array_pred": controller.make_array(3, np.array([True, False, True])),
    "make_array_empty": controller.make_array(4, np.zeros((0, 5), np.int64)),
    "execute": controller.execute(1, [2, 3, 4], [5, 6]),
    "fetch": controller.fetch(5),
    "delete": controller.delete(2),
    "bye": controller.bye(),
}

for name, body in SEEDS.items():
    (HERE / f"{name}.req").write_bytes(body)
print(f"{len(SEEDS)} seeds in {HERE}")
