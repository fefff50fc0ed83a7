#!/usr/bin/env bash
# The whole test suite: the README's second command, and what .ci/run runs from a clean
# clone. Every real component a test needs is installed here when missing (Debian, root),
# never assumed. Sections are independent; each says what it needs and why.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# --- system packages -------------------------------------------------------------------
# tests/report.rs renders the dump folder's report.html in headless Chromium (Debian's
# `chromium`); under CI=true it fails rather than skips when the browser is missing.
command -v chromium || (apt-get update && apt-get install -y chromium)

# --- Rust tests (release: the numerics are heavy) ----------------------------------------
# XLAC_VERIFY_CLIF: Cranelift's verifier checks every generated function (debug builds do
# it anyway; release builds only when asked).
XLAC_VERIFY_CLIF=1 cargo test --release

# --- MPI (tests/mpi.rs) -----------------------------------------------------------------
# `xlac run --distributed mpi` sits behind the cargo feature `mpi`, so a plain build needs no
# system MPI (the Rust tests above are that plain build). rsmpi's build needs Open MPI's
# headers and libclang (bindgen); the tests start jobs with mpirun.
if ! command -v mpirun >/dev/null || ! dpkg -s libopenmpi-dev libclang-dev >/dev/null 2>&1; then
  apt-get update && apt-get install -y libopenmpi-dev openmpi-bin libclang-dev
fi
cargo test --release --features xlac/mpi --test mpi --test mpi_hybrid --test serve_mpi
# The MPI build of the xlac command, for python/tests/test_ifrt_proxy_mpi.py below (stock jax
# through the IFRT proxy front of `mpirun -np 4 xlac serve --protocol ifrt-proxy`): the MPI
# tests above just built it there (a `cargo build` would build it again without the
# dev-dependencies' features, minutes for nothing).
export XLAC_MPI_BINARY="$PWD/target/release/xlac"

# --- fuzzing (bounded) -------------------------------------------------------------------
# Every fuzz target for XLAC_FUZZ_SECONDS (30 by default) from a fixed seed; a panic, abort,
# signal or hang fails the suite and the input is kept under target/fuzz/TARGET/.
cargo build --release --example fuzz
for fuzz_target in $(target/release/examples/fuzz --list | cut -f1); do
  target/release/examples/fuzz "$fuzz_target" --seconds "${XLAC_FUZZ_SECONDS:-30}"
done

# --- the PJRT plugin from JAX (python/tests) ---------------------------------------------
# A venv under target/ with the pinned jax/jaxlib the plugin was measured against, pytest,
# and the plugin installed the way users install it (`pip install ./python`, which builds
# the cdylib with cargo). pytest's exit code 5 (no tests collected) counts as a failure.
venv=target/pjrt-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || (apt-get update && apt-get install -y python3-venv && python3 -m venv "$venv")
fi
"$venv/bin/pip" install --quiet jax==0.10.2 jaxlib==0.10.2 pytest setuptools wheel
# With MPI (installed above): python/tests/test_distributed.py runs a jax.distributed job
# under mpirun whose collectives cross processes.
XLAC_MPI=1 "$venv/bin/pip" install --quiet --no-build-isolation --force-reinstall --no-deps ./python
status=0
# From the root: python/ itself must not be on sys.path (its jax_plugins has no library).
"$venv/bin/python" -m pytest -q python/tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "error: python/tests collected no tests" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"

# --- JAX's own tests, a bounded leg (scripts/jax_tests.py) ---------------------------------
# The files in scripts/jax_tests_ci.txt run on xlac; a test that passes on jax's CPU backend
# (scripts/jax_tests_cpu_baseline.txt, written by the same script from a CPU run) and fails
# on xlac fails the suite unless scripts/jax_tests_known_differences.txt
# names it with its reason. JAX's tests live beside the repository (../shared/jax-tests, or
# XLAC_JAX_TESTS); CI always has them.
jax_tests="${XLAC_JAX_TESTS:-../shared/jax-tests}"
if [ -d "$jax_tests" ]; then
  "$venv/bin/pip" install --quiet absl-py scipy
  "$venv/bin/python" scripts/jax_tests.py --tests "$jax_tests" --files-from scripts/jax_tests_ci.txt \
    --baseline scripts/jax_tests_cpu_baseline.txt --check --python "$venv/bin/python" \
    --out target/jax-tests
elif [ "${CI:-}" = "true" ]; then
  echo "error: JAX's tests not found at $jax_tests" >&2
  exit 1
else
  echo "skipped: JAX's own tests (no $jax_tests; set XLAC_JAX_TESTS)"
fi

# --- the labs' JAX and MPI commands (tests/docs.rs) --------------------------------------
# The plain command blocks of docs/ ran in `cargo test --release` above; the blocks marked
# `jax` (the venv's jax with the plugin) and `mpi` (the MPI build of xlac, mpirun) run here.
XLAC_DOCS_PYTHON="$PWD/$venv/bin/python" XLAC_DOCS_SKIP_PLAIN=1 \
  cargo test --release --features xlac/mpi --test docs
