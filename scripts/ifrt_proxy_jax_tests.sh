#!/usr/bin/env bash
# JAX's own tests on `xlac serve --protocol ifrt-proxy`: each given file of ../shared/jax-tests
# run twice in the same venv, on jax's CPU backend and on the proxy backend (JAX_PLATFORMS=
# proxy,cpu, XLAC_TEST_DUT=cpu), and the passes compared.
#   scripts/ifrt_proxy_jax_tests.sh [PYTHON] FILE.py...
# The proxy backend is registered by a sitecustomize.py on PYTHONPATH (jax must know it
# before it starts any backend). JAX_NUM_GENERATED_CASES (default 3) samples parameterized tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=${PYTHON:-/work/venv/bin/python}
tests=${JAX_TESTS:-../shared/jax-tests}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r "$tests" "$work/tests"
cat > "$work/sitecustomize.py" <<'PY'
import os
if os.environ.get("XLAC_PROXY_ADDRESS"):
    from jax._src import xla_bridge
    from jax.extend.backend import ifrt_proxy

    def _proxy():
        options = ifrt_proxy.ClientConnectionOptions()
        options.connection_timeout_in_seconds = 30
        return ifrt_proxy.get_client(os.environ["XLAC_PROXY_ADDRESS"], options)

    xla_bridge.register_backend_factory("proxy", _proxy, priority=-1, fail_quietly=False)
PY
target/release/xlac serve --protocol ifrt-proxy --listen 127.0.0.1:0 --quiet > "$work/listen" &
server=$!
for _ in $(seq 50); do [ -s "$work/listen" ] && break; sleep 0.1; done
address=$(awk '{print $NF}' "$work/listen")
export JAX_NUM_GENERATED_CASES=${JAX_NUM_GENERATED_CASES:-3} PYTHONDONTWRITEBYTECODE=1
for file in "$@"; do
  (cd "$work/tests" && JAX_PLATFORMS=cpu "$python" -m pytest -q -p no:cacheprovider "$file" \
     -rA 2>&1 | grep -E '^PASSED' | sort > "$work/cpu.txt") || true
  (cd "$work/tests" && PYTHONPATH="$work" XLAC_PROXY_ADDRESS="grpc://$address" \
     IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true JAX_PLATFORMS=proxy,cpu XLAC_TEST_DUT=cpu \
     "$python" -m pytest -q -p no:cacheprovider "$file" -rA 2>&1 \
     | grep -E '^PASSED' | sort > "$work/proxy.txt") || true
  both=$(comm -12 "$work/cpu.txt" "$work/proxy.txt" | wc -l)
  echo "$file: $(wc -l < "$work/cpu.txt") pass on cpu, $(wc -l < "$work/proxy.txt") on the proxy, $both of the cpu passes"
  comm -23 "$work/cpu.txt" "$work/proxy.txt" | head -20
done
