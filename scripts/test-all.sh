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

# --- fuzzing (bounded) -------------------------------------------------------------------
# Every fuzz target for XLAC_FUZZ_SECONDS (30 by default) from a fixed seed; a panic, abort,
# signal or hang fails the suite and the input is kept under target/fuzz/TARGET/.
cargo build --release --example fuzz
for fuzz_target in $(target/release/examples/fuzz --list | cut -f1); do
  target/release/examples/fuzz "$fuzz_target" --seconds "${XLAC_FUZZ_SECONDS:-30}"
done
