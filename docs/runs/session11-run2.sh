#!/usr/bin/env bash
# Device run 2 of session 11 (2026-12-02). Issue 18, affine rounds after
# run 1 (correct, but 425 against 277 ms at G1 2^24: the backward pass at
# 190 registers ran one block per SM, and late rounds ran 64-block grids):
# the backward pass bounded to 128 registers with its exceptional pairs
# listed for a separate kernel, chains shortened when a round is small.
# - correctness: the GPU MSM tests;
# - A/B rounds auto vs none (CUZK_MSM_ROUNDS=0) at G1 2^20/2^24, then
#   G1 2^24/2^27 + G2 2^24 auto, G1 2^27 none;
# - per-kernel durations (ncu) of the first G1 2^24 MSM with rounds.
# Carried: test cuzk-msm--gpu_device and bench cuzk-msm--gpu_msm from
# `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-groth16 -p cuzk-msm
# --test gpu --test gpu_device --bench gpu_msm --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T msm_gpu_tests 200 "$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)" --include-ignored --test-threads=1
T focus_auto 60 env CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_auto.csv" "$MSM" --bench
T focus_0 60 env CUZK_MSM_ROUNDS=0 CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_0.csv" "$MSM" --bench
T big_auto 150 env CUZK_MSM_BENCH_LOGS="24,27;24" CUZK_BENCH_OUT="$O/big_auto.csv" "$MSM" --bench
T ncu_24 "$(left 480)" /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,launch__registers_per_thread --csv --print-units base \
  --launch-count 1400 --log-file "$O/ncu.csv" env CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/bench_ncu.csv" "$MSM" --bench
T big_0_27 "$(left 580)" env CUZK_MSM_ROUNDS=0 CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/big_0_27.csv" "$MSM" --bench
finish
