#!/usr/bin/env bash
# Device run 1 of session 10 (2026-12-02), a fresh machine. Issue 18:
# - the MSM with level 0 cut into equal chunks across bucket boundaries
#   and the dedicated Montgomery squaring: correctness (the GPU MSM tests,
#   GPU == CPU, every window width) and the field tests (sqr == blst);
# - speed: the full GPU MSM bench (G1 2^16..2^27 with floors, window
#   sweeps, bitmap sums, G2), CSV in $OUT;
# - the device buffer pool (runtime test).
# Bundle: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-gpu -p cuzk-ntt
# -p cuzk-msm -p cuzk-groth16 -p cuzk-scheduler --test field_gpu --test
# runtime --test gpu_device --test gpu --test gpu_faults --bench gpu_msm
# --anchor --no-extras` (run 1 itself carried these four executables,
# stripped, while the anchor was still building).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
T field_gpu 90 "$(t cuzk-gpu--field_gpu)" --include-ignored --test-threads=1
T runtime 60 "$(t cuzk-gpu--runtime)" --include-ignored --test-threads=1
T msm_gpu_tests 240 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1
BENCH=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T msm_bench "$(left 570)" env CUZK_BENCH_OUT="$O/gpu_msm.csv" "$BENCH" --bench
finish
