#!/usr/bin/env bash
# Device run 1 of session 3 (2026-11-30): which launch shape suits the G1
# mixed-add kernels (CUZK_MSM_OCC = default / 2 / b128: correctness of each
# via the G1 MSM tests, speed via the focused MSM bench), the GPU setup's
# stage times and per-proof stage times at 2^24 in each mode, then cuzk vs
# bellperson + supraseal-c2 at 2^24 in the fastest mode.
# Bundle: `cargo xtask gpu-bundle -p cuzk-msm -p cuzk-groth16 --anchor
# --no-extras`, this file copied to gpu-bundle/session.sh.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-$PWD/gpu-report}; mkdir -p "$O"
B=$(mktemp -d)
cp -r "$HERE"/tests "$HERE"/benches "$HERE"/bin "$B"/
find "$B" -name '*.gz' -exec gunzip -f {} +
chmod -R +x "$B"
export CUZK_EXPECT_GPU=1 RUST_BACKTRACE=1
START=$(date +%s)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; free -g; df -h /tmp; which ncu nsys; ls -d /usr/local/cuda*; cat "$HERE/MANIFEST"; } > "$O/env.txt" 2>&1
T() { # name limit cmd...
  local name=$1 lim=$2; shift 2; local s; s=$(date +%s)
  echo "===== $name: $*" >> "$O/log.txt"
  timeout "$lim" "$@" >> "$O/log.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s" >> "$O/summary.txt"
}
MSMT=$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)
BENCH=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
for mode in std 2 b128; do
  T "msm_g1_tests_$mode" 60 env CUZK_MSM_OCC=$mode "$MSMT" --include-ignored --test-threads=1 gpu_g1 gpu_every --skip large --skip 2_26
  T "bench_$mode" 60 env CUZK_MSM_OCC=$mode CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/bench_$mode.csv" "$BENCH" --bench
done
# fastest mode by the G1 2^24 time. The "what" column holds a comma, so the
# time is field 5. (As run on 2026-11-30 this read fields 1/2/4, matched
# nothing and fell back to std: the prove and anchor steps ran in std mode.)
best=$(for mode in std 2 b128; do
  awk -F, -v m=$mode '$2 ~ /device scalars/ && $3 == 16777216 {print $5, m}' "$O/bench_$mode.csv" 2>/dev/null
done | sort -n | head -1 | cut -d' ' -f2)
best=${best:-std}
echo "best mode: $best" >> "$O/summary.txt"
mkdir -p /tmp/pc
T setup24 120 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/k24.params
for mode in std "$best"; do
  T "prove24_$mode" 60 env CUZK_MSM_OCC=$mode "$B/bin/cuzk" prove --log-size 24 --params /tmp/pc/k24.params \
    --count 3 --timings --backend gpu --out /tmp/pc/p.bin --inputs-out /tmp/pc/i.json
done
mkdir -p /tmp/anchor
ln -s /tmp/pc/k24.params /tmp/anchor/bench-24.params
left=$(( 570 - ($(date +%s) - START) ))
T anchor24 "$left" env CUZK_MSM_OCC=$best "$B/bin/cuzk-anchor" --sizes 24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor24.json"
cat "$O/summary.txt"
grep -a -E "FAILED|panicked|^Error|error:" "$O/log.txt" | head -20
