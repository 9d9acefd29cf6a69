#!/usr/bin/env bash
# Device run 4 of session 11 (2026-12-02). Issue 18, the affine rounds
# after run 3 (G1 2^24 292 against 278 ms without them, 2^27 1867 against
# 1955; ncu: 99 direct inversions per 2^24 MSM at 0.71 ms each): chunks of
# 2^25 sorted entries (half the direct inversions), the binary inverse's
# result selected limb by limb (no local-memory arrays), G2 without rounds
# by default.
# - correctness: the GPU MSM tests, then the prover's GPU tests (GPU ==
#   CPU, bellperson verifies the proofs);
# - rounds auto at G1 2^24 and 2^27, none (CUZK_MSM_ROUNDS=0) at 2^24
#   (run 2 measured none at 2^27).
# Carried: tests cuzk-msm--gpu_device, cuzk-groth16--gpu and bench
# cuzk-msm--gpu_msm from `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p
# cuzk-groth16 -p cuzk-msm --test gpu --test gpu_device --bench gpu_msm
# --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T msm_gpu_tests 100 "$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)" --include-ignored --test-threads=1
T ab_auto 120 env CUZK_MSM_BENCH_LOGS="24,27;" CUZK_BENCH_OUT="$O/ab_auto.csv" "$MSM" --bench
T ab_0 60 env CUZK_MSM_ROUNDS=0 CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/ab_0.csv" "$MSM" --bench
T groth16_gpu "$(left 590)" "$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)" --include-ignored --test-threads=1
finish
