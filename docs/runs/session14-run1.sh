#!/usr/bin/env bash
# Device run 1 of session 14 (2026-12-03). Issue 18: why a proof's first
# 2^27 H MSM takes ~2.6 s when the bench's warm one takes 1.6 s. The G1
# MSM bench at the proof's shape (2^k − 1 points) with the per-phase
# profile on (CUZK_MSM_PROFILE=1: device time per phase and host time in
# cudaMallocAsync), the first call on its own row and a row timed while
# every host core copies memory; then the same with the stream-ordered
# pool keeping its memory (CUZK_MSM_POOL=retain) and with five rounds
# instead of auto's four (CUZK_MSM_ROUNDS=5); 2^24 likewise; groth16's GPU
# tests. Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm
# -p cuzk-groth16 --test gpu --bench gpu_msm --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
P="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1 CUZK_MSM_BENCH_BUSY_HOST=1"
T msm27 180 env $P CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27.csv" "$MSM" --bench
T msm27_retain 120 env $P CUZK_MSM_POOL=retain CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27_retain.csv" "$MSM" --bench
T msm27_r5 120 env $P CUZK_MSM_ROUNDS=5 CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27_r5.csv" "$MSM" --bench
T msm24 60 env $P CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/msm24.csv" "$MSM" --bench
T msm24_retain 60 env $P CUZK_MSM_POOL=retain CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/msm24_retain.csv" "$MSM" --bench
T groth16_gpu "$(left 585)" "$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)" --include-ignored --test-threads=1
finish
