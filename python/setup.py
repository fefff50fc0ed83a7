"""Builds libxlac_pjrt.so with cargo and puts it inside the jax_plugins.xlac package.

`pip install ./python` from the repository root runs this. It builds the workspace member
`pjrt/` in release mode into the repository's `target/` (so a later build reuses it). Set
XLAC_PJRT_LIBRARY=/path/to/libxlac_pjrt.so to package an already-built library instead.

`XLAC_MPI=1 pip install ./python` builds the plugin with MPI (cargo feature `mpi`), which
programs over the processes of a `jax.distributed` job need; it needs Open MPI's headers
and libclang (Debian: libopenmpi-dev, libclang-dev). Without it the plugin needs no MPI.
"""

import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
LIBRARY = "libxlac_pjrt.so"


def build_library() -> pathlib.Path:
    prebuilt = os.environ.get("XLAC_PJRT_LIBRARY")
    if prebuilt:
        return pathlib.Path(prebuilt)
    manifest = ROOT / "Cargo.toml"
    if not manifest.exists():
        raise RuntimeError(f"{manifest} not found: build from a checkout of the xlac repository")
    command = ["cargo", "build", "--release", "-p", "xlac_pjrt", "--manifest-path", str(manifest)]
    if os.environ.get("XLAC_MPI", "0") == "1":
        command += ["--features", "mpi"]
    subprocess.run(command, check=True)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / LIBRARY


class BuildWithCargo(build_py):
    def run(self):
        super().run()
        library = build_library()
        destination = pathlib.Path(self.build_lib) / "jax_plugins" / "xlac"
        destination.mkdir(parents=True, exist_ok=True)
        shutil.copy2(library, destination / LIBRARY)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCargo}, distclass=BinaryDistribution)
