#!/usr/bin/env bash
# Device run 4 of session 2 (2026-11-29): the engine sweep at 2^22 with a
# c = 64 point (memory budget on the GPU machine), then one 2^26 GPU proof
# (GPU setup, resident parameters). Bundle: run 3's, `cuzk` and `xtask` only.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-$PWD/gpu-report}; mkdir -p "$O"
B=$(mktemp -d)
cp -r "$HERE"/bin "$B"/
find "$B" -name '*.gz' -exec gunzip -f {} +
chmod -R +x "$B"
T() { # name limit cmd...
  local name=$1 lim=$2; shift 2; local s; s=$(date +%s)
  echo "===== $name: $*" >> "$O/log.txt"
  timeout "$lim" "$@" >> "$O/log.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s" >> "$O/summary.txt"
}
T sweep 170 "$B/bin/xtask" sweep --cuzk "$B/bin/cuzk" --c 1,2,4,8,16,64 --gw 1,2 -j 3 --partitions 2 \
  --log-size 22 --backend gpu --timeout 40 --no-timeline --out "$O/sweep"
rm -rf "$O/sweep/logs"
T "demo_2^26" 150 "$B/bin/cuzk" demo --log-size 26 --backend gpu --param-cache /tmp/pc
cat "$O/summary.txt"
