#!/usr/bin/env bash
# Compile time of long element-wise chains: writes an HLO module of N adds on f32[1024]
# (one loop fusion once fused) to target/add_chain/N.hlo and times `xlac compile` on it,
# RUNS times (3 by default), printing CPU seconds (user+sys) and wall seconds of each run
# and their medians. Per-pass dump files are off (`--dump-pass-re '^$'`), so the time is
# the compile's, not the dump writer's. Usage: scripts/add_chain.sh [XLAC] N... (XLAC defaults to
# target/release/xlac; build it with `cargo build --release` first).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
xlac=target/release/xlac
if [ $# -gt 0 ] && [ -x "$1" ]; then xlac=$1; shift; fi
runs=${RUNS:-3}
mkdir -p target/add_chain
for n in "$@"; do
  hlo=target/add_chain/$n.hlo
  {
    echo "HloModule add_chain_$n"
    echo "ENTRY main {"
    echo "  x = f32[1024]{0} parameter(0)"
    echo "  y = f32[1024]{0} parameter(1)"
    prev=x
    for ((i = 1; i <= n; i++)); do
      if [ "$i" -eq "$n" ]; then root="ROOT "; else root=""; fi
      echo "  ${root}a$i = f32[1024]{0} add($prev, y)"
      prev=a$i
    done
    echo "}"
  } >"$hlo"
  cpus=()
  walls=()
  for ((r = 0; r < runs; r++)); do
    rm -rf "target/add_chain/dump_$n"
    out=$( { /usr/bin/time -f '%U %S %e' "$xlac" compile "$hlo" --dump-to "target/add_chain/dump_$n" --dump-pass-re '^$' >/dev/null; } 2>&1 | tail -1)
    read -r user sys wall <<<"$out"
    cpus+=("$(awk "BEGIN {print $user + $sys}")")
    walls+=("$wall")
  done
  med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  echo "N=$n cpu_s=[${cpus[*]}] wall_s=[${walls[*]}] median_cpu_s=$(med "${cpus[@]}") median_wall_s=$(med "${walls[@]}")"
done
