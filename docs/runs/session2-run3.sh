#!/usr/bin/env bash
# Device run 3 of session 2 (2026-11-29): the GPU prover tests again (after
# the out-of-memory fix), cuzk vs bellperson + supraseal-c2 side by side,
# the engine sweep on the GPU, then (time permitting) the 32 GiB PoRep
# synthesis comparison. Bundle: `cargo xtask gpu-bundle -p cuzk-groth16
# --anchor`, this file copied to gpu-bundle/session.sh.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-$PWD/gpu-report}; mkdir -p "$O"
B=$(mktemp -d)
cp -r "$HERE"/tests "$HERE"/bin "$B"/
find "$B" -name '*.gz' -exec gunzip -f {} +
chmod -R +x "$B"
export CUZK_EXPECT_GPU=1 RUST_BACKTRACE=1
START=$(date +%s)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; free -g; cat "$HERE/MANIFEST"; } > "$O/env.txt" 2>&1
T() { # name limit cmd...
  local name=$1 lim=$2; shift 2; local s; s=$(date +%s)
  echo "===== $name: $*" >> "$O/log.txt"
  timeout "$lim" "$@" >> "$O/log.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s" >> "$O/summary.txt"
}
T groth16_gpu 90 "$B/tests/cuzk-groth16--gpu" --include-ignored --test-threads=1
mkdir -p /tmp/anchor
T anchor 330 "$B/bin/cuzk-anchor" --sizes 22,24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor.json"
T sweep 150 "$B/bin/xtask" sweep --cuzk "$B/bin/cuzk" --c 1,2,4,8,16 --gw 1,2 -j 3 --partitions 2 \
  --log-size 20 --backend gpu --timeout 60 --no-timeline --out "$O/sweep"
left=$(( 575 - ($(date +%s) - START) ))
if [ "$left" -gt 200 ]; then
  T porep32 "$left" "$B/bin/cuzk-porep-synth" --sector-size 32GiB --reference
fi
cat "$O/summary.txt"
grep -a -E "FAILED|panicked|^Error|error:" "$O/log.txt" | head -20
