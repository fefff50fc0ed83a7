#!/bin/sh
# The report screenshots in docs/report/: headless Chromium opens report.html of a
# one-device and a sharded dump at one view each and saves a PNG. Run from the repository
# root after `cargo build --release`; needs Debian's chromium (apt-get install chromium).
#   sh scripts/report_screenshots.sh [XLAC]
set -eu
xlac=${1:-target/release/xlac}
out=docs/report
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

"$xlac" run testdata/mlp/model.hlo --quiet --dump-to "$work/mlp"
"$xlac" compile testdata/bench/transformer_block/model.hlo --dump-to "$work/tb" > /dev/null
"$xlac" run testdata/spmd/mesh2d_out_replicated/model.hlo --partitions 8 --quiet \
  --input testdata/spmd/mesh2d_out_replicated/inputs.npz --dump-to "$work/sharded"

shot() { # DUMP VIEW FILE [WIDTH,HEIGHT]
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size="${4:-1280,800}" \
    --screenshot="$out/$3" "file://$work/$1/report.html#view=$2" 2>/dev/null
}

shot "tb" "graph&find=multiply_multiply_fusion" module-graph.png
shot tb passes pipeline.png
shot mlp fusion fusion-decisions.png 1280,600
shot sharded spmd spmd-decisions.png
shot sharded collectives collectives.png 1280,520
shot sharded overview cost.png 1280,640
ls -l "$out"
