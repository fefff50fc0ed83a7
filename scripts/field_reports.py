#!/usr/bin/env python3
"""XLA:CPU's own field reports as regression programs for xlac (tests/field_reports.rs).

Run from the repository root with the pinned jax==0.10.2, jaxlib==0.10.2
(testdata/requirements.txt):

    python3 scripts/field_reports.py

Every program is written to testdata/field_reports/<name>/ as testdata/generate.py writes
its programs: model.hlo (jit's HLO text), inputs.npz, expected.npz (XLA:CPU's outputs),
meta.json (the report it comes from). The programs:

- jax39257: a rank-3 operand broadcast to rank 8, multiplied, reduced over one axis, log
  (https://github.com/jax-ml/jax/issues/39257). The report's A is (10,4,6,9,9,9,9,9), 56 MB
  of float32; here the last five dimensions are 3, so the checked-in inputs stay small
  (the same ops, ranks and reduced axis).
- jax40412: a rank-7 f32 multiply + reduce with a size-1 dimension that is not the reduced
  axis, exactly the report's shapes (https://github.com/jax-ml/jax/issues/40412).
- jax39741: a module whose results changed from call to call with more than one thread
  (https://github.com/jax-ml/jax/issues/39741). The report's module is in a gist this
  script cannot fetch; this program has what made it thread-dependent: long float
  reductions, a dot and a softmax over its rows, whose summation order a thread split could
  change.
- xla47316: modules whose CPU results differed from the interpreter, and only when fusion
  ran (https://github.com/openxla/xla/issues/47316: 18 of its 20 IRs; the IRs are in a zip
  attachment this script cannot fetch). This program has the kinds the report lists:
  NaN and infinities through fused elementwise chains, large relative errors from
  cancellation, and a reduce fused with its producers.

jaxlib 0.10.2 itself crashes (SIGSEGV) on the first two: that is the report. Its outputs
are therefore made with XLA:CPU's YNNPACK library fusions off
(XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=), the fix the reports' threads point to;
the programs themselves are jit's HLO, unchanged.
"""

import os
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_cpu_experimental_ynn_fusion_type=").strip()

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "testdata"))
import generate as golden  # noqa: E402  (testdata/generate.py: text and .npz writers)

OUT = os.path.join(ROOT, "testdata", "field_reports")


def jax39257(rng):
    def f(obs, a):
        lik = jnp.sum(obs[..., None, None, None, None, None] * a, axis=2)
        return jnp.log(jnp.maximum(lik, 2.220446049250313e-16))

    obs = rng.uniform(0.0, 1.0, (10, 4, 6)).astype(np.float32)
    a = rng.uniform(0.0, 1.0, (10, 4, 6, 3, 3, 3, 3, 3)).astype(np.float32)
    return f, [obs, a]


def jax40412(rng):
    def f(a, b):
        return jnp.sum(a * b, axis=3)

    shape = (3, 1, 2, 2, 8, 8, 8)
    return f, [rng.standard_normal(shape).astype(np.float32),
               rng.standard_normal(shape).astype(np.float32)]


def jax39741(rng):
    def f(x, w, b):
        h = jnp.tanh(x @ w + b)
        logits = h - jnp.max(h, axis=1, keepdims=True)
        p = jnp.exp(logits) / jnp.sum(jnp.exp(logits), axis=1, keepdims=True)
        return p, jnp.sum(h * h), jnp.mean(x, axis=0)

    return f, [rng.standard_normal((256, 128)).astype(np.float32),
               (rng.standard_normal((128, 64)) / 16).astype(np.float32),
               rng.standard_normal((64,)).astype(np.float32)]


def xla47316(rng):
    def f(x, y, shift):
        big = jnp.exp(x * 40.0)                    # overflows to inf for x > ~2.2
        ratio = big / (big + 1.0)                  # inf / inf = NaN where it overflowed
        # Catastrophic cancellation. The shift is an argument: with a constant, XLA's
        # algebraic simplifier folds (x + c) - c to x, which IEEE arithmetic (and XLA's
        # own interpreter) does not.
        cancel = (x + shift) - shift
        masked = jnp.where(jnp.isnan(ratio), -jnp.inf, ratio)
        m = jnp.max(masked, axis=1)
        s = jnp.sum(jnp.log(jnp.abs(y)) * cancel, axis=1)
        return ratio, cancel, m, s, jnp.sqrt(y) * jnp.log1p(y)

    x = rng.standard_normal((64, 33)).astype(np.float32) * 3
    y = rng.standard_normal((64, 33)).astype(np.float32)
    y[0, :4] = [0.0, -0.0, np.inf, -np.inf]
    y[1, :2] = [np.nan, -1.0]
    return f, [x, y, np.full((64, 33), 1e7, np.float32)]


PROGRAMS = {
    "jax39257": (jax39257, "https://github.com/jax-ml/jax/issues/39257"),
    "jax40412": (jax40412, "https://github.com/jax-ml/jax/issues/40412"),
    "jax39741": (jax39741, "https://github.com/jax-ml/jax/issues/39741"),
    "xla47316": (xla47316, "https://github.com/openxla/xla/issues/47316"),
}


def main(names):
    assert jax.__version__ == golden.PINNED["jax"], jax.__version__
    for name in names or sorted(PROGRAMS):
        make, report = PROGRAMS[name]
        rng = np.random.default_rng(int.from_bytes(name.encode(), "little") % 2**32)
        fn, args = make(rng)
        lowered = jax.jit(fn).lower(*args)
        text = golden.hlo_text(lowered._lowering.hlo().as_hlo_module(), default_options=False)
        assert "{...}" not in text, name
        outputs = [np.asarray(o) for o in jax.tree_util.tree_leaves(lowered.compile()(*args))]
        folder = os.path.join(OUT, name)
        os.makedirs(folder, exist_ok=True)
        files = {
            "model.hlo": (text if text.endswith("\n") else text + "\n").encode(),
            "inputs.npz": golden.npz_bytes([golden.to_storable(a) for a in args]),
            "expected.npz": golden.npz_bytes([golden.to_storable(o) for o in outputs]),
            "report.txt": f"{report}\n".encode(),
        }
        for fname, data in files.items():
            with open(os.path.join(folder, fname), "wb") as fh:
                fh.write(data)
        print(f"{name}: {len(args)} inputs, {len(outputs)} outputs")


if __name__ == "__main__":
    main(sys.argv[1:])
