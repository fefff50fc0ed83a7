#!/usr/bin/env python3
"""Generates xlac's StableHLO portable-artifact corpus: MLIR bytecode (VHLO) files and the
text the same artifact means, for the bytecode reader's tests.

Run from the repository root with the pinned jax of testdata/requirements.txt
(`python3 -m venv venv && venv/bin/pip install jax==0.10.2 jaxlib==0.10.2`):

    python3 testdata/bytecode/generate.py               # everything
    python3 testdata/bytecode/generate.py programs      # only testdata/ programs and jit bytes
    python3 testdata/bytecode/generate.py conformance   # only the conformance cases
    python3 testdata/bytecode/generate.py attributes    # only the sharded and donating programs

Written under testdata/bytecode/:

    programs/NAME.TARGET.mlirbc   testdata/NAME/model.mlir serialized by jaxlib's XLA-side
                                  serializer (the one jax.jit's compile runs: CHLO legalized,
                                  high-level CHLO kept as composites) at VHLO target TARGET
    programs/NAME.jit.mlirbc      the exact bytes jax.jit's compile hands a PJRT plugin that
                                  pins StableHLO 1.17.0 (lowered again, with locations)
    programs/NAME.mlir            the text jaxlib deserializes those artifacts to
    conformance/CASE.TARGET.mlirbc, conformance/CASE.mlir
                                  each `// -----` chunk of the conformance corpus, with its
                                  check.*/interpreter.* lines stripped, that jaxlib's
                                  serialize_portable_artifact_str accepts
    attributes/spmd__NAME.TARGET.mlirbc
                                  testdata/spmd/NAME/model.mlir (Shardy meshes and shardings)
                                  serialized as jax.jit's compile does for a plugin: mixed
                                  serialization, the sdy dialect kept in its own binary encoding
    attributes/NAME.jit.mlirbc    sharded (a Mesh of 8 CPU devices) and donating
                                  (donate_argnums) jax.jit programs, the bytes jax.jit hands a
                                  plugin (tf.aliasing_output, jax.buffer_donor, sdy.sharding)
    attributes/NAME.mlir          the text jaxlib (with the sdy dialect) reads them as
    attributes/NAME.xla.hlo_header
                                  for the donating programs: the `HloModule` line of XLA's own
                                  translation of the same lowering (`compiler_ir("hlo")`), whose
                                  input_output_alias / buffer_donor xlac's conversion must match
    index.tsv                     every case tried: accepted or the reason it was not

TARGET is 1.0.0, 1.13.7 (jax's default, 12 weeks back) and 1.17.0 (jaxlib 0.10.2's current).
Where a target's artifact deserializes to a different text than 1.17.0's, that text is
written as CASE.TARGET.mlir. Output is deterministic (no timestamps, sorted order).
"""

import os
import re
import sys

import numpy as np

# Eight CPU devices for the sharded programs (set before jax is imported).
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTDATA = os.path.join(ROOT, "testdata")
TARGETS = ["1.0.0", "1.13.7", "1.17.0"]
JIT_TARGET = "1.17.0"
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2"}

sys.path.insert(0, TESTDATA)
import jax  # noqa: E402
from jax._src.lib import _jax  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import sdy, stablehlo  # noqa: E402

jax.config.update("jax_platforms", "cpu")
for pkg, version in PINNED.items():
    got = __import__(pkg).__version__
    assert got == version, f"{pkg} {got} is not the pinned {version}"


def to_text(artifact):
    """The StableHLO text jaxlib reads an artifact as (no locations)."""
    ctx = ir.Context()
    stablehlo.register_dialect(ctx)
    sdy.register_dialect(ctx)  # mixed artifacts keep Shardy's attributes in binary
    ctx.allow_unregistered_dialects = True
    module = stablehlo.deserialize_portable_artifact(ctx, artifact)
    text = module.operation.get_asm(enable_debug_info=False)
    return text if text.endswith("\n") else text + "\n"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as fh:
        fh.write(data)


def write_case(folder, name, artifacts):
    """Writes NAME.TARGET.mlirbc for each artifact and the texts they mean."""
    texts = {t: to_text(a) for t, a in artifacts.items()}
    base = texts.get(JIT_TARGET) or next(iter(texts.values()))
    write(os.path.join(folder, name + ".mlir"), base)
    for target, artifact in artifacts.items():
        write(os.path.join(folder, f"{name}.{target}.mlirbc"), artifact)
        if texts[target] != base:
            write(os.path.join(folder, f"{name}.{target}.mlir"), texts[target])


def program_dirs():
    out = []
    for dirpath, _, files in os.walk(TESTDATA):
        rel = os.path.relpath(dirpath, TESTDATA)
        if "model.mlir" in files and not rel.startswith(("bytecode", "stablehlo-conformance")):
            out.append(rel)
    return sorted(out)


def programs(index):
    folder = os.path.join(HERE, "programs")
    import generate as golden  # testdata/generate.py: the programs, to lower them again

    for rel in program_dirs():
        name = rel.replace("/", "__")
        with open(os.path.join(TESTDATA, rel, "model.mlir")) as fh:
            text = fh.read()
        artifacts = {t: _jax.mlir.serialize_portable_artifact(text, t) for t in TARGETS}
        spec = golden.PROGRAMS.get(rel)
        if spec is not None:
            rng = np.random.default_rng(golden.zlib.crc32(rel.encode()))
            with jax.enable_x64(spec["x64"]):
                fn, args = spec["make"](rng)
                lowered = jax.jit(fn, keep_unused=True).lower(*[np.asarray(a) for a in args])
                module = lowered.compiler_ir("stablehlo")
                artifacts["jit"] = _jax.mlir.serialize_portable_artifact(module, JIT_TARGET)
        write_case(folder, name, artifacts)
        index.append(("programs", name, "testdata/" + rel + "/model.mlir", "accepted",
                      " ".join(sorted(artifacts))))
        print(f"programs/{name}: {', '.join(sorted(artifacts))}", flush=True)


STRIP = re.compile(r"^\s*(%[^=]*=\s*)?\"?(check|interpreter)\.")


def conformance_root():
    for cand in (os.path.join(TESTDATA, "stablehlo-conformance"),
                 os.path.join(ROOT, "..", "shared", "conformance")):
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    sys.exit("no conformance corpus: testdata/stablehlo-conformance or ../shared/conformance")


def conformance(index):
    root = conformance_root()
    folder = os.path.join(HERE, "conformance")
    files = []
    for dirpath, _, names in os.walk(root):
        files += [os.path.join(dirpath, n) for n in names if n.endswith(".mlir")]
    accepted = 0
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        with open(path) as fh:
            chunks = fh.read().split("// -----")
        for i, chunk in enumerate(chunks):
            if "func.func" not in chunk:
                continue
            name = f"{rel[:-5].replace('/', '__')}.{i}"
            stripped = "\n".join(l for l in chunk.split("\n") if not STRIP.match(l))
            try:
                artifacts = {t: stablehlo.serialize_portable_artifact_str(stripped, t)
                             for t in TARGETS}
                write_case(folder, name, artifacts)
            except Exception as e:  # jaxlib's error: the case stays out of the corpus
                reason = str(e).strip().split("\n")[0][:160] or type(e).__name__
                index.append(("conformance", name, rel, "rejected", reason))
                continue
            accepted += 1
            index.append(("conformance", name, rel, "accepted", " ".join(TARGETS)))
    print(f"conformance: {accepted} cases accepted", flush=True)


def jit_cases():
    """Sharded and donating jax.jit programs: (name, function, arguments, jit options)."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    import jax.numpy as jnp

    mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
    shard = lambda *spec: NamedSharding(mesh, P(*spec))  # noqa: E731
    a = np.arange(128, dtype=np.float32).reshape(16, 8) / 64
    b = np.arange(32, dtype=np.float32).reshape(8, 4) / 16
    put = jax.device_put

    def mlp(x, w):
        return jnp.tanh(x @ w).sum(axis=1)

    def axpy(x, y):
        return x * 2.0 + y, x - y

    return [
        ("donate_one", lambda x: x * 2.0 + 1.0, [np.ones(4, np.float32)],
         dict(donate_argnums=0)),
        ("donate_two_of_three", lambda x, y, z: (x + y, y * z, z - 1.0),
         [a, a, a], dict(donate_argnums=(0, 2))),
        ("donate_int_tuple", lambda x, y: (x + 1, y * 2), [np.arange(6, dtype=np.int32),
                                                          np.arange(6, dtype=np.int32)],
         dict(donate_argnums=1)),
        ("sharded_mlp", mlp, [put(a, shard("x", "y")), put(b, shard("y", None))],
         dict(out_shardings=shard("x"))),
        ("sharded_donate_out", axpy, [put(a, shard("x", "y")), put(a, shard(None, "y"))],
         dict(donate_argnums=0, out_shardings=shard("x", "y"))),
        ("sharded_buffer_donor", axpy, [put(a, shard("x", "y")), put(a, shard(None, "y"))],
         dict(donate_argnums=(0, 1))),
        ("sharded_replicated", lambda x: jnp.sin(x) * 3.0, [put(a, shard(None, "x"))],
         dict(out_shardings=shard("y", None))),
        # Explicit mesh axes: Shardy constraints (and mixed serialization's casts around
        # them) in both a while's cond and its body, which number their values alike.
        ("explicit_while", explicit_while, [jax.random.key(0)], dict(mesh=EXPLICIT)),
    ]


def explicit_mesh():
    from jax.sharding import AxisType
    return jax.make_mesh((4,), ("x",), axis_types=(AxisType.Explicit,),
                         devices=jax.devices()[:4])


EXPLICIT = explicit_mesh()


def explicit_while(key):
    """jax.random.f with an out_sharding over an Explicit mesh axis (threefry in a while)."""
    from jax.sharding import NamedSharding, PartitionSpec as P

    return jax.random.f(key, dfnum=2.0, dfden=3.0, shape=(4,),
                        out_sharding=NamedSharding(EXPLICIT, P("x")))


def write_xla_header(folder, name, lowered):
    """NAME.xla.hlo_header: the first line of XLA's MLIR-to-HLO translation of `lowered`."""
    header = lowered.compiler_ir("hlo").as_hlo_text().split("\n")[0]
    write(os.path.join(folder, name + ".xla.hlo_header"), header + "\n")


def attributes(index):
    folder = os.path.join(HERE, "attributes")
    spmd = os.path.join(TESTDATA, "spmd")
    for name in sorted(os.listdir(spmd)):
        path = os.path.join(spmd, name, "model.mlir")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            text = fh.read()
        artifacts = {t: _jax.mlir.serialize_portable_artifact(text, t, True) for t in TARGETS}
        write_case(folder, "spmd__" + name, artifacts)
        index.append(("attributes", "spmd__" + name, f"testdata/spmd/{name}/model.mlir",
                      "accepted", " ".join(TARGETS)))
        print(f"attributes/spmd__{name}", flush=True)
    for name, fn, args, options in jit_cases():
        # `mesh`: lowered under jax.set_mesh (explicit axes need it).
        mesh = options.pop("mesh", None)
        if mesh is None:
            lowered = jax.jit(fn, **options).lower(*args)
        else:
            with jax.set_mesh(mesh):
                lowered = jax.jit(fn, **options).lower(*args)
        module = lowered.compiler_ir("stablehlo")
        artifacts = {"jit": _jax.mlir.serialize_portable_artifact(module, JIT_TARGET, True)}
        write_case(folder, name, artifacts)
        if "donate_argnums" in options:
            write_xla_header(folder, name, lowered)
        index.append(("attributes", name, "generate.py jit_cases", "accepted", "jit"))
        print(f"attributes/{name}", flush=True)


def main(argv):
    parts = argv or ["programs", "conformance", "attributes"]
    index_path = os.path.join(HERE, "index.tsv")
    index = []
    if os.path.exists(index_path):
        with open(index_path) as fh:
            rows = [tuple(l.rstrip("\n").split("\t")) for l in fh.readlines()[1:]]
        index = [r for r in rows if r[0] not in parts]
    for part in parts:
        folder = os.path.join(HERE, part)
        if os.path.isdir(folder):
            for f in os.listdir(folder):
                os.remove(os.path.join(folder, f))
        {"programs": programs, "conformance": conformance, "attributes": attributes}[part](index)
    index.sort()
    with open(index_path, "w") as fh:
        fh.write("part\tcase\tsource\tstatus\ttargets or reason\n")
        for row in index:
            fh.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
