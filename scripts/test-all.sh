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
cargo test --release
