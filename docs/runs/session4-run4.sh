#!/usr/bin/env bash
# Device run 4 of session 4 (2026-11-30): the engine on the GPU at 2^24
# with the staged H step outside the device lock, the same points as
# session 3 run 3 (c ∈ {8, 16} × gw ∈ {1, 2}, j = 10, one partition each).
# Bundle: run 2's plus `xtask` (stripped target/release/xtask of efb4d40).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/pc
T setup24 60 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/bench-k24-setup0.params
T sweep "$(left 560)" "$B/bin/xtask" sweep --cuzk "$B/bin/cuzk" --c 8,16 --gw 1,2 -j 10 --partitions 1 \
  --log-size 24 --backend gpu --param-cache /tmp/pc --timeout 110 --no-timeline --out "$O/sweep"
rm -rf "$O/sweep/logs"
finish
