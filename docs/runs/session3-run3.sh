#!/usr/bin/env bash
# Device run 3 of session 3 (2026-11-30): the engine sweep on the GPU at
# 2^24 constraints per partition (the largest shape whose 10-point grid
# fits one device call), c ∈ {1, 2, 4, 8, 16} × gw ∈ {1, 2}, j = 10 proofs
# of one partition per point. Bundle: session 3 run 2's (`cuzk`, `xtask`).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/pc
T setup24 60 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/bench-k24-setup0.params
T sweep 520 "$B/bin/xtask" sweep --cuzk "$B/bin/cuzk" --c 1,2,4,8,16 --gw 1,2 -j 10 --partitions 1 \
  --log-size 24 --backend gpu --param-cache /tmp/pc --timeout 110 --no-timeline --out "$O/sweep"
rm -rf "$O/sweep/logs"
finish
