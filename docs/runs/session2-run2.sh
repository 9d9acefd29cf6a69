#!/usr/bin/env bash
# Device run 2 of session 2 (2026-11-29): correctness of the new MSM
# reduction and of the GPU prover, CLI proofs with GPU setup, MSM bench.
# Run as: bash gpu-bundle/session.sh   (copied there next to the bundle)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-$PWD/gpu-report}; mkdir -p "$O"
B=$(mktemp -d)
cp -r "$HERE"/tests "$HERE"/benches "$HERE"/bin "$B"/
find "$B" -name '*.gz' -exec gunzip -f {} +
chmod -R +x "$B"
export CUZK_EXPECT_GPU=1 RUST_BACKTRACE=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; cat "$HERE/MANIFEST"; } > "$O/env.txt" 2>&1
T() { # name limit cmd...
  local name=$1 lim=$2; shift 2; local s; s=$(date +%s)
  echo "===== $name: $*" >> "$O/log.txt"
  timeout "$lim" "$@" >> "$O/log.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s" >> "$O/summary.txt"
}
T msm_device 150 "$B/tests/cuzk-msm--gpu_device" --include-ignored --test-threads=1
T groth16_gpu 150 "$B/tests/cuzk-groth16--gpu" --include-ignored --test-threads=1
for k in 20 22; do
  T "setup_2^$k" 120 "$B/bin/cuzk" setup --log-size $k --out /tmp/k$k.params
  T "prove_2^$k" 120 "$B/bin/cuzk" prove --params /tmp/k$k.params --log-size $k --count 3 --out /tmp/p$k.bin --timings
done
CUZK_BENCH_OUT="$O/gpu_msm.csv" T msm_bench 200 "$B/benches/cuzk-msm--gpu_msm" --bench
T ntt_spot 120 "$B/tests/cuzk-ntt--gpu" --include-ignored --test-threads=1 spot_sizes two_streams
T "setup_2^24" 150 "$B/bin/cuzk" setup --log-size 24 --out /tmp/k24.params
T "prove_2^24" 120 "$B/bin/cuzk" prove --params /tmp/k24.params --log-size 24 --count 3 --out /tmp/p24.bin --timings
cat "$O/summary.txt"
grep -a -E "FAILED|panicked|^Error|error:" "$O/log.txt" | head -20
