#!/usr/bin/env bash
# Dumps every testdata model with two xlac binaries and compares the dump folders byte for
# byte (compile-times.txt excepted: it holds measured times). Used
# to show that a compiler change that must not change decisions (a faster fusion pass, say)
# changes nothing. Usage: scripts/compare_dumps.sh OLD_XLAC NEW_XLAC [OUT_DIR]
# (OUT_DIR defaults to target/compare_dumps; a binary's dumps are kept under OUT_DIR/NAME).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
old=$1
new=$2
out=${3:-target/compare_dumps}
dump_all() {
  local xlac=$1 dir=$2
  rm -rf "$dir"
  mkdir -p "$dir"
  for model in testdata/*/model.hlo testdata/bench/*/model.hlo; do
    name=$(dirname "$model" | sed 's|^testdata/||; s|/|_|g')
    "$xlac" compile "$model" --dump-to "$dir/$name" >"$dir/$name.stdout" 2>"$dir/$name.stderr" ||
      echo "exit $?" >>"$dir/$name.stderr"
  done
}
dump_all "$old" "$out/old"
dump_all "$new" "$out/new"
if diff -r --exclude='*compile-times.txt' "$out/old" "$out/new"; then
  echo "identical: $(find "$out/old" -type f | wc -l) files of $(ls testdata/*/model.hlo testdata/bench/*/model.hlo | wc -l) models"
else
  echo "error: dumps differ" >&2
  exit 1
fi
